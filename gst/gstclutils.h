/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small OpenCL helpers shared by the runtime and the elements. */
#pragma once

#include <gst/gst.h>
#include <CL/cl.h>

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cl_debug);

/* "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR" for codes we don't know */
const gchar *gst_cl_error_name (cl_int err);

/* Logs "OpenCL error CL_X (-n) during call: clY" with the caller's file and
 * line when err != CL_SUCCESS; returns err == CL_SUCCESS. */
gboolean _gst_cl_check (cl_int err, const gchar * call, const gchar * file,
    const gchar * func, gint line);
#define gst_cl_check(err, call) \
  _gst_cl_check ((err), (call), __FILE__, G_STRFUNC, __LINE__)

/* Sets @error (domain/code given) to "<what>: OpenCL error CL_X (-n) during call: clY" */
void gst_cl_set_error (GError ** error, GQuark domain, gint code, cl_int err,
    const gchar * call, const gchar * what);

static inline gsize
gst_cl_round_up (gsize value, gsize multiple)
{
  return multiple ? ((value + multiple - 1) / multiple) * multiple : value;
}

G_END_DECLS
