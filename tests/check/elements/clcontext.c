/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shared runtime: device selection, the shared context and GstContext
 * exchange, errors without a device, and the on-disk program cache. Uses
 * clhistogram on GRAY8 as the simplest OpenCL element. */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <CL/cl.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "testframes.h"
#include "gstclwait.h"

/* Generous: under valgrind a first pipeline (PoCL start-up, program load)
 * takes tens of seconds, and a failed wait in an unforked run would leave
 * the pipeline's streaming task behind */
#define BUS_TIMEOUT (300 * GST_SECOND)

/* Name of the first device of @type over all platforms (ALL = platform 0's
 * first device), or NULL */
static gchar *
device_name_of_type (cl_device_type type)
{
  cl_platform_id platforms[8];
  cl_uint n = 0, p;

  fail_unless (clGetPlatformIDs (8, platforms, &n) == CL_SUCCESS);
  for (p = 0; p < MIN (n, 8); p++) {
    cl_device_id device;
    gchar name[256] = "";

    if (clGetDeviceIDs (platforms[p], type, 1, &device, NULL) != CL_SUCCESS)
      continue;
    clGetDeviceInfo (device, CL_DEVICE_NAME, sizeof (name) - 1, name, NULL);
    return g_strstrip (g_strdup (name));
  }
  return NULL;
}

/* what "auto" must pick: first GPU, else accelerator, else CPU */
static gchar *
auto_device_name (void)
{
  gchar *name = device_name_of_type (CL_DEVICE_TYPE_GPU);

  if (!name)
    name = device_name_of_type (CL_DEVICE_TYPE_ACCELERATOR);
  if (!name)
    name = device_name_of_type (CL_DEVICE_TYPE_CPU);
  return name;
}

/* Runs `videotestsrc ! GRAY8 ! clhistogram device=DEVICE ! fakesink` for one
 * frame. Returns the error message posted (NULL on success); *device_name
 * receives the element's device-name while it ran. */
static GError *
run_with_device (const gchar * device, gchar ** device_name, gchar ** debug)
{
  GstElement *pipeline, *filter;
  GstMessage *msg;
  GError *error = NULL;
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=64,height=48 ! clhistogram name=f "
      "device=\"%s\" ! fakesink", device);

  pipeline = gst_parse_launch (desc, &error);
  g_free (desc);
  fail_unless (pipeline != NULL && error == NULL);
  filter = gst_bin_get_by_name (GST_BIN (pipeline), "f");

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      BUS_TIMEOUT, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "pipeline neither ended nor failed");
  if (device_name)
    g_object_get (filter, "device-name", device_name, NULL);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &error, debug);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
  return error;
}

GST_START_TEST (test_device_selectors)
{
  gchar *first_name = device_name_of_type (CL_DEVICE_TYPE_ALL);
  gchar *sub = g_ascii_strdown (first_name, MIN (strlen (first_name), 6));
  struct
  {
    const gchar *selector;
    gchar *expected;
  } cases[] = {
    {"auto", auto_device_name ()},
    {"", auto_device_name ()},
    {"cpu", device_name_of_type (CL_DEVICE_TYPE_CPU)},
    {"0:0", g_strdup (first_name)},
    /* platform 0's first device comes first in the search order */
    {sub, g_strdup (first_name)},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *name = NULL;
    GError *error;

    if (!cases[i].expected)     /* e.g. no CPU device on this machine */
      continue;
    error = run_with_device (cases[i].selector, &name, NULL);
    fail_unless (error == NULL, "device \"%s\": %s", cases[i].selector,
        error ? error->message : "");
    fail_unless_equals_string (name, cases[i].expected);
    g_free (name);
    g_free (cases[i].expected);
  }
  g_free (sub);
  g_free (first_name);
}
GST_END_TEST;

static void
assert_not_found (GError * error, const gchar * needle)
{
  fail_unless (error != NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "wrong error: %s", error->message);
  fail_unless (strstr (error->message, needle) != NULL,
      "\"%s\" not in \"%s\"", needle, error->message);
  fail_unless (strstr (error->message, "clinfo") != NULL);
  g_error_free (error);
}

GST_START_TEST (test_bad_selector_is_not_found)
{
  assert_not_found (run_with_device ("no-such-device", NULL, NULL),
      "valid: auto, gpu, cpu");
  assert_not_found (run_with_device ("7:3", NULL, NULL), "\"7:3\"");
}
GST_END_TEST;

/* Alternatives: the first selector that matches wins */
GST_START_TEST (test_device_fallback)
{
  gchar *first_name = device_name_of_type (CL_DEVICE_TYPE_ALL);
  gchar *cpu_name = device_name_of_type (CL_DEVICE_TYPE_CPU);
  gchar *name = NULL;
  GError *error;

  error = run_with_device (" no-such-device , 0:0", &name, NULL);
  fail_unless (error == NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (name, first_name);
  g_free (name);
  if (cpu_name) {
    name = NULL;
    error = run_with_device ("no-such-device,cpu,0:0", &name, NULL);
    fail_unless (error == NULL, "%s", error ? error->message : "");
    fail_unless_equals_string (name, cpu_name);
    g_free (name);
  }
  assert_not_found (run_with_device ("no-such-device,7:3", NULL, NULL),
      "\"no-such-device,7:3\"");
  g_free (cpu_name);
  g_free (first_name);
}
GST_END_TEST;

/* With a driver present the error names the devices there are (and their
 * types), and does not send the user to install a CPU driver they have */
GST_START_TEST (test_device_error_lists_devices)
{
  gchar *first_name = device_name_of_type (CL_DEVICE_TYPE_ALL);
  gchar *gpu_name = device_name_of_type (CL_DEVICE_TYPE_GPU);
  const gchar *sel = gpu_name ? "no-such-device" : "gpu";
  GError *error = run_with_device (sel, NULL, NULL);

  fail_unless (error != NULL);
  fail_unless (strstr (error->message, first_name) != NULL, "%s",
      error->message);
  fail_unless (strstr (error->message, "Devices present: 0:0") != NULL, "%s",
      error->message);
  fail_unless (strstr (error->message, "\"gpu,cpu\"") != NULL, "%s",
      error->message);
  fail_if (strstr (error->message, "pocl-opencl-icd") != NULL, "%s",
      error->message);
  assert_not_found (error, sel);
  g_free (gpu_name);
  g_free (first_name);
}
GST_END_TEST;

GST_START_TEST (test_env_overrides_auto)
{
  gchar *name = NULL;
  GError *error;

  g_setenv ("GST_CL_DEVICE", "0:0", TRUE);
  error = run_with_device ("auto", &name, NULL);
  fail_unless (error == NULL);
  fail_unless (name != NULL);
  g_free (name);

  g_setenv ("GST_CL_DEVICE", "bogus-device", TRUE);
  assert_not_found (run_with_device ("auto", NULL, NULL), "bogus-device");
  /* an explicit selector wins over the variable */
  error = run_with_device ("cpu", NULL, NULL);
  fail_unless (error == NULL);
  g_unsetenv ("GST_CL_DEVICE");
}
GST_END_TEST;

static GstElement *
run_two_filter_pipeline (guint * n_have_context)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=GRAY8,width=32,height=32 ! clhistogram name=a ! "
      "clhistogram name=b ! fakesink", NULL);
  GstBus *bus = GST_ELEMENT_BUS (pipeline);
  gboolean done = FALSE;

  *n_have_context = 0;
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop (bus, BUS_TIMEOUT);
    fail_unless (msg != NULL);
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_HAVE_CONTEXT:{
        GstContext *context;
        gst_message_parse_have_context (msg, &context);
        if (!g_strcmp0 (gst_context_get_context_type (context),
                "gst.cl.context"))
          (*n_have_context)++;
        gst_context_unref (context);
        break;
      }
      case GST_MESSAGE_ERROR:
        fail ("pipeline error");
        break;
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  return pipeline;
}

GST_START_TEST (test_context_shared_in_pipeline)
{
  guint n_have = 0, n_have2 = 0;
  GstElement *p1 = run_two_filter_pipeline (&n_have);
  GstElement *p2 = run_two_filter_pipeline (&n_have2);
  GstElement *a = gst_bin_get_by_name (GST_BIN (p1), "a");
  GstElement *b = gst_bin_get_by_name (GST_BIN (p1), "b");
  GstElement *c = gst_bin_get_by_name (GST_BIN (p2), "a");
  GstObject *ca = test_element_cl_context (a), *cb = test_element_cl_context (b);
  GstObject *cc = test_element_cl_context (c);

  /* one context announced per pipeline, and one context per process */
  fail_unless_equals_int (n_have, 1);
  fail_unless_equals_int (n_have2, 1);
  fail_unless (ca != NULL && ca == cb);
  fail_unless (ca == cc);

  gst_object_unref (ca);
  gst_object_unref (cb);
  gst_object_unref (cc);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (c);
  gst_element_set_state (p1, GST_STATE_NULL);
  gst_element_set_state (p2, GST_STATE_NULL);
  gst_object_unref (p1);
  gst_object_unref (p2);
}
GST_END_TEST;

/* An application answering NEED_CONTEXT with its own cl_context */
static GstBusSyncReply
give_app_context (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  const gchar *type;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      !g_strcmp0 (type, "gst.cl.context"))
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), user_data);
  return GST_BUS_PASS;
}

GST_START_TEST (test_application_context)
{
  cl_context app_ctx;
  GstContext *context = test_app_cl_context_new ((gpointer *) & app_ctx);
  GstElement *pipeline, *f;
  GstMessage *msg;
  GstQuery *query;
  GstContext *answer = NULL;
  guint64 handle = 0;

  pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=16,height=16 ! clhistogram name=f ! "
      "fakesink", NULL);
  gst_bus_set_sync_handler (GST_ELEMENT_BUS (pipeline), give_app_context,
      context, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      BUS_TIMEOUT, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);

  /* the element runs on the application's OpenCL context */
  f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  query = gst_query_new_context ("gst.cl.context");
  fail_unless (gst_element_query (f, query));
  gst_query_parse_context (query, &answer);
  fail_unless (gst_structure_get_uint64 (gst_context_get_structure (answer),
          "cl-context", &handle));
  fail_unless (handle == (guint64) (guintptr) app_ctx);
  gst_query_unref (query);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (f);
  gst_object_unref (pipeline);
  gst_context_unref (context);
  clReleaseContext (app_ctx);
}
GST_END_TEST;

GST_START_TEST (test_held_context_not_replaced)
{
  GstElement *f = gst_element_factory_make ("clhistogram", NULL);
  GstContext *by_device = gst_context_new ("gst.cl.context", TRUE);
  GstContext *other;
  GstObject *first, *after;
  cl_context app_ctx;

  gst_structure_set (gst_context_writable_structure (by_device),
      "device", G_TYPE_STRING, "cpu", NULL);
  gst_element_set_context (f, by_device);
  first = test_element_cl_context (f);
  fail_unless (first != NULL);

  /* an application context would make a distinct GstClContext: it must not
   * replace the one already held */
  other = test_app_cl_context_new ((gpointer *) & app_ctx);
  gst_element_set_context (f, other);
  after = test_element_cl_context (f);
  fail_unless (after == first);

  gst_object_unref (first);
  gst_object_unref (after);
  gst_context_unref (by_device);
  gst_context_unref (other);
  gst_object_unref (f);
  clReleaseContext (app_ctx);
}
GST_END_TEST;

/* Upstream is offered our pool *and* its allocator first (GstBaseSrc and
 * GstBaseTransform configure pools with the query's first allocator), with
 * the device's base-address alignment, so frames reach kernels in place.
 * A transforming element: in passthrough (clhistogram) the query goes to
 * downstream untouched (clallocation.c). */
GST_START_TEST (test_allocation_proposed)
{
  GstElement *f = gst_element_factory_make ("clconvolve", NULL);
  GstCaps *caps = test_caps_new (GST_VIDEO_FORMAT_GRAY8, 64, 48);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstPad *sink = gst_element_get_static_pad (f, "sink");
  GstAllocationParams params;
  GstBufferPool *pool = NULL;

  gst_util_set_object_arg (G_OBJECT (f), "preset", "box");
  fail_unless (gst_element_set_state (f, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_pad_send_event (sink, gst_event_new_stream_start ("s"));
  gst_pad_send_event (sink, gst_event_new_caps (caps));
  fail_unless (gst_pad_query (sink, query));
  fail_unless (gst_query_get_n_allocation_pools (query) >= 1);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  fail_unless (gst_query_get_n_allocation_params (query) >= 1);
  gst_query_parse_nth_allocation_param (query, 0, NULL, &params);
  /* PoCL asks for 128-byte aligned host pointers */
  fail_unless (params.align >= 127, "align %" G_GSIZE_FORMAT, params.align);

  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_object_unref (sink);
  gst_element_set_state (f, GST_STATE_NULL);
  gst_object_unref (f);
}
GST_END_TEST;

/* Output buffers come from our aligned pool when downstream offers none,
 * video (clconvolve) and integral images (clintegral) alike */
GST_START_TEST (test_output_buffers_aligned)
{
  const gchar *filters[] = { "clconvolve preset=box", "clintegral" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (filters); i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=2 ! "
        "video/x-raw,format=GRAY8,width=640,height=480 ! %s ! "
        "appsink name=out", filters[i]);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
    GstSample *sample;
    GstMapInfo map;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    g_signal_emit_by_name (out, "pull-sample", &sample);
    fail_unless (sample != NULL, "%s gave no output", filters[i]);
    fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
            GST_MAP_READ));
    fail_unless (((guintptr) map.data) % 128 == 0, "%s output at %p",
        filters[i], map.data);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (out);
    gst_object_unref (pipeline);
    g_free (desc);
  }
}
GST_END_TEST;

/* Run by the `clcontext-no-device` test (GST_CL_TEST_NO_DEVICE=1) with the
 * ICD loader pointed at a folder without drivers. */
GST_START_TEST (test_no_device)
{
  GstElementFactory *factory;
  gchar *debug = NULL;
  GError *error;

  /* the plugin still loads and lists its elements */
  factory = gst_element_factory_find ("clhistogram");
  fail_unless (factory != NULL);
  gst_object_unref (factory);
  factory = gst_element_factory_find ("clconvolve");
  fail_unless (factory != NULL);
  gst_object_unref (factory);
#if GST_CHECK_VERSION (1, 24, 0)
  /* and says why in its status, which gst-inspect-1.0 shows */
  {
    GstPlugin *plugin = gst_plugin_load_by_name ("clfilters");
    gchar **warnings;

    fail_unless (plugin != NULL);
    warnings = gst_plugin_get_status_warnings (plugin);
    fail_unless (warnings && warnings[0] &&
        strstr (warnings[0], "pocl-opencl-icd") != NULL);
    g_strfreev (warnings);
    gst_object_unref (plugin);
  }
#endif

  error = run_with_device ("auto", NULL, &debug);
  fail_unless (error != NULL);
  fail_unless (strstr (error->message, "pocl-opencl-icd") != NULL);
  assert_not_found (error, "No OpenCL device found");
  g_free (debug);
}
GST_END_TEST;

/* ---- threads ---- */

/* path of this test binary, for the fresh processes it starts */
static gchar *self_path;

typedef struct
{
  GMutex lock;
  GCond cond;
  guint waiting;                /* threads still to arrive */
} StartGate;

static void
gate_pass (StartGate * gate)
{
  g_mutex_lock (&gate->lock);
  if (--gate->waiting == 0)
    g_cond_broadcast (&gate->cond);
  while (gate->waiting > 0)
    g_cond_wait (&gate->cond, &gate->lock);
  g_mutex_unlock (&gate->lock);
}

typedef struct
{
  GstElement *pipeline;
  StartGate *gate;
  gboolean ok;
} FirstUse;

static gpointer
first_use_thread (gpointer data)
{
  FirstUse *run = data;
  GstMessage *msg;

  gate_pass (run->gate);
  gst_element_set_state (run->pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (run->pipeline),
      BUS_TIMEOUT, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  run->ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (run->pipeline, GST_STATE_NULL);
  return NULL;
}

/* The child process of test_concurrent_first_use: @n pipelines set to
 * PLAYING at the same moment, as the process's first OpenCL use (nothing
 * here touches OpenCL before). Exits 0 when every one reached EOS. */
static int
first_use_child (guint n)
{
  StartGate gate = { .waiting = n };
  FirstUse runs[16];
  GThread *threads[16];
  guint i, failed = 0;

  gst_init (NULL, NULL);
  n = CLAMP (n, 1, G_N_ELEMENTS (runs));
  gate.waiting = n;
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  for (i = 0; i < n; i++) {
    runs[i].pipeline = gst_parse_launch ("videotestsrc num-buffers=5 ! "
        "video/x-raw,width=64,height=48 ! clhistogram ! fakesink", NULL);
    runs[i].gate = &gate;
    runs[i].ok = FALSE;
  }
  for (i = 0; i < n; i++)
    threads[i] = g_thread_new ("first-use", first_use_thread, &runs[i]);
  for (i = 0; i < n; i++) {
    g_thread_join (threads[i]);
    failed += !runs[i].ok;
    gst_object_unref (runs[i].pipeline);
  }
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);
  return failed ? 1 : 0;
}

/* Pipelines starting together in a fresh process used to crash inside the
 * driver: device enumeration raced with context creation */
GST_START_TEST (test_concurrent_first_use)
{
  const guint n_pipelines = 4, n_runs = 20;
  guint i;

  for (i = 0; i < n_runs; i++) {
    gchar *argv[] = { self_path, (gchar *) "--first-use", NULL, NULL };
    gchar *err_text = NULL;
    GError *error = NULL;
    gint status = 0;

    argv[2] = g_strdup_printf ("%u", n_pipelines);
    fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
            NULL, NULL, NULL, &err_text, &status, &error), "spawn: %s",
        error ? error->message : "");
    fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0,
        "run %u of %u: %u pipelines starting together %s (status 0x%x):\n%s",
        i + 1, n_runs, n_pipelines, WIFSIGNALED (status) ? "crashed" :
        "failed", status, err_text);
    g_free (argv[2]);
    g_free (err_text);
  }
}
GST_END_TEST;

typedef struct
{
  GstElement *element;
  gchar *expected_name;
  gint stop;                    /* atomic */
  guint n_named, n_answered;
  gint n_reads;                 /* atomic */
} Reader;

/* device-name, context queries and set_context from another thread while
 * the element starts and stops */
static gpointer
reader_thread (gpointer data)
{
  Reader *r = data;
  GstContext *by_device = gst_context_new ("gst.cl.context", TRUE);

  gst_structure_set (gst_context_writable_structure (by_device),
      "device", G_TYPE_STRING, r->expected_name, NULL);
  while (!g_atomic_int_get (&r->stop)) {
    GstObject *ctx;
    gchar *name = NULL;

    g_object_get (r->element, "device-name", &name, NULL);
    if (name) {
      fail_unless_equals_string (name, r->expected_name);
      r->n_named++;
    }
    g_free (name);
    if ((ctx = test_element_cl_context (r->element))) {
      r->n_answered++;
      gst_object_unref (ctx);
    }
    if (g_atomic_int_add (&r->n_reads, 1) % 16 == 0)
      gst_element_set_context (r->element, by_device);
  }
  gst_context_unref (by_device);
  return NULL;
}

GST_START_TEST (test_context_reads_while_starting)
{
  Reader r = { gst_element_factory_make ("clhistogram", NULL),
    auto_device_name (), 0, 0, 0, 0
  };
  GThread *thread;
  guint i;

  fail_unless (r.expected_name != NULL);
  thread = g_thread_new ("reader", reader_thread, &r);
  for (i = 0; i < 100; i++) {
    gint seen;

    fail_unless (gst_element_set_state (r.element, GST_STATE_PAUSED) ==
        GST_STATE_CHANGE_SUCCESS);
    /* let the reader run while the element holds its context, however
     * busy the machine is */
    seen = g_atomic_int_get (&r.n_reads);
    while (g_atomic_int_get (&r.n_reads) < seen + 2)
      g_usleep (100);
    fail_unless (gst_element_set_state (r.element, GST_STATE_READY) ==
        GST_STATE_CHANGE_SUCCESS);
  }
  g_atomic_int_set (&r.stop, 1);
  g_thread_join (thread);
  GST_INFO ("%u reads, %u saw a device name, %u queries answered", r.n_reads,
      r.n_named, r.n_answered);
  /* the reads overlapped the element's running time */
  fail_unless (r.n_named > 0 && r.n_answered > 0, "%u reads, %u named, "
      "%u answered", r.n_reads, r.n_named, r.n_answered);

  gst_element_set_state (r.element, GST_STATE_NULL);
  gst_object_unref (r.element);
  g_free (r.expected_name);
}
GST_END_TEST;

/* ---- the on-disk program cache ---- */

/* clfilters' log lines, collected while a cache test runs */
static GMutex log_lock;
static GString *log_lines;      /* NULL when not collecting */
static gboolean log_function_added;

static void
collect_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (strcmp (gst_debug_category_get_name (category), "clfilters"))
    return;
  g_mutex_lock (&log_lock);
  if (log_lines)
    g_string_append_printf (log_lines, "%s\n",
        gst_debug_message_get (message));
  g_mutex_unlock (&log_lock);
}

/* TRUE when the log since the last call says @what; clears it */
static gboolean
log_says (const gchar * what)
{
  gboolean said;

  g_mutex_lock (&log_lock);
  said = strstr (log_lines->str, what) != NULL;
  g_string_truncate (log_lines, 0);
  g_mutex_unlock (&log_lock);
  return said;
}

/* One frame of @format through clhistogram; returns its message as text
 * (deterministic: same frame, same counts, same timestamps) */
static gchar *
histogram_of (const gchar * format)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=%s,width=67,height=45 ! clhistogram ! fakesink",
      format);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  gchar *text = NULL;
  gboolean done = FALSE;
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  GWeakRef gone;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop (GST_ELEMENT_BUS (pipeline),
        BUS_TIMEOUT);

    fail_unless (msg != NULL, "no EOS");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *error = NULL;

      gst_message_parse_error (msg, &error, NULL);
      fail ("%s: %s", format, error->message);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT &&
        gst_message_has_name (msg, "histogram")) {
      g_free (text);
      text = gst_structure_to_string (gst_message_get_structure (msg));
    }
    done = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  /* the context lives as long as the pipeline's GstContext, and GStreamer's
   * own threads may still hold the pipeline for a moment after our unref
   * (seen under load: the next pipeline then found this context alive, its
   * programs in memory, and read no cache file): wait for the pipeline to
   * go, so that each call starts on a context of its own */
  g_weak_ref_init (&gone, pipeline);
  gst_object_unref (pipeline);
  while ((pipeline = g_weak_ref_get (&gone))) {
    gst_object_unref (pipeline);
    fail_unless (g_get_monotonic_time () < deadline, "pipeline not freed");
    g_usleep (1000);
  }
  g_weak_ref_clear (&gone);
  g_free (desc);
  fail_unless (text != NULL, "no histogram message");
  return text;
}

/* Cache files under @dir (one device folder deep) */
static GPtrArray *
cache_files (const gchar * dir)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  GDir *top = g_dir_open (dir, 0, NULL);
  const gchar *sub, *name;

  while (top && (sub = g_dir_read_name (top))) {
    gchar *subdir = g_build_filename (dir, sub, NULL);
    GDir *d = g_dir_open (subdir, 0, NULL);

    while (d && (name = g_dir_read_name (d)))
      if (g_str_has_suffix (name, ".bin"))
        g_ptr_array_add (files, g_build_filename (subdir, name, NULL));
    if (d)
      g_dir_close (d);
    g_free (subdir);
  }
  if (top)
    g_dir_close (top);
  return files;
}

/* Whether @data is a whole cache file as the runtime writes it: magic,
 * version, key length, binary length, SHA-256, key, binary (little-endian) */
static gboolean
is_complete_cache_file (const gchar * data, gsize len)
{
  guint32 key_len;
  guint64 bin_len;

  if (len < 56 || memcmp (data, "GSTCLBIN", 8))
    return FALSE;
  memcpy (&key_len, data + 12, 4);
  memcpy (&bin_len, data + 16, 8);
  return bin_len > 0 &&
      (guint64) len == 56 + (guint64) GUINT32_FROM_LE (key_len) +
      GUINT64_FROM_LE (bin_len);
}

/* Waits until the worker has (re)written @path as a complete cache file
 * other than @old; returns its contents */
static gchar *
wait_for_cache_file (const gchar * path, const gchar * old, gsize old_len,
    gsize * len)
{
  gint64 end = g_get_monotonic_time () + 300 * G_TIME_SPAN_SECOND;
  gchar *data = NULL;

  while (g_get_monotonic_time () < end) {
    if (g_file_get_contents (path, &data, len, NULL)) {
      if (is_complete_cache_file (data, *len) && (*len != old_len ||
              memcmp (data, old, old_len)))
        return data;
      g_free (data);
    }
    g_usleep (50 * 1000);
  }
  fail ("%s was not (re)written", path);
  return NULL;
}

/* The first file in @now that is not in @before */
static gchar *
new_file (GPtrArray * before, GPtrArray * now)
{
  guint i, j;

  for (i = 0; i < now->len; i++) {
    gboolean seen = FALSE;

    for (j = 0; j < before->len && !seen; j++)
      seen = !strcmp (now->pdata[i], before->pdata[j]);
    if (!seen)
      return g_strdup (now->pdata[i]);
  }
  return NULL;
}

/* Truncated, half, empty, random and swapped (another program's valid
 * file) cache files: each is ignored, the program rebuilt with identical
 * results, and the file replaced by a good one, which the next run loads */
GST_START_TEST (test_bad_cache_files_rebuilt)
{
  gchar *dir = g_dir_make_tmp ("clcache-XXXXXX", NULL);
  GPtrArray *none, *one, *two;
  gchar *expected, *got, *path, *other_path, *good, *other;
  gsize good_len, other_len, i;
  guint32 seed = 7;
  enum
  { TRUNCATED, HALF, EMPTY, RANDOM, SWAPPED, N_BAD };
  static const gchar *names[] = { "truncated", "half", "empty", "random",
    "swapped"
  };
  gint bad;

  fail_unless (dir != NULL);
  g_setenv ("GST_CL_CACHE", "1", TRUE);
  g_setenv ("GST_CL_CACHE_DIR", dir, TRUE);
  /* each pipeline's own context: programs come from the files, not from a
   * context kept from the pipeline before */
  g_setenv ("GST_CL_CONTEXT_KEEP", "0", TRUE);
  g_mutex_lock (&log_lock);
  log_lines = g_string_new (NULL);
  g_mutex_unlock (&log_lock);
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("clfilters", GST_LEVEL_INFO);
  /* added once and never removed: GStreamer leaks a removed entry */
  if (!log_function_added)
    gst_debug_add_log_function (collect_log, NULL, NULL);
  log_function_added = TRUE;

  /* built from source; the worker writes the file */
  none = cache_files (dir);
  expected = histogram_of ("GRAY8");
  fail_unless (g_file_test (dir, G_FILE_TEST_IS_DIR));
  path = NULL;
  while (!path) {
    one = cache_files (dir);
    path = new_file (none, one);
    g_ptr_array_unref (one);
    if (!path)
      g_usleep (50 * 1000);
  }
  good = wait_for_cache_file (path, NULL, 0, &good_len);
  /* another program's file, for the swap */
  one = cache_files (dir);
  g_free (histogram_of ("RGBx"));
  other_path = NULL;
  while (!other_path) {
    two = cache_files (dir);
    other_path = new_file (one, two);
    g_ptr_array_unref (two);
    if (!other_path)
      g_usleep (50 * 1000);
  }
  other = wait_for_cache_file (other_path, NULL, 0, &other_len);

  /* a good file is loaded, not rebuilt */
  log_says ("");
  got = histogram_of ("GRAY8");
  fail_unless_equals_string (got, expected);
  fail_unless (log_says ("loaded program binary"), "good file not loaded");
  g_free (got);

  for (bad = 0; bad < N_BAD; bad++) {
    gchar *data = NULL, *rewritten;
    gsize len = 0, new_len;

    switch (bad) {
      case TRUNCATED:
        len = good_len - 100;
        data = g_memdup2 (good, len);
        break;
      case HALF:
        len = good_len / 2;
        data = g_memdup2 (good, len);
        break;
      case EMPTY:
        data = g_strdup ("");
        break;
      case RANDOM:
        len = good_len;
        data = g_malloc (len);
        for (i = 0; i < len; i++)
          data[i] = test_rand (&seed) & 0xff;
        break;
      case SWAPPED:
        len = other_len;
        data = g_memdup2 (other, len);
        break;
    }
    fail_unless (g_file_set_contents (path, data, len, NULL));

    got = histogram_of ("GRAY8");
    fail_unless_equals_string (got, expected);
    fail_unless (log_says ("ignoring cache file"), "%s file not ignored",
        names[bad]);
    g_free (got);

    /* replaced by a good file, which the next process would load */
    rewritten = wait_for_cache_file (path, data, len, &new_len);
    got = histogram_of ("GRAY8");
    fail_unless_equals_string (got, expected);
    fail_unless (log_says ("loaded program binary"), "%s file not replaced "
        "by a loadable one", names[bad]);
    g_free (got);
    g_free (rewritten);
    g_free (data);
  }

  gst_debug_unset_threshold_for_name ("clfilters");
  g_mutex_lock (&log_lock);
  g_string_free (log_lines, TRUE);
  log_lines = NULL;
  g_mutex_unlock (&log_lock);
  g_unsetenv ("GST_CL_CACHE");
  g_unsetenv ("GST_CL_CACHE_DIR");
  g_unsetenv ("GST_CL_CONTEXT_KEEP");
  g_ptr_array_unref (none);
  g_ptr_array_unref (one);
  g_free (expected);
  g_free (good);
  g_free (other);
  g_free (path);
  g_free (other_path);
  g_free (dir);
}
GST_END_TEST;

/* a user event and the status another thread gives it */
typedef struct
{
  cl_event event;
  cl_int status;
} LaterStatus;

static gpointer
set_status_later (gpointer data)
{
  LaterStatus *later = data;

  g_usleep (20 * 1000);
  fail_unless_equals_int (clSetUserEventStatus (later->event,
          later->status), CL_SUCCESS);
  return NULL;
}

/* A marker behind a user event that another thread sets 20 ms later,
 * waited for as commands on @bytes; the waiter's result, with the time it
 * took in *took_us */
static cl_int
wait_for_marker (GstClWaiter * waiter, cl_context ctx, cl_command_queue queue,
    cl_int status, gsize bytes, gint64 * took_us)
{
  LaterStatus later = { NULL, status };
  cl_event marker = NULL;
  GThread *thread;
  gint64 start;
  cl_int err;

  later.event = clCreateUserEvent (ctx, &err);
  fail_unless_equals_int (err, CL_SUCCESS);
  fail_unless_equals_int (clEnqueueMarkerWithWaitList (queue, 1, &later.event,
          &marker), CL_SUCCESS);
  start = g_get_monotonic_time ();
  thread = g_thread_new ("later", set_status_later, &later);
  err = gst_cl_wait (waiter, queue, marker, bytes);
  *took_us = g_get_monotonic_time () - start;
  g_thread_join (thread);
  clReleaseEvent (marker);
  clReleaseEvent (later.event);
  return err;
}

/* gst_cl_wait: what the elements wait on per frame. An event that is
 * complete; events that complete 20 ms later in another thread, waited for
 * as a large frame (sleeps), a small one (polls, the poll runs out, it
 * sleeps) and a small one after that (sleeps); commands that fail. */
GST_START_TEST (test_wait)
{
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue;
  cl_event done;
  GstClWaiter waiter = { 0 };
  gint64 took_us;
  cl_int err;

  fail_unless_equals_int (clGetPlatformIDs (1, &platform, NULL), CL_SUCCESS);
  fail_unless_equals_int (clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, 1,
          &device, NULL), CL_SUCCESS);
  ctx = clCreateContext (NULL, 1, &device, NULL, NULL, &err);
  fail_unless_equals_int (err, CL_SUCCESS);
  queue = clCreateCommandQueue (ctx, device, 0, &err);
  fail_unless_equals_int (err, CL_SUCCESS);

  done = clCreateUserEvent (ctx, &err);
  fail_unless_equals_int (clSetUserEventStatus (done, CL_COMPLETE),
      CL_SUCCESS);
  fail_unless_equals_int (gst_cl_wait (&waiter, queue, done, 0), CL_SUCCESS);
  clReleaseEvent (done);

  fail_unless_equals_int (waiter.skip, 0);

  /* a large frame's wait sleeps at once: no poll ran out */
  fail_unless_equals_int (wait_for_marker (&waiter, ctx, queue, CL_COMPLETE,
          GST_CL_WAIT_POLL_BYTES + 1, &took_us), CL_SUCCESS);
  fail_unless (took_us >= 20000, "returned after %" G_GINT64_FORMAT " us",
      took_us);
  fail_unless_equals_int (waiter.skip, 0);
  /* a small one's is polled, the poll runs out, then it sleeps */
  fail_unless_equals_int (wait_for_marker (&waiter, ctx, queue, CL_COMPLETE,
          GST_CL_WAIT_POLL_BYTES, &took_us), CL_SUCCESS);
  fail_unless (took_us >= 20000);
  fail_unless_equals_int (waiter.skip, GST_CL_WAIT_SKIP);
  /* and the next small one sleeps at once */
  fail_unless_equals_int (wait_for_marker (&waiter, ctx, queue, CL_COMPLETE,
          0, &took_us), CL_SUCCESS);
  fail_unless (took_us >= 20000);
  fail_unless_equals_int (waiter.skip, GST_CL_WAIT_SKIP - 1);
  /* a failed command's error, whichever way it is waited for */
  fail_unless (wait_for_marker (&waiter, ctx, queue, CL_OUT_OF_RESOURCES, 0,
          &took_us) < 0);
  waiter.skip = 0;
  fail_unless (wait_for_marker (&waiter, ctx, queue, CL_OUT_OF_RESOURCES, 0,
          &took_us) < 0);
  fail_unless (wait_for_marker (&waiter, ctx, queue, CL_OUT_OF_RESOURCES,
          GST_CL_WAIT_POLL_BYTES + 1, &took_us) < 0);

  clReleaseCommandQueue (queue);
  clReleaseContext (ctx);
}
GST_END_TEST;

static Suite *
clcontext_suite (gboolean no_device)
{
  Suite *s = suite_create ("clcontext");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  if (no_device) {
    tcase_add_test (tc, test_no_device);
    return s;
  }
  tcase_add_test (tc, test_device_selectors);
  tcase_add_test (tc, test_bad_selector_is_not_found);
  tcase_add_test (tc, test_env_overrides_auto);
  tcase_add_test (tc, test_context_shared_in_pipeline);
  tcase_add_test (tc, test_application_context);
  tcase_add_test (tc, test_held_context_not_replaced);
  tcase_add_test (tc, test_allocation_proposed);
  tcase_add_test (tc, test_output_buffers_aligned);
  tcase_add_test (tc, test_concurrent_first_use);
  tcase_add_test (tc, test_context_reads_while_starting);
  tcase_add_test (tc, test_bad_cache_files_rebuilt);
  tcase_add_test (tc, test_device_fallback);
  tcase_add_test (tc, test_device_error_lists_devices);
  tcase_add_test (tc, test_wait);
  return s;
}

int
main (int argc, char **argv)
{
  /* GST_CL_TEST_NO_DEVICE=1: the run with the drivers hidden */
  gboolean no_device = g_getenv ("GST_CL_TEST_NO_DEVICE") != NULL;
  gint ret;

  if (argc == 3 && !strcmp (argv[1], "--first-use"))
    return first_use_child (atoi (argv[2]));

  self_path = g_canonicalize_filename (argv[0], NULL);
  gst_check_init (&argc, &argv);
  if (no_device && test_have_cl_device ()) {
    g_print ("clcontext: skipped, OCL_ICD_VENDORS did not hide the OpenCL "
        "devices\n");
    return TEST_EXIT_SKIP;
  }
  if (!no_device)
    test_skip_without_cl_device ("clcontext");
  ret = gst_check_run_suite (clcontext_suite (no_device), "clcontext",
      __FILE__);
  g_free (self_path);
  return ret;
}
