/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's overlay box blended into a frame on the host with vector
 * code, 16 bytes per step: a few loads, multiplies and masks per step
 * instead of a branch per pixel. */
#pragma once

#include <gst/video/video.h>

#include "gstclhistogramoverlay.h"

G_BEGIN_DECLS

/* One component's samples in the box: @bg[v] the background over value v
 * (alpha @a, overlay value @bg_o), @bar[m] the opaque sample of class m
 * (8-bit, or 16-bit for 16-bit components) */
typedef struct
{
  guint8 bg[256];
  guint16 bar[GST_CL_HISTOGRAM_OVERLAY_CLASSES];
  guint bg_o, a;
} GstClHistogramComp;

/* Blends the classes @cls (@rect[2] x @rect[3] bytes, row-major, 0 for the
 * background, below @n_cls) of the visible box @rect (x, y, w, h in luma
 * pixels) into @f with the tables @t of its components: each sample takes
 * the class of its first pixel in the box. FALSE, with @f untouched, for
 * layouts it does not take (samples deeper than 8 bits, groups of 3 bytes,
 * a compiler without vector extensions). */
gboolean gst_cl_histogram_rows_blend (GstVideoFrame * f, const gint rect[4],
    const guint8 * cls, guint n_cls, const GstClHistogramComp * t);

G_END_DECLS
