/* Plain-C yardsticks for clbench: straightforward single-threaded loops
 * (no SIMD intrinsics, no threads), compiled with the project's flags. They
 * are what "the same job in plain C on one core" costs, not a tuned CPU
 * library: OpenCV is the tuned yardstick. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One 8-bit plane: @nch channels processed out of @bpp interleaved bytes
 * per pixel (RGBA: bpp 4, nch 3, alpha copied; gray/luma: 1, 1). */
typedef struct
{
  gint width, height, stride, bpp, nch;
  guint8 *data;
} YsPlane;

void ys_histogram (const YsPlane * src, guint32 hist[][256]);

/* 2-D correlation with a kw x kh float kernel (already divided), clamp
 * borders, round to nearest, saturate; alpha (when bpp > nch) copied. */
void ys_convolve_2d (const YsPlane * src, YsPlane * dst, const gfloat * k,
    gint kw, gint kh);

/* Two 1-D passes (kx along rows, ky along columns, both 2r+1 taps) through
 * a float scratch of width * height * nch. Clamp borders. */
void ys_convolve_sep (const YsPlane * src, YsPlane * dst, const gfloat * kx,
    const gfloat * ky, gint r, gfloat * scratch);

/* (W+1) x (H+1) x nch summed-area table, zero first row and column,
 * U32 wrapping; @sq (may be NULL) gets the U64 sums of squares. */
void ys_integral (const YsPlane * src, guint32 * sum, guint64 * sq);

/* Mean of the (2r+1)^2 window clipped at the borders, from an integral
 * image @sum computed here (scratch of (W+1)*(H+1)*nch). */
void ys_box_mean (const YsPlane * src, YsPlane * dst, gint r, guint32 * sum);

G_END_DECLS
