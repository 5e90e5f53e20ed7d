/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "integral.h"

#include <string.h>

gint
ref_integral_channels (GstVideoFormat format)
{
  const GstVideoFormatInfo *f = gst_video_format_get_info (format);

  return GST_VIDEO_FORMAT_INFO_IS_RGB (f) ? 3 : 1;
}

guint
ref_integral_elem_size (RefIntegralFormat format, guint plane)
{
  if (plane == REF_INTEGRAL_SQSUM)
    return 8;
  return (format == REF_INTEGRAL_U32 || format == REF_INTEGRAL_F32) ? 4 : 8;
}

guint64
ref_integral_layout (gint width, gint height, gint channels,
    RefIntegralFormat format, guint planes, guint64 offsets[3])
{
  guint64 elems = (guint64) (width + 1) * (height + 1) * channels, size = 0;
  guint bit, n = 0;

  for (bit = 1; bit <= REF_INTEGRAL_COUNT; bit <<= 1) {
    if (!(planes & bit))
      continue;
    size = (size + 7) / 8 * 8;
    if (offsets)
      offsets[n] = size;
    n++;
    size += elems * ref_integral_elem_size (format, bit);
  }
  return size;
}

/* sample @c (0..channels-1: luma, or R, G, B) of pixel (x, y) */
static guint
sample (const GstVideoFrame * f, gint x, gint y, gint c)
{
  const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, 0) +
      (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  const GstVideoFormatInfo *fi = f->info.finfo;

  if (GST_VIDEO_FRAME_FORMAT (f) == GST_VIDEO_FORMAT_GRAY16_LE)
    return row[2 * x] | (row[2 * x + 1] << 8);
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (fi))
    return row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, 0) +
        GST_VIDEO_FORMAT_INFO_POFFSET (fi, c)];
  return row[x];
}

static void
store (guint8 * p, guint64 v, guint size, gboolean is_float)
{
  if (size == 4 && !is_float) {
    guint32 u = (guint32) v;    /* modulo 2^32 */
    memcpy (p, &u, 4);
  } else if (size == 4) {
    gfloat f = (gfloat) v;
    memcpy (p, &f, 4);
  } else if (!is_float) {
    memcpy (p, &v, 8);
  } else {
    gdouble d = (gdouble) v;
    memcpy (p, &d, 8);
  }
}

void
ref_integral (const GstVideoFrame * frame, RefIntegralFormat format,
    guint planes, guint8 * out)
{
  gint w = GST_VIDEO_FRAME_WIDTH (frame), h = GST_VIDEO_FRAME_HEIGHT (frame);
  gint ch = ref_integral_channels (GST_VIDEO_FRAME_FORMAT (frame));
  gboolean is_float = format == REF_INTEGRAL_F32 || format == REF_INTEGRAL_F64;
  gsize n = (gsize) (w + 1) * ch;
  guint64 offsets[3];
  guint64 *acc = g_new0 (guint64, n);   /* integral of the row above */
  guint bit, p = 0;
  gint x, y, c;

  ref_integral_layout (w, h, ch, format, planes, offsets);
  for (bit = 1; bit <= REF_INTEGRAL_COUNT; bit <<= 1) {
    guint size = ref_integral_elem_size (format, bit);
    guint8 *o;

    if (!(planes & bit))
      continue;
    o = out + offsets[p++];
    memset (acc, 0, n * sizeof (guint64));
    for (x = 0; x < (gint) n; x++)
      store (o + (gsize) x * size, 0, size, is_float);
    for (y = 0; y < h; y++) {
      guint8 *orow = o + (gsize) (y + 1) * n * size;
      for (c = 0; c < ch; c++) {
        guint64 s = 0;
        store (orow + (gsize) c * size, 0, size, is_float);
        for (x = 0; x < w; x++) {
          guint64 v = sample (frame, x, y, c);
          gsize i = (gsize) (x + 1) * ch + c;
          s += bit == REF_INTEGRAL_SUM ? v : bit == REF_INTEGRAL_SQSUM ?
              v * v : (v != 0);
          acc[i] += s;
          store (orow + i * size, acc[i], size, is_float);
        }
      }
    }
  }
  g_free (acc);
}

void
ref_box_mean (const GstVideoFrame * in, guint radius, GstVideoFrame * out)
{
  gint w = GST_VIDEO_FRAME_WIDTH (in), h = GST_VIDEO_FRAME_HEIGHT (in);
  gint ch = ref_integral_channels (GST_VIDEO_FRAME_FORMAT (in));
  const GstVideoFormatInfo *fi = in->info.finfo;
  gsize n = (gsize) (w + 1) * ch;
  guint64 *ii = g_new0 (guint64, n * (h + 1));
  gint r = (gint) MIN (radius, (guint) G_MAXINT / 4);
  gint x, y, c;

  for (y = 0; y < h; y++)
    for (c = 0; c < ch; c++) {
      guint64 s = 0;
      for (x = 0; x < w; x++) {
        s += sample (in, x, y, c);
        ii[(y + 1) * n + (x + 1) * ch + c] = ii[y * n + (x + 1) * ch + c] + s;
      }
    }

  /* planes other than the filtered one are copied, then pixels of plane 0 */
  gst_video_frame_copy (out, in);
  for (y = 0; y < h; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (out, 0);
    gint y0 = MAX (y - r, 0), y1 = MIN (y + r, h - 1) + 1;
    for (x = 0; x < w; x++) {
      gint x0 = MAX (x - r, 0), x1 = MIN (x + r, w - 1) + 1;
      guint64 area = (guint64) (x1 - x0) * (y1 - y0);
      for (c = 0; c < ch; c++) {
        guint64 sum = ii[y1 * n + x1 * ch + c] - ii[y0 * n + x1 * ch + c] -
            ii[y1 * n + x0 * ch + c] + ii[y0 * n + x0 * ch + c];
        guint64 mean = (sum + area / 2) / area;
        if (GST_VIDEO_FRAME_FORMAT (in) == GST_VIDEO_FORMAT_GRAY16_LE) {
          row[2 * x] = mean & 0xff;
          row[2 * x + 1] = mean >> 8;
        } else if (ch == 3) {
          row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (out, 0) +
              GST_VIDEO_FORMAT_INFO_POFFSET (fi, c)] = mean;
        } else {
          row[x] = mean;
        }
      }
    }
  }
  g_free (ii);
}
