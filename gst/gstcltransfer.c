/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames to and from the device.
 *
 * CPU devices (PoCL): the mapped frame is wrapped with CL_MEM_USE_HOST_PTR
 * when it meets CL_DEVICE_MEM_BASE_ADDR_ALIGN, so kernels read and write the
 * buffer's own memory (the wrapper is a handle, no pixels are allocated or
 * copied); an input frame that does not is wrapped from the aligned address
 * below it; an output frame that does not is written to a device buffer
 * reused every frame, then copied.
 * GPUs: one write into (or read from) a device buffer reused every frame; it
 * runs as DMA when the frame is in our pinned pool. Buffers whose planes sit
 * in several GstMemory are written plane by plane.
 * GstClMemory of the element's context: its cl_mem is the frame (no map, no
 * copy, no wrap), validated like host frames.
 * Synchronisation: everything goes on the context's one in-order queue, so
 * device frames need no wait here; the queue is drained only before host
 * memory that the device used is unmapped. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcltransfer.h"
#include "gstclutils.h"

#define GST_CAT_DEFAULT gst_cl_debug

/* plane offsets in a packed device buffer keep this alignment */
#define PLANE_ALIGN 256

GstClTransfer *
gst_cl_transfer_new (GstElement * element, gboolean output)
{
  GstClTransfer *t = g_new0 (GstClTransfer, 1);

  t->element = element;
  t->output = output;
  t->flags = output ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY;
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

gboolean
gst_cl_post_cl_error (GstElement * element, GstClContext * ctx, cl_int err,
    const gchar * call, const gchar * what)
{
  if (G_LIKELY (err == CL_SUCCESS))
    return TRUE;
  gst_element_message_full (element, GST_MESSAGE_ERROR,
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED, g_strdup (what),
      g_strdup_printf ("OpenCL error %s (%d) during call: %s on device \"%s\"",
          gst_cl_error_name (err), err, call,
          ctx ? ctx->device_name : "none"), __FILE__, G_STRFUNC, __LINE__);
  return FALSE;
}

static gboolean
check (GstClTransfer * t, cl_int err, const gchar * call, const gchar * what)
{
  return gst_cl_post_cl_error (t->element, t->ctx, err, call, what);
}

gboolean
gst_cl_buffer_ensure (GstElement * element, GstClContext * ctx,
    cl_mem_flags flags, gsize size, cl_mem * mem, gsize * mem_size)
{
  cl_int err;

  if (*mem && *mem_size >= size)
    return TRUE;
  if (*mem)
    clReleaseMemObject (*mem);
  *mem_size = 0;
  *mem = clCreateBuffer (ctx->context, flags, size, NULL, &err);
  if (err != CL_SUCCESS) {
    gchar *what = g_strdup_printf ("Could not allocate %.1f MB on OpenCL "
        "device \"%s\"", size / 1e6, ctx->device_name);
    gst_cl_post_cl_error (element, ctx, err, "clCreateBuffer", what);
    g_free (what);
    *mem = NULL;
    return FALSE;
  }
  *mem_size = size;
  return TRUE;
}

static gboolean
ensure_staging (GstClTransfer * t, gsize size)
{
  return gst_cl_buffer_ensure (t->element, t->ctx, t->flags, size,
      &t->staging, &t->staging_size);
}

static gboolean
can_wrap (GstClTransfer * t, gconstpointer ptr)
{
  GstClContext *ctx = t->ctx;

  return !t->in_place && !gst_cl_context_is_gpu (ctx) &&
      ((guintptr) ptr % ctx->mem_base_addr_align) == 0;
}

/* Makes @frame->mem for the single host region [@base, @base + @size) */
static gboolean
attach_region (GstClFrame * frame, guint8 * base, gsize size)
{
  GstClTransfer *t = frame->transfer;
  GstClContext *ctx = t->ctx;
  cl_int err;

  frame->size = size;
  if (can_wrap (t, base)) {
    frame->mem = clCreateBuffer (ctx->context, t->flags | CL_MEM_USE_HOST_PTR,
        size, base, &err);
    if (!check (t, err, "clCreateBuffer",
            "Could not use the frame's memory on the OpenCL device"))
      return FALSE;
    frame->wrapped = TRUE;
    return TRUE;
  }

  if (!ensure_staging (t, size))
    return FALSE;
  frame->mem = t->staging;
  if (!frame->is_output) {
    err = clEnqueueWriteBuffer (ctx->queue, frame->mem, CL_FALSE, 0, size,
        base, 0, NULL, NULL);
    if (!check (t, err, "clEnqueueWriteBuffer",
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
post_layout_error (GstClFrame * frame, guint p, gsize offset, gint stride,
    gsize mem_size, const gchar * problem)
{
  GstElement *element = frame->transfer->element;
  GstVideoMeta *meta = gst_buffer_get_video_meta (frame->buffer);

  GST_ELEMENT_ERROR (element, STREAM, FORMAT,
      ("Cannot use plane %u of the %s frame (offset %" G_GSIZE_FORMAT
          ", stride %d, memory of %" G_GSIZE_FORMAT " bytes): %s.", p,
          direction (frame), offset, stride, mem_size, problem),
      ("buffer of %" G_GSIZE_FORMAT " bytes in %u memories%s; %s",
          gst_buffer_get_size (frame->buffer),
          gst_buffer_n_memory (frame->buffer),
          frame->on_device ? " (OpenCL memory)" : "",
          meta ? "layout from its GstVideoMeta" : "layout from the caps"));
}

static void
post_plane_error (GstClFrame * frame, guint p, const gchar * problem)
{
  const GstVideoFrame *vf = &frame->vframe;

  post_layout_error (frame, p, vf->info.offset[p],
      GST_VIDEO_FRAME_PLANE_STRIDE (vf, p), plane_map (vf, p)->size, problem);
}

/* What a plane at byte @start of @size bytes of memory, @rows rows of @row
 * bytes @stride apart, cannot be; NULL when it is fine. Stores the plane's
 * extent in *@extent. */
static gchar *
plane_problem (gsize start, gint stride, gsize rows, gsize row, gsize sample,
    gsize size, gsize * extent)
{
  gsize end;

  if (stride < 0)
    return g_strdup ("negative strides (bottom-up frames) are not "
        "supported");
  if ((gsize) stride < row)
    return g_strdup_printf ("the stride is smaller than a row of %"
        G_GSIZE_FORMAT " bytes", row);
  if (start > size)
    return g_strdup ("the plane starts outside its memory");
  if (!gst_cl_plane_extent (rows, stride, row, extent) ||
      !g_size_checked_add (&end, start, *extent))
    return g_strdup_printf ("%" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT
        " bytes overflow the address space", rows, row);
  if (end > size)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT
        " bytes from byte %" G_GSIZE_FORMAT " of the memory end at byte %"
        G_GSIZE_FORMAT ", past its end", rows, row, start, end);
  if (start % sample || stride % sample)
    return g_strdup ("16-bit samples need even offsets and strides");
  return NULL;
}

static gsize
sample_bytes (const GstVideoInfo * info)
{
  return GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0) > 8 ? 2 : 1;
}

/* Checks plane @p of the mapped frame against the memory that holds it, and
 * stores where it starts in that memory and how many bytes it spans */
static gboolean
measure_plane (GstClFrame * frame, const GstVideoInfo * info, guint p,
    gsize * start)
{
  const GstVideoFrame *vf = &frame->vframe;
  const GstMapInfo *map = plane_map (vf, p);
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (vf, p);
  gchar *problem;

  *start = data >= map->data ? (gsize) (data - map->data) : G_MAXSIZE;
  problem = plane_problem (*start, GST_VIDEO_FRAME_PLANE_STRIDE (vf, p),
      plane_rows (info, p), gst_cl_plane_row_bytes (info, p),
      sample_bytes (info), map->size, &frame->plane_size[p]);
  if (!problem)
    return TRUE;
  post_plane_error (frame, p, problem);
  g_free (problem);
  return FALSE;
}

/* Sets plane @p at byte @offset of the device buffer, refusing a plane the
 * kernels cannot address (see GST_CL_MAX_FRAME_BYTES) */
static gboolean
place_plane (GstClFrame * frame, guint p, gsize offset, gsize mem_size)
{
  gchar *problem;

  if (offset <= GST_CL_MAX_FRAME_BYTES &&
      frame->plane_size[p] <= GST_CL_MAX_FRAME_BYTES - offset) {
    frame->offset[p] = offset;
    return TRUE;
  }
  problem = g_strdup_printf ("it ends at byte %" G_GUINT64_FORMAT " of the "
      "device buffer, beyond the %" G_GUINT64_FORMAT " bytes OpenCL kernels "
      "address with 32-bit offsets", (guint64) offset + frame->plane_size[p],
      GST_CL_MAX_FRAME_BYTES);
  post_layout_error (frame, p, offset, frame->stride[p], mem_size, problem);
  g_free (problem);
  return FALSE;
}

/* Planes in separate memories: pack them into the device buffer, each plane
 * only as long as it really is (a last row without padding included) */
static gboolean
attach_planes (GstClFrame * frame)
{
  GstClTransfer *t = frame->transfer;
  GstVideoFrame *vf = &frame->vframe;
  gsize total = 0;
  guint p;

  for (p = 0; p < frame->n_planes; p++) {
    if (!place_plane (frame, p, total, plane_map (vf, p)->size))
      return FALSE;
    total = gst_cl_round_up (total + frame->plane_size[p], PLANE_ALIGN);
  }
  if (!ensure_staging (t, total))
    return FALSE;
  frame->mem = t->staging;
  frame->size = total;
  frame->packed = TRUE;

  for (p = 0; p < frame->n_planes && !frame->is_output; p++) {
    cl_int err = clEnqueueWriteBuffer (t->ctx->queue, frame->mem, CL_FALSE,
        frame->offset[p], frame->plane_size[p],
        GST_VIDEO_FRAME_PLANE_DATA (vf, p), 0, NULL, NULL);
    if (!check (t, err, "clEnqueueWriteBuffer",
            "Could not upload the frame to the OpenCL device"))
      return FALSE;
  }
  return TRUE;
}

/* Before mapping: what gst_video_frame_map() would refuse with a critical or
 * a bare FALSE, said clearly */
static gboolean
check_buffer (GstClFrame * frame, const GstVideoInfo * info)
{
  GstElement *element = frame->transfer->element;
  GstBuffer *buffer = frame->buffer;
  const gchar *dir = direction (frame);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  gsize size = gst_buffer_get_size (buffer);
  guint p;

  if (!meta) {
    if (size >= GST_VIDEO_INFO_SIZE (info))
      return TRUE;
    GST_ELEMENT_ERROR (element, STREAM, FORMAT,
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
    GST_ELEMENT_ERROR (element, STREAM, FORMAT,
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
    GST_ELEMENT_ERROR (element, STREAM, FORMAT,
        ("Cannot use plane %u of the %s frame (offset %" G_GSIZE_FORMAT
            ", stride %d): it starts past the end of the %" G_GSIZE_FORMAT
            "-byte buffer.", p, dir, meta->offset[p], meta->stride[p], size),
        ("layout from its GstVideoMeta"));
    return FALSE;
  }
  return TRUE;
}

/* Input frames on CPU devices that do not start on the device's base
 * alignment (a decoder's or an appsrc's memory): wrapped from the aligned
 * address below them instead of copied, every plane offset moved by the
 * difference. That address lies in the same page as the frame (the
 * alignment divides the page size), so it is mapped; kernels never read
 * the bytes before the frame. Returns the difference (0: as it is). */
static gsize
wrap_shift (const GstClFrame * frame, const guint8 * base)
{
  GstClContext *ctx = frame->transfer->ctx;
  gsize align = ctx->mem_base_addr_align;

  if (frame->is_output || frame->transfer->in_place ||
      gst_cl_context_is_gpu (ctx) ||
      4096 % align != 0)
    return 0;
  return (guintptr) base % align;
}

/* Validates every plane against its memory, then makes the device view: one
 * region when all planes lie in one mapping, else the planes packed */
static gboolean
attach_frame (GstClFrame * frame, const GstVideoInfo * info)
{
  GstVideoFrame *vf = &frame->vframe;
  gsize start[GST_VIDEO_MAX_PLANES], end = 0, sub;
  gboolean one_region = TRUE;
  guint p;

  for (p = 0; p < frame->n_planes; p++) {
    if (!measure_plane (frame, info, p, &start[p]))
      return FALSE;
    one_region = one_region && plane_map (vf, p)->data == vf->map[0].data;
  }
  if (!one_region)
    return attach_planes (frame);

  sub = wrap_shift (frame, vf->map[0].data);
  for (p = 0; p < frame->n_planes; p++) {
    if (!place_plane (frame, p, start[p] + sub, vf->map[0].size))
      return FALSE;
    end = MAX (end, start[p] + frame->plane_size[p]);
  }
  /* only up to the last byte a plane uses: no upload of trailing memory */
  return attach_region (frame, vf->map[0].data - sub, end + sub);
}

/* A video frame in one GstClMemory of our context: its cl_mem as it is.
 * gst_cl_buffer_get_planes() checks the meta and that every plane fits in
 * the memory; kernels also need even 16-bit offsets and 32-bit offsets.
 * Returns FALSE with *@posted unset when the buffer is not such memory (the
 * host path then maps it, and validates it again). */
static gboolean
attach_device_video (GstClFrame * frame, const GstVideoInfo * info,
    gboolean * posted)
{
  GstMemory *mem = gst_buffer_peek_memory (frame->buffer, 0);
  GstClPlanes planes;
  gsize end = 0;
  guint p;

  if (!gst_cl_buffer_get_planes (frame->buffer, frame->transfer->ctx, info,
          &planes))
    return FALSE;
  frame->on_device = TRUE;
  frame->mem = planes.mem;
  frame->n_planes = planes.n_planes;
  for (p = 0; p < planes.n_planes; p++) {
    gchar *problem = planes.stride[p] > G_MAXINT ? g_strdup ("the stride "
        "does not fit in 32 bits") : plane_problem (planes.offset[p] -
        mem->offset, planes.stride[p], planes.rows[p], planes.row_bytes[p],
        sample_bytes (info), mem->size, &frame->plane_size[p]);

    frame->stride[p] = MIN (planes.stride[p], G_MAXINT);
    if (problem) {
      post_layout_error (frame, p, planes.offset[p] - mem->offset,
          frame->stride[p], mem->size, problem);
      g_free (problem);
      *posted = TRUE;
      return FALSE;
    }
    if (!place_plane (frame, p, planes.offset[p], mem->size)) {
      *posted = TRUE;
      return FALSE;
    }
    end = MAX (end, planes.offset[p] + frame->plane_size[p]);
  }
  frame->size = end;
  return TRUE;
}

/* A raw buffer of one GstClMemory of our context that starts at the start
 * of its cl_mem (kernels write from byte 0) */
static gboolean
attach_device_raw (GstClFrame * frame)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (frame->buffer) != 1 ||
      !gst_cl_buffer_is_on_context (frame->buffer, frame->transfer->ctx))
    return FALSE;
  mem = gst_buffer_peek_memory (frame->buffer, 0);
  if (mem->offset != 0)
    return FALSE;
  frame->on_device = TRUE;
  frame->mem = gst_cl_memory_get_mem (mem);
  frame->n_planes = 1;
  frame->size = mem->size;
  return TRUE;
}

static gboolean
map_video (GstClFrame * frame, const GstVideoInfo * info)
{
  GstVideoFrame *vf = &frame->vframe;
  gboolean output = frame->is_output;
  guint p;

  if (!check_buffer (frame, info))
    return FALSE;
  /* in place: no reference, the caller still adds metas to the buffer
   * (it outlives the frame) */
  if (!gst_video_frame_map (vf, (GstVideoInfo *) info, frame->buffer,
          output ? GST_MAP_WRITE : frame->transfer->in_place ?
          GST_MAP_READWRITE | GST_VIDEO_FRAME_MAP_FLAG_NO_REF :
          GST_MAP_READ)) {
    memset (vf, 0, sizeof (*vf));
    GST_ELEMENT_ERROR (frame->transfer->element, STREAM, FAILED,
        ("Could not map the %s frame%s.", direction (frame),
            output ? " for writing" : ""), (NULL));
    return FALSE;
  }
  frame->is_video = TRUE;
  frame->n_planes = GST_VIDEO_FRAME_N_PLANES (vf);
  for (p = 0; p < frame->n_planes; p++)
    frame->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, p);
  return attach_frame (frame, info);
}

static gboolean
map_raw (GstClFrame * frame)
{
  if (!gst_buffer_map (frame->buffer, &frame->map, frame->is_output ?
          GST_MAP_WRITE : GST_MAP_READ)) {
    memset (&frame->map, 0, sizeof (frame->map));
    GST_ELEMENT_ERROR (frame->transfer->element, STREAM, FAILED, (NULL),
        ("Could not map the %s buffer", direction (frame)));
    return FALSE;
  }
  frame->n_planes = 1;
  frame->stride[0] = 0;
  return attach_region (frame, frame->map.data, frame->map.size);
}

gboolean
gst_cl_frame_map (GstClTransfer * t, GstClContext * ctx, GstBuffer * buffer,
    const GstVideoInfo * info, GstClFrame * frame)
{
  gboolean posted = FALSE, ok;

  memset (frame, 0, sizeof (*frame));
  frame->is_output = t->output;
  frame->buffer = buffer;
  frame->transfer = t;
  if (t->ctx != ctx)
    gst_cl_transfer_reset (t);
  t->ctx = ctx;

  if (info ? attach_device_video (frame, info, &posted) :
      attach_device_raw (frame))
    return TRUE;
  if (posted)
    goto failed;
  memset (frame->offset, 0, sizeof (frame->offset));
  frame->on_device = FALSE;
  frame->mem = NULL;
  ok = info ? map_video (frame, info) : map_raw (frame);
  if (ok)
    return TRUE;

failed:
  /* callers need not unmap a frame whose mapping failed */
  gst_cl_frame_unmap (frame);
  return FALSE;
}

gboolean
gst_cl_frame_map_in_place (GstClTransfer * t, GstClContext * ctx,
    GstBuffer * buffer, const GstVideoInfo * info, GstClFrame * frame)
{
  gboolean ok;

  g_return_val_if_fail (!t->output && info != NULL, FALSE);
  if (t->flags != CL_MEM_READ_WRITE) {
    /* kernels write the device copy; read-only frames use it too */
    gst_cl_transfer_reset (t);
    t->flags = CL_MEM_READ_WRITE;
  }
  t->in_place = TRUE;
  ok = gst_cl_frame_map (t, ctx, buffer, info, frame);
  t->in_place = FALSE;
  return ok;
}

gboolean
gst_cl_plane_box (const GstVideoInfo * info, guint plane, const gint rect[4],
    GstClPlaneBox * box)
{
  const GstVideoFormatInfo *fi = info->finfo;
  guint c;

  box->x0 = G_MAXSIZE;
  box->x1 = box->y0 = box->y1 = 0;
  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++) {
    gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (fi, c);
    gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (fi, c);
    gsize ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, c);
    gsize off = GST_VIDEO_FORMAT_INFO_POFFSET (fi, c);
    gsize bytes = GST_VIDEO_FORMAT_INFO_DEPTH (fi, c) > 8 ? 2 : 1;

    if (GST_VIDEO_FORMAT_INFO_PLANE (fi, c) != plane)
      continue;
    box->x0 = MIN (box->x0, (gsize) (rect[0] >> ws) * ps + off);
    box->x1 = MAX (box->x1, (gsize) ((rect[0] + rect[2] - 1) >> ws) * ps +
        off + bytes);
    box->y0 = rect[1] >> hs;
    box->y1 = ((rect[1] + rect[3] - 1) >> hs) + 1;
  }
  return box->x0 < box->x1 && box->y0 < box->y1;
}

/* Plane @p's box of a rectangle (gst_cl_plane_box) and how to read it */
typedef struct
{
  gsize x0, x1, y0, y1;
  gsize start;                  /* byte of (x0, y0) in the device buffer */
  gboolean rows;                /* read as one run of whole rows */
  gsize size;                   /* bytes in the staging memory */
} PlaneRect;

/* @rows: read whole rows (one linear read) instead of the rectangle; also
 * where the plane does not start on a row of its own (a rectangle read's
 * origin must lie within a row) and where its last row is not whole in the
 * buffer (NVIDIA refuses a rectangle whose last row's pitch passes the
 * buffer's end: the buffer ends at the frame's last pixel) */
static gboolean
plane_rect (const GstClFrame * frame, const GstVideoInfo * info, guint p,
    const gint * rect, gboolean rows, PlaneRect * r)
{
  gsize stride = frame->stride[p];
  GstClPlaneBox box;

  if (!gst_cl_plane_box (info, p, rect, &box) || stride == 0)
    return FALSE;
  r->x0 = box.x0;
  r->x1 = box.x1;
  r->y0 = box.y0;
  r->y1 = box.y1;
  /* inside the frame, which was checked to fit the device buffer below
   * 2^31 (measure_plane): nothing here overflows */
  r->start = frame->offset[p] + r->y0 * stride + r->x0;
  r->rows = rows || frame->offset[p] % stride != 0 ||
      frame->offset[p] + r->y1 * stride > frame->size;
  r->size = r->rows ? (r->y1 - r->y0 - 1) * stride + (r->x1 - r->x0) :
      (r->x1 - r->x0) * (r->y1 - r->y0);
  return TRUE;
}

#define STAGING_ALIGN 64

gsize
gst_cl_frame_rect_size (const GstClFrame * frame, const GstVideoInfo * info,
    const gint rect[4], gboolean rows)
{
  gsize total = 0;
  PlaneRect r;
  guint p;

  if (frame->on_device || rect[2] <= 0 || rect[3] <= 0)
    return 0;
  for (p = 0; p < frame->n_planes; p++)
    if (plane_rect (frame, info, p, rect, rows, &r))
      total += gst_cl_round_up (r.size, STAGING_ALIGN);
  return total;
}

gboolean
gst_cl_frame_read_rect (GstClFrame * frame, const GstVideoInfo * info,
    const gint rect[4], gboolean rows, guint8 * staging)
{
  GstClTransfer *t = frame->transfer;
  const gchar *call = "clEnqueueReadBuffer";
  cl_int err = CL_SUCCESS;
  PlaneRect r;
  guint p;

  if (frame->on_device || rect[2] <= 0 || rect[3] <= 0)
    return TRUE;
  g_return_val_if_fail (frame->is_video && !frame->wrapped, FALSE);
  frame->queue_idle = FALSE;
  for (p = 0; p < frame->n_planes && err == CL_SUCCESS; p++) {
    gsize stride = frame->stride[p];
    /* no staging: straight into the host frame (same pitch as the device
     * copy), its pixels at the same place */
    guint8 *host = staging ? staging :
        (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame->vframe, p);

    if (!plane_rect (frame, info, p, rect, rows, &r))
      continue;
    if (r.rows) {
      err = clEnqueueReadBuffer (t->ctx->queue, frame->mem, CL_FALSE,
          r.start, r.size, staging ? host : host + r.y0 * stride + r.x0, 0,
          NULL, NULL);
    } else {
      /* the plane starts on a row: the origin is (x0, its row + y0) */
      gsize buffer_origin[3] = { r.x0, frame->offset[p] / stride + r.y0, 0 };
      gsize host_origin[3] = { 0, 0, 0 };
      gsize region[3] = { r.x1 - r.x0, r.y1 - r.y0, 1 };
      gsize host_pitch = staging ? region[0] : stride;

      if (!staging) {
        host_origin[0] = r.x0;
        host_origin[1] = r.y0;
      }
      call = "clEnqueueReadBufferRect";
      err = clEnqueueReadBufferRect (t->ctx->queue, frame->mem, CL_FALSE,
          buffer_origin, host_origin, region, stride, 0, host_pitch, 0,
          host, 0, NULL, NULL);
    }
    if (staging)
      staging += gst_cl_round_up (r.size, STAGING_ALIGN);
  }
  return check (t, err, call, "Could not read the drawn overlay back from the OpenCL device");
}

void
gst_cl_frame_put_rect (GstClFrame * frame, const GstVideoInfo * info,
    const gint rect[4], gboolean rows, const guint8 * staging)
{
  PlaneRect r;
  guint p;
  gsize y;

  if (frame->on_device || rect[2] <= 0 || rect[3] <= 0)
    return;
  for (p = 0; p < frame->n_planes; p++) {
    gsize stride = frame->stride[p];
    guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (&frame->vframe, p);

    if (!plane_rect (frame, info, p, rect, rows, &r))
      continue;
    for (y = r.y0; y < r.y1; y++)
      memcpy (dst + y * stride + r.x0, staging + (y - r.y0) * (r.rows ?
              stride : r.x1 - r.x0), r.x1 - r.x0);
    staging += gst_cl_round_up (r.size, STAGING_ALIGN);
  }
}

gboolean
gst_cl_frame_finish (GstClFrame * frame)
{
  GstClTransfer *t = frame->transfer;
  GstClContext *ctx = t->ctx;
  cl_int err = CL_SUCCESS;
  guint p;

  g_return_val_if_fail (frame->is_output, FALSE);

  if (frame->on_device)
    return TRUE;
  if (frame->wrapped) {
    /* map/unmap: the spec's way to make USE_HOST_PTR results visible to the
     * host; on CPU devices it returns the host pointer without copying.
     * One wait, after both (the pointer is not used before). */
    cl_event done = NULL;
    void *ptr = clEnqueueMapBuffer (ctx->queue, frame->mem, CL_FALSE,
        CL_MAP_READ, 0, frame->size, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS)
      err = clEnqueueUnmapMemObject (ctx->queue, frame->mem, ptr, 0, NULL,
          &done);
    if (err == CL_SUCCESS) {
      err = gst_cl_wait (&t->waiter, ctx->queue, done, frame->size);
      clReleaseEvent (done);
    }
    frame->queue_idle = err == CL_SUCCESS;
    return check (t, err, "clEnqueueMapBuffer",
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
  /* the last read blocked: in order, everything before it has run */
  frame->queue_idle = err == CL_SUCCESS;
  return check (t, err, "clEnqueueReadBuffer",
      "Could not read the result from the OpenCL device");
}

void
gst_cl_frame_unmap (GstClFrame * frame)
{
  GstClContext *ctx = frame->transfer ? frame->transfer->ctx : NULL;
  gboolean host = frame->vframe.buffer || frame->map.memory;

  /* writes and kernels may still read the host memory: wait before
   * unmapping it. Device frames need no wait: whoever uses their memory
   * next goes through the same in-order queue (or maps, which waits). */
  if (ctx && host && frame->mem && !frame->queue_idle)
    clFinish (ctx->queue);
  if (frame->wrapped && frame->mem)
    clReleaseMemObject (frame->mem);
  frame->mem = NULL;
  frame->wrapped = FALSE;
  frame->queue_idle = FALSE;
  if (frame->vframe.buffer)
    gst_video_frame_unmap (&frame->vframe);
  else if (frame->map.memory)
    gst_buffer_unmap (frame->buffer, &frame->map);
  frame->is_video = FALSE;
  frame->vframe.buffer = NULL;
  frame->map.data = NULL;
  frame->map.memory = NULL;
}
