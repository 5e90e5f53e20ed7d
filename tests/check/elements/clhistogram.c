/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram: counts and statistics against the plain-C reference for every
 * format, odd sizes, every buffer layout, several bin counts, regions,
 * channel choices and both kernel variants (the GPU kernels run on PoCL via
 * GST_CL_HISTOGRAM_VARIANT=gpu); intervals, EOS flush, message types,
 * passthrough identity, invalid properties and a kernel that does not
 * build. */
#include <string.h>
#include <math.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>

#include "testframes.h"
#include "histogram.h"

#define VARIANT_ENV "GST_CL_HISTOGRAM_VARIANT"
/* unset: hist_cpu_first until hist_cpu is compiled; "only", "off" */
#define FIRST_ENV "GST_CL_HISTOGRAM_FIRST"

static const GstVideoFormat all_formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
};

static const gchar *channel_nicks[] = {
  "red", "green", "blue", "luma", "u", "v", "alpha"
};

static guint n_checked;         /* channel histograms compared */

typedef struct
{
  GstVideoFormat format;
  gint width, height;
  TestLayout layout;
  guint channels;               /* RefChannel flags, 0 = auto */
  guint bins;
  gint roi[4];                  /* property values */
  const gchar *colorimetry;     /* NULL = default */
  gboolean gpu;
  gboolean solid;
  guint8 value;
  guint frames;                 /* different frames pushed, 0 = 1 */
  gboolean until_switch;        /* and on until two frames after the
                                 * worker compiled hist_cpu */
} Case;

/* "hist_cpu compiled" logged by the warm-up worker (atomic) */
static gint hist_switched;

static void
catch_switch_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (strstr (gst_debug_message_get (message), "hist_cpu compiled"))
    g_atomic_int_set (&hist_switched, 1);
}

static GstHarness *
new_harness (GstBus ** bus, gboolean gpu)
{
  GstElement *el;
  GstHarness *h;

  g_setenv (VARIANT_ENV, gpu ? "gpu" : "cpu", TRUE);
  el = gst_element_factory_make ("clhistogram", NULL);
  fail_unless (el != NULL);
  *bus = gst_bus_new ();
  gst_element_set_bus (el, *bus);
  h = gst_harness_new_with_element (el, "sink", "src");
  gst_object_unref (el);
  return h;
}

static guint
default_channels (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_IS_RGB (info) ? REF_CH_RED | REF_CH_GREEN |
      REF_CH_BLUE : REF_CH_LUMA;
}

static guint
all_channels (const GstVideoInfo * info)
{
  if (GST_VIDEO_INFO_IS_RGB (info))
    return REF_CH_RED | REF_CH_GREEN | REF_CH_BLUE | REF_CH_LUMA |
        (GST_VIDEO_INFO_HAS_ALPHA (info) ? REF_CH_ALPHA : 0);
  if (GST_VIDEO_INFO_IS_YUV (info))
    return REF_CH_LUMA | REF_CH_U | REF_CH_V;
  return REF_CH_LUMA;
}

static void
clip_roi (const gint * prop, gint fw, gint fh, gint * roi)
{
  roi[0] = prop[0];
  roi[1] = prop[1];
  roi[2] = (prop[2] == 0 || prop[2] > fw - prop[0]) ? fw - prop[0] : prop[2];
  roi[3] = (prop[3] == 0 || prop[3] > fh - prop[1]) ? fh - prop[1] : prop[3];
}

static const GValue *
array_nth (const GstStructure * s, const gchar * field, guint i)
{
  const GValue *a = gst_structure_get_value (s, field);

  fail_unless (a && GST_VALUE_HOLDS_ARRAY (a), "%s is not a GstValueArray",
      field);
  fail_unless (i < gst_value_array_get_size (a));
  return gst_value_array_get_value (a, i);
}

/* Compares channel @i of message @s with reference counts @counts */
static void
check_channel (const GstStructure * s, guint i, const gchar * name,
    const guint64 * counts, guint range, guint bins, const gchar * what)
{
  guint64 *binned = g_new (guint64, bins);
  const GValue *c;
  RefStats st;
  guint b;

  ref_histogram_finish (counts, range, bins, binned, &st);
  fail_unless_equals_string (g_value_get_string (array_nth (s, "channels",
              i)), name);
  c = array_nth (s, "counts", i);
  fail_unless (GST_VALUE_HOLDS_ARRAY (c));
  fail_unless_equals_int (gst_value_array_get_size (c), bins);
  for (b = 0; b < bins; b++) {
    guint64 got = g_value_get_uint64 (gst_value_array_get_value (c, b));
    if (got != binned[b])
      fail ("%s: channel %s bin %u: got %" G_GUINT64_FORMAT ", expected %"
          G_GUINT64_FORMAT, what, name, b, got, binned[b]);
  }
  /* same formula and summation order as the element: equal to rounding */
  fail_unless (fabs (g_value_get_double (array_nth (s, "mean", i)) - st.mean)
      <= 1e-9 * MAX (1.0, st.mean), "%s: %s mean", what, name);
  fail_unless (fabs (g_value_get_double (array_nth (s, "stddev", i)) -
          st.stddev) <= 1e-9 * MAX (1.0, st.stddev), "%s: %s stddev", what,
      name);
  fail_unless_equals_int (g_value_get_uint (array_nth (s, "min", i)), st.min);
  fail_unless_equals_int (g_value_get_uint (array_nth (s, "max", i)), st.max);
  fail_unless (fabs (g_value_get_double (array_nth (s, "clip-low", i)) -
          st.clip_low) <= 1e-12);
  fail_unless (fabs (g_value_get_double (array_nth (s, "clip-high", i)) -
          st.clip_high) <= 1e-12);
  n_checked++;
  g_free (binned);
}

static void
run_case (const Case * c)
{
  GstBus *bus;
  GstHarness *h = new_harness (&bus, c->gpu);
  GstVideoInfo info;
  GstBuffer *in, *out, *copy;
  GstCaps *caps;
  GstStructure *s;
  guint channels, bins, i, range, k, frame = 0, after_switch = 0;
  /* (valgrind: the worker's compile takes minutes) */
  gint64 end = g_get_monotonic_time () + 600 * G_TIME_SPAN_SECOND;
  gint roi[4];
  gchar *what;

  g_object_set (h->element, "channels", c->channels, "bins", c->bins,
      "roi-x", c->roi[0], "roi-y", c->roi[1], "roi-width", c->roi[2],
      "roi-height", c->roi[3], NULL);
  /* (a harness answers the latency query as live by default) */
  if (c->until_switch)
    gst_harness_set_live (h, FALSE);
  caps = test_caps_new (c->format, c->width, c->height);
  if (c->colorimetry)
    gst_caps_set_simple (caps, "colorimetry", G_TYPE_STRING, c->colorimetry,
        NULL);
  gst_harness_set_src_caps (h, caps);

next_frame:
  k = 0;
  in = c->solid ? test_frame_new_filled (c->format, c->width, c->height,
      c->layout, c->value, &info) : test_frame_new (c->format, c->width,
      c->height, c->layout, c->width * 31 + c->height + c->layout + frame,
      &info);
  copy = gst_buffer_copy_deep (in);
  GST_BUFFER_PTS (in) = 0;
  GST_BUFFER_DURATION (in) = GST_SECOND / 30;
  gst_buffer_ref (in);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  /* passthrough: the very same buffer, bytes untouched */
  fail_unless (out == in);
  fail_unless (test_frames_equal (out, copy, &info));
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  s = test_pop_histogram (bus);
  fail_unless (s != NULL, "no histogram message");
  range = ref_histogram_range (&info);
  bins = c->bins;
  channels = c->channels ? c->channels : default_channels (&info);
  clip_roi (c->roi, c->width, c->height, roi);
  what = g_strdup_printf ("%s %dx%d layout %d bins %u roi %d,%d,%d,%d %s%s "
      "frame %u", gst_video_format_to_string (c->format), c->width, c->height,
      c->layout, bins, roi[0], roi[1], roi[2], roi[3], c->gpu ? "gpu" : "cpu",
      c->colorimetry ? c->colorimetry : "", frame);

  {
    guint ubins;
    guint64 frames, pixels;
    fail_unless (gst_structure_get_uint (s, "bins", &ubins));
    fail_unless_equals_int (ubins, bins);
    fail_unless (gst_structure_get_uint64 (s, "frames", &frames));
    fail_unless (gst_structure_get_uint64 (s, "pixels", &pixels));
    fail_unless_equals_uint64 (frames, 1);
    fail_unless_equals_uint64 (pixels, (guint64) roi[2] * roi[3]);
  }

  for (i = 0; i < 7; i++) {
    guint64 *counts;

    if (!(channels & (1u << i)))
      continue;
    counts = g_new0 (guint64, range);
    ref_histogram_add (copy, &info, 1u << i, c->colorimetry &&
        !strcmp (c->colorimetry, "bt709"), roi[0], roi[1], roi[2], roi[3],
        counts);
    check_channel (s, k++, channel_nicks[i], counts, range, bins, what);
    g_free (counts);
  }
  fail_unless_equals_int (gst_value_array_get_size (gst_structure_get_value
          (s, "channels")), k);

  g_free (what);
  gst_structure_free (s);
  gst_buffer_unref (copy);
  if (c->until_switch && frame == 0)
    fail_if (g_atomic_int_get (&hist_switched), "hist_cpu compiled before "
        "the first frame");
  after_switch += g_atomic_int_get (&hist_switched);
  if (c->until_switch && after_switch < 2 && g_get_monotonic_time () < end) {
    g_usleep (20 * 1000);
    frame++;
    goto next_frame;
  }
  fail_if (c->until_switch && after_switch < 2, "never switched to hist_cpu "
      "(%u frames)", frame + 1);
  if (++frame < c->frames)
    goto next_frame;
  test_free_harness (h, bus);
}

static const guint bin_choices[] = { 256, 2, 17, 64, 255 };

static void
sweep (gboolean gpu, gint max_size_index, gboolean all_layouts)
{
  guint f, si, l, n = 0;

  /* n_test_sizes shrinks to the small sizes for the valgrind run */
  max_size_index = MIN (max_size_index, (gint) n_test_sizes - 1);
  for (f = 0; f < G_N_ELEMENTS (all_formats); f++)
    for (si = 0; si <= (guint) max_size_index; si++)
      for (l = 0; l < 4; l++) {
        GstVideoInfo info;
        Case c = { 0, };

        if (!all_layouts && l != TEST_LAYOUT_PADDED
            && l != TEST_LAYOUT_MULTI_MEMORY)
          continue;
        gst_video_info_set_format (&info, all_formats[f], 1, 1);
        c.format = all_formats[f];
        c.width = test_sizes[si].width;
        c.height = test_sizes[si].height;
        c.layout = l;
        c.gpu = gpu;
        c.bins = bin_choices[n++ % G_N_ELEMENTS (bin_choices)];
        /* auto channels, then every channel the format has */
        run_case (&c);
        c.channels = all_channels (&info);
        c.bins = bin_choices[n++ % G_N_ELEMENTS (bin_choices)];
        run_case (&c);
      }
}

GST_START_TEST (test_all_formats_cpu)
{
  sweep (FALSE, 2, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_all_formats_gpu_variant)
{
  sweep (TRUE, 2, FALSE);
}

GST_END_TEST;

/* 1921x1081 on a subset: one format of each layout family, every layout */
GST_START_TEST (test_big_frames)
{
  static const GstVideoFormat fmts[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_GRAY16_LE,
  };
  guint f, l;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (l = 0; l < 4; l++) {
      GstVideoInfo info;
      Case c = { fmts[f], 1921, 1081, l, 0, 64, };

      gst_video_info_set_format (&info, fmts[f], 1, 1);
      c.channels = all_channels (&info);
      c.gpu = (l == TEST_LAYOUT_PADDED);
      run_case (&c);
    }
}

GST_END_TEST;

GST_START_TEST (test_roi)
{
  static const GstVideoFormat fmts[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY8,
  };
  /* odd origins, sizes, clipped at the edges, single pixel */
  static const gint rois[][4] = {
    {1, 1, 3, 3}, {5, 7, 0, 0}, {100, 33, 77, 101}, {639, 477, 50, 50},
    {0, 0, 641, 1}, {0, 478, 0, 0}, {320, 0, 1, 479},
  };
  guint f, r, g;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (r = 0; r < G_N_ELEMENTS (rois); r++)
      for (g = 0; g < 2; g++) {
        GstVideoInfo info;
        Case c = { fmts[f], 641, 479, TEST_LAYOUT_PADDED, 0, 32, };

        gst_video_info_set_format (&info, fmts[f], 1, 1);
        c.channels = all_channels (&info);
        memcpy (c.roi, rois[r], sizeof (c.roi));
        c.gpu = g;
        c.layout = (r % 2) ? TEST_LAYOUT_MISALIGNED : TEST_LAYOUT_PADDED;
        run_case (&c);
      }
}

GST_END_TEST;

/* More bins than 8-bit samples have (16-bit samples): the message bins
 * them on the heap instead of the stack */
GST_START_TEST (test_many_bins)
{
  static const guint bins[] = { 257, 1024, 65536 };
  guint b, g;

  for (b = 0; b < G_N_ELEMENTS (bins); b++)
    for (g = 0; g < 2; g++) {
      Case c = { GST_VIDEO_FORMAT_GRAY16_LE, 97, 31, TEST_LAYOUT_PADDED, 0,
        bins[b],
      };

      c.gpu = g;
      run_case (&c);
    }
}

GST_END_TEST;

/* Frame after frame through one element: the GPU kernels count into one
 * half of their result while clearing the other for the next frame. Also
 * 16-byte aligned rows (640 wide, packed), which the GPU kernel reads with
 * aligned 16-byte loads, and odd ones, which it reads bytewise */
GST_START_TEST (test_consecutive_frames)
{
  static const GstVideoFormat fmts[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_YUY2,
  };
  guint f, g, a;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (g = 0; g < 2; g++)
      for (a = 0; a < 2; a++) {
        GstVideoInfo info;
        Case c = { fmts[f], 641, 479, TEST_LAYOUT_PADDED, 0, 256, };

        if (a) {
          c.width = 640;
          c.layout = TEST_LAYOUT_PACKED;
        }
        gst_video_info_set_format (&info, fmts[f], 1, 1);
        c.channels = all_channels (&info);
        c.gpu = g;
        c.frames = 3;
        run_case (&c);
      }
}

GST_END_TEST;

/* A non-live stream on a CPU device: frames through hist_cpu_first until the
 * warm-up worker, started after the first frame, has compiled hist_cpu,
 * then hist_cpu; every frame's counts exact */
GST_START_TEST (test_first_frame_switch)
{
  static const GstVideoFormat fmts[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_NV12,
  };
  static gboolean added = FALSE;
  gchar *env = g_strdup (g_getenv (FIRST_ENV));
  guint f;

  g_unsetenv (FIRST_ENV);
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("clhistogram", GST_LEVEL_INFO);
  /* added once and never removed: GStreamer leaks a removed entry */
  if (!added)
    gst_debug_add_log_function (catch_switch_log, NULL, NULL);
  added = TRUE;
  for (f = 0; f < (g_getenv ("GST_CL_TEST_QUICK") ? 1 :
          G_N_ELEMENTS (fmts)); f++) {
    GstVideoInfo info;
    Case c = { fmts[f], 641, 479, TEST_LAYOUT_PADDED, 0, 256, };

    gst_video_info_set_format (&info, fmts[f], 1, 1);
    c.channels = all_channels (&info);
    c.until_switch = TRUE;
    g_atomic_int_set (&hist_switched, 0);
    run_case (&c);
  }
  gst_debug_unset_threshold_for_name ("clhistogram");
  if (env)
    g_setenv (FIRST_ENV, env, TRUE);
  g_free (env);
}

GST_END_TEST;

GST_START_TEST (test_luma_from_rgb)
{
  static const GstVideoFormat fmts[] = {
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_ARGB,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xBGR,
  };
  static const gchar *cols[] = { "bt709", "bt601", "sRGB", NULL };
  guint f, k, g;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (k = 0; k < G_N_ELEMENTS (cols); k++)
      for (g = 0; g < 2; g++) {
        Case c = { fmts[f], 641, 479, TEST_LAYOUT_PADDED, REF_CH_LUMA, 256, };
        c.colorimetry = cols[k];
        c.gpu = g;
        run_case (&c);
      }
}

GST_END_TEST;

/* the two weightings give different histograms on random RGB data, so the
 * luma test above can tell them apart */
GST_START_TEST (test_luma_601_709_differ)
{
  GstVideoInfo info;
  GstBuffer *buf = test_frame_new (GST_VIDEO_FORMAT_RGBx, 64, 64,
      TEST_LAYOUT_PACKED, 5, &info);
  guint64 a[256] = { 0, }, b[256] = { 0, };

  ref_histogram_add (buf, &info, REF_CH_LUMA, FALSE, 0, 0, 64, 64, a);
  ref_histogram_add (buf, &info, REF_CH_LUMA, TRUE, 0, 0, 64, 64, b);
  fail_if (memcmp (a, b, sizeof (a)) == 0);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_solid_frames)
{
  static const guint8 values[] = { 0, 255, 128, 77 };
  guint v, g;

  for (v = 0; v < G_N_ELEMENTS (values); v++)
    for (g = 0; g < 2; g++) {
      Case c = { GST_VIDEO_FORMAT_RGBA, 1921, 1081, TEST_LAYOUT_PACKED,
        REF_CH_RED | REF_CH_LUMA | REF_CH_ALPHA, 256,
      };
      c.solid = TRUE;
      c.value = values[v];
      c.gpu = g;
      run_case (&c);
      c.format = GST_VIDEO_FORMAT_NV12;
      c.channels = REF_CH_LUMA | REF_CH_U | REF_CH_V;
      c.bins = 16;
      run_case (&c);
    }
}

GST_END_TEST;

/* @n frames of @dur each, interval @interval: messages hold the right
 * frames, counts, timestamps; the partial interval comes at EOS */
GST_START_TEST (test_interval_and_eos)
{
  const GstClockTime dur = 25 * GST_MSECOND, interval = 100 * GST_MSECOND;
  const guint n = 10, expect_frames[] = { 4, 4, 2 };
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  GstBuffer *frames[10];
  GstVideoInfo info;
  guint i, m, first_frame = 0;

  g_object_set (h->element, "interval", interval, "bins", 16, NULL);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_I420, 63, 31));
  for (i = 0; i < n; i++) {
    frames[i] = test_frame_new (GST_VIDEO_FORMAT_I420, 63, 31,
        TEST_LAYOUT_PADDED, 100 + i, &info);
    GST_BUFFER_PTS (frames[i]) = i * dur;
    GST_BUFFER_DURATION (frames[i]) = dur;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (frames[i])),
        GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  for (m = 0; m < G_N_ELEMENTS (expect_frames); m++) {
    GstStructure *s = test_pop_histogram (bus);
    guint64 v, counts[256] = { 0, };

    fail_unless (s != NULL, "message %u missing", m);
    fail_unless (gst_structure_get_uint64 (s, "frames", &v));
    fail_unless_equals_uint64 (v, expect_frames[m]);
    fail_unless (gst_structure_get_uint64 (s, "pixels", &v));
    fail_unless_equals_uint64 (v, (guint64) expect_frames[m] * 63 * 31);
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &v));
    fail_unless_equals_uint64 (v, first_frame * dur);
    fail_unless (gst_structure_get_uint64 (s, "running-time", &v));
    fail_unless_equals_uint64 (v, first_frame * dur);
    fail_unless (gst_structure_get_uint64 (s, "stream-time", &v));
    fail_unless_equals_uint64 (v, first_frame * dur);
    fail_unless (gst_structure_get_uint64 (s, "duration", &v));
    fail_unless_equals_uint64 (v, expect_frames[m] * dur);
    for (i = first_frame; i < first_frame + expect_frames[m]; i++)
      ref_histogram_add (frames[i], &info, REF_CH_LUMA, FALSE, 0, 0, 63, 31,
          counts);
    check_channel (s, 0, "luma", counts, 256, 16, "interval");
    first_frame += expect_frames[m];
    gst_structure_free (s);
  }
  fail_unless (test_pop_histogram (bus) == NULL);
  for (i = 0; i < n; i++)
    gst_buffer_unref (frames[i]);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* a flush drops the partial interval */
GST_START_TEST (test_interval_flush)
{
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  GstStructure *s;
  GstSegment seg;
  guint64 v;
  guint i;

  g_object_set (h->element, "interval", GST_SECOND, NULL);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 8, 8));
  for (i = 0; i < 3; i++) {
    GstBuffer *b = test_frame_new (GST_VIDEO_FORMAT_GRAY8, 8, 8,
        TEST_LAYOUT_PACKED, i, NULL);
    GST_BUFFER_PTS (b) = i * GST_MSECOND;
    GST_BUFFER_DURATION (b) = GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (test_pop_histogram (bus) == NULL);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  {
    GstBuffer *b = test_frame_new (GST_VIDEO_FORMAT_GRAY8, 8, 8,
        TEST_LAYOUT_PACKED, 9, NULL);
    GST_BUFFER_PTS (b) = 5 * GST_MSECOND;
    GST_BUFFER_DURATION (b) = GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  s = test_pop_histogram (bus);
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint64 (s, "frames", &v));
  fail_unless_equals_uint64 (v, 1);
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &v));
  fail_unless_equals_uint64 (v, 5 * GST_MSECOND);
  gst_structure_free (s);
  test_free_harness (h, bus);
}

GST_END_TEST;

GST_START_TEST (test_message_types)
{
  static const struct
  {
    const gchar *name;
    GType type;
  } fields[] = {
    {"timestamp", G_TYPE_UINT64}, {"stream-time", G_TYPE_UINT64},
    {"running-time", G_TYPE_UINT64}, {"duration", G_TYPE_UINT64},
    {"width", G_TYPE_INT}, {"height", G_TYPE_INT}, {"roi-x", G_TYPE_INT},
    {"roi-y", G_TYPE_INT}, {"roi-width", G_TYPE_INT},
    {"roi-height", G_TYPE_INT}, {"frames", G_TYPE_UINT64},
    {"pixels", G_TYPE_UINT64}, {"bins", G_TYPE_UINT},
  };
  static const struct
  {
    const gchar *name;
    GType item;
  } arrays[] = {
    {"channels", G_TYPE_STRING}, {"mean", G_TYPE_DOUBLE},
    {"stddev", G_TYPE_DOUBLE}, {"min", G_TYPE_UINT}, {"max", G_TYPE_UINT},
    {"clip-low", G_TYPE_DOUBLE}, {"clip-high", G_TYPE_DOUBLE},
  };
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  GstStructure *s;
  const GValue *counts;
  guint i;

  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_BGRA, 9, 7));
  fail_unless_equals_int (gst_harness_push (h, test_frame_new
          (GST_VIDEO_FORMAT_BGRA, 9, 7, TEST_LAYOUT_PACKED, 1, NULL)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  s = test_pop_histogram (bus);
  fail_unless (s != NULL);
  for (i = 0; i < G_N_ELEMENTS (fields); i++)
    fail_unless (gst_structure_has_field_typed (s, fields[i].name,
            fields[i].type), "field %s", fields[i].name);
  for (i = 0; i < G_N_ELEMENTS (arrays); i++) {
    const GValue *a = gst_structure_get_value (s, arrays[i].name);
    guint j;
    fail_unless (a && GST_VALUE_HOLDS_ARRAY (a), "%s", arrays[i].name);
    fail_unless_equals_int (gst_value_array_get_size (a), 3);
    for (j = 0; j < 3; j++)
      fail_unless (G_VALUE_HOLDS (gst_value_array_get_value (a, j),
              arrays[i].item), "%s[%u]", arrays[i].name, j);
  }
  counts = gst_structure_get_value (s, "counts");
  fail_unless (GST_VALUE_HOLDS_ARRAY (counts));
  fail_unless_equals_int (gst_value_array_get_size (counts), 3);
  for (i = 0; i < 3; i++) {
    const GValue *c = gst_value_array_get_value (counts, i);
    fail_unless (GST_VALUE_HOLDS_ARRAY (c));
    fail_unless_equals_int (gst_value_array_get_size (c), 256);
    fail_unless (G_VALUE_HOLDS_UINT64 (gst_value_array_get_value (c, 0)));
  }
  gst_structure_free (s);

  /* post-messages=FALSE: nothing posted, frames still pass */
  g_object_set (h->element, "post-messages", FALSE, NULL);
  fail_unless_equals_int (gst_harness_push (h, test_frame_new
          (GST_VIDEO_FORMAT_BGRA, 9, 7, TEST_LAYOUT_PACKED, 2, NULL)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  fail_unless (test_pop_histogram (bus) == NULL);
  test_free_harness (h, bus);
}

GST_END_TEST;

static gchar *last_warning;

static gboolean
catch_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  g_free (last_warning);
  last_warning = g_strdup (message);
  return TRUE;
}

/* sets @prop to @value (a string for gst_util_set_object_arg) and expects a
 * warning containing @valid with the old value kept */
static void
expect_rejected (GstElement * el, const gchar * prop, const gchar * value,
    const gchar * valid)
{
  GValue before = G_VALUE_INIT, after = G_VALUE_INIT;
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (el), prop);

  g_value_init (&before, pspec->value_type);
  g_value_init (&after, pspec->value_type);
  g_object_get_property (G_OBJECT (el), prop, &before);
  g_clear_pointer (&last_warning, g_free);
  gst_util_set_object_arg (G_OBJECT (el), prop, value);
  fail_unless (last_warning != NULL, "%s=%s: no warning", prop, value);
  fail_unless (strstr (last_warning, valid) != NULL, "warning \"%s\" lacks "
      "\"%s\"", last_warning, valid);
  g_object_get_property (G_OBJECT (el), prop, &after);
  fail_unless (gst_value_compare (&before, &after) == GST_VALUE_EQUAL,
      "%s changed", prop);
  g_value_unset (&before);
  g_value_unset (&after);
}

GST_START_TEST (test_invalid_properties)
{
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("clhistogram", 0, 0, NULL),
      catch_warning, NULL, NULL);
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  guint bins;

  GParamSpecUInt *bins_spec = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (h->element), "bins"));

  /* the range is in the param spec (gst-inspect shows it, GLib enforces
   * it); the format's own limit is a caps-time matter */
  fail_unless_equals_int (bins_spec->minimum, 2);
  fail_unless_equals_int (bins_spec->maximum, 65536);
  g_object_set (h->element, "bins", 1000, NULL);        /* ok before caps */
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_RGBA, 20, 10));
  /* 1000 > 256 values: clamped with an element warning at caps time */
  g_object_get (h->element, "bins", &bins, NULL);
  fail_unless_equals_int (bins, 256);
  /* accepted while playing, counted as 256 bins until caps allow more */
  g_object_set (h->element, "bins", 300, NULL);
  g_object_get (h->element, "bins", &bins, NULL);
  fail_unless_equals_int (bins, 300);
  expect_rejected (h->element, "roi-x", "20", "valid is 0 to 19");
  expect_rejected (h->element, "roi-y", "10", "valid is 0 to 9");
  g_object_set (h->element, "bins", 2, "roi-x", 19, "roi-y", 9, NULL);
  g_object_get (h->element, "bins", &bins, NULL);
  fail_unless_equals_int (bins, 2);
  test_free_harness (h, bus);

  /* GRAY16_LE takes up to 65536 bins */
  h = new_harness (&bus, FALSE);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY16_LE, 4,
          4));
  g_object_set (h->element, "bins", 65536, NULL);
  g_object_get (h->element, "bins", &bins, NULL);
  fail_unless_equals_int (bins, 65536);
  test_free_harness (h, bus);

  gst_check_remove_log_filter (filter);
  g_clear_pointer (&last_warning, g_free);
}

GST_END_TEST;

/* a channel the format lacks: an element error at caps time */
GST_START_TEST (test_missing_channel)
{
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;

  gst_util_set_object_arg (G_OBJECT (h->element), "channels", "red+alpha");
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_RGBx, 4, 4));
  fail_unless_equals_int (gst_harness_push (h, test_frame_new
          (GST_VIDEO_FORMAT_RGBx, 4, 4, TEST_LAYOUT_PACKED, 1, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (g_error_matches (err, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION));
  fail_unless (strstr (err->message, "alpha") != NULL);
  fail_unless (strstr (err->message, "available: red, green, blue, luma")
      != NULL, "%s", err->message);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* a kernel that does not compile: (LIBRARY, INIT) with the build log */
GST_START_TEST (test_broken_kernel)
{
  gchar *dir = g_dir_make_tmp ("clhist-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "histogram.cl", NULL);
  gchar *old = g_strdup (g_getenv ("GST_CL_KERNEL_DIR"));
  GstBus *bus;
  GstHarness *h;
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;

  /* a unique token keeps every cache from answering */
  fail_unless (g_file_set_contents (path, "__kernel void hist_cpu (void) "
          "{ this_is_not_opencl_4711; }\n", -1, NULL));
  g_setenv ("GST_CL_KERNEL_DIR", dir, TRUE);
  h = new_harness (&bus, FALSE);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 4, 4));
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "no error posted");
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_INIT), "%s", err->message);
  fail_unless (dbg && strstr (dbg, "this_is_not_opencl_4711"), "debug: %s",
      dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  test_free_harness (h, bus);

  if (old)
    g_setenv ("GST_CL_KERNEL_DIR", old, TRUE);
  else
    g_unsetenv ("GST_CL_KERNEL_DIR");
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  g_free (old);
}

GST_END_TEST;

/* Pushes a GRAY8 8x8 frame (seed @seed) stamped @pts/@dur; adds its luma
 * counts to @counts when given */
static void
push_gray (GstHarness * h, guint32 seed, GstClockTime pts, GstClockTime dur,
    guint64 * counts)
{
  GstVideoInfo info;
  GstBuffer *b = test_frame_new (GST_VIDEO_FORMAT_GRAY8, 8, 8,
      TEST_LAYOUT_PACKED, seed, &info);

  GST_BUFFER_PTS (b) = pts;
  GST_BUFFER_DURATION (b) = dur;
  if (counts)
    ref_histogram_add (b, &info, REF_CH_LUMA, FALSE, 0, 0, 8, 8, counts);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
}

/* Pops the next message and checks frames, timestamp, duration and the
 * counts against @counts */
static void
expect_message (GstBus * bus, guint64 frames, GstClockTime ts,
    GstClockTime duration, const guint64 * counts, const gchar * what)
{
  GstStructure *s = test_pop_histogram (bus);
  guint64 v;

  fail_unless (s != NULL, "%s: no message", what);
  fail_unless (gst_structure_get_uint64 (s, "frames", &v));
  fail_unless_equals_uint64 (v, frames);
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &v));
  fail_unless_equals_uint64 (v, ts);
  fail_unless (gst_structure_get_uint64 (s, "duration", &v));
  fail_unless_equals_uint64 (v, duration);
  check_channel (s, 0, "luma", counts, 256, 256, what);
  gst_structure_free (s);
}

/* A non-TIME segment (appsrc's default BYTES): no stream or running time,
 * no assertion */
GST_START_TEST (test_bytes_segment)
{
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  GstSegment seg;
  GstStructure *s;
  guint64 v;

  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 8, 8));
  gst_segment_init (&seg, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  push_gray (h, 1, 5 * GST_MSECOND, GST_MSECOND, NULL);
  s = test_pop_histogram (bus);
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &v));
  fail_unless_equals_uint64 (v, 5 * GST_MSECOND);
  fail_unless (gst_structure_get_uint64 (s, "stream-time", &v));
  fail_unless_equals_uint64 (v, GST_CLOCK_TIME_NONE);
  fail_unless (gst_structure_get_uint64 (s, "running-time", &v));
  fail_unless_equals_uint64 (v, GST_CLOCK_TIME_NONE);
  gst_structure_free (s);

  /* intervals work the same */
  g_object_set (h->element, "interval", 2 * GST_MSECOND, NULL);
  push_gray (h, 2, 6 * GST_MSECOND, GST_MSECOND, NULL);
  fail_unless (test_pop_histogram (bus) == NULL);
  push_gray (h, 3, 7 * GST_MSECOND, GST_MSECOND, NULL);
  s = test_pop_histogram (bus);
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint64 (s, "frames", &v));
  fail_unless_equals_uint64 (v, 2);
  gst_structure_free (s);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* A refused channel: NOT_NEGOTIATED for every buffer, one ERROR message */
GST_START_TEST (test_missing_channel_once)
{
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  GstMessage *m;
  guint i, errors = 0;

  gst_util_set_object_arg (G_OBJECT (h->element), "channels", "alpha");
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_RGBx, 4, 4));
  for (i = 0; i < 8; i++)
    fail_unless_equals_int (gst_harness_push (h, test_frame_new
            (GST_VIDEO_FORMAT_RGBx, 4, 4, TEST_LAYOUT_PACKED, i, NULL)),
        GST_FLOW_NOT_NEGOTIATED);
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    errors++;
    gst_message_unref (m);
  }
  fail_unless_equals_int (errors, 1);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* A timestamp going backwards closes the interval (its duration is that of
 * the frames before); the frame starts the next one */
GST_START_TEST (test_interval_backwards)
{
  const GstClockTime ms = GST_MSECOND;
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  guint64 first[256] = { 0, }, second[256] = { 0, };

  g_object_set (h->element, "interval", 100 * ms, NULL);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 8, 8));
  push_gray (h, 1, 0, 25 * ms, first);
  push_gray (h, 2, 25 * ms, 25 * ms, first);
  push_gray (h, 3, 50 * ms, 25 * ms, first);
  fail_unless (test_pop_histogram (bus) == NULL);
  push_gray (h, 4, 10 * ms, 25 * ms, second);
  expect_message (bus, 3, 0, 75 * ms, first, "before the jump");
  fail_unless (test_pop_histogram (bus) == NULL);
  push_gray (h, 5, 35 * ms, 25 * ms, second);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  expect_message (bus, 2, 10 * ms, 50 * ms, second, "after the jump");
  fail_unless (test_pop_histogram (bus) == NULL);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* Unstamped frames in interval mode: one message each, at once; the
 * interval around them is not disturbed */
GST_START_TEST (test_interval_unstamped)
{
  const GstClockTime ms = GST_MSECOND;
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  guint64 stamped[256] = { 0, }, lone[256] = { 0, }, lone2[256] = { 0, };

  g_object_set (h->element, "interval", 100 * ms, NULL);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 8, 8));
  push_gray (h, 1, 0, 25 * ms, stamped);
  push_gray (h, 2, 25 * ms, 25 * ms, stamped);
  push_gray (h, 3, GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE, lone);
  expect_message (bus, 1, GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE, lone,
      "unstamped");
  push_gray (h, 4, 50 * ms, 25 * ms, stamped);
  push_gray (h, 5, GST_CLOCK_TIME_NONE, 25 * ms, lone2);
  expect_message (bus, 1, GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE, lone2,
      "unstamped with a duration");
  fail_unless (test_pop_histogram (bus) == NULL);
  push_gray (h, 6, 75 * ms, 25 * ms, stamped);
  expect_message (bus, 4, 0, 100 * ms, stamped, "the interval");
  fail_unless (test_pop_histogram (bus) == NULL);
  test_free_harness (h, bus);
}

GST_END_TEST;

/* A GstController binding (trigger) on bins: messages change at the buffer
 * whose stream time reaches the trigger */
GST_START_TEST (test_controlled_bins)
{
  const GstClockTime dur = 40 * GST_MSECOND;
  static const guint expect[] = { 256, 256, 16, 16, 16 };
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  GstControlSource *cs = gst_trigger_control_source_new ();
  guint i;

  fail_if (g_object_class_find_property (G_OBJECT_GET_CLASS (h->element),
          "channels")->flags & GST_PARAM_CONTROLLABLE);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs),
      2 * dur, 16.0);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "bins", cs)));
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 8, 8));
  for (i = 0; i < G_N_ELEMENTS (expect); i++) {
    GstStructure *s;
    guint bins;

    push_gray (h, i, i * dur, dur, NULL);
    s = test_pop_histogram (bus);
    fail_unless (s != NULL);
    fail_unless (gst_structure_get_uint (s, "bins", &bins));
    fail_unless_equals_int (bins, expect[i]);
    gst_structure_free (s);
  }
  gst_object_unref (cs);
  test_free_harness (h, bus);
}

GST_END_TEST;


/* channels steer negotiation: the sink pad offers only formats that have
 * every requested channel */
GST_START_TEST (test_channels_caps)
{
  static const struct
  {
    const gchar *channels;
    const gchar *has, *lacks;
    guint n;
  } cases[] = {
    {"auto", "RGBA", NULL, 20},
    {"luma", "GRAY8", NULL, 20},
    {"luma+u+v", "NV12", "RGBA", 8},
    {"red+green+blue", "BGRx", "I420", 10},
    {"alpha", "ARGB", "RGBx", 4},
    /* no format has both: all offered, set_info explains */
    {"u+red", "RGB", NULL, 20},
  };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstElement *e = gst_element_factory_make ("clhistogram", NULL);
    GstPad *pad = gst_element_get_static_pad (e, "sink");
    GstCaps *caps;
    GstStructure *st;
    const GValue *formats;
    guint n = 0;
    gboolean has = FALSE, lacks = TRUE;

    gst_util_set_object_arg (G_OBJECT (e), "channels", cases[i].channels);
    caps = gst_pad_query_caps (pad, NULL);
    if (!gst_caps_is_empty (caps)) {
      st = gst_caps_get_structure (caps, 0);
      formats = gst_structure_get_value (st, "format");
      n = GST_VALUE_HOLDS_LIST (formats) ? gst_value_list_get_size (formats)
          : 1;
      for (j = 0; j < n; j++) {
        const gchar *f = GST_VALUE_HOLDS_LIST (formats) ?
            g_value_get_string (gst_value_list_get_value (formats, j)) :
            g_value_get_string (formats);
        if (cases[i].has && g_str_equal (f, cases[i].has))
          has = TRUE;
        if (cases[i].lacks && g_str_equal (f, cases[i].lacks))
          lacks = FALSE;
      }
    }
    fail_unless_equals_int (n, cases[i].n);
    fail_unless (has || !cases[i].has, "%s: no %s", cases[i].channels,
        cases[i].has);
    fail_unless (lacks, "%s: offers %s", cases[i].channels, cases[i].lacks);
    gst_caps_unref (caps);
    gst_object_unref (pad);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* ...so videoconvert picks a format that has them (was "Channel "u" is not
 * available in ABGR video") */
GST_START_TEST (test_channels_negotiation)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=ABGR,width=32,height=16 ! videoconvert ! "
      "clhistogram name=h channels=luma+u+v ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  GstElement *h = gst_bin_get_by_name (GST_BIN (pipe), "h");
  GstPad *pad = gst_element_get_static_pad (h, "sink");
  GstMessage *msg;
  GstCaps *caps;
  GstVideoInfo info;
  gboolean histogram = FALSE;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT))) {
    GstMessageType t = GST_MESSAGE_TYPE (msg);

    if (t == GST_MESSAGE_ELEMENT)
      histogram |= gst_message_has_name (msg, "histogram");
    fail_if (t == GST_MESSAGE_ERROR, "pipeline failed");
    gst_message_unref (msg);
    if (t == GST_MESSAGE_EOS)
      break;
  }
  fail_unless (histogram);
  caps = gst_pad_get_current_caps (pad);
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless (GST_VIDEO_INFO_IS_YUV (&info), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (h);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* message-counts: the same counts as an array, as GBytes per channel by
 * name, or not at all (statistics stay) */
GST_START_TEST (test_message_counts_modes)
{
  static const gchar *modes[] = { "array", "bytes", "none" };
  GstBus *bus;
  GstHarness *h = new_harness (&bus, FALSE);
  guint m, v;

  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_GRAY8, 8, 8));
  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    guint64 ref[256] = { 0, };
    GstStructure *s;
    GBytes *bytes = NULL;

    gst_util_set_object_arg (G_OBJECT (h->element), "message-counts",
        modes[m]);
    push_gray (h, 11 + m, m * GST_SECOND, GST_SECOND, ref);
    s = test_pop_histogram (bus);
    fail_unless (s != NULL, "%s: no message", modes[m]);
    fail_unless (gst_structure_has_field (s, "mean"), "%s: no mean",
        modes[m]);
    fail_unless (gst_structure_has_field (s, "counts") == (m == 0),
        "%s: counts field", modes[m]);
    fail_unless (gst_structure_has_field (s, "counts-luma") == (m == 1),
        "%s: counts-luma field", modes[m]);
    for (v = 0; m == 0 && v < 256; v++) {
      const GValue *ch = gst_value_array_get_value (gst_structure_get_value
          (s, "counts"), 0);
      fail_unless_equals_uint64 (g_value_get_uint64
          (gst_value_array_get_value (ch, v)), ref[v]);
    }
    if (m == 1) {
      const guint64 *got;
      gsize size;

      fail_unless (gst_structure_get (s, "counts-luma", G_TYPE_BYTES, &bytes,
              NULL));
      got = g_bytes_get_data (bytes, &size);
      fail_unless_equals_int (size, 256 * sizeof (guint64));
      for (v = 0; v < 256; v++)
        fail_unless_equals_uint64 (got[v], ref[v]);
      g_bytes_unref (bytes);
    }
    gst_structure_free (s);
  }
  test_free_harness (h, bus);
}

GST_END_TEST;

static Suite *
clhistogram_suite (void)
{
  Suite *s = suite_create ("clhistogram");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_channels_caps);
  if (!test_have_cl_device ())
    return s;
  tcase_add_test (tc, test_channels_negotiation);
  tcase_add_test (tc, test_message_counts_modes);
  tcase_add_test (tc, test_many_bins);
  tcase_add_test (tc, test_message_types);
  tcase_add_test (tc, test_invalid_properties);
  tcase_add_test (tc, test_missing_channel);
  tcase_add_test (tc, test_broken_kernel);
  tcase_add_test (tc, test_luma_601_709_differ);
  tcase_add_test (tc, test_interval_and_eos);
  tcase_add_test (tc, test_interval_flush);
  tcase_add_test (tc, test_luma_from_rgb);
  tcase_add_test (tc, test_roi);
  tcase_add_test (tc, test_consecutive_frames);
  tcase_add_test (tc, test_first_frame_switch);
  tcase_add_test (tc, test_solid_frames);
  tcase_add_test (tc, test_all_formats_cpu);
  tcase_add_test (tc, test_all_formats_gpu_variant);
  tcase_add_test (tc, test_big_frames);
  tcase_add_test (tc, test_bytes_segment);
  tcase_add_test (tc, test_missing_channel_once);
  tcase_add_test (tc, test_interval_backwards);
  tcase_add_test (tc, test_interval_unstamped);
  tcase_add_test (tc, test_controlled_bins);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  test_skip_without_cl_device ("clhistogram");
  /* every case counts with hist_cpu (test_first_frame_switch lets
   * hist_cpu_first run first); GST_CL_HISTOGRAM_FIRST=only runs every case
   * through hist_cpu_first instead */
  g_setenv (FIRST_ENV, "off", FALSE);
  return gst_check_run_suite (clhistogram_suite (), "clhistogram", __FILE__);
}
