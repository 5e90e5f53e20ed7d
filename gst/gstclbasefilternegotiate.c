/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClBaseFilter's negotiation: which memory (system or memory:OpenCL) its
 * caps offer and fixate to, and its answers to allocation queries (our pool
 * put first, with its allocator; device-memory pools for memory:OpenCL). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclbasefilterpriv.h"
#include "gstclbufferpool.h"
#include "gstcllifopool.h"
#include "gstclpool.h"

#define GST_CAT_DEFAULT gst_cl_debug

void
gst_cl_base_filter_drop_pool (GstClBaseFilterPrivate * priv)
{
  if (priv->pool) {
    gst_buffer_pool_set_active (priv->pool, FALSE);
    gst_clear_object (&priv->pool);
  }
  gst_clear_caps (&priv->pool_caps);
}

/* ---- caps ---- */

GstCaps *
gst_cl_base_filter_any_memory (GstCaps * caps)
{
  GstCaps *system, *device;

  if (gst_caps_is_any (caps) || gst_caps_is_empty (caps))
    return caps;
  system = gst_cl_caps_set_memory_feature (caps, NULL);
  device = gst_cl_caps_set_memory_feature (caps,
      GST_CAPS_FEATURE_MEMORY_CL_MEMORY);
  gst_caps_unref (caps);
  return gst_caps_merge (device, system);
}

static GstCaps *
gst_cl_base_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_cl_base_filter_any_memory (gst_caps_ref (caps));

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (ret);
    ret = tmp;
  }
  return ret;
}

static gboolean
caps_name_cl_memory (GstCaps * caps)
{
  guint i;

  for (i = 0; caps && !gst_caps_is_any (caps) && i < gst_caps_get_size (caps);
      i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    /* ANY features (videoconvert's passthrough caps) name nothing */
    if (f && !gst_caps_features_is_any (f) &&
        gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CL_MEMORY))
      return TRUE;
  }
  return FALSE;
}

GstCaps *
gst_cl_base_filter_fixate_memory (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * othercaps)
{
  GstPad *pad = direction == GST_PAD_SINK ? GST_BASE_TRANSFORM_SRC_PAD (trans)
      : GST_BASE_TRANSFORM_SINK_PAD (trans);
  GstCaps *peer = gst_pad_peer_query_caps (pad, NULL);
  gboolean want_device = caps_name_cl_memory (peer);
  GstCaps *chosen = gst_caps_new_empty ();
  guint i;

  gst_caps_unref (peer);
  for (i = 0; i < gst_caps_get_size (othercaps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (othercaps, i);
    gboolean device = f && gst_caps_features_contains (f,
        GST_CAPS_FEATURE_MEMORY_CL_MEMORY);

    if (device == want_device)
      gst_caps_append_structure_full (chosen,
          gst_structure_copy (gst_caps_get_structure (othercaps, i)),
          gst_caps_features_copy (f));
  }
  if (gst_caps_is_empty (chosen)) {
    gst_caps_unref (chosen);
    return othercaps;
  }
  gst_caps_unref (othercaps);
  return chosen;
}

static GstCaps *
gst_cl_base_filter_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  othercaps = gst_cl_base_filter_fixate_memory (trans, direction, othercaps);
  return gst_cl_base_filter_parent_class_get ()->
      fixate_caps (trans, direction, caps, othercaps);
}

/* ---- allocation ---- */

/* Our pool for @caps, made once per caps */
static GstBufferPool *
get_pool (GstClBaseFilter * self, GstCaps * caps, gsize size)
{
  GstClBaseFilterPrivate *priv = PRIV (self);

  if (priv->pool && priv->pool_caps && gst_caps_is_equal (priv->pool_caps, caps)
      && !gst_buffer_pool_is_active (priv->pool))
    return gst_object_ref (priv->pool);
  gst_cl_base_filter_drop_pool (priv);
  priv->pool = gst_cl_pool_new (priv->context, caps, size, 2);
  priv->pool_caps = gst_caps_ref (caps);
  return gst_object_ref (priv->pool);
}

static gsize
caps_size (GstCaps * caps)
{
  GstVideoInfo info;

  if (gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw")
      && gst_video_info_from_caps (&info, caps))
    return info.size;
  return 0;
}

/* Puts @pool and its allocator first in @query. The allocator matters as
 * much as the pool: GstBaseTransform and GstBaseSrc configure the pool they
 * take with the query's first allocator, which would otherwise replace our
 * pinned (GPU) or aligned (CPU) memory with plain system memory. */
static void
prepend_pool_and_allocator (GstQuery * query, GstBufferPool * pool, gsize size)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  guint i, n;

  gst_buffer_pool_config_get_allocator (config, &allocator, &params);
  if (allocator)
    gst_object_ref (allocator);
  gst_structure_free (config);

  n = gst_query_get_n_allocation_params (query);
  gst_query_add_allocation_param (query, allocator, &params);
  for (i = n; i > 0; i--) {
    GstAllocator *other = NULL;
    GstAllocationParams oparams;

    gst_query_parse_nth_allocation_param (query, i - 1, &other, &oparams);
    gst_query_set_nth_allocation_param (query, i, other, &oparams);
    if (other)
      gst_object_unref (other);
  }
  gst_query_set_nth_allocation_param (query, 0, allocator, &params);
  if (allocator)
    gst_object_unref (allocator);

  n = gst_query_get_n_allocation_pools (query);
  gst_query_add_allocation_pool (query, pool, size, 2, 0);
  for (i = n; i > 0; i--) {
    GstBufferPool *other = NULL;
    guint osize, omin, omax;

    gst_query_parse_nth_allocation_pool (query, i - 1, &other, &osize, &omin,
        &omax);
    gst_query_set_nth_allocation_pool (query, i, other, osize, omin, omax);
    if (other)
      gst_object_unref (other);
  }
  gst_query_set_nth_allocation_pool (query, 0, pool, size, 2, 0);
}

/* GstVideoFilter's rule. Passthrough: our buffers are downstream's buffers,
 * so downstream's answer goes upstream (no pool of ours ahead of a display
 * sink's, no GstVideoMeta claimed on its behalf; only where it offers no
 * pool does a GPU offer its pinned one). Otherwise we read
 * the frames ourselves: we accept GstVideoMeta (mapping validates every
 * plane) and offer our pool where the query has none. */
static gboolean
gst_cl_base_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstClBaseFilter *self = GST_CL_BASE_FILTER (trans);
  GstClBaseFilterPrivate *priv = PRIV (self);
  GstBufferPool *pool;
  GstCaps *caps;
  gsize size;

  /* passthrough (no decide query): this forwards the query downstream */
  if (!gst_cl_base_filter_parent_class_get ()->
      propose_allocation (trans, decide_query, query))
    return FALSE;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !priv->context || !(size = caps_size (caps)))
    return TRUE;
  /* passthrough: downstream's answer stands, but where it offers no pool a
   * GPU would upload from pageable memory (1080p RGBA: 0.5 ms against 0.16
   * ms pinned); our pinned pool, with default strides, suits downstream as
   * well as upstream's own would */
  if (decide_query == NULL) {
    if (gst_cl_context_is_gpu (priv->context) &&
        gst_query_get_n_allocation_pools (query) == 0 &&
        !gst_cl_caps_has_cl_memory (caps)) {
      pool = get_pool (self, caps, size);
      prepend_pool_and_allocator (query, pool, size);
      gst_object_unref (pool);
    }
    return TRUE;
  }
  /* device memory: a pool of our context's GstClMemory, used in place */
  if (gst_cl_caps_has_cl_memory (caps))
    return gst_cl_buffer_pool_propose (priv->context, query);

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (gst_query_get_n_allocation_pools (query) > 0)
    return TRUE;

  pool = get_pool (self, caps, size);
  prepend_pool_and_allocator (query, pool, size);
  gst_object_unref (pool);
  return TRUE;
}

/* Output size of @caps: video frames from GstVideoInfo, anything else
 * (e.g. clintegral's integral images) from the subclass's get_unit_size */
static gsize
output_size (GstBaseTransform * trans, GstCaps * caps)
{
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (trans);
  gsize size = caps_size (caps);

  if (!size && klass->get_unit_size && !klass->get_unit_size (trans, caps,
          &size))
    size = 0;
  return size;
}

/* A pool of @ctx's GstClMemory for @caps: a GstClBufferPool (video meta)
 * for video, a plain pool with our allocator for other buffers (integral
 * images) */
static GstBufferPool *
device_pool_new (GstClContext * ctx, GstCaps * caps, gsize size, guint min,
    guint max)
{
  GstBufferPool *pool;
  GstStructure *config;
  GstAllocator *allocator;

  if (caps_size (caps))
    return gst_cl_buffer_pool_new_for_caps (ctx, caps, min, max);
  pool = gst_cl_lifo_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  allocator = gst_cl_memory_allocator_new (ctx);
  gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  gst_object_unref (allocator);
  if (!gst_buffer_pool_set_config (pool, config))
    gst_clear_object (&pool);
  return pool;
}

/* memory:OpenCL output: always our own pool of device memory (downstream's
 * buffer counts kept), whatever pool downstream offers, as clupload does */
static gboolean
decide_device_allocation (GstBaseTransform * trans, GstQuery * query,
    GstCaps * caps)
{
  GstClContext *ctx = PRIV (trans)->context;
  GstBufferPool *pool;
  guint min = 0, max = 0;
  gsize need = output_size (trans, caps);

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &min, &max);
  min = MAX (min, 2);
  if (max != 0)
    max = MAX (max, min);
  pool = need ? device_pool_new (ctx, caps, need, min, max) : NULL;
  if (!pool) {
    GST_ELEMENT_ERROR (trans, RESOURCE, SETTINGS,
        ("Could not make a pool of OpenCL buffers"),
        ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, need, min, max);
  else
    gst_query_add_allocation_pool (query, pool, need, min, max);
  gst_object_unref (pool);
  return TRUE;
}

static gboolean
gst_cl_base_filter_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstClBaseFilter *self = GST_CL_BASE_FILTER (trans);
  GstBufferPool *offered = NULL;
  GstCaps *caps;
  gsize size;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && PRIV (self)->context && gst_cl_caps_has_cl_memory (caps))
    return decide_device_allocation (trans, query, caps);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &offered, NULL, NULL, NULL);

  /* nobody downstream offers a pool: write output into ours (pinned on a
   * GPU, so the read-back is DMA; aligned on a CPU device, so kernels write
   * in place) */
  if (!offered && caps && PRIV (self)->context &&
      (size = output_size (trans, caps))) {
    GstBufferPool *pool = gst_cl_pool_new (PRIV (self)->context, caps, size, 2);
    prepend_pool_and_allocator (query, pool, size);
    gst_object_unref (pool);
  }
  if (offered)
    gst_object_unref (offered);
  return gst_cl_base_filter_parent_class_get ()->
      decide_allocation (trans, query);
}

void
gst_cl_base_filter_negotiate_init (GstBaseTransformClass * klass)
{
  klass->propose_allocation = gst_cl_base_filter_propose_allocation;
  klass->decide_allocation = gst_cl_base_filter_decide_allocation;
  klass->transform_caps = gst_cl_base_filter_transform_caps;
  klass->fixate_caps = gst_cl_base_filter_fixate_caps;
}
