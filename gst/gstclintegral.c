/* Placeholder for clintegral: a passthrough until the element lands. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclintegral.h"
#include "gstclelements.h"

struct _GstClIntegral
{
  GstClBaseFilter parent;
};

G_DEFINE_TYPE (GstClIntegral, gst_cl_integral, GST_TYPE_CL_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (clintegral, "clintegral", GST_RANK_NONE, GST_TYPE_CL_INTEGRAL);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));

static void
gst_cl_integral_class_init (GstClIntegralClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "OpenCL integral",
      "Filter/Video", "Placeholder", "gst-opencl-filters");
  GST_BASE_TRANSFORM_CLASS (klass)->passthrough_on_same_caps = TRUE;
}

static void
gst_cl_integral_init (GstClIntegral * self)
{
}
