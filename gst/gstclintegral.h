#pragma once

#include "gstclbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_INTEGRAL (gst_cl_integral_get_type ())
G_DECLARE_FINAL_TYPE (GstClIntegral, gst_cl_integral, GST, CL_INTEGRAL, GstClBaseFilter);

G_END_DECLS
