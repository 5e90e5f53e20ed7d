/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's live overlay (see the header and docs/clhistogram.md): the
 * boxes, the bars' heights and the pixels' classes, the graph rendered into
 * a GstVideoOverlayComposition, and the draw entry points. The overlay-*
 * properties are in gstclhistogramoverlayprops.c, the blending into frames
 * on the host in gstclhistogramoverlayblend.c.
 *
 * The graph is rendered on the host into an ARGB buffer from a small pool
 * (a rectangle travels downstream and stays immutable while a sink holds it,
 * so its pixels cannot be reused in place); per frame only the small
 * rectangle and composition objects are made, and for the formats
 * gst_cl_histogram_overlay_blend_classes () handles not even those: the
 * graph goes from a class map (one byte per box pixel) straight into the
 * frame. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstclhistogramoverlaypriv.h"

/* the ROI's outline: 1 pixel up to 1079 lines, 2 at 1080p */
#define OUTLINE_PER_LINES 540

/* automatic box: a third of the frame, at most one column per 8-bit value
 * plus the padding */
#define AUTO_MAX_WIDTH 264
#define PAD 4                   /* inner padding of boxes of 32x32 and up */

/* "gstreamer": blend with gst_video_overlay_composition_blend whatever the
 * format (tests and benchmarks compare the two blenders this way); "host"
 * or "device": where the element blends (tests run the device blender on
 * PoCL this way) */
#define BLEND_ENV "GST_CL_HISTOGRAM_OVERLAY_BLEND"

GstClHistogramOverlay *
gst_cl_histogram_overlay_new (void)
{
  GstClHistogramOverlay *ov = g_new0 (GstClHistogramOverlay, 1);
  const gchar *b = g_getenv (BLEND_ENV);

  ov->gst_blend = b && !g_ascii_strcasecmp (b, "gstreamer");
  if (ov->gst_blend)
    ov->blender = GST_CL_HISTOGRAM_OVERLAY_BLENDER_GSTREAMER;
  else if (b && !g_ascii_strcasecmp (b, "host"))
    ov->blender = GST_CL_HISTOGRAM_OVERLAY_BLENDER_HOST;
  else if (b && !g_ascii_strcasecmp (b, "device"))
    ov->blender = GST_CL_HISTOGRAM_OVERLAY_BLENDER_DEVICE;
  return ov;
}

static void
drop_pool (GstClHistogramOverlay * ov)
{
  if (ov->pool) {
    gst_buffer_pool_set_active (ov->pool, FALSE);
    gst_clear_object (&ov->pool);
  }
}

static void
drop_edge_rects (GstClHistogramOverlay * ov)
{
  guint i;

  for (i = 0; i < ov->n_edge_rects; i++)
    gst_video_overlay_rectangle_unref (ov->edge_rects[i]);
  ov->n_edge_rects = 0;
}

void
gst_cl_histogram_overlay_free (GstClHistogramOverlay * ov)
{
  if (!ov)
    return;
  drop_pool (ov);
  gst_clear_buffer (&ov->aligned);
  g_free (ov->bars);
  g_free (ov->cols);
  g_free (ov->heights);
  g_free (ov->classes);
  g_free (ov->row);
  g_free (ov->raw_ends);
  g_free (ov->ends);
  g_free (ov->ends_at);
  g_free (ov->ones);
  drop_edge_rects (ov);
  g_free (ov);
}

static void
place_box (const GstClHistogramOverlaySettings * s, gint fw, gint fh,
    Box * b)
{
  gint margin = MIN (fw, fh) / 40;
  gboolean left = s->position == GST_CL_HISTOGRAM_OVERLAY_TOP_LEFT ||
      s->position == GST_CL_HISTOGRAM_OVERLAY_BOTTOM_LEFT;
  gboolean top = s->position == GST_CL_HISTOGRAM_OVERLAY_TOP_LEFT ||
      s->position == GST_CL_HISTOGRAM_OVERLAY_TOP_RIGHT;
  gint x1, y1;

  b->w = s->width ? s->width : CLAMP (fw / 3, 1, AUTO_MAX_WIDTH);
  b->h = s->height ? s->height : MAX (1, MIN (fh / 3, b->w / 2));
  b->pad = MIN (b->w, b->h) >= 32 ? PAD : 0;
  /* widths are at most 16384 (pspec): no overflow */
  b->x = left ? margin : fw - margin - b->w;
  b->y = top ? margin : fh - margin - b->h;
  b->vx = MAX (b->x, 0);
  b->vy = MAX (b->y, 0);
  x1 = MIN (b->x + b->w, fw);
  y1 = MIN (b->y + b->h, fh);
  b->vw = MAX (x1 - b->vx, 0);
  b->vh = MAX (y1 - b->vy, 0);
}

static guint
add_edge (Box * e, guint n, gint x, gint y, gint w, gint h)
{
  Box *b = &e[n];

  b->x = b->vx = x;
  b->y = b->vy = y;
  b->w = b->vw = w;
  b->h = b->vh = h;
  b->pad = 0;
  return n + 1;
}

/* The ROI's outline as up to four boxes just inside its edges (top,
 * bottom, left, right); 0 when there is nothing to outline (overlay-roi
 * off, or the ROI is the whole frame) */
static guint
outline_edges (const GstClHistogramOverlaySettings * s,
    const GstClHistogramOverlayData * d, gint fw, gint fh, Box e[4])
{
  /* the element clips the ROI to the frame; clip again all the same */
  gint x = CLAMP (d->roi[0], 0, fw), y = CLAMP (d->roi[1], 0, fh);
  gint w = CLAMP (d->roi[2], 0, fw - x), h = CLAMP (d->roi[3], 0, fh - y);
  gint t = MAX (1, MIN (fw, fh) / OUTLINE_PER_LINES);
  guint n = 0;

  if (!s->roi_outline || w == 0 || h == 0 || (w == fw && h == fh))
    return 0;
  t = MIN (t, MIN (w, h));
  n = add_edge (e, n, x, y, w, t);
  if (h > t)
    n = add_edge (e, n, x, y + h - t, w, t);
  if (h > 2 * t) {
    n = add_edge (e, n, x, y + t, t, h - 2 * t);
    if (w > t)
      n = add_edge (e, n, x + w - t, y + t, t, h - 2 * t);
  }
  return n;
}

/* channel colours as 0xRRGGBB, by name */
static guint32
channel_colour (const gchar * name)
{
  static const struct
  {
    const gchar *name;
    guint32 rgb;
  } colours[] = {
    {"red", 0xff4040}, {"green", 0x40ff40}, {"blue", 0x4060ff},
    {"luma", 0xffffff}, {"u", 0x40a0ff}, {"v", 0xff5090},
    {"alpha", 0xa0a0a0},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (colours); i++)
    if (!strcmp (name, colours[i].name))
      return colours[i].rgb;
  return 0xffffff;
}

/* @lmax: log1p (@cmax), the same for every column (log1p is no const
 * function to the compiler: errno) */
static guint
bar_height (GstClHistogramOverlayScale scale, guint64 c, guint64 cmax,
    gdouble lmax, guint gh)
{
  gdouble f;

  if (c == 0)
    return 0;
  f = scale == GST_CL_HISTOGRAM_OVERLAY_LOG ?
      log1p ((gdouble) c) / lmax : (gdouble) c / cmax;
  /* any sample shows: at least one pixel */
  return CLAMP ((guint) (gh * f + 0.5), 1, gh);
}

/* Heights of channel @c's @pw columns into @out */
static void
channel_heights (GstClHistogramOverlay * ov,
    const GstClHistogramOverlaySettings * s,
    const GstClHistogramOverlayData * d, guint c, guint pw, guint gh,
    guint16 * out)
{
  const guint64 *h = d->counts + (gsize) c * d->range;
  guint64 *bars = ov->bars, *cols = ov->cols, cmax = 0;
  gdouble lmax;
  guint v, x, b;

  memset (bars, 0, d->bins * sizeof (guint64));
  for (v = 0; v < d->range; v++)
    bars[(guint64) v * d->bins / d->range] += h[v];
  if (pw >= d->bins) {
    /* a bar spans several columns */
    for (x = 0; x < pw; x++)
      cols[x] = bars[(guint64) x * d->bins / pw];
  } else {
    memset (cols, 0, pw * sizeof (guint64));
    for (b = 0; b < d->bins; b++)
      cols[(guint64) b * pw / d->bins] += bars[b];
  }
  for (x = 0; x < pw; x++)
    cmax = MAX (cmax, cols[x]);
  lmax = s->scale == GST_CL_HISTOGRAM_OVERLAY_LOG ? log1p ((gdouble) cmax) : 0;
  for (x = 0; x < pw; x++)
    out[x] = bar_height (s->scale, cols[x], cmax, lmax, gh);
}

static gboolean
ensure_pool (GstClHistogramOverlay * ov, gint w, gint h)
{
  GstStructure *config;
  GstCaps *caps;

  if (ov->pool && GST_VIDEO_INFO_WIDTH (&ov->argb) == w &&
      GST_VIDEO_INFO_HEIGHT (&ov->argb) == h)
    return TRUE;
  drop_pool (ov);
  gst_video_info_set_format (&ov->argb, GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB,
      w, h);
  caps = gst_video_info_to_caps (&ov->argb);
  ov->pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (ov->pool);
  /* no maximum: a sink holding rectangles never stalls the stream */
  gst_buffer_pool_config_set_params (config, caps, ov->argb.size, 2, 0);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_caps_unref (caps);
  if (!gst_buffer_pool_set_config (ov->pool, config) ||
      !gst_buffer_pool_set_active (ov->pool, TRUE)) {
    drop_pool (ov);
    return FALSE;
  }
  return TRUE;
}

static guint32
add_light (guint32 a, guint32 b)
{
  guint32 r = MIN (((a >> 16) & 0xff) + ((b >> 16) & 0xff), 255);
  guint32 g = MIN (((a >> 8) & 0xff) + ((b >> 8) & 0xff), 255);

  return (r << 16) | (g << 8) | MIN ((a & 0xff) + (b & 0xff), 255);
}

/* The graph's layout in box @b for @n_channels channels (the counts
 * aside) */
static void
graph_shape (const GstClHistogramOverlaySettings * s, guint n_channels,
    const Box * b, GstClHistogramOverlayGraph * g)
{
  guint n = MIN (n_channels, MAX_CHANNELS);

  memset (g, 0, sizeof (*g));
  g->n = n;
  g->parade = s->mode == GST_CL_HISTOGRAM_OVERLAY_PARADE && n > 1;
  g->gw = MAX (b->w - 2 * b->pad, 0);
  g->gh = MAX (b->h - 2 * b->pad, 0);
  g->gap = g->parade ? b->pad : 0;
  g->pw = g->parade ? MAX ((g->gw - (gint) (n - 1) * g->gap) / (gint) n,
      0) : g->gw;
  g->left = b->x + b->pad;
  g->bottom = b->y + b->pad + (gint) g->gh - 1;
  g->log = s->scale == GST_CL_HISTOGRAM_OVERLAY_LOG;
}

/* @colours[m]: the ARGB of class m (the background's alpha for 0, opaque
 * sums of the channel colours for the others: overlapping channels mix
 * like light, red + green = yellow) */
static void
class_colours (const GstClHistogramOverlaySettings * s,
    const GstClHistogramOverlayData * d, guint32 colours[N_CLASSES])
{
  guint n = MIN (d->n_channels, MAX_CHANNELS), c, m;
  guint32 colour[MAX_CHANNELS];

  colours[0] = (guint32) (s->alpha * 255 + 0.5) << 24;
  for (c = 0; c < n; c++)
    colour[c] = channel_colour (d->names[c]);
  for (m = 1; m < (1u << n); m++) {
    guint32 rgb = 0;

    for (c = 0; c < n; c++)
      if (m & (1u << c))
        rgb = add_light (rgb, colour[c]);
    colours[m] = 0xff000000u | rgb;
  }
}

/* Classifies the visible part of box @b into ov->classes (vw x vh bytes,
 * row-major): 0 for the background, else the mask of the channels whose
 * bars reach the pixel, built row by row (a row copied whole); @colours as
 * class_colours () gives them. */
static const guint8 *
classify (GstClHistogramOverlay * ov, const GstClHistogramOverlaySettings * s,
    const GstClHistogramOverlayData * d, const Box * b,
    guint32 colours[N_CLASSES])
{
  GstClHistogramOverlayGraph g;
  guint n;
  gboolean parade;
  gint gw, gh, gap, pw, y0;
  guint16 *heights;
  guint8 *cls, *cur;
  guint64 *raw;
  guint32 *ends;
  guint *start, sum, h;
  gsize i, n_ends = 0;
  gint col, r, top = 0;
  guint c;

  graph_shape (s, d->n_channels, b, &g);
  n = g.n;
  parade = g.parade;
  gw = g.gw;
  gh = g.gh;
  gap = g.gap;
  pw = g.pw;
  /* box row of the graph's bottom row */
  y0 = g.bottom - b->vy;
  cls = ensure ((gpointer *) & ov->classes, &ov->classes_len,
      (gsize) b->vw * b->vh, 1);
  memset (cls, 0, (gsize) b->vw * b->vh);
  class_colours (s, d, colours);
  if (pw == 0 || gh == 0)
    return cls;

  ensure ((gpointer *) & ov->bars, &ov->bars_len, d->bins, sizeof (guint64));
  ensure ((gpointer *) & ov->cols, &ov->cols_len, pw, sizeof (guint64));
  heights = ensure ((gpointer *) & ov->heights, &ov->heights_len,
      (gsize) n * pw, sizeof (guint16));
  for (c = 0; c < n; c++)
    channel_heights (ov, s, d, c, pw, gh, heights + (gsize) c * pw);

  /* the graph's bottom row and, bucketed by height, where each bar ends:
   * going up a row only clears the bits of the bars ending there */
  cur = ensure ((gpointer *) & ov->row, &ov->row_len, b->vw, 1);
  raw = ensure ((gpointer *) & ov->raw_ends, &ov->raw_ends_len,
      (gsize) n * b->vw, sizeof (guint64));
  ends = ensure ((gpointer *) & ov->ends, &ov->ends_len, (gsize) n * b->vw,
      sizeof (guint32));
  start = ensure ((gpointer *) & ov->ends_at, &ov->ends_at_len, gh + 1,
      sizeof (guint));
  memset (cur, 0, b->vw);
  memset (start, 0, (gsize) (gh + 1) * sizeof (guint));
  for (col = 0; col < b->vw; col++) {
    gint gx = b->vx - b->x + col - b->pad;      /* column in the graph */
    guint first = 0, last = n, k;

    if (gx < 0 || gx >= gw)
      continue;
    if (parade) {
      first = gx / (pw + gap);
      gx -= first * (pw + gap);
      if (first >= n || gx >= pw)
        continue;               /* in a gap or the leftover columns */
      last = first + 1;
    } else if (gx >= pw) {
      continue;
    }
    for (k = first; k < last; k++) {
      guint hk = heights[(gsize) k * pw + gx];

      if (hk) {
        cur[col] |= 1u << k;
        start[hk]++;
        top = MAX (top, (gint) hk);
        raw[n_ends++] = (guint64) hk << 32 | (guint) col << 3 | k;
      }
    }
  }
  /* counting sort: bucket h ends up as [start[h - 1], start[h]) */
  for (h = 1, sum = 0; h <= (guint) gh; h++) {
    guint count = start[h];

    start[h] = sum;
    sum += count;
  }
  for (i = 0; i < n_ends; i++)
    ends[start[raw[i] >> 32]++] = (guint32) raw[i];

  for (r = 0; r < top && r <= y0; r++) {
    if (r > 0)
      for (i = start[r - 1]; i < start[r]; i++)
        cur[ends[i] >> 3] &= ~(1u << (ends[i] & 7));
    if (y0 - r < b->vh)
      memcpy (cls + (gsize) (y0 - r) * b->vw, cur, b->vw);
  }
  return cls;
}

/* Renders the visible part of box @b into @frame (ARGB, native endian) */
static void
render (GstClHistogramOverlay * ov, const GstClHistogramOverlaySettings * s,
    const GstClHistogramOverlayData * d, const Box * b, GstVideoFrame * frame)
{
  guint32 colours[N_CLASSES];
  const guint8 *cls = classify (ov, s, d, b, colours);
  guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  gint row, col;

  for (row = 0; row < b->vh; row++) {
    guint32 *out = (guint32 *) (data + (gsize) row * stride);
    const guint8 *in = cls + (gsize) row * b->vw;

    for (col = 0; col < b->vw; col++)
      out[col] = colours[in[col]];
  }
}

/* Adds our rectangles to @buf's composition meta, or makes one */
static void
attach_composition (GstBuffer * buf, GstVideoOverlayComposition * ours)
{
  GstVideoOverlayCompositionMeta *meta =
      gst_buffer_get_video_overlay_composition_meta (buf);
  GstVideoOverlayComposition *comp;
  guint i;

  if (meta) {
    /* upstream's composition (e.g. subtitles): keep it, add ours on top */
    comp = gst_video_overlay_composition_copy (meta->overlay);
    for (i = 0; i < gst_video_overlay_composition_n_rectangles (ours); i++)
      gst_video_overlay_composition_add_rectangle (comp,
          gst_video_overlay_composition_get_rectangle (ours, i));
    gst_buffer_remove_video_overlay_composition_meta (buf, meta);
  } else {
    comp = gst_video_overlay_composition_ref (ours);
  }
  gst_buffer_add_video_overlay_composition_meta (buf, comp);
  gst_video_overlay_composition_unref (comp);
}

/* @comp (may be NULL) with @rect added on top; takes @rect */
static GstVideoOverlayComposition *
add_to_composition (GstVideoOverlayComposition * comp,
    GstVideoOverlayRectangle * rect)
{
  if (!comp)
    comp = gst_video_overlay_composition_new (rect);
  else
    gst_video_overlay_composition_add_rectangle (comp, rect);
  gst_video_overlay_rectangle_unref (rect);
  return comp;
}

/* The outline's edges as opaque white ARGB rectangles, made again only
 * when the edges change */
static void
ensure_edge_rects (GstClHistogramOverlay * ov, const Box * e, guint n)
{
  guint i;

  if (n == ov->n_edge_rects && !memcmp (e, ov->edge_boxes, n * sizeof (Box)))
    return;
  drop_edge_rects (ov);
  for (i = 0; i < n; i++) {
    gsize size = (gsize) e[i].w * e[i].h * 4;
    GstBuffer *px = gst_buffer_new_allocate (NULL, size, NULL);

    gst_buffer_memset (px, 0, 0xff, size);
    gst_buffer_add_video_meta (px, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB, e[i].w, e[i].h);
    ov->edge_rects[i] = gst_video_overlay_rectangle_new_raw (px, e[i].x,
        e[i].y, e[i].w, e[i].h, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
    gst_buffer_unref (px);
    ov->edge_boxes[i] = e[i];
  }
  ov->n_edge_rects = n;
}

gboolean
gst_cl_histogram_overlay_draw (GstClHistogramOverlay * ov,
    const GstClHistogramOverlaySettings * s, const GstVideoInfo * info,
    GstBuffer * buf, gboolean attach, const GstClHistogramOverlayData * data)
{
  gint fw = GST_VIDEO_INFO_WIDTH (info), fh = GST_VIDEO_INFO_HEIGHT (info);
  GstVideoOverlayComposition *comp = NULL;
  GstVideoFrame argb, frame;
  GstBuffer *pixels = NULL;
  gboolean ok = TRUE, graph;
  Box boxes[5], *b = &boxes[0], *edges = &boxes[1];
  guint n_edges, i;

  place_box (s, fw, fh, b);
  graph = b->vw > 0 && b->vh > 0 && data->n_channels && data->bins;
  n_edges = outline_edges (s, data, fw, fh, edges);
  if (!graph && !n_edges)
    return TRUE;

  if (!attach && !ov->gst_blend &&
      gst_cl_histogram_overlay_can_blend_fast (info->finfo)) {
    /* no rectangles needed: the classes go straight into the pixels */
    if (!gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
            GST_MAP_READWRITE))
      return FALSE;
    if (graph) {
      guint32 colours[N_CLASSES];
      const guint8 *cls = classify (ov, s, data, b, colours);

      gst_cl_histogram_overlay_blend_classes (&frame, b, cls, colours,
          1u << MIN (data->n_channels, MAX_CHANNELS));
    }
    if (n_edges)
      gst_cl_histogram_overlay_blend_edges (ov, &frame, edges, n_edges);
    gst_video_frame_unmap (&frame);
    return TRUE;
  }

  if (graph) {
    if (!ensure_pool (ov, b->vw, b->vh) ||
        gst_buffer_pool_acquire_buffer (ov->pool, &pixels, NULL) !=
        GST_FLOW_OK)
      return FALSE;
    if (!gst_video_frame_map (&argb, &ov->argb, pixels, GST_MAP_WRITE)) {
      gst_buffer_unref (pixels);
      return FALSE;
    }
    render (ov, s, data, b, &argb);
    gst_video_frame_unmap (&argb);
    comp = add_to_composition (NULL, gst_video_overlay_rectangle_new_raw
        (pixels, b->vx, b->vy, b->vw, b->vh,
            GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE));
    gst_buffer_unref (pixels);
  }
  if (n_edges) {
    ensure_edge_rects (ov, edges, n_edges);
    for (i = 0; i < n_edges; i++)
      comp = add_to_composition (comp,
          gst_video_overlay_rectangle_ref (ov->edge_rects[i]));
  }

  if (attach) {
    attach_composition (buf, comp);
  } else if (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_READWRITE)) {
    /* the graph's box only when it is drawn */
    ok = graph ?
        gst_cl_histogram_overlay_blend (ov, comp, boxes, n_edges + 1, &frame) :
        gst_cl_histogram_overlay_blend (ov, comp, edges, n_edges, &frame);
    gst_video_frame_unmap (&frame);
  } else {
    ok = FALSE;
  }
  gst_video_overlay_composition_unref (comp);
  return ok;
}

GstClHistogramOverlayBlender
gst_cl_histogram_overlay_get_blender (GstClHistogramOverlay * ov)
{
  return ov->blender;
}

gboolean
gst_cl_histogram_overlay_takes_boxes (GstClHistogramOverlay * ov,
    const GstVideoInfo * info)
{
  return !ov->gst_blend &&
      gst_cl_histogram_overlay_can_blend_fast (info->finfo);
}

/* @out's rectangle @b with @graph (NULL: class 1 everywhere) and the
 * colours of every component of @info for @colours (@n_cls classes), as
 * gst_cl_histogram_overlay_blend_classes () computes them */
static void
make_box (GstClHistogramOverlayBox * out, const Box * b,
    const GstVideoInfo * info, const GstClHistogramOverlayGraph * graph,
    const guint32 colours[N_CLASSES], guint n_cls)
{
  const GstVideoFormatInfo *fi = info->finfo;
  gboolean yuv = !GST_VIDEO_FORMAT_INFO_IS_RGB (fi);
  guint c;

  out->x = b->vx;
  out->y = b->vy;
  out->w = b->vw;
  out->h = b->vh;
  out->graph = graph;
  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++) {
    CompTables t;

    gst_cl_histogram_overlay_comp_tables (&t, colours, n_cls, yuv, c,
        GST_VIDEO_FORMAT_INFO_DEPTH (fi, c) > 8);
    out->comp[c].bg = t.bg_o;
    out->comp[c].a = t.a;
    memcpy (out->comp[c].bar, t.bar, sizeof (t.bar));
  }
}

/* The graph of box @b into @g, with its heights when @d has counts */
static void
make_graph (GstClHistogramOverlay * ov,
    const GstClHistogramOverlaySettings * s,
    const GstClHistogramOverlayData * d, const Box * b,
    GstClHistogramOverlayGraph * g)
{
  guint c;

  graph_shape (s, d->n_channels, b, g);
  g->bins = d->bins;
  g->range = d->range;
  if (g->pw == 0 || g->gh == 0) {
    g->n = 0;
    return;
  }
  if (!d->counts)
    return;
  ensure ((gpointer *) & ov->bars, &ov->bars_len, d->bins, sizeof (guint64));
  ensure ((gpointer *) & ov->cols, &ov->cols_len, g->pw, sizeof (guint64));
  ensure ((gpointer *) & ov->heights, &ov->heights_len,
      (gsize) g->n * g->pw, sizeof (guint16));
  for (c = 0; c < g->n; c++)
    channel_heights (ov, s, d, c, g->pw, g->gh,
        ov->heights + (gsize) c * g->pw);
  g->heights = ov->heights;
}

gboolean
gst_cl_histogram_overlay_draw_boxes (GstClHistogramOverlay * ov,
    const GstClHistogramOverlaySettings * s, const GstVideoInfo * info,
    const GstClHistogramOverlayData * data, GstClHistogramOverlayBoxFunc func,
    gpointer user_data)
{
  static const guint32 outline[N_CLASSES] = { 0, OUTLINE_ARGB };
  gint fw = GST_VIDEO_INFO_WIDTH (info), fh = GST_VIDEO_INFO_HEIGHT (info);
  GstClHistogramOverlayBox out[5];
  GstClHistogramOverlayGraph graph;
  Box boxes[5], *b = &boxes[0], *edges = &boxes[1];
  guint n_edges, n = 0, i;

  place_box (s, fw, fh, b);
  n_edges = outline_edges (s, data, fw, fh, edges);
  if (b->vw > 0 && b->vh > 0 && data->n_channels && data->bins) {
    guint32 colours[N_CLASSES];

    class_colours (s, data, colours);
    make_graph (ov, s, data, b, &graph);
    make_box (&out[n++], b, info, &graph, colours,
        1u << MIN (data->n_channels, MAX_CHANNELS));
  }
  for (i = 0; i < n_edges; i++)
    make_box (&out[n++], &edges[i], info, NULL, outline, 2);
  return n == 0 || func (user_data, out, n);
}
