/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClBaseFilter: abstract GstBaseTransform for OpenCL elements.
 *
 * It owns the `device` and `device-name` properties, the GstClContext (found
 * or created in start(), shared through GstContext), caps -> GstVideoInfo,
 * allocation (an aligned pool on CPU devices, a pinned pool on GPUs) and the
 * transfer of frames to and from the device (GstClFrame). Subclasses build
 * their kernels in set_info() and run them in transform()/transform_ip(). */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "gstclcontext.h"
#include "gstclutils.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_BASE_FILTER (gst_cl_base_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstClBaseFilter, gst_cl_base_filter, GST,
    CL_BASE_FILTER, GstBaseTransform);

typedef struct _GstClTransfer GstClTransfer;

/* A frame or buffer made visible to the device: plane p of the image is at
 * byte @offset[p] of @mem with row pitch @stride[p] (bytes). */
typedef struct
{
  cl_mem mem;                   /* borrowed: valid until gst_cl_frame_unmap() */
  guint n_planes;
  cl_ulong offset[GST_VIDEO_MAX_PLANES];
  cl_int stride[GST_VIDEO_MAX_PLANES];
  gsize size;                   /* bytes of @mem in use */

  /*< private >*/
  gboolean is_video;
  GstVideoFrame vframe;         /* when is_video */
  GstMapInfo map;               /* when !is_video */
  GstBuffer *buffer;
  gboolean is_output;
  gboolean wrapped;             /* @mem wraps host memory (CPU devices) */
  gboolean packed;              /* planes written one by one (multi-memory buffer) */
  gsize plane_size[GST_VIDEO_MAX_PLANES]; /* bytes from a plane's first to its last pixel */
  GstClTransfer *transfer;
} GstClFrame;

struct _GstClBaseFilterClass
{
  GstBaseTransformClass parent_class;

  /* caps are set: in_info always, out_info when the output is video (else
   * NULL). Build or fetch kernels here (gst_cl_base_filter_get_program). */
  gboolean (*set_info) (GstClBaseFilter * self, GstCaps * incaps,
      GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info);
  /* release what set_info made; called from stop() and before a new set_info */
  void (*reset) (GstClBaseFilter * self);
};

/* Whether upstream is a live source (LATENCY query on the sink pad's peer);
 * FALSE when nobody answers */
gboolean gst_cl_base_filter_upstream_is_live (GstClBaseFilter * self);

/* valid between start() and stop() */
GstClContext *gst_cl_base_filter_get_context (GstClBaseFilter * self);
const GstVideoInfo *gst_cl_base_filter_get_in_info (GstClBaseFilter * self);

/* Builds (or takes from the cache) a program and posts
 * GST_ELEMENT_ERROR (LIBRARY, INIT) with the build log on failure. */
cl_program gst_cl_base_filter_get_program (GstClBaseFilter * self,
    const gchar * file, const gchar * options);
/* clCreateKernel with the error posted on failure */
cl_kernel gst_cl_base_filter_create_kernel (GstClBaseFilter * self,
    cl_program program, const gchar * name);

/* Posts an OpenCL failure as GST_ELEMENT_ERROR (RESOURCE, FAILED) naming
 * @what, the CL code and the call. Returns FALSE when err != CL_SUCCESS so it
 * can be used as `if (!gst_cl_base_filter_check (self, err, "clX", "doing Y")) ...` */
gboolean gst_cl_base_filter_check (GstClBaseFilter * self, cl_int err,
    const gchar * call, const gchar * what);

/* Posts GST_ELEMENT_ERROR (RESOURCE, NO_SPACE_LEFT) naming @what, @size
 * and CL_DEVICE_MAX_MEM_ALLOC_SIZE, with @hint in the debug string, when
 * @size bytes exceed what the device allocates at once. */
gboolean gst_cl_base_filter_check_alloc_size (GstClBaseFilter * self,
    guint64 size, const gchar * what, const gchar * hint);

/* Frame transfer. Input: the frame's pixels become readable by kernels
 * (wrapped in place on CPU devices when aligned, else written to a reused
 * device buffer). Output: kernels write @frame->mem; finish_output() makes
 * the pixels land in the buffer. Every plane's offset, stride and extent is
 * checked against the memory that holds it first: what cannot be read
 * safely (negative or too small strides, planes past their memory) is
 * refused with a STREAM/FORMAT error. All post an element error on failure
 * and leave nothing mapped then (gst_cl_frame_unmap() is still harmless). */
gboolean gst_cl_frame_map_input (GstClBaseFilter * self, GstBuffer * buffer,
    const GstVideoInfo * info, GstClFrame * frame);
gboolean gst_cl_frame_map_output (GstClBaseFilter * self, GstBuffer * buffer,
    const GstVideoInfo * info, GstClFrame * frame);
/* Non-video buffers (one plane of @buffer's full size) */
gboolean gst_cl_frame_map_output_raw (GstClBaseFilter * self,
    GstBuffer * buffer, GstClFrame * frame);
/* Waits for the queue, then copies the device result into the output buffer
 * where it is not already there. */
gboolean gst_cl_frame_finish_output (GstClBaseFilter * self, GstClFrame * frame);
void gst_cl_frame_unmap (GstClBaseFilter * self, GstClFrame * frame);

/* Sets consecutive kernel args (mem, offset, stride) for plane @plane,
 * starting at *@index, which it advances. Returns the CL error. */
cl_int gst_cl_frame_set_plane_args (const GstClFrame * frame, guint plane,
    cl_kernel kernel, cl_uint * index);

/* clEnqueueNDRangeKernel with the error posted on failure (@what names the
 * step for the user). With $GST_CL_PROFILE=1 the queue records events and
 * the kernel's device time is added to the element's "kernel-time"
 * (read-only property, ns, summed since start). */
gboolean gst_cl_base_filter_run_kernel (GstClBaseFilter * self,
    cl_kernel kernel, cl_uint dims, const gsize * global, const gsize * local,
    const gchar * what);

/* Global work size rounded up to the local size (NVIDIA has no non-uniform
 * work-groups); kernels check bounds. */
static inline gsize
gst_cl_global_size (gsize n, gsize local)
{
  return gst_cl_round_up (MAX (n, 1), local);
}

G_END_DECLS
