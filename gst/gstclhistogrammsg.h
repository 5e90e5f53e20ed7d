/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Builds clhistogram's "histogram" message structure from accumulated
 * full-resolution counts (private to the element). */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* How the counts are carried: see the message-counts property */
typedef enum
{
  GST_CL_HISTOGRAM_COUNTS_ARRAY,
  GST_CL_HISTOGRAM_COUNTS_BYTES,
  GST_CL_HISTOGRAM_COUNTS_NONE,
} GstClHistogramMessageCounts;

GType gst_cl_histogram_message_counts_get_type (void);

typedef struct
{
  GstClockTime timestamp, stream_time, running_time, duration;
  gint width, height;           /* frame size */
  gint roi_x, roi_y, roi_width, roi_height;     /* region used, clipped */
  guint64 frames, pixels;
  guint bins;                   /* user bins, <= range */
  guint range;                  /* 256 or 65536 */
  guint n_channels;
  const gchar *const *names;    /* n_channels */
  const guint64 *counts;        /* n_channels * range, one count per value */
  GstClHistogramMessageCounts counts_mode;
} GstClHistogramResult;

GstStructure *gst_cl_histogram_make_structure (const GstClHistogramResult * r);

G_END_DECLS
