/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClLifoPool and GstClLifoVideoPool (see the header). Both types share
 * one implementation: each keeps a LifoStack in its private data and
 * chains up to its own parent class. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcllifopool.h"

typedef struct
{
  GMutex lock;
  GQueue stack;                 /* released buffers, newest at the head */
  gsize size;                   /* the configured size, read at start */
  gboolean enabled;             /* set at start: the pool has no maximum */
} LifoStack;

typedef LifoStack GstClLifoPoolPrivate;
typedef LifoStack GstClLifoVideoPoolPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (GstClLifoPool, gst_cl_lifo_pool,
    GST_TYPE_BUFFER_POOL);
G_DEFINE_TYPE_WITH_PRIVATE (GstClLifoVideoPool, gst_cl_lifo_video_pool,
    GST_TYPE_VIDEO_BUFFER_POOL);

static LifoStack *
lifo_of (GstBufferPool * pool)
{
  if (GST_IS_CL_LIFO_VIDEO_POOL (pool))
    return gst_cl_lifo_video_pool_get_instance_private
        (GST_CL_LIFO_VIDEO_POOL (pool));
  return gst_cl_lifo_pool_get_instance_private (GST_CL_LIFO_POOL (pool));
}

static GstBufferPoolClass *
parent_of (GstBufferPool * pool)
{
  if (GST_IS_CL_LIFO_VIDEO_POOL (pool))
    return GST_BUFFER_POOL_CLASS (gst_cl_lifo_video_pool_parent_class);
  return GST_BUFFER_POOL_CLASS (gst_cl_lifo_pool_parent_class);
}

static gboolean
lifo_start (GstBufferPool * pool)
{
  LifoStack *lifo = lifo_of (pool);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint size = 0, max = 0;

  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, &max);
  gst_structure_free (config);
  g_mutex_lock (&lifo->lock);
  lifo->size = size;
  lifo->enabled = max == 0;
  g_mutex_unlock (&lifo->lock);
  return parent_of (pool)->start (pool);
}

/* buffers on the stack go back to GstBufferPool's queue, which frees them */
static gboolean
lifo_stop (GstBufferPool * pool)
{
  LifoStack *lifo = lifo_of (pool);
  GstBufferPoolClass *parent = parent_of (pool);
  GstBuffer *buffer;

  g_mutex_lock (&lifo->lock);
  while ((buffer = g_queue_pop_head (&lifo->stack)))
    parent->release_buffer (pool, buffer);
  lifo->enabled = FALSE;
  g_mutex_unlock (&lifo->lock);
  return parent->stop (pool);
}

static GstFlowReturn
lifo_acquire (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  LifoStack *lifo = lifo_of (pool);

  if (GST_BUFFER_POOL_IS_FLUSHING (pool))
    return GST_FLOW_FLUSHING;
  g_mutex_lock (&lifo->lock);
  *buffer = g_queue_pop_head (&lifo->stack);
  g_mutex_unlock (&lifo->lock);
  if (*buffer)
    return GST_FLOW_OK;
  return parent_of (pool)->acquire_buffer (pool, buffer, params);
}

/* what GstBufferPool keeps (anything else it frees): memory untouched,
 * size as configured, every memory the buffer's alone */
static gboolean
reusable (LifoStack * lifo, GstBuffer * buffer)
{
  return !GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY) &&
      gst_buffer_get_size (buffer) == lifo->size &&
      gst_buffer_is_all_memory_writable (buffer);
}

static void
lifo_release (GstBufferPool * pool, GstBuffer * buffer)
{
  LifoStack *lifo = lifo_of (pool);

  g_mutex_lock (&lifo->lock);
  if (lifo->enabled && reusable (lifo, buffer)) {
    g_queue_push_head (&lifo->stack, buffer);
    buffer = NULL;
  }
  g_mutex_unlock (&lifo->lock);
  if (buffer)
    parent_of (pool)->release_buffer (pool, buffer);
}

static void
lifo_finalize (GObject * object, GObjectClass * parent_class)
{
  LifoStack *lifo = lifo_of (GST_BUFFER_POOL (object));

  /* GstBufferPool's finalize stops a pool still active (lifo_stop empties
   * the stack), so the lock goes after it; the instance is freed later */
  parent_class->finalize (object);
  g_mutex_clear (&lifo->lock);
}

static void
lifo_class_init (GstBufferPoolClass * klass)
{
  klass->start = lifo_start;
  klass->stop = lifo_stop;
  klass->acquire_buffer = lifo_acquire;
  klass->release_buffer = lifo_release;
}

static void
lifo_init (LifoStack * lifo)
{
  g_mutex_init (&lifo->lock);
  g_queue_init (&lifo->stack);
}

static void
gst_cl_lifo_pool_finalize (GObject * object)
{
  lifo_finalize (object, gst_cl_lifo_pool_parent_class);
}

static void
gst_cl_lifo_pool_class_init (GstClLifoPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_lifo_pool_finalize;
  lifo_class_init (GST_BUFFER_POOL_CLASS (klass));
}

static void
gst_cl_lifo_pool_init (GstClLifoPool * self)
{
  lifo_init (gst_cl_lifo_pool_get_instance_private (self));
}

static void
gst_cl_lifo_video_pool_finalize (GObject * object)
{
  lifo_finalize (object, gst_cl_lifo_video_pool_parent_class);
}

static void
gst_cl_lifo_video_pool_class_init (GstClLifoVideoPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_lifo_video_pool_finalize;
  lifo_class_init (GST_BUFFER_POOL_CLASS (klass));
}

static void
gst_cl_lifo_video_pool_init (GstClLifoVideoPool * self)
{
  lifo_init (gst_cl_lifo_video_pool_get_instance_private (self));
}

GstBufferPool *
gst_cl_lifo_pool_new (void)
{
  return gst_object_ref_sink (g_object_new (GST_TYPE_CL_LIFO_POOL, NULL));
}

GstBufferPool *
gst_cl_lifo_video_pool_new (void)
{
  return gst_object_ref_sink (g_object_new (GST_TYPE_CL_LIFO_VIDEO_POOL,
          NULL));
}
