/* Placeholder for clconvolve: a passthrough until the element lands. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclconvolve.h"
#include "gstclelements.h"

struct _GstClConvolve
{
  GstClBaseFilter parent;
};

G_DEFINE_TYPE (GstClConvolve, gst_cl_convolve, GST_TYPE_CL_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (clconvolve, "clconvolve", GST_RANK_NONE, GST_TYPE_CL_CONVOLVE);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));

static void
gst_cl_convolve_class_init (GstClConvolveClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "OpenCL convolve",
      "Filter/Video", "Placeholder", "gst-opencl-filters");
  GST_BASE_TRANSFORM_CLASS (klass)->passthrough_on_same_caps = TRUE;
}

static void
gst_cl_convolve_init (GstClConvolve * self)
{
}
