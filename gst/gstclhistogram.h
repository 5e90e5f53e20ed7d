#pragma once

#include "gstclbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_HISTOGRAM (gst_cl_histogram_get_type ())
G_DECLARE_FINAL_TYPE (GstClHistogram, gst_cl_histogram, GST, CL_HISTOGRAM, GstClBaseFilter);

G_END_DECLS
