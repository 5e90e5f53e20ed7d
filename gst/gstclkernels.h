/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel sources embedded at build time from the kernels folder
 * (see kernels/embed.py). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  const gchar *name;            /* file name, e.g. "histogram.cl" */
  const gchar *source;          /* its text */
} GstClKernelSource;

/* NULL-terminated; generated into gstclkernels.c */
extern const GstClKernelSource gst_cl_kernel_sources[];

G_END_DECLS
