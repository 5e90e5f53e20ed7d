/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plain-C reference for clconvolve (rules in convolve.h). */
#include "convolve.h"

#include <math.h>
#include <string.h>

static const gdouble motion_blur[49] = {
  0, 0, 0, 0, 0, 0.0145, 0,
  0, 0, 0, 0, 0.0376, 0.1283, 0.0145,
  0, 0, 0, 0.0376, 0.1283, 0.0376, 0,
  0, 0, 0.0376, 0.1283, 0.0376, 0, 0,
  0, 0.0376, 0.1283, 0.0376, 0, 0, 0,
  0.0145, 0.1283, 0.0376, 0, 0, 0, 0,
  0, 0.0145, 0, 0, 0, 0, 0,
};

gint
ref_convolve_preset (gint preset, gdouble sigma, gint radius, gdouble * coef,
    gint * width, gint * height)
{
  static const gdouble m3[][9] = {
    {0, -1, 0, -1, 5, -1, 0, -1, 0},    /* sharpen */
    {0, 1, 0, 1, -4, 1, 0, 1, 0},       /* laplacian */
    {-1, 0, 1, -2, 0, 2, -1, 0, 1},     /* sobel-x */
    {-1, -2, -1, 0, 0, 0, 1, 2, 1},     /* sobel-y */
    {-2, -1, 0, -1, 1, 1, 0, 1, 2},     /* emboss */
    {-1, -1, -1, -1, 8, -1, -1, -1, -1},        /* edge */
  };
  gint n, i, j, r;

  switch (preset) {
    case REF_PRESET_IDENTITY:
      coef[0] = 1;
      n = 1;
      break;
    case REF_PRESET_BOX:
      n = 2 * (radius ? radius : 1) + 1;
      for (i = 0; i < n * n; i++)
        coef[i] = 1;
      break;
    case REF_PRESET_GAUSSIAN:{
      gdouble g[31], sum = 0;
      r = radius ? radius : (gint) ceil (3 * sigma);
      r = CLAMP (r, 1, 15);
      n = 2 * r + 1;
      for (i = 0; i < n; i++)
        sum += g[i] = exp (-(i - r) * (i - r) / (2 * sigma * sigma));
      for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
          coef[i * n + j] = (g[i] / sum) * (g[j] / sum);
      break;
    }
    case REF_PRESET_MOTION_BLUR:
      memcpy (coef, motion_blur, sizeof (motion_blur));
      n = 7;
      break;
    default:
      g_assert (preset >= REF_PRESET_SHARPEN && preset <= REF_PRESET_EDGE);
      memcpy (coef, m3[preset - REF_PRESET_SHARPEN], sizeof (m3[0]));
      n = 3;
      break;
  }
  *width = *height = n;
  return n * n;
}

gdouble
ref_convolve_auto_divisor (const gdouble * coef, gint n)
{
  gdouble sum = 0, abssum = 0;
  gint i;

  for (i = 0; i < n; i++) {
    sum += coef[i];
    abssum += fabs (coef[i]);
  }
  return fabs (sum) <= 1e-9 * abssum ? 1 : sum;
}

static gboolean
is_int (gdouble v)
{
  return v == floor (v) && fabs (v) < (1 << 29);
}

gboolean
ref_convolve_is_integer (const RefConvolve * p)
{
  gdouble abssum = 0;
  gint i;

  for (i = 0; i < p->width * p->height; i++) {
    if (!is_int (p->coef[i]))
      return FALSE;
    abssum += fabs (p->coef[i]);
  }
  return is_int (p->divisor) && is_int (p->bias) &&
      abssum * 65535 + fabs (p->bias * p->divisor) < (1 << 29);
}

static gint
map_index (RefBorder border, gint i, gint n)
{
  switch (border) {
    case REF_BORDER_CLAMP:
      return CLAMP (i, 0, n - 1);
    case REF_BORDER_MIRROR:
      /* reflect step by step: independent of the kernel's closed form */
      if (n == 1)
        return 0;
      while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * (n - 1) - i;
      return i;
    case REF_BORDER_WRAP:
      while (i < 0)
        i += n;
      return i % n;
    default:
      return (i < 0 || i >= n) ? -1 : i;
  }
}

typedef struct
{
  const guint8 *src;
  gint sstride;
  guint8 *dst;
  gint dstride;
  guint8 *tol;                  /* packed: width * ch per row */
  gint width, height, ch, bps, alpha_pos;
} Plane;

static guint
get_sample (const Plane * pl, gint x, gint y, gint c)
{
  const guint8 *p = pl->src + (gsize) y * pl->sstride +
      ((gsize) x * pl->ch + c) * pl->bps;
  return pl->bps == 2 ? p[0] | (p[1] << 8) : p[0];
}

static void
put_sample (const Plane * pl, gint x, gint y, gint c, guint v)
{
  guint8 *p = pl->dst + (gsize) y * pl->dstride +
      ((gsize) x * pl->ch + c) * pl->bps;
  p[0] = v & 0xff;
  if (pl->bps == 2)
    p[1] = v >> 8;
}

/* The window of the element's fixed point (8-bit samples, float matrices of
 * non-negative coefficients, positive divisor, no bias; CPU devices): each pass
 * of n taps is off by at most (2n + 1) / 512, and a separable matrix's row pass
 * error is scaled by the column pass's sum (see kernels/convolve-cpu-fixed.cl).
 * Separable is decided as the element does: rank 1 within 1e-9 of the largest
 * coefficient. 0 where fixed point is not used. */
static gdouble
fixed_window (const RefConvolve * p, gint maxv)
{
  gint kw = p->width, kh = p->height, i, j, r0 = 0, c0 = 0, nrow = 0, ncol = 0;
  gint ntaps = 0;
  gdouble max = 0, sum = 0;
  gboolean separable = kw > 1 && kh > 1;

  if (maxv != 255 || ref_convolve_is_integer (p) || p->divisor <= 0 ||
      p->bias != 0)
    return 0;
  for (i = 0; i < kw * kh; i++) {
    if (p->coef[i] < 0)
      return 0;
    sum += p->coef[i];
    ntaps += p->coef[i] != 0;
    if (p->coef[i] > max) {
      max = p->coef[i];
      r0 = i / kw;
      c0 = i % kw;
    }
  }
  for (i = 0; i < kh && separable; i++)
    for (j = 0; j < kw; j++)
      if (fabs (p->coef[i * kw + c0] / max * p->coef[r0 * kw + j] -
              p->coef[i * kw + j]) > 1e-9 * max)
        separable = FALSE;
  if (!separable)
    return 1e-4 + (2.0 * ntaps + 1) / 512;
  for (j = 0; j < kw; j++)
    nrow += p->coef[r0 * kw + j] != 0;
  for (i = 0; i < kh; i++)
    ncol += p->coef[i * kw + c0] != 0;
  return 1e-4 + ((2.0 * nrow + 1) * sum / p->divisor + 2.0 * ncol + 1) / 512;
}

static void
convolve_plane (const RefConvolve * p, const Plane * pl, gboolean filter)
{
  gint kw = p->width, kh = p->height, rx = kw / 2, ry = kh / 2;
  gint maxv = pl->bps == 2 ? 65535 : 255;
  gboolean integer = ref_convolve_is_integer (p);
  gdouble abssum = 0, window;
  gint ntaps = 0, x, y, c, i, j;

  for (i = 0; i < kw * kh; i++) {
    abssum += fabs (p->coef[i]);
    ntaps += p->coef[i] != 0;
  }
  window = 1e-4 + 2.4e-7 * (ntaps + 8) * abssum * maxv / fabs (p->divisor) +
      1.2e-7 * fabs (p->bias);
  window = MAX (window, fixed_window (p, maxv));

  for (y = 0; y < pl->height; y++) {
    for (x = 0; x < pl->width; x++) {
      for (c = 0; c < pl->ch; c++) {
        guint8 *tol = &pl->tol[((gsize) y * pl->width + x) * pl->ch + c];
        gint64 iacc = 0;
        gdouble facc = 0;
        gint64 out;

        *tol = 0;
        if (!filter || c == pl->alpha_pos) {
          put_sample (pl, x, y, c, get_sample (pl, x, y, c));
          continue;
        }
        for (i = 0; i < kh; i++) {
          for (j = 0; j < kw; j++) {
            gdouble k = p->coef[i * kw + j];
            gint mx = map_index (p->border, x + j - rx, pl->width);
            gint my = map_index (p->border, y + i - ry, pl->height);
            guint v = (mx < 0 || my < 0) ? (guint) p->border_value :
                get_sample (pl, mx, my, c);
            if (integer)
              iacc += (gint64) k * v;
            else
              facc += k * v;
          }
        }
        if (integer) {
          gint64 d = (gint64) fabs (p->divisor);
          gint64 n = p->divisor < 0 ? -iacc : iacc;
          gint64 q;
          if (p->absolute && n < 0)
            n = -n;
          n += (gint64) p->bias * d;
          q = (2 * (n < 0 ? -n : n) + d) / (2 * d);
          out = n < 0 ? -q : q;
        } else {
          gdouble v = facc / p->divisor, f;
          if (p->absolute)
            v = fabs (v);
          v += p->bias;
          out = (gint64) round (v);
          f = v - floor (v);
          *tol = fabs (f - 0.5) < window;
        }
        put_sample (pl, x, y, c, CLAMP (out, 0, maxv));
      }
    }
  }
}

/* channels per pixel of plane @plane and the channel copied (alpha/x) */
static void
plane_layout (const GstVideoInfo * info, guint plane, gint * ch, gint * bps,
    gint * alpha_pos, gboolean * is_luma)
{
  const GstVideoFormatInfo *f = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gint pstride;

  gst_video_format_info_component (f, plane, comp);
  *bps = GST_VIDEO_FORMAT_INFO_DEPTH (f, comp[0]) > 8 ? 2 : 1;
  pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, comp[0]);
  *ch = pstride / *bps;
  *is_luma = comp[0] == 0;
  *alpha_pos = -1;
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (f) && *ch == 4) {
    if (GST_VIDEO_FORMAT_INFO_HAS_ALPHA (f))
      *alpha_pos = GST_VIDEO_FORMAT_INFO_POFFSET (f, GST_VIDEO_COMP_A);
    else
      *alpha_pos = 6 - GST_VIDEO_FORMAT_INFO_POFFSET (f, 0) -
          GST_VIDEO_FORMAT_INFO_POFFSET (f, 1) -
          GST_VIDEO_FORMAT_INFO_POFFSET (f, 2);
  }
}

guint8 *
ref_convolve_frame (const RefConvolve * p, GstBuffer * in,
    const GstVideoInfo * info, GstBuffer * expected, gboolean chroma_filter)
{
  GstVideoFrame fi, fo;
  gsize total = 0, off = 0;
  guint8 *tol;
  guint plane;

  for (plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS], ch, bps, apos;
    gboolean luma;
    plane_layout (info, plane, &ch, &bps, &apos, &luma);
    gst_video_format_info_component (info->finfo, plane, comp);
    total += (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]) * ch;
  }
  tol = g_malloc0 (MAX (total, 1));

  g_assert_true (gst_video_frame_map (&fi, (GstVideoInfo *) info, in,
          GST_MAP_READ));
  g_assert_true (gst_video_frame_map (&fo, (GstVideoInfo *) info, expected,
          GST_MAP_WRITE));
  for (plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gboolean luma;
    Plane pl;

    plane_layout (info, plane, &pl.ch, &pl.bps, &pl.alpha_pos, &luma);
    gst_video_format_info_component (info->finfo, plane, comp);
    pl.src = GST_VIDEO_FRAME_PLANE_DATA (&fi, plane);
    pl.sstride = GST_VIDEO_FRAME_PLANE_STRIDE (&fi, plane);
    pl.dst = GST_VIDEO_FRAME_PLANE_DATA (&fo, plane);
    pl.dstride = GST_VIDEO_FRAME_PLANE_STRIDE (&fo, plane);
    pl.width = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
    pl.height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    pl.tol = tol + off;
    convolve_plane (p, &pl, luma || !GST_VIDEO_INFO_IS_YUV (info) ||
        chroma_filter);
    off += (gsize) pl.width * pl.height * pl.ch;
  }
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  return tol;
}

gsize
ref_convolve_compare (GstBuffer * out, const GstVideoInfo * out_info,
    GstBuffer * expected, const GstVideoInfo * info, const guint8 * tol,
    const gchar * what)
{
  GstVideoFrame fa, fb;
  gsize bad = 0, off = 0;
  guint plane;

  g_assert_true (gst_video_frame_map (&fa, (GstVideoInfo *) out_info, out,
          GST_MAP_READ));
  g_assert_true (gst_video_frame_map (&fb, (GstVideoInfo *) info, expected,
          GST_MAP_READ));
  for (plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS], ch, bps, apos, w, h, x, y;
    gboolean luma;

    plane_layout (info, plane, &ch, &bps, &apos, &luma);
    gst_video_format_info_component (info->finfo, plane, comp);
    w = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) * ch;
    h = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    for (y = 0; y < h; y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa,
          plane) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, plane);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb,
          plane) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, plane);
      for (x = 0; x < w; x++) {
        gint a = bps == 2 ? ra[2 * x] | (ra[2 * x + 1] << 8) : ra[x];
        gint b = bps == 2 ? rb[2 * x] | (rb[2 * x + 1] << 8) : rb[x];
        gint d = ABS (a - b);
        if (d == 0 || (d == 1 && tol[off + (gsize) y * w + x]))
          continue;
        if (bad++ < 5)
          g_printerr ("%s: plane %u sample (%d,%d): got %d, expected %d%s\n",
              what, plane, x, y, a, b, tol[off + (gsize) y * w + x] ?
              " (+-1 allowed)" : "");
      }
    }
    off += (gsize) w * h;
  }
  gst_video_frame_unmap (&fb);
  gst_video_frame_unmap (&fa);
  return bad;
}
