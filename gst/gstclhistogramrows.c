/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The overlay box blended 16 bytes at a time (see the header). A plane's
 * bytes come in groups of 1, 2 or 4 (GRAY8 and planar Y'CbCr; NV12's CbCr
 * pairs; RGBA-like pixels and YUY2 words), each group one or more pixels
 * wide. Every 16-byte step of a box row is blended whole, then the bars'
 * samples are put over it: with one channel (classes 0 and 1) by a mask,
 * without a branch, as noisy graphs change class every few pixels; with
 * several, step by step where a step is one class, else group by group.
 * The few groups at the box's left and right edges go sample by sample. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclhistogramrows.h"

#ifdef __has_builtin
#if __has_builtin (__builtin_convertvector)
#define HAVE_VECTORS 1
#endif
#endif

#ifdef HAVE_VECTORS

typedef guint8 V8 __attribute__ ((vector_size (16)));
typedef guint16 V16 __attribute__ ((vector_size (32)));
typedef guint32 V32 __attribute__ ((vector_size (16)));
typedef guint16 V16x8 __attribute__ ((vector_size (16)));

#define N_CLASSES GST_CL_HISTOGRAM_OVERLAY_CLASSES
#define MAX_PERIOD 4

/* One plane's groups */
typedef struct
{
  guint period;                 /* bytes per group: 1, 2 or 4 */
  guint gpix;                   /* luma columns per group: 1, 2 or 4 */
  guint hs;                     /* vertical subsampling */
  gint comp[MAX_PERIOD];        /* each byte's component, -1: kept */
  guint pix[MAX_PERIOD];        /* pixel of the group its sample starts at */
  gboolean sub[MAX_PERIOD];     /* its sample spans pixels: class of the first
                                 * in the box */
  gboolean uniform;             /* every group's samples share one class */
  guint8 kidx[16];              /* byte j of a step has the class of pixel
                                 * kidx[j] of the step */
  guint32 cmask[4];             /* 0x01 on the bytes of a group (of 2 or 4)
                                 * whose sample starts at its pixel i */
  guint32 keep4;                /* 0xff on the kept bytes, 4 bytes */
  guint32 bar4[N_CLASSES];      /* each class's groups over 4 bytes, kept
                                 * bytes 0 */
  V8 vkeep, bar1;               /* the same over 16 bytes; class 1 */
  V16 vadd, vinv;               /* background * alpha + 128, 255 - alpha */
} Layout;

static gboolean
plane_layout (const GstVideoFormatInfo * fi, guint plane,
    const GstClHistogramComp * t, Layout * L)
{
  guint n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi), c, k, j;
  gint hs = -1;

  memset (L, 0, sizeof (*L));
  for (j = 0; j < MAX_PERIOD; j++)
    L->comp[j] = -1;
  for (c = 0; c < n; c++)
    if (GST_VIDEO_FORMAT_INFO_PLANE (fi, c) == plane)
      L->period = MAX (L->period, (guint) GST_VIDEO_FORMAT_INFO_PSTRIDE (fi,
              c));
  if (L->period != 1 && L->period != 2 && L->period != 4)
    return FALSE;
  L->uniform = TRUE;
  for (c = 0; c < n; c++) {
    guint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, c);
    guint off = GST_VIDEO_FORMAT_INFO_POFFSET (fi, c);
    guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (fi, c), g;

    if (GST_VIDEO_FORMAT_INFO_PLANE (fi, c) != plane)
      continue;
    if (GST_VIDEO_FORMAT_INFO_DEPTH (fi, c) != 8 || ps == 0 ||
        L->period % ps || ws > 2 ||
        (hs >= 0 && hs != (gint) GST_VIDEO_FORMAT_INFO_H_SUB (fi, c)))
      return FALSE;
    hs = GST_VIDEO_FORMAT_INFO_H_SUB (fi, c);
    g = (L->period / ps) << ws;
    if (g > 4 || (L->gpix && L->gpix != g))
      return FALSE;
    L->gpix = g;
    for (k = 0; k < L->period / ps; k++) {
      j = off + k * ps;
      if (j >= L->period || L->comp[j] >= 0)
        return FALSE;
      L->comp[j] = c;
      L->pix[j] = k << ws;
      L->sub[j] = ws > 0;
      if (g > 1 && ws == 0)
        L->uniform = FALSE;     /* YUY2's lumas */
    }
  }
  if (!L->gpix || hs < 0)
    return FALSE;
  L->hs = hs;
  for (j = 0; j < 16; j++) {
    guint b = j % L->period;
    gint cj = L->comp[b];

    L->kidx[j] = j / L->period * L->gpix + L->pix[b];
    if (j < L->period && cj >= 0)
      L->cmask[L->pix[b]] |= 1u << (8 * j);
    L->vkeep[j] = cj < 0 ? 0xff : 0;
    L->bar1[j] = cj < 0 ? 0 : t[cj].bar[1];
    L->vadd[j] = cj < 0 ? 0 : t[cj].bg_o * t[cj].a + 128;
    L->vinv[j] = 255 - t[0].a;
  }
  for (j = 0; j < 4; j++) {
    gint cj = L->comp[j % L->period];

    ((guint8 *) & L->keep4)[j] = cj < 0 ? 0xff : 0;
    for (k = 0; k < N_CLASSES; k++)
      ((guint8 *) & L->bar4[k])[j] = cj < 0 ? 0 : t[cj].bar[k];
  }
  return TRUE;
}

/* The class of group @g when its samples share one */
static inline gboolean
group_class (const Layout * L, const guint8 * row, gint g, gint vx, gint vw,
    guint * m)
{
  gint x = g * (gint) L->gpix;
  guint i;

  if (L->uniform) {
    *m = row[MAX (x, vx) - vx];
    return TRUE;
  }
  if (x < vx || x + (gint) L->gpix > vx + vw)
    return FALSE;
  *m = row[x - vx];
  for (i = 1; i < L->gpix; i++)
    if (row[x - vx + i] != *m)
      return FALSE;
  return TRUE;
}

/* Group @g at @p, sample by sample: each takes the class of its first pixel
 * in the box (pixel-wise samples outside it are kept) */
static void
blend_group (const Layout * L, const GstClHistogramComp * t, guint8 * p,
    const guint8 * row, gint g, gint vx, gint vw)
{
  guint j;

  for (j = 0; j < L->period; j++) {
    gint c = L->comp[j], x = g * (gint) L->gpix + (gint) L->pix[j];
    guint m;

    if (c < 0)
      continue;
    if (L->sub[j])
      x = MAX (x, vx);
    else if (x < vx || x >= vx + vw)
      continue;
    m = row[x - vx];
    p[j] = m ? t[c].bar[m] : t[c].bg[p[j]];
  }
}

/* @w with the background over its samples (the tables' rounding) */
static inline V8
blend_bg (const Layout * L, V8 w)
{
  V16 s = __builtin_convertvector (w, V16) * L->vinv + L->vadd;
  V8 o = __builtin_convertvector ((s + (s >> 8)) >> 8, V8);

  return (w & L->vkeep) | (o & ~L->vkeep);
}

/* The classes of a group's bytes (little endian), from its pixels' at @row:
 * spread by multiplies (classes stay below 256, bytes do not overlap) */
static inline guint32
group_word (const Layout * L, const guint8 * row)
{
  guint32 x = row[0] * L->cmask[0];
  guint i;

  for (i = 1; i < L->gpix; i++)
    x += row[i] * L->cmask[i];
  return x;
}

/* The classes of a step's 16 bytes, from @row (the class of the step's
 * first pixel) on: a plane of bytes as they are, 2x-subsampled bytes
 * (I420's chroma) and byte pairs (NV12's) by shifts, others one by one */
static inline V8
step_classes (const Layout * L, const guint8 * row)
{
  const guint64 even = G_GUINT64_CONSTANT (0x00ff00ff00ff00ff);
  guint64 v[4];
  V8 k;
  guint i;

  if (L->period == 1 && L->gpix == 1) {
    memcpy (&k, row, 16);
    return k;
  }
  if (G_BYTE_ORDER == G_LITTLE_ENDIAN && L->period == 1 && L->gpix == 2) {
    memcpy (v, row, 32);
    for (i = 0; i < 4; i++) {
      v[i] &= even;
      v[i] = (v[i] | (v[i] >> 8)) & G_GUINT64_CONSTANT (0x0000ffff0000ffff);
      v[i] = (v[i] | (v[i] >> 16)) & 0xffffffffu;
    }
    k = (V8) (V32) {
    (guint32) v[0], (guint32) v[1], (guint32) v[2], (guint32) v[3]};
    return k;
  }
  if (G_BYTE_ORDER == G_LITTLE_ENDIAN && L->period == 2 && L->gpix == 2 &&
      L->kidx[1] == 0) {
    memcpy (v, row, 16);
    v[0] &= even;
    v[1] &= even;
    memcpy (&k, v, 16);
    return k | (V8) ((V16x8) k << 8);
  }
  if (G_BYTE_ORDER == G_LITTLE_ENDIAN && L->period == 4) {
    gint G = L->gpix;

    return (V8) (V32) {
    group_word (L, row), group_word (L, row + G),
          group_word (L, row + 2 * G), group_word (L, row + 3 * G)};
  }
  if (G_BYTE_ORDER == G_LITTLE_ENDIAN && L->period == 2) {
    gint G = L->gpix;

    return (V8) (V32) {
    group_word (L, row) | group_word (L, row + G) << 16,
          group_word (L, row + 2 * G) | group_word (L, row + 3 * G) << 16,
          group_word (L, row + 4 * G) | group_word (L, row + 5 * G) << 16,
          group_word (L, row + 6 * G) | group_word (L, row + 7 * G) << 16};
  }
  for (i = 0; i < 16; i++)
    k[i] = row[L->kidx[i]];
  return k;
}

static inline guint64
read64 (const guint8 * p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return v;
}

/* One channel: the step blended, class 1's samples put over it by a mask.
 * YUY2's steps test their 8 classes first: spreading them over the bytes
 * costs more than the test (measured; not so for AYUV's 4). */
static inline void
step_one_channel (const Layout * L, guint8 * p, const guint8 * row)
{
  const V8 zero = { 0 };
  V8 w, o, lit;

  memcpy (&w, p, 16);
  if (L->period == 4 && L->gpix == 2) {
    guint64 c = read64 (row);

    if (c == 0 || c == G_GUINT64_CONSTANT (0x0101010101010101)) {
      o = c ? L->bar1 | (w & L->vkeep) : blend_bg (L, w);
      memcpy (p, &o, 16);
      return;
    }
  }
  o = blend_bg (L, w);
  lit = (V8) (step_classes (L, row) != zero) & ~L->vkeep;
  o = (L->bar1 & lit) | (o & ~lit);
  memcpy (p, &o, 16);
}

/* Whether the @n classes at @p are all @m */
static inline gboolean
span_is (const guint8 * p, gint n, guint m)
{
  guint64 mm = m * G_GUINT64_CONSTANT (0x0101010101010101);

  for (; n >= 8; n -= 8, p += 8)
    if (read64 (p) != mm)
      return FALSE;
  for (; n > 0; n--, p++)
    if (*p != m)
      return FALSE;
  return TRUE;
}

/* Several channels: a step of one class at once, others blended whole and
 * their bars put group by group (or byte by byte) */
static inline void
step_channels (const Layout * L, guint8 * p, const guint8 * row, gint n)
{
  guint m = row[0], j;
  V8 w, o;

  memcpy (&w, p, 16);
  if (m && span_is (row, n, m)) {
    guint32 b = L->bar4[m];

    o = (V8) (V32) {
    b, b, b, b} | (w & L->vkeep);
    memcpy (p, &o, 16);
    return;
  }
  o = blend_bg (L, w);
  memcpy (p, &o, 16);
  if (!m && span_is (row, n, 0))
    return;
  if (L->gpix == 1 && L->period == 4) {
    for (j = 0; j < 4; j++, p += 4)
      if (row[j]) {
        guint32 v;

        memcpy (&v, p, 4);
        v = (v & L->keep4) | L->bar4[row[j]];
        memcpy (p, &v, 4);
      }
    return;
  }
  for (j = 0; j < 16; j++) {
    m = row[L->kidx[j]];
    if (m && L->comp[j % L->period] >= 0)
      p[j] = ((const guint8 *) &L->bar4[m])[j & 3];
  }
}

/* The box's rows lie far apart in the frame, and the histogram's
 * work-items have just read them on other cores: fetched one miss after
 * the other they cost more than the blend (measured: 2x at 1080p). The
 * rows ahead, up to this many bytes (all of a default box), are asked for
 * at once, so that their cache lines arrive together. */
#define PREFETCH_BYTES (256 * 1024)

static inline void
prefetch_row (const guint8 * p, gsize n)
{
  gsize i;

  for (i = 0; i < n; i += 64)
    __builtin_prefetch (p + i, 1, 3);
  __builtin_prefetch (p + n - 1, 1, 3);
}

static void
blend_plane (GstVideoFrame * f, guint plane, const Layout * L,
    const gint r[4], const guint8 * cls, const GstClHistogramComp * t,
    gboolean one_channel)
{
  gint vx = r[0], vy = r[1], vw = r[2], vh = r[3];
  gint G = L->gpix, P = L->period, step = 16 / P, n = step * G;
  gint g0 = vx / G, g1 = (vx + vw - 1) / G;
  /* the steps wholly in the box: [s0, s1) */
  gint s0 = (vx + G - 1) / G, s1 = (vx + vw) / G;
  gint sy0 = vy >> L->hs, sy1 = (vy + vh - 1) >> L->hs, sy;
  guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (f, plane);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, plane);

  gsize bytes = (gsize) (g1 - g0 + 1) * P;
  gint ahead = MAX (PREFETCH_BYTES / bytes, 1);

  for (sy = sy0; sy <= sy1 && sy < sy0 + ahead; sy++)
    prefetch_row (data + (gsize) sy * stride + (gsize) g0 * P, bytes);
  for (sy = sy0; sy <= sy1; sy++) {
    const guint8 *row = cls + (gsize) (MAX (sy << L->hs, vy) - vy) * vw;
    guint8 *line = data + (gsize) sy * stride;
    gint g;

    if (sy + ahead <= sy1)
      prefetch_row (line + (gsize) ahead * stride + (gsize) g0 * P, bytes);

    for (g = g0; g < s0; g++)
      blend_group (L, t, line + (gsize) g * P, row, g, vx, vw);
    if (one_channel) {
      for (; g + step <= s1; g += step)
        step_one_channel (L, line + (gsize) g * P, row + g * G - vx);
    } else {
      for (; g + step <= s1; g += step)
        step_channels (L, line + (gsize) g * P, row + g * G - vx, n);
    }
    for (; g <= g1; g++)
      blend_group (L, t, line + (gsize) g * P, row, g, vx, vw);
  }
}

gboolean
gst_cl_histogram_rows_blend (GstVideoFrame * f, const gint rect[4],
    const guint8 * cls, guint n_cls, const GstClHistogramComp * t)
{
  Layout layouts[GST_VIDEO_MAX_PLANES];
  guint p, n = GST_VIDEO_FRAME_N_PLANES (f);

  if (rect[2] <= 0 || rect[3] <= 0)
    return TRUE;
  for (p = 0; p < n; p++)
    if (!plane_layout (f->info.finfo, p, t, &layouts[p]))
      return FALSE;
  for (p = 0; p < n; p++)
    blend_plane (f, p, &layouts[p], rect, cls, t, n_cls <= 2);
  return TRUE;
}

#else /* !HAVE_VECTORS */

gboolean
gst_cl_histogram_rows_blend (GstVideoFrame * f, const gint rect[4],
    const guint8 * cls, guint n_cls, const GstClHistogramComp * t)
{
  return FALSE;
}

#endif
