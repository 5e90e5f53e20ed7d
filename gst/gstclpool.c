/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pinned host memory for GPUs, and aligned pools for CPU devices.
 *
 * A GstClPinnedMemory is a CL_MEM_ALLOC_HOST_PTR buffer mapped once for its
 * whole life: upstream writes pixels straight into pinned pages, and the
 * element's clEnqueueWriteBuffer from that pointer runs as DMA (measured on
 * an H200: 52 GB/s against 16 GB/s from pageable memory). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclpool.h"
#include "gstcllifopool.h"
#include "gstclutils.h"

#define GST_CAT_DEFAULT gst_cl_debug

typedef struct
{
  GstMemory mem;
  cl_mem buffer;                /* NULL in shared sub-memories */
  guint8 *data;                 /* mapped host pointer of the whole buffer */
} GstClPinnedMemory;

typedef struct
{
  GstAllocator parent;
  GstClContext *ctx;
} GstClPinnedAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} GstClPinnedAllocatorClass;

GType gst_cl_pinned_allocator_get_type (void);
G_DEFINE_TYPE (GstClPinnedAllocator, gst_cl_pinned_allocator,
    GST_TYPE_ALLOCATOR);

static GstMemory *
pinned_alloc (GstAllocator * allocator, gsize size, GstAllocationParams * params)
{
  GstClPinnedAllocator *self = (GstClPinnedAllocator *) allocator;
  gsize maxsize = size + params->prefix + params->padding;
  GstClPinnedMemory *mem;
  cl_int err;
  cl_mem buffer;
  void *data;

  buffer = clCreateBuffer (self->ctx->context,
      CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, maxsize, NULL, &err);
  if (!gst_cl_check (err, "clCreateBuffer"))
    return NULL;
  data = clEnqueueMapBuffer (self->ctx->queue, buffer, CL_TRUE,
      CL_MAP_READ | CL_MAP_WRITE, 0, maxsize, 0, NULL, NULL, &err);
  if (!gst_cl_check (err, "clEnqueueMapBuffer")) {
    clReleaseMemObject (buffer);
    return NULL;
  }

  mem = g_new0 (GstClPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, params->align, params->prefix, size);
  mem->buffer = buffer;
  mem->data = data;
  return GST_MEMORY_CAST (mem);
}

static void
pinned_free (GstAllocator * allocator, GstMemory * memory)
{
  GstClPinnedAllocator *self = (GstClPinnedAllocator *) allocator;
  GstClPinnedMemory *mem = (GstClPinnedMemory *) memory;

  if (mem->buffer) {
    clEnqueueUnmapMemObject (self->ctx->queue, mem->buffer, mem->data, 0, NULL,
        NULL);
    clFinish (self->ctx->queue);
    clReleaseMemObject (mem->buffer);
  }
  g_free (mem);
}

static gpointer
pinned_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((GstClPinnedMemory *) memory)->data;
}

static void
pinned_unmap (GstMemory * memory)
{
}

static GstMemory *
pinned_share (GstMemory * memory, gssize offset, gssize size)
{
  GstClPinnedMemory *parent = (GstClPinnedMemory *) memory, *sub;
  GstMemory *root = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;
  sub = g_new0 (GstClPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (root) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, root, memory->maxsize, memory->align,
      memory->offset + offset, size);
  sub->data = parent->data;
  return GST_MEMORY_CAST (sub);
}

static void
gst_cl_pinned_allocator_finalize (GObject * object)
{
  gst_clear_object (&((GstClPinnedAllocator *) object)->ctx);
  G_OBJECT_CLASS (gst_cl_pinned_allocator_parent_class)->finalize (object);
}

static void
gst_cl_pinned_allocator_class_init (GstClPinnedAllocatorClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_pinned_allocator_finalize;
  GST_ALLOCATOR_CLASS (klass)->alloc = pinned_alloc;
  GST_ALLOCATOR_CLASS (klass)->free = pinned_free;
}

static void
gst_cl_pinned_allocator_init (GstClPinnedAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);

  alloc->mem_type = GST_CL_PINNED_MEMORY_TYPE;
  alloc->mem_map = pinned_map;
  alloc->mem_unmap = pinned_unmap;
  alloc->mem_share = pinned_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

gboolean
gst_cl_memory_is_pinned (GstMemory * mem)
{
  return gst_memory_is_type (mem, GST_CL_PINNED_MEMORY_TYPE);
}

GstBufferPool *
gst_cl_pool_new (GstClContext * ctx, GstCaps * caps, gsize size,
    guint min_buffers)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gboolean is_video = gst_structure_has_name (s, "video/x-raw");
  GstBufferPool *pool = is_video ? gst_cl_lifo_video_pool_new () :
      gst_cl_lifo_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocationParams params;
  GstAllocator *allocator = NULL;

  gst_allocation_params_init (&params);
  params.align = ctx->mem_base_addr_align - 1;
  if (gst_cl_context_is_gpu (ctx)) {
    GstClPinnedAllocator *pinned =
        g_object_new (gst_cl_pinned_allocator_get_type (), NULL);
    gst_object_ref_sink (pinned);
    pinned->ctx = gst_object_ref (ctx);
    allocator = GST_ALLOCATOR_CAST (pinned);
  }

  gst_buffer_pool_config_set_params (config, caps, size, min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  if (is_video)
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config))
    GST_WARNING_OBJECT (pool, "pool did not take its configuration");
  if (allocator)
    gst_object_unref (allocator);
  return pool;
}
