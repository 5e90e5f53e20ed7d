/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cldownload
 * @title: cldownload
 *
 * Copies video frames from OpenCL device memory (GstClMemory, caps feature
 * memory:OpenCL) into system memory, into the buffers downstream offers
 * (honouring their GstVideoMeta strides) or a pinned (GPU) / aligned (CPU)
 * pool of its own. Memory of any context or device is read back through
 * the host; system memory passes through untouched.
 *
 * Elements in one pipeline share one OpenCL context and its in-order queue
 * (GstContext "gst.cl.context"), so device work is ordered without events.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! clupload ! cldownload ! videoconvert ! \
 *     autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclelements.h"
#include "gstcldownload.h"

struct _GstClDownload
{
  GstClMemoryCopy parent;
};

G_DEFINE_TYPE (GstClDownload, gst_cl_download, GST_TYPE_CL_MEMORY_COPY);
GST_ELEMENT_REGISTER_DEFINE (cldownload, "cldownload", GST_RANK_NONE,
    GST_TYPE_CL_DOWNLOAD);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_MEMORY_COPY_CL_CAPS "; "
        GST_CL_MEMORY_COPY_SYSTEM_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_MEMORY_COPY_SYSTEM_CAPS "; "
        GST_CL_MEMORY_COPY_CL_CAPS));

static void
gst_cl_download_class_init (GstClDownloadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_CL_MEMORY_COPY_CLASS (klass)->to_device = FALSE;
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "OpenCL downloader",
      "Filter/Video/Hardware", "Copies raw video from OpenCL device memory "
      "(memory:OpenCL) into system memory", GST_CL_ELEMENT_AUTHOR);
}

static void
gst_cl_download_init (GstClDownload * self)
{
}
