/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's overlay blended into a frame on the host (the CPU): the
 * class map of a box (gstclhistogramoverlay.c classifies it) into the
 * frame's own pixels through per-component tables, one loop per pixel
 * layout (gstclhistogramrows.c has the vector ones), or the composition
 * through gst_video_overlay_composition_blend () for the other formats
 * (all of them with $GST_CL_HISTOGRAM_OVERLAY_BLEND=gstreamer). Not to be
 * confused with gstclhistogramblend.c, which blends the boxes of
 * gst_cl_histogram_overlay_draw_boxes () into the frame's copy on the
 * OpenCL device (kernels/overlay.cl) with the same arithmetic, so that
 * both give the same bytes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclhistogramoverlaypriv.h"

/* Formats whose every component is a plain 8-bit or 16-bit LE sample:
 * gst_cl_histogram_overlay_blend_classes () handles them */
gboolean
gst_cl_histogram_overlay_can_blend_fast (const GstVideoFormatInfo * fi)
{
  guint c;

  if (GST_VIDEO_FORMAT_INFO_IS_COMPLEX (fi) ||
      GST_VIDEO_FORMAT_INFO_IS_TILED (fi) ||
      GST_VIDEO_FORMAT_INFO_HAS_PALETTE (fi))
    return FALSE;
  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++) {
    guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (fi, c);

    if (GST_VIDEO_FORMAT_INFO_SHIFT (fi, c) != 0 || (depth != 8 &&
            !(depth == 16 && GST_VIDEO_FORMAT_INFO_IS_LE (fi))))
      return FALSE;
  }
  return TRUE;
}

/* x / 255 rounded for t = x + 128 (the +128 is in t): exact for
 * 0 <= t <= 255 * 255 + 128 */
#define DIV255(t) (((t) + ((t) >> 8)) >> 8)

/* Component @c of @argb (0xAARRGGBB) in the frame's colour space, 0..255:
 * RGB as is; Y'CbCr with gst_video_blend's (BT.709, limited range)
 * weights, so both blenders agree */
static inline guint
overlay_sample (guint32 argb, gboolean yuv, guint c)
{
  gint r = (argb >> 16) & 0xff, g = (argb >> 8) & 0xff, b = argb & 0xff;

  if (c == 3)
    return argb >> 24;
  if (!yuv)
    return c == 0 ? r : c == 1 ? g : b;
  if (c == 0)
    return (47 * r + 157 * g + 16 * b + 4096) >> 8;
  if (c == 1)
    return CLAMP ((-26 * r - 87 * g + 112 * b + 32768) >> 8, 0, 255);
  return CLAMP ((112 * r - 102 * g - 10 * b + 32768) >> 8, 0, 255);
}

/* "Over" into an opaque frame: a sample takes o * a + v * (1 - a) for the
 * overlay value o; an alpha component's o is 255 (a + alpha * (1 - a)).
 * The background is one alpha over the whole box, bars are opaque. */
void
gst_cl_histogram_overlay_comp_tables (CompTables * t,
    const guint32 colours[N_CLASSES], guint n_cls, gboolean yuv, guint c,
    gboolean deep)
{
  guint v, m;

  memset (t->bar, 0, sizeof (t->bar));
  t->a = colours[0] >> 24;
  t->bg_o = c == 3 ? 255 : overlay_sample (colours[0], yuv, c);
  for (v = 0; v < 256; v++)
    t->bg[v] = DIV255 (t->bg_o * t->a + v * (255 - t->a) + 128);
  for (m = 1; m < n_cls; m++) {
    guint o = c == 3 ? 255 : overlay_sample (colours[m], yuv, c);
    t->bar[m] = deep ? o * 257 : o;
  }
}

/* Two 8-bit samples in the 16-bit lanes of @w (even bytes), times @inv,
 * plus @add (with its +128), divided by 255: the lanes cannot carry into
 * each other (at most 255 * 255 + 128 + 254) */
static inline guint32
blend_lanes (guint32 w, guint inv, guint32 add)
{
  guint32 t = (w & 0x00ff00ff) * inv + add;

  return ((t + ((t >> 8) & 0x00ff00ff)) >> 8) & 0x00ff00ff;
}

static inline guint64
blend_lanes64 (guint64 w, guint inv, guint64 add)
{
  const guint64 lanes = G_GUINT64_CONSTANT (0x00ff00ff00ff00ff);
  guint64 t = (w & lanes) * inv + add;

  return ((t + ((t >> 8) & lanes)) >> 8) & lanes;
}

/* The even (*@lo) and odd (*@hi) 16-bit lane addends of a 4-byte word
 * whose byte i takes the background value @bg_o[i] at alpha @a */
static void
word_adds (const guint bg_o[4], guint a, guint32 * lo, guint32 * hi)
{
  guint i;

  *lo = *hi = 0;
  for (i = 0; i < 4; i++) {
    guint shift = G_BYTE_ORDER == G_LITTLE_ENDIAN ? 8 * i : 24 - 8 * i;
    guint32 add = bg_o[i] * a + 128;

    if (shift % 16 == 0)
      *lo |= add << shift;
    else
      *hi |= add << (shift - 8);
  }
}

static inline guint32
blend_word (guint32 w, guint inv, guint32 lo, guint32 hi)
{
  return blend_lanes (w, inv, lo) | blend_lanes (w >> 8, inv, hi) << 8;
}

/* Packed formats of 8-bit samples without subsampling (the RGB family,
 * AYUV-like) */
static gboolean
is_packed8 (const GstVideoFormatInfo * fi)
{
  guint c;

  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++)
    if (GST_VIDEO_FORMAT_INFO_PLANE (fi, c) != 0 ||
        GST_VIDEO_FORMAT_INFO_W_SUB (fi, c) || GST_VIDEO_FORMAT_INFO_H_SUB (fi,
            c) || GST_VIDEO_FORMAT_INFO_DEPTH (fi, c) != 8 ||
        GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, c) !=
        GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 0))
      return FALSE;
  return GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi) > 1;
}

/* 4-byte pixels of 8-bit components (RGBA, BGRx, AYUV, ...): a whole pixel
 * per step, the background by two multiplies on the byte lanes of the
 * pixel's word, a bar by one store; bytes that are no component (x) kept */
static void
blend_packed32 (GstVideoFrame * f, const Box * b, const guint8 * cls,
    const CompTables * t, guint n_comp)
{
  guint32 keep = 0xffffffffu, add_lo = 0, add_hi = 0, bar[N_CLASSES];
  guint64 keep2, add_lo2, add_hi2;
  guint inv = 255 - t[0].a, c, m;
  gint x, y;

  memset (bar, 0, sizeof (bar));
  for (c = 0; c < n_comp; c++) {
    guint off = GST_VIDEO_FRAME_COMP_POFFSET (f, c);
    guint shift = G_BYTE_ORDER == G_LITTLE_ENDIAN ? 8 * off : 24 - 8 * off;
    guint32 add = t[c].bg_o * t[c].a + 128;

    keep &= ~(0xffu << shift);
    if (shift % 16 == 0)
      add_lo |= add << shift;
    else
      add_hi |= add << (shift - 8);
    for (m = 1; m < N_CLASSES; m++)
      bar[m] |= (guint32) t[c].bar[m] << shift;
  }
  keep2 = keep | (guint64) keep << 32;
  add_lo2 = add_lo | (guint64) add_lo << 32;
  add_hi2 = add_hi | (guint64) add_hi << 32;
  for (y = 0; y < b->vh; y++) {
    const guint8 *row = cls + (gsize) y * b->vw;
    guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, 0) +
        (gsize) (b->vy + y) * GST_VIDEO_FRAME_PLANE_STRIDE (f, 0) +
        (gsize) b->vx * 4;

    for (x = 0; x < b->vw;) {
      guint32 w, out;

      if (x + 2 <= b->vw && !row[x] && !row[x + 1]) {
        /* two background pixels at once */
        guint64 w2;

        memcpy (&w2, p, 8);
        w2 = (w2 & keep2) | ((blend_lanes64 (w2, inv, add_lo2) |
                blend_lanes64 (w2 >> 8, inv, add_hi2) << 8) & ~keep2);
        memcpy (p, &w2, 8);
        x += 2;
        p += 8;
        continue;
      }
      memcpy (&w, p, 4);
      if (!row[x])
        out = blend_word (w, inv, add_lo, add_hi);
      else
        out = bar[row[x]];
      w = (w & keep) | (out & ~keep);
      memcpy (p, &w, 4);
      x++;
      p += 4;
    }
  }
}

/* 3-byte pixels of 8-bit components (RGB, BGR, v308): four background
 * pixels (three words) at once */
static void
blend_packed24 (GstVideoFrame * f, const Box * b, const guint8 * cls,
    const CompTables * t)
{
  const CompTables *tb[3];
  guint bg_o[12], inv = 255 - t[0].a, c, i, m;
  guint32 lo[3], hi[3];
  guint8 bar[N_CLASSES][3];
  gint x, y;

  for (c = 0; c < 3; c++)
    tb[GST_VIDEO_FRAME_COMP_POFFSET (f, c)] = &t[c];
  for (i = 0; i < 12; i++)
    bg_o[i] = tb[i % 3]->bg_o;
  for (i = 0; i < 3; i++)
    word_adds (bg_o + 4 * i, t[0].a, &lo[i], &hi[i]);
  for (m = 0; m < N_CLASSES; m++)
    for (i = 0; i < 3; i++)
      bar[m][i] = tb[i]->bar[m];
  for (y = 0; y < b->vh; y++) {
    const guint8 *row = cls + (gsize) y * b->vw;
    guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, 0) +
        (gsize) (b->vy + y) * GST_VIDEO_FRAME_PLANE_STRIDE (f, 0) +
        (gsize) b->vx * 3;

    for (x = 0; x < b->vw;) {
      guint32 k4 = 1, w[3];

      if (x + 4 <= b->vw)
        memcpy (&k4, row + x, 4);
      if (!k4) {
        memcpy (w, p, 12);
        for (i = 0; i < 3; i++)
          w[i] = blend_word (w[i], inv, lo[i], hi[i]);
        memcpy (p, w, 12);
        x += 4;
        p += 12;
        continue;
      }
      m = row[x];
      if (m) {
        memcpy (p, bar[m], 3);
      } else {
        for (i = 0; i < 3; i++)
          p[i] = tb[i]->bg[p[i]];
      }
      x++;
      p += 3;
    }
  }
}

/* YUY2-like: a 4-byte word holds two pixels (two lumas, one chroma pair
 * taking the class of its first pixel in the box) */
static gboolean
is_packed422 (const GstVideoFormatInfo * fi)
{
  return GST_VIDEO_FORMAT_INFO_IS_YUV (fi) &&
      GST_VIDEO_FORMAT_INFO_N_PLANES (fi) == 1 &&
      GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi) == 3 &&
      GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 0) == 2 &&
      GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 1) == 4 &&
      GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 2) == 4 &&
      GST_VIDEO_FORMAT_INFO_W_SUB (fi, 1) == 1 &&
      GST_VIDEO_FORMAT_INFO_H_SUB (fi, 1) == 0 &&
      GST_VIDEO_FORMAT_INFO_DEPTH (fi, 0) == 8;
}

static void
blend_packed422 (GstVideoFrame * f, const Box * b, const guint8 * cls,
    const CompTables * t)
{
  guint oy = GST_VIDEO_FRAME_COMP_POFFSET (f, 0);
  guint ou = GST_VIDEO_FRAME_COMP_POFFSET (f, 1);
  guint ov = GST_VIDEO_FRAME_COMP_POFFSET (f, 2);
  guint bg_o[4], inv = 255 - t[0].a, m;
  guint32 lo, hi, bar[N_CLASSES];
  gint u0 = b->vx >> 1, u1 = (b->vx + b->vw - 1) >> 1, u, y;

  bg_o[oy] = bg_o[oy + 2] = t[0].bg_o;
  bg_o[ou] = t[1].bg_o;
  bg_o[ov] = t[2].bg_o;
  word_adds (bg_o, t[0].a, &lo, &hi);
  for (m = 0; m < N_CLASSES; m++) {
    guint8 *q = (guint8 *) & bar[m];

    q[oy] = q[oy + 2] = t[0].bar[m];
    q[ou] = t[1].bar[m];
    q[ov] = t[2].bar[m];
  }
  for (y = 0; y < b->vh; y++) {
    const guint8 *row = cls + (gsize) y * b->vw;
    guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, 0) +
        (gsize) (b->vy + y) * GST_VIDEO_FRAME_PLANE_STRIDE (f, 0) +
        (gsize) u0 * 4;

    for (u = u0; u <= u1; u++, p += 4) {
      /* box columns of the word's two pixels; either may be outside */
      gint x0 = 2 * u - b->vx, x1 = x0 + 1;
      gboolean in0 = x0 >= 0, in1 = x1 < b->vw;
      guint c0 = in0 ? row[x0] : 0, c1 = in1 ? row[x1] : 0;
      guint cc = in0 ? c0 : c1;

      if (in0 && in1 && c0 == c1) {
        guint32 w;

        /* the common cases: both background, or both in one bar */
        if (c0) {
          memcpy (p, &bar[c0], 4);
        } else {
          memcpy (&w, p, 4);
          w = blend_word (w, inv, lo, hi);
          memcpy (p, &w, 4);
        }
        continue;
      }
      if (in0)
        p[oy] = c0 ? t[0].bar[c0] : t[0].bg[p[oy]];
      if (in1)
        p[oy + 2] = c1 ? t[0].bar[c1] : t[0].bg[p[oy + 2]];
      p[ou] = cc ? t[1].bar[cc] : t[1].bg[p[ou]];
      p[ov] = cc ? t[2].bar[cc] : t[2].bg[p[ov]];
    }
  }
}

/* Bytes 0, 2, 4, 6 of little-endian @v as its bytes 0..3: the classes of
 * 2x-subsampled samples */
static inline guint64
even_bytes (guint64 v)
{
  v &= G_GUINT64_CONSTANT (0x00ff00ff00ff00ff);
  v = (v | (v >> 8)) & G_GUINT64_CONSTANT (0x0000ffff0000ffff);
  return (v | (v >> 16)) & 0xffffffffu;
}

/* One 8-bit component, any pixel stride and subsampling: each sample takes
 * the class of its first luma pixel in the box. In a plane of its own
 * (Y, U, V, GRAY8) 8 samples of background and at most one bar class go
 * at once. */
static void
blend_comp8 (GstVideoFrame * f, const Box * b, const guint8 * cls,
    const CompTables * t, guint c)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (fi, c);
  gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (fi, c);
  gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  gint stride = GST_VIDEO_FRAME_COMP_STRIDE (f, c);
  guint8 *data = GST_VIDEO_FRAME_COMP_DATA (f, c);
  gint sx0 = b->vx >> ws, sx1 = (b->vx + b->vw - 1) >> ws;
  gint sy0 = b->vy >> hs, sy1 = (b->vy + b->vh - 1) >> hs;
  gboolean dense = ps == 1;
  guint inv = 255 - t->a;
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  guint64 add = (t->bg_o * t->a + 128) *
      G_GUINT64_CONSTANT (0x0001000100010001);
  guint64 bar1 = (t->bar[1] & 0xff) * ones;
  gint sx, sy, i;

  for (sy = sy0; sy <= sy1; sy++) {
    const guint8 *row = cls +
        (gsize) (MAX (sy << hs, b->vy) - b->vy) * b->vw;
    guint8 *p = data + (gsize) sy * stride + (gsize) sx0 * ps;

    sx = sx0;
    if (dense && (sx << ws) < b->vx) {
      /* a subsampled first sample starting left of the box */
      *p = row[0] ? t->bar[row[0]] : t->bg[*p];
      sx++;
      p++;
    }
    for (; dense && sx + 8 <= sx1 + 1; sx += 8, p += 8) {
      gint x = (sx << ws) - b->vx;
      guint64 k8 = 0, w;

      /* the 8 samples' classes, in the samples' byte order */
      if (ws == 0) {
        memcpy (&k8, row + x, 8);
      } else if (ws == 1 && G_BYTE_ORDER == G_LITTLE_ENDIAN &&
          x + 16 <= b->vw) {
        guint64 k16[2];

        memcpy (k16, row + x, 16);
        k8 = even_bytes (k16[0]) | even_bytes (k16[1]) << 32;
      } else {
        for (i = 0; i < 8; i++)
          k8 |= (guint64) row[x + (i << ws)] << (G_BYTE_ORDER ==
              G_LITTLE_ENDIAN ? 8 * i : 56 - 8 * i);
      }
      if (k8 & ~ones) {
        for (i = 0; i < 8; i++) {
          guint m = row[x + (i << ws)];

          p[i] = m ? t->bar[m] : t->bg[p[i]];
        }
        continue;
      }
      /* classes 0 and 1 only (one channel): blend all, then the bar's */
      memcpy (&w, p, 8);
      w = blend_lanes64 (w, inv, add) | blend_lanes64 (w >> 8, inv, add) << 8;
      k8 *= 0xff;
      w = (w & ~k8) | (bar1 & k8);
      memcpy (p, &w, 8);
    }
    for (; sx <= sx1; sx++, p += ps) {
      guint m = row[MAX (sx << ws, b->vx) - b->vx];

      *p = m ? t->bar[m] : t->bg[*p];
    }
  }
}

/* One 16-bit little-endian component */
static void
blend_comp16 (GstVideoFrame * f, const Box * b, const guint8 * cls,
    const CompTables * t, guint c)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (fi, c);
  gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (fi, c);
  gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  gint stride = GST_VIDEO_FRAME_COMP_STRIDE (f, c);
  guint8 *data = GST_VIDEO_FRAME_COMP_DATA (f, c);
  gint sx0 = b->vx >> ws, sx1 = (b->vx + b->vw - 1) >> ws;
  gint sy0 = b->vy >> hs, sy1 = (b->vy + b->vh - 1) >> hs;
  guint add = t->bg_o * 257 * t->a + 127, inv = 255 - t->a;
  gint sx, sy;

  for (sy = sy0; sy <= sy1; sy++) {
    const guint8 *row = cls +
        (gsize) (MAX (sy << hs, b->vy) - b->vy) * b->vw;
    guint8 *p = data + (gsize) sy * stride + (gsize) sx0 * ps;

    for (sx = sx0; sx <= sx1; sx++, p += ps) {
      guint m = row[MAX (sx << ws, b->vx) - b->vx];

      GST_WRITE_UINT16_LE (p, m ? t->bar[m] :
          (add + GST_READ_UINT16_LE (p) * inv) / 255);
    }
  }
}

/* Blends the classes @cls of box @b into @f (a format
 * gst_cl_histogram_overlay_can_blend_fast () takes): one loop per pixel
 * layout, no per-sample calls or switches */
void
gst_cl_histogram_overlay_blend_classes (GstVideoFrame * f, const Box * b,
    const guint8 * cls, const guint32 colours[N_CLASSES], guint n_cls)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  gboolean yuv = !GST_VIDEO_FORMAT_INFO_IS_RGB (fi);
  guint n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi), c;
  CompTables t[GST_VIDEO_MAX_COMPONENTS];
  const gint rect[4] = { b->vx, b->vy, b->vw, b->vh };

  for (c = 0; c < n; c++)
    gst_cl_histogram_overlay_comp_tables (&t[c], colours, n_cls, yuv, c,
        GST_VIDEO_FORMAT_INFO_DEPTH (fi, c) > 8);
  /* 16 bytes a step where the compiler has vector types; the loops below
   * for the rest (3-byte pixels, 16-bit samples, other compilers) */
  if (gst_cl_histogram_rows_blend (f, rect, cls, n_cls, t))
    return;
  if (is_packed8 (fi) && GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 0) == 4) {
    blend_packed32 (f, b, cls, t, n);
    return;
  }
  if (is_packed8 (fi) && GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 0) == 3 &&
      n == 3) {
    blend_packed24 (f, b, cls, t);
    return;
  }
  if (is_packed422 (fi)) {
    blend_packed422 (f, b, cls, t);
    return;
  }
  for (c = 0; c < n; c++) {
    if (GST_VIDEO_FORMAT_INFO_DEPTH (fi, c) > 8)
      blend_comp16 (f, b, cls, &t[c], c);
    else
      blend_comp8 (f, b, cls, &t[c], c);
  }
}

/* gst_video_blend's ORC (un)packers load whole pixels (4 bytes for RGBA
 * and YUY2) with aligned instructions: a plane or row not aligned to its
 * pixel size ends in a protection fault */
static gboolean
is_aligned (const GstVideoFrame * f)
{
  gboolean packed422 = GST_VIDEO_INFO_IS_YUV (&f->info) &&
      GST_VIDEO_FRAME_N_PLANES (f) == 1 &&
      GST_VIDEO_FRAME_N_COMPONENTS (f) == 3;
  guint p;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (f); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint a;

    gst_video_format_info_component (f->info.finfo, p, comp);
    a = packed422 ? 4 : GST_VIDEO_FRAME_COMP_PSTRIDE (f, comp[0]);
    a = a == 3 ? 1 : MIN (a, 4);
    if ((guintptr) GST_VIDEO_FRAME_PLANE_DATA (f, p) % a ||
        GST_VIDEO_FRAME_PLANE_STRIDE (f, p) % a)
      return FALSE;
  }
  return TRUE;
}

/* gst_video_blend takes the x byte of RGBx-like formats for the pixel's
 * alpha: where it is 0 the box would come out opaque black. Under the box
 * it becomes 0xff (opaque, as the format means); it is padding. */
static void
make_x_opaque (GstVideoFrame * f, const Box * b)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  guint xoff;
  gint x, y;

  if (!GST_VIDEO_FORMAT_INFO_IS_RGB (fi) || GST_VIDEO_FORMAT_INFO_HAS_ALPHA (fi)
      || GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 0) != 4)
    return;
  xoff = 6 - GST_VIDEO_FORMAT_INFO_POFFSET (fi, 0) -
      GST_VIDEO_FORMAT_INFO_POFFSET (fi, 1) -
      GST_VIDEO_FORMAT_INFO_POFFSET (fi, 2);
  for (y = b->vy; y < b->vy + b->vh; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
    for (x = b->vx; x < b->vx + b->vw; x++)
      row[x * 4 + xoff] = 0xff;
  }
}

/* Blends @comp (its rectangles are boxes @b[0..@n - 1]) into @frame,
 * through an aligned copy where needed */
gboolean
gst_cl_histogram_overlay_blend (GstClHistogramOverlay * ov,
    GstVideoOverlayComposition * comp, const Box * b, guint n,
    GstVideoFrame * frame)
{
  GstVideoFrame tmp;
  gboolean ok;
  guint i;

  if (is_aligned (frame)) {
    for (i = 0; i < n; i++)
      make_x_opaque (frame, &b[i]);
    return gst_video_overlay_composition_blend (comp, frame);
  }

  if (!ov->aligned || GST_VIDEO_INFO_FORMAT (&ov->aligned_info) !=
      GST_VIDEO_FRAME_FORMAT (frame) ||
      GST_VIDEO_INFO_WIDTH (&ov->aligned_info) != GST_VIDEO_FRAME_WIDTH (frame)
      || GST_VIDEO_INFO_HEIGHT (&ov->aligned_info) !=
      GST_VIDEO_FRAME_HEIGHT (frame)) {
    GstAllocationParams params = { 0, 15, 0, 0, };

    gst_clear_buffer (&ov->aligned);
    gst_video_info_set_format (&ov->aligned_info,
        GST_VIDEO_FRAME_FORMAT (frame), GST_VIDEO_FRAME_WIDTH (frame),
        GST_VIDEO_FRAME_HEIGHT (frame));
    ov->aligned = gst_buffer_new_allocate (NULL, ov->aligned_info.size,
        &params);
  }
  if (!ov->aligned || !gst_video_frame_map (&tmp, &ov->aligned_info,
          ov->aligned, GST_MAP_READWRITE))
    return FALSE;
  ok = gst_video_frame_copy (&tmp, frame);
  for (i = 0; i < n; i++)
    make_x_opaque (&tmp, &b[i]);
  ok = ok && gst_video_overlay_composition_blend (comp, &tmp) &&
      gst_video_frame_copy (frame, &tmp);
  gst_video_frame_unmap (&tmp);
  return ok;
}

/* Blends the outline's edges @e into @f (a format
 * gst_cl_histogram_overlay_can_blend_fast () takes): class 1 everywhere,
 * white */
void
gst_cl_histogram_overlay_blend_edges (GstClHistogramOverlay * ov,
    GstVideoFrame * f, const Box * e, guint n)
{
  const guint32 colours[N_CLASSES] = { 0, OUTLINE_ARGB };
  gsize most = 0;
  guint8 *ones;
  guint i;

  for (i = 0; i < n; i++)
    most = MAX (most, (gsize) e[i].w * e[i].h);
  ones = ensure ((gpointer *) & ov->ones, &ov->ones_len, most, 1);
  memset (ones, 1, most);
  for (i = 0; i < n; i++)
    gst_cl_histogram_overlay_blend_classes (f, &e[i], ones, colours, 2);
}
