/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClBufferPool (see the header). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclbufferpool.h"
#include "gstclmemory.h"
#include "gstclutils.h"

#define GST_CAT_DEFAULT gst_cl_debug

struct _GstClBufferPool
{
  GstClLifoVideoPool parent;
  GstClContext *ctx;
};

G_DEFINE_TYPE (GstClBufferPool, gst_cl_buffer_pool,
    GST_TYPE_CL_LIFO_VIDEO_POOL);

/* Whatever allocator the configuration names, buffers are GstClMemory of
 * our context: the allocator of an ALLOCATION query would otherwise put
 * system memory under memory:OpenCL caps. */
static gboolean
gst_cl_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstClBufferPool *self = GST_CL_BUFFER_POOL (pool);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  if (!gst_buffer_pool_config_get_allocator (config, &allocator, &params))
    gst_allocation_params_init (&params);
  if (!allocator || !GST_IS_CL_MEMORY_ALLOCATOR (allocator) ||
      gst_cl_memory_allocator_get_context (allocator) != self->ctx) {
    GstAllocator *ours = gst_cl_memory_allocator_new (self->ctx);

    gst_buffer_pool_config_set_allocator (config, ours, &params);
    gst_object_unref (ours);
  }
  return GST_BUFFER_POOL_CLASS (gst_cl_buffer_pool_parent_class)->set_config
      (pool, config);
}

static void
gst_cl_buffer_pool_finalize (GObject * object)
{
  gst_clear_object (&GST_CL_BUFFER_POOL (object)->ctx);
  G_OBJECT_CLASS (gst_cl_buffer_pool_parent_class)->finalize (object);
}

static void
gst_cl_buffer_pool_class_init (GstClBufferPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_buffer_pool_finalize;
  GST_BUFFER_POOL_CLASS (klass)->set_config = gst_cl_buffer_pool_set_config;
}

static void
gst_cl_buffer_pool_init (GstClBufferPool * self)
{
}

GstBufferPool *
gst_cl_buffer_pool_new (GstClContext * ctx)
{
  GstClBufferPool *self;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  self = g_object_new (GST_TYPE_CL_BUFFER_POOL, NULL);
  gst_object_ref_sink (self);
  self->ctx = gst_object_ref (ctx);
  return GST_BUFFER_POOL_CAST (self);
}

GstClContext *
gst_cl_buffer_pool_get_context (GstBufferPool * pool)
{
  g_return_val_if_fail (GST_IS_CL_BUFFER_POOL (pool), NULL);
  return GST_CL_BUFFER_POOL (pool)->ctx;
}

GstBufferPool *
gst_cl_buffer_pool_new_for_caps (GstClContext * ctx, GstCaps * caps,
    guint min, guint max)
{
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;

  if (!caps || !gst_video_info_from_caps (&info, caps))
    return NULL;
  pool = gst_cl_buffer_pool_new (ctx);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (pool, "pool refused its configuration for %"
        GST_PTR_FORMAT, caps);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

gboolean
gst_cl_buffer_pool_propose (GstClContext * ctx, GstQuery * query)
{
  GstBufferPool *pool;
  GstCaps *caps = NULL;
  GstVideoInfo info;

  /* a pool even when upstream did not ask for one: it may still take it */
  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  pool = gst_cl_buffer_pool_new_for_caps (ctx, caps, 2, 0);
  if (!pool)
    return FALSE;
  gst_query_add_allocation_pool (query, pool, info.size, 2, 0);
  gst_object_unref (pool);
  return TRUE;
}
