/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "testframes.h"

#include <gst/check/gstcheck.h>

#include <CL/cl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

const TestSize test_sizes[] = { {1, 1}, {3, 5}, {641, 479}, {1921, 1081} };
guint n_test_sizes = G_N_ELEMENTS (test_sizes);

/* memcheck runs kernels ~50x slower: keep its run to the small sizes */
__attribute__((constructor))
     static void quick_sizes (void)
{
  if (g_getenv ("GST_CL_TEST_QUICK"))
    n_test_sizes = 2;
}

guint32
test_rand (guint32 * state)
{
  /* xorshift32: fast, deterministic, good enough for pixel data */
  guint32 x = *state ? *state : 0x9e3779b9u;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

static void
fill_random (guint8 * data, gsize size, guint32 seed)
{
  guint32 state = seed * 2654435761u + 1;
  gsize i;

  for (i = 0; i + 4 <= size; i += 4) {
    guint32 r = test_rand (&state);
    memcpy (data + i, &r, 4);
  }
  for (; i < size; i++)
    data[i] = test_rand (&state) & 0xff;
}

/* Pads every plane's stride by an odd number of bytes, keeping 2-byte
 * alignment for 16-bit formats, and recomputes offsets. */
static void
pad_strides (GstVideoInfo * info)
{
  gsize offset = 0;
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gint pad = (GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0) > 8) ? 6 : 3 + p;
    gint h;

    gst_video_format_info_component (info->finfo, p, comp);
    h = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    info->stride[p] += pad;
    info->offset[p] = offset;
    offset += (gsize) info->stride[p] * h;
  }
  info->size = offset;
}

static GstBuffer *
make_frame (GstVideoFormat format, gint width, gint height, TestLayout layout,
    GstVideoInfo * out_info)
{
  GstVideoInfo info;
  GstBuffer *buf;
  GstAllocationParams params;
  guint p;

  gst_video_info_set_format (&info, format, width, height);
  if (layout != TEST_LAYOUT_PACKED)
    pad_strides (&info);

  gst_allocation_params_init (&params);
  params.align = 127;

  if (layout == TEST_LAYOUT_MULTI_MEMORY) {
    buf = gst_buffer_new ();
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      gsize end = (p + 1 < GST_VIDEO_INFO_N_PLANES (&info)) ?
          info.offset[p + 1] : info.size;
      gst_buffer_append_memory (buf,
          gst_allocator_alloc (NULL, end - info.offset[p], &params));
    }
  } else if (layout == TEST_LAYOUT_MISALIGNED) {
    buf = gst_buffer_new_allocate (NULL, info.size + 1, &params);
    gst_buffer_resize (buf, 1, info.size);
  } else {
    buf = gst_buffer_new_allocate (NULL, info.size, &params);
  }

  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
      width, height, GST_VIDEO_INFO_N_PLANES (&info), info.offset, info.stride);
  if (out_info)
    *out_info = info;
  return buf;
}

GstBuffer *
test_frame_new (GstVideoFormat format, gint width, gint height,
    TestLayout layout, guint32 seed, GstVideoInfo * info)
{
  GstBuffer *buf = make_frame (format, width, height, layout, info);
  guint i;

  for (i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMapInfo map;
    GstMemory *mem = gst_buffer_peek_memory (buf, i);

    g_assert_true (gst_memory_map (mem, &map, GST_MAP_WRITE));
    fill_random (map.data, map.size, seed + i * 7919);
    gst_memory_unmap (mem, &map);
  }
  return buf;
}

GstBuffer *
test_frame_new_filled (GstVideoFormat format, gint width, gint height,
    TestLayout layout, guint8 value, GstVideoInfo * info)
{
  GstBuffer *buf = make_frame (format, width, height, layout, info);
  guint i;

  for (i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMapInfo map;
    GstMemory *mem = gst_buffer_peek_memory (buf, i);

    g_assert_true (gst_memory_map (mem, &map, GST_MAP_WRITE));
    memset (map.data, value, map.size);
    gst_memory_unmap (mem, &map);
  }
  return buf;
}

GstCaps *
test_caps_new (GstVideoFormat format, gint width, gint height)
{
  GstVideoInfo info;

  gst_video_info_set_format (&info, format, width, height);
  GST_VIDEO_INFO_FPS_N (&info) = 30;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  return gst_video_info_to_caps (&info);
}

gboolean
test_frames_equal (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info)
{
  GstVideoFrame fa, fb;
  gboolean equal = TRUE;
  guint p;

  g_assert_true (gst_video_frame_map (&fa, (GstVideoInfo *) info, a, GST_MAP_READ));
  g_assert_true (gst_video_frame_map (&fb, (GstVideoInfo *) info, b, GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa) && equal; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gint row, h, bytes;

    gst_video_format_info_component (info->finfo, p, comp);
    h = GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comp[0]);
    bytes = GST_VIDEO_FRAME_COMP_WIDTH (&fa, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comp[0]);
    if (GST_VIDEO_FORMAT_INFO_IS_YUV (info->finfo) &&
        GST_VIDEO_INFO_N_PLANES (info) == 1 && GST_VIDEO_INFO_N_COMPONENTS (info) == 3)
      bytes = GST_ROUND_UP_2 (GST_VIDEO_FRAME_WIDTH (&fa)) * 2;      /* YUY2/UYVY */
    for (row = 0; row < h && equal; row++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          (gsize) row * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          (gsize) row * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      equal = memcmp (ra, rb, bytes) == 0;
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return equal;
}

static gboolean
probe_cl_devices (void)
{
  cl_platform_id platforms[16];
  cl_uint n = 0, p;

  if (clGetPlatformIDs (G_N_ELEMENTS (platforms), platforms, &n) != CL_SUCCESS)
    return FALSE;
  for (p = 0; p < MIN (n, G_N_ELEMENTS (platforms)); p++) {
    cl_uint n_devices = 0;

    if (clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL,
            &n_devices) == CL_SUCCESS && n_devices > 0)
      return TRUE;
  }
  return FALSE;
}

/* Probed in a child process: enumerating devices starts drivers' threads
 * (PoCL's workers), which a forked gst-check case would not inherit, and
 * NVIDIA's driver does not survive fork() once used */
gboolean
test_have_cl_device (void)
{
  static gint have = -1;

  if (have < 0) {
    pid_t pid = fork ();
    gint status = 0;

    if (pid == 0)
      _exit (probe_cl_devices () ? 0 : 1);
    have = pid > 0 && waitpid (pid, &status, 0) == pid && WIFEXITED (status)
        && WEXITSTATUS (status) == 0;
  }
  return have;
}

gboolean
test_have_cl_cpu_device (void)
{
  cl_platform_id platforms[16];
  cl_uint n = 0, i, n_devices;

  if (clGetPlatformIDs (G_N_ELEMENTS (platforms), platforms, &n) != CL_SUCCESS)
    return FALSE;
  for (i = 0; i < MIN (n, G_N_ELEMENTS (platforms)); i++)
    if (clGetDeviceIDs (platforms[i], CL_DEVICE_TYPE_CPU, 0, NULL,
            &n_devices) == CL_SUCCESS && n_devices > 0)
      return TRUE;
  return FALSE;
}

void
test_skip_without_cl_device (const gchar * suite)
{
  if (test_have_cl_device ())
    return;
  g_print ("%s: skipped, no OpenCL device (`clinfo -l` lists none)\n", suite);
  exit (TEST_EXIT_SKIP);
}

gint
test_run_suite_unforked (Suite * suite, const gchar * keeper_factory)
{
  GstElement *keeper = NULL;
  SRunner *sr;
  gint failed;

  if (keeper_factory) {
    keeper = gst_element_factory_make (keeper_factory, NULL);
    g_assert_true (keeper != NULL);
    g_assert_true (gst_element_set_state (keeper, GST_STATE_PAUSED) ==
        GST_STATE_CHANGE_SUCCESS);
  }
  sr = srunner_create (suite);
  srunner_set_fork_status (sr, CK_NOFORK);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  if (keeper) {
    gst_element_set_state (keeper, GST_STATE_NULL);
    gst_object_unref (keeper);
  }
  return failed != 0;
}

GstObject *
test_element_cl_context (GstElement * element)
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

/* The cl_device_id @element runs on, from its "gst.cl.context" answer;
 * NULL when it has no context */
static cl_device_id
element_cl_device (GstElement * element)
{
  GstQuery *query = gst_query_new_context ("gst.cl.context");
  guint64 device = 0;

  if (gst_element_query (element, query)) {
    GstContext *context;

    gst_query_parse_context (query, &context);
    gst_structure_get_uint64 (gst_context_get_structure (context),
        "cl-device", &device);
  }
  gst_query_unref (query);
  return (cl_device_id) (guintptr) device;
}

gboolean
test_element_on_cpu_device (GstElement * element)
{
  cl_device_id device = element_cl_device (element);
  cl_device_type type = 0;

  if (device)
    clGetDeviceInfo (device, CL_DEVICE_TYPE, sizeof (type), &type, NULL);
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

gint
test_element_pocl_major (GstElement * element)
{
  cl_device_id device = element_cl_device (element);
  cl_platform_id platform = NULL;
  gchar version[256] = "";
  const gchar *pocl;

  /* PoCL's platform version reads "OpenCL 3.0 PoCL 5.0+debian  Linux, ..." */
  if (!device || clGetDeviceInfo (device, CL_DEVICE_PLATFORM,
          sizeof (platform), &platform, NULL) != CL_SUCCESS ||
      clGetPlatformInfo (platform, CL_PLATFORM_VERSION, sizeof (version) - 1,
          version, NULL) != CL_SUCCESS)
    return 0;
  pocl = strstr (version, " PoCL ");
  return pocl ? (gint) g_ascii_strtoll (pocl + 6, NULL, 10) : 0;
}

GstContext *
test_app_cl_context_new (gpointer * app_ctx)
{
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  GstContext *context;
  cl_int err;

  fail_unless (clGetPlatformIDs (1, &platform, NULL) == CL_SUCCESS);
  fail_unless (clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, 1, &device,
          NULL) == CL_SUCCESS);
  ctx = clCreateContext (NULL, 1, &device, NULL, NULL, &err);
  fail_unless (err == CL_SUCCESS);
  context = gst_context_new ("gst.cl.context", TRUE);
  gst_structure_set (gst_context_writable_structure (context),
      "cl-context", G_TYPE_UINT64, (guint64) (guintptr) ctx,
      "cl-device", G_TYPE_UINT64, (guint64) (guintptr) device, NULL);
  *app_ctx = ctx;
  return context;
}

typedef struct
{
  gpointer base;
  gsize length;
} GuardedRegion;

static void
guarded_region_free (gpointer data)
{
  GuardedRegion *r = data;

  munmap (r->base, r->length);
  g_free (r);
}

GstMemory *
test_memory_new_guarded (gsize size)
{
  gsize page = sysconf (_SC_PAGESIZE);
  gsize pages = MAX ((size + page - 1) / page, 1);
  GuardedRegion *r = g_new (GuardedRegion, 1);
  guint8 *base, *guard;

  r->length = (pages + 1) * page;
  base = mmap (NULL, r->length, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true (base != MAP_FAILED);
  guard = base + pages * page;
  g_assert_cmpint (mprotect (guard, page, PROT_NONE), ==, 0);
  r->base = base;
  return gst_memory_new_wrapped (0, guard - size, size, 0, size, r,
      guarded_region_free);
}

void
test_free_harness (GstHarness * h, GstBus * bus)
{
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

GstStructure *
test_pop_histogram (GstBus * bus)
{
  GstMessage *m;
  GstStructure *s = NULL;

  while (!s && (m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT |
              GST_MESSAGE_ERROR))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *err;
      gchar *dbg;

      gst_message_parse_error (m, &err, &dbg);
      fail ("unexpected error: %s (%s)", err->message, dbg);
    }
    if (gst_structure_has_name (gst_message_get_structure (m), "histogram"))
      s = gst_structure_copy (gst_message_get_structure (m));
    gst_message_unref (m);
  }
  return s;
}

/* ---- watching the debug log ---- */

static GMutex log_watch_lock;
static const gchar *log_watch_category, *log_watch_text;
static gint *log_watch_seen;

static void
watch_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  g_mutex_lock (&log_watch_lock);
  if (log_watch_seen && g_str_equal (gst_debug_category_get_name (category),
          log_watch_category) &&
      strstr (gst_debug_message_get (message), log_watch_text))
    g_atomic_int_set (log_watch_seen, 1);
  g_mutex_unlock (&log_watch_lock);
}

void
test_log_watch (const gchar * category, const gchar * text, gint * seen)
{
  static gboolean added = FALSE;

  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name (category, GST_LEVEL_INFO);
  g_mutex_lock (&log_watch_lock);
  log_watch_category = category;
  log_watch_text = text;
  log_watch_seen = seen;
  g_mutex_unlock (&log_watch_lock);
  if (!added)
    gst_debug_add_log_function (watch_log, NULL, NULL);
  added = TRUE;
}
