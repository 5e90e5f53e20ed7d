/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_INTEGRAL (gst_cl_integral_get_type ())
G_DECLARE_FINAL_TYPE (GstClIntegral, gst_cl_integral, GST, CL_INTEGRAL, GstClBaseFilter);

/* media type of the `output=integral` source pad; see docs/clintegral.md */
#define GST_CL_INTEGRAL_MEDIA_TYPE "video/x-integral-image"

typedef enum
{
  GST_CL_INTEGRAL_OUTPUT_INTEGRAL,
  GST_CL_INTEGRAL_OUTPUT_BOX_MEAN,
} GstClIntegralOutput;

typedef enum
{
  GST_CL_INTEGRAL_FORMAT_U32,
  GST_CL_INTEGRAL_FORMAT_U64,
  GST_CL_INTEGRAL_FORMAT_F32,
  GST_CL_INTEGRAL_FORMAT_F64,
} GstClIntegralFormat;

typedef enum
{
  GST_CL_INTEGRAL_PLANES_SUM = (1 << 0),
  GST_CL_INTEGRAL_PLANES_SQSUM = (1 << 1),
  GST_CL_INTEGRAL_PLANES_COUNT = (1 << 2),
} GstClIntegralPlanes;

G_END_DECLS
