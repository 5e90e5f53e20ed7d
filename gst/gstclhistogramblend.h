/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's overlay blended on the OpenCL device (GPUs): the boxes of
 * gst_cl_histogram_overlay_draw_boxes() go into the frame's device copy,
 * which is already there for the histogram; frames in system memory get
 * only the boxes' rectangles back, frames in memory:OpenCL nothing. */
#pragma once

#include "gstclbasefilter.h"
#include "gstclhistogramoverlay.h"

G_BEGIN_DECLS

typedef struct _GstClHistogramBlend GstClHistogramBlend;

/* Builds the kernel for @filter's context (at caps time); NULL with the
 * error posted on failure. @filter is not referenced. */
GstClHistogramBlend *gst_cl_histogram_blend_new (GstClBaseFilter * filter);
void gst_cl_histogram_blend_free (GstClHistogramBlend * blend);

/* Whether the device computes the graph's bar heights from the counts
 * (it has doubles), so that a frame needs one wait */
gboolean gst_cl_histogram_blend_counts_heights (GstClHistogramBlend * blend);

/* Enqueues the blend of @boxes, in order, into @frame (of @info, mapped
 * with gst_cl_base_filter_map_in_place()) and, for host memory, the reads
 * of the boxes' rectangles (straight into @frame when its memory is our
 * pool's pinned memory). A graph without heights takes them from the
 * frame's counts: @n channels of range uints from uint @counts_at of
 * @counts (the histogram's result; enqueued before on the same queue).
 * FALSE with the error posted on failure. */
gboolean gst_cl_histogram_blend_boxes (GstClHistogramBlend * blend,
    GstClFrame * frame, const GstVideoInfo * info,
    const GstClHistogramOverlayBox * boxes, guint n_boxes, cl_mem counts,
    guint counts_at);
/* Copies the rectangles read back into @frame, after waiting for them
 * unless the caller @waited for the queue since (a blocking read). */
gboolean gst_cl_histogram_blend_finish (GstClHistogramBlend * blend,
    GstClFrame * frame, const GstVideoInfo * info, gboolean waited);

G_END_DECLS
