/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClHistogramMeta: the frame's "histogram" structure on the buffer, as a
 * GstCustomMeta (readable from C with gst_buffer_get_custom_meta () and from
 * Python with buf.get_custom_meta ("GstClHistogramMeta")). */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_CL_HISTOGRAM_META_NAME "GstClHistogramMeta"

/* Registers the meta (once); call from class_init */
void gst_cl_histogram_meta_register (void);

/* Attaches a copy of @s (a "histogram" structure) to @buf, which must be
 * writable; replaces a GstClHistogramMeta already there. */
void gst_cl_histogram_meta_attach (GstBuffer * buf, const GstStructure * s);

G_END_DECLS
