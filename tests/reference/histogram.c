/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plain-C reference for clhistogram (see histogram.h). Deliberately simple:
 * one sample at a time through GstVideoFormatInfo's component layout. */
#include "histogram.h"

#include <math.h>
#include <string.h>

guint
ref_histogram_range (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_COMP_DEPTH (info, 0) > 8 ? 65536 : 256;
}

static gint
component_of (const GstVideoInfo * info, RefChannel ch)
{
  gboolean rgb = GST_VIDEO_INFO_IS_RGB (info);

  switch (ch) {
    case REF_CH_RED:
      return rgb ? 0 : -1;
    case REF_CH_GREEN:
      return rgb ? 1 : -1;
    case REF_CH_BLUE:
      return rgb ? 2 : -1;
    case REF_CH_LUMA:
      return rgb ? -1 : 0;
    case REF_CH_U:
      return GST_VIDEO_INFO_IS_YUV (info) ? 1 : -1;
    case REF_CH_V:
      return GST_VIDEO_INFO_IS_YUV (info) ? 2 : -1;
    case REF_CH_ALPHA:
      return GST_VIDEO_INFO_HAS_ALPHA (info) ? 3 : -1;
  }
  return -1;
}

static inline guint
sample (const GstVideoFrame * f, gint comp, gint x, gint y)
{
  const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, comp) +
      (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (f, comp) +
      (gsize) x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, comp);

  if (GST_VIDEO_FRAME_COMP_DEPTH (f, comp) > 8)
    return GST_READ_UINT16_LE (p);
  return p[0];
}

guint64
ref_histogram_add (GstBuffer * buf, const GstVideoInfo * info, RefChannel ch,
    gboolean bt709, gint x, gint y, gint w, gint h, guint64 * counts)
{
  GstVideoFrame f;
  gint comp = component_of (info, ch), cx0, cy0, cx1, cy1, i, j, ws, hs;
  guint64 n = 0;

  g_assert_true (gst_video_frame_map (&f, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  if (ch == REF_CH_LUMA && GST_VIDEO_INFO_IS_RGB (info)) {
    guint kr = bt709 ? 13933 : 19595, kg = bt709 ? 46871 : 38470,
        kb = bt709 ? 4732 : 7471;
    for (j = y; j < y + h; j++)
      for (i = x; i < x + w; i++) {
        guint v = (kr * sample (&f, 0, i, j) + kg * sample (&f, 1, i, j) +
            kb * sample (&f, 2, i, j) + 32768) >> 16;
        counts[v]++;
        n++;
      }
  } else {
    g_assert_cmpint (comp, >=, 0);
    ws = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, comp);
    hs = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, comp);
    cx0 = x >> ws;
    cy0 = y >> hs;
    cx1 = (x + w + (1 << ws) - 1) >> ws;
    cy1 = (y + h + (1 << hs) - 1) >> hs;
    for (j = cy0; j < cy1; j++)
      for (i = cx0; i < cx1; i++) {
        counts[sample (&f, comp, i, j)]++;
        n++;
      }
  }
  gst_video_frame_unmap (&f);
  return n;
}

void
ref_histogram_finish (const guint64 * counts, guint range, guint bins,
    guint64 * binned, RefStats * s)
{
  gdouble sum = 0, sq = 0;
  guint v;

  memset (binned, 0, bins * sizeof (guint64));
  memset (s, 0, sizeof (*s));
  s->min = 0;
  for (v = 0; v < range; v++) {
    if (!counts[v])
      continue;
    binned[(guint64) v * bins / range] += counts[v];
    if (!s->total)
      s->min = v;
    s->max = v;
    s->total += counts[v];
    sum += (gdouble) v * counts[v];
  }
  if (!s->total)
    return;
  s->mean = sum / s->total;
  for (v = 0; v < range; v++)
    if (counts[v])
      sq += (v - s->mean) * (v - s->mean) * counts[v];
  s->stddev = sqrt (sq / s->total);
  s->clip_low = (gdouble) binned[0] / s->total;
  s->clip_high = (gdouble) binned[bins - 1] / s->total;
}

void
ref_histogram_rgba_fast (const guint8 * data, gint width, gint height,
    gint stride, guint32 * counts)
{
  gint x, y;

  memset (counts, 0, 3 * 256 * sizeof (guint32));
  for (y = 0; y < height; y++) {
    const guint8 *p = data + (gsize) y * stride;
    for (x = 0; x < width; x++, p += 4) {
      counts[p[0]]++;
      counts[256 + p[1]]++;
      counts[512 + p[2]]++;
    }
  }
}
