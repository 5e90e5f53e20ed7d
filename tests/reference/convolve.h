/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plain-C reference for clconvolve: the same arithmetic rules as
 * kernels/convolve-*.cl, computed in 64-bit integers or doubles.
 *
 * Integer path (integer coefficients, divisor and bias, sums within 2^29
 * for 16-bit samples): exact, v = round_half_away (n / d + bias).
 * Float path: v = acc / d + bias in double. The device sums in float (and
 * the separable path factors the matrix), so where the exact v lies within
 * `window` of a .5 boundary the device may round the other way: such
 * samples accept +-1. window = 1e-4 + 2.4e-7 * (taps + 8) * sum|c| * max /
 * |d| + 1.2e-7 * |bias| bounds float's accumulated rounding (two roundings
 * of at most half an ulp per tap). 8-bit samples with a float matrix of
 * non-negative coefficients, a positive divisor and no bias go through
 * fixed point on CPU devices: there the window is (2 * taps + 1) / 512 on
 * the 2-D path, ((2 * row taps + 1) * sum / d + 2 * column taps + 1) / 512
 * on the separable one (+ 1e-4). */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef enum
{
  REF_BORDER_CLAMP,
  REF_BORDER_MIRROR,            /* reflect-101 */
  REF_BORDER_WRAP,
  REF_BORDER_CONSTANT,
} RefBorder;

typedef struct
{
  gint width, height;           /* odd */
  const gdouble *coef;          /* row order */
  gdouble divisor;              /* effective, not 0 */
  gdouble bias;
  gboolean absolute;
  RefBorder border;
  gint border_value;
} RefConvolve;

/* the reference's own copy of the element's preset matrices (docs/clconvolve.md) */
enum
{
  REF_PRESET_IDENTITY = 1, REF_PRESET_BOX, REF_PRESET_GAUSSIAN,
  REF_PRESET_SHARPEN, REF_PRESET_LAPLACIAN, REF_PRESET_SOBEL_X,
  REF_PRESET_SOBEL_Y, REF_PRESET_EMBOSS, REF_PRESET_EDGE,
  REF_PRESET_MOTION_BLUR,
};
/* Fills @coef (31*31 room) and the size; returns the number of taps */
gint ref_convolve_preset (gint preset, gdouble sigma, gint radius,
    gdouble * coef, gint * width, gint * height);

/* divisor 0 -> sum of the coefficients, or 1 when that sum is 0 */
gdouble ref_convolve_auto_divisor (const gdouble * coef, gint n);

gboolean ref_convolve_is_integer (const RefConvolve * p);

/* Filters a whole frame into @expected (same info as @in) and fills @tol
 * (one byte per visible sample of every plane, packed) with 1 where +-1 is
 * accepted. YUV chroma planes are filtered when @chroma_filter, else
 * copied; alpha and x bytes are copied. Returns @tol (g_free it). */
guint8 *ref_convolve_frame (const RefConvolve * p, GstBuffer * in,
    const GstVideoInfo * info, GstBuffer * expected, gboolean chroma_filter);

/* Number of visible samples of @out differing from @expected beyond the
 * tolerance (exact where @tol is 0); logs the first few. */
gsize ref_convolve_compare (GstBuffer * out, const GstVideoInfo * out_info,
    GstBuffer * expected, const GstVideoInfo * info, const guint8 * tol,
    const gchar * what);

G_END_DECLS
