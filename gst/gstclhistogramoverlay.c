/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's live overlay (see the header and docs/clhistogram.md).
 *
 * The graph is rendered on the host into an ARGB buffer from a small pool
 * (a rectangle travels downstream and stays immutable while a sink holds it,
 * so its pixels cannot be reused in place); per frame only the small
 * rectangle and composition objects are made, and for the formats
 * blend_classes handles not even those: the graph goes from a class map
 * (one byte per box pixel) straight into the frame. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstclhistogramoverlay.h"
#include "gstclhistogramrows.h"

#define DEFAULT_OVERLAY FALSE
#define DEFAULT_SCALE GST_CL_HISTOGRAM_OVERLAY_LOG
#define DEFAULT_POSITION GST_CL_HISTOGRAM_OVERLAY_BOTTOM_RIGHT
#define DEFAULT_WIDTH 0
#define DEFAULT_HEIGHT 0
#define DEFAULT_ALPHA 0.5
#define DEFAULT_MODE GST_CL_HISTOGRAM_OVERLAY_OVERLAID
#define DEFAULT_ROI_OUTLINE FALSE
/* the ROI's outline: opaque white, 1 pixel up to 1079 lines, 2 at 1080p */
#define OUTLINE_ARGB 0xffffffffu
#define OUTLINE_PER_LINES 540

/* automatic box: a third of the frame, at most one column per 8-bit value
 * plus the padding */
#define AUTO_MAX_WIDTH 264
#define PAD 4                   /* inner padding of boxes of 32x32 and up */
/* channels drawn (the element has 7 kinds); a pixel's class is the mask of
 * the channels whose bars reach it, 0 for the background */
#define MAX_CHANNELS 7
#define N_CLASSES (1 << MAX_CHANNELS)
G_STATIC_ASSERT (N_CLASSES == GST_CL_HISTOGRAM_OVERLAY_CLASSES);

/* "gstreamer": blend with gst_video_overlay_composition_blend whatever the
 * format (tests and benchmarks compare the two blenders this way); "host"
 * or "device": where the element blends (tests run the device blender on
 * PoCL this way) */
#define BLEND_ENV "GST_CL_HISTOGRAM_OVERLAY_BLEND"

/* property ids relative to the first one */
enum
{
  OV_PROP_OVERLAY,
  OV_PROP_SCALE,
  OV_PROP_POSITION,
  OV_PROP_WIDTH,
  OV_PROP_HEIGHT,
  OV_PROP_ALPHA,
  OV_PROP_MODE,
  OV_PROP_ROI_OUTLINE,
};

G_STATIC_ASSERT (OV_PROP_ROI_OUTLINE + 1 == GST_CL_HISTOGRAM_OVERLAY_N_PROPS);

static GType
scale_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_HISTOGRAM_OVERLAY_LINEAR, "Bar height proportional to the count",
        "linear"},
    {GST_CL_HISTOGRAM_OVERLAY_LOG, "Bar height proportional to log(1 + count)",
        "log"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstClHistogramOverlayScale", values));
  return type;
}

static GType
position_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_HISTOGRAM_OVERLAY_TOP_LEFT, "Top left corner", "top-left"},
    {GST_CL_HISTOGRAM_OVERLAY_TOP_RIGHT, "Top right corner", "top-right"},
    {GST_CL_HISTOGRAM_OVERLAY_BOTTOM_LEFT, "Bottom left corner",
        "bottom-left"},
    {GST_CL_HISTOGRAM_OVERLAY_BOTTOM_RIGHT, "Bottom right corner",
        "bottom-right"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstClHistogramOverlayPosition", values));
  return type;
}

static GType
mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_HISTOGRAM_OVERLAY_OVERLAID, "All channels on one graph",
        "overlaid"},
    {GST_CL_HISTOGRAM_OVERLAY_PARADE, "One graph per channel, side by side",
        "parade"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstClHistogramOverlayMode", values));
  return type;
}

void
gst_cl_histogram_overlay_settings_init (GstClHistogramOverlaySettings * s)
{
  s->enabled = DEFAULT_OVERLAY;
  s->scale = DEFAULT_SCALE;
  s->position = DEFAULT_POSITION;
  s->width = DEFAULT_WIDTH;
  s->height = DEFAULT_HEIGHT;
  s->alpha = DEFAULT_ALPHA;
  s->mode = DEFAULT_MODE;
  s->roi_outline = DEFAULT_ROI_OUTLINE;
}

void
gst_cl_histogram_overlay_install (GObjectClass * klass, guint first_id)
{
  GParamFlags live = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE;

  g_object_class_install_property (klass, first_id + OV_PROP_OVERLAY,
      g_param_spec_boolean ("overlay", "Overlay",
          "Draw the histogram onto the frames (as a "
          "GstVideoOverlayCompositionMeta when downstream supports it, else "
          "blended into the pixels); FALSE: frames pass through untouched",
          DEFAULT_OVERLAY, live));
  g_object_class_install_property (klass, first_id + OV_PROP_SCALE,
      g_param_spec_enum ("overlay-scale", "Overlay scale",
          "Height of the overlay's bars: linear in the count, or "
          "logarithmic (shows small counts)", scale_get_type (),
          DEFAULT_SCALE, live));
  g_object_class_install_property (klass, first_id + OV_PROP_POSITION,
      g_param_spec_enum ("overlay-position", "Overlay position",
          "Corner of the frame the overlay is drawn in", position_get_type (),
          DEFAULT_POSITION, live));
  g_object_class_install_property (klass, first_id + OV_PROP_WIDTH,
      g_param_spec_int ("overlay-width", "Overlay width",
          "Width of the overlay box in pixels (0 = a third of the frame "
          "width, at most 264; clipped to the frame)", 0, 16384,
          DEFAULT_WIDTH, live));
  g_object_class_install_property (klass, first_id + OV_PROP_HEIGHT,
      g_param_spec_int ("overlay-height", "Overlay height",
          "Height of the overlay box in pixels (0 = half its width, at most "
          "a third of the frame height; clipped to the frame)", 0, 16384,
          DEFAULT_HEIGHT, live));
  g_object_class_install_property (klass, first_id + OV_PROP_ALPHA,
      g_param_spec_double ("overlay-alpha", "Overlay alpha",
          "Opacity of the dark box behind the bars (0 = bars only, "
          "1 = opaque black); bars are opaque", 0.0, 1.0, DEFAULT_ALPHA,
          live));
  g_object_class_install_property (klass, first_id + OV_PROP_MODE,
      g_param_spec_enum ("overlay-mode", "Overlay mode",
          "overlaid: every channel on one graph (overlaps add up: red + "
          "green = yellow); parade: one graph per channel, side by side",
          mode_get_type (), DEFAULT_MODE, live));
  g_object_class_install_property (klass, first_id + OV_PROP_ROI_OUTLINE,
      g_param_spec_boolean ("overlay-roi", "Overlay ROI outline",
          "With overlay: also outline the region of interest (roi-*) the "
          "histogram counts, in white, when it is smaller than the frame",
          DEFAULT_ROI_OUTLINE, live));

  gst_type_mark_as_plugin_api (scale_get_type (), 0);
  gst_type_mark_as_plugin_api (position_get_type (), 0);
  gst_type_mark_as_plugin_api (mode_get_type (), 0);
}

gboolean
gst_cl_histogram_overlay_set_property (GstClHistogramOverlaySettings * s,
    guint id, const GValue * value)
{
  switch (id) {
    case OV_PROP_OVERLAY:
      s->enabled = g_value_get_boolean (value);
      break;
    case OV_PROP_SCALE:
      s->scale = g_value_get_enum (value);
      break;
    case OV_PROP_POSITION:
      s->position = g_value_get_enum (value);
      break;
    case OV_PROP_WIDTH:
      s->width = g_value_get_int (value);
      break;
    case OV_PROP_HEIGHT:
      s->height = g_value_get_int (value);
      break;
    case OV_PROP_ALPHA:
      s->alpha = g_value_get_double (value);
      break;
    case OV_PROP_MODE:
      s->mode = g_value_get_enum (value);
      break;
    case OV_PROP_ROI_OUTLINE:
      s->roi_outline = g_value_get_boolean (value);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cl_histogram_overlay_get_property (const GstClHistogramOverlaySettings *
    s, guint id, GValue * value)
{
  switch (id) {
    case OV_PROP_OVERLAY:
      g_value_set_boolean (value, s->enabled);
      break;
    case OV_PROP_SCALE:
      g_value_set_enum (value, s->scale);
      break;
    case OV_PROP_POSITION:
      g_value_set_enum (value, s->position);
      break;
    case OV_PROP_WIDTH:
      g_value_set_int (value, s->width);
      break;
    case OV_PROP_HEIGHT:
      g_value_set_int (value, s->height);
      break;
    case OV_PROP_ALPHA:
      g_value_set_double (value, s->alpha);
      break;
    case OV_PROP_MODE:
      g_value_set_enum (value, s->mode);
      break;
    case OV_PROP_ROI_OUTLINE:
      g_value_set_boolean (value, s->roi_outline);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

/* ---- drawing ---- */

/* the box in frame coordinates and its visible (clipped) part */
typedef struct
{
  gint x, y, w, h;              /* whole box, may reach outside the frame */
  gint vx, vy, vw, vh;          /* visible part */
  gint pad;
} Box;

struct _GstClHistogramOverlay
{
  gboolean gst_blend;           /* always gst_video_overlay_composition_blend */
  GstClHistogramOverlayBlender blender;
  GstBufferPool *pool;          /* ARGB pixels of the visible box */
  GstVideoInfo argb;
  GstBuffer *aligned;           /* scratch frame for odd layouts */
  GstVideoInfo aligned_info;
  guint64 *bars;                /* bins */
  guint64 *cols;                /* one panel's columns */
  guint16 *heights;             /* n_channels * graph width */
  guint8 *classes;              /* visible box, one byte per pixel */
  guint8 *row;                  /* classes of one row */
  guint64 *raw_ends;            /* (height, column, channel) of each bar */
  guint32 *ends;                /* the same sorted by height */
  guint *ends_at;               /* gh + 1 */
  guint8 *ones;                 /* class 1 for an outline edge */
  gsize bars_len, cols_len, heights_len, classes_len, row_len, raw_ends_len,
      ends_len, ends_at_len, ones_len;
  /* the ROI outline's edges as rectangles, kept while the edges stay (no
   * allocation per frame) */
  GstVideoOverlayRectangle *edge_rects[4];
  Box edge_boxes[4];
  guint n_edge_rects;
};

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

/* Grows *@p to @n elements of @size bytes; steady state never reallocates */
static gpointer
ensure (gpointer * p, gsize * len, gsize n, gsize size)
{
  if (*len < n) {
    g_free (*p);
    *p = g_malloc0_n (n, size);
    *len = n;
  }
  return *p;
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

/* ---- blending ---- */

/* Formats whose every component is a plain 8-bit or 16-bit LE sample:
 * blend_classes handles them */
static gboolean
can_blend_fast (const GstVideoFormatInfo * fi)
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

/* Per-frame tables of one component: the background (alpha a) over any
 * sample value, and each bar class's (opaque) sample */
typedef GstClHistogramComp CompTables;

/* "Over" into an opaque frame: a sample takes o * a + v * (1 - a) for the
 * overlay value o; an alpha component's o is 255 (a + alpha * (1 - a)).
 * The background is one alpha over the whole box, bars are opaque. */
static void
comp_tables (CompTables * t, const guint32 colours[N_CLASSES], guint n_cls,
    gboolean yuv, guint c, gboolean deep)
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

/* Blends the classes @cls of box @b into @f (a format can_blend_fast
 * takes): one loop per pixel layout, no per-sample calls or switches */
static void
blend_classes (GstVideoFrame * f, const Box * b, const guint8 * cls,
    const guint32 colours[N_CLASSES], guint n_cls)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  gboolean yuv = !GST_VIDEO_FORMAT_INFO_IS_RGB (fi);
  guint n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi), c;
  CompTables t[GST_VIDEO_MAX_COMPONENTS];
  const gint rect[4] = { b->vx, b->vy, b->vw, b->vh };

  for (c = 0; c < n; c++)
    comp_tables (&t[c], colours, n_cls, yuv, c,
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
static gboolean
blend (GstClHistogramOverlay * ov, GstVideoOverlayComposition * comp,
    const Box * b, guint n, GstVideoFrame * frame)
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

/* Blends the outline's edges @e into @f (a format can_blend_fast takes):
 * class 1 everywhere, white */
static void
blend_edges (GstClHistogramOverlay * ov, GstVideoFrame * f, const Box * e,
    guint n)
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
    blend_classes (f, &e[i], ones, colours, 2);
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

  if (!attach && !ov->gst_blend && can_blend_fast (info->finfo)) {
    /* no rectangles needed: the classes go straight into the pixels */
    if (!gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
            GST_MAP_READWRITE))
      return FALSE;
    if (graph) {
      guint32 colours[N_CLASSES];
      const guint8 *cls = classify (ov, s, data, b, colours);

      blend_classes (&frame, b, cls, colours,
          1u << MIN (data->n_channels, MAX_CHANNELS));
    }
    if (n_edges)
      blend_edges (ov, &frame, edges, n_edges);
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
    ok = graph ? blend (ov, comp, boxes, n_edges + 1, &frame) :
        blend (ov, comp, edges, n_edges, &frame);
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
  return !ov->gst_blend && can_blend_fast (info->finfo);
}

/* @out's rectangle @b with @graph (NULL: class 1 everywhere) and the
 * colours of every component of @info for @colours (@n_cls classes), as
 * blend_classes computes them */
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

    comp_tables (&t, colours, n_cls, yuv, c,
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
