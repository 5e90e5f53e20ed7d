/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram: per-frame histograms on an OpenCL device, posted as
 * "histogram" element messages; frames pass through untouched. */
#pragma once

#include "gstclbasefilter.h"

G_BEGIN_DECLS

/* values of the "channels" property (GstClHistogramChannels flags); the
 * order of the bits is the order of the channels in messages */
typedef enum
{
  GST_CL_HISTOGRAM_RED = 1 << 0,
  GST_CL_HISTOGRAM_GREEN = 1 << 1,
  GST_CL_HISTOGRAM_BLUE = 1 << 2,
  GST_CL_HISTOGRAM_LUMA = 1 << 3,
  GST_CL_HISTOGRAM_U = 1 << 4,
  GST_CL_HISTOGRAM_V = 1 << 5,
  GST_CL_HISTOGRAM_ALPHA = 1 << 6,
} GstClHistogramChannel;

#define GST_TYPE_CL_HISTOGRAM (gst_cl_histogram_get_type ())
G_DECLARE_FINAL_TYPE (GstClHistogram, gst_cl_histogram, GST, CL_HISTOGRAM,
    GstClBaseFilter);

G_END_DECLS
