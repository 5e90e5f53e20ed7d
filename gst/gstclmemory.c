/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemory and its allocator (see the header).
 *
 * Host access: the first gst_memory_map() of a memory maps its cl_mem with a
 * blocking clEnqueueMapBuffer on the context's in-order queue, so every
 * kernel enqueued before it has finished writing; nested maps share that
 * pointer; the last unmap enqueues clEnqueueUnmapMemObject and, when the host
 * wrote, waits for it, so the device sees the pixels before anything else
 * can use the memory. On CPU devices the memory is CL_MEM_ALLOC_HOST_PTR and
 * a map costs no copy. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclmemory.h"
#include "gstclutils.h"

#define GST_CAT_DEFAULT gst_cl_debug

struct _GstClMemoryAllocator
{
  GstAllocator parent;
  GstClContext *ctx;
};

G_DEFINE_TYPE (GstClMemoryAllocator, gst_cl_memory_allocator,
    GST_TYPE_ALLOCATOR);

static GstClMemory *
root_of (GstMemory * mem)
{
  return (GstClMemory *) (mem->parent ? mem->parent : mem);
}

static GstMemory *
cl_memory_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstClMemoryAllocator *self = GST_CL_MEMORY_ALLOCATOR (allocator);
  GstClContext *ctx = self->ctx;
  cl_mem_flags flags = CL_MEM_READ_WRITE;
  GstClMemory *mem;
  gsize maxsize;
  cl_mem buffer;
  cl_int err;

  if (!g_size_checked_add (&maxsize, size, params->prefix) ||
      !g_size_checked_add (&maxsize, maxsize, params->padding) ||
      maxsize > ctx->max_mem_alloc_size) {
    GST_ERROR_OBJECT (allocator, "%" G_GSIZE_FORMAT " bytes (+%" G_GSIZE_FORMAT
        " prefix, +%" G_GSIZE_FORMAT " padding) exceed the device's largest "
        "allocation (%" G_GUINT64_FORMAT " bytes)", size, params->prefix,
        params->padding, (guint64) ctx->max_mem_alloc_size);
    return NULL;
  }
  /* on a CPU device host-allocated memory is the device's memory: maps are
   * free; on a GPU the frame lives in device memory */
  if (!gst_cl_context_is_gpu (ctx))
    flags |= CL_MEM_ALLOC_HOST_PTR;
  buffer = clCreateBuffer (ctx->context, flags, MAX (maxsize, 1), NULL, &err);
  if (!gst_cl_check (err, "clCreateBuffer"))
    return NULL;

  mem = g_new0 (GstClMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, params->align, params->prefix, size);
  mem->ctx = gst_object_ref (ctx);
  mem->buffer = buffer;
  g_mutex_init (&mem->lock);
  return GST_MEMORY_CAST (mem);
}

static void
cl_memory_free (GstAllocator * allocator, GstMemory * memory)
{
  GstClMemory *mem = (GstClMemory *) memory;

  if (!memory->parent) {
    if (mem->mapped) {
      GST_WARNING_OBJECT (allocator, "memory %p freed while mapped", mem);
      clEnqueueUnmapMemObject (mem->ctx->queue, mem->buffer, mem->mapped, 0,
          NULL, NULL);
      clFinish (mem->ctx->queue);
    }
    clReleaseMemObject (mem->buffer);
    gst_object_unref (mem->ctx);
  }
  g_mutex_clear (&mem->lock);
  g_free (mem);
}

static cl_map_flags
cl_map_flags_from_gst (GstMapFlags flags)
{
  cl_map_flags cl_flags = 0;

  if (flags & GST_MAP_READ)
    cl_flags |= CL_MAP_READ;
  if (flags & GST_MAP_WRITE)
    cl_flags |= CL_MAP_WRITE;
  return cl_flags;
}

static gpointer
cl_memory_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  GstClMemory *mem = root_of (memory);
  cl_map_flags cl_flags = cl_map_flags_from_gst (flags);
  gpointer data = NULL;
  cl_int err;

  /* Intel DL Streamer asks its memory for the cl_mem with a flag of its own
   * and neither READ nor WRITE: never hand out a host pointer for that */
  if (!(flags & GST_MAP_READWRITE)) {
    GST_WARNING ("memory %p: map without READ or WRITE (flags 0x%x) refused",
        mem, flags);
    return NULL;
  }
  g_mutex_lock (&mem->lock);
  if (mem->map_count > 0) {
    /* a second map shares the first one's access (a write map's content is
     * valid, so it can be read too) */
    cl_map_flags have = mem->map_flags |
        ((mem->map_flags & CL_MAP_WRITE) ? CL_MAP_READ : 0);

    if ((cl_flags & ~have) == 0) {
      mem->map_count++;
      data = mem->mapped;
    } else {
      GST_WARNING ("memory %p is mapped with fewer rights than asked for "
          "(unmap it first)", mem);
    }
    g_mutex_unlock (&mem->lock);
    return data;
  }
  data = clEnqueueMapBuffer (mem->ctx->queue, mem->buffer, CL_TRUE, cl_flags,
      0, mem->mem.maxsize, 0, NULL, NULL, &err);
  if (gst_cl_check (err, "clEnqueueMapBuffer")) {
    mem->mapped = data;
    mem->map_flags = cl_flags;
    mem->map_count = 1;
  } else {
    data = NULL;
  }
  g_mutex_unlock (&mem->lock);
  return data;
}

static void
cl_memory_unmap (GstMemory * memory)
{
  GstClMemory *mem = root_of (memory);
  cl_int err;

  g_mutex_lock (&mem->lock);
  if (mem->map_count == 0 || --mem->map_count > 0) {
    g_mutex_unlock (&mem->lock);
    return;
  }
  err = clEnqueueUnmapMemObject (mem->ctx->queue, mem->buffer, mem->mapped,
      0, NULL, NULL);
  gst_cl_check (err, "clEnqueueUnmapMemObject");
  /* host writes must have landed before another queue or context reads */
  if (mem->map_flags & CL_MAP_WRITE)
    gst_cl_check (clFinish (mem->ctx->queue), "clFinish");
  else
    clFlush (mem->ctx->queue);
  mem->mapped = NULL;
  mem->map_flags = 0;
  g_mutex_unlock (&mem->lock);
}

static GstMemory *
cl_memory_share (GstMemory * memory, gssize offset, gssize size)
{
  GstClMemory *root = root_of (memory), *sub;

  if (size == -1)
    size = memory->size - offset;
  sub = g_new0 (GstClMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (root) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, GST_MEMORY_CAST (root), memory->maxsize,
      memory->align, memory->offset + offset, size);
  /* borrowed: the sub-memory holds a reference on the root */
  sub->ctx = root->ctx;
  sub->buffer = root->buffer;
  g_mutex_init (&sub->lock);
  return GST_MEMORY_CAST (sub);
}

static void
gst_cl_memory_allocator_finalize (GObject * object)
{
  gst_clear_object (&GST_CL_MEMORY_ALLOCATOR (object)->ctx);
  G_OBJECT_CLASS (gst_cl_memory_allocator_parent_class)->finalize (object);
}

static void
gst_cl_memory_allocator_class_init (GstClMemoryAllocatorClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_memory_allocator_finalize;
  GST_ALLOCATOR_CLASS (klass)->alloc = cl_memory_alloc;
  GST_ALLOCATOR_CLASS (klass)->free = cl_memory_free;
}

static void
gst_cl_memory_allocator_init (GstClMemoryAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);

  alloc->mem_type = GST_CL_MEMORY_TYPE;
  alloc->mem_map = cl_memory_map;
  alloc->mem_unmap = cl_memory_unmap;
  alloc->mem_share = cl_memory_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_cl_memory_allocator_new (GstClContext * ctx)
{
  GstClMemoryAllocator *self;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  self = g_object_new (GST_TYPE_CL_MEMORY_ALLOCATOR, "name",
      GST_CL_MEMORY_TYPE, NULL);
  gst_object_ref_sink (self);
  self->ctx = gst_object_ref (ctx);
  return GST_ALLOCATOR_CAST (self);
}

GstClContext *
gst_cl_memory_allocator_get_context (GstAllocator * allocator)
{
  g_return_val_if_fail (GST_IS_CL_MEMORY_ALLOCATOR (allocator), NULL);
  return GST_CL_MEMORY_ALLOCATOR (allocator)->ctx;
}

gboolean
gst_is_cl_memory (GstMemory * mem)
{
  return mem && mem->allocator && GST_IS_CL_MEMORY_ALLOCATOR (mem->allocator);
}

cl_mem
gst_cl_memory_get_mem (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_cl_memory (mem), NULL);
  return root_of (mem)->buffer;
}

GstClContext *
gst_cl_memory_get_context (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_cl_memory (mem), NULL);
  return root_of (mem)->ctx;
}

gboolean
gst_cl_buffer_is_on_context (GstBuffer * buffer, GstClContext * ctx)
{
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (!gst_is_cl_memory (mem) || gst_cl_memory_get_context (mem) != ctx)
      return FALSE;
  }
  return n > 0;
}

/* Bytes of a plane's row that a copy must carry: whole samples of every
 * component in it, so odd-width YUY2/UYVY rows keep their last macro-pixel
 * (width * pixel stride of the first component alone would cut it). */
static gsize
plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  gsize bytes = 0;
  guint c;

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, c) != plane)
      continue;
    bytes = MAX (bytes, (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, c));
  }
  return bytes;
}

static guint
plane_rows (const GstVideoInfo * info, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, comp);
  return GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
}

/* The last row ends at offset + (rows - 1) * stride + row_bytes, which must
 * lie inside @size; rows may not overlap. */
static gboolean
plane_fits (gsize offset, gint stride, gsize rows, gsize row_bytes, gsize size)
{
  gsize end;

  return stride > 0 && (gsize) stride >= row_bytes && rows > 0 &&
      g_size_checked_mul (&end, rows - 1, stride) &&
      g_size_checked_add (&end, end, row_bytes) &&
      g_size_checked_add (&end, end, offset) && end <= size;
}

gboolean
gst_cl_buffer_get_planes (GstBuffer * buffer, GstClContext * ctx,
    const GstVideoInfo * info, GstClPlanes * planes)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  GstMemory *mem;
  guint p;

  if (gst_buffer_n_memory (buffer) != 1 ||
      !gst_cl_buffer_is_on_context (buffer, ctx))
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (meta && (meta->format != GST_VIDEO_INFO_FORMAT (info) ||
          meta->width != (guint) GST_VIDEO_INFO_WIDTH (info) ||
          meta->height != (guint) GST_VIDEO_INFO_HEIGHT (info) ||
          meta->n_planes != GST_VIDEO_INFO_N_PLANES (info))) {
    GST_WARNING ("video meta (%s %ux%u, %u planes) does not match the caps",
        gst_video_format_to_string (meta->format), meta->width, meta->height,
        meta->n_planes);
    return FALSE;
  }

  memset (planes, 0, sizeof (*planes));
  planes->mem = gst_cl_memory_get_mem (mem);
  planes->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (p = 0; p < planes->n_planes; p++) {
    gsize offset = meta ? meta->offset[p] : GST_VIDEO_INFO_PLANE_OFFSET (info,
        p);
    gint stride = meta ? meta->stride[p] : GST_VIDEO_INFO_PLANE_STRIDE (info,
        p);
    gsize row_bytes = plane_row_bytes (info, p), rows = plane_rows (info, p);

    if (!plane_fits (offset, stride, rows, row_bytes, mem->size)) {
      GST_WARNING ("plane %u (offset %" G_GSIZE_FORMAT ", stride %d, %"
          G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT " bytes) does not fit in "
          "%" G_GSIZE_FORMAT " bytes of memory", p, offset, stride, rows,
          row_bytes, mem->size);
      return FALSE;
    }
    planes->offset[p] = mem->offset + offset;
    planes->stride[p] = stride;
    planes->row_bytes[p] = row_bytes;
    planes->rows[p] = rows;
  }
  return TRUE;
}

static gboolean frame_fits (const GstVideoFrame * frame);

/* OpenCL's rect copies take positive pitches no smaller than a row */
static gboolean
host_frame_fits (const GstClPlanes * planes, const GstVideoFrame * frame)
{
  guint p;

  if (GST_VIDEO_FRAME_N_PLANES (frame) != planes->n_planes ||
      !frame_fits (frame))
    return FALSE;
  for (p = 0; p < planes->n_planes; p++) {
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);

    if (stride <= 0 || (gsize) stride < planes->row_bytes[p])
      return FALSE;
  }
  return TRUE;
}

static gboolean
copy_rect (GstClContext * ctx, const GstClPlanes * planes,
    const GstVideoFrame * frame, gboolean write, cl_int * err)
{
  guint p;

  *err = CL_SUCCESS;
  if (!host_frame_fits (planes, frame))
    return FALSE;
  for (p = 0; p < planes->n_planes && *err == CL_SUCCESS; p++) {
    const size_t buffer_origin[3] = { planes->offset[p], 0, 0 };
    const size_t host_origin[3] = { 0, 0, 0 };
    const size_t region[3] = { planes->row_bytes[p], planes->rows[p], 1 };
    size_t host_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    gpointer data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);

    /* blocking: the host frame is unmapped right after */
    if (write)
      *err = clEnqueueWriteBufferRect (ctx->queue, planes->mem, CL_TRUE,
          buffer_origin, host_origin, region, planes->stride[p], 0,
          host_pitch, 0, data, 0, NULL, NULL);
    else
      *err = clEnqueueReadBufferRect (ctx->queue, planes->mem, CL_TRUE,
          buffer_origin, host_origin, region, planes->stride[p], 0,
          host_pitch, 0, data, 0, NULL, NULL);
  }
  return TRUE;
}

gboolean
gst_cl_planes_write (GstClContext * ctx, const GstClPlanes * dst,
    const GstVideoFrame * src, cl_int * err)
{
  return copy_rect (ctx, dst, src, TRUE, err);
}

gboolean
gst_cl_planes_read (GstClContext * ctx, const GstClPlanes * src,
    GstVideoFrame * dst, cl_int * err)
{
  return copy_rect (ctx, src, dst, FALSE, err);
}

static gboolean
frame_fits (const GstVideoFrame * frame)
{
  const GstVideoInfo *info = &frame->info;
  gsize size = gst_buffer_get_size (frame->buffer);
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    if (!plane_fits (GST_VIDEO_INFO_PLANE_OFFSET (info, p),
            GST_VIDEO_INFO_PLANE_STRIDE (info, p), plane_rows (info, p),
            plane_row_bytes (info, p), size)) {
      GST_WARNING ("plane %u (offset %" G_GSIZE_FORMAT ", stride %d) of a "
          "%ux%u %s frame does not fit in its %" G_GSIZE_FORMAT "-byte buffer",
          p, GST_VIDEO_INFO_PLANE_OFFSET (info, p),
          GST_VIDEO_INFO_PLANE_STRIDE (info, p), GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), size);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
gst_cl_video_frame_copy (GstVideoFrame * dst, const GstVideoFrame * src)
{
  const GstVideoInfo *info = &src->info;
  guint p, row;

  if (GST_VIDEO_INFO_FORMAT (&dst->info) != GST_VIDEO_INFO_FORMAT (info) ||
      GST_VIDEO_INFO_WIDTH (&dst->info) != GST_VIDEO_INFO_WIDTH (info) ||
      GST_VIDEO_INFO_HEIGHT (&dst->info) != GST_VIDEO_INFO_HEIGHT (info) ||
      !frame_fits (src) || !frame_fits (dst))
    return FALSE;
  /* not gst_video_frame_copy(): it leaves out the last macro-pixel's
   * second half in odd-width YUY2/UYVY rows */
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize bytes = plane_row_bytes (info, p);
    guint rows = plane_rows (info, p);
    gsize sstride = GST_VIDEO_FRAME_PLANE_STRIDE (src, p);
    gsize dstride = GST_VIDEO_FRAME_PLANE_STRIDE (dst, p);
    const guint8 *s = GST_VIDEO_FRAME_PLANE_DATA (src, p);
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (dst, p);

    for (row = 0; row < rows; row++)
      memcpy (d + row * dstride, s + row * sstride, bytes);
  }
  return TRUE;
}

GstCaps *
gst_cl_caps_set_memory_feature (GstCaps * caps, const gchar * feature)
{
  GstCaps *ret = gst_caps_copy (caps);
  guint i, n = gst_caps_get_size (ret);

  for (i = 0; i < n; i++)
    gst_caps_set_features (ret, i, feature ?
        gst_caps_features_new (feature, NULL) : NULL);
  return ret;
}

gboolean
gst_cl_caps_has_cl_memory (GstCaps * caps)
{
  GstCapsFeatures *features;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  features = gst_caps_get_features (caps, 0);
  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CL_MEMORY);
}
