/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Allocation rules of the base filter (GstVideoFilter's): in passthrough the
 * ALLOCATION query reaches downstream and its answer comes back untouched
 * (its pool, its allocator, no GstVideoMeta claimed on its behalf); a
 * transforming element offers its own pool upstream and writes into the
 * pool downstream offers; output buffers with a hostile GstVideoMeta from
 * downstream's pool end in one clear error, and the mapped output frame is
 * released (the buffer goes back to its pool); no kernel reads or writes
 * past a frame that ends at a guard page; our pools hand out the buffer
 * released last (the one likeliest in the CPU's caches). */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "testframes.h"

/* ---- a downstream pool that counts buffers out and can be hostile ---- */

typedef struct
{
  GstBufferPool parent;
  GstVideoInfo info;
  gboolean hostile;             /* strides of half a row */
  gboolean separate;            /* each plane in its own exact-fit memory */
  gboolean guarded;             /* one memory of the frame's exact size,
                                 * ending at a guard page */
  GHashTable *out;              /* buffers acquired, not yet released */
} TestPool;

typedef struct
{
  GstBufferPoolClass parent_class;
} TestPoolClass;

GType test_pool_get_type (void);
G_DEFINE_TYPE (TestPool, test_pool, GST_TYPE_BUFFER_POOL);

static gboolean
test_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  TestPool *self = (TestPool *) pool;
  GstCaps *caps = NULL;

  if (!gst_buffer_pool_config_get_params (config, &caps, NULL, NULL, NULL) ||
      !caps || !gst_video_info_from_caps (&self->info, caps))
    return FALSE;
  return GST_BUFFER_POOL_CLASS (test_pool_parent_class)->set_config (pool,
      config);
}

static GstFlowReturn
test_pool_alloc (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  TestPool *self = (TestPool *) pool;
  gint stride[GST_VIDEO_MAX_PLANES];
  guint p;

  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 }, at = 0;
  guint n = GST_VIDEO_INFO_N_PLANES (&self->info);

  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++)
    stride[p] = self->hostile ? self->info.stride[p] / 2 :
        self->info.stride[p];
  if (self->separate) {
    /* padded rows, the last one without padding, ending at a guard page */
    *buffer = gst_buffer_new ();
    for (p = 0; p < n; p++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS], rows;
      gsize size;

      gst_video_format_info_component (self->info.finfo, p, comp);
      rows = GST_VIDEO_INFO_COMP_HEIGHT (&self->info, comp[0]);
      stride[p] += 5;
      size = (gsize) (rows - 1) * stride[p] +
          GST_VIDEO_INFO_COMP_WIDTH (&self->info, comp[0]) *
          GST_VIDEO_INFO_COMP_PSTRIDE (&self->info, comp[0]);
      gst_buffer_append_memory (*buffer, test_memory_new_guarded (size));
      offset[p] = at;
      at += size;
    }
  } else if (self->guarded) {
    *buffer = gst_buffer_new ();
    gst_buffer_append_memory (*buffer,
        test_memory_new_guarded (GST_VIDEO_INFO_SIZE (&self->info)));
    memcpy (offset, self->info.offset, sizeof (offset));
  } else {
    *buffer = gst_buffer_new_allocate (NULL,
        GST_VIDEO_INFO_SIZE (&self->info), NULL);
    memcpy (offset, self->info.offset, sizeof (offset));
  }
  gst_buffer_add_video_meta_full (*buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&self->info), GST_VIDEO_INFO_WIDTH (&self->info),
      GST_VIDEO_INFO_HEIGHT (&self->info), n, offset, stride);
  return GST_FLOW_OK;
}

static GstFlowReturn
test_pool_acquire (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstFlowReturn ret = GST_BUFFER_POOL_CLASS (test_pool_parent_class)->
      acquire_buffer (pool, buffer, params);

  if (ret == GST_FLOW_OK)
    g_hash_table_add (((TestPool *) pool)->out, *buffer);
  return ret;
}

static void
test_pool_release (GstBufferPool * pool, GstBuffer * buffer)
{
  /* also called for the buffers a starting pool preallocates */
  g_hash_table_remove (((TestPool *) pool)->out, buffer);
  GST_BUFFER_POOL_CLASS (test_pool_parent_class)->release_buffer (pool,
      buffer);
}

static void
test_pool_finalize (GObject * object)
{
  g_hash_table_unref (((TestPool *) object)->out);
  G_OBJECT_CLASS (test_pool_parent_class)->finalize (object);
}

static void
test_pool_class_init (TestPoolClass * klass)
{
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = test_pool_finalize;
  pool_class->set_config = test_pool_set_config;
  pool_class->alloc_buffer = test_pool_alloc;
  pool_class->acquire_buffer = test_pool_acquire;
  pool_class->release_buffer = test_pool_release;
}

static void
test_pool_init (TestPool * self)
{
  self->out = g_hash_table_new (NULL, NULL);
}

/* ---- element between our source pad and our sink pad ---- */

typedef struct
{
  GstElement *element;
  GstPad *src, *sink;           /* ours: feeds the element, follows it */
  GstBus *bus;
  TestPool *pool;               /* offered by our sink, or NULL */
  GstBuffer *received;          /* last buffer that reached our sink */
} Chain;

#define DOWNSTREAM_ALIGN 31

static gboolean
sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  Chain *c = gst_pad_get_element_private (pad);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_ALLOCATION:{
      GstAllocationParams params;
      GstVideoInfo info;
      GstCaps *caps;

      gst_query_parse_allocation (query, &caps, NULL);
      fail_unless (caps && gst_video_info_from_caps (&info, caps));
      gst_allocation_params_init (&params);
      params.align = DOWNSTREAM_ALIGN;
      gst_query_add_allocation_param (query, NULL, &params);
      if (c->pool)
        gst_query_add_allocation_pool (query, GST_BUFFER_POOL (c->pool),
            GST_VIDEO_INFO_SIZE (&info), 2, 0);
      return TRUE;
    }
    case GST_QUERY_CAPS:{
      GstCaps *filter, *caps;
      gst_query_parse_caps (query, &filter);
      caps = filter ? gst_caps_ref (filter) : gst_caps_new_any ();
      gst_query_set_caps_result (query, caps);
      gst_caps_unref (caps);
      return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS:
      gst_query_set_accept_caps_result (query, TRUE);
      return TRUE;
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

static gboolean
sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  gst_event_unref (event);
  return TRUE;
}

static GstFlowReturn
sink_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  Chain *c = gst_pad_get_element_private (pad);

  gst_buffer_replace (&c->received, buffer);
  gst_buffer_unref (buffer);
  return GST_FLOW_OK;
}

/* @desc: a gst_parse_launch element description; @pool_kind: 0 none,
 * 1 a plain downstream pool, 2 a hostile one, 3 one whose planes lie in
 * separate exact-fit memories, 4 one whose frames end at a guard page */
static void
chain_init (Chain * c, const gchar * desc, gint pool_kind,
    GstVideoFormat format, gint width, gint height)
{
  GstPad *el_sink, *el_src;
  GstSegment segment;
  GstCaps *caps = test_caps_new (format, width, height);

  memset (c, 0, sizeof (*c));
  c->element = gst_parse_launch (desc, NULL);
  fail_unless (c->element != NULL, "%s", desc);
  c->bus = gst_bus_new ();
  gst_element_set_bus (c->element, c->bus);
  if (pool_kind) {
    c->pool = g_object_new (test_pool_get_type (), NULL);
    gst_object_ref_sink (c->pool);
    c->pool->hostile = pool_kind == 2;
    c->pool->separate = pool_kind == 3;
    c->pool->guarded = pool_kind == 4;
  }

  c->src = gst_pad_new ("src", GST_PAD_SRC);
  c->sink = gst_pad_new ("sink", GST_PAD_SINK);
  gst_pad_set_element_private (c->sink, c);
  gst_pad_set_query_function (c->sink, sink_query);
  gst_pad_set_event_function (c->sink, sink_event);
  gst_pad_set_chain_function (c->sink, sink_chain);
  el_sink = gst_element_get_static_pad (c->element, "sink");
  el_src = gst_element_get_static_pad (c->element, "src");
  fail_unless (gst_pad_link (c->src, el_sink) == GST_PAD_LINK_OK);
  fail_unless (gst_pad_link (el_src, c->sink) == GST_PAD_LINK_OK);
  gst_object_unref (el_sink);
  gst_object_unref (el_src);
  gst_pad_set_active (c->src, TRUE);
  gst_pad_set_active (c->sink, TRUE);

  fail_unless (gst_element_set_state (c->element, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_pad_push_event (c->src,
          gst_event_new_stream_start ("s")));
  fail_unless (gst_pad_push_event (c->src, gst_event_new_caps (caps)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_pad_push_event (c->src, gst_event_new_segment (&segment)));
  gst_caps_unref (caps);
}

static void
chain_clear (Chain * c)
{
  gst_element_set_state (c->element, GST_STATE_NULL);
  gst_buffer_replace (&c->received, NULL);
  gst_pad_set_active (c->src, FALSE);
  gst_pad_set_active (c->sink, FALSE);
  gst_object_unref (c->src);
  gst_object_unref (c->sink);
  gst_object_unref (c->element);
  gst_bus_set_flushing (c->bus, TRUE);
  gst_object_unref (c->bus);
  if (c->pool) {
    gst_buffer_pool_set_active (GST_BUFFER_POOL (c->pool), FALSE);
    gst_object_unref (c->pool);
  }
}

/* upstream's ALLOCATION query, as the element answers it */
static GstQuery *
query_allocation (Chain * c, GstVideoFormat format, gint width, gint height)
{
  GstCaps *caps = test_caps_new (format, width, height);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);

  gst_caps_unref (caps);
  fail_unless (gst_pad_peer_query (c->src, query));
  return query;
}

/* Passthrough: downstream's answer comes back as it gave it */
GST_START_TEST (test_passthrough_forwards_downstream_pool)
{
  static const gchar *descs[] = { "clhistogram", "clconvolve preset=identity" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (descs); i++) {
    GstAllocationParams params;
    GstBufferPool *pool = NULL;
    GstAllocator *allocator = NULL;
    GstQuery *query;
    Chain c;

    chain_init (&c, descs[i], 1, GST_VIDEO_FORMAT_GRAY8, 64, 48);
    fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
            (c.element)), "%s", descs[i]);
    query = query_allocation (&c, GST_VIDEO_FORMAT_GRAY8, 64, 48);
    fail_unless_equals_int (gst_query_get_n_allocation_pools (query), 1);
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
    fail_unless (pool == GST_BUFFER_POOL (c.pool), "%s: not downstream's "
        "pool", descs[i]);
    fail_unless_equals_int (gst_query_get_n_allocation_params (query), 1);
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
    fail_unless (allocator == NULL);
    fail_unless_equals_int (params.align, DOWNSTREAM_ALIGN);
    fail_if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
            NULL), "%s claims GstVideoMeta for downstream", descs[i]);
    gst_object_unref (pool);
    gst_query_unref (query);
    chain_clear (&c);
  }
}

GST_END_TEST;

/* Transforming: upstream gets our pool (we read metas), and the output is
 * written into the pool downstream offers */
GST_START_TEST (test_transform_uses_downstream_pool)
{
  GstBufferPool *pool = NULL;
  GstQuery *query;
  Chain c;

  chain_init (&c, "clconvolve preset=box", 1, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  query = query_allocation (&c, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  fail_unless_equals_int (gst_query_get_n_allocation_pools (query), 1);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL && pool != GST_BUFFER_POOL (c.pool));
  fail_unless (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
          NULL));
  gst_object_unref (pool);
  gst_query_unref (query);

  fail_unless_equals_int (gst_pad_push (c.src,
          test_frame_new (GST_VIDEO_FORMAT_GRAY8, 64, 48, TEST_LAYOUT_PADDED,
              1, NULL)), GST_FLOW_OK);
  fail_unless (c.received != NULL);
  fail_unless (c.received->pool == GST_BUFFER_POOL (c.pool),
      "output not from downstream's pool");
  chain_clear (&c);
}

GST_END_TEST;

/* Output planes in separate memories whose last rows are not padded: the
 * read-back writes each plane's real extent (a byte more would hit a guard
 * page), and the pixels equal those written into plain buffers */
GST_START_TEST (test_separate_output_planes)
{
  static const gchar *descs[] = { "clconvolve preset=box",
    "clintegral output=box-mean"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (descs); i++) {
    GstBuffer *in = test_frame_new (GST_VIDEO_FORMAT_I420, 63, 47,
        TEST_LAYOUT_PACKED, 3, NULL);
    GstVideoInfo info;
    GstBuffer *plain;
    Chain c;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 63, 47);
    chain_init (&c, descs[i], 1, GST_VIDEO_FORMAT_I420, 63, 47);
    fail_unless_equals_int (gst_pad_push (c.src, gst_buffer_ref (in)),
        GST_FLOW_OK);
    plain = gst_buffer_ref (c.received);
    chain_clear (&c);

    chain_init (&c, descs[i], 3, GST_VIDEO_FORMAT_I420, 63, 47);
    fail_unless_equals_int (gst_pad_push (c.src, gst_buffer_ref (in)),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_buffer_n_memory (c.received), 3);
    fail_unless (test_frames_equal (c.received, plain, &info), "%s",
        descs[i]);
    gst_buffer_unref (plain);
    gst_buffer_unref (in);
    chain_clear (&c);
  }
}

GST_END_TEST;

/* @in's pixels and metas in a new buffer whose memory ends at a guard page */
static GstBuffer *
guarded_copy (GstBuffer * in)
{
  gsize size = gst_buffer_get_size (in);
  GstBuffer *out = gst_buffer_new ();
  GstMapInfo map;

  gst_buffer_append_memory (out, test_memory_new_guarded (size));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_WRITE));
  fail_unless_equals_int (gst_buffer_extract (in, 0, map.data, size), size);
  gst_buffer_unmap (out, &map);
  fail_unless (gst_buffer_copy_into (out, in, GST_BUFFER_COPY_METADATA, 0,
          -1));
  return out;
}

/* Input and output frames that end at a guard page. Frames whose size is
 * a multiple of 128 bytes start aligned there, so CPU devices read and
 * write them in place: a kernel that loads or stores past the frame's last
 * byte (a tile of 16 rows where fewer remain, a column past the width, an
 * overlay box in the last rows) faults. Tiles cut every way: last tiles of
 * 15 rows and of 1, one and two tile columns; the GPU box mean (forced on
 * this device) at radii 1, 7 and 32, and the CPU kernels. The pixels equal
 * those of plain buffers. */
GST_START_TEST (test_frames_end_at_guard_page)
{
  static const struct
  {
    GstVideoFormat format;
    gint width, height;
  } frames[] = {
    {GST_VIDEO_FORMAT_RGBA, 32, 95}, {GST_VIDEO_FORMAT_RGBA, 288, 97},
    {GST_VIDEO_FORMAT_BGRx, 288, 95}, {GST_VIDEO_FORMAT_GRAY8, 128, 95},
    {GST_VIDEO_FORMAT_GRAY8, 384, 81}, {GST_VIDEO_FORMAT_I420, 256, 94},
    {GST_VIDEO_FORMAT_NV12, 256, 94}
  };
  static const gchar *descs[] = {
    "clintegral output=box-mean radius=1",
    "clintegral output=box-mean radius=7",
    "clintegral output=box-mean radius=32",
    "clconvolve preset=box", "clconvolve preset=gaussian",
    "clconvolve preset=motion-blur", "clhistogram",
    "clhistogram overlay=true overlay-position=bottom-right"
  };
  guint f, d, variant;

  for (variant = 0; variant < 2; variant++) {
    /* the element reads it when it sets up its kernels */
    g_setenv ("GST_CL_INTEGRAL_VARIANT", variant ? "gpu" : "cpu", TRUE);
    for (f = 0; f < G_N_ELEMENTS (frames); f++)
      for (d = 0; d < G_N_ELEMENTS (descs); d++) {
        GstVideoInfo info;
        GstBuffer *in, *plain;
        Chain c;

        if (variant && !g_str_has_prefix (descs[d], "clintegral"))
          continue;
        gst_video_info_set_format (&info, frames[f].format, frames[f].width,
            frames[f].height);
        fail_unless (GST_VIDEO_INFO_SIZE (&info) % 128 == 0);
        in = test_frame_new (frames[f].format, frames[f].width,
            frames[f].height, TEST_LAYOUT_PACKED, 11 + f, NULL);

        chain_init (&c, descs[d], 1, frames[f].format, frames[f].width,
            frames[f].height);
        fail_unless_equals_int (gst_pad_push (c.src, gst_buffer_ref (in)),
            GST_FLOW_OK);
        plain = gst_buffer_ref (c.received);
        chain_clear (&c);

        /* (the element may draw into the guarded input: it is not shared) */
        chain_init (&c, descs[d], 4, frames[f].format, frames[f].width,
            frames[f].height);
        fail_unless_equals_int (gst_pad_push (c.src, guarded_copy (in)),
            GST_FLOW_OK);
        fail_unless (test_frames_equal (c.received, plain, &info),
            "%s, %s %dx%d%s", descs[d],
            gst_video_format_to_string (frames[f].format), frames[f].width,
            frames[f].height, variant ? ", GPU kernels" : "");
        gst_buffer_unref (plain);
        gst_buffer_unref (in);
        chain_clear (&c);
      }
  }
  g_unsetenv ("GST_CL_INTEGRAL_VARIANT");
}

GST_END_TEST;

/* Downstream's buffers with strides of half a row: one clear error, and the
 * output buffer goes back to its pool (the failed mapping is undone) */
GST_START_TEST (test_hostile_output_buffers)
{
  static const gchar *descs[] = { "clconvolve preset=box",
    "clintegral output=box-mean"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (descs); i++) {
    GstMessage *m;
    GError *err = NULL;
    Chain c;

    chain_init (&c, descs[i], 2, GST_VIDEO_FORMAT_GRAY8, 64, 48);
    fail_unless_equals_int (gst_pad_push (c.src,
            test_frame_new (GST_VIDEO_FORMAT_GRAY8, 64, 48, TEST_LAYOUT_PACKED,
                2, NULL)), GST_FLOW_ERROR);
    fail_unless (c.received == NULL);
    m = gst_bus_pop_filtered (c.bus, GST_MESSAGE_ERROR);
    fail_unless (m != NULL, "%s: no error", descs[i]);
    gst_message_parse_error (m, &err, NULL);
    GST_INFO ("%s: %s", descs[i], err->message);
    fail_unless (strstr (err->message, "plane 0 of the output frame") &&
        strstr (err->message, "smaller than a row"), "%s: %s", descs[i],
        err->message);
    g_clear_error (&err);
    gst_message_unref (m);
    fail_if (gst_bus_have_pending (c.bus) &&
        (m = gst_bus_pop_filtered (c.bus, GST_MESSAGE_ERROR)) != NULL,
        "%s: a second error", descs[i]);
    fail_unless (g_hash_table_size (c.pool->out) == 0, "%s: the output "
        "buffer never went back to its pool", descs[i]);
    chain_clear (&c);
  }
}

GST_END_TEST;

/* ---- pools that hand out the buffer released last ---- */

/* the pool that @h's element proposes upstream for @caps_str
 * (memory:OpenCL caps: a pool of GstClMemory), configured with at most
 * @max buffers, started */
static GstBufferPool *
proposed_pool_started (GstHarness * h, const gchar * caps_str, guint max)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size, min;

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) > 0, "%s", caps_str);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_params (config, NULL, &size, &min,
          NULL));
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_query_unref (query);
  gst_caps_unref (caps);
  return pool;
}

static GstBuffer *
lifo_acquire (GstBufferPool * pool)
{
  GstBuffer *buffer = NULL;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buffer,
          NULL), GST_FLOW_OK);
  return buffer;
}

/* Pools we propose upstream (system memory, and memory:OpenCL): released
 * a, c, b, they hand out b, c, a (GstBufferPool's order: a, c, b); a
 * buffer whose memory was replaced is not handed out again; bounded pools
 * keep GstBufferPool's order; flushing, stopping and dropping an active
 * pool work as GstBufferPool's (valgrind in CI: nothing leaks) */
GST_START_TEST (test_lifo_pool_order)
{
  static const gchar *caps[] = {
    "video/x-raw, format=GRAY8, width=16, height=8, framerate=30/1",
    "video/x-raw(memory:OpenCL), format=GRAY8, width=16, height=8, "
        "framerate=30/1"
  };
  GstHarness *h = gst_harness_new_parse ("clconvolve preset=box");
  guint i;

  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 16, 8));
  for (i = 0; i < G_N_ELEMENTS (caps); i++) {
    GstBufferPool *pool = proposed_pool_started (h, caps[i], 0);
    GstBuffer *a = lifo_acquire (pool), *b = lifo_acquire (pool);
    GstBuffer *c = lifo_acquire (pool), *got;

    gst_buffer_unref (a);
    gst_buffer_unref (c);
    gst_buffer_unref (b);
    fail_unless ((got = lifo_acquire (pool)) == b, "%s", caps[i]);
    fail_unless (lifo_acquire (pool) == c);
    fail_unless (lifo_acquire (pool) == a);

    /* memory replaced: tagged, dropped on release (kept, it would come
     * back before c) */
    gst_buffer_replace_all_memory (a, gst_allocator_alloc (NULL, 128, NULL));
    gst_buffer_unref (c);
    gst_buffer_unref (a);
    fail_unless (lifo_acquire (pool) == c);
    gst_buffer_unref (c);
    gst_buffer_unref (got);

    gst_buffer_pool_set_flushing (pool, TRUE);
    got = NULL;
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &got, NULL),
        GST_FLOW_FLUSHING);
    gst_buffer_pool_set_flushing (pool, FALSE);
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
    /* started again: the stack was emptied into GstBufferPool's frees */
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    gst_buffer_unref (lifo_acquire (pool));
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
    gst_object_unref (pool);

    /* dropped while active, a buffer on its stack: freed with it */
    pool = proposed_pool_started (h, caps[i], 0);
    gst_buffer_unref (lifo_acquire (pool));
    gst_object_unref (pool);

    pool = proposed_pool_started (h, caps[i], 3);
    a = lifo_acquire (pool);
    b = lifo_acquire (pool);
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    fail_unless ((got = lifo_acquire (pool)) == a, "bounded, %s", caps[i]);
    gst_buffer_unref (got);
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
    gst_object_unref (pool);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A transforming element whose output downstream frees before the next
 * frame writes every frame into the same buffer of its pool: video frames
 * (clconvolve) and integral images (clintegral) */
GST_START_TEST (test_output_buffer_reused)
{
  static const gchar *descs[] = { "clconvolve preset=box",
    "clintegral output=integral"
  };
  guint i, n;

  for (i = 0; i < G_N_ELEMENTS (descs); i++) {
    GstHarness *h = gst_harness_new_parse (descs[i]);
    GstBuffer *first = NULL;

    gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 64,
            48));
    for (n = 0; n < 4; n++) {
      GstBuffer *out = gst_harness_push_and_pull (h,
          test_frame_new (GST_VIDEO_FORMAT_GRAY8, 64, 48, TEST_LAYOUT_PADDED,
              n, NULL));

      fail_unless (out != NULL && out->pool != NULL, "%s", descs[i]);
      if (n == 0)
        first = out;
      fail_unless (out == first, "%s: frame %u in another buffer", descs[i],
          n);
      gst_buffer_unref (out);
    }
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static Suite *
clallocation_suite (void)
{
  Suite *s = suite_create ("clallocation");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_passthrough_forwards_downstream_pool);
  tcase_add_test (tc, test_transform_uses_downstream_pool);
  tcase_add_test (tc, test_separate_output_planes);
  tcase_add_test (tc, test_frames_end_at_guard_page);
  tcase_add_test (tc, test_hostile_output_buffers);
  tcase_add_test (tc, test_lifo_pool_order);
  tcase_add_test (tc, test_output_buffer_reused);
  return s;
}

int
main (int argc, char **argv)
{
  gint ret;

  gst_check_init (&argc, &argv);
  test_skip_without_cl_device ("clallocation");
  ret = test_run_suite_unforked (clallocation_suite (), "clhistogram");
  return ret;
}
