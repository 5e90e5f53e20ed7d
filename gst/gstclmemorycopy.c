/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemoryCopy (see the header).
 *
 * Caps: towards the device the feature becomes memory:OpenCL, the other way
 * system memory; the unchanged caps come second, so when a neighbour refuses
 * the feature the element passes system memory through untouched.
 * memory:OpenCL out: buffers already in memory of our context pass as they
 * are, others (system memory, another context or device) are copied (through
 * the host for foreign device memory) into our pool.
 * Copies: on GPUs one clEnqueue{Write,Read}BufferRect per plane between the
 * host frame (pinned when upstream took our pool) and the cl_mem; on CPU
 * devices the GstClMemory is mapped (free: it is host memory) and rows are
 * copied. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclmemorycopy.h"
#include "gstclbufferpool.h"

#define GST_CAT_DEFAULT gst_cl_debug

typedef struct
{
  GstVideoInfo in_info, out_info;
  gboolean in_cl, out_cl;       /* caps carry memory:OpenCL */
  gboolean use_rect;
} GstClMemoryCopyPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstClMemoryCopy, gst_cl_memory_copy,
    GST_TYPE_CL_BASE_FILTER);

#define PRIV(self) ((GstClMemoryCopyPrivate *) \
    gst_cl_memory_copy_get_instance_private (GST_CL_MEMORY_COPY (self)))

static GstCaps *
gst_cl_memory_copy_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  gboolean to_device = GST_CL_MEMORY_COPY_GET_CLASS (trans)->to_device;
  gboolean towards_cl = (direction == GST_PAD_SINK) == to_device;
  GstCaps *ret;

  ret = gst_cl_caps_set_memory_feature (caps, towards_cl ?
      GST_CAPS_FEATURE_MEMORY_CL_MEMORY : NULL);
  ret = gst_caps_merge (ret, gst_caps_ref (caps));
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_DEBUG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
  return ret;
}

static gboolean
structure_has_cl_memory (GstCaps * caps, guint i)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, i);

  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CL_MEMORY);
}

/* Negotiation keeps neither side's order reliably: choose the output memory
 * here (upload: memory:OpenCL, download: system memory, when the peer takes
 * it; else the other one, i.e. passthrough) */
static GstCaps *
gst_cl_memory_copy_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  gboolean want_cl = GST_CL_MEMORY_COPY_GET_CLASS (trans)->to_device;
  guint i;

  for (i = 0; direction == GST_PAD_SINK && i < gst_caps_get_size (othercaps);
      i++) {
    if (structure_has_cl_memory (othercaps, i) == want_cl) {
      GstCaps *chosen = gst_caps_copy_nth (othercaps, i);

      gst_caps_unref (othercaps);
      othercaps = chosen;
      break;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_memory_copy_parent_class)->
      fixate_caps (trans, direction, caps, othercaps);
}

static gboolean
use_rect_copies (GstClContext * ctx)
{
  const gchar *env = g_getenv (GST_CL_MEMORY_COPY_ENV);

  if (env && g_str_equal (env, "rect"))
    return TRUE;
  if (env && g_str_equal (env, "map"))
    return FALSE;
  return gst_cl_context_is_gpu (ctx);
}

static gboolean
gst_cl_memory_copy_set_info (GstClBaseFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstClMemoryCopyPrivate *priv = PRIV (filter);

  if (!out_info || GST_VIDEO_INFO_FORMAT (in_info) !=
      GST_VIDEO_INFO_FORMAT (out_info) || in_info->width != out_info->width
      || in_info->height != out_info->height) {
    GST_ERROR_OBJECT (filter, "input and output differ: %" GST_PTR_FORMAT
        " -> %" GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  priv->in_info = *in_info;
  priv->out_info = *out_info;
  priv->in_cl = gst_cl_caps_has_cl_memory (incaps);
  priv->out_cl = gst_cl_caps_has_cl_memory (outcaps);
  priv->use_rect = use_rect_copies (gst_cl_base_filter_get_context (filter));
  /* system memory on both sides: nothing to do */
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (filter),
      !priv->in_cl && !priv->out_cl);
  GST_INFO_OBJECT (filter, "%s -> %s%s", priv->in_cl ? "OpenCL" : "system",
      priv->out_cl ? "OpenCL" : "system", priv->use_rect ?
      " (rect copies)" : " (mapped copies)");
  return TRUE;
}

/* Upstream writes into a pool of our context's memory for memory:OpenCL
 * caps, and also for system memory on CPU devices when uploading: there a
 * GstClMemory is host memory, mapped for free, and clupload then passes the
 * buffer on without a copy. Otherwise (system memory) the base class's
 * pinned (GPU: DMA) or aligned pool. */
static gboolean
gst_cl_memory_copy_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (trans));
  GstCaps *caps = NULL;
  gboolean device_pool;

  gst_query_parse_allocation (query, &caps, NULL);
  device_pool = gst_cl_caps_has_cl_memory (caps) || (ctx &&
      !gst_cl_context_is_gpu (ctx) && PRIV (trans)->out_cl &&
      !gst_base_transform_is_passthrough (trans));
  if (!device_pool)
    return GST_BASE_TRANSFORM_CLASS (gst_cl_memory_copy_parent_class)->
        propose_allocation (trans, decide_query, query);
  if (ctx)
    gst_cl_buffer_pool_propose (ctx, query);
  return TRUE;
}

static GstFlowReturn
gst_cl_memory_copy_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstClMemoryCopyPrivate *priv = PRIV (trans);
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (trans));
  GstClPlanes planes;

  /* already device memory of our context (under either caps feature, e.g.
   * upstream wrote into the pool we proposed): nothing to copy (transform()
   * sees outbuf == inbuf) */
  if (priv->out_cl && gst_cl_buffer_get_planes (inbuf, ctx, &priv->out_info,
          &planes)) {
    *outbuf = inbuf;
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_memory_copy_parent_class)->
      prepare_output_buffer (trans, inbuf, outbuf);
}

/* One rect copy per plane between a host frame and our device planes.
 * Returns FALSE (nothing posted) when this path does not apply. */
static gboolean
copy_rect (GstClMemoryCopy * self, GstBuffer * inbuf, GstBuffer * outbuf,
    GstFlowReturn * ret)
{
  GstClMemoryCopyPrivate *priv = PRIV (self);
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  gboolean to_device;
  GstClPlanes planes;
  GstVideoFrame frame;
  gboolean done;
  cl_int err;

  if (priv->out_cl && gst_cl_buffer_get_planes (outbuf, ctx, &priv->out_info,
          &planes))
    to_device = TRUE;
  else if (priv->in_cl && gst_cl_buffer_get_planes (inbuf, ctx,
          &priv->in_info, &planes))
    to_device = FALSE;
  else
    return FALSE;

  if (!gst_video_frame_map (&frame, to_device ? &priv->in_info :
          &priv->out_info, to_device ? inbuf : outbuf,
          to_device ? GST_MAP_READ : GST_MAP_WRITE))
    return FALSE;
  done = to_device ? gst_cl_planes_write (ctx, &planes, &frame, &err) :
      gst_cl_planes_read (ctx, &planes, &frame, &err);
  gst_video_frame_unmap (&frame);
  if (!done)
    return FALSE;
  *ret = gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
      to_device ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect",
      to_device ? "Could not copy a frame to the OpenCL device" :
      "Could not copy a frame from the OpenCL device") ?
      GST_FLOW_OK : GST_FLOW_ERROR;
  return TRUE;
}

/* Through the host: both frames mapped (a GstClMemory maps through its own
 * context's queue, so memory of another context or device works too) */
static GstFlowReturn
copy_mapped (GstClMemoryCopy * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstClMemoryCopyPrivate *priv = PRIV (self);
  GstVideoFrame in, out;
  gboolean copied;

  if (!gst_video_frame_map (&in, &priv->in_info, inbuf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not map the input frame"), ("%" GST_PTR_FORMAT, inbuf));
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_map (&out, &priv->out_info, outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not map the output frame"), ("%" GST_PTR_FORMAT, outbuf));
    return GST_FLOW_ERROR;
  }
  copied = gst_cl_video_frame_copy (&out, &in);
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  if (!copied) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Frame layout does not fit its buffer"),
        ("a plane's offset or stride (GstVideoMeta) reaches past the end of "
            "the buffer: %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, inbuf,
            outbuf));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cl_memory_copy_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClMemoryCopy *self = GST_CL_MEMORY_COPY (trans);
  GstFlowReturn ret = GST_FLOW_OK;

  if (inbuf == outbuf)
    return GST_FLOW_OK;
  if (PRIV (self)->use_rect && copy_rect (self, inbuf, outbuf, &ret))
    return ret;
  return copy_mapped (self, inbuf, outbuf);
}

static void
gst_cl_memory_copy_class_init (GstClMemoryCopyClass * klass)
{
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClBaseFilterClass *filter_class = GST_CL_BASE_FILTER_CLASS (klass);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cl_memory_copy_transform_caps;
  trans_class->fixate_caps = gst_cl_memory_copy_fixate_caps;
  trans_class->propose_allocation = gst_cl_memory_copy_propose_allocation;
  trans_class->prepare_output_buffer = gst_cl_memory_copy_prepare_output_buffer;
  trans_class->transform = gst_cl_memory_copy_transform;
  filter_class->set_info = gst_cl_memory_copy_set_info;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_MEMORY_COPY, 0);
}

static void
gst_cl_memory_copy_init (GstClMemoryCopy * self)
{
}
