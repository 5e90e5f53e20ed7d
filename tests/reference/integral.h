/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plain-C reference for clintegral: integral images in the layout of
 * docs/clintegral.md and box means, straightforward loops with exact 64-bit
 * sums. */
#pragma once

#include <gst/video/video.h>

G_BEGIN_DECLS

/* element types, numbered like the element's "format" property */
typedef enum
{
  REF_INTEGRAL_U32,
  REF_INTEGRAL_U64,
  REF_INTEGRAL_F32,
  REF_INTEGRAL_F64,
} RefIntegralFormat;

/* plane bits, like the element's "planes" flags */
#define REF_INTEGRAL_SUM 1
#define REF_INTEGRAL_SQSUM 2
#define REF_INTEGRAL_COUNT 4

/* 1 for GRAY8/GRAY16_LE/YUV (luma), 3 for the RGB family */
gint ref_integral_channels (GstVideoFormat format);

/* Byte offsets of the present planes (sum, sqsum, count order; each at a
 * multiple of 8 bytes) and the total buffer size */
guint64 ref_integral_layout (gint width, gint height, gint channels,
    RefIntegralFormat format, guint planes, guint64 offsets[3]);
/* element size in bytes of plane bit @plane */
guint ref_integral_elem_size (RefIntegralFormat format, guint plane);

/* Integral image of @frame (luma, or R,G,B) into @out (layout size) */
void ref_integral (const GstVideoFrame * frame, RefIntegralFormat format,
    guint planes, guint8 * out);

/* Box mean of radius @radius: windows clipped at the borders, divided by
 * their area, rounded half up; chroma, alpha and padding bytes of pixels
 * copied. @out is mapped for writing with the same format and size. */
void ref_box_mean (const GstVideoFrame * in, guint radius,
    GstVideoFrame * out);

G_END_DECLS
