/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clintegral's integral-image caps (video/x-integral-image): the buffer
 * layout of each format and set of planes, parsing, and the caps
 * transform between raw video and integral images. No OpenCL here. See
 * docs/clintegral.md for the layout. */
#pragma once

#include <gst/gst.h>

#include "gstclintegral.h"

G_BEGIN_DECLS

/* sum, squares, count */
#define GST_CL_INTEGRAL_MAX_PLANES 3

gboolean gst_cl_integral_layout (gint width, gint height, gint channels,
    GstClIntegralFormat f, guint planes,
    guint64 offsets[GST_CL_INTEGRAL_MAX_PLANES], guint64 * total);
gboolean gst_cl_integral_parse_caps (GstCaps * caps, gint * width,
    gint * height, gint * channels, GstClIntegralFormat * format,
    guint * planes);
gboolean gst_cl_integral_format_is_float (GstClIntegralFormat f);
gboolean gst_cl_integral_is_rgb_format (const gchar * format);
gboolean gst_cl_integral_is_gray_format (const gchar * format);
const gchar *gst_cl_integral_format_name (GstClIntegralFormat format);
const gchar *gst_cl_integral_planes_name (guint planes);
GstCaps *gst_cl_integral_caps_transform (GstPadDirection direction,
    GstCaps * caps, gboolean integral, GstClIntegralFormat format,
    guint planes);

G_END_DECLS
