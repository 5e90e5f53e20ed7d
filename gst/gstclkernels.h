/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel sources embedded at build time from the kernels folder
 * (see kernels/embed.py). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One program: the text of its part files joined (kernels/embed.py) */
typedef struct
{
  const gchar *name;            /* program name, e.g. "integral.cl" */
  const gchar *const *parts;    /* its part files in order, NULL-terminated */
  const gchar *source;          /* the joined text */
} GstClKernelSource;

/* NULL-terminated; generated into gstclkernels.c */
extern const GstClKernelSource gst_cl_kernel_sources[];

G_END_DECLS
