/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clintegral's integral-image caps: layout, parsing, caps transform */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclintegralcaps.h"

/* each plane starts at a multiple of this many bytes */
#define PLANE_ALIGN 8

static const gchar *gray_formats[] = { "GRAY8", "GRAY16_LE", "I420", "YV12",
  "NV12", "NV21", "Y42B", "Y444", NULL
};

static const gchar *rgb_formats[] = { "RGB", "BGR", "RGBA", "BGRA", "ARGB",
  "ABGR", "RGBx", "BGRx", "xRGB", "xBGR", NULL
};

static const gchar *format_names[] = { "U32", "U64", "F32", "F64" };

static const gchar *planes_names[] = { NULL, "sum", NULL, "sum,sqsum", NULL,
  "sum,count", NULL, "sum,sqsum,count"
};


static gint
format_from_string (const gchar * s)
{
  guint i;

  for (i = 0; s && i < G_N_ELEMENTS (format_names); i++)
    if (g_str_equal (s, format_names[i]))
      return i;
  return -1;
}

static gint
planes_from_string (const gchar * s)
{
  guint i;

  for (i = 0; s && i < G_N_ELEMENTS (planes_names); i++)
    if (planes_names[i] && g_str_equal (s, planes_names[i]))
      return i;
  return -1;
}

/* whether @f holds floating-point sums */
gboolean
gst_cl_integral_format_is_float (GstClIntegralFormat f)
{
  return f == GST_CL_INTEGRAL_FORMAT_F32 || f == GST_CL_INTEGRAL_FORMAT_F64;
}

/* element size of plane bit @plane (sum/count: the format; sqsum: 8) */
static guint
plane_elem_size (GstClIntegralFormat f, guint plane)
{
  if (plane == GST_CL_INTEGRAL_PLANES_SQSUM)
    return 8;
  return (f == GST_CL_INTEGRAL_FORMAT_U32 || f == GST_CL_INTEGRAL_FORMAT_F32) ?
      4 : 8;
}

/* Byte offsets of the present planes (sum, sqsum, count order) and the
 * total size; see docs/clintegral.md. FALSE when the size overflows 64 bits. */
gboolean
gst_cl_integral_layout (gint width, gint height, gint channels,
    GstClIntegralFormat f, guint planes,
    guint64 offsets[GST_CL_INTEGRAL_MAX_PLANES], guint64 * total)
{
  guint64 elems, bytes, size = 0;
  guint bit, n = 0;

  if (width < 0 || height < 0 || channels < 0 ||
      !g_uint64_checked_mul (&elems, (guint64) width + 1,
          (guint64) height + 1) ||
      !g_uint64_checked_mul (&elems, elems, channels))
    return FALSE;
  for (bit = 1; bit <= GST_CL_INTEGRAL_PLANES_COUNT; bit <<= 1) {
    if (!(planes & bit))
      continue;
    if (size > G_MAXUINT64 - PLANE_ALIGN)
      return FALSE;
    size = GST_ROUND_UP_N (size, PLANE_ALIGN);
    if (offsets)
      offsets[n] = size;
    n++;
    if (!g_uint64_checked_mul (&bytes, elems, plane_elem_size (f, bit)) ||
        !g_uint64_checked_add (&size, size, bytes))
      return FALSE;
  }
  *total = size;
  return TRUE;
}

/* The fields of fixed integral-image caps; FALSE if @caps lack one or
 * carry a format, set of planes or channel count the element does not
 * make */
gboolean
gst_cl_integral_parse_caps (GstCaps * caps, gint * width, gint * height,
    gint * channels, GstClIntegralFormat * format, guint * planes)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gint f, p;

  if (!gst_structure_has_name (s, GST_CL_INTEGRAL_MEDIA_TYPE) ||
      !gst_structure_get_int (s, "width", width) ||
      !gst_structure_get_int (s, "height", height) ||
      !gst_structure_get_int (s, "channels", channels))
    return FALSE;
  f = format_from_string (gst_structure_get_string (s, "format"));
  p = planes_from_string (gst_structure_get_string (s, "planes"));
  if (f < 0 || p < 0 || (*channels != 1 && *channels != 3))
    return FALSE;
  *format = f;
  *planes = p;
  return TRUE;
}

/* whether raw video format @format is one whose R, G and B the element sums
 * (3 channels) */
gboolean
gst_cl_integral_is_rgb_format (const gchar * format)
{
  return format && g_strv_contains (rgb_formats, format);
}

/* ... or one whose first plane it sums (1 channel: gray and YUV luma) */
gboolean
gst_cl_integral_is_gray_format (const gchar * format)
{
  return format && g_strv_contains (gray_formats, format);
}

const gchar *
gst_cl_integral_format_name (GstClIntegralFormat format)
{
  return format_names[format];
}

const gchar *
gst_cl_integral_planes_name (guint planes)
{
  return planes_names[planes];
}


/* @values in order, @first moved to the front */
static void
set_string_list (GstStructure * s, const gchar * field,
    const gchar * const *values, guint n, const gchar * first)
{
  GValue list = G_VALUE_INIT, v = G_VALUE_INIT;
  guint i;

  gst_value_list_init (&list, n);
  g_value_init (&v, G_TYPE_STRING);
  if (first) {
    g_value_set_string (&v, first);
    gst_value_list_append_value (&list, &v);
  }
  for (i = 0; i < n; i++) {
    if (!values[i] || (first && g_str_equal (values[i], first)))
      continue;
    g_value_set_string (&v, values[i]);
    gst_value_list_append_value (&list, &v);
  }
  gst_structure_take_value (s, field, &list);
  g_value_unset (&v);
}

/* which channel counts the "format" field of raw caps allows: bit 1, bit 3 */
static guint
raw_channels (const GstStructure * s)
{
  const GValue *v = gst_structure_get_value (s, "format");
  guint i, mask = 0;

  if (!v)
    return (1 << 1) | (1 << 3);
  if (G_VALUE_HOLDS_STRING (v))
    return 1 << (gst_cl_integral_is_rgb_format (g_value_get_string (v)) ?
        3 : 1);
  if (GST_VALUE_HOLDS_LIST (v)) {
    for (i = 0; i < gst_value_list_get_size (v); i++) {
      const GValue *e = gst_value_list_get_value (v, i);
      if (G_VALUE_HOLDS_STRING (e))
        mask |= 1 << (gst_cl_integral_is_rgb_format (g_value_get_string (e))
            ? 3 : 1);
    }
    return mask;
  }
  return (1 << 1) | (1 << 3);
}

static void
copy_field (GstStructure * to, const GstStructure * from, const gchar * f)
{
  const GValue *v = gst_structure_get_value (from, f);

  if (v)
    gst_structure_set_value (to, f, v);
}

/* integral-image caps for raw caps @raw, @format and @planes first */
static GstStructure *
raw_to_integral (const GstStructure * raw, GstClIntegralFormat format,
    guint planes)
{
  GstStructure *s = gst_structure_new_empty (GST_CL_INTEGRAL_MEDIA_TYPE);
  guint mask = raw_channels (raw);

  set_string_list (s, "format", format_names, G_N_ELEMENTS (format_names),
      format_names[format]);
  copy_field (s, raw, "width");
  copy_field (s, raw, "height");
  copy_field (s, raw, "framerate");
  if (mask == (1 << 1))
    gst_structure_set (s, "channels", G_TYPE_INT, 1, NULL);
  else if (mask == (1 << 3))
    gst_structure_set (s, "channels", G_TYPE_INT, 3, NULL);
  else {
    GValue list = G_VALUE_INIT, v = G_VALUE_INIT;
    gst_value_list_init (&list, 2);
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, 1);
    gst_value_list_append_value (&list, &v);
    g_value_set_int (&v, 3);
    gst_value_list_append_value (&list, &v);
    gst_structure_take_value (s, "channels", &list);
    g_value_unset (&v);
  }
  set_string_list (s, "planes", planes_names, G_N_ELEMENTS (planes_names),
      planes_names[planes]);
  return s;
}

/* the raw formats whose sums make integral-image caps @in */
static GstStructure *
integral_to_raw (const GstStructure * in)
{
  GstStructure *s = gst_structure_new_empty ("video/x-raw");
  const GValue *ch = gst_structure_get_value (in, "channels");
  gint c = 0;

  if (ch && G_VALUE_HOLDS_INT (ch))
    c = g_value_get_int (ch);
  if (c == 1)
    set_string_list (s, "format", gray_formats, g_strv_length ((gchar **)
            gray_formats), NULL);
  else if (c == 3)
    set_string_list (s, "format", rgb_formats, g_strv_length ((gchar **)
            rgb_formats), NULL);
  copy_field (s, in, "width");
  copy_field (s, in, "height");
  copy_field (s, in, "framerate");
  return s;
}

/* The caps on the other side of clintegral for @caps on the @direction
 * side, before the memory features and the templates: integral images for
 * raw video (@integral: output=integral, @format and @planes preferred),
 * raw video for raw video (box-mean), and the raw formats each integral
 * image can come from */
GstCaps *
gst_cl_integral_caps_transform (GstPadDirection direction, GstCaps * caps,
    gboolean integral, GstClIntegralFormat format, guint planes)
{
  GstCaps *ret = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    gboolean raw = gst_structure_has_name (s, "video/x-raw");

    if (direction == GST_PAD_SINK) {
      if (!raw)
        continue;
      ret = gst_caps_merge_structure (ret, integral ?
          raw_to_integral (s, format, planes) : gst_structure_copy (s));
    } else if (raw && !integral) {
      ret = gst_caps_merge_structure (ret, gst_structure_copy (s));
    } else if (!raw && integral &&
        gst_structure_has_name (s, GST_CL_INTEGRAL_MEDIA_TYPE)) {
      ret = gst_caps_merge_structure (ret, integral_to_raw (s));
    }
  }
  return ret;
}
