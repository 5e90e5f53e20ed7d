/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clupload
 * @title: clupload
 *
 * Copies video frames into OpenCL device memory (GstClMemory, caps feature
 * memory:OpenCL) so the next OpenCL elements find them on the device. On
 * GPUs the frame is written with one DMA per plane (from pinned memory when
 * upstream takes the pool this element offers); on CPU devices the device
 * memory is host memory and the rows are copied into it. Frames that are
 * already OpenCL memory of the same context pass untouched, OpenCL memory of
 * another context or device is copied through the host, and when downstream
 * does not accept memory:OpenCL the element passes system memory through.
 *
 * Elements in one pipeline share one OpenCL context and its in-order queue
 * (GstContext "gst.cl.context"), so device work is ordered without events.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=5 ! clupload ! cldownload ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclelements.h"
#include "gstclupload.h"

struct _GstClUpload
{
  GstClMemoryCopy parent;
};

G_DEFINE_TYPE (GstClUpload, gst_cl_upload, GST_TYPE_CL_MEMORY_COPY);
GST_ELEMENT_REGISTER_DEFINE (clupload, "clupload", GST_RANK_NONE,
    GST_TYPE_CL_UPLOAD);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_MEMORY_COPY_SYSTEM_CAPS "; "
        GST_CL_MEMORY_COPY_CL_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_MEMORY_COPY_CL_CAPS "; "
        GST_CL_MEMORY_COPY_SYSTEM_CAPS));

static void
gst_cl_upload_class_init (GstClUploadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_CL_MEMORY_COPY_CLASS (klass)->to_device = TRUE;
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "OpenCL uploader",
      "Filter/Video/Hardware", "Copies raw video from system memory into "
      "OpenCL device memory (memory:OpenCL)", GST_CL_ELEMENT_AUTHOR);
}

static void
gst_cl_upload_init (GstClUpload * self)
{
}
