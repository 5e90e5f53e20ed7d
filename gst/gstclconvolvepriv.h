/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvolve's insides, shared by its files: the element's state and the
 * kernel-argument records (gstclconvolve.c: properties, caps, frames;
 * gstclconvolvepaths.c: which kernels a matrix takes, their programs and
 * warm-up; gstclconvolvelaunch.c: a frame's taps and launches;
 * gstclconvolvepx.c: the GPU kernels built per matrix;
 * gstclconvolvefirst.c: conv2d_first). Not installed. */
#pragma once

#include "gstclconvolve.h"
#include "gstclconvolvekernel.h"
#include "gstclwarmup.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cl_convolve_debug);
#define GST_CAT_DEFAULT gst_cl_convolve_debug

/* samples per work-item of the strip kernels, tile of conv2d_tile */
#define STRIP 64
#define TILE_W 64
#define TILE_H 16
/* rows per work-item of the separable CPU kernels
 * (kernels/convolve-cpu-sep.cl): each strip's row pass first refills 2 ry rows
 * of the strip above, so a taller strip repeats less; 128 rows measured faster
 * than 64 on a 2-vCPU AMD EPYC and a 16-core Xeon alike
 * (docs/performance-log.md) */
#define SEP_ROWS 128
/* sep_fixed's work-items on 4-sample pixels with a pass-through sample */
#define COLOUR_STRIP 128
/* conv2d_reg<R>: 64x4 work-items, each a column of 8 outputs, R <= 5 */
#define REG_WX 64
#define REG_WY 4
#define REG_TH 32
#define REG_MAX_R 5
/* GST_CL_CONVOLVE_FIRST: "only" (tests): every frame of the CPU path runs
 * conv2d_first (the tile path's tests assert its own kernels); "off": none
 * does (frames wait for the current path's kernel, as live streams do);
 * otherwise a non-live stream runs it until the warm-up worker has
 * compiled the current path (CPU) or built its program (GPU) */
#define FIRST_ENV "GST_CL_CONVOLVE_FIRST"
/* conv2d_first's work-group: frames and its compile launch alike (PoCL
 * compiles a kernel per work-group size) */
#define FIRST_LX 8
/* conv2d_first reads every tap from the frame: about 1.4 ns per tap and
 * sample on 2 PoCL cores (a 1080p RGBA frame of a 7x7 gaussian: 70 ms).
 * Frames of more taps x samples than this (64 taps at 1080p RGBA, ~90
 * ms) take the path's own kernel at once: its compile costs less. */
#define FIRST_MAX_WORK (64 * (guint64) 1920 * 1080 * 4)
#define FIRST_SAMPLES 16        /* per work-item */
#define STRIPS_LX 1           /* strips work-group: 1x8 */
#define STRIPS_LY 8
#define FIX2D_ROWS 8            /* conv2d_fixed: output rows per work-item */

typedef struct
{
  gint width, height;           /* pixels */
  gint ch;                      /* samples per pixel */
  gint alpha_pos;               /* channel copied unfiltered, or -1 */
  gboolean chroma;              /* a YUV chroma plane */
} ConvPlane;

typedef struct
{
  cl_kernel strips, tile, hpass, vpass, sep;
  cl_kernel reg[REG_MAX_R];     /* conv2d_reg1..5 */
  cl_kernel strips_fixed, sep_fixed;    /* CPU, 8-bit, float program only */
} ConvKernels;

/* arithmetic of a path: which program, and on CPU devices which kernels */
enum
{
  ARITH_FLOAT,
  ARITH_INTEGER,
  ARITH_FIXED,                  /* float program, conv2d_fixed/sep_fixed */
  N_ARITH
};

struct _GstClConvolve
{
  GstClBaseFilter parent;

  /* properties, under the object lock */
  GstClConvolvePreset preset;
  GArray *user_kernel;          /* gdouble, as set */
  gint kernel_width, kernel_height;
  gdouble divisor, bias, sigma;
  gint radius;
  gboolean absolute;
  GstClConvolveBorder border;
  guint border_value;
  GstClConvolveChroma chroma;
  GstClConvolveKernel *kernel;  /* in effect */
  guint generation;             /* bumped when @kernel changes */
  gboolean shape_pending;       /* kernel and kernel-width/height disagree;
                                 * an error if still so at caps time */

  /* streaming thread */
  GstClConvolveKernel *frame_kernel;    /* snapshot uploaded to the taps */
  guint frame_generation;
  gboolean use_tile;
  /* the fixed-point kernels are built (CPU devices: they use clang's
   * 32-lane vectors, which GPU compilers such as NVIDIA's refuse) */
  gboolean fixed_ok;
  /* ... and sep_fixed's colour path: host_colour_path () */
  gint fixed_colour;
  /* The integer program's sep_fixed and conv2d_fixed (exact sums in
   * 16-bit lanes, gst_cl_convolve_uses_exact16): the one of the path a
   * stream starts on, where it starts on such a matrix (exact16_start:
   * EXACT16_SEP or EXACT16_2D, else 0), is prepared with that path (in
   * set_info, or by its job, exact16_job, where conv2d_first serves the
   * first frames); on non-live streams a job of their own
   * (exact16_all_job) prepares both, after the other paths. A live
   * stream waits for every preparation before its first frame, so it
   * prepares no other (the 32-bit kernels are exact too). Frames take each
   * once ready (exact16_ready: those bits, streaming thread), sep_strips
   * and conv2d_strips until then. Set in set_info. */
  guint exact16_start, exact16_ready;
  guint exact16_job, exact16_all_job;
  /* whether the integer program has the fixed-point kernels (exact16_start
   * or a non-live stream): that code adds 0.14 s to its build on PoCL, and
   * a live stream waits for every build (2-vCPU AMD EPYC, live I420) */
  gboolean integer_fixed;
  /* ... and sep_strips' slides for boxes (kernel->box), on the same terms:
   * a stream that starts on a box, or is not live (0.1 s more to a live
   * I420 start on PoCL, 2-vCPU AMD EPYC) */
  gboolean integer_box;
  gint separable_min;           /* separable matrices at least this wide (or
                                 * tall) take the two-pass path */
  gboolean depth16;
  ConvPlane planes[GST_VIDEO_MAX_PLANES];
  guint n_planes;
  cl_mem taps2d, taps_row, taps_col;
  cl_mem coef_sq;               /* dense (2R+1)^2 matrix for conv2d_reg */
  gint reg_r;                   /* its R, 0 when larger than REG_MAX_R */
  cl_float px_coef[(2 * REG_MAX_R + 1) * (2 * REG_MAX_R + 1)];  /* the
                                 * same square as float, for conv2d_px */
  gboolean px_exact;            /* conv2d_px's float sums are exact (or the
                                 * path is float anyway) */
  gboolean px_on;               /* GPU path: conv2d_px where it applies */
  gint px_sparse;               /* a kernel per zero pattern: 1 always, 0
                                 * for mostly-zero 2-D matrices, -1 never */
  gboolean px_sep;              /* separable matrices: the fused kernel */
  gboolean px_wait;             /* frames wait for their variant's build */
  gint px_nx1, px_nx4, px_rows; /* its work-item shape (build options) */
  gint px_max_r;
  gboolean pxl_on;              /* conv2d_pxl for 4-sample planes */
  gboolean pxl_2d;              /* for 2-D matrices too, not only separable */
  gint pxl_rows;                /* its rows per work-item (0: pxl_rows) */
  gint pxl_nx;                  /* its pixels per work-item, side by side */
  gint pxl_hu;                  /* its row pass's pixels per step */
  gboolean pxl_sep16;           /* its row pass's 16-byte local stores */
  gint pxl_fin;                 /* its finish (PXL_FIN) */
  gint pxl_wid;                 /* its widening (PXL_WID) */
  gint pxl_fp;                  /* its loads ahead (PXL_FP; -1: px_fp) */
  guint64 px_mask;              /* the frame matrix's zero pattern (see
                                 * kernels/convolve-gpu-px.cl) */
  GPtrArray *px_variants;       /* of PxVariant, built on the warm-up
                                 * worker, per caps */
  cl_kernel frame_px[2];        /* this frame's conv2d_px for 1- and
                                 * 4-sample planes, NULL: conv2d_reg */
  gint n2d, nrow, ncol;
  cl_int direct;                /* sparse matrix: taps read the frame */
  cl_mem tmp;                   /* separable intermediate, per caps */
  gsize tmp_size;
  ConvKernels kernels[2];       /* [integer]: the path in use at caps time
                                 * made then, the other at its first use */
  GstClWarmup *warmup;          /* the base class's: prepares the other
                                 * paths, per caps */
  cl_kernel first;              /* CPU: conv2d_first (see FIRST_ENV), a
                                 * program of its own, compiled at caps */
  gboolean first_integer;       /* its program's arithmetic */
  gboolean first_only;          /* FIRST_ENV=only */
  gboolean first_fits;          /* gst_cl_convolve_first_pays_off
                                 * (frame_kernel) */
  guint first_frames;           /* frames it filtered since caps */
  guint warm_job[N_ARITH][2];   /* [arith][separable]: the warm-up job
                                 * that makes that path ready, 0 if ready */
};

/* What convolution kernels take for one plane, as kernel argument values */
typedef struct
{
  cl_int width, height, ch, apos;
  cl_int rx, ry, bval, border, border_row, direct;
  cl_int n2d, nrow, ncol, tpitch;
  cl_float finv, fbias;
  cl_int idiv, ibias, absolute;
  cl_mem taps2d, taps_row, taps_col, coef_sq, tmp;
} ConvArgs;

/* the arguments every convolution kernel starts with (after any scratch
 * buffer): source and destination plane, then the plane's geometry */
#define FRAME_ARGS(in, out, p, c) GST_CL_ARG_PLANE (in, p), \
    GST_CL_ARG_PLANE (out, p), GST_CL_ARG ((c)->width), \
    GST_CL_ARG ((c)->height), GST_CL_ARG ((c)->ch), GST_CL_ARG ((c)->apos)
#define PARAM_ARGS(c) GST_CL_ARG ((c)->finv), GST_CL_ARG ((c)->fbias), \
    GST_CL_ARG ((c)->idiv), GST_CL_ARG ((c)->ibias), \
    GST_CL_ARG ((c)->absolute)
/* conv2d_strips */
#define STRIPS_ARGS(in, out, p, c) FRAME_ARGS (in, out, p, c), \
    GST_CL_ARG ((c)->taps2d), GST_CL_ARG ((c)->n2d), GST_CL_ARG ((c)->rx), \
    GST_CL_ARG ((c)->bval), GST_CL_ARG ((c)->border), \
    GST_CL_ARG ((c)->direct), PARAM_ARGS (c)
/* sep_strips */
#define SEP_ARGS(in, out, p, c) FRAME_ARGS (in, out, p, c), \
    GST_CL_ARG ((c)->taps_row), GST_CL_ARG ((c)->nrow), GST_CL_ARG ((c)->rx), \
    GST_CL_ARG ((c)->taps_col), GST_CL_ARG ((c)->ncol), GST_CL_ARG ((c)->ry), \
    GST_CL_ARG ((c)->bval), GST_CL_ARG ((c)->border), \
    GST_CL_ARG ((c)->border_row), PARAM_ARGS (c)

#define CONV_WHAT "Could not run the convolution"
#define SEP_WHAT "Could not run the separable convolution"

/* gstclconvolve.c: releases every kernel and buffer of the caps */
void gst_cl_convolve_reset (GstClBaseFilter * filter);

/* WarmJob.separable of the job that prepares the integer program's
 * sep_fixed alone */
#define EXACT16_JOB 2
/* exact16_start's and exact16_ready's bits */
#define EXACT16_SEP 1
#define EXACT16_2D 2
#define EXACT16_BOTH (EXACT16_SEP | EXACT16_2D)

/* gstclconvolvepaths.c */
gboolean gst_cl_convolve_takes_separable_path (GstClConvolve * self,
    const GstClConvolveKernel * k);
gboolean gst_cl_convolve_has_fixed_kernels (GstClConvolve * self);
gboolean gst_cl_convolve_program_has_fixed (GstClConvolve * self,
    gboolean integer);
gboolean gst_cl_convolve_fits_exact16 (GstClConvolve * self,
    const GstClConvolveKernel * k);
gboolean gst_cl_convolve_uses_exact16 (GstClConvolve * self,
    const GstClConvolveKernel * k);
void gst_cl_convolve_exact16_jobs_done (GstClConvolve * self);
gint gst_cl_convolve_path_arith (GstClConvolve * self,
    const GstClConvolveKernel * k);
ConvKernels *gst_cl_convolve_get_kernels (GstClConvolve * self,
    gboolean integer);
gboolean gst_cl_convolve_warm_up_now (GstClConvolve * self, gint arith,
    gboolean separable);
guint gst_cl_convolve_add_warm_job (GstClConvolve * self, gint arith,
    gint separable);
void gst_cl_convolve_warm_up_in_background (GstClConvolve * self,
    gint arith, gint separable, gboolean first);
void gst_cl_convolve_wait_for_path (GstClConvolve * self,
    const GstClConvolveKernel * k);

/* gstclconvolvelaunch.c */
gboolean gst_cl_convolve_upload_taps (GstClConvolve * self);
void gst_cl_convolve_args (ConvArgs * c, const ConvPlane * pl,
    const GstClConvolveKernel * k, cl_int bval, cl_int border);
gboolean gst_cl_convolve_filter_plane (GstClConvolve * self,
    ConvKernels * ks, const ConvPlane * pl, guint p, GstClFrame * in,
    GstClFrame * out, cl_int bval, cl_int border);
cl_int gst_cl_convolve_scratch_launch_args (GstClContext * ctx,
    GstClFrame * f, ConvArgs * c);
cl_int gst_cl_convolve_warm_up_kernel (GstClContext * ctx,
    cl_command_queue queue, cl_kernel kernel, gboolean separable,
    gboolean fixed);

/* gstclconvolvepx.c */
void gst_cl_convolve_px_config (GstClConvolve * self);
gboolean gst_cl_convolve_px_separable (GstClConvolve * self,
    const GstClConvolveKernel * k);
gboolean gst_cl_convolve_px_pattern (GstClConvolve * self,
    const GstClConvolveKernel * k, gint * r, guint64 * mask);
gboolean gst_cl_convolve_launch_px (GstClConvolve * self, ConvKernels * ks,
    const ConvPlane * pl, ConvArgs * c, guint p, GstClFrame * in,
    GstClFrame * out, gboolean * ok);
void gst_cl_convolve_px_select (GstClConvolve * self,
    GstClConvolveChroma chroma);
void gst_cl_convolve_px_prepare (GstClConvolve * self);

/* gstclconvolvefirst.c */
gboolean gst_cl_convolve_ensure_first (GstClConvolve * self,
    gboolean integer);
gboolean gst_cl_convolve_first_pays_off (GstClConvolve * self,
    const GstClConvolveKernel * k);
gboolean gst_cl_convolve_first_serves_frame (GstClConvolve * self);
gboolean gst_cl_convolve_filter_frame_first (GstClConvolve * self,
    GstClFrame * in, GstClFrame * out, cl_int bval, cl_int border,
    GstClConvolveChroma chroma);

G_END_DECLS
