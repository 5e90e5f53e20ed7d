/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemoryCopy: what clupload and cldownload share. Frames move between
 * system memory and GstClMemory (caps feature memory:OpenCL); the two
 * elements differ only in which way their caps point. */
#pragma once

#include "gstclbasefilter.h"
#include "gstclmemory.h"

G_BEGIN_DECLS

/* every raw format the other elements take */
#define GST_CL_MEMORY_COPY_FORMATS "{ GRAY8, GRAY16_LE, RGB, BGR, RGBA, " \
    "BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, I420, YV12, NV12, NV21, " \
    "Y42B, Y444, YUY2, UYVY }"
#define GST_CL_MEMORY_COPY_CL_CAPS GST_VIDEO_CAPS_MAKE_WITH_FEATURES ( \
    GST_CAPS_FEATURE_MEMORY_CL_MEMORY, GST_CL_MEMORY_COPY_FORMATS)
#define GST_CL_MEMORY_COPY_SYSTEM_CAPS \
    GST_VIDEO_CAPS_MAKE (GST_CL_MEMORY_COPY_FORMATS)

/* $GST_CL_MEMORY_COPY: "rect" (clEnqueue{Write,Read}BufferRect, the GPU
 * default) or "map" (map and copy rows, the CPU-device default) */
#define GST_CL_MEMORY_COPY_ENV "GST_CL_MEMORY_COPY"

#define GST_TYPE_CL_MEMORY_COPY (gst_cl_memory_copy_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstClMemoryCopy, gst_cl_memory_copy, GST,
    CL_MEMORY_COPY, GstClBaseFilter);

struct _GstClMemoryCopyClass
{
  GstClBaseFilterClass parent_class;

  /* TRUE: sink -> src adds memory:OpenCL (clupload); FALSE: it takes it
   * away (cldownload) */
  gboolean to_device;
};

G_END_DECLS
