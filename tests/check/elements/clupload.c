/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clupload / cldownload: byte-identical round trips on every format, odd
 * sizes and every buffer layout through both copy paths (rect copies, the
 * GPU default, and mapped copies, the CPU-device default: both run on PoCL
 * via GST_CL_MEMORY_COPY); memory:OpenCL buffers and their pool (reused, no
 * per-frame allocation; padded device strides); passthrough; a downstream
 * that refuses the feature; OpenCL memory of another context; one context
 * shared by both elements; a lying video meta. */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <CL/cl.h>

#include "testframes.h"

#define CL_FEATURE "memory:OpenCL"
#define CL_MEMORY_TYPE "OpenCLMemory"
#define COPY_ENV "GST_CL_MEMORY_COPY"
#define BUS_TIMEOUT (300 * GST_SECOND)

static const GstVideoFormat all_formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
};

static const gchar *copy_modes[] = { "map", "rect" };

static guint n_compared;

static gboolean
buffer_is_cl_memory (GstBuffer * buf)
{
  return gst_buffer_n_memory (buf) == 1 &&
      gst_memory_is_type (gst_buffer_peek_memory (buf, 0), CL_MEMORY_TYPE);
}

static gboolean
caps_have_cl_feature (GstCaps * caps)
{
  return caps && gst_caps_features_contains (gst_caps_get_features (caps, 0),
      CL_FEATURE);
}

static gchar *
cl_caps_string (GstVideoFormat format, gint width, gint height)
{
  return g_strdup_printf ("video/x-raw(" CL_FEATURE "),format=%s,width=%d,"
      "height=%d,framerate=30/1", gst_video_format_to_string (format), width,
      height);
}

/* `clupload ! cldownload`: what comes out is what went in, and the buffers
 * between the two are OpenCL memory */
static void
round_trip (GstVideoFormat format, gint width, gint height, TestLayout layout,
    guint32 seed)
{
  GstHarness *h = gst_harness_new_parse ("clupload name=u ! cldownload");
  GstElement *up = gst_harness_find_element (h, "clupload");
  GstPad *mid = gst_element_get_static_pad (up, "src");
  GstCaps *caps = test_caps_new (format, width, height), *mid_caps;
  GstVideoInfo info;
  GstBuffer *in, *out;

  gst_harness_set_src_caps (h, caps);
  gst_harness_set_sink_caps (h, test_caps_new (format, width, height));
  in = test_frame_new (format, width, height, layout, seed, &info);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);

  mid_caps = gst_pad_get_current_caps (mid);
  fail_unless (caps_have_cl_feature (mid_caps), "%" GST_PTR_FORMAT, mid_caps);
  fail_unless (!buffer_is_cl_memory (out));
  gst_video_info_from_caps (&info, mid_caps);
  fail_unless (test_frames_equal (in, out, &info), "%s %dx%d layout %d via %s",
      gst_video_format_to_string (format), width, height, layout,
      g_getenv (COPY_ENV));
  n_compared++;

  gst_caps_unref (mid_caps);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_object_unref (mid);
  gst_object_unref (up);
  gst_harness_teardown (h);
}

GST_START_TEST (test_round_trip)
{
  guint m, f, s, l;

  for (m = 0; m < G_N_ELEMENTS (copy_modes); m++) {
    g_setenv (COPY_ENV, copy_modes[m], TRUE);
    for (f = 0; f < G_N_ELEMENTS (all_formats); f++)
      for (s = 0; s < MIN (n_test_sizes, 3); s++)
        for (l = 0; l <= TEST_LAYOUT_MULTI_MEMORY; l++)
          round_trip (all_formats[f], test_sizes[s].width,
              test_sizes[s].height, l, f * 31 + s * 7 + l);
  }
  g_unsetenv (COPY_ENV);
}
GST_END_TEST;

/* clupload's output: one GstClMemory with a video meta, readable as system
 * memory, under memory:OpenCL caps; taken from a pool and reused */
GST_START_TEST (test_upload_output_is_cl_memory)
{
  GstHarness *h = gst_harness_new ("clupload");
  GstVideoFormat format = GST_VIDEO_FORMAT_NV12;
  GstMemory *seen[16] = { NULL };
  guint n_seen = 0, i, j;
  GstCaps *caps;
  GstVideoInfo info;

  gst_harness_set_src_caps (h, test_caps_new (format, 65, 33));
  for (i = 0; i < 10; i++) {
    GstBuffer *in = test_frame_new (format, 65, 33, i % 4, i, &info);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    GstMemory *mem;

    fail_unless (out != NULL && buffer_is_cl_memory (out));
    fail_unless (gst_buffer_get_video_meta (out) != NULL);
    caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (caps_have_cl_feature (caps));
    gst_video_info_from_caps (&info, caps);
    /* mapping it gives the pixels (through clEnqueueMapBuffer) */
    fail_unless (test_frames_equal (in, out, &info));
    gst_caps_unref (caps);

    mem = gst_buffer_peek_memory (out, 0);
    for (j = 0; j < n_seen && seen[j] != mem; j++);
    if (j == n_seen)
      seen[n_seen++] = mem;
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  /* every frame went back to the pool before the next one: the memories
   * come round again instead of being made per frame */
  fail_unless (n_seen <= 2, "%u different memories for 10 frames", n_seen);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* On a CPU device clupload offers upstream a pool of OpenCL memory for
 * system-memory caps (mapping it is free there); what upstream writes into
 * it leaves without a copy */
GST_START_TEST (test_upload_zero_copy_from_proposed_pool)
{
  GstHarness *h = gst_harness_new ("clupload");
  GstVideoFormat format = GST_VIDEO_FORMAT_Y42B;
  GstBuffer *in, *out, *ref;
  GstVideoFrame src, dst;
  GstVideoInfo info;

  gst_video_info_set_format (&info, format, 23, 7);
  gst_harness_set_src_caps (h, test_caps_new (format, 23, 7));
  in = gst_harness_create_buffer (h, info.size);
  fail_unless (in != NULL);
  if (!buffer_is_cl_memory (in)) {
    /* a GPU: upstream gets pinned host memory instead, and the frame is
     * copied */
    GST_INFO ("proposed pool is not OpenCL memory: not a CPU device");
    gst_buffer_unref (in);
    gst_harness_teardown (h);
    return;
  }
  ref = test_frame_new (format, 23, 7, TEST_LAYOUT_PACKED, 3, &info);
  fail_unless (gst_video_frame_map (&src, &info, ref, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&dst, &info, in, GST_MAP_WRITE));
  fail_unless (gst_video_frame_copy (&dst, &src));
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);

  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out == in);
  fail_unless (test_frames_equal (ref, out, &info));
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_buffer_unref (ref);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Downstream accepts system memory only: clupload passes buffers through */
GST_START_TEST (test_downstream_refuses_feature)
{
  GstHarness *h = gst_harness_new ("clupload");
  GstVideoFormat format = GST_VIDEO_FORMAT_RGBA;
  GstBuffer *in, *out;
  GstCaps *caps;

  gst_harness_set_sink_caps_str (h, "video/x-raw");
  gst_harness_set_src_caps (h, test_caps_new (format, 17, 9));
  in = test_frame_new (format, 17, 9, TEST_LAYOUT_PADDED, 5, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out == in);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL && !caps_have_cl_feature (caps));
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);

  /* and cldownload with system memory on both sides */
  h = gst_harness_new ("cldownload");
  gst_harness_set_src_caps (h, test_caps_new (format, 17, 9));
  in = test_frame_new (format, 17, 9, TEST_LAYOUT_PACKED, 6, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* The pipeline from the docs, and a system-memory-only sink after clupload */
GST_START_TEST (test_launch_lines)
{
  const gchar *lines[] = {
    "videotestsrc num-buffers=5 ! clupload ! cldownload ! fakesink",
    "videotestsrc num-buffers=5 ! clupload ! video/x-raw ! fakesink",
    "videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=35,height=21 "
        "! clupload ! cldownload ! clupload ! cldownload ! fakesink",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (lines); i++) {
    GstElement *pipeline = gst_parse_launch (lines[i], NULL);
    GstMessage *msg;

    fail_unless (pipeline != NULL);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline), BUS_TIMEOUT,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "\"%s\" did not reach EOS", lines[i]);
    gst_message_unref (msg);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* A device that does not exist: the state change fails with NOT_FOUND */
GST_START_TEST (test_bad_device)
{
  const gchar *elements[] = { "clupload", "cldownload" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    gchar *line = g_strdup_printf ("videotestsrc num-buffers=1 ! %s "
        "device=no-such-opencl-device ! fakesink", elements[i]);
    GstElement *pipeline = gst_parse_launch (line, NULL);
    GstMessage *msg;
    GError *error = NULL;

    fail_unless (pipeline != NULL);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline), BUS_TIMEOUT,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "%s",
        line);
    gst_message_parse_error (msg, &error, NULL);
    fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NOT_FOUND), "%s", error->message);
    g_clear_error (&error);
    gst_message_unref (msg);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    g_free (line);
  }
}
GST_END_TEST;

/* Both elements run on one context, announced once on the bus */
GST_START_TEST (test_context_shared)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "clupload name=u ! cldownload name=d ! fakesink", NULL);
  GstElement *u = gst_bin_get_by_name (GST_BIN (pipeline), "u");
  GstElement *d = gst_bin_get_by_name (GST_BIN (pipeline), "d");
  GstBus *bus = GST_ELEMENT_BUS (pipeline);
  GstObject *cu, *cd;
  guint n_have = 0;
  gboolean done = FALSE;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop (bus, BUS_TIMEOUT);

    fail_unless (msg != NULL);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT) {
      GstContext *context;

      gst_message_parse_have_context (msg, &context);
      if (!g_strcmp0 (gst_context_get_context_type (context),
              "gst.cl.context"))
        n_have++;
      gst_context_unref (context);
    }
    fail_unless (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ERROR);
    done = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    gst_message_unref (msg);
  }
  cu = test_element_cl_context (u);
  cd = test_element_cl_context (d);
  fail_unless_equals_int (n_have, 1);
  fail_unless (cu != NULL && cu == cd);

  gst_object_unref (cu);
  gst_object_unref (cd);
  gst_object_unref (u);
  gst_object_unref (d);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* An element on a second OpenCL context (the application's own cl_context,
 * set before the harness starts it) */
static GstHarness *
harness_on_own_context (const gchar * factory, cl_context * app_ctx_out)
{
  GstElement *element = gst_element_factory_make (factory, NULL);
  GstContext *context = test_app_cl_context_new ((gpointer *) app_ctx_out);
  GstHarness *h;

  gst_element_set_context (element, context);
  gst_context_unref (context);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  return h;
}

/* memory:OpenCL in: memory of the element's own context passes untouched;
 * memory of another context is copied (through the host) into its pool */
GST_START_TEST (test_cl_memory_input)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_I420;
  GstHarness *up = gst_harness_new ("clupload");
  GstHarness *same = gst_harness_new ("clupload");
  GstHarness *other;
  GstHarness *down = gst_harness_new ("cldownload");
  gchar *cl_caps = cl_caps_string (format, 31, 15);
  GstBuffer *in, *dev, *out;
  cl_context app_ctx;
  GstVideoInfo info;

  gst_harness_set_src_caps (up, test_caps_new (format, 31, 15));
  in = test_frame_new (format, 31, 15, TEST_LAYOUT_PADDED, 9, &info);
  dev = gst_harness_push_and_pull (up, gst_buffer_ref (in));
  fail_unless (dev && buffer_is_cl_memory (dev));

  gst_harness_set_src_caps_str (same, cl_caps);
  out = gst_harness_push_and_pull (same, gst_buffer_ref (dev));
  fail_unless (out == dev);
  gst_buffer_unref (out);

  other = harness_on_own_context ("clupload", &app_ctx);
  gst_harness_set_src_caps_str (other, cl_caps);
  out = gst_harness_push_and_pull (other, gst_buffer_ref (dev));
  fail_unless (out != NULL && out != dev && buffer_is_cl_memory (out));
  fail_unless (gst_buffer_peek_memory (out, 0) !=
      gst_buffer_peek_memory (dev, 0));
  fail_unless (test_frames_equal (in, out, &info));

  /* and cldownload reads memory of a context it does not use */
  gst_harness_set_src_caps_str (down, cl_caps);
  gst_buffer_unref (in);
  in = out;
  out = gst_harness_push_and_pull (down, gst_buffer_ref (in));
  fail_unless (out != NULL && !buffer_is_cl_memory (out));
  fail_unless (test_frames_equal (in, out, &info));

  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_buffer_unref (dev);
  g_free (cl_caps);
  gst_harness_teardown (up);
  gst_harness_teardown (same);
  gst_harness_teardown (other);
  gst_harness_teardown (down);
  clReleaseContext (app_ctx);
}
GST_END_TEST;

/* The pool cldownload proposes for memory:OpenCL, configured with padded
 * rows (video alignment): its buffers are OpenCL memory with wider strides,
 * and cldownload reads them back exactly through both copy paths */
GST_START_TEST (test_padded_device_strides)
{
  GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_UYVY
  };
  guint f, m;

  for (m = 0; m < G_N_ELEMENTS (copy_modes); m++) {
    g_setenv (COPY_ENV, copy_modes[m], TRUE);
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      GstHarness *h = gst_harness_new ("cldownload");
      gchar *caps_str = cl_caps_string (formats[f], 37, 11);
      GstCaps *caps = gst_caps_from_string (caps_str);
      GstQuery *query = gst_query_new_allocation (caps, TRUE);
      GstVideoAlignment align;
      GstBufferPool *pool = NULL;
      GstStructure *config;
      GstVideoInfo info, padded;
      GstVideoFrame src, dst;
      GstBuffer *in, *dev = NULL, *out;
      GstVideoMeta *meta;
      guint p;

      gst_harness_set_src_caps (h, gst_caps_ref (caps));
      fail_unless (gst_pad_peer_query (h->srcpad, query));
      fail_unless (gst_query_get_n_allocation_pools (query) > 0);
      gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
      fail_unless (pool != NULL);

      gst_video_info_from_caps (&info, caps);
      gst_video_alignment_reset (&align);
      align.padding_right = 13;
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_set_params (config, caps, info.size, 1, 0);
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
      gst_buffer_pool_config_set_video_alignment (config, &align);
      fail_unless (gst_buffer_pool_set_config (pool, config));
      fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      fail_unless (gst_buffer_pool_acquire_buffer (pool, &dev, NULL) ==
          GST_FLOW_OK);
      fail_unless (buffer_is_cl_memory (dev));
      meta = gst_buffer_get_video_meta (dev);
      fail_unless (meta != NULL);
      padded = info;
      gst_video_info_align (&padded, &align);
      for (p = 0; p < meta->n_planes; p++)
        fail_unless (meta->stride[p] > GST_VIDEO_INFO_PLANE_STRIDE (&info, p));

      /* fill it by mapping it as system memory (all of it first: the frame
       * copy below leaves bytes of odd-width YUY2/UYVY rows untouched) */
      gst_buffer_memset (dev, 0, 0x5a, gst_buffer_get_size (dev));
      in = test_frame_new (formats[f], 37, 11, TEST_LAYOUT_PACKED, f, NULL);
      fail_unless (gst_video_frame_map (&src, &info, in, GST_MAP_READ));
      fail_unless (gst_video_frame_map (&dst, &info, dev, GST_MAP_WRITE));
      fail_unless (gst_video_frame_copy (&dst, &src));
      gst_video_frame_unmap (&dst);
      gst_video_frame_unmap (&src);
      if (GST_VIDEO_INFO_N_COMPONENTS (&info) == 3 &&
          GST_VIDEO_INFO_N_PLANES (&info) == 1 &&
          GST_VIDEO_FORMAT_INFO_IS_YUV (info.finfo)) {
        /* gst_video_frame_copy drops odd-width YUY2/UYVY's last V */
        gst_buffer_unref (in);
        in = gst_buffer_ref (dev);
      }

      out = gst_harness_push_and_pull (h, gst_buffer_ref (dev));
      fail_unless (out != NULL && !buffer_is_cl_memory (out));
      fail_unless (test_frames_equal (in, out, &info), "%s via %s",
          gst_video_format_to_string (formats[f]), copy_modes[m]);
      n_compared++;

      gst_buffer_unref (out);
      gst_buffer_unref (in);
      gst_buffer_unref (dev);
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
      gst_query_unref (query);
      gst_caps_unref (caps);
      g_free (caps_str);
      gst_harness_teardown (h);
    }
  }
  g_unsetenv (COPY_ENV);
}
GST_END_TEST;

/* A video meta whose rows reach past the end of the buffer: a clear stream
 * error, no copy, no crash */
GST_START_TEST (test_lying_video_meta)
{
  guint m;

  for (m = 0; m < G_N_ELEMENTS (copy_modes); m++) {
    GstHarness *h;
    GstBuffer *in;
    GstVideoMeta *meta;
    GstMessage *msg;
    GstBus *bus = gst_bus_new ();
    GError *error = NULL;
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 4096 };

    g_setenv (COPY_ENV, copy_modes[m], TRUE);
    h = gst_harness_new ("clupload");
    gst_element_set_bus (h->element, bus);
    gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 16,
            16));
    in = gst_buffer_new_allocate (NULL, 16 * 16, NULL);
    meta = gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_GRAY8, 16, 16, 1, offset, stride);
    fail_unless (meta != NULL);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    gst_message_parse_error (msg, &error, NULL);
    fail_unless (g_error_matches (error, GST_STREAM_ERROR,
            GST_STREAM_ERROR_FORMAT), "%s", error->message);
    g_clear_error (&error);
    gst_message_unref (msg);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
  g_unsetenv (COPY_ENV);
}
GST_END_TEST;

static Suite *
clupload_suite (void)
{
  Suite *s = suite_create ("clupload");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  if (!test_have_cl_device ())
    return s;
  tcase_add_test (tc, test_round_trip);
  tcase_add_test (tc, test_upload_output_is_cl_memory);
  tcase_add_test (tc, test_upload_zero_copy_from_proposed_pool);
  tcase_add_test (tc, test_downstream_refuses_feature);
  tcase_add_test (tc, test_launch_lines);
  tcase_add_test (tc, test_bad_device);
  tcase_add_test (tc, test_context_shared);
  tcase_add_test (tc, test_cl_memory_input);
  tcase_add_test (tc, test_padded_device_strides);
  tcase_add_test (tc, test_lying_video_meta);
  return s;
}

int
main (int argc, char **argv)
{
  gint ret;

  gst_check_init (&argc, &argv);
  test_skip_without_cl_device ("clupload");
  ret = test_run_suite_unforked (clupload_suite (), NULL);
  g_print ("clupload: %u frames compared\n", n_compared);
  return ret;
}
