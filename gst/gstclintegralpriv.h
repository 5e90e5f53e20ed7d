/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clintegral's insides, shared by its files: the element's state, the
 * kernels' sizes and the environment's knobs (gstclintegral.c: properties,
 * caps; gstclintegralsetup.c: programs, kernels and scratch per stream;
 * gstclintegralwarm.c: the kernels' first launches on the warm-up worker;
 * gstclintegrallaunch.c: a frame's launches). Not installed. */
#pragma once

#include "gstclintegral.h"
#include "gstclintegralcaps.h"
#include "gstclwarmup.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cl_integral_debug);
#define GST_CAT_DEFAULT gst_cl_integral_debug

/* "cpu" or "gpu": forces a kernel variant (tests run the GPU one on PoCL);
 * "cpu" also waits for the warm-up, as a live stream does, so every frame
 * runs the fast CPU kernels; "cpu-first": only the first-frame ones;
 * "wait": the device's variant, waiting for the warm-up (benchmarks) */
#define VARIANT_ENV "GST_CL_INTEGRAL_VARIANT"
/* CPU scratch: bytes of cpu_integral's region words (one 64-byte line per
 * band), zeroed once, before its rows (integral-cpu.cl) */
#define CPU_HEAD 1024
/* GPU: gpu_strip_scan's bands of strips; the strip kernels' work-group
 * size; rows per strip (also for 3-channel 64-bit sums: 16 beat 8 at 4K
 * on an H200, docs/performance.md) */
#define GPU_SCAN_BANDS 8
#define GPU_STRIP_WG 64
#define GPU_STRIP_ROWS 16
/* TW = WG * K in integral-gpu.cl */
#define GPU_STRIP_PIXELS (GPU_STRIP_WG * 4)
/* benchmarks only: rows per strip, 2 .. GPU_STRIP_WG; "N,M": M for
 * 3-channel 64-bit sums and 3-channel sum + squares programs (at most
 * GPU_STRIP_WG / 2) */
#define STRIP_ROWS_ENV "GST_CL_INTEGRAL_STRIP_ROWS"
/* "lookback": the one-launch GPU kernel (gpu_lookback_integral) instead
 * of the three strip kernels; measured slower on an H200 (see
 * docs/performance.md), so for benchmarks and its tests only */
#define GPU_PASSES_ENV "GST_CL_INTEGRAL_GPU"
/* benchmarks only, wrong results: the strip kernels' launches to leave out
 * (bit 0: gpu_strip_sums, 1: gpu_strip_scan, 2: gpu_strip_integral), to
 * time each launch alone */
#define SKIP_ENV "GST_CL_INTEGRAL_SKIP"
/* benchmarks and tests: the cost of a row added up above a CPU band, as a
 * share of a scanned row, that the bands are planned with (below 1;
 * ADD_ROW_COST; 0 for the box mean): skews the split where the groups of
 * cpu_integral and cpu_box_mean start */
#define ROW_COST_ENV "GST_CL_INTEGRAL_ROW_COST"
/* tests: "reverse" gives the bands of cpu_integral (8-bit gray) and
 * cpu_box_mean to their work-groups bottom-up, so that a group that runs
 * alone (PoCL's threads often run them one after the other) scans most of
 * the frame upwards */
#define CPU_ORDER_ENV "GST_CL_INTEGRAL_CPU_ORDER"
/* "0": the GPU kernels' local partial sums as 16-byte V (ACC) values, as
 * before they were packed (for comparisons) */
#define PACKED_ENV "GST_CL_INTEGRAL_PACKED"
/* rows per tile of the one-pass kernel (at most GPU_STRIP_WG: one work-item
 * per row looks back), walked GPU_STRIP_ROWS at a time: the fastest of 8,
 * 16, 32, 64 on an H200; TILE_ROWS_ENV overrides it (1 .. GPU_STRIP_WG) */
#define GPU_TILE_ROWS 32
#define TILE_ROWS_ENV "GST_CL_INTEGRAL_TILE_ROWS"
/* GPU box mean: box_mean_tile (one launch, no integral image) for radii up
 * to BOX_TILE_MAX_RADIUS (BT_R in integral-gpu-box.cl): work-groups of as many
 * columns (apron included) as the kernel's reqd_work_group_size (BT_WG,
 * read from the compiled kernel) by BOX_TILE_H rows (BT_H); larger radii,
 * a device short of the kernel's work-items or local memory, 4-byte pixels
 * not 4-byte aligned, or BOX_ENV "integral" (tests, comparisons) take the
 * integral image and box_mean */
#define BOX_TILE_MAX_RADIUS 32
#define BOX_TILE_H 16
#define BOX_ENV "GST_CL_INTEGRAL_BOX"
/* GPU strip kernels: sum and squares planes come from one program (PAIR in
 * integral-gpu.cl: three launches and one frame read each, not six); "0" builds
 * one program per plane instead (for comparisons) */
#define PAIR_ENV "GST_CL_INTEGRAL_PAIR"
typedef struct
{
  cl_program program;
  cl_kernel k1;                 /* gpu_lookback_integral or gpu_strip_sums,
                                 * or the CPU's first-frame kernel */
  cl_kernel k2;                 /* gpu_strip_scan (CPU: NULL) */
  cl_kernel k3;                 /* gpu_strip_integral (CPU: NULL) */
  cl_kernel fast;               /* CPU: its kernel once the warm-up compiled it */
  cl_mem accrow;                /* scratch: CPU bands' rows, GPU strip sums
                                 * or look-back status words */
  gint strip_rows;              /* GPU: SH */
  gint tile_rows;               /* GPU one-pass: TH */
  gboolean pair;                /* GPU strips: also the squares plane */
  guint64 offset2;              /* bytes, the squares plane's with pair */
  guint epoch;                  /* the last frame's: GPU one-pass 1..2^30-1,
                                 * CPU 1..255 (the CPU kernels' claims) */
  guint64 offset;               /* bytes, in the output */
} IntegralPlane;

struct _GstClIntegral
{
  GstClBaseFilter parent;

  /* properties, under the object lock */
  GstClIntegralOutput output;
  GstClIntegralFormat format;
  guint planes;
  guint radius;

  /* set_info .. reset, streaming thread */
  gboolean gpu;
  gboolean one_pass;            /* GPU: gpu_lookback_integral */
  gboolean reverse;             /* CPU_ORDER_ENV */
  guint skip;                   /* SKIP_ENV */
  gint width, height, channels;
  guint n_planes;
  IntegralPlane plane[GST_CL_INTEGRAL_MAX_PLANES];
  gsize out_size;
  guint n_bands;
  cl_int16 band_start;          /* CPU: first row of band b, then height */
  gint fast_ready;              /* atomic: every plane's fast kernel compiled */
  gboolean box_mean;
  cl_kernel box_kernel;
  cl_kernel box_tile;           /* GPU: box_mean_tile, NULL: not used */
  gsize box_tile_wg;            /* its work-group: columns of a tile */
  cl_mem box_ii;
  gint box_pstride;             /* bytes per pixel of plane 0 */
  guint box_max_value;          /* CPU: a sample's largest value */
};

/* Tiles of the one-pass GPU kernel */
static inline void
gst_cl_integral_gpu_tiles (GstClIntegral * self, gint tile_rows,
    guint64 * strips, guint64 * blocks)
{
  *strips = ((guint64) self->height + tile_rows - 1) / tile_rows;
  *blocks = ((guint64) self->width + GPU_STRIP_PIXELS - 1) /
      GPU_STRIP_PIXELS;
}

/* gstclintegralsetup.c: GstClBaseFilter's set_info and reset */
gboolean gst_cl_integral_set_info (GstClBaseFilter * base, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info);
void gst_cl_integral_reset (GstClBaseFilter * base);

/* gstclintegralsetup.c: whether the CPU box mean of @radius sums in 32
 * bits (plane 0): every box of the frame, clipped, with its rounding term
 * (sum + area / 2), stays below 2^32 */
gboolean gst_cl_integral_box_fits_32 (GstClIntegral * self, gint radius);

/* gstclintegralwarm.c: queue the first launches of the CPU kernels (every
 * plane's fast kernel) or of the GPU box mean's five kernels on the
 * warm-up worker; live streams wait for them. Always TRUE. */
gboolean gst_cl_integral_warm_cpu_kernels (GstClIntegral * self);
gboolean gst_cl_integral_warm_box_kernels (GstClIntegral * self);

/* gstclintegrallaunch.c: GstClBaseFilter's process */
gboolean gst_cl_integral_process (GstClBaseFilter * base, GstClFrame * in,
    GstClFrame * out);

G_END_DECLS
