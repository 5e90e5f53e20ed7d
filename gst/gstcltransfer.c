/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames to and from the device.
 *
 * CPU devices (PoCL): the mapped frame is wrapped with CL_MEM_USE_HOST_PTR
 * when it meets CL_DEVICE_MEM_BASE_ADDR_ALIGN, so kernels read and write the
 * buffer's own memory (the wrapper is a handle, no pixels are allocated or
 * copied); otherwise one copy into a device buffer reused every frame.
 * GPUs: one write into (or read from) a device buffer reused every frame; it
 * runs as DMA when the frame is in our pinned pool. Buffers whose planes sit
 * in several GstMemory are written plane by plane. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclbasefilter.h"
#include "gstcltransfer.h"

#define GST_CAT_DEFAULT gst_cl_debug

/* plane offsets in a packed device buffer keep this alignment */
#define PLANE_ALIGN 256

GstClTransfer *
gst_cl_transfer_new (cl_mem_flags flags)
{
  GstClTransfer *t = g_new0 (GstClTransfer, 1);

  t->flags = flags;
  return t;
}

void
gst_cl_transfer_reset (GstClTransfer * t)
{
  if (t->staging)
    clReleaseMemObject (t->staging);
  t->staging = NULL;
  t->staging_size = 0;
  t->ctx = NULL;
}

void
gst_cl_transfer_free (GstClTransfer * t)
{
  if (t) {
    gst_cl_transfer_reset (t);
    g_free (t);
  }
}

static gboolean
ensure_staging (GstClBaseFilter * self, GstClTransfer * t, gsize size)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (self);
  cl_int err;

  if (t->ctx != ctx)
    gst_cl_transfer_reset (t);
  t->ctx = ctx;
  if (t->staging && t->staging_size >= size)
    return TRUE;
  if (t->staging)
    clReleaseMemObject (t->staging);
  t->staging = clCreateBuffer (ctx->context, t->flags, size, NULL, &err);
  if (err != CL_SUCCESS) {
    gchar *what = g_strdup_printf ("Could not allocate %.1f MB on OpenCL "
        "device \"%s\"", size / 1e6, ctx->device_name);
    gst_cl_base_filter_check (self, err, "clCreateBuffer", what);
    g_free (what);
    t->staging = NULL;
    t->staging_size = 0;
    return FALSE;
  }
  t->staging_size = size;
  return TRUE;
}

static gboolean
can_wrap (GstClContext * ctx, gconstpointer ptr)
{
  return !gst_cl_context_is_gpu (ctx) &&
      ((guintptr) ptr % ctx->mem_base_addr_align) == 0;
}

/* Makes @frame->mem for the single host region [@base, @base + @size) */
static gboolean
attach_region (GstClBaseFilter * self, GstClFrame * frame, guint8 * base,
    gsize size)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (self);
  GstClTransfer *t = frame->transfer;
  cl_int err;

  frame->size = size;
  if (can_wrap (ctx, base)) {
    frame->mem = clCreateBuffer (ctx->context, t->flags | CL_MEM_USE_HOST_PTR,
        size, base, &err);
    if (!gst_cl_base_filter_check (self, err, "clCreateBuffer",
            "Could not use the frame's memory on the OpenCL device"))
      return FALSE;
    frame->wrapped = TRUE;
    return TRUE;
  }

  if (!ensure_staging (self, t, size))
    return FALSE;
  frame->mem = t->staging;
  if (!frame->is_output) {
    err = clEnqueueWriteBuffer (ctx->queue, frame->mem, CL_FALSE, 0, size,
        base, 0, NULL, NULL);
    if (!gst_cl_base_filter_check (self, err, "clEnqueueWriteBuffer",
            "Could not upload the frame to the OpenCL device"))
      return FALSE;
  }
  return TRUE;
}

static gsize
plane_bytes (const GstVideoFrame * vf, guint p)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (vf->info.finfo, p, comp);
  return (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (vf, p) *
      GST_VIDEO_FRAME_COMP_HEIGHT (vf, comp[0]);
}

/* Planes in separate memories: pack them into the device buffer */
static gboolean
attach_planes (GstClBaseFilter * self, GstClFrame * frame)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (self);
  GstVideoFrame *vf = &frame->vframe;
  gsize total = 0;
  guint p;

  for (p = 0; p < frame->n_planes; p++) {
    frame->offset[p] = total;
    total += gst_cl_round_up (plane_bytes (vf, p), PLANE_ALIGN);
  }
  if (!ensure_staging (self, frame->transfer, total))
    return FALSE;
  frame->mem = frame->transfer->staging;
  frame->size = total;
  frame->packed = TRUE;

  for (p = 0; p < frame->n_planes && !frame->is_output; p++) {
    cl_int err = clEnqueueWriteBuffer (ctx->queue, frame->mem, CL_FALSE,
        frame->offset[p], plane_bytes (vf, p),
        GST_VIDEO_FRAME_PLANE_DATA (vf, p), 0, NULL, NULL);
    if (!gst_cl_base_filter_check (self, err, "clEnqueueWriteBuffer",
            "Could not upload the frame to the OpenCL device"))
      return FALSE;
  }
  return TRUE;
}

GstClTransfer *_gst_cl_base_filter_get_transfer (GstClBaseFilter * self,
    gboolean output);

static gboolean
map_video (GstClBaseFilter * self, GstBuffer * buffer,
    const GstVideoInfo * info, GstClFrame * frame, gboolean output)
{
  GstVideoFrame *vf = &frame->vframe;
  guint8 *base;
  guint p;

  memset (frame, 0, sizeof (*frame));
  frame->is_video = TRUE;
  frame->is_output = output;
  frame->buffer = buffer;
  frame->transfer = _gst_cl_base_filter_get_transfer (self, output);

  if (!gst_video_frame_map (vf, (GstVideoInfo *) info, buffer,
          output ? GST_MAP_WRITE : GST_MAP_READ)) {
    memset (vf, 0, sizeof (*vf));
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("Could not map the %s frame", output ? "output" : "input"));
    return FALSE;
  }
  frame->n_planes = GST_VIDEO_FRAME_N_PLANES (vf);
  for (p = 0; p < frame->n_planes; p++)
    frame->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, p);

  if (gst_buffer_n_memory (buffer) != 1)
    return attach_planes (self, frame);

  /* one memory: every plane lies inside the first plane's mapping */
  base = vf->map[0].data;
  for (p = 0; p < frame->n_planes; p++)
    frame->offset[p] = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (vf, p) - base;
  return attach_region (self, frame, base, vf->map[0].size);
}

gboolean
gst_cl_frame_map_input (GstClBaseFilter * self, GstBuffer * buffer,
    const GstVideoInfo * info, GstClFrame * frame)
{
  return map_video (self, buffer, info, frame, FALSE);
}

gboolean
gst_cl_frame_map_output (GstClBaseFilter * self, GstBuffer * buffer,
    const GstVideoInfo * info, GstClFrame * frame)
{
  return map_video (self, buffer, info, frame, TRUE);
}

gboolean
gst_cl_frame_map_output_raw (GstClBaseFilter * self, GstBuffer * buffer,
    GstClFrame * frame)
{
  memset (frame, 0, sizeof (*frame));
  frame->is_output = TRUE;
  frame->buffer = buffer;
  frame->transfer = _gst_cl_base_filter_get_transfer (self, TRUE);
  if (!gst_buffer_map (buffer, &frame->map, GST_MAP_WRITE)) {
    memset (&frame->map, 0, sizeof (frame->map));
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("Could not map the output buffer"));
    return FALSE;
  }
  frame->n_planes = 1;
  frame->stride[0] = 0;
  return attach_region (self, frame, frame->map.data, frame->map.size);
}

gboolean
gst_cl_frame_finish_output (GstClBaseFilter * self, GstClFrame * frame)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (self);
  cl_int err = CL_SUCCESS;
  guint p;

  g_return_val_if_fail (frame->is_output, FALSE);

  if (frame->wrapped) {
    /* map/unmap: the spec's way to make USE_HOST_PTR results visible to the
     * host; on CPU devices it returns the host pointer without copying */
    void *ptr = clEnqueueMapBuffer (ctx->queue, frame->mem, CL_TRUE,
        CL_MAP_READ, 0, frame->size, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS)
      err = clEnqueueUnmapMemObject (ctx->queue, frame->mem, ptr, 0, NULL,
          NULL);
    if (err == CL_SUCCESS)
      err = clFinish (ctx->queue);
    return gst_cl_base_filter_check (self, err, "clEnqueueMapBuffer",
        "Could not read the result from the OpenCL device");
  }

  if (frame->packed) {
    for (p = 0; p < frame->n_planes && err == CL_SUCCESS; p++)
      err = clEnqueueReadBuffer (ctx->queue, frame->mem,
          p + 1 == frame->n_planes, frame->offset[p],
          plane_bytes (&frame->vframe, p),
          GST_VIDEO_FRAME_PLANE_DATA (&frame->vframe, p), 0, NULL, NULL);
  } else {
    void *dst = frame->is_video ? frame->vframe.map[0].data : frame->map.data;
    err = clEnqueueReadBuffer (ctx->queue, frame->mem, CL_TRUE, 0,
        frame->size, dst, 0, NULL, NULL);
  }
  return gst_cl_base_filter_check (self, err, "clEnqueueReadBuffer",
      "Could not read the result from the OpenCL device");
}

void
gst_cl_frame_unmap (GstClBaseFilter * self, GstClFrame * frame)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (self);

  /* writes and kernels may still read the host memory: wait before unmapping */
  if (ctx)
    clFinish (ctx->queue);
  if (frame->wrapped && frame->mem)
    clReleaseMemObject (frame->mem);
  frame->mem = NULL;
  if (frame->is_video) {
    if (frame->vframe.buffer)
      gst_video_frame_unmap (&frame->vframe);
  } else if (frame->map.memory || frame->map.data) {
    gst_buffer_unmap (frame->buffer, &frame->map);
  }
  frame->is_video = FALSE;
  frame->vframe.buffer = NULL;
  frame->map.data = NULL;
  frame->map.memory = NULL;
}

cl_int
gst_cl_frame_set_plane_args (const GstClFrame * frame, guint plane,
    cl_kernel kernel, cl_uint * index)
{
  cl_int err;
  cl_uint offset = (cl_uint) frame->offset[plane];
  cl_int stride = frame->stride[plane];

  g_return_val_if_fail (plane < frame->n_planes, CL_INVALID_VALUE);
  err = clSetKernelArg (kernel, (*index)++, sizeof (cl_mem), &frame->mem);
  if (err == CL_SUCCESS)
    err = clSetKernelArg (kernel, (*index)++, sizeof (cl_uint), &offset);
  if (err == CL_SUCCESS)
    err = clSetKernelArg (kernel, (*index)++, sizeof (cl_int), &stride);
  return err;
}
