/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvolve: 2-D convolution of video frames on OpenCL. */
#pragma once

#include "gstclbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_CONVOLVE (gst_cl_convolve_get_type ())
G_DECLARE_FINAL_TYPE (GstClConvolve, gst_cl_convolve, GST, CL_CONVOLVE,
    GstClBaseFilter);

/* Test/benchmark hooks, read at caps time:
 * GST_CL_CONVOLVE_VARIANT=cpu|gpu forces the kernel variant;
 * GST_CL_CONVOLVE_SEPARABLE=0 forces the 2-D path for separable matrices,
 * =1 the two-pass path at every size (default: always on CPU devices, from
 * 13x13 on GPUs). */
#define GST_CL_CONVOLVE_VARIANT_ENV "GST_CL_CONVOLVE_VARIANT"
#define GST_CL_CONVOLVE_SEPARABLE_ENV "GST_CL_CONVOLVE_SEPARABLE"

G_END_DECLS
