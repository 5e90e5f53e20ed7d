/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram overlay=true and attach-meta=true: pixel checks against a
 * model of the graph built from the plain-C reference counts (box placement,
 * bars, linear and log heights, channel colours), for every format, odd
 * sizes, padded layouts, the ROI, intervals, both drawing paths (blend;
 * GstVideoOverlayCompositionMeta when downstream announces it), property
 * changes while playing, the custom meta against the message, a frame
 * that cannot be written, and the device blend against the host blend byte
 * for byte. The cloverlay-device test runs them all with the
 * element's blend on the OpenCL device (GST_CL_TEST_OVERLAY_BLEND=device),
 * with the histogram's GPU kernels so that the device also computes the
 * graph's heights (one frame at a time; with an interval the host does). */
#include <string.h>
#include <math.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "testframes.h"
#include "histogram.h"

#define META_NAME "GstClHistogramMeta"
#define BLEND_ENV "GST_CL_HISTOGRAM_OVERLAY_BLEND"
#define VARIANT_ENV "GST_CL_HISTOGRAM_VARIANT"
#define READBACK_ENV "GST_CL_HISTOGRAM_OVERLAY_READBACK"

/* TRUE: the element blends with gst_video_overlay_composition_blend instead
 * of its own blender */
static gboolean gst_blender;
/* the element's own blender: "host" or "device" (on PoCL too), from
 * $GST_CL_TEST_OVERLAY_BLEND ("device": the cloverlay-device test); NULL:
 * the element chooses (host on CPU devices) */
static const gchar *own_blender;

static const GstVideoFormat all_formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
};

/* ---- the documented drawing, re-implemented ---- */

enum
{ POS_TOP_LEFT, POS_TOP_RIGHT, POS_BOTTOM_LEFT, POS_BOTTOM_RIGHT };

typedef struct
{
  gint position, width, height;
  gboolean log, parade;
  gdouble alpha;
  guint bins;
  guint channels;               /* RefChannel flags, 0 = auto */
  gint roi[4];
} Look;

static const Look default_look = { POS_BOTTOM_RIGHT, 0, 0, TRUE, FALSE, 0.5,
  256, 0, {0, 0, 0, 0}
};

typedef struct
{
  gint x, y, w, h;              /* box */
  gint vx, vy, vw, vh;          /* its visible part */
  gint pad, gw, gh, pw, gap;
  guint n;
  gboolean parade;
  guint32 colour[7];
  guint16 *heights;             /* n * pw */
} Model;

static guint32
colour_of (guint flag)
{
  switch (flag) {
    case REF_CH_RED:
      return 0xff4040;
    case REF_CH_GREEN:
      return 0x40ff40;
    case REF_CH_BLUE:
      return 0x4060ff;
    case REF_CH_LUMA:
      return 0xffffff;
    case REF_CH_U:
      return 0x40a0ff;
    case REF_CH_V:
      return 0xff5090;
    default:
      return 0xa0a0a0;
  }
}

static guint
effective_channels (const Look * l, const GstVideoInfo * info)
{
  if (l->channels)
    return l->channels;
  return GST_VIDEO_INFO_IS_RGB (info) ? REF_CH_RED | REF_CH_GREEN |
      REF_CH_BLUE : REF_CH_LUMA;
}

static void
clip_roi (const gint * prop, gint fw, gint fh, gint * roi)
{
  roi[0] = prop[0];
  roi[1] = prop[1];
  roi[2] = (prop[2] == 0 || prop[2] > fw - prop[0]) ? fw - prop[0] : prop[2];
  roi[3] = (prop[3] == 0 || prop[3] > fh - prop[1]) ? fh - prop[1] : prop[3];
}

static guint
expected_height (gboolean log, guint64 c, guint64 cmax, gint gh)
{
  gdouble f;

  if (!c)
    return 0;
  f = log ? log1p ((gdouble) c) / log1p ((gdouble) cmax) : (gdouble) c / cmax;
  return CLAMP ((guint) (gh * f + 0.5), 1, (guint) gh);
}

/* The model of the graph of @frames (counted over the ROI and summed) */
static void
model_init (Model * m, const Look * l, const GstVideoInfo * info,
    GstBuffer ** frames, guint n_frames)
{
  gint fw = GST_VIDEO_INFO_WIDTH (info), fh = GST_VIDEO_INFO_HEIGHT (info);
  gint margin = MIN (fw, fh) / 40, roi[4], x;
  guint range = ref_histogram_range (info), channels =
      effective_channels (l, info), i, f, b, c = 0;
  guint64 *counts = g_new (guint64, range), *bars = g_new (guint64, l->bins);
  guint64 *cols;

  memset (m, 0, sizeof (*m));
  m->w = l->width ? l->width : CLAMP (fw / 3, 1, 264);
  m->h = l->height ? l->height : MAX (1, MIN (fh / 3, m->w / 2));
  m->pad = MIN (m->w, m->h) >= 32 ? 4 : 0;
  m->x = (l->position == POS_TOP_LEFT || l->position == POS_BOTTOM_LEFT) ?
      margin : fw - margin - m->w;
  m->y = (l->position == POS_TOP_LEFT || l->position == POS_TOP_RIGHT) ?
      margin : fh - margin - m->h;
  m->vx = MAX (m->x, 0);
  m->vy = MAX (m->y, 0);
  m->vw = MAX (MIN (m->x + m->w, fw) - m->vx, 0);
  m->vh = MAX (MIN (m->y + m->h, fh) - m->vy, 0);
  m->gw = MAX (m->w - 2 * m->pad, 0);
  m->gh = MAX (m->h - 2 * m->pad, 0);
  m->n = __builtin_popcount (channels);
  m->parade = l->parade && m->n > 1;
  m->gap = m->parade ? m->pad : 0;
  m->pw = m->parade ?
      MAX ((m->gw - (gint) (m->n - 1) * m->gap) / (gint) m->n, 0) : m->gw;
  m->heights = g_new0 (guint16, m->n * MAX (m->pw, 1));
  cols = g_new0 (guint64, MAX (m->pw, 1));
  clip_roi (l->roi, fw, fh, roi);

  for (i = 0; i < 7; i++) {
    guint64 cmax = 0;

    if (!(channels & (1u << i)))
      continue;
    m->colour[c] = colour_of (1u << i);
    memset (counts, 0, range * sizeof (guint64));
    for (f = 0; f < n_frames; f++)
      ref_histogram_add (frames[f], info, 1u << i, FALSE, roi[0], roi[1],
          roi[2], roi[3], counts);
    memset (bars, 0, l->bins * sizeof (guint64));
    for (b = 0; b < range; b++)
      bars[(guint64) b * l->bins / range] += counts[b];
    memset (cols, 0, MAX (m->pw, 1) * sizeof (guint64));
    for (x = 0; x < m->pw; x++)
      if ((guint) m->pw >= l->bins)
        cols[x] = bars[(guint64) x * l->bins / m->pw];
    if ((guint) m->pw < l->bins)
      for (b = 0; b < l->bins; b++)
        cols[(guint64) b * m->pw / l->bins] += bars[b];
    for (x = 0; x < m->pw; x++)
      cmax = MAX (cmax, cols[x]);
    for (x = 0; x < m->pw; x++)
      m->heights[c * m->pw + x] = expected_height (l->log, cols[x], cmax,
          m->gh);
    c++;
  }
  g_free (cols);
  g_free (bars);
  g_free (counts);
}

static void
model_clear (Model * m)
{
  g_free (m->heights);
}

/* bit k set: channel k's bar covers frame pixel (x, y) */
static guint
model_mask (const Model * m, gint x, gint y)
{
  gint gx = x - m->x - m->pad, r = m->pad + m->gh - 1 - (y - m->y);
  guint k, first = 0, last = m->n, mask = 0;

  if (r < 0 || r >= m->gh || gx < 0 || gx >= m->gw || m->pw == 0)
    return 0;
  if (m->parade) {
    first = gx / (m->pw + m->gap);
    gx -= first * (m->pw + m->gap);
    if (first >= m->n || gx >= m->pw)
      return 0;
    last = first + 1;
  } else if (gx >= m->pw) {
    return 0;
  }
  for (k = first; k < last; k++)
    if ((guint) r < m->heights[k * m->pw + gx])
      mask |= 1u << k;
  return mask;
}

static guint32
mask_rgb (const Model * m, guint mask)
{
  guint r = 0, g = 0, b = 0, k;

  for (k = 0; k < m->n; k++)
    if (mask & (1u << k)) {
      r = MIN (r + ((m->colour[k] >> 16) & 0xff), 255);
      g = MIN (g + ((m->colour[k] >> 8) & 0xff), 255);
      b = MIN (b + (m->colour[k] & 0xff), 255);
    }
  return (r << 16) | (g << 8) | b;
}

/* ---- frames ---- */

/* Sets every sample of component @comp whose luma pixel lies in columns
 * [x0, x1) to @v (8- or 16-bit) */
static void
set_component (GstBuffer * buf, const GstVideoInfo * info, guint comp,
    gint x0, gint x1, guint v)
{
  GstVideoFrame f;
  gint x, y, ws;

  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  ws = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, comp);
  for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, comp); y++)
    for (x = x0 >> ws; x < GST_VIDEO_FRAME_COMP_WIDTH (&f, comp) &&
        (x << ws) < x1; x++) {
      guint8 *p = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, comp) +
          (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (&f, comp) +
          (gsize) x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, comp);
      if (GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, comp) > 8)
        GST_WRITE_UINT16_LE (p, v);
      else
        *p = v;
    }
  gst_video_frame_unmap (&f);
}

/* Random padding and x bytes, one value per component: @vals[comp] */
static GstBuffer *
solid_frame (GstVideoFormat format, gint w, gint h, TestLayout layout,
    const guint * vals, guint32 seed, GstVideoInfo * info)
{
  GstBuffer *buf = test_frame_new (format, w, h, layout, seed, info);
  guint c;

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    set_component (buf, info, c, 0, w, vals[c]);
  return buf;
}

static guint
read_comp (const GstVideoFrame * f, guint comp, gint x, gint y)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  gint sx = x >> GST_VIDEO_FORMAT_INFO_W_SUB (fi, comp);
  gint sy = y >> GST_VIDEO_FORMAT_INFO_H_SUB (fi, comp);
  const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, comp) +
      (gsize) sy * GST_VIDEO_FRAME_COMP_STRIDE (f, comp) +
      (gsize) sx * GST_VIDEO_FRAME_COMP_PSTRIDE (f, comp);

  return GST_VIDEO_FORMAT_INFO_DEPTH (fi, comp) > 8 ? GST_READ_UINT16_LE (p) :
      *p;
}

/* Every byte of @out's visible rows that belongs to no pixel of the box
 * equals @in's (a byte of a subsampled or packed pair belongs to all the
 * pixels it covers) */
static void
check_outside_identical (GstBuffer * in, GstBuffer * out,
    const GstVideoInfo * info, const Model * m, const gchar * what)
{
  GstVideoFrame fa, fb;
  gboolean packed422 = GST_VIDEO_INFO_IS_YUV (info) &&
      GST_VIDEO_INFO_N_PLANES (info) == 1 &&
      GST_VIDEO_INFO_N_COMPONENTS (info) == 3;
  guint p;

  fail_unless (gst_video_frame_map (&fa, (GstVideoInfo *) info, in,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, (GstVideoInfo *) info, out,
          GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS], row, i, unit, upx, hs, bytes;

    gst_video_format_info_component (info->finfo, p, comp);
    hs = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, comp[0]);
    unit = packed422 ? 4 : GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comp[0]);
    upx = packed422 ? 2 : 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo,
        comp[0]);
    bytes = packed422 ? GST_ROUND_UP_2 (GST_VIDEO_INFO_WIDTH (info)) * 2 :
        GST_VIDEO_FRAME_COMP_WIDTH (&fa, comp[0]) * unit;
    for (row = 0; row < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comp[0]); row++) {
      const guint8 *a = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          (gsize) row * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *b = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          (gsize) row * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      gint y0 = row << hs, y1 = (row + 1) << hs;
      gboolean rows_touch = y1 > m->vy && y0 < m->vy + m->vh;

      for (i = 0; i < bytes; i++) {
        gint x0 = (i / unit) * upx, x1 = x0 + upx;

        if (rows_touch && x1 > m->vx && x0 < m->vx + m->vw)
          continue;
        if (a[i] != b[i])
          fail ("%s: plane %u row %d byte %d (pixels %d..%d) changed outside "
              "the box %d,%d %dx%d: %u -> %u", what, p, row, i, x0, x1 - 1,
              m->vx, m->vy, m->vw, m->vh, a[i], b[i]);
      }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
}

/* Inside the box: lit pixels have the bar colour (exact for 8-bit RGB, the
 * blend's luma for 8-bit YUV and GRAY8); with @solid every pixel of a class
 * (background, each set of lit channels) is the same and lit differs from
 * background */
static void
check_inside (GstBuffer * out, const GstVideoInfo * info, const Model * m,
    gboolean solid, const gchar * what)
{
  gboolean rgb = GST_VIDEO_INFO_IS_RGB (info);
  gboolean deep = GST_VIDEO_INFO_COMP_DEPTH (info, 0) > 8;
  GHashTable *classes = g_hash_table_new (NULL, NULL);
  GstVideoFrame f;
  gint x, y;
  guint n_lit = 0, bg = G_MAXUINT;

  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) info, out,
          GST_MAP_READ));
  for (y = m->vy; y < m->vy + m->vh; y++)
    for (x = m->vx; x < m->vx + m->vw; x++) {
      guint mask = model_mask (m, x, y), key = mask + 1, v;
      gpointer seen;

      v = rgb ? (read_comp (&f, 0, x, y) << 16) | (read_comp (&f, 1, x, y)
          << 8) | read_comp (&f, 2, x, y) : read_comp (&f, 0, x, y);
      if (mask) {
        guint32 c = mask_rgb (m, mask);
        guint r = c >> 16, g = (c >> 8) & 0xff, b = c & 0xff;

        n_lit++;
        if (rgb && !deep && v != c)
          fail ("%s: pixel %d,%d is 0x%06x, bar colour 0x%06x", what, x, y,
              v, c);
        if (!rgb && !deep && v != MIN ((47 * r + 157 * g + 16 * b + 4096) >> 8,
                255))
          fail ("%s: pixel %d,%d luma %u, bar luma %u", what, x, y, v,
              (47 * r + 157 * g + 16 * b + 4096) >> 8);
      } else if (bg == G_MAXUINT) {
        bg = v;
      }
      if (!solid)
        continue;
      if (g_hash_table_lookup_extended (classes, GUINT_TO_POINTER (key),
              NULL, &seen)) {
        if (GPOINTER_TO_UINT (seen) != v)
          fail ("%s: pixel %d,%d (bars 0x%x) is %u, others of its kind %u",
              what, x, y, mask, v, GPOINTER_TO_UINT (seen));
      } else {
        g_hash_table_insert (classes, GUINT_TO_POINTER (key),
            GUINT_TO_POINTER (v));
      }
    }
  if (solid && bg != G_MAXUINT) {
    GHashTableIter it;
    gpointer k, v;

    g_hash_table_iter_init (&it, classes);
    while (g_hash_table_iter_next (&it, &k, &v))
      if (GPOINTER_TO_UINT (k) != 1 && GPOINTER_TO_UINT (v) == bg
          && !(rgb && mask_rgb (m, GPOINTER_TO_UINT (k) - 1) == bg))
        fail ("%s: bars (0x%x) look like the background", what,
            GPOINTER_TO_UINT (k) - 1);
  }
  gst_video_frame_unmap (&f);
  g_hash_table_unref (classes);
  (void) n_lit;
}

/* The rectangle's ARGB pixels equal the model exactly */
static void
check_rectangle (GstVideoOverlayRectangle * rect, const Model * m,
    gdouble alpha, const gchar * what)
{
  GstVideoFrame f;
  GstVideoInfo info;
  GstVideoMeta *vmeta;
  GstBuffer *pix;
  gint x, y, rx, ry;
  guint rw, rh;

  fail_unless (gst_video_overlay_rectangle_get_render_rectangle (rect, &rx,
          &ry, &rw, &rh));
  fail_unless_equals_int (rx, m->vx);
  fail_unless_equals_int (ry, m->vy);
  fail_unless_equals_int (rw, m->vw);
  fail_unless_equals_int (rh, m->vh);
  pix = gst_video_overlay_rectangle_get_pixels_unscaled_argb (rect,
      GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
  vmeta = gst_buffer_get_video_meta (pix);
  fail_unless (vmeta != NULL);
  fail_unless_equals_int (vmeta->width, m->vw);
  fail_unless_equals_int (vmeta->height, m->vh);
  gst_video_info_set_format (&info, vmeta->format, vmeta->width,
      vmeta->height);
  fail_unless (gst_video_frame_map (&f, &info, pix, GST_MAP_READ));
  for (y = 0; y < m->vh; y++)
    for (x = 0; x < m->vw; x++) {
      const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x * 4;
      guint32 got = ((guint32) p[GST_VIDEO_FRAME_COMP_POFFSET (&f, 3)] << 24)
          | (p[GST_VIDEO_FRAME_COMP_POFFSET (&f, 0)] << 16) |
          (p[GST_VIDEO_FRAME_COMP_POFFSET (&f, 1)] << 8) |
          p[GST_VIDEO_FRAME_COMP_POFFSET (&f, 2)];
      guint mask = model_mask (m, m->vx + x, m->vy + y);
      guint32 want = mask ? 0xff000000u | mask_rgb (m, mask) :
          (guint32) (alpha * 255 + 0.5) << 24;

      if (got != want)
        fail ("%s: ARGB %d,%d is 0x%08x, expected 0x%08x", what, x, y, got,
            want);
    }
  gst_video_frame_unmap (&f);
}

/* ---- harness ---- */

static GstHarness *
new_harness (GstBus ** bus, const Look * l, gboolean downstream_meta)
{
  GstElement *el;
  GstHarness *h;

  if (gst_blender)
    g_setenv (BLEND_ENV, "gstreamer", TRUE);
  else if (own_blender)
    g_setenv (BLEND_ENV, own_blender, TRUE);
  else
    g_unsetenv (BLEND_ENV);
  /* the device blender draws a frame's graph from the counts on the device
   * when the histogram leaves them whole there (GPU kernels; CPU kernels
   * leave 8-bit counts in bands): on PoCL the GPU kernels take that path */
  if (!g_strcmp0 (own_blender, "device"))
    g_setenv (VARIANT_ENV, "gpu", TRUE);
  el = gst_element_factory_make ("clhistogram", NULL);
  fail_unless (el != NULL);
  *bus = gst_bus_new ();
  gst_element_set_bus (el, *bus);
  h = gst_harness_new_with_element (el, "sink", "src");
  gst_object_unref (el);
  if (downstream_meta)
    gst_harness_add_propose_allocation_meta (h,
        GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);
  g_object_set (h->element, "overlay", TRUE, "overlay-width", l->width,
      "overlay-height", l->height, "overlay-alpha", l->alpha,
      "channels", l->channels, "bins", l->bins, "roi-x", l->roi[0], "roi-y",
      l->roi[1], "roi-width", l->roi[2], "roi-height", l->roi[3], NULL);
  g_object_set (h->element, "overlay-position", l->position,
      "overlay-scale", l->log ? 1 : 0, "overlay-mode", l->parade ? 1 : 0,
      NULL);
  return h;
}

/* upstream asks: what GstBaseSrc/GstVideoDecoder do after caps */
static void
allocation_query (GstHarness * h, GstCaps * caps)
{
  GstQuery *q = gst_query_new_allocation (caps, TRUE);

  gst_pad_peer_query (h->srcpad, q);
  gst_query_unref (q);
}

/* Pushes @in (kept by the caller) and returns what comes out */
static GstBuffer *
push_pull (GstHarness * h, GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  return gst_harness_pull (h);
}

/* One frame through the blend path (or the meta path), checked */
static void
run_case (GstVideoFormat format, gint w, gint hgt, TestLayout layout,
    const Look * l, gboolean solid, gboolean meta_path)
{
  static const guint vals[] = { 10, 128, 250, 77 };
  GstBus *bus;
  GstHarness *h = new_harness (&bus, l, meta_path);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstCaps *caps = test_caps_new (format, w, hgt);
  Model m;
  gchar *what;

  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  allocation_query (h, caps);
  gst_caps_unref (caps);
  if (solid) {
    guint deep[4];
    guint c;
    for (c = 0; c < 4; c++)
      deep[c] = vals[c] * 257;
    gst_video_info_set_format (&info, format, 1, 1);
    in = solid_frame (format, w, hgt, layout,
        GST_VIDEO_INFO_COMP_DEPTH (&info, 0) > 8 ? deep : vals, w + hgt,
        &info);
  } else {
    in = test_frame_new (format, w, hgt, layout, w * 7 + hgt, &info);
  }
  what = g_strdup_printf ("%s %dx%d layout %d pos %d %dx%d %s%s%s roi "
      "%d,%d,%d,%d", gst_video_format_to_string (format), w, hgt, layout,
      l->position, l->width, l->height, l->log ? "log" : "linear",
      l->parade ? " parade" : "", meta_path ? " meta" : gst_blender ?
      " gst-blend" : " blend", l->roi[0],
      l->roi[1], l->roi[2], l->roi[3]);

  out = push_pull (h, in);
  model_init (&m, l, &info, &in, 1);
  if (meta_path) {
    GstVideoOverlayCompositionMeta *cm =
        gst_buffer_get_video_overlay_composition_meta (out);

    /* pixels left alone: not even copied */
    fail_unless (gst_buffer_peek_memory (out, 0) ==
        gst_buffer_peek_memory (in, 0), "%s: memory replaced", what);
    fail_unless (test_frames_equal (out, in, &info), "%s", what);
    if (m.vw > 0 && m.vh > 0) {
      fail_unless (cm != NULL, "%s: no composition meta", what);
      fail_unless_equals_int (gst_video_overlay_composition_n_rectangles
          (cm->overlay), 1);
      check_rectangle (gst_video_overlay_composition_get_rectangle
          (cm->overlay, 0), &m, l->alpha, what);
    }
  } else {
    fail_if (gst_buffer_get_video_overlay_composition_meta (out) != NULL);
    check_outside_identical (in, out, &info, &m, what);
    check_inside (out, &info, &m, solid, what);
  }
  model_clear (&m);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_free (what);
  test_free_harness (h, bus);
}

/* ---- tests ---- */

/* Frames from the element's own pool (pinned memory on GPUs: the device
 * blender reads the drawn box straight into them, planes of one pitch
 * together; elsewhere READBACK_ENV=direct takes that path), pushed without
 * another reference so they are drawn in place, three frames in a row per
 * caps (the same tables each time: only the first frame writes them), the
 * box at the bottom (NV12's one read then starts its chroma rows early)
 * and at the top (NV12: two reads, the one read's slices would pass the
 * buffer's end) */
GST_START_TEST (test_pool_frames)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B,
    GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_GRAY16_LE,
  };
  static const gint sizes[][2] = { {641, 479}, {1920, 1080}, {64, 37} };
  gchar *readback = g_strdup (g_getenv (READBACK_ENV));
  guint f, si, i;

  g_setenv (READBACK_ENV, "direct", TRUE);
  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (si = 0; si < G_N_ELEMENTS (sizes); si++) {
      Look l = default_look;
      GstBus *bus;
      GstHarness *h;
      GstCaps *caps = test_caps_new (formats[f], sizes[si][0], sizes[si][1]);
      GstQuery *q = gst_query_new_allocation (caps, TRUE);
      GstBufferPool *pool = NULL;

      l.parade = si == 1;
      l.position = si == 0 ? POS_BOTTOM_RIGHT : si == 1 ? POS_TOP_LEFT :
          POS_BOTTOM_LEFT;
      /* 64x37: a box taller than the chroma planes (NV12: two reads) */
      if (si == 2)
        l.height = 30;
      h = new_harness (&bus, &l, FALSE);
      gst_harness_set_src_caps (h, gst_caps_ref (caps));
      fail_unless (gst_pad_peer_query (h->srcpad, q));
      /* GPUs offer their pinned pool; elsewhere a plain video pool */
      if (gst_query_get_n_allocation_pools (q) > 0)
        gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
      if (!pool) {
        GstStructure *config;
        GstVideoInfo vi;

        fail_unless (gst_video_info_from_caps (&vi, caps));
        pool = gst_video_buffer_pool_new ();
        config = gst_buffer_pool_get_config (pool);
        gst_buffer_pool_config_set_params (config, caps, vi.size, 2, 0);
        fail_unless (gst_buffer_pool_set_config (pool, config));
      }
      fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      for (i = 0; i < 3; i++) {
        GstVideoInfo info;
        GstBuffer *src = test_frame_new (formats[f], sizes[si][0],
            sizes[si][1], TEST_LAYOUT_PACKED, 31 * i + f, &info);
        GstBuffer *in = NULL, *out;
        GstVideoFrame a, b;
        Model m;
        gchar *what = g_strdup_printf ("%s %dx%d pool frame %u",
            gst_video_format_to_string (formats[f]), sizes[si][0],
            sizes[si][1], i);

        fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &in,
                NULL), GST_FLOW_OK);
        /* bytes the frame copy leaves (YUY2's last half pair) defined */
        gst_buffer_memset (in, 0, 0x5a, gst_buffer_get_size (in));
        fail_unless (gst_video_frame_map (&a, &info, src, GST_MAP_READ));
        fail_unless (gst_video_frame_map (&b, &info, in, GST_MAP_WRITE));
        fail_unless (gst_video_frame_copy (&b, &a));
        gst_video_frame_unmap (&b);
        gst_video_frame_unmap (&a);
        /* the reference: what went in, padding bytes included */
        gst_buffer_unref (src);
        src = gst_buffer_copy_deep (in);
        fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
        out = gst_harness_pull (h);
        model_init (&m, &l, &info, &src, 1);
        check_outside_identical (src, out, &info, &m, what);
        check_inside (out, &info, &m, FALSE, what);
        model_clear (&m);
        gst_buffer_unref (out);
        gst_buffer_unref (src);
        g_free (what);
      }
      fail_unless (gst_buffer_pool_set_active (pool, FALSE));
      gst_object_unref (pool);
      gst_query_unref (q);
      gst_caps_unref (caps);
      test_free_harness (h, bus);
    }
  if (readback)
    g_setenv (READBACK_ENV, readback, TRUE);
  else
    g_unsetenv (READBACK_ENV);
  g_free (readback);
}

GST_END_TEST;

/* @in through clhistogram overlay=true with the element's own blender
 * @blender ("host" or "device") */
static GstBuffer *
blend_with (const gchar * blender, GstVideoFormat format, gint w, gint hgt,
    const Look * l, gboolean roi_outline, GstBuffer * in)
{
  const gchar *was = own_blender;
  GstCaps *caps = test_caps_new (format, w, hgt);
  GstHarness *h;
  GstBus *bus;
  GstBuffer *out;

  own_blender = blender;
  h = new_harness (&bus, l, FALSE);
  own_blender = was;
  g_object_set (h->element, "overlay-roi", roi_outline, NULL);
  gst_harness_set_src_caps (h, caps);
  /* a copy: the element draws into the buffer it gets */
  out = push_pull (h, gst_buffer_copy_deep (in));
  gst_buffer_unref (in);
  test_free_harness (h, bus);
  return out;
}

/* The device blender's bytes are the host blender's, every byte of every
 * format (the pixel tests above check the bars, not the background's
 * blend or the chroma exactly): random frames, both scales and modes, the
 * ROI outline's boxes over the graph's, odd and padded layouts, the boxes
 * read back through staging memory and straight into the frame */
GST_START_TEST (test_device_equals_host)
{
  static const gint sizes[][2] = { {641, 479}, {64, 37}, {1280, 720} };
  gchar *readback = g_strdup (g_getenv (READBACK_ENV));
  guint f, si;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++)
    for (si = 0; si < G_N_ELEMENTS (sizes); si++) {
      gint w = sizes[si][0], hgt = sizes[si][1];
      Look l = default_look;
      GstVideoInfo info;
      GstBuffer *in, *host, *dev;
      gchar *what = g_strdup_printf ("%s %dx%d",
          gst_video_format_to_string (all_formats[f]), w, hgt);

      l.log = si != 1;
      l.parade = si == 2;
      l.position = si == 1 ? POS_TOP_LEFT : POS_BOTTOM_RIGHT;
      /* the outline overlaps the graph's box on 641x479 */
      if (si == 0) {
        l.roi[0] = 300;
        l.roi[1] = 200;
      }
      in = test_frame_new (all_formats[f], w, hgt, si == 0 ?
          TEST_LAYOUT_PADDED : TEST_LAYOUT_PACKED, 11 * f + si, &info);
      host = blend_with ("host", all_formats[f], w, hgt, &l, si == 0,
          gst_buffer_ref (in));
      /* the box read straight into the frame, as for pool frames */
      if (si > 0)
        g_setenv (READBACK_ENV, "direct", TRUE);
      dev = blend_with ("device", all_formats[f], w, hgt, &l, si == 0,
          gst_buffer_ref (in));
      if (readback)
        g_setenv (READBACK_ENV, readback, TRUE);
      else
        g_unsetenv (READBACK_ENV);
      fail_if (test_frames_equal (host, in, &info), "%s: nothing drawn",
          what);
      fail_unless (test_frames_equal (dev, host, &info),
          "%s: the device blend differs from the host's", what);
      gst_buffer_unref (dev);
      gst_buffer_unref (host);
      gst_buffer_unref (in);
      g_free (what);
    }
  g_free (readback);
}

GST_END_TEST;

/* every format, 1x1, 3x5, 641x479 (padded and split layouts): solid frames
 * (one bar per channel, full height) and random ones, both paths */
GST_START_TEST (test_all_formats)
{
  guint f, si, g;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++)
    for (si = 0; si < MIN (n_test_sizes, 3); si++)
      for (g = 0; g < 2; g++) {
        Look l = default_look;
        gint w = test_sizes[si].width, hgt = test_sizes[si].height;

        gst_blender = g;
        run_case (all_formats[f], w, hgt, TEST_LAYOUT_PADDED, &l, TRUE,
            FALSE);
        run_case (all_formats[f], w, hgt, g ? TEST_LAYOUT_MISALIGNED :
            TEST_LAYOUT_MULTI_MEMORY, &l, FALSE, FALSE);
        l.log = FALSE;
        if (!g)
          run_case (all_formats[f], w, hgt, TEST_LAYOUT_PACKED, &l, FALSE,
              TRUE);
      }
  gst_blender = FALSE;
}

GST_END_TEST;

/* a 264x132 box on 1920x1080: 256 graph columns, one per value, so a solid
 * frame's bar is the column of its value */
GST_START_TEST (test_solid_column_at_value)
{
  /* alpha 77: the background's blended alpha stays below 255 */
  static const guint vals[] = { 10, 128, 250, 77 };
  GstBus *bus;
  Look l = default_look;
  GstHarness *h = new_harness (&bus, &l, FALSE);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame f;
  Model m;
  guint c;
  gint x, y;

  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_RGBA, 1920,
          1080));
  in = solid_frame (GST_VIDEO_FORMAT_RGBA, 1920, 1080, TEST_LAYOUT_PACKED,
      vals, 1, &info);
  out = push_pull (h, in);
  model_init (&m, &l, &info, &in, 1);
  fail_unless_equals_int (m.gw, 256);
  fail_unless_equals_int (m.gh, 124);
  check_outside_identical (in, out, &info, &m, "1080p");
  check_inside (out, &info, &m, TRUE, "1080p");
  /* independent of the model: column box.x + 4 + value, full height, in
   * the channel's colour; no other lit pixel */
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (c = 0; c < 3; c++) {
    guint32 want = colour_of (1u << c);
    x = m.x + 4 + vals[c];
    for (y = m.y + 4; y < m.y + 4 + 124; y++)
      fail_unless_equals_int ((read_comp (&f, 0, x, y) << 16) |
          (read_comp (&f, 1, x, y) << 8) | read_comp (&f, 2, x, y), want);
  }
  {
    guint lit = 0;
    for (y = m.y; y < m.y + m.h; y++)
      for (x = m.x; x < m.x + m.w; x++)
        if (read_comp (&f, 3, x, y) == 255)     /* only bars are opaque */
          lit++;
    fail_unless_equals_int (lit, 3 * 124);
  }
  gst_video_frame_unmap (&f);
  model_clear (&m);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* GRAY8: 1/8 of the columns at 50, the rest at 200; bar heights follow
 * round(gh * c / cmax) and round(gh * log(1 + c) / log(1 + cmax)) */
GST_START_TEST (test_linear_and_log_heights)
{
  guint scale;

  for (scale = 0; scale < 2; scale++) {
    GstBus *bus;
    Look l = default_look;
    GstHarness *h;
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstVideoFrame f;
    guint vals[] = { 200 };
    gint x, y, fw = 800, fh = 600, gh, got[2] = { 0, 0 };
    gint box_x, box_y;
    guint64 n50 = (guint64) (fw / 8) * fh, n200 = (guint64) fw * fh - n50;
    gint want[2];

    l.log = scale;
    l.width = 264;
    l.height = 108;
    h = new_harness (&bus, &l, FALSE);
    gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, fw,
            fh));
    in = solid_frame (GST_VIDEO_FORMAT_GRAY8, fw, fh, TEST_LAYOUT_PADDED,
        vals, 3, &info);
    set_component (in, &info, 0, 0, fw / 8, 50);
    out = push_pull (h, in);
    gh = 100;
    box_x = fw - fh / 40 - 264;
    box_y = fh - fh / 40 - 108;
    want[0] = scale ? (gint) (gh * log1p ((gdouble) n50) /
        log1p ((gdouble) n200) + 0.5) : (gint) (gh * (gdouble) n50 / n200 +
        0.5);
    want[1] = gh;
    fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
    for (y = box_y + 4; y < box_y + 4 + gh; y++) {
      /* luma of the white bar blended at alpha 255 */
      got[0] += read_comp (&f, 0, box_x + 4 + 50, y) == 235;
      got[1] += read_comp (&f, 0, box_x + 4 + 200, y) == 235;
    }
    /* the bars stand on the bottom row of the graph */
    fail_unless_equals_int (read_comp (&f, 0, box_x + 4 + 50,
            box_y + 4 + gh - 1), 235);
    gst_video_frame_unmap (&f);
    fail_unless_equals_int (got[0], want[0]);
    fail_unless_equals_int (got[1], want[1]);
    if (scale)
      fail_unless (want[0] > 50);       /* log shows the small count */
    else
      fail_unless_equals_int (want[0], 14);
    {
      Model m;
      model_init (&m, &l, &info, &in, 1);
      check_inside (out, &info, &m, TRUE, scale ? "log" : "linear");
      check_outside_identical (in, out, &info, &m, "heights");
      model_clear (&m);
    }
    (void) x;
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    test_free_harness (h, bus);
  }
}

GST_END_TEST;

/* corners, explicit sizes larger than the frame (clipped), parade, bins */
GST_START_TEST (test_positions_sizes_modes)
{
  static const gint sizes[][2] = { {0, 0}, {100, 40}, {700, 30}, {50, 900},
  {1, 1}
  };
  guint p, s, mode;

  for (p = 0; p < 4; p++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (mode = 0; mode < 2; mode++) {
        Look l = default_look;

        l.position = p;
        l.width = sizes[s][0];
        l.height = sizes[s][1];
        l.parade = mode;
        l.bins = (s % 2) ? 64 : 256;
        l.alpha = (p % 2) ? 0.0 : 0.75;
        run_case (GST_VIDEO_FORMAT_BGRx, 641, 479, TEST_LAYOUT_PADDED, &l,
            FALSE, FALSE);
        l.channels = REF_CH_LUMA | REF_CH_U | REF_CH_V;
        run_case (GST_VIDEO_FORMAT_NV12, 641, 479, TEST_LAYOUT_PADDED, &l,
            FALSE, mode);
      }
}

GST_END_TEST;

/* the graph shows the ROI's histogram */
GST_START_TEST (test_roi)
{
  static const gint rois[][4] = {
    {1, 1, 3, 3}, {320, 0, 0, 0}, {100, 33, 77, 101}, {639, 477, 50, 50},
  };
  guint r;

  for (r = 0; r < G_N_ELEMENTS (rois); r++) {
    Look l = default_look;

    memcpy (l.roi, rois[r], sizeof (l.roi));
    run_case (GST_VIDEO_FORMAT_RGB, 641, 479, TEST_LAYOUT_MISALIGNED, &l,
        FALSE, FALSE);
    run_case (GST_VIDEO_FORMAT_I420, 641, 479, TEST_LAYOUT_PADDED, &l,
        FALSE, TRUE);
  }
  /* a solid right half: one bar only when the ROI is that half */
  {
    static const guint left[] = { 30, 30, 30 }, right[] = { 220, 220, 220 };
    GstBus *bus;
    Look l = default_look;
    GstHarness *h;
    GstVideoInfo info;
    GstBuffer *in, *out;
    Model m;
    guint c;
    gint x;

    l.roi[0] = 320;
    l.channels = REF_CH_LUMA;
    h = new_harness (&bus, &l, FALSE);
    gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_RGBx, 640,
            480));
    in = solid_frame (GST_VIDEO_FORMAT_RGBx, 640, 480, TEST_LAYOUT_PACKED,
        left, 5, &info);
    for (c = 0; c < 3; c++)
      set_component (in, &info, c, 320, 640, right[c]);
    out = push_pull (h, in);
    model_init (&m, &l, &info, &in, 1);
    for (x = 0; x < m.pw; x++)
      if (m.heights[x])
        fail_unless_equals_int (x, 220 * m.pw / 256);
    fail_unless (m.heights[220 * m.pw / 256] == m.gh);
    check_inside (out, &info, &m, FALSE, "roi half");
    check_outside_identical (in, out, &info, &m, "roi half");
    model_clear (&m);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    test_free_harness (h, bus);
  }
}

GST_END_TEST;

/* overlay-roi: a white outline just inside the ROI's edges (1 pixel thick
 * below 1080 lines), nothing else changed outside the graph's box, with
 * both blenders; the meta path carries the edges as four more rectangles
 * and leaves the pixels alone; no outline when the ROI is the whole frame */
static gboolean
on_outline (gint x, gint y, const gint * roi)
{
  gboolean in = x >= roi[0] && x < roi[0] + roi[2] && y >= roi[1] &&
      y < roi[1] + roi[3];

  return in && (x == roi[0] || x == roi[0] + roi[2] - 1 || y == roi[1] ||
      y == roi[1] + roi[3] - 1);
}

static void
check_outline_blended (GstVideoFormat format, const gint * roi)
{
  static const guint dark[] = { 20, 20, 20, 255 };
  Look l = default_look;
  GstBus *bus;
  GstHarness *h;
  GstVideoInfo info;
  GstVideoFrame fi, fo;
  GstBuffer *in, *out;
  Model m;
  gint x, y;
  guint c, n_lit = 0;

  memcpy (l.roi, roi, sizeof (l.roi));
  h = new_harness (&bus, &l, FALSE);
  g_object_set (h->element, "overlay-roi", TRUE, NULL);
  gst_harness_set_src_caps (h, test_caps_new (format, 640, 480));
  in = solid_frame (format, 640, 480, TEST_LAYOUT_PADDED, dark, 3, &info);
  out = push_pull (h, in);
  model_init (&m, &l, &info, &in, 1);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
  for (y = 0; y < 480; y++)
    for (x = 0; x < 640; x++) {
      if (x >= m.vx && x < m.vx + m.vw && y >= m.vy && y < m.vy + m.vh)
        continue;               /* the graph, checked elsewhere */
      for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
        /* white: 255 in RGB; Y'CbCr 235, 127, 128 (gst_video_blend's
         * BT.709 limited-range integer weights) */
        static const guint white_yuv[] = { 235, 127, 128 };
        guint want = !on_outline (x, y, roi) ? read_comp (&fi, c, x, y) :
            GST_VIDEO_INFO_IS_RGB (&info) ? 255 : white_yuv[c];

        fail_unless (read_comp (&fo, c, x, y) == want, "%s blender %d (%d,%d) c%u: %u, want %u", gst_video_format_to_string (format), gst_blender, x, y, c, read_comp (&fo, c, x, y), want);
      }
      n_lit += on_outline (x, y, roi);
    }
  fail_unless_equals_int (n_lit, 2 * roi[2] + 2 * (roi[3] - 2));
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  model_clear (&m);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  test_free_harness (h, bus);
}

static guint
meta_path_rectangles (const gint * roi, gint * rects)
{
  Look l = default_look;
  GstBus *bus;
  GstHarness *h;
  GstCaps *caps = test_caps_new (GST_VIDEO_FORMAT_RGBA, 640, 480);
  GstBuffer *in, *out;
  GstVideoOverlayCompositionMeta *cm;
  guint i, n;

  memcpy (l.roi, roi, sizeof (l.roi));
  h = new_harness (&bus, &l, TRUE);
  g_object_set (h->element, "overlay-roi", TRUE, NULL);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  allocation_query (h, caps);
  gst_caps_unref (caps);
  in = test_frame_new (GST_VIDEO_FORMAT_RGBA, 640, 480, TEST_LAYOUT_PACKED, 4,
      NULL);
  out = push_pull (h, in);
  cm = gst_buffer_get_video_overlay_composition_meta (out);
  fail_unless (cm != NULL);
  n = gst_video_overlay_composition_n_rectangles (cm->overlay);
  for (i = 1; i < n && i <= 4; i++)
    gst_video_overlay_rectangle_get_render_rectangle
        (gst_video_overlay_composition_get_rectangle (cm->overlay, i),
        &rects[4 * (i - 1)], &rects[4 * (i - 1) + 1],
        (guint *) & rects[4 * (i - 1) + 2], (guint *) & rects[4 * (i - 1) + 3]);
  {
    GstMapInfo a, b;

    fail_unless (gst_buffer_map (in, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (out, &b, GST_MAP_READ));
    fail_unless (a.size == b.size && !memcmp (a.data, b.data, a.size),
        "the meta path changed pixels");
    gst_buffer_unmap (in, &a);
    gst_buffer_unmap (out, &b);
  }
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  test_free_harness (h, bus);
  return n;
}

GST_START_TEST (test_roi_outline)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_Y444
  };
  const gint roi[4] = { 101, 40, 200, 151 }, whole[4] = { 0, 0, 0, 0 };
  const gint edges[16] = { 101, 40, 200, 1, 101, 190, 200, 1,
    101, 41, 1, 149, 300, 41, 1, 149
  };
  gint rects[16];
  guint i;
  gboolean g;

  for (g = FALSE; g <= TRUE; g++) {
    gst_blender = g;
    for (i = 0; i < G_N_ELEMENTS (formats); i++)
      check_outline_blended (formats[i], roi);
  }
  gst_blender = FALSE;
  fail_unless_equals_int (meta_path_rectangles (roi, rects), 5);
  for (i = 0; i < 16; i++)
    fail_unless_equals_int (rects[i], edges[i]);
  fail_unless_equals_int (meta_path_rectangles (whole, rects), 1);
}

GST_END_TEST;

/* interval: each frame shows the interval so far; the meta carries the same
 * counts and the frame completing an interval the message's structure */
GST_START_TEST (test_interval)
{
  const GstClockTime dur = 25 * GST_MSECOND;
  GstBus *bus;
  Look l = default_look;
  GstHarness *h;
  GstBuffer *frames[6];
  GstVideoInfo info;
  guint i;

  h = new_harness (&bus, &l, FALSE);
  g_object_set (h->element, "interval", 3 * dur, "attach-meta", TRUE, NULL);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_Y42B, 333,
          211));
  for (i = 0; i < 6; i++) {
    GstBuffer *out;
    GstCustomMeta *cm;
    GstStructure *msg;
    Model m;
    guint start = i < 3 ? 0 : 3;
    guint64 frames_field;
    gchar *what = g_strdup_printf ("interval frame %u", i);

    frames[i] = test_frame_new (GST_VIDEO_FORMAT_Y42B, 333, 211,
        TEST_LAYOUT_PADDED, 40 + i, &info);
    /* distinct histograms: different value ranges per frame */
    set_component (frames[i], &info, 0, 0, 100 + 50 * i, 20 * i);
    GST_BUFFER_PTS (frames[i]) = i * dur;
    GST_BUFFER_DURATION (frames[i]) = dur;
    out = push_pull (h, frames[i]);
    model_init (&m, &l, &info, frames + start, i - start + 1);
    check_inside (out, &info, &m, FALSE, what);
    check_outside_identical (frames[i], out, &info, &m, what);
    model_clear (&m);

    cm = gst_buffer_get_custom_meta (out, META_NAME);
    fail_unless (cm != NULL);
    fail_unless (gst_structure_get_uint64 (gst_custom_meta_get_structure
            (cm), "frames", &frames_field));
    fail_unless_equals_uint64 (frames_field, i - start + 1);
    msg = test_pop_histogram (bus);
    if (i == 2 || i == 5) {
      fail_unless (msg != NULL, "%s: no message", what);
      fail_unless (gst_structure_is_equal (msg,
              gst_custom_meta_get_structure (cm)), "%s", what);
      gst_structure_free (msg);
    } else {
      fail_unless (msg == NULL, "%s: early message", what);
    }
    gst_buffer_unref (out);
    g_free (what);
  }
  for (i = 0; i < 6; i++)
    gst_buffer_unref (frames[i]);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* interval switched on and off while playing: a lone frame's graph and
 * an interval's (on the device, heights from the device's counts and from
 * the host's sums in turn) each match the frames they cover */
GST_START_TEST (test_interval_switched)
{
  const GstClockTime dur = 25 * GST_MSECOND;
  /* the interval set before each frame, and the first frame its graph
   * covers */
  static const guint64 interval_durs[] = { 0, 0, 2, 2, 0, 0 };
  static const guint first[] = { 0, 1, 2, 2, 4, 5 };
  GstBus *bus;
  Look l = default_look;
  GstHarness *h;
  GstBuffer *frames[6];
  GstVideoInfo info;
  guint i;

  h = new_harness (&bus, &l, FALSE);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_NV12, 333,
          211));
  for (i = 0; i < G_N_ELEMENTS (frames); i++) {
    GstBuffer *out;
    Model m;
    gchar *what = g_strdup_printf ("switched interval frame %u", i);

    g_object_set (h->element, "interval", interval_durs[i] * dur, NULL);
    frames[i] = test_frame_new (GST_VIDEO_FORMAT_NV12, 333, 211,
        TEST_LAYOUT_PADDED, 70 + i, &info);
    set_component (frames[i], &info, 0, 0, 90 + 30 * i, 10 * i);
    GST_BUFFER_PTS (frames[i]) = i * dur;
    GST_BUFFER_DURATION (frames[i]) = dur;
    out = push_pull (h, frames[i]);
    model_init (&m, &l, &info, frames + first[i], i - first[i] + 1);
    check_inside (out, &info, &m, FALSE, what);
    check_outside_identical (frames[i], out, &info, &m, what);
    model_clear (&m);
    gst_buffer_unref (out);
    g_free (what);
  }
  for (i = 0; i < G_N_ELEMENTS (frames); i++)
    gst_buffer_unref (frames[i]);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* attach-meta: the meta's structure equals the message, for several
 * formats; readable after a copy of the buffer */
GST_START_TEST (test_meta_equals_message)
{
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_YUY2
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstBus *bus;
    GstHarness *h;
    GstBuffer *in, *out, *copy;
    GstStructure *msg;
    GstCustomMeta *cm;
    gdouble mean;

    h = gst_harness_new ("clhistogram");
    bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    g_object_set (h->element, "attach-meta", TRUE, "bins", 64, NULL);
    gst_harness_set_src_caps (h, test_caps_new (fmts[f], 97, 41));
    in = test_frame_new (fmts[f], 97, 41, TEST_LAYOUT_MULTI_MEMORY, f, NULL);
    GST_BUFFER_PTS (in) = GST_SECOND;
    GST_BUFFER_DURATION (in) = GST_SECOND / 30;
    out = push_pull (h, in);
    /* metadata only: the pixels are the input's memory */
    fail_unless (gst_buffer_peek_memory (out, 0) ==
        gst_buffer_peek_memory (in, 0));
    msg = test_pop_histogram (bus);
    fail_unless (msg != NULL);
    cm = gst_buffer_get_custom_meta (out, META_NAME);
    fail_unless (cm != NULL);
    fail_unless (gst_structure_is_equal (msg,
            gst_custom_meta_get_structure (cm)), "%" GST_PTR_FORMAT
        " vs %" GST_PTR_FORMAT, msg, gst_custom_meta_get_structure (cm));
    /* a copy keeps it (as queue, tee, videoconvert in passthrough do) */
    copy = gst_buffer_copy (out);
    cm = gst_buffer_get_custom_meta (copy, META_NAME);
    fail_unless (cm != NULL);
    fail_unless (gst_structure_is_equal (msg,
            gst_custom_meta_get_structure (cm)));
    mean = g_value_get_double (gst_value_array_get_value
        (gst_structure_get_value (gst_custom_meta_get_structure (cm),
                "mean"), 0));
    fail_unless (mean > 0);
    gst_structure_free (msg);
    gst_buffer_unref (copy);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (h);
    gst_bus_set_flushing (bus, TRUE);
    gst_object_unref (bus);
  }
}

GST_END_TEST;

/* overlay and attach-meta switched while playing: passthrough (the same
 * buffer, untouched) exactly when both are off; post-messages=false does
 * not stop the overlay */
GST_START_TEST (test_property_changes_while_playing)
{
  GstBus *bus;
  Look l = default_look;
  GstHarness *h = new_harness (&bus, &l, FALSE);
  GstVideoInfo info;
  GstBuffer *in, *out, *copy;
  GstStructure *s;
  Model m;
  gint x;

  g_object_set (h->element, "overlay", FALSE, NULL);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_BGRA, 320,
          240));
  in = test_frame_new (GST_VIDEO_FORMAT_BGRA, 320, 240, TEST_LAYOUT_PADDED,
      9, &info);
  copy = gst_buffer_copy_deep (in);

  out = push_pull (h, in);
  fail_unless (out == in);
  fail_unless (test_frames_equal (out, copy, &info));
  fail_if (gst_buffer_get_custom_meta (out, META_NAME));
  gst_buffer_unref (out);

  g_object_set (h->element, "overlay", TRUE, NULL);
  out = push_pull (h, in);
  fail_unless (out != in);
  fail_unless (test_frames_equal (in, copy, &info), "input written");
  model_init (&m, &l, &info, &in, 1);
  check_inside (out, &info, &m, FALSE, "switched on");
  check_outside_identical (in, out, &info, &m, "switched on");
  model_clear (&m);
  gst_buffer_unref (out);

  /* moved, resized, linear, parade: the next frame follows */
  l.position = POS_TOP_LEFT;
  l.width = 150;
  l.height = 61;
  l.log = FALSE;
  l.parade = TRUE;
  g_object_set (h->element, "overlay-width", 150, "overlay-height", 61,
      "post-messages", FALSE, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "overlay-position",
      "top-left");
  gst_util_set_object_arg (G_OBJECT (h->element), "overlay-scale", "linear");
  gst_util_set_object_arg (G_OBJECT (h->element), "overlay-mode", "parade");
  while ((s = test_pop_histogram (bus)))
    gst_structure_free (s);
  out = push_pull (h, in);
  fail_unless (test_pop_histogram (bus) == NULL);
  model_init (&m, &l, &info, &in, 1);
  fail_unless_equals_int (m.vx, 240 / 40);
  check_inside (out, &info, &m, FALSE, "moved");
  check_outside_identical (in, out, &info, &m, "moved");
  /* some bars of each panel are lit */
  for (x = 0; x < m.pw * 3; x++)
    if (m.heights[x])
      break;
  fail_unless (x < m.pw * 3);
  model_clear (&m);
  gst_buffer_unref (out);

  g_object_set (h->element, "overlay", FALSE, "attach-meta", TRUE, NULL);
  out = push_pull (h, in);
  fail_unless (test_frames_equal (out, copy, &info));
  fail_unless (gst_buffer_get_custom_meta (out, META_NAME) != NULL);
  gst_buffer_unref (out);

  g_object_set (h->element, "attach-meta", FALSE, NULL);
  out = push_pull (h, in);
  fail_unless (out == in);
  gst_buffer_unref (out);

  gst_buffer_unref (copy);
  gst_buffer_unref (in);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* upstream's own composition (subtitles) is kept; ours is added on top */
GST_START_TEST (test_meta_path_keeps_upstream_composition)
{
  GstBus *bus;
  Look l = default_look;
  GstHarness *h = new_harness (&bus, &l, TRUE);
  GstCaps *caps = test_caps_new (GST_VIDEO_FORMAT_NV21, 320, 240);
  GstBuffer *in, *out, *pix;
  GstVideoOverlayRectangle *theirs;
  GstVideoOverlayComposition *comp;
  GstVideoOverlayCompositionMeta *cm;

  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  allocation_query (h, caps);
  gst_caps_unref (caps);
  in = test_frame_new (GST_VIDEO_FORMAT_NV21, 320, 240, TEST_LAYOUT_PACKED,
      1, NULL);
  pix = gst_buffer_new_allocate (NULL, 16 * 16 * 4, NULL);
  gst_buffer_memset (pix, 0, 0x80, 16 * 16 * 4);
  gst_buffer_add_video_meta (pix, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB, 16, 16);
  theirs = gst_video_overlay_rectangle_new_raw (pix, 5, 5, 16, 16,
      GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
  comp = gst_video_overlay_composition_new (theirs);
  gst_buffer_add_video_overlay_composition_meta (in, comp);
  gst_video_overlay_composition_unref (comp);

  out = push_pull (h, in);
  cm = gst_buffer_get_video_overlay_composition_meta (out);
  fail_unless (cm != NULL);
  fail_unless_equals_int (gst_video_overlay_composition_n_rectangles
      (cm->overlay), 2);
  /* theirs first (the composition is a copy: same place and size) */
  {
    gint x, y;
    guint w, hh;
    fail_unless (gst_video_overlay_rectangle_get_render_rectangle
        (gst_video_overlay_composition_get_rectangle (cm->overlay, 0), &x, &y,
            &w, &hh));
    fail_unless (x == 5 && y == 5 && w == 16 && hh == 16);
  }
  gst_video_overlay_rectangle_unref (theirs);
  gst_buffer_unref (pix);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* steady state: the overlay's pixel buffers come from a pool: many frames
 * through the meta path keep only a few of them alive */
GST_START_TEST (test_meta_path_reuses_pixels)
{
  GstBus *bus;
  Look l = default_look;
  GstHarness *h = new_harness (&bus, &l, TRUE);
  GstCaps *caps = test_caps_new (GST_VIDEO_FORMAT_RGBA, 64, 48);
  GstBuffer *in;
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  guint i;

  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  allocation_query (h, caps);
  gst_caps_unref (caps);
  in = test_frame_new (GST_VIDEO_FORMAT_RGBA, 64, 48, TEST_LAYOUT_PACKED, 2,
      NULL);
  for (i = 0; i < 20; i++) {
    GstBuffer *out = push_pull (h, in);
    GstVideoOverlayCompositionMeta *cm =
        gst_buffer_get_video_overlay_composition_meta (out);
    GstVideoOverlayRectangle *r;

    fail_unless (cm != NULL);
    r = gst_video_overlay_composition_get_rectangle (cm->overlay, 0);
    g_hash_table_add (seen, gst_video_overlay_rectangle_get_pixels_raw (r,
            GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE));
    gst_buffer_unref (out);
  }
  fail_unless (g_hash_table_size (seen) <= 2, "%u pixel buffers",
      g_hash_table_size (seen));
  g_hash_table_unref (seen);
  gst_buffer_unref (in);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* a frame in read-only memory is blended into a copy, never written */
GST_START_TEST (test_readonly_frame_copied)
{
  GstBus *bus;
  Look l = default_look;
  GstHarness *h = new_harness (&bus, &l, FALSE);
  static guint8 pixels[32 * 16 * 4];
  guint8 before[sizeof (pixels)];
  GstVideoInfo info;
  GstBuffer *in, *out;
  Model m;
  guint i;

  for (i = 0; i < sizeof (pixels); i++)
    pixels[i] = i * 13;
  memcpy (before, pixels, sizeof (pixels));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 32, 16);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_RGBA, 32,
          16));
  in = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, pixels,
      sizeof (pixels), 0, sizeof (pixels), NULL, NULL);
  out = push_pull (h, in);
  fail_unless (memcmp (before, pixels, sizeof (pixels)) == 0);
  {
    GstBuffer *copy = gst_buffer_new_memdup (before, sizeof (before));
    model_init (&m, &l, &info, &copy, 1);
    check_inside (out, &info, &m, FALSE, "read-only");
    check_outside_identical (copy, out, &info, &m, "read-only");
    model_clear (&m);
    gst_buffer_unref (copy);
  }
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  test_free_harness (h, bus);
}

GST_END_TEST;

static guint n_warnings;

static gboolean
count_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  n_warnings++;
  return TRUE;
}

/* ranges and nicks live in the GParamSpecs: out-of-range values and unknown
 * nicks are refused (GObject warns), the old value stays */
GST_START_TEST (test_property_specs)
{
  GstCheckLogFilter *filter = gst_check_add_log_filter ("GLib-GObject",
      PARAM_REFUSED_LEVELS, g_regex_new ("overlay-", 0, 0, NULL),
      count_warning, NULL, NULL);
  GstElement *el = gst_element_factory_make ("clhistogram", NULL);
  GObjectClass *k = G_OBJECT_GET_CLASS (el);
  GParamSpecDouble *a = G_PARAM_SPEC_DOUBLE (g_object_class_find_property (k,
          "overlay-alpha"));
  GParamSpecInt *w = G_PARAM_SPEC_INT (g_object_class_find_property (k,
          "overlay-width"));
  GEnumClass *e;
  gboolean overlay, meta;
  gint pos;

  fail_unless_equals_float (a->minimum, 0.0);
  fail_unless_equals_float (a->maximum, 1.0);
  fail_unless_equals_int (w->minimum, 0);
  fail_unless (w->maximum > 1920);
  e = g_type_class_ref (G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property
          (k, "overlay-position")));
  fail_unless (g_enum_get_value_by_nick (e, "top-left"));
  fail_unless (g_enum_get_value_by_nick (e, "bottom-right"));
  g_type_class_unref (e);
  e = g_type_class_ref (G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property
          (k, "overlay-scale")));
  fail_unless (g_enum_get_value_by_nick (e, "linear"));
  fail_unless (g_enum_get_value_by_nick (e, "log"));
  g_type_class_unref (e);
  e = g_type_class_ref (G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property
          (k, "overlay-mode")));
  fail_unless (g_enum_get_value_by_nick (e, "overlaid"));
  fail_unless (g_enum_get_value_by_nick (e, "parade"));
  g_type_class_unref (e);
  g_object_get (el, "overlay", &overlay, "attach-meta", &meta,
      "overlay-position", &pos, NULL);
  fail_if (overlay);
  fail_if (meta);
  fail_unless_equals_int (pos, 3);

  n_warnings = 0;
  g_object_set (el, "overlay-alpha", 1.5, "overlay-width", -3, NULL);
  fail_unless_equals_int (n_warnings, 2);
  {
    gdouble alpha;
    gint width;
    g_object_get (el, "overlay-alpha", &alpha, "overlay-width", &width, NULL);
    fail_unless_equals_float (alpha, 0.5);
    fail_unless_equals_int (width, 0);
  }
  gst_util_set_object_arg (G_OBJECT (el), "overlay-position", "middle");
  g_object_get (el, "overlay-position", &pos, NULL);
  fail_unless_equals_int (pos, 3);
  gst_check_remove_log_filter (filter);
  gst_object_unref (el);
}

GST_END_TEST;

static Suite *
cloverlay_suite (void)
{
  Suite *s = suite_create ("cloverlay");
  TCase *tc = tcase_create ("general");

  own_blender = g_getenv ("GST_CL_TEST_OVERLAY_BLEND");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_property_specs);
  if (!test_have_cl_device ())
    return s;
  tcase_add_test (tc, test_solid_column_at_value);
  tcase_add_test (tc, test_linear_and_log_heights);
  tcase_add_test (tc, test_meta_equals_message);
  tcase_add_test (tc, test_property_changes_while_playing);
  tcase_add_test (tc, test_meta_path_keeps_upstream_composition);
  tcase_add_test (tc, test_meta_path_reuses_pixels);
  tcase_add_test (tc, test_readonly_frame_copied);
  tcase_add_test (tc, test_interval);
  tcase_add_test (tc, test_interval_switched);
  tcase_add_test (tc, test_roi);
  tcase_add_test (tc, test_roi_outline);
  tcase_add_test (tc, test_positions_sizes_modes);
  tcase_add_test (tc, test_all_formats);
  tcase_add_test (tc, test_pool_frames);
  tcase_add_test (tc, test_device_equals_host);
  return s;
}

GST_CHECK_MAIN (cloverlay);
