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

/* Blends @boxes, in order, into @frame (of @info, mapped with
 * gst_cl_base_filter_map_in_place()) and, for host memory, reads the
 * boxes' rectangles back into it, waiting for them. FALSE with the error
 * posted on failure. */
gboolean gst_cl_histogram_blend_boxes (GstClHistogramBlend * blend,
    GstClFrame * frame, const GstVideoInfo * info,
    const GstClHistogramOverlayBox * boxes, guint n_boxes);

G_END_DECLS
