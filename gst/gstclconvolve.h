#pragma once

#include "gstclbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_CONVOLVE (gst_cl_convolve_get_type ())
G_DECLARE_FINAL_TYPE (GstClConvolve, gst_cl_convolve, GST, CL_CONVOLVE, GstClBaseFilter);

G_END_DECLS
