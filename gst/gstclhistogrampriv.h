/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's insides, shared by gstclhistogram.c (the element:
 * properties, caps, set-up, events and queries), gstclhistogramframe.c (per
 * frame: counting, intervals and messages, the meta, the overlay) and
 * gstclhistogrampass.c (the kernel launches that count a frame: their
 * programs, warm-up and enqueueing). Not installed. */
#pragma once

#include "gstclhistogram.h"
#include "gstclhistogrammsg.h"
#include "gstclhistogramoverlay.h"
#include "gstclhistogramblend.h"
#include "gstclwait.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cl_histogram_debug);
#define GST_CAT_DEFAULT gst_cl_histogram_debug

/* "cpu" or "gpu" forces a kernel variant whatever the device (tests run the
 * GPU kernels on PoCL this way) */
#define VARIANT_ENV "GST_CL_HISTOGRAM_VARIANT"
/* CPU devices: "only" (tests): every frame runs hist_cpu_first; "off":
 * none does (caps wait for hist_cpu's compile, as a live stream's do) */
#define FIRST_ENV "GST_CL_HISTOGRAM_FIRST"
/* GPU: 16-byte chunks per work-item at least (fewer, fuller work-groups:
 * each costs a clear and a merge) and chunks loaded together (BATCH in
 * histogram.cl). 8 and 8 were the fastest of 2/2, 4/1, 4/4, 8/8 on an H200
 * (docs/performance.md); the environment overrides them for benchmarks */
#define GPU_CHUNKS_PER_ITEM 8
#define GPU_CHUNKS_ENV "GST_CL_HISTOGRAM_CHUNKS"
#define GPU_BATCH 8
#define GPU_BATCH_ENV "GST_CL_HISTOGRAM_BATCH"

#define N_CHANNEL_KINDS 7
#define MAX_PASS_OUT 5

/* one kernel launch: channels sharing a plane, pixel stride and subsampling */
typedef struct
{
  guint plane, pstride, wsub, hsub;
  guint first;                  /* first channel (index into the result) */
  guint n_out;
  gint src[MAX_PASS_OUT];       /* byte offset in the pixel, -1 = luma of RGB */
  gsize wg;                     /* GPU work-group size built for */
  guint chunks;                 /* GPU: chunks per work-item at least */
  gint nbands;                  /* CPU bands of the last frame */
  cl_kernel hist, merge;
  cl_kernel hist_first;         /* CPU: until the worker compiled @hist */
} Pass;

struct _GstClHistogram
{
  GstClBaseFilter parent;

  /* properties, under the object lock */
  guint channels;
  guint bins;
  gint roi_x, roi_y, roi_width, roi_height;
  gboolean post_messages;
  guint64 interval;
  gboolean attach_meta;
  GstClHistogramMessageCounts message_counts;
  GstClHistogramOverlaySettings overlay_set;

  GstClHistogramOverlay *overlay;
  gint downstream_composition;  /* atomic: downstream takes the meta */
  GstClHistogramBlend *blend;   /* the overlay blended on the device, or NULL */
  GstClFrame draw_frame;        /* mapped in place while a frame is drawn there */
  gboolean draw_mapped;
  /* set while counting a frame whose graph the device draws from its
   * counts, in the same queue run as the histogram (one wait) */
  const GstClHistogramOverlaySettings *draw_with;
  guint draw_bins, draw_counts_at;
  gboolean drawn;               /* the frame's overlay is drawn already */

  /* from set_info (streaming thread) */
  gboolean configured;
  gboolean gpu;
  gboolean host_merge;          /* CPU 8-bit: bands summed on the host */
  guint range;
  guint n_channels;
  const gchar *names[N_CHANNEL_KINDS];
  Pass passes[N_CHANNEL_KINDS];
  guint n_passes;
  gsize max_bands;
  gsize max_items;              /* GPU: work-items in flight at most */
  gint hist_ready;              /* atomic: hist_cpu compiled, frames take it */
  cl_mem result, partial;
  guint half;                   /* GPU: the half of @result this frame uses */
  gboolean result_dirty;        /* GPU: a frame failed; zero both halves */
  guint32 *host;                /* n_channels * range, read back per frame */
  GstClWaiter waiter;           /* for the counts' read */
  guint64 *accum;               /* n_channels * range, over an interval */
  guint64 *single;              /* n_channels * range, an unstamped frame's */
  gboolean roi_warned;

  /* interval state (streaming thread) */
  guint64 frames, pixels;
  GstClockTime start_ts, end_ts;
  GstClockTime prev_ts;         /* PTS of the last stamped frame */
  gint last_roi[4];
  gint frame_roi[4];            /* region of the frame being counted */
  guint last_bins;              /* bins of the last frame counted */
};

#define HIST_WHAT "Could not compute the histogram"
/* CPU devices: the fewest pixels worth a band of its own */
#define MIN_BAND_PIXELS 16384

/* gstclhistogramframe.c */
gboolean gst_cl_histogram_process (GstClBaseFilter * filter,
    GstClFrame * frame, GstClFrame * out);
GstFlowReturn gst_cl_histogram_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);
void gst_cl_histogram_post_message (GstClHistogram * self);

/* gstclhistogrampass.c */
guint gst_cl_histogram_gpu_tuning (const gchar * env, guint def);
gboolean gst_cl_histogram_build_pass (GstClHistogram * self, Pass * pass,
    gboolean depth16, gboolean bt709, const GstVideoInfo * info);
void gst_cl_histogram_start_warm_up (GstClHistogram * self);
gboolean gst_cl_histogram_enqueue_pass (GstClHistogram * self, Pass * pass,
    GstClFrame * frame, const gint * roi);
gsize gst_cl_histogram_used_partial_bytes (GstClHistogram * self);

G_END_DECLS
