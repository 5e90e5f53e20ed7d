/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Live property changes: buffers timestamped at 30 fps go through each
 * element while the properties documented as changeable while PLAYING
 * change every few frames (several at once, the same one twice before a
 * buffer, every border mode, integer <-> float arithmetic, passthrough and
 * back). Every change must apply from the first buffer pushed after it is
 * set, and every result must match tests/reference. How long a change
 * takes is measured by `clbench --live-change`, never asserted here. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>
#include <stdlib.h>

#include "testframes.h"
#include "convolve.h"
#include "histogram.h"
#include "integral.h"

#define FRAME_NS (GST_SECOND / 30)
#define MAX_STEP_CHANGES 4

/* property changes made just before buffer @frame is pushed */
typedef struct
{
  guint frame;
  const gchar *set[MAX_STEP_CHANGES][2];        /* name, value */
} Step;

static guint n_checked;

/* frame @i of a stream: its own random content and layout, 30 fps
 * timestamps */
static GstBuffer *
live_frame (GstVideoFormat format, gint width, gint height, guint i,
    GstVideoInfo * info)
{
  GstBuffer *buf = test_frame_new (format, width, height,
      (TestLayout) (i % 4), 7000 + i, info);

  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  return buf;
}

/* Sets the step's properties on @el and passes each to @model */
static void
apply_step (GstElement * el, const Step * step, gpointer model,
    void (*update) (gpointer model, const gchar * name, const gchar * value))
{
  guint j;

  for (j = 0; j < MAX_STEP_CHANGES && step->set[j][0]; j++) {
    gst_util_set_object_arg (G_OBJECT (el), step->set[j][0], step->set[j][1]);
    update (model, step->set[j][0], step->set[j][1]);
  }
}

/* ---- clconvolve ---- */

static const gchar *preset_names[] = { "custom", "identity", "box",
  "gaussian", "sharpen", "laplacian", "sobel-x", "sobel-y", "emboss", "edge",
  "motion-blur", NULL
};

static const gchar *border_names[] = { "clamp", "mirror", "wrap", "constant",
  NULL
};

/* What the element should do with the next buffer */
typedef struct
{
  gint preset;                  /* index into preset_names */
  gdouble sigma;
  gint radius;
  gdouble custom[31 * 31];
  gint custom_n;
  gdouble divisor, bias;        /* property values: divisor 0 = auto */
  gboolean absolute;
  gint border;
  gint border_value;
  gboolean chroma_filter;
} ConvModel;

static gint
name_index (const gchar * const *names, const gchar * value)
{
  gint i;

  for (i = 0; names[i]; i++)
    if (!strcmp (names[i], value))
      return i;
  fail ("unknown value %s", value);
  return -1;
}

static void
conv_update (gpointer data, const gchar * name, const gchar * value)
{
  ConvModel *m = data;

  if (!strcmp (name, "preset")) {
    m->preset = name_index (preset_names, value);
  } else if (!strcmp (name, "sigma")) {
    m->sigma = g_ascii_strtod (value, NULL);
  } else if (!strcmp (name, "radius")) {
    m->radius = atoi (value);
  } else if (!strcmp (name, "divisor")) {
    m->divisor = g_ascii_strtod (value, NULL);
  } else if (!strcmp (name, "bias")) {
    m->bias = g_ascii_strtod (value, NULL);
  } else if (!strcmp (name, "absolute")) {
    m->absolute = !strcmp (value, "true");
  } else if (!strcmp (name, "border")) {
    m->border = name_index (border_names, value);
  } else if (!strcmp (name, "border-value")) {
    m->border_value = atoi (value);
  } else if (!strcmp (name, "chroma")) {
    m->chroma_filter = !strcmp (value, "filter");
  } else if (!strcmp (name, "kernel")) {
    /* "<a,b,...>": a square custom matrix */
    gchar **c = g_strsplit_set (value, "<,>", -1);
    gint i;

    m->custom_n = 0;
    for (i = 0; c[i]; i++)
      if (*g_strstrip (c[i]))
        m->custom[m->custom_n++] = g_ascii_strtod (c[i], NULL);
    g_strfreev (c);
    m->preset = 0;
  } else {
    fail ("no model for %s", name);
  }
}

static void
info_of (GstBuffer * buf, const GstVideoInfo * like, GstVideoInfo * info)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  guint p;

  *info = *like;
  gst_video_info_set_format (info, GST_VIDEO_INFO_FORMAT (like),
      GST_VIDEO_INFO_WIDTH (like), GST_VIDEO_INFO_HEIGHT (like));
  if (meta) {
    for (p = 0; p < meta->n_planes; p++) {
      info->offset[p] = meta->offset[p];
      info->stride[p] = meta->stride[p];
    }
  }
}

static void
conv_check (const ConvModel * m, GstBuffer * in, const GstVideoInfo * info,
    GstBuffer * out, guint frame)
{
  gdouble coef[31 * 31];
  gint w, h;
  RefConvolve r;
  GstVideoInfo out_info;
  GstBuffer *expected;
  guint8 *tol;
  gchar *what;
  gsize bad;

  if (m->preset) {
    ref_convolve_preset (m->preset, m->sigma, m->radius, coef, &w, &h);
  } else {
    w = h = (gint) (sqrt (m->custom_n) + 0.5);
    memcpy (coef, m->custom, m->custom_n * sizeof (gdouble));
  }
  if (w == 1 && h == 1 && coef[0] == 1 && m->divisor == 0 && m->bias == 0) {
    /* identity: passthrough, the buffer itself */
    fail_unless (out == in, "frame %u: identity is not passthrough", frame);
    n_checked++;
    return;
  }
  r.width = w;
  r.height = h;
  r.coef = coef;
  r.divisor = m->divisor != 0 ? m->divisor :
      ref_convolve_auto_divisor (coef, w * h);
  r.bias = m->bias;
  r.absolute = m->absolute;
  r.border = m->border;
  r.border_value = MIN (m->border_value, 255);

  expected = gst_buffer_copy_deep (in);
  info_of (out, info, &out_info);
  tol = ref_convolve_frame (&r, in, info, expected, m->chroma_filter);
  what = g_strdup_printf ("frame %u: preset %s %dx%d border %s%s%s", frame,
      preset_names[m->preset], w, h, border_names[m->border],
      ref_convolve_is_integer (&r) ? " integer" : " float",
      m->chroma_filter ? " chroma filtered" : "");
  bad = ref_convolve_compare (out, &out_info, expected, info, tol, what);
  if (bad)
    fail ("%s: %" G_GSIZE_FORMAT " samples differ from the reference", what,
        bad);
  n_checked++;
  g_free (what);
  g_free (tol);
  gst_buffer_unref (expected);
}

static const Step conv_steps[] = {
  {0, {{"preset", "sharpen"}}},
  {2, {{"border", "mirror"}}},
  /* float arithmetic, 7x7 separable */
  {4, {{"preset", "gaussian"}}},
  /* 13x13 */
  {5, {{"sigma", "2"}}},
  {7, {{"border", "wrap"}, {"radius", "2"}}},
  {9, {{"border", "constant"}, {"border-value", "200"}}},
  /* integer again */
  {11, {{"preset", "box"}, {"radius", "3"}, {"divisor", "10"}}},
  {13, {{"bias", "0.5"}}},
  {14, {{"bias", "0"}, {"absolute", "true"}, {"preset", "sobel-x"}}},
  {16, {{"chroma", "filter"}}},
  {18, {{"kernel", "<1,2,1,2,4,2,1,2,1>"}, {"divisor", "0"}}},
  {19, {{"border", "clamp"}, {"preset", "motion-blur"}}},
  {21, {{"preset", "identity"}}},
  {23, {{"preset", "emboss"}, {"chroma", "copy"}}},
  {25, {{"preset", "laplacian"}, {"bias", "128"}, {"absolute", "false"}}},
  /* only the last value before a buffer counts */
  {27, {{"border", "wrap"}, {"border", "constant"}, {"border", "mirror"}}},
  {28, {{"sigma", "0.7"}, {"radius", "0"}, {"preset", "gaussian"}}},
};

#define N_FRAMES 31

static void
run_convolve (GstVideoFormat format, gint width, gint height)
{
  GstHarness *h = gst_harness_new ("clconvolve");
  GstCaps *caps = test_caps_new (format, width, height);
  ConvModel m = { 0, };
  guint i, s = 0;

  m.sigma = 1.0;
  m.preset = 1;
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  for (i = 0; i < N_FRAMES; i++) {
    GstVideoInfo info;
    GstBuffer *in, *out;

    for (; s < G_N_ELEMENTS (conv_steps) && conv_steps[s].frame == i; s++)
      apply_step (h->element, &conv_steps[s], &m, conv_update);
    in = live_frame (format, width, height, i, &info);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME_NS);
    conv_check (&m, in, &info, out, i);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_convolve_live_changes)
{
  /* odd sizes: the right and bottom borders end mid-strip; under memcheck
   * (GST_CL_TEST_QUICK) the YUV stream alone */
  run_convolve (GST_VIDEO_FORMAT_I420, 67, 45);
  if (g_getenv ("GST_CL_TEST_QUICK"))
    return;
  run_convolve (GST_VIDEO_FORMAT_RGBA, 53, 31);
  run_convolve (GST_VIDEO_FORMAT_GRAY16_LE, 41, 37);
}

GST_END_TEST;

/* ---- clhistogram ---- */

typedef struct
{
  guint bins;
  gint roi[4];                  /* property values */
  guint64 interval;
} HistModel;

static void
hist_update (gpointer data, const gchar * name, const gchar * value)
{
  HistModel *m = data;
  guint64 v = g_ascii_strtoull (value, NULL, 10);

  if (!strcmp (name, "bins"))
    m->bins = v;
  else if (!strcmp (name, "roi-x"))
    m->roi[0] = v;
  else if (!strcmp (name, "roi-y"))
    m->roi[1] = v;
  else if (!strcmp (name, "roi-width"))
    m->roi[2] = v;
  else if (!strcmp (name, "roi-height"))
    m->roi[3] = v;
  else if (!strcmp (name, "interval"))
    m->interval = v;
  else
    fail ("no model for %s", name);
}

static guint64
get_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s", field);
  return v;
}

static gint
get_int (const GstStructure * s, const gchar * field)
{
  gint v = 0;

  fail_unless (gst_structure_get_int (s, field, &v), "no %s", field);
  return v;
}

/* The message covering frames [@from, @to] counted with @m */
static void
hist_check (const GstStructure * s, const HistModel * m, guint64 ** counts,
    const gint * roi, guint from, guint to, guint64 pixels)
{
  static const gchar *names[] = { "red", "green", "blue" };
  const GValue *all = gst_structure_get_value (s, "counts");
  guint c, b, bins = 0;

  fail_unless (gst_structure_get_uint (s, "bins", &bins));
  fail_unless_equals_int (bins, m->bins);
  fail_unless_equals_uint64 (get_u64 (s, "frames"), to - from + 1);
  fail_unless_equals_uint64 (get_u64 (s, "timestamp"), from * FRAME_NS);
  fail_unless_equals_uint64 (get_u64 (s, "duration"),
      (to - from + 1) * FRAME_NS);
  fail_unless_equals_uint64 (get_u64 (s, "pixels"), pixels);
  fail_unless_equals_int (get_int (s, "roi-x"), roi[0]);
  fail_unless_equals_int (get_int (s, "roi-y"), roi[1]);
  fail_unless_equals_int (get_int (s, "roi-width"), roi[2]);
  fail_unless_equals_int (get_int (s, "roi-height"), roi[3]);
  fail_unless (all && gst_value_array_get_size (all) == 3);
  for (c = 0; c < 3; c++) {
    const GValue *got = gst_value_array_get_value (all, c);
    guint64 *binned = g_new (guint64, bins);
    RefStats st;

    fail_unless_equals_string (g_value_get_string (gst_value_array_get_value
            (gst_structure_get_value (s, "channels"), c)), names[c]);
    ref_histogram_finish (counts[c], 256, bins, binned, &st);
    fail_unless_equals_int (gst_value_array_get_size (got), bins);
    for (b = 0; b < bins; b++)
      fail_unless_equals_uint64 (g_value_get_uint64
          (gst_value_array_get_value (got, b)), binned[b]);
    g_free (binned);
  }
  n_checked++;
}

static const Step hist_steps[] = {
  {2, {{"bins", "64"}}},
  {3, {{"roi-x", "10"}, {"roi-width", "20"}}},
  /* 3 frames a message from frame 5 (100 ms = 3 frame durations) */
  {5, {{"interval", "100000000"}, {"bins", "16"}}},
  {7, {{"roi-height", "9"}, {"roi-y", "4"}}},
  /* mid-interval: the message of frames 8..10 has the bins of frame 10 */
  {9, {{"bins", "128"}}},
  {11, {{"interval", "0"}, {"roi-x", "0"}, {"roi-width", "0"}}},
  {12, {{"bins", "5"}, {"bins", "2"}}},
  {13, {{"roi-height", "0"}, {"roi-y", "0"}, {"bins", "256"}}},
};

static void
hist_clip_roi (const HistModel * m, gint fw, gint fh, gint * roi)
{
  roi[0] = m->roi[0];
  roi[1] = m->roi[1];
  roi[2] = (m->roi[2] == 0 || m->roi[2] > fw - roi[0]) ? fw - roi[0] :
      m->roi[2];
  roi[3] = (m->roi[3] == 0 || m->roi[3] > fh - roi[1]) ? fh - roi[1] :
      m->roi[3];
}

GST_START_TEST (test_histogram_live_changes)
{
  const GstVideoFormat format = GST_VIDEO_FORMAT_RGBA;
  const gint width = 45, height = 23;
  GstElement *el = gst_element_factory_make ("clhistogram", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  HistModel m = { 256, {0, 0, 0, 0}, 0 };
  guint64 *counts[3];
  guint64 pixels = 0;
  guint i, s = 0, from = 0, c;
  gint roi[4];

  gst_element_set_bus (el, bus);
  h = gst_harness_new_with_element (el, "sink", "src");
  gst_object_unref (el);
  gst_harness_set_caps (h, test_caps_new (format, width, height),
      test_caps_new (format, width, height));
  for (c = 0; c < 3; c++)
    counts[c] = g_new0 (guint64, 256);

  for (i = 0; i < 16; i++) {
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstStructure *msg;

    for (; s < G_N_ELEMENTS (hist_steps) && hist_steps[s].frame == i; s++)
      apply_step (h->element, &hist_steps[s], &m, hist_update);
    in = live_frame (format, width, height, i, &info);
    hist_clip_roi (&m, width, height, roi);
    for (c = 0; c < 3; c++)
      ref_histogram_add (in, &info, REF_CH_RED << c, FALSE, roi[0], roi[1],
          roi[2], roi[3], counts[c]);
    pixels += (guint64) roi[2] * roi[3];
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out == in, "clhistogram must pass buffers through");
    gst_buffer_unref (out);
    gst_buffer_unref (in);

    msg = test_pop_histogram (bus);
    /* a message once the frames since the last one span the interval */
    if ((i + 1 - from) * FRAME_NS >= m.interval) {
      fail_unless (msg != NULL, "frame %u: no message", i);
      hist_check (msg, &m, counts, roi, from, i, pixels);
      gst_structure_free (msg);
      for (c = 0; c < 3; c++)
        memset (counts[c], 0, 256 * sizeof (guint64));
      pixels = 0;
      from = i + 1;
    } else {
      fail_unless (msg == NULL, "frame %u: message inside the interval", i);
    }
  }
  for (c = 0; c < 3; c++)
    g_free (counts[c]);
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

GST_END_TEST;

/* ---- clintegral (box-mean) ---- */

static void
integral_update (gpointer data, const gchar * name, const gchar * value)
{
  fail_unless_equals_string (name, "radius");
  *(guint *) data = atoi (value);
}

static const Step integral_steps[] = {
  {0, {{"radius", "1"}}},
  {2, {{"radius", "7"}}},
  {3, {{"radius", "0"}}},
  {5, {{"radius", "15"}}},
  {6, {{"radius", "3"}, {"radius", "2"}}},
  {8, {{"radius", "40"}}},
};

/* the clintegral log line of its GPU box-mean warm-up job, done */
#define BOX_WARM_LINE "box-mean kernels launched once"
static gint box_warm_seen;      /* atomic */

/* @gpu: the GPU variant forced onto the device (PoCL in CI), where radius
 * 40 moves the frames from box_mean_tile to the integral path and back:
 * the stream being live, every one of those kernels has been launched
 * once on the warm-up worker before the first frame (a device that
 * compiles at first launch would otherwise hold a frame for it) */
static void
run_integral_live_changes (gboolean gpu)
{
  const GstVideoFormat format = GST_VIDEO_FORMAT_GRAY8;
  const gint width = 51, height = 29;
  GstHarness *h;
  guint radius = 0, i, s = 0;

  if (gpu)
    g_setenv ("GST_CL_INTEGRAL_VARIANT", "gpu", TRUE);
  h = gst_harness_new ("clintegral");
  gst_util_set_object_arg (G_OBJECT (h->element), "output", "box-mean");
  g_atomic_int_set (&box_warm_seen, 0);
  gst_harness_set_caps (h, test_caps_new (format, width, height),
      test_caps_new (format, width, height));
  if (gpu)
    fail_unless (g_atomic_int_get (&box_warm_seen),
        "live stream: the box-mean kernels were not launched at caps");
  for (i = 0; i < 10; i++) {
    GstVideoInfo info, out_info;
    GstVideoFrame fin, fout, fexp;
    GstBuffer *in, *out, *expected;
    gint y;

    for (; s < G_N_ELEMENTS (integral_steps) &&
        integral_steps[s].frame == i; s++)
      apply_step (h->element, &integral_steps[s], &radius, integral_update);
    in = live_frame (format, width, height, i, &info);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME_NS);

    gst_video_info_set_format (&out_info, format, width, height);
    expected = gst_buffer_new_allocate (NULL, out_info.size, NULL);
    fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fexp, &out_info, expected,
            GST_MAP_WRITE));
    ref_box_mean (&fin, radius, &fexp);
    info_of (out, &out_info, &out_info);
    fail_unless (gst_video_frame_map (&fout, &out_info, out, GST_MAP_READ));
    for (y = 0; y < height; y++)
      fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fout, 0) +
              y * GST_VIDEO_FRAME_PLANE_STRIDE (&fout, 0),
              (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fexp, 0) +
              y * GST_VIDEO_FRAME_PLANE_STRIDE (&fexp, 0), width) == 0,
          "%s frame %u radius %u: row %d differs from the reference",
          gpu ? "GPU variant" : "device's variant", i, radius, y);
    n_checked++;
    gst_video_frame_unmap (&fout);
    gst_video_frame_unmap (&fexp);
    gst_video_frame_unmap (&fin);
    gst_buffer_unref (expected);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);
  g_unsetenv ("GST_CL_INTEGRAL_VARIANT");
}

GST_START_TEST (test_integral_live_changes)
{
  test_log_watch ("clintegral", BOX_WARM_LINE, &box_warm_seen);
  run_integral_live_changes (FALSE);
  run_integral_live_changes (TRUE);
}

GST_END_TEST;

/* ---- several live pipelines starting together ----
 * Each live element holds its first output until no element of the process
 * compiles (PoCL stops every launch while one compiles). Two live
 * pipelines that wait for each other's compiles must both start, deliver
 * every buffer and stop; stopping one while it still waits must not wait
 * for the other's compiles. */

static const gchar *together_launch[] = {
  "videotestsrc is-live=true num-buffers=20 ! "
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! "
      "clconvolve preset=gaussian ! clhistogram ! fakesink name=sink",
  "videotestsrc is-live=true num-buffers=20 ! "
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 ! "
      "clintegral output=box-mean radius=2 ! fakesink name=sink",
};

/* releases its threads together */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint waiting, round;
} Barrier;

static void
barrier_wait (Barrier * b, guint n)
{
  guint round;

  g_mutex_lock (&b->lock);
  round = b->round;
  if (++b->waiting == n) {
    b->waiting = 0;
    b->round++;
    g_cond_broadcast (&b->cond);
  }
  while (b->round == round)
    g_cond_wait (&b->cond, &b->lock);
  g_mutex_unlock (&b->lock);
}

typedef struct
{
  GstElement *pipeline;
  Barrier *barrier;
  guint buffers;                /* atomic */
} Together;

static void
together_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad,
    Together * t)
{
  g_atomic_int_inc (&t->buffers);
}

static gpointer
together_start (gpointer data)
{
  Together *t = data;

  barrier_wait (t->barrier, G_N_ELEMENTS (together_launch));
  gst_element_set_state (t->pipeline, GST_STATE_PLAYING);
  return NULL;
}

/* Both pipelines made, started from two threads at once */
static void
start_together (Together * t, Barrier * barrier)
{
  GThread *threads[G_N_ELEMENTS (together_launch)];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (together_launch); i++) {
    GstElement *sink;

    t[i].pipeline = gst_parse_launch (together_launch[i], NULL);
    fail_unless (t[i].pipeline != NULL);
    t[i].barrier = barrier;
    t[i].buffers = 0;
    sink = gst_bin_get_by_name (GST_BIN (t[i].pipeline), "sink");
    g_object_set (sink, "signal-handoffs", TRUE, NULL);
    g_signal_connect (sink, "handoff", G_CALLBACK (together_handoff), &t[i]);
    gst_object_unref (sink);
  }
  for (i = 0; i < G_N_ELEMENTS (together_launch); i++)
    threads[i] = g_thread_new ("start", together_start, &t[i]);
  for (i = 0; i < G_N_ELEMENTS (together_launch); i++)
    g_thread_join (threads[i]);
}

GST_START_TEST (test_live_pipelines_start_together)
{
  Together t[G_N_ELEMENTS (together_launch)];
  Barrier barrier = { 0 };
  guint i;

  start_together (t, &barrier);
  for (i = 0; i < G_N_ELEMENTS (together_launch); i++) {
    GstBus *bus = gst_element_get_bus (t[i].pipeline);
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    fail_unless (msg != NULL, "pipeline %u: no EOS within 120 s", i);
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
    fail_unless_equals_int (g_atomic_int_get (&t[i].buffers), 20);
    gst_message_unref (msg);
    gst_object_unref (bus);
  }
  for (i = 0; i < G_N_ELEMENTS (together_launch); i++) {
    gst_element_set_state (t[i].pipeline, GST_STATE_NULL);
    gst_object_unref (t[i].pipeline);
  }

  /* stopped at once, maybe while holding the first frame: every stop
   * returns (a hang fails the case by its timeout) */
  for (i = 0; i < 3; i++) {
    guint j;

    start_together (t, &barrier);
    for (j = 0; j < G_N_ELEMENTS (together_launch); j++) {
      fail_unless_equals_int (gst_element_set_state (t[j].pipeline,
              GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
      gst_object_unref (t[j].pipeline);
    }
  }
}

GST_END_TEST;

static Suite *
cllive_suite (void)
{
  Suite *s = suite_create ("cllive");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  if (!test_have_cl_device ())
    return s;
  tcase_add_test (tc, test_convolve_live_changes);
  tcase_add_test (tc, test_histogram_live_changes);
  tcase_add_test (tc, test_integral_live_changes);
  tcase_add_test (tc, test_live_pipelines_start_together);
  return s;
}

int
main (int argc, char **argv)
{
  gint ret;

  gst_check_init (&argc, &argv);
  test_skip_without_cl_device ("cllive");
  ret = test_run_suite_unforked (cllive_suite (), NULL);
  g_print ("cllive: %u results compared with the reference\n", n_checked);
  return ret;
}
