/* The shared runtime: device selection, the shared context and GstContext
 * exchange, errors without a device, and the on-disk program cache. Uses
 * clhistogram on GRAY8 as the simplest OpenCL element. */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <CL/cl.h>
#include <string.h>

#include "testframes.h"

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

static GstObject *
element_cl_context (GstElement * element)
{
  GstQuery *query = gst_query_new_context ("gst.cl.context");
  GstContext *context = NULL;
  GstObject *ctx = NULL;

  if (gst_element_query (element, query)) {
    const GValue *v;

    gst_query_parse_context (query, &context);
    v = gst_structure_get_value (gst_context_get_structure (context),
        "context");
    fail_unless (v != NULL && G_VALUE_HOLDS_OBJECT (v));
    ctx = g_value_dup_object (v);
  }
  gst_query_unref (query);
  return ctx;
}

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
  GstObject *ca = element_cl_context (a), *cb = element_cl_context (b);
  GstObject *cc = element_cl_context (c);

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
  cl_platform_id platform;
  cl_device_id device;
  cl_context app_ctx;
  cl_int err;
  GstContext *context;
  GstElement *pipeline, *f;
  GstMessage *msg;
  GstQuery *query;
  GstContext *answer = NULL;
  guint64 handle = 0;

  fail_unless (clGetPlatformIDs (1, &platform, NULL) == CL_SUCCESS);
  fail_unless (clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, 1, &device,
          NULL) == CL_SUCCESS);
  app_ctx = clCreateContext (NULL, 1, &device, NULL, NULL, &err);
  fail_unless (err == CL_SUCCESS);

  context = gst_context_new ("gst.cl.context", TRUE);
  gst_structure_set (gst_context_writable_structure (context),
      "cl-context", G_TYPE_UINT64, (guint64) (guintptr) app_ctx,
      "cl-device", G_TYPE_UINT64, (guint64) (guintptr) device, NULL);

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
  GstContext *other = gst_context_new ("gst.cl.context", TRUE);
  GstObject *first, *after;
  cl_platform_id platform;
  cl_device_id device;
  cl_context app_ctx;
  cl_int err;

  gst_structure_set (gst_context_writable_structure (by_device),
      "device", G_TYPE_STRING, "cpu", NULL);
  gst_element_set_context (f, by_device);
  first = element_cl_context (f);
  fail_unless (first != NULL);

  /* an application context would make a distinct GstClContext: it must not
   * replace the one already held */
  fail_unless (clGetPlatformIDs (1, &platform, NULL) == CL_SUCCESS);
  fail_unless (clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, 1, &device,
          NULL) == CL_SUCCESS);
  app_ctx = clCreateContext (NULL, 1, &device, NULL, NULL, &err);
  fail_unless (err == CL_SUCCESS);
  gst_structure_set (gst_context_writable_structure (other),
      "cl-context", G_TYPE_UINT64, (guint64) (guintptr) app_ctx,
      "cl-device", G_TYPE_UINT64, (guint64) (guintptr) device, NULL);
  gst_element_set_context (f, other);
  after = element_cl_context (f);
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

/* Run by the `clcontext-no-device` test with the ICD loader pointed at a
 * folder without drivers; skipped when a device is present. */
GST_START_TEST (test_no_device)
{
  GstElementFactory *factory;
  gchar *debug = NULL;
  GError *error;

  if (test_have_cl_device ()) {
    GST_INFO ("skipped: an OpenCL device is present");
    return;
  }
  /* the plugin still loads and lists its elements */
  factory = gst_element_factory_find ("clhistogram");
  fail_unless (factory != NULL);
  gst_object_unref (factory);
  factory = gst_element_factory_find ("clconvolve");
  fail_unless (factory != NULL);
  gst_object_unref (factory);

  error = run_with_device ("auto", NULL, &debug);
  fail_unless (error != NULL);
  fail_unless (strstr (error->message, "pocl-opencl-icd") != NULL);
  assert_not_found (error, "No OpenCL device found");
  g_free (debug);
}
GST_END_TEST;

static Suite *
clcontext_suite (void)
{
  Suite *s = suite_create ("clcontext");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  if (test_have_cl_device ()) {
    tcase_add_test (tc, test_device_selectors);
    tcase_add_test (tc, test_bad_selector_is_not_found);
    tcase_add_test (tc, test_env_overrides_auto);
    tcase_add_test (tc, test_context_shared_in_pipeline);
    tcase_add_test (tc, test_application_context);
    tcase_add_test (tc, test_held_context_not_replaced);
    tcase_add_test (tc, test_allocation_proposed);
    tcase_add_test (tc, test_output_buffers_aligned);
  } else {
    tcase_add_test (tc, test_no_device);
  }
  return s;
}

GST_CHECK_MAIN (clcontext);
