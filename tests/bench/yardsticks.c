/* Plain-C yardsticks for clbench (see yardsticks.h). Written for clarity,
 * as a C programmer would first write them: the figure to beat is OpenCV,
 * these show what the straightforward loop costs. */
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

void
ys_histogram (const YsPlane * src, guint32 hist[][256])
{
  gint x, y, c;

  for (c = 0; c < src->nch; c++)
    memset (hist[c], 0, sizeof (hist[c]));
  for (y = 0; y < src->height; y++) {
    const guint8 *row = src->data + (gsize) y * src->stride;

    for (x = 0; x < src->width; x++)
      for (c = 0; c < src->nch; c++)
        hist[c][row[x * src->bpp + c]]++;
  }
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
ys_convolve_2d (const YsPlane * src, YsPlane * dst, const gfloat * k,
    gint kw, gint kh)
{
  gint rx = kw / 2, ry = kh / 2, w = src->width, h = src->height;
  gint *xoff = g_new (gint, w + kw);
  const guint8 **rows = g_new (const guint8 *, kh);
  gint x, y, i, j, c;

  /* clamped byte offsets of columns -rx .. w-1+rx */
  for (x = 0; x < w + kw - 1; x++)
    xoff[x] = clampi (x - rx, 0, w - 1) * src->bpp;

  for (y = 0; y < h; y++) {
    guint8 *out = dst->data + (gsize) y * dst->stride;

    for (j = 0; j < kh; j++)
      rows[j] = src->data + (gsize) clampi (y + j - ry, 0, h - 1) * src->stride;
    for (x = 0; x < w; x++) {
      for (c = 0; c < src->nch; c++) {
        gfloat acc = 0.f;

        for (j = 0; j < kh; j++) {
          const guint8 *r = rows[j] + c;
          const gfloat *kr = k + j * kw;

          for (i = 0; i < kw; i++)
            acc += kr[i] * r[xoff[x + i]];
        }
        out[x * src->bpp + c] = sat_u8 (acc);
      }
    }
    if (src->bpp > src->nch)
      copy_alpha_row (src, dst, y);
  }
  g_free (xoff);
  g_free (rows);
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

void
ys_integral (const YsPlane * src, guint32 * sum, guint64 * sq)
{
  gint w = src->width, h = src->height, nch = src->nch;
  gsize pitch = (gsize) (w + 1) * nch;
  gint x, y, c;

  memset (sum, 0, pitch * sizeof (guint32));
  if (sq)
    memset (sq, 0, pitch * sizeof (guint64));
  for (y = 0; y < h; y++) {
    const guint8 *row = src->data + (gsize) y * src->stride;
    guint32 *s = sum + (y + 1) * pitch, *above = sum + y * pitch;
    guint32 acc[4] = { 0 };

    for (c = 0; c < nch; c++)
      s[c] = 0;
    for (x = 0; x < w; x++)
      for (c = 0; c < nch; c++) {
        acc[c] += row[x * src->bpp + c];
        s[(x + 1) * nch + c] = above[(x + 1) * nch + c] + acc[c];
      }
    if (sq) {
      guint64 *q = sq + (y + 1) * pitch, *qa = sq + y * pitch;
      guint64 qacc[4] = { 0 };

      for (c = 0; c < nch; c++)
        q[c] = 0;
      for (x = 0; x < w; x++)
        for (c = 0; c < nch; c++) {
          guint v = row[x * src->bpp + c];

          qacc[c] += v * v;
          q[(x + 1) * nch + c] = qa[(x + 1) * nch + c] + qacc[c];
        }
    }
  }
}

void
ys_box_mean (const YsPlane * src, YsPlane * dst, gint r, guint32 * sum)
{
  gint w = src->width, h = src->height, nch = src->nch;
  gsize pitch = (gsize) (w + 1) * nch;
  gint x, y, c;

  ys_integral (src, sum, NULL);
  for (y = 0; y < h; y++) {
    gint y0 = MAX (y - r, 0), y1 = MIN (y + r + 1, h);
    guint8 *out = dst->data + (gsize) y * dst->stride;

    for (x = 0; x < w; x++) {
      gint x0 = MAX (x - r, 0), x1 = MIN (x + r + 1, w);
      guint area = (guint) ((x1 - x0) * (y1 - y0));

      for (c = 0; c < nch; c++) {
        /* modular arithmetic: exact while the box sum fits in 32 bits */
        guint32 s = sum[y1 * pitch + x1 * nch + c] - sum[y0 * pitch + x1 * nch
            + c] - sum[y1 * pitch + x0 * nch + c] + sum[y0 * pitch + x0 * nch
            + c];

        out[x * src->bpp + c] = (guint8) ((s + area / 2) / area);
      }
    }
    if (src->bpp > nch)
      copy_alpha_row (src, dst, y);
  }
}
