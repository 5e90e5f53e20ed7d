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

gsize
gst_cl_plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gsize row = 0;
  guint i;

  gst_video_format_info_component (info->finfo, plane, comp);
  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0; i++)
    row = MAX (row, (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[i]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[i]));
  return row;
}

gboolean
gst_cl_plane_extent (gsize rows, gsize stride, gsize row_bytes, gsize * extent)
{
  gsize above;

  if (rows == 0) {
    *extent = 0;
    return TRUE;
  }
  return g_size_checked_mul (&above, rows - 1, stride) &&
      g_size_checked_add (extent, above, row_bytes);
}

static guint
plane_rows (const GstVideoInfo * info, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, comp);
  return GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
}

/* The memory mapping that holds plane @p: with a GstVideoMeta each plane is
 * mapped from the memory its offset falls in, else the whole buffer is */
static const GstMapInfo *
plane_map (const GstVideoFrame * vf, guint p)
{
  return vf->meta ? &vf->map[p] : &vf->map[0];
}

static const gchar *
direction (const GstClFrame * frame)
{
  return frame->is_output ? "output" : "input";
}

/* One STREAM/FORMAT error naming the plane, its layout and its memory */
static void
post_plane_error (GstClBaseFilter * self, const GstClFrame * frame, guint p,
    const gchar * problem)
{
  const GstVideoFrame *vf = &frame->vframe;
  GstVideoMeta *meta = vf->meta;

  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Cannot use plane %u of the %s frame (offset %" G_GSIZE_FORMAT
          ", stride %d, memory of %" G_GSIZE_FORMAT " bytes): %s.", p,
          direction (frame), vf->info.offset[p],
          GST_VIDEO_FRAME_PLANE_STRIDE (vf, p), plane_map (vf, p)->size,
          problem),
      ("buffer of %" G_GSIZE_FORMAT " bytes in %u memories; %s",
          gst_buffer_get_size (frame->buffer),
          gst_buffer_n_memory (frame->buffer),
          meta ? "layout from its GstVideoMeta" : "layout from the caps"));
}

/* Checks plane @p of the mapped frame against the memory that holds it, and
 * stores where it starts in that memory and how many bytes it spans */
static gboolean
measure_plane (GstClBaseFilter * self, GstClFrame * frame,
    const GstVideoInfo * info, guint p, gsize * start)
{
  const GstVideoFrame *vf = &frame->vframe;
  const GstMapInfo *map = plane_map (vf, p);
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (vf, p);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (vf, p);
  gsize row = gst_cl_plane_row_bytes (info, p), rows = plane_rows (info, p);
  gsize sample = GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0) > 8 ? 2 : 1;
  gsize end;
  gchar *problem;

  *start = data >= map->data ? (gsize) (data - map->data) : G_MAXSIZE;
  if (stride < 0)
    problem = g_strdup ("negative strides (bottom-up frames) are not "
        "supported");
  else if ((gsize) stride < row)
    problem = g_strdup_printf ("the stride is smaller than a row of %"
        G_GSIZE_FORMAT " bytes", row);
  else if (*start > map->size)
    problem = g_strdup ("the plane starts outside its memory");
  else if (!gst_cl_plane_extent (rows, stride, row, &frame->plane_size[p]) ||
      !g_size_checked_add (&end, *start, frame->plane_size[p]))
    problem = g_strdup_printf ("%" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT
        " bytes overflow the address space", rows, row);
  else if (end > map->size)
    problem = g_strdup_printf ("%" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT
        " bytes from byte %" G_GSIZE_FORMAT " of the memory end at byte %"
        G_GSIZE_FORMAT ", past its end", rows, row, *start, end);
  else if (*start % sample || stride % sample)
    problem = g_strdup ("16-bit samples need even offsets and strides");
  else
    return TRUE;

  post_plane_error (self, frame, p, problem);
  g_free (problem);
  return FALSE;
}

/* Refuses a plane the kernels cannot address (see GST_CL_MAX_FRAME_BYTES) */
static gboolean
check_addressable (GstClBaseFilter * self, GstClFrame * frame, guint p)
{
  gchar *problem;

  if (frame->offset[p] + frame->plane_size[p] <= GST_CL_MAX_FRAME_BYTES)
    return TRUE;
  problem = g_strdup_printf ("it ends at byte %" G_GUINT64_FORMAT " of the "
      "device buffer, beyond the %" G_GUINT64_FORMAT " bytes OpenCL kernels "
      "address with 32-bit offsets", (guint64) (frame->offset[p] +
          frame->plane_size[p]), GST_CL_MAX_FRAME_BYTES);
  post_plane_error (self, frame, p, problem);
  g_free (problem);
  return FALSE;
}

/* Planes in separate memories: pack them into the device buffer, each plane
 * only as long as it really is (a last row without padding included) */
static gboolean
attach_planes (GstClBaseFilter * self, GstClFrame * frame)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (self);
  GstVideoFrame *vf = &frame->vframe;
  gsize total = 0;
  guint p;

  for (p = 0; p < frame->n_planes; p++) {
    frame->offset[p] = total;
    if (!check_addressable (self, frame, p))
      return FALSE;
    total = gst_cl_round_up (total + frame->plane_size[p], PLANE_ALIGN);
  }
  if (!ensure_staging (self, frame->transfer, total))
    return FALSE;
  frame->mem = frame->transfer->staging;
  frame->size = total;
  frame->packed = TRUE;

  for (p = 0; p < frame->n_planes && !frame->is_output; p++) {
    cl_int err = clEnqueueWriteBuffer (ctx->queue, frame->mem, CL_FALSE,
        frame->offset[p], frame->plane_size[p],
        GST_VIDEO_FRAME_PLANE_DATA (vf, p), 0, NULL, NULL);
    if (!gst_cl_base_filter_check (self, err, "clEnqueueWriteBuffer",
            "Could not upload the frame to the OpenCL device"))
      return FALSE;
  }
  return TRUE;
}

/* Before mapping: what gst_video_frame_map() would refuse with a critical or
 * a bare FALSE, said clearly */
static gboolean
check_buffer (GstClBaseFilter * self, GstBuffer * buffer,
    const GstVideoInfo * info, gboolean output)
{
  const gchar *dir = output ? "output" : "input";
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  gsize size = gst_buffer_get_size (buffer);
  guint p;

  if (!meta) {
    if (size >= GST_VIDEO_INFO_SIZE (info))
      return TRUE;
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The %s buffer holds %" G_GSIZE_FORMAT " bytes, but a %dx%d %s "
            "frame needs %" G_GSIZE_FORMAT " bytes.", dir, size,
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
            GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_SIZE (info)),
        ("no GstVideoMeta: the caps' default layout applies"));
    return FALSE;
  }
  if (meta->format != GST_VIDEO_INFO_FORMAT (info) ||
      meta->width < (guint) GST_VIDEO_INFO_WIDTH (info) ||
      meta->height < (guint) GST_VIDEO_INFO_HEIGHT (info) ||
      meta->n_planes != GST_VIDEO_INFO_N_PLANES (info)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The %s buffer's video meta describes a %ux%u %s frame (%u "
            "planes), but the caps a %dx%d %s frame (%u planes).", dir,
            meta->width, meta->height,
            gst_video_format_to_string (meta->format), meta->n_planes,
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
            GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_N_PLANES (info)),
        (NULL));
    return FALSE;
  }
  for (p = 0; p < meta->n_planes; p++) {
    if (meta->offset[p] < size)
      continue;
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Cannot use plane %u of the %s frame (offset %" G_GSIZE_FORMAT
            ", stride %d): it starts past the end of the %" G_GSIZE_FORMAT
            "-byte buffer.", p, dir, meta->offset[p], meta->stride[p], size),
        ("layout from its GstVideoMeta"));
    return FALSE;
  }
  return TRUE;
}

GstClTransfer *_gst_cl_base_filter_get_transfer (GstClBaseFilter * self,
    gboolean output);

/* Validates every plane against its memory, then makes the device view: one
 * region when all planes lie in one mapping, else the planes packed */
static gboolean
attach_frame (GstClBaseFilter * self, GstClFrame * frame,
    const GstVideoInfo * info)
{
  GstVideoFrame *vf = &frame->vframe;
  gsize start[GST_VIDEO_MAX_PLANES], end = 0;
  gboolean one_region = TRUE;
  guint p;

  for (p = 0; p < frame->n_planes; p++) {
    if (!measure_plane (self, frame, info, p, &start[p]))
      return FALSE;
    one_region = one_region && plane_map (vf, p)->data == vf->map[0].data;
  }
  if (!one_region)
    return attach_planes (self, frame);

  for (p = 0; p < frame->n_planes; p++) {
    frame->offset[p] = start[p];
    if (!check_addressable (self, frame, p))
      return FALSE;
    end = MAX (end, start[p] + frame->plane_size[p]);
  }
  /* only up to the last byte a plane uses: no upload of trailing memory */
  return attach_region (self, frame, vf->map[0].data, end);
}

static gboolean
map_video (GstClBaseFilter * self, GstBuffer * buffer,
    const GstVideoInfo * info, GstClFrame * frame, gboolean output)
{
  GstVideoFrame *vf = &frame->vframe;
  guint p;

  memset (frame, 0, sizeof (*frame));
  frame->is_video = TRUE;
  frame->is_output = output;
  frame->buffer = buffer;
  frame->transfer = _gst_cl_base_filter_get_transfer (self, output);

  if (!check_buffer (self, buffer, info, output))
    return FALSE;
  if (!gst_video_frame_map (vf, (GstVideoInfo *) info, buffer,
          output ? GST_MAP_WRITE : GST_MAP_READ)) {
    memset (vf, 0, sizeof (*vf));
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Could not map the %s frame%s.", direction (frame),
            output ? " for writing" : ""), (NULL));
    return FALSE;
  }
  frame->n_planes = GST_VIDEO_FRAME_N_PLANES (vf);
  for (p = 0; p < frame->n_planes; p++)
    frame->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, p);

  if (!attach_frame (self, frame, info)) {
    /* callers need not unmap a frame whose mapping failed */
    gst_cl_frame_unmap (self, frame);
    return FALSE;
  }
  return TRUE;
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
  if (!attach_region (self, frame, frame->map.data, frame->map.size)) {
    gst_cl_frame_unmap (self, frame);
    return FALSE;
  }
  return TRUE;
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
          p + 1 == frame->n_planes, frame->offset[p], frame->plane_size[p],
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
  cl_uint offset;
  cl_int stride;

  g_return_val_if_fail (plane < frame->n_planes, CL_INVALID_VALUE);
  /* mapping refuses such frames; never hand a kernel a truncated offset */
  if (frame->offset[plane] > GST_CL_MAX_FRAME_BYTES) {
    GST_ERROR ("plane %u offset %" G_GUINT64_FORMAT " is beyond what kernels "
        "address", plane, (guint64) frame->offset[plane]);
    return CL_INVALID_ARG_VALUE;
  }
  offset = (cl_uint) frame->offset[plane];
  stride = frame->stride[plane];
  err = clSetKernelArg (kernel, (*index)++, sizeof (cl_mem), &frame->mem);
  if (err == CL_SUCCESS)
    err = clSetKernelArg (kernel, (*index)++, sizeof (cl_uint), &offset);
  if (err == CL_SUCCESS)
    err = clSetKernelArg (kernel, (*index)++, sizeof (cl_int), &stride);
  return err;
}
