/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Chains of OpenCL elements on device memory (memory:OpenCL between them)
 * give the same bytes and the same histograms as the same elements on
 * system memory; negotiation falls back to system memory around elements
 * that do not take the feature, and renegotiates mid-stream. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <CL/cl.h>

#include "testframes.h"

#define CL_FEATURE "memory:OpenCL"
#define CL_MEMORY_TYPE "OpenCLMemory"

static const GstVideoFormat chain_formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
};

/* the elements of a chain, in every order the tests run them */
#define CONVOLVE "clconvolve name=c preset=box"
#define HISTOGRAM "clhistogram name=hi"
#define BOXMEAN "clintegral name=b output=box-mean radius=2"

typedef struct
{
  GstHarness *h;
  GstBus *bus;
} Chain;

static void
chain_start (Chain * c, const gchar * desc, GstVideoFormat format, gint width,
    gint height)
{
  c->h = gst_harness_new_parse (desc);
  c->bus = gst_bus_new ();
  gst_element_set_bus (c->h->element, c->bus);
  gst_harness_set_src_caps (c->h, test_caps_new (format, width, height));
  gst_harness_set_sink_caps (c->h, test_caps_new (format, width, height));
}

static void
chain_stop (Chain * c)
{
  test_free_harness (c->h, c->bus);
}

/* an element of the harness's bin by name */
static GstElement *
by_name (GstHarness * h, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (h->element), name);

  fail_unless (e != NULL, "no element %s", name);
  return e;
}

static gboolean
pad_has_cl_feature (GstHarness * h, const gchar * element, const gchar * pad)
{
  GstElement *e = by_name (h, element);
  GstPad *p = gst_element_get_static_pad (e, pad);
  GstCaps *caps = gst_pad_get_current_caps (p);
  gboolean cl;

  fail_unless (caps != NULL, "%s:%s not negotiated", element, pad);
  cl = gst_caps_features_contains (gst_caps_get_features (caps, 0),
      CL_FEATURE);
  gst_caps_unref (caps);
  gst_object_unref (p);
  gst_object_unref (e);
  return cl;
}

static gboolean
buffer_is_cl_memory (GstBuffer * buf)
{
  return gst_buffer_n_memory (buf) == 1 &&
      gst_memory_is_type (gst_buffer_peek_memory (buf, 0), CL_MEMORY_TYPE);
}

/* Pushes @in through @desc (system memory at both ends); the output and
 * the histogram message (NULL when the chain has no clhistogram) */
static GstBuffer *
run_chain (const gchar * desc, GstBuffer * in, GstVideoFormat format,
    gint width, gint height, GstStructure ** hist, Chain * keep)
{
  Chain c;
  GstBuffer *out;

  chain_start (&c, desc, format, width, height);
  out = gst_harness_push_and_pull (c.h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s", desc);
  if (hist)
    *hist = test_pop_histogram (c.bus);
  if (keep)
    *keep = c;
  else
    chain_stop (&c);
  return out;
}

/* @order (@n elements, NULL-terminated, joined with " ! ") between clupload and cldownload
 * against the same elements with system memory forced between them */
static void
compare_chain (const gchar * const *order, guint n, GstVideoFormat format,
    gint width, gint height, TestLayout layout, guint32 seed)
{
  gchar *inner = g_strjoinv (" ! ", (gchar **) order);
  gchar *sys_inner = g_strjoinv (" ! video/x-raw ! ", (gchar **) order);
  gchar *dev_desc = g_strdup_printf ("clupload ! %s ! cldownload", inner);
  gchar *sys_desc = g_strdup (sys_inner);
  GstStructure *dev_hist = NULL, *sys_hist = NULL;
  GstVideoInfo info;
  GstBuffer *in, *dev, *sys;
  Chain c;
  guint i;

  in = test_frame_new (format, width, height, layout, seed, &info);
  dev = run_chain (dev_desc, in, format, width, height, &dev_hist, &c);
  /* every element between upload and download worked on device memory */
  for (i = 0; i < n; i++) {
    const gchar *name = strstr (order[i], "name=") + 5;
    gchar *el = g_strndup (name, strcspn (name, " "));

    fail_unless (pad_has_cl_feature (c.h, el, "sink"), "%s in %s", el,
        dev_desc);
    fail_unless (pad_has_cl_feature (c.h, el, "src"), "%s in %s", el,
        dev_desc);
    g_free (el);
  }
  chain_stop (&c);
  sys = run_chain (sys_desc, in, format, width, height, &sys_hist, NULL);

  gst_video_info_set_format (&info, format, width, height);
  fail_unless (!buffer_is_cl_memory (dev));
  fail_unless (test_frames_equal (dev, sys, &info), "%s %dx%d layout %d: %s",
      gst_video_format_to_string (format), width, height, layout, dev_desc);
  fail_unless ((dev_hist == NULL) == (sys_hist == NULL));
  if (dev_hist)
    fail_unless (gst_structure_is_equal (dev_hist, sys_hist),
        "%" GST_PTR_FORMAT " != %" GST_PTR_FORMAT, dev_hist, sys_hist);

  if (dev_hist)
    gst_structure_free (dev_hist);
  if (sys_hist)
    gst_structure_free (sys_hist);
  gst_buffer_unref (in);
  gst_buffer_unref (dev);
  gst_buffer_unref (sys);
  g_free (inner);
  g_free (sys_inner);
  g_free (dev_desc);
  g_free (sys_desc);
}

/* Every format and size, three orders of the three elements */
GST_START_TEST (test_chain_matches_system_memory)
{
  static const gchar *orders[][4] = {
    {CONVOLVE, HISTOGRAM, BOXMEAN, NULL},
    {BOXMEAN, CONVOLVE, HISTOGRAM, NULL},
    {HISTOGRAM, BOXMEAN, CONVOLVE, NULL},
  };
  guint f, s, o;

  for (f = 0; f < G_N_ELEMENTS (chain_formats); f++)
    for (s = 0; s < MIN (n_test_sizes, 3); s++)
      for (o = 0; o < G_N_ELEMENTS (orders); o++)
        compare_chain (orders[o], 3, chain_formats[f], test_sizes[s].width,
            test_sizes[s].height, (f + s + o) % 3, f * 131 + s * 17 + o);
}
GST_END_TEST;

/* One small chain of every element, padded and multi-memory input: the
 * valgrind case */
GST_START_TEST (test_chain_small)
{
  static const gchar *order[] = { CONVOLVE, HISTOGRAM, BOXMEAN, NULL };
  guint l;

  for (l = TEST_LAYOUT_PADDED; l <= TEST_LAYOUT_MULTI_MEMORY; l++)
    compare_chain (order, 3, GST_VIDEO_FORMAT_I420, 3, 5, l, 5 + l);
}
GST_END_TEST;

/* A system-memory element in the middle (videoflip takes system memory
 * only): the OpenCL elements around it use system memory on that side
 * only. videoconvert passes any memory through when it has nothing to
 * convert, so behind it the chain may stay on the device: the bytes are
 * the same either way. */
static void
mixed_chain (const gchar * middle, gboolean system_middle)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_RGBA;
  gchar *dev_desc = g_strdup_printf ("clupload ! " CONVOLVE " ! %s ! "
      HISTOGRAM " ! " BOXMEAN " ! cldownload", middle);
  gchar *sys_desc = g_strdup_printf (CONVOLVE " ! %s ! " HISTOGRAM
      " ! video/x-raw ! " BOXMEAN, middle);
  GstVideoInfo info;
  GstBuffer *in, *dev, *sys;
  Chain c;

  in = test_frame_new (format, 641, 479, TEST_LAYOUT_PADDED, 3, &info);
  dev = run_chain (dev_desc, in, format, 641, 479, NULL, &c);
  fail_unless (pad_has_cl_feature (c.h, "c", "sink"));
  if (system_middle) {
    fail_unless (!pad_has_cl_feature (c.h, "c", "src"));
    /* clhistogram passes on what the middle gives it: system memory */
    fail_unless (!pad_has_cl_feature (c.h, "hi", "src"));
    fail_unless (!pad_has_cl_feature (c.h, "b", "sink"));
  }
  chain_stop (&c);
  sys = run_chain (sys_desc, in, format, 641, 479, NULL, NULL);
  gst_video_info_set_format (&info, format, 641, 479);
  fail_unless (test_frames_equal (dev, sys, &info), "%s", dev_desc);
  gst_buffer_unref (in);
  gst_buffer_unref (dev);
  gst_buffer_unref (sys);
  g_free (dev_desc);
  g_free (sys_desc);
}

GST_START_TEST (test_mixed_chain)
{
  /* videoflip is in gst-plugins-good, which a GPU machine's bundle lacks */
  GstElementFactory *flip = gst_element_factory_find ("videoflip");

  if (flip)
    mixed_chain ("videoflip method=horizontal-flip", TRUE);
  else
    g_print ("clchain: videoflip not installed, that mixed chain skipped\n");
  gst_clear_object (&flip);
  mixed_chain ("videoconvert", FALSE);
}
GST_END_TEST;

/* Device memory in, nothing downstream that takes it: system memory out;
 * an ANY-caps sink gets system memory too (as before the feature existed) */
GST_START_TEST (test_downstream_refuses_feature)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_NV12;
  GstHarness *h = gst_harness_new_parse ("clupload ! " CONVOLVE);
  GstBuffer *in, *out;

  gst_harness_set_src_caps (h, test_caps_new (format, 33, 17));
  in = test_frame_new (format, 33, 17, TEST_LAYOUT_PACKED, 1, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless (pad_has_cl_feature (h, "c", "sink"));
  fail_unless (!pad_has_cl_feature (h, "c", "src"));
  fail_unless (!buffer_is_cl_memory (out));
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Downstream takes device memory, then refuses it mid-stream (a capsfilter
 * changed while playing): the element renegotiates to system memory and
 * the frames stay right */
GST_START_TEST (test_renegotiate_mid_stream)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_GRAY8;
  GstHarness *h = gst_harness_new_parse ("clupload ! " CONVOLVE " ! "
      "capsfilter name=cf caps=video/x-raw(memory:OpenCL) ! cldownload");
  GstElement *cf = by_name (h, "cf");
  GstVideoInfo info;
  GstBuffer *in, *out, *ref;
  guint i;

  gst_harness_set_src_caps (h, test_caps_new (format, 65, 9));
  gst_harness_set_sink_caps (h, test_caps_new (format, 65, 9));
  in = test_frame_new (format, 65, 9, TEST_LAYOUT_PADDED, 8, &info);
  ref = run_chain (CONVOLVE, in, format, 65, 9, NULL, NULL);
  gst_video_info_set_format (&info, format, 65, 9);

  for (i = 0; i < 2; i++) {
    if (i == 1) {
      GstCaps *sys = gst_caps_from_string ("video/x-raw");

      g_object_set (cf, "caps", sys, NULL);
      gst_caps_unref (sys);
    }
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    fail_unless (pad_has_cl_feature (h, "c", "src") == (i == 0));
    fail_unless (test_frames_equal (out, ref, &info), "frame %u", i);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (ref);
  gst_buffer_unref (in);
  gst_object_unref (cf);
  gst_harness_teardown (h);
}
GST_END_TEST;

static GstObject *
element_cl_context (GstHarness * h, const gchar * name)
{
  GstElement *e = by_name (h, name);
  GstObject *ctx = test_element_cl_context (e);

  gst_object_unref (e);
  return ctx;
}

typedef struct
{
  GstBuffer *last;
  guint n_cl;
} Seen;

static GstPadProbeReturn
remember_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Seen *seen = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  seen->last = buf;
  seen->n_cl += buffer_is_cl_memory (buf);
  return GST_PAD_PROBE_OK;
}

/* One context for upload, elements and download; the frame is never
 * copied between them: clhistogram passes clconvolve's buffer on as it is,
 * and every buffer between upload and download is OpenCL memory */
GST_START_TEST (test_context_shared_no_copy)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_BGRx;
  GstHarness *h = gst_harness_new_parse ("clupload name=u ! " CONVOLVE
      " ! " HISTOGRAM " ! " BOXMEAN " ! cldownload name=d");
  const gchar *names[] = { "c", "hi", "b", "d" };
  GstElement *c = by_name (h, "c");
  GstElement *hi = by_name (h, "hi");
  GstPad *c_src = gst_element_get_static_pad (c, "src");
  GstPad *hi_src = gst_element_get_static_pad (hi, "src");
  Seen after_c = { NULL, 0 }, after_hi = { NULL, 0 };
  GstObject *ctx;
  GstBuffer *in, *out;
  guint i;

  gst_pad_add_probe (c_src, GST_PAD_PROBE_TYPE_BUFFER, remember_buffer,
      &after_c, NULL);
  gst_pad_add_probe (hi_src, GST_PAD_PROBE_TYPE_BUFFER, remember_buffer,
      &after_hi, NULL);
  gst_harness_set_src_caps (h, test_caps_new (format, 64, 48));
  gst_harness_set_sink_caps (h, test_caps_new (format, 64, 48));
  in = test_frame_new (format, 64, 48, TEST_LAYOUT_PACKED, 2, NULL);
  for (i = 0; i < 3; i++) {
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    fail_unless (after_c.last == after_hi.last);
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (after_c.n_cl, 3);
  fail_unless_equals_int (after_hi.n_cl, 3);

  ctx = element_cl_context (h, "u");
  fail_unless (ctx != NULL);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstObject *other = element_cl_context (h, names[i]);

    fail_unless (other == ctx, "%s on another context", names[i]);
    gst_object_unref (other);
  }
  gst_object_unref (ctx);
  gst_buffer_unref (in);
  gst_object_unref (c_src);
  gst_object_unref (hi_src);
  gst_object_unref (c);
  gst_object_unref (hi);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* clintegral's integral images in device memory, for a downstream that
 * asks for them: the same numbers as in system memory */
GST_START_TEST (test_integral_image_on_device)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_RGB;
  const gchar *fields = "format=U64,planes=\"sum,sqsum\",channels=3,"
      "width=37,height=11,framerate=30/1";
  gchar *dev_caps = g_strdup_printf ("video/x-integral-image("
      CL_FEATURE "),%s", fields);
  gchar *sys_caps = g_strdup_printf ("video/x-integral-image,%s", fields);
  GstHarness *dev = gst_harness_new_parse ("clupload ! clintegral name=i");
  GstHarness *sys = gst_harness_new ("clintegral");
  GstBuffer *in, *a, *b;
  GstMapInfo ma, mb;

  gst_harness_set_src_caps (dev, test_caps_new (format, 37, 11));
  gst_harness_set_sink_caps_str (dev, dev_caps);
  gst_harness_set_src_caps (sys, test_caps_new (format, 37, 11));
  gst_harness_set_sink_caps_str (sys, sys_caps);
  in = test_frame_new (format, 37, 11, TEST_LAYOUT_PADDED, 4, NULL);
  a = gst_harness_push_and_pull (dev, gst_buffer_ref (in));
  b = gst_harness_push_and_pull (sys, gst_buffer_ref (in));
  fail_unless (a != NULL && b != NULL);
  fail_unless (pad_has_cl_feature (dev, "i", "src"));
  fail_unless (buffer_is_cl_memory (a));
  fail_unless (!buffer_is_cl_memory (b));
  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless (ma.size >= mb.size);
  fail_unless (memcmp (ma.data, mb.data, mb.size) == 0);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);

  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (in);
  g_free (dev_caps);
  g_free (sys_caps);
  gst_harness_teardown (dev);
  gst_harness_teardown (sys);
}
GST_END_TEST;

/* clconvolve on a context of the application's own, fed OpenCL memory of
 * the pipeline's context: it reads it through the host (mapped in its own
 * context) and gives the same frame as on system memory */
GST_START_TEST (test_memory_of_another_context)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_NV12;
  gchar *cl_caps = g_strdup_printf ("video/x-raw(" CL_FEATURE "),format=NV12,"
      "width=31,height=15,framerate=30/1");
  GstHarness *up = gst_harness_new ("clupload"), *conv;
  GstElement *element = gst_element_factory_make ("clconvolve", NULL);
  cl_context app_ctx;
  GstContext *context = test_app_cl_context_new ((gpointer *) & app_ctx);
  GstVideoInfo info;
  GstBuffer *in, *dev, *out, *ref;

  gst_element_set_context (element, context);
  gst_context_unref (context);
  g_object_set (element, "name", "c", NULL);
  gst_util_set_object_arg (G_OBJECT (element), "preset", "box");
  conv = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);

  gst_harness_set_src_caps (up, test_caps_new (format, 31, 15));
  in = test_frame_new (format, 31, 15, TEST_LAYOUT_PADDED, 6, &info);
  dev = gst_harness_push_and_pull (up, gst_buffer_ref (in));
  fail_unless (dev && buffer_is_cl_memory (dev));
  gst_harness_set_src_caps_str (conv, cl_caps);
  gst_harness_set_sink_caps (conv, test_caps_new (format, 31, 15));
  out = gst_harness_push_and_pull (conv, gst_buffer_ref (dev));
  fail_unless (out != NULL);
  ref = run_chain (CONVOLVE, in, format, 31, 15, NULL, NULL);
  gst_video_info_set_format (&info, format, 31, 15);
  fail_unless (test_frames_equal (out, ref, &info));

  gst_buffer_unref (ref);
  gst_buffer_unref (out);
  gst_buffer_unref (dev);
  gst_buffer_unref (in);
  g_free (cl_caps);
  gst_harness_teardown (conv);
  gst_harness_teardown (up);
  clReleaseContext (app_ctx);
}
GST_END_TEST;

/* ---- clhistogram's overlay drawn in device memory ---- */

static gint device_blends;

/* counts clhistogram's log line for an overlay blended into device memory */
static void
count_device_blend (GstDebugCategory * cat, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);

  if (text && strstr (text, "blended on the device, in device memory"))
    g_atomic_int_inc (&device_blends);
}

/* clupload ! clhistogram overlay=true ! cldownload with the device blender
 * (GST_CL_HISTOGRAM_OVERLAY_BLEND=device does on PoCL what GPUs do): the
 * overlay is blended into the OpenCL memory where it is, once per frame,
 * and the bytes are the host blender's on system memory. Odd sizes, the
 * ROI outline, 8- and 16-bit, packed, planar and semi-planar formats. */
GST_START_TEST (test_overlay_in_device_memory)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV21,
    GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
  };
  static const gint sizes[][2] = { {3, 5}, {641, 479} };
  const gchar *hist = "clhistogram name=hi overlay=true overlay-roi=true "
      "roi-x=1 roi-y=2 roi-width=300 roi-height=100";
  gchar *dev_desc = g_strdup_printf ("clupload ! %s ! cldownload", hist);
  guint f, z;

  gst_debug_set_threshold_for_name ("clfilters", GST_LEVEL_LOG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_device_blend, NULL, NULL);
  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
      gint w = sizes[z][0], h = sizes[z][1];
      GstVideoInfo info;
      GstBuffer *in, *dev, *sys;
      Chain c;

      in = test_frame_new (formats[f], w, h, (f + z) % 4, 7 * f + z, &info);
      g_setenv ("GST_CL_HISTOGRAM_OVERLAY_BLEND", "device", TRUE);
      g_atomic_int_set (&device_blends, 0);
      dev = run_chain (dev_desc, in, formats[f], w, h, NULL, &c);
      fail_unless (pad_has_cl_feature (c.h, "hi", "sink"));
      fail_unless (pad_has_cl_feature (c.h, "hi", "src"));
      chain_stop (&c);
      fail_unless_equals_int (g_atomic_int_get (&device_blends), 1);
      g_setenv ("GST_CL_HISTOGRAM_OVERLAY_BLEND", "host", TRUE);
      sys = run_chain (hist, in, formats[f], w, h, NULL, NULL);
      g_unsetenv ("GST_CL_HISTOGRAM_OVERLAY_BLEND");

      gst_video_info_set_format (&info, formats[f], w, h);
      fail_unless (test_frames_equal (dev, sys, &info), "%s %dx%d: %s",
          gst_video_format_to_string (formats[f]), w, h, dev_desc);
      gst_buffer_unref (in);
      gst_buffer_unref (dev);
      gst_buffer_unref (sys);
    }
  gst_debug_remove_log_function (count_device_blend);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  gst_debug_unset_threshold_for_name ("clfilters");
  g_free (dev_desc);
}
GST_END_TEST;

static Suite *
clchain_suite (void)
{
  Suite *s = suite_create ("clchain");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_chain_small);
  tcase_add_test (tc, test_chain_matches_system_memory);
  tcase_add_test (tc, test_mixed_chain);
  tcase_add_test (tc, test_downstream_refuses_feature);
  tcase_add_test (tc, test_renegotiate_mid_stream);
  tcase_add_test (tc, test_context_shared_no_copy);
  tcase_add_test (tc, test_integral_image_on_device);
  tcase_add_test (tc, test_memory_of_another_context);
  tcase_add_test (tc, test_overlay_in_device_memory);
  return s;
}

int
main (int argc, char **argv)
{
  GstHarness *keeper;
  gint ret;

  gst_check_init (&argc, &argv);
  test_skip_without_cl_device ("clchain");
  /* one chain alive throughout: the OpenCL context and its programs live
   * across cases */
  keeper = gst_harness_new_parse ("clupload ! " CONVOLVE " ! " HISTOGRAM
      " ! " BOXMEAN " ! cldownload");
  gst_harness_set_src_caps (keeper, test_caps_new (GST_VIDEO_FORMAT_GRAY8,
          4, 4));
  ret = test_run_suite_unforked (clchain_suite (), NULL);
  gst_harness_teardown (keeper);
  return ret;
}
