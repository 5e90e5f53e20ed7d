/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clbench's own plain-C yardstick, kept only where tests/reference/ has no
 * counterpart: a separable convolution (two 1-D passes). Every other plain-C
 * row of clbench runs the references the tests compare against. A
 * straightforward single-threaded loop, not a tuned library (OpenCV is). */
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

/* Two 1-D passes (kx along rows, ky along columns, both 2r+1 taps) through
 * a float scratch of width * height * nch. Clamp borders. */
void ys_convolve_sep (const YsPlane * src, YsPlane * dst, const gfloat * kx,
    const gfloat * ky, gint r, gfloat * scratch);

G_END_DECLS
