/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lifecycle tests: the generic state-change walk (as GStreamer's
 * tests/check/generic/states.c does it, in a bin) and repeated
 * create/start/stop/destroy cycles (each with its own OpenCL context) for
 * every element of the plugin; for the three filters also cycles with caps
 * and a frame, property changes from another thread while PLAYING, flushing
 * seeks while PLAYING and refused caps in a real pipeline. Leaks are left to valgrind
 * (`meson test --setup valgrind cllifecycle`, which sets GST_CL_TEST_QUICK
 * for fewer cycles). Exits 77 (skipped) without an OpenCL device. */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "testframes.h"

/* the filters; the state walk and the plain cycles take every element of
 * the plugin */
static const gchar *elements[] = { "clhistogram", "clconvolve", "clintegral" };

/* every element the plugin registers */
static GList *
plugin_elements (void)
{
  GList *features = gst_registry_get_feature_list_by_plugin
      (gst_registry_get (), "clfilters"), *l, *names = NULL;

  for (l = features; l; l = l->next)
    if (GST_IS_ELEMENT_FACTORY (l->data))
      names = g_list_prepend (names,
          g_strdup (gst_plugin_feature_get_name (l->data)));
  gst_plugin_feature_list_free (features);
  fail_unless (g_list_length (names) >= G_N_ELEMENTS (elements));
  return names;
}

static gboolean
quick (void)
{
  return g_getenv ("GST_CL_TEST_QUICK") != NULL;
}

/* ---- generic state changes ---- */

static void
set_state_checked (GstElement * bin, GstState state, const gchar * name)
{
  GstStateChangeReturn ret = gst_element_set_state (bin, state);

  fail_if (ret == GST_STATE_CHANGE_FAILURE, "%s: to %s failed", name,
      gst_element_state_get_name (state));
  ret = gst_element_get_state (bin, NULL, NULL, GST_CLOCK_TIME_NONE);
  fail_if (ret == GST_STATE_CHANGE_FAILURE, "%s: %s not reached", name,
      gst_element_state_get_name (state));
}

/* Every transition up and down, step by step and in jumps, like the
 * generic states test */
GST_START_TEST (test_state_changes)
{
  static const GstState walk[] = {
    GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_PLAYING, GST_STATE_PAUSED,
    GST_STATE_READY, GST_STATE_NULL,
    GST_STATE_PAUSED, GST_STATE_READY, GST_STATE_PLAYING, GST_STATE_PAUSED,
    GST_STATE_NULL,
    GST_STATE_PLAYING, GST_STATE_READY, GST_STATE_NULL,
    GST_STATE_PLAYING, GST_STATE_NULL,
  };
  GList *names = plugin_elements (), *l;
  guint i;

  for (l = names; l; l = l->next) {
    GstElement *bin = gst_bin_new (NULL);
    GstElement *el = gst_element_factory_make (l->data, NULL);

    fail_unless (el != NULL, "%s", (gchar *) l->data);
    gst_bin_add (GST_BIN (bin), el);
    for (i = 0; i < G_N_ELEMENTS (walk); i++) {
      set_state_checked (bin, walk[i], l->data);
      fail_unless_equals_int (GST_STATE (el), walk[i]);
    }
    gst_object_unref (bin);
  }
  g_list_free_full (names, g_free);
}

GST_END_TEST;

/* ---- create/destroy cycles ---- */

static void
cycle_once (const gchar * name)
{
  GstElement *el = gst_element_factory_make (name, NULL);
  gpointer alive = el;

  fail_unless (el != NULL);
  g_object_add_weak_pointer (G_OBJECT (el), &alive);
  /* READY -> PAUSED starts it: a context of its own, made and dropped */
  fail_unless_equals_int (gst_element_set_state (el, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (el, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (el);
  fail_unless (alive == NULL, "%s still referenced after unref", name);
}

/* caps, one frame and teardown: what set_info and the first frame make
 * must be released again */
static void
cycle_with_frame (const gchar * name, guint i)
{
  GstElement *el = gst_element_factory_make (name, NULL);
  GstHarness *h;
  GstBuffer *out;

  if (g_str_equal (name, "clintegral"))
    gst_util_set_object_arg (G_OBJECT (el), "output", "box-mean");
  if (g_str_equal (name, "clconvolve"))
    gst_util_set_object_arg (G_OBJECT (el), "preset", "sharpen");
  h = gst_harness_new_with_element (el, "sink", "src");
  gst_object_unref (el);
  gst_harness_set_src_caps (h, test_caps_new (GST_VIDEO_FORMAT_RGBA, 33, 17));
  fail_unless_equals_int (gst_harness_push (h, test_frame_new
          (GST_VIDEO_FORMAT_RGBA, 33, 17, TEST_LAYOUT_PADDED, i, NULL)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_START_TEST (test_create_destroy)
{
  guint cycles = quick ()? 5 : 200, with_frame = quick ()? 2 : 20;
  GList *names = plugin_elements (), *l;
  guint e, i;

  for (l = names; l; l = l->next)
    for (i = 0; i < cycles; i++)
      cycle_once (l->data);
  for (e = 0; e < G_N_ELEMENTS (elements); e++)
    for (i = 0; i < with_frame; i++)
      cycle_with_frame (elements[e], i);
  g_list_free_full (names, g_free);
}

GST_END_TEST;

/* ---- while PLAYING ---- */

typedef struct
{
  const gchar *element;
  GstElement *pipeline, *el;
  volatile gint stop;
  gint changes;
  guint32 rand;
  /* frames seen by the sink; from check_from on they must be flat, every
   * sample equal to the input's (@input, from a probe) */
  gint frames, check_from, checked;
  gint input;
  gchar *bad;                   /* first invalid output, for the report */
} Run;

/* The pipeline for @name: a flat GRAY8 frame through the element */
static GstElement *
flat_pipeline (const gchar * name, const gchar * extra)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=solid-color "
      "foreground-color=0xff6a6a6a ! video/x-raw,format=GRAY8,width=64,"
      "height=48,framerate=30/1 ! %s name=e %s ! fakesink name=s "
      "signal-handoffs=true sync=false", name, extra);
  GstElement *p = gst_parse_launch (desc, NULL);

  fail_unless (p != NULL, "%s", desc);
  g_free (desc);
  return p;
}

/* A random value for @pspec: mostly near the low end of its range (where
 * the valid values are), sometimes anywhere in it (often invalid: the
 * element must refuse it with a warning and go on) */
static void
random_value (Run * r, GParamSpec * pspec, GValue * v)
{
  guint32 x = test_rand (&r->rand);
  gboolean wide = (x & 7) == 0;
  GType t = G_PARAM_SPEC_VALUE_TYPE (pspec);

  x = test_rand (&r->rand);
  g_value_init (v, t);
  if (G_IS_PARAM_SPEC_BOOLEAN (pspec)) {
    g_value_set_boolean (v, x & 1);
  } else if (G_IS_PARAM_SPEC_INT (pspec)) {
    GParamSpecInt *p = G_PARAM_SPEC_INT (pspec);
    gint64 span = (gint64) p->maximum - p->minimum;
    g_value_set_int (v, p->minimum + (gint) ((wide ? x : x % 40) %
            (span + 1)));
  } else if (G_IS_PARAM_SPEC_UINT (pspec)) {
    GParamSpecUInt *p = G_PARAM_SPEC_UINT (pspec);
    guint64 span = (guint64) p->maximum - p->minimum;
    g_value_set_uint (v, p->minimum + (guint) ((wide ? x : x % 300) %
            (span + 1)));
  } else if (G_IS_PARAM_SPEC_UINT64 (pspec)) {
    /* intervals: 0, some ms, or huge */
    g_value_set_uint64 (v, wide ? G_MAXUINT64 - x : (x % 4) * (x % 50) *
        GST_MSECOND);
  } else if (G_IS_PARAM_SPEC_DOUBLE (pspec)) {
    GParamSpecDouble *p = G_PARAM_SPEC_DOUBLE (pspec);
    gdouble d = wide ? (x & 1 ? 1e39 : -1e-40) : (x % 2000) / 50.0 - 10;
    g_value_set_double (v, CLAMP (d, p->minimum, p->maximum));
  } else if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    GEnumClass *k = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    g_value_set_enum (v, k->values[x % k->n_values].value);
  } else if (G_IS_PARAM_SPEC_FLAGS (pspec)) {
    GFlagsClass *k = G_PARAM_SPEC_FLAGS (pspec)->flags_class;
    g_value_set_flags (v, x & k->mask);
  } else if (t == GST_TYPE_ARRAY) {
    /* a square matrix, 1x1 to 7x7, small integers or fractions */
    guint side = 1 + 2 * (x % 4), i;
    GValue c = G_VALUE_INIT;

    g_value_init (&c, G_TYPE_DOUBLE);
    for (i = 0; i < side * side; i++) {
      guint32 y = test_rand (&r->rand);
      g_value_set_double (&c, (x & 8) ? (gint) (y % 9) - 4 : (y % 100) / 37.0);
      gst_value_array_append_value (v, &c);
    }
    g_value_unset (&c);
  } else {
    fail ("%s: no random value for a %s", pspec->name, g_type_name (t));
  }
}

/* The properties another thread may set while PLAYING: the element's own
 * writable ones that are not fixed once running (GST_PARAM_MUTABLE_READY) */
static GParamSpec **
live_properties (GstElement * el, guint * n)
{
  guint all, i;
  GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS
      (el), &all);
  GParamSpec **live = g_new0 (GParamSpec *, all + 1);

  *n = 0;
  for (i = 0; i < all; i++) {
    GParamSpec *p = specs[i];
    if (!(p->flags & G_PARAM_WRITABLE) || (p->flags & G_PARAM_CONSTRUCT_ONLY)
        || (p->flags & GST_PARAM_MUTABLE_READY) ||
        p->owner_type == GST_TYPE_OBJECT ||
        p->owner_type == GST_TYPE_BASE_TRANSFORM)
      continue;
    live[(*n)++] = p;
  }
  g_free (specs);
  return live;
}

static gpointer
change_properties (gpointer data)
{
  Run *r = data;
  guint n, count = quick ()? 300 : 3000;
  GParamSpec **props = live_properties (r->el, &n);

  fail_unless (n > 0, "%s has no live properties", r->element);
  while (!g_atomic_int_get (&r->stop) && r->changes < (gint) count) {
    GParamSpec *p = props[test_rand (&r->rand) % n];
    GValue v = G_VALUE_INIT;

    random_value (r, p, &v);
    g_object_set_property (G_OBJECT (r->el), p->name, &v);
    g_value_unset (&v);
    r->changes++;
    /* spread over many frames */
    g_usleep (200);
  }
  g_free (props);
  return NULL;
}

/* Output of a flat frame must be flat (convolve: normalised matrix, no bias;
 * integral: box mean); the histogram passes the frame through */
static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Run * r)
{
  gint frame = g_atomic_int_add (&r->frames, 1);
  GstVideoFrame vf;
  GstVideoInfo info;
  GstCaps *caps;
  gint x, y, expect = g_atomic_int_get (&r->input);
  gboolean ok;

  /* (no fail () here: this is the streaming thread) */
  if (frame < g_atomic_int_get (&r->check_from) || r->bad)
    return;
  caps = gst_pad_get_current_caps (pad);
  ok = caps && gst_video_info_from_caps (&info, caps) &&
      gst_video_frame_map (&vf, &info, buf, GST_MAP_READ);
  gst_clear_caps (&caps);
  if (!ok) {
    r->bad = g_strdup_printf ("frame %d: not a video frame", frame);
    return;
  }
  for (y = 0; y < GST_VIDEO_FRAME_HEIGHT (&vf) && !r->bad; y++)
    for (x = 0; x < GST_VIDEO_FRAME_WIDTH (&vf) && !r->bad; x++) {
      guint8 v = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0) + x];
      if (v != expect)
        r->bad = g_strdup_printf ("frame %d sample %d,%d: %u, expected %d",
            frame, x, y, v, expect);
    }
  gst_video_frame_unmap (&vf);
  g_atomic_int_inc (&r->checked);
}

/* the value of the flat input (videotestsrc's conversion decides it) */
static GstPadProbeReturn
on_input (GstPad * pad, GstPadProbeInfo * info, Run * r)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint8 v;

  if (gst_buffer_extract (buf, 0, &v, 1) == 1)
    g_atomic_int_set (&r->input, v);
  return GST_PAD_PROBE_OK;
}

/* Pops bus messages for up to @ms; fails on an error. Histogram messages
 * after check_from are checked: one value, all samples counted. */
static void
drain_bus (Run * r, GstBus * bus, guint ms, gint * histograms)
{
  GstMessage *m;

  while ((m = gst_bus_timed_pop (bus, ms * GST_MSECOND))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *err;
      gchar *dbg;
      gst_message_parse_error (m, &err, &dbg);
      fail ("%s: error %s (%s)", r->element, err->message, dbg);
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT && histograms &&
        g_atomic_int_get (&r->frames) > g_atomic_int_get (&r->check_from) &&
        gst_message_has_name (m, "histogram")) {
      const GstStructure *s = gst_message_get_structure (m);
      guint mn, mx;

      mn = g_value_get_uint (gst_value_array_get_value
          (gst_structure_get_value (s, "min"), 0));
      mx = g_value_get_uint (gst_value_array_get_value
          (gst_structure_get_value (s, "max"), 0));
      fail_unless (mn == (guint) r->input && mx == (guint) r->input,
          "histogram min %u max %u, input %d", mn, mx, r->input);
      (*histograms)++;
    }
    gst_message_unref (m);
    ms = 0;
  }
}

/* Puts the element back into a known state whose output the sink checks */
static void
known_settings (GstElement * el, const gchar * name)
{
  if (g_str_equal (name, "clconvolve")) {
    g_object_set (el, "divisor", 0.0, "bias", 0.0, "absolute", FALSE,
        "radius", 2, NULL);
    gst_util_set_object_arg (G_OBJECT (el), "border", "clamp");
    gst_util_set_object_arg (G_OBJECT (el), "preset", "box");
  } else if (g_str_equal (name, "clhistogram")) {
    g_object_set (el, "post-messages", TRUE, "interval", (guint64) 0,
        "bins", 256, "roi-x", 0, "roi-y", 0, "roi-width", 0, "roi-height", 0,
        NULL);
    /* the frames pass unchanged again */
    if (g_object_class_find_property (G_OBJECT_GET_CLASS (el), "overlay"))
      g_object_set (el, "overlay", FALSE, "attach-meta", FALSE, NULL);
  } else {
    g_object_set (el, "radius", 3, NULL);
  }
}

static const gchar *
extra_settings (const gchar * name)
{
  return g_str_equal (name, "clintegral") ? "output=box-mean" : "";
}

static gboolean
swallow_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  return TRUE;
}

static void
start_run (Run * r, const gchar * name)
{
  memset (r, 0, sizeof (*r));
  r->element = name;
  r->rand = g_str_hash (name);
  r->check_from = G_MAXINT;
  r->pipeline = flat_pipeline (name, extra_settings (name));
  r->el = gst_bin_get_by_name (GST_BIN (r->pipeline), "e");
  r->input = -1;
  {
    GstPad *pad = gst_element_get_static_pad (r->el, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
        (GstPadProbeCallback) on_input, r, NULL);
    gst_object_unref (pad);
  }
  {
    GstElement *sink = gst_bin_get_by_name (GST_BIN (r->pipeline), "s");
    g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), r);
    gst_object_unref (sink);
  }
  fail_unless (gst_element_set_state (r->pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (r->pipeline, NULL, NULL,
          GST_CLOCK_TIME_NONE) == GST_STATE_CHANGE_SUCCESS, "%s did not "
      "reach PLAYING", name);
}

/* Known settings, then frames (and messages) after them must be valid;
 * EOS ends the run */
static void
finish_run (Run * r, GstBus * bus)
{
  gint histograms = 0, target;
  GstMessage *m;

  known_settings (r->el, r->element);
  /* one frame may be in flight with the old settings */
  g_atomic_int_set (&r->check_from, g_atomic_int_get (&r->frames) + 2);
  target = g_atomic_int_get (&r->check_from) + 10;
  while (g_atomic_int_get (&r->frames) < target)
    drain_bus (r, bus, 20, g_str_equal (r->element, "clhistogram") ?
        &histograms : NULL);
  fail_unless (r->bad == NULL, "%s: %s", r->element, r->bad);
  fail_unless (g_atomic_int_get (&r->checked) >= 8);
  if (g_str_equal (r->element, "clhistogram"))
    fail_unless (histograms > 0, "no histogram after the changes");

  fail_unless (gst_element_send_event (r->pipeline, gst_event_new_eos ()));
  m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "%s: no EOS", r->element);
  fail_unless_equals_int (GST_MESSAGE_TYPE (m), GST_MESSAGE_EOS);
  gst_message_unref (m);
  fail_unless (gst_element_set_state (r->pipeline, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (r->el);
  gst_object_unref (r->pipeline);
  g_free (r->bad);
}

GST_START_TEST (test_properties_while_playing)
{
  /* invalid values are refused with the element's warning: expected here */
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("^cl(convolve|histogram|integral)",
          0, 0, NULL), swallow_warning, NULL, NULL);
  guint e;

  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    Run r;
    GstBus *bus;
    GThread *t;

    start_run (&r, elements[e]);
    bus = gst_element_get_bus (r.pipeline);
    t = g_thread_new ("props", change_properties, &r);
    while (r.changes < (quick ()? 300 : 3000) && !r.bad) {
      drain_bus (&r, bus, 10, NULL);
      if (g_atomic_int_get (&r.frames) > 100000)
        break;
    }
    g_atomic_int_set (&r.stop, 1);
    g_thread_join (t);
    GST_INFO ("%s: %d property changes over %d frames", r.element,
        r.changes, r.frames);
    fail_unless (r.frames > 0, "%s: no frames", r.element);
    finish_run (&r, bus);
    gst_object_unref (bus);
  }
  gst_check_remove_log_filter (filter);
}

GST_END_TEST;

GST_START_TEST (test_flush_seeks_while_playing)
{
  guint seeks = quick ()? 5 : 40;
  guint e, i;

  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    Run r;
    GstBus *bus;

    start_run (&r, elements[e]);
    bus = gst_element_get_bus (r.pipeline);
    known_settings (r.el, r.element);
    if (g_str_equal (r.element, "clhistogram"))
      g_object_set (r.el, "interval", (guint64) 100 * GST_MSECOND, NULL);
    for (i = 0; i < seeks; i++) {
      gint before = g_atomic_int_get (&r.frames);

      fail_unless (gst_element_seek_simple (r.pipeline, GST_FORMAT_TIME,
              GST_SEEK_FLAG_FLUSH, (i * 7919 % 100) * GST_SECOND / 10),
          "%s: seek %u refused", r.element, i);
      /* frames flow again after each seek */
      while (g_atomic_int_get (&r.frames) < before + 3)
        drain_bus (&r, bus, 10, NULL);
    }
    if (g_str_equal (r.element, "clhistogram"))
      g_object_set (r.el, "interval", (guint64) 0, NULL);
    finish_run (&r, bus);
    gst_object_unref (bus);
  }
}

GST_END_TEST;

/* Caps the element refuses, in a real pipeline: one error from the
 * element, the source stops with not-negotiated, and the pipeline goes to
 * NULL at once (nothing blocks in the element). red+u: no format has both,
 * so the caps query offers every format and set_info refuses (a channel
 * set that some format has would steer negotiation away from RGBx
 * instead, failing at link time) */
GST_START_TEST (test_refused_caps_pipeline)
{
  guint runs = quick ()? 2 : 20, i;

  for (i = 0; i < runs; i++) {
    GstElement *p = gst_parse_launch ("videotestsrc num-buffers=10 ! "
        "video/x-raw,format=RGBx,width=64,height=48 ! clhistogram name=e "
        "channels=red+u ! fakesink", NULL);
    GstBus *bus = gst_element_get_bus (p);
    GstMessage *m;
    guint from_element = 0, flow_errors = 0;

    fail_unless (p != NULL);
    gst_element_set_state (p, GST_STATE_PLAYING);
    /* the source's error comes after the element's */
    while ((m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
                GST_MESSAGE_ERROR))) {
      GError *err;
      gchar *dbg;

      gst_message_parse_error (m, &err, &dbg);
      if (g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), "e")) {
        from_element++;
        fail_unless (g_error_matches (err, GST_CORE_ERROR,
                GST_CORE_ERROR_NEGOTIATION), "%s", err->message);
      } else {
        fail_unless (dbg && strstr (dbg, "not-negotiated"), "%s", dbg);
        flow_errors++;
      }
      g_clear_error (&err);
      g_free (dbg);
      gst_message_unref (m);
      if (flow_errors)
        break;
    }
    fail_unless_equals_int (from_element, 1);
    fail_unless_equals_int (flow_errors, 1);
    fail_unless (gst_element_set_state (p, GST_STATE_NULL) ==
        GST_STATE_CHANGE_SUCCESS);
    /* nothing more after NULL */
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
    gst_object_unref (bus);
    gst_object_unref (p);
  }
}

GST_END_TEST;

static Suite *
cllifecycle_suite (void)
{
  Suite *s = suite_create ("cllifecycle");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_state_changes);
  tcase_add_test (tc, test_create_destroy);
  tcase_add_test (tc, test_properties_while_playing);
  tcase_add_test (tc, test_flush_seeks_while_playing);
  tcase_add_test (tc, test_refused_caps_pipeline);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  /* automake/meson convention: 77 = skipped */
  if (!test_have_cl_device ())
    return 77;
  return gst_check_run_suite (cllifecycle_suite (), "cllifecycle",
      __FILE__);
}
