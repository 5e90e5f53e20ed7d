/* GStreamer OpenCL filters: clhistogram
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-clhistogram
 * @title: clhistogram
 *
 * Computes per-frame histograms of video on an OpenCL device and posts them
 * on the bus as "histogram" element messages. Frames pass through untouched
 * (the same buffers, not copied).
 *
 * Channels: red, green and blue for RGB formats, luma for YUV and gray by
 * default; luma computed from RGB (BT.601 or BT.709 weights from the caps'
 * colorimetry), chroma (u, v) and alpha on request. With `interval` > 0 the
 * frames of each interval are accumulated into one message, the last partial
 * interval is posted at EOS. A timestamp going backwards closes the interval
 * in progress and starts a new one; an unstamped frame posts a message of
 * its own and leaves the interval undisturbed. Stream and running time are
 * GST_CLOCK_TIME_NONE unless the segment is in TIME. See docs/clhistogram.md
 * for the message layout.
 *
 * With `overlay=true` the histogram is drawn onto the frames themselves (a
 * live camera histogram; on GPUs blended into the frame's device copy, see
 * docs/clhistogram.md); with `attach-meta=true` every buffer carries its
 * histogram as a GstCustomMeta named "GstClHistogramMeta".
 *
 * The "histogram" message fields: `timestamp`, `stream-time`,
 * `running-time`, `duration`, `frames`, `pixels` (guint64); `width`,
 * `height`, `roi-x`, `roi-y`, `roi-width`, `roi-height` (gint); `bins`
 * (guint); and one GstValueArray entry per channel: `channels` (names),
 * `mean`, `stddev`, `clip-low`, `clip-high` (gdouble), `min`, `max` (guint)
 * and `counts` (guint64 per bin). #GstClHistogram:message-counts `bytes`
 * gives the counts as one `counts-<channel>` GBytes of guint64 per channel
 * instead, `none` leaves them out.
 *
 * #GstClHistogram:channels steers negotiation: only formats that have every
 * requested channel are offered upstream. QoS is off (unlike GStreamer's
 * video filters): a dropped frame would be a missing histogram.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! clhistogram overlay=true ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 -m videotestsrc num-buffers=10 ! clhistogram ! fakesink
 * gst-launch-1.0 -m videotestsrc ! video/x-raw,format=I420 ! \
 *     clhistogram channels=luma+u+v bins=64 interval=1000000000 ! fakesink
 * gst-launch-1.0 -m v4l2src ! videoconvert ! video/x-raw,format=BGRx ! \
 *     clhistogram channels=luma roi-x=100 roi-y=100 roi-width=320 \
 *     roi-height=240 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclhistogrampriv.h"
#include "gstclhistogrammeta.h"
#include "gstclelements.h"

GST_DEBUG_CATEGORY (gst_cl_histogram_debug);

#define DEFAULT_PROP_CHANNELS 0
#define DEFAULT_PROP_BINS 256
#define DEFAULT_PROP_ROI_X 0
#define DEFAULT_PROP_ROI_Y 0
#define DEFAULT_PROP_ROI_WIDTH 0
#define DEFAULT_PROP_ROI_HEIGHT 0
#define DEFAULT_PROP_POST_MESSAGES TRUE
#define DEFAULT_PROP_INTERVAL 0
#define DEFAULT_PROP_ATTACH_META FALSE
#define DEFAULT_PROP_MESSAGE_COUNTS GST_CL_HISTOGRAM_COUNTS_ARRAY

enum
{
  PROP_0,
  PROP_CHANNELS,
  PROP_BINS,
  PROP_ROI_X,
  PROP_ROI_Y,
  PROP_ROI_WIDTH,
  PROP_ROI_HEIGHT,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
  PROP_ATTACH_META,
  PROP_MESSAGE_COUNTS,
  /* overlay, overlay-scale, ... (gstclhistogramoverlay.c) from here on */
  PROP_OVERLAY_FIRST,
};

#define GST_TYPE_CL_HISTOGRAM_CHANNELS (gst_cl_histogram_channels_get_type ())
static GType gst_cl_histogram_channels_get_type (void);

G_DEFINE_TYPE (GstClHistogram, gst_cl_histogram, GST_TYPE_CL_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (clhistogram, "clhistogram", GST_RANK_NONE,
    GST_TYPE_CL_HISTOGRAM);

#define FORMATS "{ GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, ARGB, ABGR, " \
    "RGBx, BGRx, xRGB, xBGR, I420, YV12, NV12, NV21, Y42B, Y444, YUY2, UYVY }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_FILTER_CAPS (FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_FILTER_CAPS (FORMATS)));

/* bit i of the channels flags; also the order of channels in messages */
static const GFlagsValue channel_values[] = {
  {0, "Default channels of the format (RGB: red+green+blue, else luma)",
      "auto"},
  {GST_CL_HISTOGRAM_RED, "Red", "red"},
  {GST_CL_HISTOGRAM_GREEN, "Green", "green"},
  {GST_CL_HISTOGRAM_BLUE, "Blue", "blue"},
  {GST_CL_HISTOGRAM_LUMA, "Luma (Y, gray, or computed from RGB)", "luma"},
  {GST_CL_HISTOGRAM_U, "Chroma U (Cb)", "u"},
  {GST_CL_HISTOGRAM_V, "Chroma V (Cr)", "v"},
  {GST_CL_HISTOGRAM_ALPHA, "Alpha", "alpha"},
  {0, NULL, NULL}
};

static GType
gst_cl_histogram_channels_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstClHistogramChannels",
        channel_values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void gst_cl_histogram_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cl_histogram_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cl_histogram_finalize (GObject * object);
static gboolean gst_cl_histogram_set_info (GstClBaseFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);
static void gst_cl_histogram_reset (GstClBaseFilter * filter);
static gboolean gst_cl_histogram_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_cl_histogram_start (GstBaseTransform * trans);
static gboolean gst_cl_histogram_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstCaps *gst_cl_histogram_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);

static void
gst_cl_histogram_class_init (GstClHistogramClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClBaseFilterClass *filter_class = GST_CL_BASE_FILTER_CLASS (klass);
  GParamFlags live = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_cl_histogram_debug, "clhistogram", 0,
      "OpenCL histogram");

  gobject_class->set_property = gst_cl_histogram_set_property;
  gobject_class->get_property = gst_cl_histogram_get_property;
  gobject_class->finalize = gst_cl_histogram_finalize;

  g_object_class_install_property (gobject_class, PROP_CHANNELS,
      g_param_spec_flags ("channels", "Channels",
          "Channels to count, e.g. \"red+green+blue\" or \"luma+u+v\"; "
          "\"auto\" (0) = red+green+blue for RGB formats, luma otherwise. "
          "luma on RGB formats is computed with BT.709 weights when the caps' "
          "colorimetry says bt709, BT.601 otherwise",
          GST_TYPE_CL_HISTOGRAM_CHANNELS, DEFAULT_PROP_CHANNELS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* the format's own limit (256 for 8-bit) is checked when caps are set */
  g_object_class_install_property (gobject_class, PROP_BINS,
      g_param_spec_uint ("bins", "Bins",
          "Number of bins: 2 to 256 for 8-bit formats (more are reduced to "
          "256 with a warning when caps are set), 2 to 65536 for GRAY16_LE; "
          "value v goes to bin v * bins / (256 or 65536)",
          2, 65536, DEFAULT_PROP_BINS, live));
  g_object_class_install_property (gobject_class, PROP_ROI_X,
      g_param_spec_int ("roi-x", "ROI x",
          "Left edge of the region of interest (pixels; < frame width)",
          0, G_MAXINT, DEFAULT_PROP_ROI_X, live));
  g_object_class_install_property (gobject_class, PROP_ROI_Y,
      g_param_spec_int ("roi-y", "ROI y",
          "Top edge of the region of interest (pixels; < frame height)",
          0, G_MAXINT, DEFAULT_PROP_ROI_Y, live));
  g_object_class_install_property (gobject_class, PROP_ROI_WIDTH,
      g_param_spec_int ("roi-width", "ROI width",
          "Width of the region of interest (0 = to the right edge; clipped "
          "to the frame)", 0, G_MAXINT, DEFAULT_PROP_ROI_WIDTH, live));
  g_object_class_install_property (gobject_class, PROP_ROI_HEIGHT,
      g_param_spec_int ("roi-height", "ROI height",
          "Height of the region of interest (0 = to the bottom edge; "
          "clipped to the frame)", 0, G_MAXINT, DEFAULT_PROP_ROI_HEIGHT,
          live));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post \"histogram\" element messages (FALSE: count nothing)",
          DEFAULT_PROP_POST_MESSAGES, live));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Nanoseconds of video per message (0 = one message per frame); "
          "frames of an interval are accumulated, the last partial interval "
          "is posted at EOS", 0, G_MAXUINT64, DEFAULT_PROP_INTERVAL, live));
  g_object_class_install_property (gobject_class, PROP_ATTACH_META,
      g_param_spec_boolean ("attach-meta", "Attach meta",
          "Attach each frame's histogram (the \"histogram\" message's "
          "structure; with interval > 0 the interval so far) to the buffer "
          "as a GstCustomMeta named \"" GST_CL_HISTOGRAM_META_NAME "\"",
          DEFAULT_PROP_ATTACH_META, live));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_COUNTS,
      g_param_spec_enum ("message-counts", "Message counts",
          "How messages (and the meta) carry the counts: \"array\" (a "
          "\"counts\" array of arrays, easy from bindings), \"bytes\" (a "
          "\"counts-<channel>\" GBytes of guint64 per channel, compact and "
          "cheap with many bins) or \"none\" (statistics only)",
          gst_cl_histogram_message_counts_get_type (),
          DEFAULT_PROP_MESSAGE_COUNTS, live));
  gst_cl_histogram_overlay_install (gobject_class, PROP_OVERLAY_FIRST);
  gst_cl_histogram_meta_register ();

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "OpenCL histogram",
      "Filter/Analyzer/Video",
      "Computes video histograms on an OpenCL device and posts them as "
      "\"histogram\" element messages", GST_CL_ELEMENT_AUTHOR);

  /* FALSE: passthrough follows overlay and attach-meta (update_passthrough),
   * caps are the same on both sides anyway */
  trans_class->passthrough_on_same_caps = FALSE;
  /* TRUE: transform_ip is called in passthrough with the buffer as it
   * came (possibly not writable; we only read it). With FALSE basetransform
   * would not call it at all in passthrough. */
  trans_class->transform_ip_on_passthrough = TRUE;
  trans_class->transform_ip = gst_cl_histogram_transform_ip;
  /* in place only: the base class's transform() writes a second buffer */
  trans_class->transform = NULL;
  trans_class->sink_event = gst_cl_histogram_sink_event;
  trans_class->start = gst_cl_histogram_start;
  trans_class->query = gst_cl_histogram_query;
  trans_class->transform_caps = gst_cl_histogram_transform_caps;

  filter_class->set_info = gst_cl_histogram_set_info;
  filter_class->reset = gst_cl_histogram_reset;
  filter_class->process = gst_cl_histogram_process;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_HISTOGRAM_CHANNELS, 0);
  gst_type_mark_as_plugin_api (gst_cl_histogram_message_counts_get_type (),
      0);
}

static void
gst_cl_histogram_init (GstClHistogram * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);

  self->channels = DEFAULT_PROP_CHANNELS;
  self->bins = DEFAULT_PROP_BINS;
  self->roi_x = DEFAULT_PROP_ROI_X;
  self->roi_y = DEFAULT_PROP_ROI_Y;
  self->roi_width = DEFAULT_PROP_ROI_WIDTH;
  self->roi_height = DEFAULT_PROP_ROI_HEIGHT;
  self->post_messages = DEFAULT_PROP_POST_MESSAGES;
  self->interval = DEFAULT_PROP_INTERVAL;
  self->attach_meta = DEFAULT_PROP_ATTACH_META;
  self->message_counts = DEFAULT_PROP_MESSAGE_COUNTS;
  gst_cl_histogram_overlay_settings_init (&self->overlay_set);
  self->overlay = gst_cl_histogram_overlay_new ();
  self->start_ts = self->end_ts = self->prev_ts = GST_CLOCK_TIME_NONE;

  gst_base_transform_set_passthrough (trans, TRUE);
  /* a dropped frame would be a missing histogram */
  gst_base_transform_set_qos_enabled (trans, FALSE);
}

/* Frame size once caps are known, else FALSE (called with the object lock) */
static gboolean
frame_size (GstClHistogram * self, gint * w, gint * h, guint * range)
{
  const GstVideoInfo *info =
      gst_cl_base_filter_get_in_info (GST_CL_BASE_FILTER (self));

  if (!self->configured || !info->finfo)
    return FALSE;
  *w = GST_VIDEO_INFO_WIDTH (info);
  *h = GST_VIDEO_INFO_HEIGHT (info);
  *range = self->range;
  return TRUE;
}

/* Drawing or attaching needs a writable buffer: in place (a copy only when
 * the buffer is shared) instead of passthrough */
static void
update_passthrough (GstClHistogram * self)
{
  gboolean write;

  GST_OBJECT_LOCK (self);
  write = self->overlay_set.enabled || self->attach_meta;
  GST_OBJECT_UNLOCK (self);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), !write);
}

static void
gst_cl_histogram_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (object);
  gint w = 0, h = 0;
  guint range = 65536;
  gboolean known;

  GST_OBJECT_LOCK (self);
  known = frame_size (self, &w, &h, &range);
  switch (prop_id) {
    case PROP_CHANNELS:
      self->channels = g_value_get_flags (value);
      break;
    case PROP_BINS:
      /* the pspec holds 2..65536; a count above the current format's range
       * is reduced for messages and reported at the next caps */
      self->bins = g_value_get_uint (value);
      if (known && self->bins > range)
        GST_WARNING_OBJECT (self, "bins %u is more than the current format "
            "has values; counting %u", self->bins, range);
      break;
    case PROP_ROI_X:
    case PROP_ROI_Y:{
      gint v = g_value_get_int (value);
      gint limit = prop_id == PROP_ROI_X ? w : h;
      gint *field = prop_id == PROP_ROI_X ? &self->roi_x : &self->roi_y;
      if (known && v >= limit) {
        g_warning ("clhistogram: %s %d is outside the %dx%d frame: valid is "
            "0 to %d; keeping %d", pspec->name, v, w, h, limit - 1, *field);
      } else {
        *field = v;
      }
      break;
    }
    case PROP_ROI_WIDTH:
      self->roi_width = g_value_get_int (value);
      break;
    case PROP_ROI_HEIGHT:
      self->roi_height = g_value_get_int (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_INTERVAL:
      self->interval = g_value_get_uint64 (value);
      break;
    case PROP_ATTACH_META:
      self->attach_meta = g_value_get_boolean (value);
      break;
    case PROP_MESSAGE_COUNTS:
      self->message_counts = g_value_get_enum (value);
      break;
    default:
      if (prop_id < PROP_OVERLAY_FIRST ||
          !gst_cl_histogram_overlay_set_property (&self->overlay_set,
              prop_id - PROP_OVERLAY_FIRST, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (prop_id == PROP_ATTACH_META || prop_id == PROP_OVERLAY_FIRST)
    update_passthrough (self);
}

static void
gst_cl_histogram_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CHANNELS:
      g_value_set_flags (value, self->channels);
      break;
    case PROP_BINS:
      g_value_set_uint (value, self->bins);
      break;
    case PROP_ROI_X:
      g_value_set_int (value, self->roi_x);
      break;
    case PROP_ROI_Y:
      g_value_set_int (value, self->roi_y);
      break;
    case PROP_ROI_WIDTH:
      g_value_set_int (value, self->roi_width);
      break;
    case PROP_ROI_HEIGHT:
      g_value_set_int (value, self->roi_height);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, self->interval);
      break;
    case PROP_ATTACH_META:
      g_value_set_boolean (value, self->attach_meta);
      break;
    case PROP_MESSAGE_COUNTS:
      g_value_set_enum (value, self->message_counts);
      break;
    default:
      if (prop_id < PROP_OVERLAY_FIRST ||
          !gst_cl_histogram_overlay_get_property (&self->overlay_set,
              prop_id - PROP_OVERLAY_FIRST, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_histogram_finalize (GObject * object)
{
  gst_cl_histogram_reset (GST_CL_BASE_FILTER (object));
  gst_cl_histogram_overlay_free (GST_CL_HISTOGRAM (object)->overlay);
  G_OBJECT_CLASS (gst_cl_histogram_parent_class)->finalize (object);
}

/* ---- channels and caps ---- */

static const gchar *
channel_name (guint flag)
{
  guint i;

  for (i = 1; channel_values[i].value_nick; i++)
    if (channel_values[i].value == flag)
      return channel_values[i].value_nick;
  return "?";
}

/* The format's component for @flag, -1 if it has none; luma of an RGB
 * format is computed (*computed = TRUE) */
static gint
channel_component (const GstVideoInfo * info, guint flag, gboolean * computed)
{
  gboolean rgb = GST_VIDEO_INFO_IS_RGB (info);
  gboolean yuv = GST_VIDEO_INFO_IS_YUV (info);

  *computed = FALSE;
  switch (flag) {
    case GST_CL_HISTOGRAM_RED:
      return rgb ? 0 : -1;
    case GST_CL_HISTOGRAM_GREEN:
      return rgb ? 1 : -1;
    case GST_CL_HISTOGRAM_BLUE:
      return rgb ? 2 : -1;
    case GST_CL_HISTOGRAM_LUMA:
      *computed = rgb;
      return 0;
    case GST_CL_HISTOGRAM_U:
      return yuv ? 1 : -1;
    case GST_CL_HISTOGRAM_V:
      return yuv ? 2 : -1;
    case GST_CL_HISTOGRAM_ALPHA:
      return GST_VIDEO_INFO_HAS_ALPHA (info) ? 3 : -1;
  }
  return -1;
}

static gchar *
available_channels (const GstVideoInfo * info)
{
  GString *s = g_string_new (NULL);
  gboolean computed;
  guint i;

  for (i = 0; i < N_CHANNEL_KINDS; i++)
    if (channel_component (info, 1u << i, &computed) >= 0)
      g_string_append_printf (s, "%s%s", s->len ? ", " : "",
          channel_name (1u << i));
  return g_string_free (s, FALSE);
}

/* BT.709 weights when the caps say so (read from the caps: GstVideoInfo
 * forces the RGB matrix for RGB formats), BT.601 otherwise */
static gboolean
caps_is_bt709 (GstCaps * caps)
{
  const gchar *s = gst_structure_get_string (gst_caps_get_structure (caps, 0),
      "colorimetry");
  GstVideoColorimetry cinfo;

  return s && gst_video_colorimetry_from_string (&cinfo, s) &&
      cinfo.matrix == GST_VIDEO_COLOR_MATRIX_BT709;
}

/* The overlay blended on the device on GPUs, where the frame is already
 * (memory:OpenCL frames then never leave it; system memory gets the box
 * back), on the host on CPU devices (there the frame is host memory).
 * $GST_CL_HISTOGRAM_OVERLAY_BLEND forces either (tests run the device
 * blender on PoCL). */
static gboolean
use_device_blend (GstClHistogram * self, GstClContext * ctx)
{
  switch (gst_cl_histogram_overlay_get_blender (self->overlay)) {
    case GST_CL_HISTOGRAM_OVERLAY_BLENDER_DEVICE:
      return TRUE;
    case GST_CL_HISTOGRAM_OVERLAY_BLENDER_AUTO:
      return gst_cl_context_is_gpu (ctx);
    default:
      return FALSE;
  }
}

static gboolean
use_gpu_variant (GstClContext * ctx)
{
  const gchar *v = g_getenv (VARIANT_ENV);

  if (v && !g_ascii_strcasecmp (v, "gpu"))
    return TRUE;
  if (v && !g_ascii_strcasecmp (v, "cpu"))
    return FALSE;
  return gst_cl_context_is_gpu (ctx) && ctx->local_mem_is_dedicated;
}

/* The template's formats that have every channel of @channels, as a list
 * GValue (@channels 0, "auto", fits every format) */
static void
formats_with_channels (guint channels, GValue * allowed)
{
  GstCaps *tmpl = gst_static_pad_template_get_caps (&sink_template);
  const GValue *all = gst_structure_get_value (gst_caps_get_structure (tmpl,
          0), "format");
  guint i, c;

  gst_value_list_init (allowed, gst_value_list_get_size (all));
  for (i = 0; i < gst_value_list_get_size (all); i++) {
    const GValue *name = gst_value_list_get_value (all, i);
    GstVideoInfo info;
    gboolean ok = TRUE, computed;

    gst_video_info_set_format (&info,
        gst_video_format_from_string (g_value_get_string (name)), 16, 16);
    for (c = 0; c < N_CHANNEL_KINDS; c++)
      if ((channels & (1u << c)) &&
          channel_component (&info, 1u << c, &computed) < 0)
        ok = FALSE;
    if (ok)
      gst_value_list_append_value (allowed, name);
  }
  gst_caps_unref (tmpl);
}

/* Caps are the same on both pads; only formats that have the requested
 * channels are offered, so that a converter upstream picks one of them
 * (channels=luma+u+v makes videoconvert choose YUV). channels is mutable
 * in READY only, so the offer does not change while caps are set. */
static GstCaps *
gst_cl_histogram_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (trans);
  GstCaps *res;
  GValue allowed = G_VALUE_INIT;
  guint channels, i;

  GST_OBJECT_LOCK (self);
  channels = self->channels;
  GST_OBJECT_UNLOCK (self);

  formats_with_channels (channels, &allowed);
  /* no format has them all (u+red): offer everything, set_info names the
   * channels the negotiated format lacks */
  if (gst_value_list_get_size (&allowed) == 0) {
    g_value_unset (&allowed);
    return filter ? gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST) : gst_caps_ref (caps);
  }
  res = gst_caps_new_empty ();
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *st = gst_structure_copy (gst_caps_get_structure (caps, i));
    const GValue *format = gst_structure_get_value (st, "format");
    GValue both = G_VALUE_INIT;

    /* caps with none of those formats (fixed caps pushed without a query,
     * as GstHarness does): kept, so that set_info says which channels the
     * format has instead of a bare not-negotiated */
    if (!format)
      gst_structure_set_value (st, "format", &allowed);
    else if (gst_value_intersect (&both, format, &allowed))
      gst_structure_take_value (st, "format", &both);
    gst_caps_append_structure_full (res, st,
        gst_caps_features_copy (gst_caps_get_features (caps, i)));
  }
  g_value_unset (&allowed);

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, res,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = tmp;
  }
  GST_DEBUG_OBJECT (self, "channels 0x%x: %" GST_PTR_FORMAT, channels, res);
  return res;
}

static gboolean
gst_cl_histogram_set_info (GstClBaseFilter * filter, GstCaps * incaps,
    GstVideoInfo * info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (filter);
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  const GstVideoFormatInfo *f = info->finfo;
  gboolean depth16 = GST_VIDEO_INFO_COMP_DEPTH (info, 0) > 8;
  gboolean bt709 = caps_is_bt709 (incaps);
  guint channels, bins, i;
  Pass *pass = NULL;
  cl_int err;

  GST_OBJECT_LOCK (self);
  channels = self->channels;
  bins = self->bins;
  GST_OBJECT_UNLOCK (self);

  if (channels == 0)
    channels = GST_VIDEO_INFO_IS_RGB (info) ? GST_CL_HISTOGRAM_RED |
        GST_CL_HISTOGRAM_GREEN | GST_CL_HISTOGRAM_BLUE : GST_CL_HISTOGRAM_LUMA;

  self->range = depth16 ? 65536 : 256;
  self->gpu = use_gpu_variant (ctx);
  self->host_merge = !self->gpu && !depth16;
  self->max_bands = MAX (1, ctx->compute_units * 4);
  /* 2048 per compute unit: what an NVIDIA SM holds */
  self->max_items = MAX (1, ctx->compute_units * 2048);

  if (bins > self->range) {
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
        ("bins %u is more than %s has values; using %u", bins,
            GST_VIDEO_INFO_NAME (info), self->range),
        ("valid bins for this format: 2 to %u", self->range));
    GST_OBJECT_LOCK (self);
    self->bins = self->range;
    GST_OBJECT_UNLOCK (self);
  }

  /* channels in flag order; consecutive ones sharing a plane layout share a
   * kernel launch */
  self->n_channels = 0;
  self->n_passes = 0;
  for (i = 0; i < N_CHANNEL_KINDS; i++) {
    guint flag = 1u << i, plane, pstride, wsub, hsub;
    gboolean computed;
    gint comp;

    if (!(channels & flag))
      continue;
    comp = channel_component (info, flag, &computed);
    if (comp < 0) {
      gchar *avail = available_channels (info);
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Channel \"%s\" is not available in %s video; available: %s",
              channel_name (flag), GST_VIDEO_INFO_NAME (info), avail),
          ("channels property 0x%x, caps %" GST_PTR_FORMAT, channels,
              incaps));
      g_free (avail);
      gst_cl_histogram_reset (filter);
      return FALSE;
    }
    plane = GST_VIDEO_FORMAT_INFO_PLANE (f, comp);
    pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, comp);
    wsub = GST_VIDEO_FORMAT_INFO_W_SUB (f, comp);
    hsub = GST_VIDEO_FORMAT_INFO_H_SUB (f, comp);
    if (!pass || pass->plane != plane || pass->pstride != pstride ||
        pass->wsub != wsub || pass->hsub != hsub
        || pass->n_out == MAX_PASS_OUT) {
      pass = &self->passes[self->n_passes++];
      memset (pass, 0, sizeof (*pass));
      pass->plane = plane;
      pass->pstride = pstride;
      pass->wsub = wsub;
      pass->hsub = hsub;
      pass->first = self->n_channels;
    }
    pass->src[pass->n_out++] = computed ? -1 :
        (gint) GST_VIDEO_FORMAT_INFO_POFFSET (f, comp);
    self->names[self->n_channels++] = channel_name (flag);
  }

  for (i = 0; i < self->n_passes; i++) {
    pass = &self->passes[i];
    pass->wg = 1;
    pass->chunks = gst_cl_histogram_gpu_tuning (GPU_CHUNKS_ENV,
        GPU_CHUNKS_PER_ITEM);
    while (pass->wg * 2 <= MIN (1024, ctx->max_work_group_size))
      pass->wg *= 2;
  }
  for (i = 0; i < self->n_passes; i++)
    if (!gst_cl_histogram_build_pass (self, &self->passes[i], depth16, bt709,
            info)) {
      gst_cl_histogram_reset (filter);
      return FALSE;
    }
  if (!self->gpu)
    gst_cl_histogram_start_warm_up (self);
  /* built whether overlay is on or not: it may be switched on while
   * playing, and no program is built in the streaming thread per frame */
  if (use_device_blend (self, ctx) &&
      !(self->blend = gst_cl_histogram_blend_new (filter))) {
    gst_cl_histogram_reset (filter);
    return FALSE;
  }

  /* buffers made once per caps: no per-frame allocation. GPU: two halves,
   * each frame counting into one and zeroing the other for the next */
  self->result = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE,
      (gsize) self->n_channels * self->range * 4 * (self->gpu ? 2 : 1), NULL,
      &err);
  self->half = 0;
  self->result_dirty = TRUE;
  if (err == CL_SUCCESS && !self->gpu)
    self->partial = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE,
        self->max_bands * (self->host_merge ? self->n_channels :
            MAX_PASS_OUT) * self->range * 4, NULL, &err);
  if (!gst_cl_base_filter_check (filter, err, "clCreateBuffer",
          "Could not allocate histogram buffers")) {
    gst_cl_histogram_reset (filter);
    return FALSE;
  }
  self->host = g_new0 (guint32, (self->host_merge ? self->max_bands : 1) *
      self->n_channels * self->range);
  self->accum = g_new0 (guint64, (gsize) self->n_channels * self->range);
  self->single = g_new0 (guint64, (gsize) self->n_channels * self->range);
  self->frames = self->pixels = 0;
  self->start_ts = self->end_ts = self->prev_ts = GST_CLOCK_TIME_NONE;
  self->roi_warned = FALSE;

  GST_INFO_OBJECT (self, "%s: %u channels in %u passes, %s kernels, %s luma",
      GST_VIDEO_INFO_NAME (info), self->n_channels, self->n_passes,
      self->gpu ? "GPU" : "CPU", bt709 ? "BT.709" : "BT.601");
  GST_OBJECT_LOCK (self);
  self->configured = TRUE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void
gst_cl_histogram_reset (GstClBaseFilter * filter)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (filter);
  guint i;

  GST_OBJECT_LOCK (self);
  self->configured = FALSE;
  GST_OBJECT_UNLOCK (self);
  /* (the base class joined a compile in progress before this) */
  g_atomic_int_set (&self->hist_ready, 0);
  for (i = 0; i < G_N_ELEMENTS (self->passes); i++) {
    if (self->passes[i].hist)
      clReleaseKernel (self->passes[i].hist);
    if (self->passes[i].merge)
      clReleaseKernel (self->passes[i].merge);
    if (self->passes[i].hist_first)
      clReleaseKernel (self->passes[i].hist_first);
    self->passes[i].hist = self->passes[i].merge = NULL;
    self->passes[i].hist_first = NULL;
  }
  self->n_passes = 0;
  self->n_channels = 0;
  if (self->result)
    clReleaseMemObject (self->result);
  if (self->partial)
    clReleaseMemObject (self->partial);
  self->result = self->partial = NULL;
  g_clear_pointer (&self->blend, gst_cl_histogram_blend_free);
  g_clear_pointer (&self->host, g_free);
  g_clear_pointer (&self->accum, g_free);
  g_clear_pointer (&self->single, g_free);
  self->frames = self->pixels = 0;
}

static gboolean
gst_cl_histogram_start (GstBaseTransform * trans)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (trans);

  self->frames = self->pixels = 0;
  self->start_ts = self->end_ts = self->prev_ts = GST_CLOCK_TIME_NONE;
  /* blend until downstream says it takes the composition meta */
  g_atomic_int_set (&self->downstream_composition, FALSE);
  return GST_BASE_TRANSFORM_CLASS (gst_cl_histogram_parent_class)->start
      (trans);
}

/* Like cairooverlay: in passthrough and in place GstBaseTransform never calls
 * decide_allocation; downstream's answer to upstream's ALLOCATION query
 * passes here and says whether it takes GstVideoOverlayCompositionMeta. */
static gboolean
gst_cl_histogram_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (trans);
  gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_cl_histogram_parent_class)->query
      (trans, direction, query);

  if (direction == GST_PAD_SINK &&
      GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION) {
    gboolean meta = ret && gst_query_find_allocation_meta (query,
        GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);

    GST_DEBUG_OBJECT (self, "downstream %s overlay composition meta",
        meta ? "takes" : "does not take");
    g_atomic_int_set (&self->downstream_composition, meta);
  }
  return ret;
}

static gboolean
gst_cl_histogram_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
    case GST_EVENT_CAPS:
      /* the last partial interval; new caps change the counts' layout */
      gst_cl_histogram_post_message (self);
      break;
    case GST_EVENT_FLUSH_STOP:
    case GST_EVENT_SEGMENT:
      /* like level: a new segment starts a new interval */
      if (self->accum)
        memset (self->accum, 0, (gsize) self->n_channels * self->range *
            sizeof (guint64));
      self->frames = self->pixels = 0;
      self->start_ts = self->end_ts = self->prev_ts = GST_CLOCK_TIME_NONE;
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_histogram_parent_class)->sink_event
      (trans, event);
}
