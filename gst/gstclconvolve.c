/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer
 * clconvolve: 2-D convolution of video frames on OpenCL.
 */
/**
 * SECTION:element-clconvolve
 * @title: clconvolve
 *
 * Convolves video frames with a matrix of up to 31x31 coefficients on an
 * OpenCL device: a user matrix (#GstClConvolve:kernel) or a preset (box,
 * gaussian, sharpen, laplacian, sobel, emboss, edge, motion blur). Output
 * frames have the input caps. Alpha (and x padding) passes through; on YUV
 * formats luma is filtered and chroma copied unless #GstClConvolve:chroma
 * is `filter`. Separable matrices run as two 1-D passes. The identity
 * matrix makes the element passthrough.
 *
 * Results are rounded half away from zero and saturated; integer matrices
 * are exact, float matrices may differ by 1 from the exact result where it
 * lies within a small window of a .5 boundary (see docs/clconvolve.md).
 * Matrices the single-precision path cannot carry are refused with a
 * warning naming the valid range, keeping the previous matrix: coefficients
 * outside 1.2e-38..3.4e38 in magnitude (other than 0), a sum of
 * |coefficients| above about 5.2e33 (times 65535 it would overflow), and an
 * effective divisor outside 1.2e-38..8.5e37.
 *
 * Every property may change while PLAYING: a change applies from the next
 * buffer, and none builds a program or otherwise holds up the stream (the
 * programs a caps can need are built when the caps are set).
 *
 * The matrix may be given as integers or doubles, from gst-launch
 * (`kernel="<0,-1,0,-1,5,-1,0,-1,0>"`) or from bindings
 * (`Gst.ValueArray([0, -1, 0, ...])`); #GstClConvolve:kernel,
 * #GstClConvolve:kernel-width and #GstClConvolve:kernel-height may come in
 * any order (a square count needs no dimensions), and a matrix whose
 * dimensions never came is an error at caps time. QoS is on, as in
 * GStreamer's video filters: late frames are dropped.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! clconvolve preset=gaussian sigma=2 ! videoconvert ! autovideosink
 * ]| A blurred camera view.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8 ! clconvolve preset=sobel-x absolute=true ! pngenc ! filesink location=edges.png
 * ]| A sobel edge image written to a PNG.
 * |[
 * gst-launch-1.0 videotestsrc ! clconvolve kernel="<0,-1,0,-1,5,-1,0,-1,0>" border=mirror ! autovideosink
 * ]| A custom sharpening matrix.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gstclconvolve.h"
#include "gstclconvolvekernel.h"
#include "gstclelements.h"
#include "gstclwarmup.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_convolve_debug);
#define GST_CAT_DEFAULT gst_cl_convolve_debug

#define DEFAULT_PROP_PRESET GST_CL_CONVOLVE_PRESET_IDENTITY
/* see set_info: smallest separable matrix that takes two passes on a GPU */
#define GPU_SEPARABLE_MIN_SIZE 13
#define DEFAULT_PROP_KERNEL_WIDTH 0
#define DEFAULT_PROP_KERNEL_HEIGHT 0
#define DEFAULT_PROP_DIVISOR 0.0
#define DEFAULT_PROP_BIAS 0.0
#define DEFAULT_PROP_SIGMA 1.0
#define DEFAULT_PROP_RADIUS 0
#define DEFAULT_PROP_ABSOLUTE FALSE
#define DEFAULT_PROP_BORDER GST_CL_CONVOLVE_BORDER_CLAMP
#define DEFAULT_PROP_BORDER_VALUE 0
#define DEFAULT_PROP_CHROMA GST_CL_CONVOLVE_CHROMA_COPY

enum
{
  PROP_0,
  PROP_KERNEL,
  PROP_KERNEL_WIDTH,
  PROP_KERNEL_HEIGHT,
  PROP_DIVISOR,
  PROP_BIAS,
  PROP_PRESET,
  PROP_SIGMA,
  PROP_RADIUS,
  PROP_ABSOLUTE,
  PROP_BORDER,
  PROP_BORDER_VALUE,
  PROP_CHROMA,
};

/* samples per work-item of the strip kernels, tile of conv2d_tile */
#define STRIP 64
#define TILE_W 64
#define TILE_H 16
/* rows per work-item of the separable CPU kernels (kernels/convolve.cl):
 * each strip's row pass first refills 2 ry rows of the strip above, so a
 * taller strip repeats less; 128 rows measured faster than 64 on a 2-vCPU
 * AMD EPYC and a 16-core Xeon alike (docs/performance-log.md) */
#define SEP_ROWS 128
/* sep_fixed's work-items on 4-sample pixels with a pass-through sample */
#define COLOUR_STRIP 128
/* conv2d_reg<R>: 64x4 work-items, each a column of 8 outputs, R <= 5 */
#define REG_WX 64
#define REG_WY 4
#define REG_TH 32
#define REG_MAX_R 5
/* conv2d_px<R>_<CH>: 32x4 work-items, PX_NX1 or PX_NX4 pixels x PX_ROWS
 * rows each (kernels/convolve.cl's defaults) */
#define PX_WX 32
#define PX_WY 4
#define PX_NX1 8
#define PX_NX4 2
#define PX_ROWS 8
#define PX_MAX_R 3
/* GST_CL_CONVOLVE_PX=NX1,NX4,ROWS,MAXR (tuning on a GPU): other work-item
 * shapes and largest radius; "off": the conv2d_reg kernels instead;
 * "dense": 2-D conv2d_px only (no fused separable kernel); "sparse": zero
 * taps left out at compile time for every matrix (one program per zero
 * pattern), "full": for none (by default: for 2-D matrices of at most half
 * non-zero taps, see px_pattern) */
#define PX_ENV "GST_CL_CONVOLVE_PX"
/* GST_CL_CONVOLVE_PX_WAIT=1 (tests, benchmarks): a frame waits for its
 * conv2d_px variant instead of running conv2d_reg until it is built */
#define PX_WAIT_ENV "GST_CL_CONVOLVE_PX_WAIT"
/* conv2d_pxl ((64 / PXL_NX) x 4 work-items, tiles of 64 pixels x
 * 4 * PXL_ROWS rows) serves 8-bit 4-sample planes; GST_CL_CONVOLVE_PX_LOCAL
 * (tuning on a GPU): "0" conv2d_px instead, "sep" conv2d_pxl for separable
 * matrices only, "ROWS[,NX[,HU[,SEP16[,FIN[,WID[,FP]]]]]]":
 * PXL_ROWS (1..8; 0 by program, see pxl_rows), pixels per work-item side
 * by side (1, 2), the separable
 * row pass's pixels per step (4, 8), its 16-byte local stores (0, 1),
 * PXL_FIN (0..3: saturating conversions, stores per `absolute'), PXL_WID
 * (0, 1: widening through byte permutes) and PXL_FP (0, 1: the 2-D
 * fill's loads ahead; by default for float matrices only, see px_fp) */
#define PXL_ENV "GST_CL_CONVOLVE_PX_LOCAL"
#define PXL_WX 64
#define PXL_WY 4
#define PXL_ROWS 0               /* see pxl_rows */
#define PXL_MAX_ROWS 8          /* local memory: 3 planes of 38 x 72 floats */
#define PXL_NX 2
#define PXL_HU 8
#define PXL_SEP16 0
#define PXL_FIN 3
#define PXL_WID 1
#define PXL_FP -1               /* see px_fp */
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
/* conv2d_px variants kept per caps (zero patterns seen on a stream) */
#define PX_MAX_VARIANTS 8
/* float sums of integers are exact up to here */
#define PX_EXACT_LIMIT (1 << 24)
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
  /* The integer program's sep_fixed (exact sums, uses_exact16): prepared
   * with the current path where the stream starts on such a matrix
   * (exact16_start), else by a job of its own (exact16_job) on non-live
   * streams only, since a live one waits for every preparation before its
   * first frame; frames take it once ready (exact16_ready, streaming
   * thread), sep_strips until then. Set in set_info. */
  gboolean exact16_start, exact16_ready;
  guint exact16_job;
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
                                 * kernels/convolve.cl) */
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
  gboolean first_fits;          /* first_pays_off (frame_kernel) */
  guint first_frames;           /* frames it filtered since caps */
  guint warm_job[N_ARITH][2];   /* [arith][separable]: the warm-up job
                                 * that makes that path ready, 0 if ready */
};

G_DEFINE_TYPE (GstClConvolve, gst_cl_convolve, GST_TYPE_CL_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (clconvolve, "clconvolve", GST_RANK_NONE,
    GST_TYPE_CL_CONVOLVE);

#define FORMATS "{ GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, ARGB, ABGR, " \
    "RGBx, BGRx, xRGB, xBGR, I420, YV12, NV12, NV21, Y42B, Y444 }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_FILTER_CAPS (FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_FILTER_CAPS (FORMATS)));

static void gst_cl_convolve_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cl_convolve_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cl_convolve_finalize (GObject * object);
static gboolean gst_cl_convolve_set_info (GstClBaseFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);
static void gst_cl_convolve_reset (GstClBaseFilter * filter);
static gboolean gst_cl_convolve_process (GstClBaseFilter * filter,
    GstClFrame * in, GstClFrame * out);
static gboolean gst_cl_convolve_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize);

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_CONTROLLABLE)
/* the matrix and its shape: an array is not interpolatable, and a shape
 * alone waits for coefficients */
#define MATRIX_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)

static void
gst_cl_convolve_class_init (GstClConvolveClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClBaseFilterClass *filter_class = GST_CL_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cl_convolve_set_property;
  gobject_class->get_property = gst_cl_convolve_get_property;
  gobject_class->finalize = gst_cl_convolve_finalize;

  g_object_class_install_property (gobject_class, PROP_KERNEL,
      gst_param_spec_array ("kernel", "Kernel",
          "Convolution matrix in row order, e.g. \"<0,-1,0,-1,5,-1,0,-1,0>\" "
          "(odd width and height 1..31; a square unless kernel-width/height "
          "say otherwise). Setting it selects preset=custom; reading it "
          "gives the matrix in effect (doubles). Any numbers are accepted, "
          "integers included; kernel, kernel-width and kernel-height may be "
          "set in any order",
          /* no element spec: one of doubles would reject the integers that
           * bindings and gst-launch produce for "<0,-1,0>" */
          NULL, MATRIX_FLAGS));
  g_object_class_install_property (gobject_class, PROP_KERNEL_WIDTH,
      g_param_spec_int ("kernel-width", "Kernel width",
          "Columns of the custom kernel (odd; 0 = from the coefficient count)",
          0, GST_CL_CONVOLVE_MAX_SIZE, DEFAULT_PROP_KERNEL_WIDTH,
          MATRIX_FLAGS));
  g_object_class_install_property (gobject_class, PROP_KERNEL_HEIGHT,
      g_param_spec_int ("kernel-height", "Kernel height",
          "Rows of the custom kernel (odd; 0 = from the coefficient count)",
          0, GST_CL_CONVOLVE_MAX_SIZE, DEFAULT_PROP_KERNEL_HEIGHT,
          MATRIX_FLAGS));
  g_object_class_install_property (gobject_class, PROP_DIVISOR,
      g_param_spec_double ("divisor", "Divisor",
          "The sum is divided by this (0 = the sum of the coefficients, or 1 "
          "when that sum is 0)", -G_MAXDOUBLE, G_MAXDOUBLE,
          DEFAULT_PROP_DIVISOR, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BIAS,
      g_param_spec_double ("bias", "Bias",
          "Added after the division (in sample units, e.g. 128 to show "
          "signed 8-bit results)", -G_MAXDOUBLE, G_MAXDOUBLE,
          DEFAULT_PROP_BIAS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset", "Matrix to use",
          gst_cl_convolve_preset_get_type (), DEFAULT_PROP_PRESET,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of the gaussian preset (pixels)", 0.1, 30.0,
          DEFAULT_PROP_SIGMA, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Radius of the box and gaussian presets (0 = 1 for box, "
          "ceil(3 sigma) for gaussian; at most 15)", 0, 15,
          DEFAULT_PROP_RADIUS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_ABSOLUTE,
      g_param_spec_boolean ("absolute", "Absolute",
          "Take the magnitude of the filtered value before adding the bias "
          "(edge magnitudes from sobel/laplacian)", DEFAULT_PROP_ABSOLUTE,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "How pixels outside the frame are made up",
          gst_cl_convolve_border_get_type (), DEFAULT_PROP_BORDER,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BORDER_VALUE,
      g_param_spec_uint ("border-value", "Border value",
          "Sample value outside the frame with border=constant (saturated "
          "to the format's range)", 0, 65535, DEFAULT_PROP_BORDER_VALUE,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CHROMA,
      g_param_spec_enum ("chroma", "Chroma",
          "YUV formats: copy chroma (filter luma only) or filter it too",
          gst_cl_convolve_chroma_get_type (), DEFAULT_PROP_CHROMA,
          PARAM_FLAGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "OpenCL convolve",
      "Filter/Effect/Video",
      "Convolves video frames with a matrix or preset on an OpenCL device",
      GST_CL_ELEMENT_AUTHOR);

  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cl_convolve_transform_size);
  trans_class->passthrough_on_same_caps = FALSE;
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cl_convolve_set_info);
  filter_class->reset = GST_DEBUG_FUNCPTR (gst_cl_convolve_reset);
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cl_convolve_process);

  gst_type_mark_as_plugin_api (gst_cl_convolve_preset_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_cl_convolve_border_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_cl_convolve_chroma_get_type (), 0);

  GST_DEBUG_CATEGORY_INIT (gst_cl_convolve_debug, "clconvolve", 0,
      "OpenCL convolution");
}

/* Recomputes the matrix in effect from the properties (object lock held).
 * On failure nothing changes and *@why says what is valid. */
static gboolean
rebuild_kernel (GstClConvolve * self, gchar ** why)
{
  GstClConvolveKernel *k = g_new0 (GstClConvolveKernel, 1);
  gboolean ok;

  if (self->preset == GST_CL_CONVOLVE_PRESET_CUSTOM) {
    ok = gst_cl_convolve_kernel_set_matrix (k,
        (const gdouble *) self->user_kernel->data, self->user_kernel->len,
        self->kernel_width, self->kernel_height, why);
  } else {
    ok = gst_cl_convolve_preset_matrix (self->preset, self->sigma,
        self->radius, k->coef, &k->width, &k->height);
  }
  ok = ok && gst_cl_convolve_kernel_derive (k, self->divisor, self->bias,
      self->absolute, why);
  if (ok) {
    g_free (self->kernel);
    self->kernel = k;
    self->generation++;
  } else {
    g_free (k);
  }
  return ok;
}

static void
gst_cl_convolve_init (GstClConvolve * self)
{
  gchar *why = NULL;

  self->preset = DEFAULT_PROP_PRESET;
  self->user_kernel = g_array_new (FALSE, FALSE, sizeof (gdouble));
  self->kernel_width = DEFAULT_PROP_KERNEL_WIDTH;
  self->kernel_height = DEFAULT_PROP_KERNEL_HEIGHT;
  self->divisor = DEFAULT_PROP_DIVISOR;
  self->bias = DEFAULT_PROP_BIAS;
  self->sigma = DEFAULT_PROP_SIGMA;
  self->radius = DEFAULT_PROP_RADIUS;
  self->absolute = DEFAULT_PROP_ABSOLUTE;
  self->border = DEFAULT_PROP_BORDER;
  self->border_value = DEFAULT_PROP_BORDER_VALUE;
  self->chroma = DEFAULT_PROP_CHROMA;
  self->frame_kernel = g_new0 (GstClConvolveKernel, 1);
  rebuild_kernel (self, &why);
  g_free (why);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
  /* like GstVideoFilter: late frames are dropped, not filtered */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cl_convolve_finalize (GObject * object)
{
  GstClConvolve *self = GST_CL_CONVOLVE (object);

  g_array_unref (self->user_kernel);
  g_free (self->kernel);
  g_free (self->frame_kernel);
  G_OBJECT_CLASS (gst_cl_convolve_parent_class)->finalize (object);
}

/* GstValueArray of numbers -> doubles; FALSE if an entry is not a number */
static gboolean
array_to_doubles (const GValue * value, GArray * out, gchar ** why)
{
  guint i, n = gst_value_array_get_size (value);

  g_array_set_size (out, 0);
  for (i = 0; i < n; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    GValue d = G_VALUE_INIT;
    gdouble c;

    g_value_init (&d, G_TYPE_DOUBLE);
    if (!g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE) ||
        !g_value_transform (v, &d)) {
      *why = g_strdup_printf ("coefficient %u is a %s, not a number", i,
          G_VALUE_TYPE_NAME (v));
      return FALSE;
    }
    c = g_value_get_double (&d);
    g_array_append_val (out, c);
  }
  return TRUE;
}

static void
gst_cl_convolve_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClConvolve *self = GST_CL_CONVOLVE (object);
  GArray *old_kernel = NULL;
  GstClConvolvePreset old_preset;
  gdouble old_double = 0;
  gboolean changed, identity, deferred = FALSE;
  gchar *why = NULL;

  GST_OBJECT_LOCK (self);
  old_preset = self->preset;
  switch (prop_id) {
    case PROP_KERNEL:
      old_kernel = self->user_kernel;
      self->user_kernel = g_array_new (FALSE, FALSE, sizeof (gdouble));
      if (!array_to_doubles (value, self->user_kernel, &why)) {
        changed = FALSE;
        goto done;
      }
      self->preset = GST_CL_CONVOLVE_PRESET_CUSTOM;
      /* kernel before kernel-width/height (any order works): a count that
       * some allowed shape holds waits for its dimensions */
      deferred = gst_cl_convolve_kernel_awaits_shape (self->user_kernel->len,
          self->kernel_width, self->kernel_height);
      break;
    case PROP_KERNEL_WIDTH:
      self->kernel_width = g_value_get_int (value);
      deferred = TRUE;
      break;
    case PROP_KERNEL_HEIGHT:
      self->kernel_height = g_value_get_int (value);
      deferred = TRUE;
      break;
    case PROP_DIVISOR:
      old_double = self->divisor;
      self->divisor = g_value_get_double (value);
      break;
    case PROP_BIAS:
      old_double = self->bias;
      self->bias = g_value_get_double (value);
      break;
    case PROP_PRESET:
      self->preset = g_value_get_enum (value);
      /* preset=custom before kernel=... (gst-launch sets them in order):
       * the matrix in effect stays until the coefficients come */
      deferred = self->preset == GST_CL_CONVOLVE_PRESET_CUSTOM &&
          self->user_kernel->len == 0;
      break;
    case PROP_SIGMA:
      self->sigma = g_value_get_double (value);
      break;
    case PROP_RADIUS:
      self->radius = g_value_get_int (value);
      break;
    case PROP_ABSOLUTE:
      self->absolute = g_value_get_boolean (value);
      break;
    case PROP_BORDER:
      self->border = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_BORDER_VALUE:
      self->border_value = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_CHROMA:
      self->chroma = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      return;
    default:
      GST_OBJECT_UNLOCK (self);
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
  }

  /* a matrix waiting for its dimensions cannot be rebuilt yet: other
   * values are kept for when it can (and checked then) */
  if (self->shape_pending && prop_id != PROP_KERNEL &&
      prop_id != PROP_KERNEL_WIDTH && prop_id != PROP_KERNEL_HEIGHT &&
      self->preset == GST_CL_CONVOLVE_PRESET_CUSTOM)
    deferred = TRUE;

  changed = rebuild_kernel (self, &why);
  if (prop_id == PROP_KERNEL || prop_id == PROP_KERNEL_WIDTH ||
      prop_id == PROP_KERNEL_HEIGHT)
    self->shape_pending = !changed && deferred &&
        self->preset == GST_CL_CONVOLVE_PRESET_CUSTOM;
  else if (changed)
    self->shape_pending = FALSE;
  if (!changed && !deferred) {
    /* keep the previous value of what was set */
    self->preset = old_preset;
    if (prop_id == PROP_KERNEL) {
      g_array_unref (self->user_kernel);
      self->user_kernel = old_kernel;
      old_kernel = NULL;
    } else if (prop_id == PROP_DIVISOR) {
      self->divisor = old_double;
    } else if (prop_id == PROP_BIAS) {
      self->bias = old_double;
    }
  }

done:
  if (!changed && !deferred && prop_id == PROP_KERNEL && old_kernel) {
    g_array_unref (self->user_kernel);
    self->user_kernel = old_kernel;
    self->preset = old_preset;
    old_kernel = NULL;
  }
  identity = self->kernel->identity;
  GST_OBJECT_UNLOCK (self);

  if (old_kernel)
    g_array_unref (old_kernel);
  if (!changed && deferred) {
    /* kernel, width and height may come in any order */
    GST_INFO_OBJECT (self, "%s set; the kernel in effect is kept until the "
        "coefficients match: %s", pspec->name, why);
  } else if (!changed) {
    g_warning ("clconvolve %s: invalid %s, keeping the previous kernel: %s",
        GST_OBJECT_NAME (self), pspec->name, why);
  }
  g_free (why);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), identity);
}

static void
gst_cl_convolve_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClConvolve *self = GST_CL_CONVOLVE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:{
      gint i, n = self->kernel->width * self->kernel->height;
      GValue v = G_VALUE_INIT;

      g_value_init (&v, G_TYPE_DOUBLE);
      for (i = 0; i < n; i++) {
        g_value_set_double (&v, self->kernel->coef[i]);
        gst_value_array_append_value (value, &v);
      }
      g_value_unset (&v);
      break;
    }
    case PROP_KERNEL_WIDTH:
      g_value_set_int (value, self->kernel_width);
      break;
    case PROP_KERNEL_HEIGHT:
      g_value_set_int (value, self->kernel_height);
      break;
    case PROP_DIVISOR:
      g_value_set_double (value, self->divisor);
      break;
    case PROP_BIAS:
      g_value_set_double (value, self->bias);
      break;
    case PROP_PRESET:
      g_value_set_enum (value, self->preset);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, self->sigma);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, self->radius);
      break;
    case PROP_ABSOLUTE:
      g_value_set_boolean (value, self->absolute);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, self->border);
      break;
    case PROP_BORDER_VALUE:
      g_value_set_uint (value, self->border_value);
      break;
    case PROP_CHROMA:
      g_value_set_enum (value, self->chroma);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- streaming ---- */

/* Output buffers made without a pool hold a frame of the output caps'
 * default layout, whatever the input's strides (the default would copy the
 * input's size, too small when its rows are padded differently) */
static gboolean
gst_cl_convolve_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = info.size;
  return TRUE;
}

static void
gst_cl_convolve_reset (GstClBaseFilter * filter)
{
  GstClConvolve *self = GST_CL_CONVOLVE (filter);
  cl_kernel *kernels = (cl_kernel *) self->kernels;
  const guint n_kernels = G_N_ELEMENTS (self->kernels) *
      (sizeof (ConvKernels) / sizeof (cl_kernel));
  cl_mem *mems[] = { &self->taps2d, &self->taps_row, &self->taps_col,
    &self->coef_sq, &self->tmp
  };
  guint i;

  /* (the base class joined a warm-up in progress and dropped the rest
   * before this) */
  self->warmup = NULL;
  memset (self->warm_job, 0, sizeof (self->warm_job));
  g_clear_pointer (&self->px_variants, g_ptr_array_unref);
  self->frame_px[0] = self->frame_px[1] = NULL;
  if (self->first)
    clReleaseKernel (self->first);
  self->first = NULL;
  self->first_frames = 0;
  for (i = 0; i < n_kernels; i++)
    if (kernels[i])
      clReleaseKernel (kernels[i]);
  memset (self->kernels, 0, sizeof (self->kernels));
  for (i = 0; i < G_N_ELEMENTS (mems); i++) {
    if (*mems[i])
      clReleaseMemObject (*mems[i]);
    *mems[i] = NULL;
  }
  self->tmp_size = 0;
  self->frame_generation = 0;
}

static cl_mem
new_taps (GstClConvolve * self, GstClContext * ctx, gsize n)
{
  cl_int err;
  cl_mem mem = clCreateBuffer (ctx->context, CL_MEM_READ_ONLY,
      n * sizeof (cl_int4), NULL, &err);

  if (!gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
          "clCreateBuffer", "Could not allocate the convolution matrix"))
    return NULL;
  return mem;
}

static ConvKernels *get_kernels (GstClConvolve * self, gboolean integer);
static gboolean warm_up_now (GstClConvolve * self, gint arith,
    gboolean separable);
static void warm_up_in_background (GstClConvolve * self, gint arith,
    gint separable, gboolean first);
static guint add_warm_job (GstClConvolve * self, gint arith, gint separable);
/* WarmJob.separable of the job that prepares the integer program's
 * sep_fixed alone */
#define EXACT16_JOB 2
static gboolean ensure_first (GstClConvolve * self, gboolean integer);
static gboolean first_pays_off (GstClConvolve * self,
    const GstClConvolveKernel * k);

static gboolean px_exact_for (GstClConvolve * self,
    const GstClConvolveKernel * k);

/* whether separable @k runs as conv2d_px's fused separable kernel on this
 * GPU path (once built; the two passes until then, same bytes) */
static gboolean
px_separable (GstClConvolve * self, const GstClConvolveKernel * k)
{
  return self->use_tile && self->px_on && self->px_sep && k->separable &&
      self->separable_min != G_MAXINT &&
      MAX (k->width, k->height) / 2 <= self->px_max_r &&
      px_exact_for (self, k);
}

/* whether frames filtered with @k take the separable path */
static gboolean
takes_separable_path (GstClConvolve * self, const GstClConvolveKernel * k)
{
  return k->separable && (MAX (k->width, k->height) >= self->separable_min
      || px_separable (self, k));
}

/* sep_fixed's colour path (FIXED_COLOUR in kernels/convolve.cl) for the
 * host CPU, which PoCL's and other CPU devices run on: 1 where it has
 * AVX-512 VBMI (byte permutes across the vector; a function attribute in
 * the kernel, since PoCL's LLVM may name an older CPU model), 2 where it
 * has AVX2 (shuffles within 16-byte lanes: 1080p RGBA gaussian 3x3 18%,
 * 7x7 5% less time than filtering the pass-through byte too), else 0 */
static gint
host_colour_path (void)
{
#if defined (__GNUC__) && (defined (__x86_64__) || defined (__i386__))
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx512vbmi"))
    return 1;
  if (__builtin_cpu_supports ("avx2"))
    return 2;
#endif
  return 0;
}

/* whether this stream's device and format have the fixed-point kernels
 * (in both programs: the integer one's sum exactly, kernels/convolve.cl) */
static gboolean
has_fixed_kernels (GstClConvolve * self)
{
  return self->fixed_ok && !self->use_tile && !self->depth16;
}

/* whether the program of arithmetic @integer has them in this stream */
static gboolean
program_has_fixed (GstClConvolve * self, gboolean integer)
{
  return has_fixed_kernels (self) && (!integer || self->integer_fixed);
}

/* whether frames filtered with @k take the integer program's sep_fixed,
 * exact sums in 16-bit lanes (box blurs), instead of sep_strips (exact
 * too, 2.5-4.7x slower at 1080p): once it is ready (exact16_ready) */
static gboolean
uses_exact16 (GstClConvolve * self, const GstClConvolveKernel * k)
{
  return k->exact16 && self->exact16_ready;
}

/* the arithmetic frames filtered with @k use */
static gint
path_arith (GstClConvolve * self, const GstClConvolveKernel * k)
{
  if (k->integer)
    return ARITH_INTEGER;
  /* fixed point's error bound assumes the path @k was derived for: a
   * separable matrix forced through the 2-D path stays in float */
  return k->fixed && has_fixed_kernels (self) &&
      takes_separable_path (self, k) == k->separable ? ARITH_FIXED :
      ARITH_FLOAT;
}

/* A kernel whose kernel-width/height never came (or disagree with it) is an
 * error once frames are to flow, not a silent passthrough */
static gboolean
check_shape_complete (GstClConvolve * self)
{
  gchar *why = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  if (self->shape_pending) {
    ok = rebuild_kernel (self, &why);
    self->shape_pending = !ok;
  }
  GST_OBJECT_UNLOCK (self);
  if (!ok) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("The kernel property does "
            "not match kernel-width and kernel-height: %s", why), (NULL));
    g_free (why);
  }
  return ok;
}

/* conv2d_pxl or conv2d_px, and conv2d_pxl's shape (GST_CL_CONVOLVE_PX_LOCAL) */
static void
px_local_config (GstClConvolve * self)
{
  const gchar *env = g_getenv (PXL_ENV);

  self->pxl_on = !(env && (g_str_equal (env, "0") ||
          g_str_equal (env, "off")));
  self->pxl_2d = !(env && g_str_equal (env, "sep"));
  self->pxl_rows = PXL_ROWS;
  self->pxl_nx = PXL_NX;
  self->pxl_hu = PXL_HU;
  self->pxl_sep16 = PXL_SEP16;
  self->pxl_fin = PXL_FIN;
  self->pxl_wid = PXL_WID;
  self->pxl_fp = PXL_FP;
  if (env && g_ascii_isdigit (env[0])) {
    gint rows = PXL_ROWS, nx = PXL_NX, hu = PXL_HU, sep16 = PXL_SEP16,
        fin = PXL_FIN, wid = PXL_WID, fp = PXL_FP;

    sscanf (env, "%d,%d,%d,%d,%d,%d,%d", &rows, &nx, &hu, &sep16, &fin,
        &wid, &fp);
    self->pxl_fp = CLAMP (fp, -1, 1);
    self->pxl_rows = CLAMP (rows, 0, PXL_MAX_ROWS);
    self->pxl_nx = nx >= 2 ? 2 : 1;
    self->pxl_hu = hu > 0 && hu <= 4 ? 4 : 8;
    self->pxl_sep16 = sep16 != 0;
    self->pxl_fin = CLAMP (fin, 0, 3);
    self->pxl_wid = wid != 0;
  }
}

/* whether a px variant of @ch-sample pixels, separable (@sep) or not, is
 * conv2d_pxl */
static gboolean
pxl_applies (GstClConvolve * self, gint ch, gboolean sep)
{
  return self->pxl_on && (sep || self->pxl_2d) && ch == 4 && !self->depth16;
}

static gboolean
gst_cl_convolve_set_info (GstClBaseFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstClConvolve *self = GST_CL_CONVOLVE (filter);
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  const GstVideoFormatInfo *f = in_info->finfo;
  const gchar *env;
  gboolean separable, passthrough, live, first, box_start;
  gint arith, nx1, nx4, rows, max_r;
  guint p;

  if (!check_shape_complete (self))
    return FALSE;

  self->depth16 = GST_VIDEO_FORMAT_INFO_DEPTH (f, 0) > 8;
  self->n_planes = GST_VIDEO_INFO_N_PLANES (in_info);
  for (p = 0; p < self->n_planes; p++) {
    ConvPlane *pl = &self->planes[p];
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (f, p, comp);
    pl->width = GST_VIDEO_INFO_COMP_WIDTH (in_info, comp[0]);
    pl->height = GST_VIDEO_INFO_COMP_HEIGHT (in_info, comp[0]);
    pl->ch = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, comp[0]) /
        (self->depth16 ? 2 : 1);
    pl->chroma = GST_VIDEO_FORMAT_INFO_IS_YUV (f) && comp[0] != 0;
    pl->alpha_pos = -1;
    if (GST_VIDEO_FORMAT_INFO_IS_RGB (f) && pl->ch == 4) {
      /* the alpha byte, or the x byte: the one R, G and B leave */
      pl->alpha_pos = GST_VIDEO_FORMAT_INFO_HAS_ALPHA (f) ?
          GST_VIDEO_FORMAT_INFO_POFFSET (f, GST_VIDEO_COMP_A) :
          6 - GST_VIDEO_FORMAT_INFO_POFFSET (f, 0) -
          GST_VIDEO_FORMAT_INFO_POFFSET (f, 1) -
          GST_VIDEO_FORMAT_INFO_POFFSET (f, 2);
    }
  }

  /* local-memory tiles where local memory is real; a CPU device gets the
   * strip kernels */
  env = g_getenv (GST_CL_CONVOLVE_VARIANT_ENV);
  self->use_tile = ctx->local_mem_is_dedicated && gst_cl_context_is_gpu (ctx);
  if (env && g_str_equal (env, "gpu"))
    self->use_tile = TRUE;
  else if (env && g_str_equal (env, "cpu"))
    self->use_tile = FALSE;
  self->use_tile = self->use_tile && ctx->max_work_group_size >= 256;
  env = g_getenv (PX_ENV);
  self->px_on = !(env && g_str_equal (env, "off"));
  self->px_sparse = !env ? 0 : g_str_equal (env, "sparse") ? 1 :
      g_str_equal (env, "full") ? -1 : 0;
  self->px_sep = !(env && g_str_equal (env, "dense"));
  self->px_wait = g_getenv (PX_WAIT_ENV) != NULL;
  self->px_nx1 = PX_NX1;
  self->px_nx4 = PX_NX4;
  self->px_rows = PX_ROWS;
  self->px_max_r = PX_MAX_R;
  /* (into temporaries: a partial match must not leave a shape unchecked) */
  if (env && self->px_on && sscanf (env, "%d,%d,%d,%d", &nx1, &nx4, &rows,
          &max_r) == 4) {
    self->px_nx1 = nx1 > 8 ? 16 : 8;
    self->px_nx4 = CLAMP (nx4, 1, 8);
    self->px_rows = CLAMP (rows, 1, 32);
    self->px_max_r = CLAMP (max_r, 1, REG_MAX_R);
  }
  px_local_config (self);
  self->fixed_ok = (ctx->device_type & CL_DEVICE_TYPE_CPU) != 0;
  self->fixed_colour = self->fixed_ok ? host_colour_path () : 0;
  /* On GPUs the one-pass 2-D kernels beat two passes through global memory
   * up to 11x11, where the register kernel stops (H200, 1080p RGBA, end to
   * end: 9x9 0.46 ms against 0.98 ms, 11x11 0.48 against 1.11); from 13x13
   * the two passes win (1.21 against 1.28 ms). On CPU devices the fused
   * separable kernel always wins. */
  env = g_getenv (GST_CL_CONVOLVE_SEPARABLE_ENV);
  if (env && g_str_equal (env, "0"))
    self->separable_min = G_MAXINT;
  else if ((env && g_str_equal (env, "1")) || !self->use_tile)
    self->separable_min = 1;
  else
    self->separable_min = GPU_SEPARABLE_MIN_SIZE;
  GST_INFO_OBJECT (self, "%s kernels, separable path from size %d",
      self->use_tile ? "local-memory tile" : "strip", self->separable_min);

  self->taps2d = new_taps (self, ctx, GST_CL_CONVOLVE_MAX_TAPS);
  self->taps_row = new_taps (self, ctx, GST_CL_CONVOLVE_MAX_SIZE);
  self->taps_col = new_taps (self, ctx, GST_CL_CONVOLVE_MAX_SIZE);
  /* (2 * REG_MAX_R + 1)^2 = 121 floats or ints, in units of cl_int4 */
  self->coef_sq = new_taps (self, ctx, 31);
  self->frame_generation = 0;
  if (!self->taps2d || !self->taps_row || !self->taps_col || !self->coef_sq)
    return FALSE;

  /* The first frame waits only for what the current settings use (one
   * program; on PoCL one kernel's first-launch compile, none while
   * passthrough). A change of matrix, divisor or bias on a running stream
   * may switch arithmetic or kernel, and a program build or compile (0.3-1
   * s on PoCL) must never hold up a frame: the other paths are prepared on
   * a worker thread meanwhile. The border mode is a kernel argument. */
  GST_OBJECT_LOCK (self);
  arith = path_arith (self, self->kernel);
  separable = takes_separable_path (self, self->kernel);
  self->exact16_start = separable && self->kernel->exact16 &&
      has_fixed_kernels (self);
  box_start = self->kernel->box;
  self->exact16_ready = FALSE;
  self->exact16_job = 0;
  GST_OBJECT_UNLOCK (self);
  passthrough = gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (self));
  live = gst_cl_base_filter_upstream_is_live (filter);
  self->integer_fixed = self->exact16_start || !live;
  self->integer_box = box_start || !live;
  /* A non-live stream starts on conv2d_first, whose program and compile
   * are cheaper than the current path's (PoCL: 0.25-0.35 s less in all;
   * a GPU builds the whole program of the path: seconds), which the
   * worker prepares meanwhile */
  env = g_getenv (FIRST_ENV);
  self->first_only = env && g_str_equal (env, "only") && !self->use_tile;
  GST_OBJECT_LOCK (self);
  first = !passthrough && (self->first_only || (!live &&
          !(env && g_str_equal (env, "off")) &&
          first_pays_off (self, self->kernel)));
  GST_OBJECT_UNLOCK (self);
  if (first && !ensure_first (self, arith == ARITH_INTEGER))
    return FALSE;
  if (!first && !get_kernels (self, arith == ARITH_INTEGER))
    return FALSE;
  if (!first && !self->use_tile && !passthrough && !warm_up_now (self, arith,
          separable))
    return FALSE;
  self->exact16_ready = self->exact16_start && !first && !passthrough;
  if (self->exact16_ready)
    GST_INFO_OBJECT (self, "sep_fixed for exact sums ready");
  /* the worker starts after the first frame (the base class starts it), so
   * that a one-frame pipeline has stopped before it would begin a build;
   * with conv2d_first the current path comes first */
  if (!self->first_only)
    warm_up_in_background (self, arith, passthrough ? -1 : separable, first);
  if (self->warmup && !self->exact16_ready &&
      program_has_fixed (self, TRUE)) {
    if (self->exact16_start && first)
      self->exact16_job = self->warm_job[ARITH_INTEGER][1];
    else if (!self->exact16_start)
      self->exact16_job = add_warm_job (self, ARITH_INTEGER, EXACT16_JOB);
  }
  GST_DEBUG_OBJECT (self, "exact sums: from the start %d, ready %d, job %u",
      self->exact16_start, self->exact16_ready, self->exact16_job);
  /* PoCL holds every kernel launch of the process while any thread
   * compiles, so on a live stream the background work would stall frames
   * early on, and a change made before it ends would wait for it. A live
   * stream therefore pays it all before its first frame and never stalls
   * afterwards; other streams get their first frame as soon as possible. */
  if (self->warmup && live)
    gst_cl_warmup_wait_all (self->warmup);
  return TRUE;
}

/* whether a plane of this stream has 4-sample pixels whose first or last
 * sample passes through (sep_fixed's colour path; sep_fixed_global) */
static gboolean
has_colour_planes (GstClConvolve * self)
{
  guint p;

  for (p = 0; p < self->n_planes; p++)
    if (self->planes[p].ch == 4 && (self->planes[p].alpha_pos == 0 ||
            self->planes[p].alpha_pos == 3))
      return TRUE;
  return FALSE;
}

/* Build options of the program of one arithmetic path (conv2d_px has
 * programs of its own, see px_build_run). The colour path only for a
 * stream that takes it: its code adds about 0.4 s to the build on PoCL
 * (live I420 start, 2-vCPU AMD EPYC), and caps reset the kernels. */
static gchar *
program_options (GstClConvolve * self, gboolean integer)
{
  gboolean fixed = program_has_fixed (self, integer);

  return g_strdup_printf ("-D DEPTH16=%d -D INTEGER=%d -D CPU_ONLY=%d "
      "-D FIXED=%d -D FIXED_COLOUR=%d -D BOX_SLIDE=%d -D PX_MAX_R=0",
      self->depth16 ? 1 : 0, integer ? 1 : 0, self->use_tile ? 0 : 1,
      fixed ? 1 : 0, fixed && has_colour_planes (self) ? self->fixed_colour : 0,
      integer && self->integer_box ? 1 : 0);
}

/* Creates @program's kernels that this device's path runs into @k; on
 * failure returns the CL error with *@name the kernel, and @k may be
 * partly filled */
static cl_int
create_kernels (GstClConvolve * self, cl_program program, gboolean integer,
    ConvKernels * k, const gchar ** name)
{
  static const gchar *gpu_names[] = { "conv2d_tile", "hpass_strips",
    "vpass_strips", "conv2d_reg1", "conv2d_reg2", "conv2d_reg3",
    "conv2d_reg4", "conv2d_reg5"
  };
  cl_kernel *gpu[G_N_ELEMENTS (gpu_names)] = { &k->tile, &k->hpass,
    &k->vpass, &k->reg[0], &k->reg[1], &k->reg[2], &k->reg[3], &k->reg[4]
  };
  cl_int err;
  guint i;

  G_STATIC_ASSERT (REG_MAX_R == 5);
  *name = "conv2d_strips";
  k->strips = clCreateKernel (program, *name, &err);
  if (err == CL_SUCCESS) {
    *name = "sep_strips";
    k->sep = clCreateKernel (program, *name, &err);
  }
  if (err == CL_SUCCESS && program_has_fixed (self, integer)) {
    *name = "conv2d_fixed";
    k->strips_fixed = clCreateKernel (program, *name, &err);
  }
  if (err == CL_SUCCESS && program_has_fixed (self, integer)) {
    *name = "sep_fixed";
    k->sep_fixed = clCreateKernel (program, *name, &err);
  }
  /* the GPU path's kernels (not in the CPU program) */
  for (i = 0; i < G_N_ELEMENTS (gpu) && self->use_tile && err == CL_SUCCESS;
      i++) {
    *name = gpu_names[i];
    *gpu[i] = clCreateKernel (program, *name, &err);
  }
  return err;
}

static void
clear_kernels (ConvKernels * k)
{
  cl_kernel *kernels = (cl_kernel *) k;
  guint i;

  for (i = 0; i < sizeof (ConvKernels) / sizeof (cl_kernel); i++)
    if (kernels[i])
      clReleaseKernel (kernels[i]);
  memset (k, 0, sizeof (*k));
}

/* The kernels of the integer or float path: the one in use at caps time
 * made by set_info, the other by the warm-up worker (else here, at its
 * first frame) */
static ConvKernels *
get_kernels (GstClConvolve * self, gboolean integer)
{
  GstClBaseFilter *filter = GST_CL_BASE_FILTER (self);
  ConvKernels *k = &self->kernels[integer ? 1 : 0];
  const gchar *name;
  cl_program program;
  gchar *options;
  cl_int err;

  if (k->strips)
    return k;
  options = program_options (self, integer);
  program = gst_cl_base_filter_get_program (filter, "convolve.cl", options);
  g_free (options);
  if (!program)
    return NULL;
  err = create_kernels (self, program, integer, k, &name);
  clReleaseProgram (program);
  if (err != CL_SUCCESS) {
    GST_ERROR_OBJECT (self, "kernel %s: %s", name, gst_cl_error_name (err));
    gst_cl_base_filter_check (filter, err, "clCreateKernel",
        "Could not create an OpenCL kernel");
    gst_cl_convolve_reset (filter);
    return NULL;
  }
  return k;
}

/* A tap (dx, dy, coefficient, 16-bit value): the coefficient @c as the
 * kernels of its program read it (an int in the integer program, float
 * bits in the other), and @q, the value sep_fixed and conv2d_fixed
 * multiply by, where @q16 (else the coefficient as an int) */
static void
pack_tap (cl_int * t, gint dx, gint dy, gdouble c, gboolean integer,
    gboolean q16, guint16 q)
{
  union
  {
    cl_float f;
    cl_int i;
  } u;

  u.f = (cl_float) c;
  t[0] = dx;
  t[1] = dy;
  t[2] = integer ? (cl_int) c : u.i;
  t[3] = q16 ? q : (cl_int) c;
}

/* Whether at most half the taps of @k's @side x @side square are not
 * zero: then a kernel without the zero taps pays for its build (H200, 4K
 * RGBA motion blur, 17 of 49 taps: 0.087 ms against 0.151 with every tap;
 * a nearly full matrix gains nothing, see docs/performance.md) */
static gboolean
px_mostly_zero (const GstClConvolveKernel * k, gint side)
{
  gint i, n = 0;

  for (i = 0; i < k->width * k->height; i++)
    n += k->coef[i] != 0;
  return 2 * n <= side * side;
}

/* conv2d_px's view of matrix @k: the radius @r of its square and the zero
 * pattern @mask (bit ky * (2r+1) + kx set for a non-zero coefficient, bits
 * past 63 left out: the kernel computes those taps; every bit set for
 * separable matrices and for 2-D ones with more than half their taps
 * non-zero, unless GST_CL_CONVOLVE_PX=sparse or full). FALSE where no
 * conv2d_px kernel applies: a radius above px_max_r, or integer sums that
 * float cannot carry exactly. */
static gboolean
px_pattern (GstClConvolve * self, const GstClConvolveKernel * k, gint * r,
    guint64 * mask)
{
  gint rx = k->width / 2, ry = k->height / 2, side, i, j;
  gboolean sep = px_separable (self, k);

  *r = MAX (MAX (rx, ry), 1);
  *mask = 0;
  if (*r > self->px_max_r)
    return FALSE;
  side = 2 * *r + 1;
  if (self->px_sparse < 0 || (self->px_sparse == 0 && (sep ||
              !px_mostly_zero (k, side)))) {
    /* every tap: one kernel serves every matrix of this radius */
    *mask = (sep ? 2 * side : side * side) >= 64 ? G_MAXUINT64 :
        (G_GUINT64_CONSTANT (1) << (sep ? 2 * side : side * side)) - 1;
    return px_exact_for (self, k);
  }
  if (sep) {
    /* bits 0..side-1: the row factor, then the column factor */
    for (j = 0; j < k->width; j++)
      if (k->row[j] != 0)
        *mask |= G_GUINT64_CONSTANT (1) << (j - rx + *r);
    for (i = 0; i < k->height; i++)
      if (k->col[i] != 0)
        *mask |= G_GUINT64_CONSTANT (1) << (side + i - ry + *r);
    return px_exact_for (self, k);
  }
  for (i = 0; i < k->height; i++)
    for (j = 0; j < k->width; j++) {
      gint bit = (i - ry + *r) * side + j - rx + *r;

      if (k->coef[i * k->width + j] != 0 && bit < 64)
        *mask |= G_GUINT64_CONSTANT (1) << bit;
    }
  return px_exact_for (self, k);
}

/* conv2d_px's float sums are exact for @k: every partial sum of the
 * integer path lies within sum |c| * the largest sample (also for the
 * fused separable sums: sum |c| = sum |row| * sum |col| there) */
static gboolean
px_exact_for (GstClConvolve * self, const GstClConvolveKernel * k)
{
  gdouble abssum = 0;
  gint i;

  for (i = 0; i < k->width * k->height; i++)
    abssum += fabs (k->coef[i]);
  return !k->integer || abssum * (self->depth16 ? 65535 : 255) <
      PX_EXACT_LIMIT;
}

/* Writes the snapshot's taps; zeros are left out (no work for them) */
static gboolean
upload_taps (GstClConvolve * self)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  const GstClConvolveKernel *k = self->frame_kernel;
  cl_int taps[GST_CL_CONVOLVE_MAX_TAPS * 4];
  gint rx = k->width / 2, ry = k->height / 2, i, j, n = 0, rows = 0;
  /* the separable taps' .w: sep_fixed's 16-bit values (whether or not it
   * is ready: the other kernels read .z) */
  gboolean q16 = k->fixed || k->exact16;
  cl_int err;

  for (i = 0; i < k->height; i++) {
    gint before = n;
    for (j = 0; j < k->width; j++)
      if (k->coef[i * k->width + j] != 0)
        pack_tap (&taps[4 * n++], j - rx, i - ry, k->coef[i * k->width + j],
            k->integer, k->fixed, k->qcoef[i * k->width + j]);
    rows += n > before;
  }
  self->n2d = n;
  /* widening a row to float once pays off from about 2.5 taps per row */
  self->direct = 2 * n < 5 * rows;
  err = clEnqueueWriteBuffer (ctx->queue, self->taps2d, CL_TRUE, 0,
      MAX (n, 1) * sizeof (cl_int4), taps, 0, NULL, NULL);
  /* conv2d_reg<R>: the matrix centred in a (2R+1)^2 square of zeros, as
   * acc_t (float, or int on the integer path) */
  self->reg_r = MAX (MAX (rx, ry), 1);
  if (self->reg_r > REG_MAX_R)
    self->reg_r = 0;
  if (err == CL_SUCCESS && self->reg_r) {
    gint r = self->reg_r, side = 2 * r + 1;
    union
    {
      cl_float f;
      cl_int i;
    } sq[(2 * REG_MAX_R + 1) * (2 * REG_MAX_R + 1)];
    gint px_r;

    memset (sq, 0, sizeof (sq));
    memset (self->px_coef, 0, sizeof (self->px_coef));
    for (i = 0; i < k->height; i++)
      for (j = 0; j < k->width; j++) {
        gdouble c = k->coef[i * k->width + j];
        gint at = (i - ry + r) * side + j - rx + r;

        if (k->integer)
          sq[at].i = (cl_int) c;
        else
          sq[at].f = (cl_float) c;
        self->px_coef[at] = (cl_float) c;
      }
    self->px_exact = px_pattern (self, k, &px_r, &self->px_mask);
    if (px_separable (self, k)) {
      /* the fused separable kernel: row factor, then column factor */
      memset (self->px_coef, 0, sizeof (self->px_coef));
      for (j = 0; j < k->width; j++)
        self->px_coef[j - rx + r] = (cl_float) k->row[j];
      for (i = 0; i < k->height; i++)
        self->px_coef[side + i - ry + r] = (cl_float) k->col[i];
    }
    err = clEnqueueWriteBuffer (ctx->queue, self->coef_sq, CL_TRUE, 0,
        side * side * sizeof (sq[0]), sq, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS && k->separable) {
    for (j = 0, n = 0; j < k->width; j++)
      if (k->row[j] != 0)
        pack_tap (&taps[4 * n++], j - rx, 0, k->row[j], k->integer, q16,
            k->qrow[j]);
    self->nrow = n;
    err = clEnqueueWriteBuffer (ctx->queue, self->taps_row, CL_TRUE, 0,
        MAX (n, 1) * sizeof (cl_int4), taps, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS && k->separable) {
    for (i = 0, n = 0; i < k->height; i++)
      if (k->col[i] != 0)
        pack_tap (&taps[4 * n++], 0, i - ry, k->col[i], k->integer, q16,
            k->qcol[i]);
    self->ncol = n;
    err = clEnqueueWriteBuffer (ctx->queue, self->taps_col, CL_TRUE, 0,
        MAX (n, 1) * sizeof (cl_int4), taps, 0, NULL, NULL);
  }
  return gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
      "clEnqueueWriteBuffer", "Could not upload the convolution matrix");
}

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

/* conv2d_first */
#define FIRST_ARGS(in, out, p, c) FRAME_ARGS (in, out, p, c), \
    GST_CL_ARG ((c)->taps2d), GST_CL_ARG ((c)->n2d), GST_CL_ARG ((c)->rx), \
    GST_CL_ARG ((c)->ry), GST_CL_ARG ((c)->bval), GST_CL_ARG ((c)->border), \
    PARAM_ARGS (c)

#define CONV_WHAT "Could not run the convolution"
#define SEP_WHAT "Could not run the separable convolution"

/* The values of plane @pl under matrix @k; the tap buffers are the
 * caller's */
static void
conv_args (ConvArgs * c, const ConvPlane * pl, const GstClConvolveKernel * k,
    cl_int bval, cl_int border)
{
  union
  {
    cl_float f;
    cl_int i;
  } border_row;
  gdouble rowsum = 0;
  gint j;

  memset (c, 0, sizeof (*c));
  c->width = pl->width;
  c->height = pl->height;
  c->ch = pl->ch;
  c->apos = pl->alpha_pos;
  c->rx = k->width / 2;
  c->ry = k->height / 2;
  c->bval = bval;
  c->border = border;
  /* a row of border pixels after the row pass, for the column pass */
  for (j = 0; j < k->width; j++)
    rowsum += k->row[j];
  if (k->integer)
    border_row.i = (cl_int) (rowsum * bval);
  else
    border_row.f = (cl_float) (rowsum * bval);
  c->border_row = border_row.i;
  c->tpitch = gst_cl_round_up ((gsize) pl->width * pl->ch, STRIP);
  /* a multiply by the reciprocal: off by at most an ulp from a division,
   * within the float path's tolerance, and much cheaper per sample */
  c->finv = 1.0 / k->divisor;
  c->fbias = k->bias;
  c->idiv = k->idivisor;
  c->ibias = k->ibias;
  c->absolute = k->absolute;
}

static gboolean
ensure_tmp (GstClConvolve * self, GstClContext * ctx, gsize size)
{
  cl_int err;

  if (self->tmp && self->tmp_size >= size)
    return TRUE;
  if (self->tmp)
    clReleaseMemObject (self->tmp);
  self->tmp = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, size, NULL,
      &err);
  self->tmp_size = self->tmp ? size : 0;
  return gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
      "clCreateBuffer", "Could not allocate the separable pass buffer");
}

/* CPU devices: one work-item per work-group for the fused separable
 * kernel, else PoCL may put the whole range in one work-group (one
 * thread) */
static const gsize sep_local[2] = { 1, 1 };
static const gsize strips_local[2] = { STRIPS_LX, STRIPS_LY };
/* conv2d_fixed: 8 strips of a row in turn, so that a thread reads along
 * rows, which the hardware prefetchers follow (down a strip, a page per
 * row, they do not: 1080p RGBA motion blur took 20-30% more CPU time) */
static const gsize fix2d_local[2] = { 8, 1 };

/* the work-group shape of conv2d_fixed if @fixed, else of conv2d_strips */
static const gsize *
strips_local_size (gboolean fixed)
{
  return fixed ? fix2d_local : strips_local;
}

/* launch sizes of sep_strips and conv2d_strips */
static void
sep_global (const ConvArgs * c, gsize global[2])
{
  global[0] = ((gsize) c->width * c->ch + STRIP - 1) / STRIP;
  global[1] = ((gsize) c->height + SEP_ROWS - 1) / SEP_ROWS;
}

/* launch size of sep_fixed: COLOUR_STRIP samples per work-item where its
 * colour path (@colour: built) filters 3 of 4 samples (the kernel's test) */
static void
sep_fixed_global (const ConvArgs * c, gboolean colour, gsize global[2])
{
  gsize strip = colour && c->ch == 4 && (c->apos == 0 || c->apos == 3) ?
      COLOUR_STRIP : STRIP;

  sep_global (c, global);
  global[0] = ((gsize) c->width * c->ch + strip - 1) / strip;
}

/* conv2d_fixed makes FIX2D_ROWS rows per work-item, conv2d_strips one */
static void
strips_global (const ConvArgs * c, gboolean fixed, gsize global[2])
{
  gsize rows = fixed ? FIX2D_ROWS : 1;
  const gsize *local = strips_local_size (fixed);

  global[0] = gst_cl_global_size (((gsize) c->width * c->ch + STRIP - 1) /
      STRIP, local[0]);
  global[1] = gst_cl_global_size ((c->height + rows - 1) / rows, local[1]);
}

/* GPU separable path: row pass into @tmp, column pass into the output */
static gboolean
launch_two_pass (GstClConvolve * self, ConvKernels * ks, ConvArgs * c,
    guint p, GstClFrame * in, GstClFrame * out)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  gsize g[2] = { ((gsize) c->width * c->ch + STRIP - 1) / STRIP, c->height };

  if (!ensure_tmp (self, ctx, (gsize) c->tpitch * c->height * 4))
    return FALSE;
  c->tmp = self->tmp;
  GST_CL_LAUNCH (self, ks->hpass, 2, g, NULL, SEP_WHAT,
      GST_CL_ARG_PLANE (in, p), GST_CL_ARG (c->tmp), GST_CL_ARG (c->tpitch),
      GST_CL_ARG (c->width), GST_CL_ARG (c->height), GST_CL_ARG (c->ch),
      GST_CL_ARG (c->taps_row), GST_CL_ARG (c->nrow), GST_CL_ARG (c->rx),
      GST_CL_ARG (c->bval), GST_CL_ARG (c->border));
  GST_CL_LAUNCH (self, ks->vpass, 2, g, NULL, SEP_WHAT,
      GST_CL_ARG (c->tmp), GST_CL_ARG (c->tpitch), FRAME_ARGS (in, out, p, c),
      GST_CL_ARG (c->taps_col), GST_CL_ARG (c->ncol),
      GST_CL_ARG (c->border_row), GST_CL_ARG (c->border), PARAM_ARGS (c));
  return TRUE;
fail:
  return FALSE;
}

/* conv2d_px's kernel for plane @p, or NULL where it does not apply (pixels
 * of 2 or 3 samples, a misaligned 4-sample plane, large integer sums) or
 * is not built yet */
static cl_kernel
px_kernel (GstClConvolve * self, ConvKernels * ks, const ConvPlane * pl,
    guint p, GstClFrame * in, GstClFrame * out)
{
  if (!self->use_tile || !self->px_on || !self->reg_r || !self->px_exact ||
      self->reg_r > self->px_max_r)
    return NULL;
  if (pl->ch == 1)
    return self->frame_px[0];
  /* whole pixels as 32-bit words */
  if (pl->ch == 4 && !self->depth16 && (pl->alpha_pos == 0 ||
          pl->alpha_pos == 3) && (in->offset[p] | in->stride[p] |
          out->offset[p] | out->stride[p]) % 4 == 0)
    return self->frame_px[1];
  return NULL;
}

/* conv2d_pxl's rows per work-item for a program of @integer sums, separable
 * (@sep) or not: the knob's value, or by default 6 for float separable
 * matrices, 5 for float 2-D ones, 4 for integer ones (H200, 4K RGBA
 * kernel time against 4 rows, every one of 4 interleaved rounds: gaussian
 * 49.0 -> 46.1 us at 6, motion blur 48.5 -> 47.9 at 5 (6: 50.8); integer
 * matrices slower or no faster: 1080p custom 29.4 -> 31.0 at 5, box 22.1
 * -> 22.2 at 6; see docs/performance.md) */
static gint
pxl_rows (GstClConvolve * self, gboolean integer, gboolean sep)
{
  if (self->pxl_rows > 0)
    return self->pxl_rows;
  if (integer)
    return 4;
  return sep ? 6 : 5;
}

/* Runs conv2d_px on plane @p if it applies (*@ok: the launch succeeded) */
static gboolean
launch_px (GstClConvolve * self, ConvKernels * ks, const ConvPlane * pl,
    ConvArgs * c, guint p, GstClFrame * in, GstClFrame * out, gboolean * ok)
{
  static const gsize px_local[2] = { PX_WX, PX_WY };
  cl_kernel kernel = px_kernel (self, ks, pl, p, in, out);
  gint nx = pl->ch == 4 ? self->px_nx4 : self->px_nx1;
  /* source and destination rows in 8-byte words */
  cl_int aligned8 = (in->offset[p] | in->stride[p] | out->offset[p] |
      out->stride[p]) % 8 == 0;
  gboolean sep;
  gsize g[2];

  if (!kernel)
    return FALSE;
  sep = px_separable (self, self->frame_kernel);
  GST_LOG_OBJECT (self, "plane %u: conv2d_px%d_%d%s, taps 0x%"
      G_GINT64_MODIFIER "x%s", p, self->reg_r, pl->ch, sep ? " separable" :
      "", self->px_mask, pxl_applies (self, pl->ch, sep) ? ", local (conv2d_pxl)" : "");
  *ok = FALSE;
  if (pxl_applies (self, pl->ch, sep)) {
    gsize pxl_local[2] = { PXL_WX / self->pxl_nx, PXL_WY };
    gint rows = pxl_rows (self, self->frame_kernel->integer, sep);

    g[0] = gst_cl_global_size ((pl->width + self->pxl_nx - 1) /
        self->pxl_nx, pxl_local[0]);
    g[1] = gst_cl_global_size ((pl->height + rows - 1) / rows, PXL_WY);
    GST_CL_LAUNCH (self, kernel, 2, g, pxl_local, CONV_WHAT,
        FRAME_ARGS (in, out, p, c), GST_CL_ARG (aligned8),
        GST_CL_ARG (self->px_coef), GST_CL_ARG (c->bval),
        GST_CL_ARG (c->border), GST_CL_ARG (c->border_row), PARAM_ARGS (c));
    *ok = TRUE;
    return TRUE;
  }
  g[0] = gst_cl_global_size ((pl->width + nx - 1) / nx, PX_WX);
  g[1] = gst_cl_global_size ((pl->height + self->px_rows - 1) /
      self->px_rows, PX_WY);
  GST_CL_LAUNCH (self, kernel, 2, g, px_local, CONV_WHAT,
      FRAME_ARGS (in, out, p, c), GST_CL_ARG (aligned8),
      GST_CL_ARG (self->px_coef), GST_CL_ARG (c->bval),
      GST_CL_ARG (c->border), GST_CL_ARG (c->border_row), PARAM_ARGS (c));
  *ok = TRUE;
fail:
  return TRUE;
}

static gboolean
filter_plane (GstClConvolve * self, ConvKernels * ks, const ConvPlane * pl,
    guint p, GstClFrame * in, GstClFrame * out, cl_int bval, cl_int border)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  const GstClConvolveKernel *k = self->frame_kernel;
  gsize rowlen = (gsize) pl->width * pl->ch;
  gsize g[2];
  gboolean fixed, ok;
  ConvArgs c;

  conv_args (&c, pl, k, bval, border);
  c.taps2d = self->taps2d;
  c.taps_row = self->taps_row;
  c.taps_col = self->taps_col;
  c.coef_sq = self->coef_sq;
  c.n2d = self->n2d;
  c.nrow = self->nrow;
  c.ncol = self->ncol;
  c.direct = self->direct;

  /* conv2d_px where this frame has one (fused separable ones included) */
  if (launch_px (self, ks, pl, &c, p, in, out, &ok))
    return ok;
  if (takes_separable_path (self, k) && self->use_tile)
    return launch_two_pass (self, ks, &c, p, in, out);
  if (takes_separable_path (self, k)) {
    /* CPU: both passes in one kernel, no intermediate buffer */
    fixed = path_arith (self, k) == ARITH_FIXED || uses_exact16 (self, k);
    if (fixed)
      sep_fixed_global (&c, self->fixed_colour != 0, g);
    else
      sep_global (&c, g);
    GST_CL_LAUNCH (self, fixed ? ks->sep_fixed : ks->sep, 2, g, sep_local,
        SEP_WHAT, SEP_ARGS (in, out, p, &c));
    return TRUE;
  }

  if (self->use_tile && self->reg_r) {
    gint r = self->reg_r;
    gsize tile_bytes = (gsize) (REG_WX + 2 * r * c.ch) * (REG_TH + 2 * r) * 4;
    static const gsize reg_local[2] = { REG_WX, REG_WY };

    if (tile_bytes <= ctx->local_mem_size) {
      g[0] = gst_cl_global_size (rowlen, REG_WX);
      g[1] = ((pl->height + REG_TH - 1) / REG_TH) * REG_WY;
      GST_CL_LAUNCH (self, ks->reg[r - 1], 2, g, reg_local, CONV_WHAT,
          FRAME_ARGS (in, out, p, &c), GST_CL_ARG (c.coef_sq),
          GST_CL_ARG (c.bval), GST_CL_ARG (c.border), PARAM_ARGS (&c),
          GST_CL_ARG_LOCAL (tile_bytes));
      return TRUE;
    }
  }

  if (self->use_tile) {
    gsize tile_bytes = (gsize) (TILE_W + 2 * c.rx * c.ch) *
        (TILE_H + 2 * c.ry) * (self->depth16 ? 2 : 1);
    static const gsize tile_local[2] = { 16, 16 };

    if (tile_bytes <= ctx->local_mem_size) {
      g[0] = ((rowlen + TILE_W - 1) / TILE_W) * 16;
      g[1] = gst_cl_global_size (pl->height, TILE_H);
      GST_CL_LAUNCH (self, ks->tile, 2, g, tile_local, CONV_WHAT,
          FRAME_ARGS (in, out, p, &c), GST_CL_ARG (c.taps2d),
          GST_CL_ARG (c.n2d), GST_CL_ARG (c.rx), GST_CL_ARG (c.ry),
          GST_CL_ARG (c.bval), GST_CL_ARG (c.border), PARAM_ARGS (&c),
          GST_CL_ARG_LOCAL (tile_bytes));
      return TRUE;
    }
  }

  fixed = path_arith (self, k) == ARITH_FIXED;
  strips_global (&c, fixed, g);
  GST_CL_LAUNCH (self, fixed ? ks->strips_fixed : ks->strips, 2, g,
      strips_local_size (fixed), CONV_WHAT, STRIPS_ARGS (in, out, p, &c));
  return TRUE;
fail:
  return FALSE;
}

/* What a kernel's first launch runs on: a 1x1 plane of 64 bytes of scratch
 * memory (@f, the caller releases f->mem) and the arguments (@c) of a 3x3
 * matrix without taps, so nothing is read from the tap buffers (frames set
 * every argument again). Returns the CL error. */
static cl_int
scratch_launch_args (GstClContext * ctx, GstClFrame * f, ConvArgs * c)
{
  const ConvPlane pl = { 1, 1, 1, -1, FALSE };
  GstClConvolveKernel k;
  cl_int err;

  memset (f, 0, sizeof (*f));
  f->mem = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, 64, NULL, &err);
  if (err != CL_SUCCESS)
    return err;
  f->n_planes = 1;
  f->stride[0] = 64;
  memset (&k, 0, sizeof (k));
  k.width = k.height = 3;
  k.divisor = 1;
  k.idivisor = 1;
  conv_args (c, &pl, &k, 0, GST_CL_CONVOLVE_BORDER_CLAMP);
  c->taps2d = c->taps_row = c->taps_col = f->mem;
  return CL_SUCCESS;
}

/* PoCL compiles a kernel for its work-group size on its first launch (up
 * to ~0.9 s on 2 cores with an empty cache), and a kernel object's first
 * launch waits for any compile in progress in the context: this launches
 * @kernel (the CPU path's sep_strips if @separable, else conv2d_strips;
 * their fixed-point versions if @fixed) once on @queue with the frames'
 * work-group shape, on a 1x1 plane of scratch memory. A 3x3 matrix without
 * taps: nothing is read from the tap buffers; frames set every argument
 * again. Returns the CL error. */
static cl_int
warm_up_kernel (GstClContext * ctx, cl_command_queue queue, cl_kernel kernel,
    gboolean separable, gboolean fixed)
{
  GstClFrame f;
  ConvArgs c;
  gsize global[2];
  cl_int err;

  err = scratch_launch_args (ctx, &f, &c);
  if (err != CL_SUCCESS)
    return err;
  if (separable) {
    const GstClArg args[] = { SEP_ARGS (&f, &f, 0, &c) };

    sep_global (&c, global);
    err = gst_cl_kernel_set_args (kernel, args, G_N_ELEMENTS (args));
  } else {
    const GstClArg args[] = { STRIPS_ARGS (&f, &f, 0, &c) };

    strips_global (&c, fixed, global);
    err = gst_cl_kernel_set_args (kernel, args, G_N_ELEMENTS (args));
  }
  if (err == CL_SUCCESS)
    err = gst_cl_warmup_launch (queue, kernel, 2, global, separable ?
        sep_local : strips_local_size (fixed));
  clReleaseMemObject (f.mem);
  return err;
}

/* The CPU kernel of path (@arith, @separable) */
static cl_kernel
cpu_path_kernel (GstClConvolve * self, gint arith, gboolean separable)
{
  ConvKernels *k = &self->kernels[arith == ARITH_INTEGER ? 1 : 0];

  if (arith == ARITH_FIXED)
    return separable ? k->sep_fixed : k->strips_fixed;
  return separable ? k->sep : k->strips;
}

static const gchar *
cpu_path_kernel_name (gint arith, gboolean separable)
{
  if (arith == ARITH_FIXED)
    return separable ? "sep_fixed" : "conv2d_fixed";
  return separable ? "sep_strips" : "conv2d_strips";
}

/* Launches path (@arith, @separable)'s kernels once on @queue; the
 * integer program's separable path has two where the stream started on
 * exact sums, sep_strips and sep_fixed (uses_exact16), and a matrix set
 * while playing may move frames from one to the other. @name: the kernel
 * of a failure. */
static cl_int
warm_up_path (GstClConvolve * self, GstClContext * ctx,
    cl_command_queue queue, gint arith, gboolean separable,
    const gchar ** name)
{
  cl_kernel exact = self->kernels[1].sep_fixed;
  cl_int err;

  if (separable == EXACT16_JOB) {
    *name = "sep_fixed";
    return exact ? warm_up_kernel (ctx, queue, exact, TRUE, TRUE) :
        CL_INVALID_KERNEL;
  }
  *name = cpu_path_kernel_name (arith, separable);
  err = warm_up_kernel (ctx, queue, cpu_path_kernel (self, arith,
          separable), separable, arith == ARITH_FIXED);
  if (err == CL_SUCCESS && arith == ARITH_INTEGER && separable &&
      self->exact16_start && exact) {
    *name = "sep_fixed";
    err = warm_up_kernel (ctx, queue, exact, TRUE, TRUE);
  }
  return err;
}

/* The current path's kernels, in set_info: the first frame needs them */
static gboolean
warm_up_now (GstClConvolve * self, gint arith, gboolean separable)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  const gchar *name;
  cl_int err;

  err = warm_up_path (self, ctx, ctx->queue, arith, separable, &name);
  return gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
      "clEnqueueNDRangeKernel", "Could not prepare the convolution kernels");
}

typedef struct
{
  GstClConvolve *self;          /* outlives the job: reset joins the worker */
  gint arith;
  gint separable;               /* kernel to launch: TRUE, FALSE, -1:
                                 * none (GPU compilers finish in the build),
                                 * or EXACT16_JOB: the integer program's
                                 * sep_fixed alone */
} WarmJob;

/* On the worker thread: makes path (@integer, @separable) ready, its
 * program and the stream's kernel objects included. Nothing else touches
 * them until the stream waits for this job (see wait_for_path). Failures
 * are only logged: the frame that needs the path then builds or launches
 * it itself and posts the error. */
static void
warm_job_run (GstClContext * ctx, cl_command_queue queue, gpointer data)
{
  WarmJob *job = data;
  GstClConvolve *self = job->self;
  gboolean integer = job->arith == ARITH_INTEGER;
  ConvKernels *k = &self->kernels[integer ? 1 : 0];
  const gchar *name = NULL;
  GError *error = NULL;
  cl_int err = CL_SUCCESS;
  gboolean created = FALSE;

  if (!k->strips) {
    gchar *options = program_options (self, integer);
    cl_program program = gst_cl_context_get_program (ctx, "convolve.cl",
        options, NULL, &error);

    if (!program) {
      GST_WARNING_OBJECT (self, "background build (%s) failed: %s", options,
          error->message);
      g_clear_error (&error);
      g_free (options);
      return;
    }
    g_free (options);
    err = create_kernels (self, program, integer, k, &name);
    clReleaseProgram (program);
    created = TRUE;
  }
  if (err == CL_SUCCESS && job->separable >= 0)
    err = warm_up_path (self, ctx, queue, job->arith, job->separable, &name);
  if (err != CL_SUCCESS) {
    GST_WARNING_OBJECT (self, "background preparation of %s failed: %s",
        name, gst_cl_error_name (err));
    /* only what no frame can be using yet */
    if (created)
      clear_kernels (k);
  }
}

static guint
add_warm_job (GstClConvolve * self, gint arith, gint separable)
{
  WarmJob *job = g_new (WarmJob, 1);

  job->self = self;
  job->arith = arith;
  job->separable = separable;
  return gst_cl_warmup_add (self->warmup, warm_job_run, job, g_free);
}

/* A conv2d_px program of its own: one kernel for one radius, pixel size,
 * arithmetic and zero pattern. Built by a warm-up job; the stream takes
 * @kernel only once that job is done (see px_variant_kernel). */
typedef struct
{
  GstClConvolve *self;
  gint r, ch;
  gboolean integer, sep;        /* sep: the fused separable kernel */
  guint64 mask;
  guint job;                    /* the job building it, 0 once taken */
  cl_kernel kernel;             /* NULL if the build failed */
} PxVariant;

static void
px_variant_free (PxVariant * v)
{
  if (v->kernel)
    clReleaseKernel (v->kernel);
  g_free (v);
}

/* PXL_FP for @v's program: the knob's value, or by default the 2-D fill's
 * loads ahead for float 2-D matrices (H200: 4K RGBA motion blur, float,
 * faster; 1080p custom, integer, slower; see docs/performance.md) */
static gint
px_fp (GstClConvolve * self, const PxVariant * v)
{
  if (self->pxl_fp >= 0)
    return self->pxl_fp;
  return !v->integer && !v->sep ? 1 : 0;
}

/* On the worker thread: builds @data's program and kernel. A failure is
 * logged and leaves the stream on conv2d_reg. */
static void
px_build_run (GstClContext * ctx, cl_command_queue queue, gpointer data)
{
  PxVariant *v = data;
  GstClConvolve *self = v->self;
  GError *error = NULL;
  gchar *options, name[32];
  cl_program program;
  cl_int err;
  gint side = 2 * v->r + 1, bits = v->sep ? 2 * side : side * side;
  guint64 full = bits >= 64 ? G_MAXUINT64 :
      (G_GUINT64_CONSTANT (1) << bits) - 1;
  gchar mask[40] = "";

  /* a full pattern: no mask, the generic kernel without a test per tap */
  if (v->mask != full)
    g_snprintf (mask, sizeof (mask), " -D PX_MASK=0x%" G_GINT64_MODIFIER
        "xUL", v->mask);
  options = g_strdup_printf ("-D DEPTH16=%d -D INTEGER=%d -D PX_ONLY=1 "
      "-D PX_R=%d -D PX_CH=%d -D PX_SEP=%d -D PX_NX1=%d -D PX_NX4=%d "
      "-D PX_ROWS=%d -D PX_LOCAL=%d "
      "-D PXL_ROWS=%d -D PXL_NX=%d -D PXL_HU=%d -D PXL_SEP16=%d "
      "-D PXL_FIN=%d -D PXL_WID=%d -D PXL_FP=%d%s",
      self->depth16 ? 1 : 0,
      v->integer ? 1 : 0, v->r, v->ch, v->sep ? 1 : 0, self->px_nx1,
      self->px_nx4, self->px_rows, pxl_applies (self, v->ch, v->sep) ? 1 : 0,
      pxl_rows (self, v->integer, v->sep), self->pxl_nx, self->pxl_hu,
      self->pxl_sep16 ? 1 : 0, self->pxl_fin, self->pxl_wid, px_fp (self, v),
      mask);
  program = gst_cl_context_get_program (ctx, "convolve.cl", options, NULL,
      &error);
  if (!program) {
    GST_WARNING_OBJECT (self, "background build (%s) failed, conv2d_reg "
        "stays: %s", options, error->message);
    g_clear_error (&error);
    g_free (options);
    return;
  }
  g_snprintf (name, sizeof (name), "conv2d_px%s%d_%d", pxl_applies (self,
          v->ch, v->sep) ? "l" : "", v->r, v->ch);
  v->kernel = clCreateKernel (program, name, &err);
  if (err != CL_SUCCESS) {
    GST_WARNING_OBJECT (self, "%s (%s): %s, conv2d_reg stays", name,
        options, gst_cl_error_name (err));
    v->kernel = NULL;
  }
  clReleaseProgram (program);
  g_free (options);
}

static gboolean
px_variant_is (const PxVariant * v, gint r, gboolean integer, gboolean sep,
    guint64 mask)
{
  return v->r == r && v->integer == integer && v->sep == sep &&
      v->mask == mask;
}

static gboolean
px_variant_built (GstClConvolve * self, const PxVariant * v)
{
  return !v->job || gst_cl_warmup_is_done (self->warmup, v->job);
}

/* The variant (@r, @ch, @integer, @sep, @mask), its build queued if it is
 * new; NULL without a worker, or when all PX_MAX_VARIANTS are taken by
 * other patterns still building */
static PxVariant *
px_variant_get (GstClConvolve * self, gint r, gint ch, gboolean integer,
    gboolean sep, guint64 mask)
{
  PxVariant *v;
  guint i;

  if (!self->warmup)
    return NULL;
  if (!self->px_variants)
    self->px_variants = g_ptr_array_new_with_free_func ((GDestroyNotify)
        px_variant_free);
  for (i = 0; i < self->px_variants->len; i++) {
    v = g_ptr_array_index (self->px_variants, i);
    if (v->ch == ch && px_variant_is (v, r, integer, sep, mask))
      return v;
  }
  /* the oldest built one of another pattern makes room (this frame's other
   * pixel size has this pattern) */
  for (i = 0; i < self->px_variants->len &&
      self->px_variants->len >= PX_MAX_VARIANTS; i++) {
    v = g_ptr_array_index (self->px_variants, i);
    if (!px_variant_is (v, r, integer, sep, mask) &&
        px_variant_built (self, v))
      g_ptr_array_remove_index (self->px_variants, i);
  }
  if (self->px_variants->len >= PX_MAX_VARIANTS)
    return NULL;
  v = g_new0 (PxVariant, 1);
  v->self = self;
  v->r = r;
  v->ch = ch;
  v->integer = integer;
  v->sep = sep;
  v->mask = mask;
  v->job = gst_cl_warmup_add (self->warmup, px_build_run, v, NULL);
  g_ptr_array_add (self->px_variants, v);
  GST_DEBUG_OBJECT (self, "conv2d_px%d_%d taps 0x%" G_GINT64_MODIFIER "x: "
      "building in the background (job %u)", r, ch, mask, v->job);
  return v;
}

/* The conv2d_px kernel of @ch-sample planes under the frame's matrix, or
 * NULL (conv2d_reg) while its build runs: a frame never waits for one
 * unless GST_CL_CONVOLVE_PX_WAIT says so */
static cl_kernel
px_variant_kernel (GstClConvolve * self, gint ch)
{
  PxVariant *v = px_variant_get (self, self->reg_r, ch,
      self->frame_kernel->integer, px_separable (self, self->frame_kernel),
      self->px_mask);

  if (!v)
    return NULL;
  if (v->job && self->px_wait)
    gst_cl_warmup_wait (self->warmup, v->job);
  else if (!px_variant_built (self, v))
    return NULL;
  v->job = 0;
  return v->kernel;
}

/* Whether conv2d_px can serve @pl (see px_kernel) */
static gboolean
px_serves (GstClConvolve * self, const ConvPlane * pl)
{
  return pl->ch == 1 || (pl->ch == 4 && !self->depth16);
}

/* Picks the frame's conv2d_px kernels once, before its planes: every plane
 * of a frame runs the same kernel */
static void
px_select (GstClConvolve * self, GstClConvolveChroma chroma)
{
  guint p;

  self->frame_px[0] = self->frame_px[1] = NULL;
  if (!self->use_tile || !self->px_on || !self->reg_r || !self->px_exact ||
      (takes_separable_path (self, self->frame_kernel) &&
          !px_separable (self, self->frame_kernel)))
    return;
  for (p = 0; p < self->n_planes; p++) {
    const ConvPlane *pl = &self->planes[p];
    gint i = pl->ch == 4;

    if ((pl->chroma && chroma == GST_CL_CONVOLVE_CHROMA_COPY) ||
        !px_serves (self, pl) || self->frame_px[i])
      continue;
    self->frame_px[i] = px_variant_kernel (self, pl->ch);
  }
}

/* Queues the conv2d_px builds the current matrix needs, ahead of the other
 * warm-up jobs: a running stream switches to them first */
static void
px_prepare (GstClConvolve * self)
{
  GstClConvolveKernel *k;
  guint64 mask;
  gint r;
  guint p;

  GST_OBJECT_LOCK (self);
  k = g_memdup2 (self->kernel, sizeof (*k));
  GST_OBJECT_UNLOCK (self);
  if (self->px_on && (!takes_separable_path (self, k) ||
          px_separable (self, k)) && px_pattern (self, k, &r, &mask)) {
    for (p = 0; p < self->n_planes; p++)
      if (px_serves (self, &self->planes[p]))
        px_variant_get (self, r, self->planes[p].ch, k->integer,
            px_separable (self, k), mask);
  }
  g_free (k);
}

/* Every path but the current one (@arith, @separable; -1 for none: only
 * its program is built), the likelier first: separable matrices (gaussian,
 * box), then integer 2-D ones (sharpen, edge detectors), float ones outside
 * fixed point (negative coefficients, a bias) last; on GPUs only the other
 * program */
static void
warm_up_in_background (GstClConvolve * self, gint arith, gint separable,
    gboolean first)
{
  static const gint order[6][2] = {
    {ARITH_FIXED, 1}, {ARITH_INTEGER, 1}, {ARITH_INTEGER, 0},
    {ARITH_FIXED, 0}, {ARITH_FLOAT, 1}, {ARITH_FLOAT, 0}
  };
  gboolean integer = arith == ARITH_INTEGER;
  guint n;

  self->warmup = gst_cl_base_filter_get_warmup (GST_CL_BASE_FILTER (self));
  if (!self->warmup)
    return;
  /* frames run conv2d_first until the current path is ready: it comes
   * first (on GPUs its program, the compile is part of the build) */
  if (first && self->use_tile)
    self->warm_job[arith][0] = self->warm_job[arith][1] =
        add_warm_job (self, arith, -1);
  else if (first)
    self->warm_job[arith][separable] = add_warm_job (self, arith, separable);
  if (self->use_tile && separable >= 0)
    px_prepare (self);
  if (self->use_tile) {
    n = add_warm_job (self, integer ? ARITH_FLOAT : ARITH_INTEGER, -1);
    self->warm_job[!integer][0] = self->warm_job[!integer][1] = n;
    return;
  }
  for (n = 0; n < G_N_ELEMENTS (order); n++) {
    gint a = order[n][0], s = order[n][1];

    if (a == ARITH_FIXED && !has_fixed_kernels (self))
      continue;
    if (a != arith || s != separable)
      self->warm_job[a][s] = add_warm_job (self, a, s);
  }
}

/* Before a frame uses the path of @k: if the worker has not made it ready
 * yet, waits for it (at most the jobs queued before it, never a frame's
 * compile of its own on top) */
static void
wait_for_path (GstClConvolve * self, const GstClConvolveKernel * k)
{
  guint *job = &self->warm_job[path_arith (self, k)]
      [takes_separable_path (self, k) ? 1 : 0];

  if (*job) {
    gst_cl_warmup_wait (self->warmup, *job);
    *job = 0;
  }
}

/* conv2d_first of the integer or float program (@integer), compiled: its
 * own small program, launched once on a 1x1 plane of scratch memory with
 * the frames' work-group size (PoCL compiles it then, in this thread,
 * before any worker can be compiling). Posts the error. */
static gboolean
ensure_first (GstClConvolve * self, gboolean integer)
{
  GstClBaseFilter *filter = GST_CL_BASE_FILTER (self);
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  const gsize global[2] = { FIRST_LX, 1 }, local[2] = { FIRST_LX, 1 };
  cl_program program;
  GstClFrame f;
  ConvArgs c;
  gchar *options;
  cl_int err;
  gint64 start;

  if (self->first && self->first_integer == integer)
    return TRUE;
  if (self->first)
    clReleaseKernel (self->first);
  self->first = NULL;
  options = g_strdup_printf ("-D DEPTH16=%d -D INTEGER=%d -D CPU_ONLY=1 "
      "-D PX_ONLY=1 -D FIRST_ONLY=1", self->depth16 ? 1 : 0, integer ? 1 : 0);
  program = gst_cl_base_filter_get_program (filter, "convolve.cl", options);
  g_free (options);
  if (!program)
    return FALSE;
  self->first = gst_cl_base_filter_create_kernel (filter, program,
      "conv2d_first");
  clReleaseProgram (program);
  if (!self->first)
    return FALSE;
  self->first_integer = integer;

  err = scratch_launch_args (ctx, &f, &c);
  if (err == CL_SUCCESS) {
    const GstClArg args[] = { FIRST_ARGS (&f, &f, 0, &c) };

    err = gst_cl_kernel_set_args (self->first, args, G_N_ELEMENTS (args));
    start = g_get_monotonic_time ();
    if (err == CL_SUCCESS)
      err = gst_cl_warmup_launch (ctx->queue, self->first, 2, global, local);
    GST_DEBUG_OBJECT (self, "conv2d_first's first launch: %.1f ms",
        (g_get_monotonic_time () - start) / 1000.0);
    clReleaseMemObject (f.mem);
  }
  if (err != CL_SUCCESS) {
    clReleaseKernel (self->first);
    self->first = NULL;
  }
  return gst_cl_base_filter_check (filter, err, "clEnqueueNDRangeKernel",
      "Could not prepare the convolution kernels");
}

/* Whether conv2d_first is worth it for matrix @k: on GPUs always (the
 * program it stands in for takes seconds to build: 3.9-7.5 s on an H200);
 * on CPU devices taps x samples of the frame (every plane counted) at most
 * FIRST_MAX_WORK. No overflow: the base class accepted the frame's bytes
 * (they fit a gsize, samples are at least a byte) and there are at most
 * 31 x 31 taps. */
static gboolean
first_pays_off (GstClConvolve * self, const GstClConvolveKernel * k)
{
  guint64 samples = 0, taps = 0;
  guint p;
  gint i;

  if (self->use_tile)
    return TRUE;
  for (i = 0; i < k->width * k->height; i++)
    taps += k->coef[i] != 0;
  for (p = 0; p < self->n_planes; p++)
    samples += (guint64) self->planes[p].width * self->planes[p].height *
        self->planes[p].ch;
  return taps * samples <= FIRST_MAX_WORK;
}

/* Whether this frame runs conv2d_first: its arithmetic's, while the
 * worker has not made the frame's path ready (never waiting for it). The
 * first frame that takes its path's own kernel releases conv2d_first:
 * the frames after it never go back (a later change to a path not ready
 * yet waits for its job). O(1) per frame: the matrix's size test is made
 * when the matrix changes. */
static gboolean
first_serves_frame (GstClConvolve * self)
{
  const GstClConvolveKernel *k = self->frame_kernel;
  guint job;

  if (self->first_only) {
    /* (a failure posted its error; filter_frame_first then fails) */
    ensure_first (self, k->integer);
    return TRUE;
  }
  if (!self->first)
    return FALSE;
  job = self->warm_job[path_arith (self, k)]
      [takes_separable_path (self, k) ? 1 : 0];
  if (self->first_integer == k->integer && self->first_fits && job &&
      !gst_cl_warmup_is_done (self->warmup, job))
    return TRUE;
  GST_INFO_OBJECT (self, "conv2d_first filtered %u frames, now the path's "
      "own kernel; conv2d_first released", self->first_frames);
  clReleaseKernel (self->first);
  self->first = NULL;
  self->first_frames = 0;
  return FALSE;
}

/* Every plane of the frame through conv2d_first (chroma copied if so set) */
static gboolean
filter_frame_first (GstClConvolve * self, GstClFrame * in, GstClFrame * out,
    cl_int bval, cl_int border, GstClConvolveChroma chroma)
{
  GstClBaseFilter *filter = GST_CL_BASE_FILTER (self);
  static const gsize local[2] = { FIRST_LX, 1 };
  ConvArgs c;
  gsize g[2];
  guint p;

  if (!self->first)
    return FALSE;
  self->first_frames++;
  GST_LOG_OBJECT (self, "conv2d_first (frame %u)", self->first_frames);
  for (p = 0; p < self->n_planes; p++) {
    const ConvPlane *pl = &self->planes[p];

    if (pl->chroma && chroma == GST_CL_CONVOLVE_CHROMA_COPY) {
      if (!gst_cl_base_filter_copy_plane (filter, in, out, p))
        return FALSE;
      continue;
    }
    conv_args (&c, pl, self->frame_kernel, bval, border);
    c.taps2d = self->taps2d;
    c.n2d = self->n2d;
    g[0] = gst_cl_global_size (((gsize) pl->width * pl->ch +
            FIRST_SAMPLES - 1) / FIRST_SAMPLES, FIRST_LX);
    g[1] = pl->height;
    GST_CL_LAUNCH (self, self->first, 2, g, local, CONV_WHAT,
        FIRST_ARGS (in, out, p, &c));
  }
  return TRUE;
fail:
  return FALSE;
}

static gboolean
gst_cl_convolve_process (GstClBaseFilter * filter, GstClFrame * in,
    GstClFrame * out)
{
  GstClConvolve *self = GST_CL_CONVOLVE (filter);
  GstClConvolveBorder border;
  GstClConvolveChroma chroma;
  ConvKernels *ks;
  gboolean changed = FALSE, ok = TRUE;
  cl_int bval;
  guint p;

  /* the matrix in effect for this whole frame */
  GST_OBJECT_LOCK (self);
  if (self->frame_generation != self->generation) {
    *self->frame_kernel = *self->kernel;
    self->frame_generation = self->generation;
    changed = TRUE;
  }
  border = self->border;
  bval = MIN (self->border_value, self->depth16 ? 65535 : 255);
  chroma = self->chroma;
  GST_OBJECT_UNLOCK (self);

  /* sep_fixed for exact sums, once its job is done */
  if (self->exact16_job && gst_cl_warmup_is_done (self->warmup,
          self->exact16_job)) {
    self->exact16_job = 0;
    self->exact16_ready = self->kernels[1].sep_fixed != NULL;
    GST_INFO_OBJECT (self, "sep_fixed for exact sums %s",
        self->exact16_ready ? "ready" : "failed: sep_strips");
  }
  if (changed && !upload_taps (self))
    return FALSE;
  if (changed && self->first)
    self->first_fits = first_pays_off (self, self->frame_kernel);
  if (first_serves_frame (self))
    return filter_frame_first (self, in, out, bval, border, chroma);
  wait_for_path (self, self->frame_kernel);
  ks = get_kernels (self, self->frame_kernel->integer);
  if (!ks)
    return FALSE;
  px_select (self, chroma);

  for (p = 0; p < self->n_planes && ok; p++) {
    const ConvPlane *pl = &self->planes[p];

    if (pl->chroma && chroma == GST_CL_CONVOLVE_CHROMA_COPY)
      ok = gst_cl_base_filter_copy_plane (filter, in, out, p);
    else
      ok = filter_plane (self, ks, pl, p, in, out, bval, border);
  }
  return ok;
}
