/* GStreamer OpenCL integral images
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-clintegral
 * @title: clintegral
 *
 * Computes the integral image (summed-area table) of every frame on an
 * OpenCL device. With `output=integral` (default) the source pad carries
 * `video/x-integral-image` buffers: (W+1) x (H+1) elements per plane, zero
 * first row and column, channels interleaved, a sum plane optionally
 * followed by a sum-of-squares and a non-zero-count plane (see
 * docs/clintegral.md for the exact layout). With `output=box-mean` it emits
 * frames of the input format where each pixel is the mean of the
 * (2r+1) x (2r+1) window around it, at a cost independent of the radius.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! clintegral ! \
 *     video/x-integral-image,format=U64 ! fakesink
 * gst-launch-1.0 videotestsrc ! clintegral planes=sum+sqsum format=u64 ! \
 *     fakesink
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! \
 *     clintegral output=box-mean radius=7 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclintegralpriv.h"
#include "gstclelements.h"
#include "gstclpool.h"

GST_DEBUG_CATEGORY (gst_cl_integral_debug);

#define DEFAULT_PROP_OUTPUT GST_CL_INTEGRAL_OUTPUT_INTEGRAL
#define DEFAULT_PROP_FORMAT GST_CL_INTEGRAL_FORMAT_U32
#define DEFAULT_PROP_PLANES GST_CL_INTEGRAL_PLANES_SUM
#define DEFAULT_PROP_RADIUS 1
#define MAX_RADIUS 65535

enum
{
  PROP_0,
  PROP_OUTPUT,
  PROP_FORMAT,
  PROP_PLANES,
  PROP_RADIUS,
};


#define SINK_FORMATS "{ GRAY8, GRAY16_LE, I420, YV12, NV12, NV21, Y42B, " \
    "Y444, RGB, BGR, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR }"
#define INTEGRAL_FIELDS "format = (string) { U32, U64, F32, F64 }, " \
    "width = " GST_VIDEO_SIZE_RANGE ", height = " GST_VIDEO_SIZE_RANGE ", " \
    "framerate = " GST_VIDEO_FPS_RANGE ", channels = (int) { 1, 3 }, " \
    "planes = (string) { sum, \"sum,sqsum\", \"sum,count\", " \
    "\"sum,sqsum,count\" }"
#define INTEGRAL_CAPS GST_CL_INTEGRAL_MEDIA_TYPE ", " INTEGRAL_FIELDS
#define INTEGRAL_CL_CAPS GST_CL_INTEGRAL_MEDIA_TYPE "(" \
    GST_CAPS_FEATURE_MEMORY_CL_MEMORY "), " INTEGRAL_FIELDS

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_FILTER_CAPS (SINK_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (INTEGRAL_CAPS "; " INTEGRAL_CL_CAPS "; "
        GST_CL_FILTER_CAPS (SINK_FORMATS)));

#define GST_TYPE_CL_INTEGRAL_OUTPUT (gst_cl_integral_output_get_type ())
static GType
gst_cl_integral_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_INTEGRAL_OUTPUT_INTEGRAL, "Integral image (" GST_CL_INTEGRAL_MEDIA_TYPE
          ")", "integral"},
    {GST_CL_INTEGRAL_OUTPUT_BOX_MEAN, "Box-filtered frames (input format)",
        "box-mean"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClIntegralOutput",
            values));
  return type;
}

#define GST_TYPE_CL_INTEGRAL_FORMAT (gst_cl_integral_format_get_type ())
static GType
gst_cl_integral_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_INTEGRAL_FORMAT_U32, "32-bit unsigned, wraps modulo 2^32", "u32"},
    {GST_CL_INTEGRAL_FORMAT_U64, "64-bit unsigned", "u64"},
    {GST_CL_INTEGRAL_FORMAT_F32, "32-bit float (exact up to 2^24)", "f32"},
    {GST_CL_INTEGRAL_FORMAT_F64, "64-bit float (exact up to 2^53)", "f64"},
    /* the upper-case nicks of earlier releases (and of the caps' format
     * field) stay accepted; values resolve to the lower-case nick first */
    {GST_CL_INTEGRAL_FORMAT_U32, "Alias of u32", "U32"},
    {GST_CL_INTEGRAL_FORMAT_U64, "Alias of u64", "U64"},
    {GST_CL_INTEGRAL_FORMAT_F32, "Alias of f32", "F32"},
    {GST_CL_INTEGRAL_FORMAT_F64, "Alias of f64", "F64"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClIntegralFormat",
            values));
  return type;
}

#define GST_TYPE_CL_INTEGRAL_PLANES (gst_cl_integral_planes_get_type ())
static GType
gst_cl_integral_planes_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {GST_CL_INTEGRAL_PLANES_SUM, "Sum (always present)", "sum"},
    {GST_CL_INTEGRAL_PLANES_SQSUM, "Sum of squares (U64 or F64)", "sqsum"},
    {GST_CL_INTEGRAL_PLANES_COUNT, "Count of non-zero samples", "count"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_flags_register_static ("GstClIntegralPlanes",
            values));
  return type;
}

#define gst_cl_integral_parent_class parent_class
G_DEFINE_TYPE (GstClIntegral, gst_cl_integral, GST_TYPE_CL_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (clintegral, "clintegral", GST_RANK_NONE,
    GST_TYPE_CL_INTEGRAL);

static void gst_cl_integral_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cl_integral_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstCaps *gst_cl_integral_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static GstCaps *gst_cl_integral_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
static gboolean gst_cl_integral_get_unit_size (GstBaseTransform * trans,
    GstCaps * caps, gsize * size);

static void
gst_cl_integral_class_init (GstClIntegralClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClBaseFilterClass *filter_class = GST_CL_BASE_FILTER_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_cl_integral_debug, "clintegral", 0,
      "OpenCL integral images");

  gobject_class->set_property = gst_cl_integral_set_property;
  gobject_class->get_property = gst_cl_integral_get_property;

  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output",
          "What the source pad carries: the integral image ("
          GST_CL_INTEGRAL_MEDIA_TYPE ") or box-mean filtered frames",
          GST_TYPE_CL_INTEGRAL_OUTPUT, DEFAULT_PROP_OUTPUT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format",
          "Preferred element type of the sum and count planes when downstream "
          "accepts several (caps decide otherwise)",
          GST_TYPE_CL_INTEGRAL_FORMAT, DEFAULT_PROP_FORMAT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PLANES,
      g_param_spec_flags ("planes", "Planes",
          "Preferred planes of the integral image, in buffer order sum, "
          "sqsum, count; must include sum (caps decide when downstream "
          "restricts them)", GST_TYPE_CL_INTEGRAL_PLANES, DEFAULT_PROP_PLANES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Box-mean window radius r: windows are (2r+1) x (2r+1), clipped at "
          "the frame borders", 0, MAX_RADIUS, DEFAULT_PROP_RADIUS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_CONTROLLABLE));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "OpenCL integral image", "Filter/Analyzer/Video",
      "Integral images (summed-area tables) and box means on OpenCL",
      GST_CL_ELEMENT_AUTHOR);

  trans_class->transform_caps = gst_cl_integral_transform_caps;
  trans_class->fixate_caps = gst_cl_integral_fixate_caps;
  trans_class->get_unit_size = gst_cl_integral_get_unit_size;
  trans_class->passthrough_on_same_caps = FALSE;

  filter_class->set_info = gst_cl_integral_set_info;
  filter_class->reset = gst_cl_integral_reset;
  filter_class->process = gst_cl_integral_process;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_INTEGRAL_OUTPUT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_INTEGRAL_FORMAT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_INTEGRAL_PLANES, 0);
}

static void
gst_cl_integral_init (GstClIntegral * self)
{
  self->output = DEFAULT_PROP_OUTPUT;
  self->format = DEFAULT_PROP_FORMAT;
  self->planes = DEFAULT_PROP_PLANES;
  self->radius = DEFAULT_PROP_RADIUS;
  /* like GstVideoFilter: late frames are dropped, not filtered */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cl_integral_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClIntegral *self = GST_CL_INTEGRAL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_OUTPUT:
      self->output = g_value_get_enum (value);
      break;
    case PROP_FORMAT:
      self->format = g_value_get_enum (value);
      break;
    case PROP_PLANES:{
      guint planes = g_value_get_flags (value);
      if (!(planes & GST_CL_INTEGRAL_PLANES_SUM)) {
        g_warning ("clintegral: planes must include \"sum\" (valid: sum, "
            "sum+sqsum, sum+count, sum+sqsum+count); keeping the previous "
            "value");
        break;
      }
      self->planes = planes;
      break;
    }
    case PROP_RADIUS:
      self->radius = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_integral_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClIntegral *self = GST_CL_INTEGRAL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_OUTPUT:
      g_value_set_enum (value, self->output);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_PLANES:
      g_value_set_flags (value, self->planes);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, self->radius);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GstCaps *
gst_cl_integral_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstClIntegral *self = GST_CL_INTEGRAL (trans);
  GstCaps *ret, *tmpl;
  GstClIntegralFormat format;
  gboolean integral;
  guint planes;

  GST_OBJECT_LOCK (self);
  integral = self->output == GST_CL_INTEGRAL_OUTPUT_INTEGRAL;
  format = self->format;
  planes = self->planes;
  GST_OBJECT_UNLOCK (self);

  ret = gst_cl_integral_caps_transform (direction, caps, integral, format,
      planes);

  /* in system memory and in memory:OpenCL; then only what our templates
   * can carry */
  ret = gst_cl_base_filter_any_memory (ret);
  tmpl = gst_pad_get_pad_template_caps (direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans));
  {
    GstCaps *tmp = gst_caps_intersect_full (ret, tmpl,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  gst_caps_unref (tmpl);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
  return ret;
}

static GstCaps *
gst_cl_integral_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstClIntegral *self = GST_CL_INTEGRAL (trans);
  GstStructure *s;
  GstClIntegralFormat format;
  guint planes;

  othercaps = gst_cl_base_filter_fixate_memory (trans, direction, othercaps);
  othercaps = gst_caps_truncate (othercaps);
  othercaps = gst_caps_make_writable (othercaps);
  s = gst_caps_get_structure (othercaps, 0);
  if (gst_structure_has_name (s, GST_CL_INTEGRAL_MEDIA_TYPE)) {
    GST_OBJECT_LOCK (self);
    format = self->format;
    planes = self->planes;
    GST_OBJECT_UNLOCK (self);
    /* the properties are preferences: fall back to what downstream allows */
    gst_structure_fixate_field_string (s, "format",
        gst_cl_integral_format_name (format));
    gst_structure_fixate_field_string (s, "planes",
        gst_cl_integral_planes_name (planes));
  } else if (direction == GST_PAD_SINK) {
    /* box-mean: same frames as the input */
    GstStructure *in = gst_caps_get_structure (caps, 0);
    const gchar *f = gst_structure_get_string (in, "format");
    gint w, h;

    if (f)
      gst_structure_fixate_field_string (s, "format", f);
    if (gst_structure_get_int (in, "width", &w))
      gst_structure_fixate_field_nearest_int (s, "width", w);
    if (gst_structure_get_int (in, "height", &h))
      gst_structure_fixate_field_nearest_int (s, "height", h);
  }
  return gst_caps_fixate (othercaps);
}

static gboolean
gst_cl_integral_get_unit_size (GstBaseTransform * trans, GstCaps * caps,
    gsize * size)
{
  GstVideoInfo info;
  gint w, h, ch;
  GstClIntegralFormat f;
  guint planes;

  if (gst_cl_integral_parse_caps (caps, &w, &h, &ch, &f, &planes)) {
    guint64 total;
    if (!gst_cl_integral_layout (w, h, ch, f, planes, NULL, &total) ||
        total > G_MAXSIZE)
      return FALSE;
    *size = total;
    return TRUE;
  }
  if (gst_video_info_from_caps (&info, caps)) {
    *size = GST_VIDEO_INFO_SIZE (&info);
    return TRUE;
  }
  GST_WARNING_OBJECT (trans, "cannot size buffers of %" GST_PTR_FORMAT, caps);
  return FALSE;
}
