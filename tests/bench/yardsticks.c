/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clbench's one plain-C loop of its own (see yardsticks.h): the separable
 * convolution, which tests/reference/ has no counterpart for. */
#include <math.h>
#include <string.h>

#include "yardsticks.h"

static inline gint
clampi (gint v, gint lo, gint hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

static inline guint8
sat_u8 (gfloat v)
{
  gint i = (gint) lrintf (v);
  return (guint8) clampi (i, 0, 255);
}

static void
copy_alpha_row (const YsPlane * src, YsPlane * dst, gint y)
{
  const guint8 *s = src->data + (gsize) y * src->stride;
  guint8 *d = dst->data + (gsize) y * dst->stride;
  gint x, c;

  for (x = 0; x < src->width; x++)
    for (c = src->nch; c < src->bpp; c++)
      d[x * src->bpp + c] = s[x * src->bpp + c];
}

void
ys_convolve_sep (const YsPlane * src, YsPlane * dst, const gfloat * kx,
    const gfloat * ky, gint r, gfloat * scratch)
{
  gint w = src->width, h = src->height, n = 2 * r + 1, nch = src->nch;
  gint *xoff = g_new (gint, w + n);
  gint x, y, i, c;

  for (x = 0; x < w + n - 1; x++)
    xoff[x] = clampi (x - r, 0, w - 1) * src->bpp;

  /* rows -> scratch */
  for (y = 0; y < h; y++) {
    const guint8 *row = src->data + (gsize) y * src->stride;
    gfloat *t = scratch + (gsize) y * w * nch;

    for (x = 0; x < w; x++)
      for (c = 0; c < nch; c++) {
        gfloat acc = 0.f;

        for (i = 0; i < n; i++)
          acc += kx[i] * row[xoff[x + i] + c];
        t[x * nch + c] = acc;
      }
  }
  /* columns -> dst */
  for (y = 0; y < h; y++) {
    guint8 *out = dst->data + (gsize) y * dst->stride;

    for (x = 0; x < w * nch; x++) {
      gfloat acc = 0.f;

      for (i = 0; i < n; i++)
        acc += ky[i] * scratch[(gsize) clampi (y + i - r, 0, h - 1) * w * nch
            + x];
      out[(x / nch) * src->bpp + x % nch] = sat_u8 (acc);
    }
    if (src->bpp > nch)
      copy_alpha_row (src, dst, y);
  }
  g_free (xoff);
}
