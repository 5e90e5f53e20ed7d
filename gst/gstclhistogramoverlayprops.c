/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's overlay-* properties (see gstclhistogramoverlay.h): their
 * enum types, defaults and param specs, and the settings they set, which
 * the element keeps under its object lock and hands to the drawing
 * (gstclhistogramoverlay.c) per frame. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclhistogramoverlay.h"

#define DEFAULT_OVERLAY FALSE
#define DEFAULT_SCALE GST_CL_HISTOGRAM_OVERLAY_LOG
#define DEFAULT_POSITION GST_CL_HISTOGRAM_OVERLAY_BOTTOM_RIGHT
#define DEFAULT_WIDTH 0
#define DEFAULT_HEIGHT 0
#define DEFAULT_ALPHA 0.5
#define DEFAULT_MODE GST_CL_HISTOGRAM_OVERLAY_OVERLAID
#define DEFAULT_ROI_OUTLINE FALSE

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
