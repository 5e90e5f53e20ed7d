/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test frames for the gst-check tests: random pixels, odd sizes, padded
 * strides, aligned and misaligned memory, every format. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/check/gstharness.h>
#include <gst/check/gstcheck.h>

G_BEGIN_DECLS

typedef struct
{
  gint width, height;
} TestSize;

/* 1x1, 3x5, 641x479, 1921x1081; only the first two when GST_CL_TEST_QUICK
 * is set (the valgrind run) */
extern const TestSize test_sizes[];
extern guint n_test_sizes;

typedef enum
{
  TEST_LAYOUT_PACKED = 0,       /* default strides, 128-byte aligned memory */
  TEST_LAYOUT_PADDED = 1,       /* rows padded by a few bytes (odd pitch), video meta */
  TEST_LAYOUT_MISALIGNED = 2,   /* padded and memory starting 1 byte off alignment */
  TEST_LAYOUT_MULTI_MEMORY = 3, /* padded, each plane in its own GstMemory */
} TestLayout;

/* A frame of @format and size with random content from @seed. *@info (if
 * given) receives the layout actually used (strides/offsets of the meta).
 * Buffers always carry a GstVideoMeta. */
GstBuffer *test_frame_new (GstVideoFormat format, gint width, gint height,
    TestLayout layout, guint32 seed, GstVideoInfo * info);
/* same, every byte = @value (solid frame) */
GstBuffer *test_frame_new_filled (GstVideoFormat format, gint width,
    gint height, TestLayout layout, guint8 value, GstVideoInfo * info);

/* video/x-raw caps with framerate 30/1 */
GstCaps *test_caps_new (GstVideoFormat format, gint width, gint height);

/* TRUE when buffers @a and @b hold the same visible pixels (padding ignored) */
gboolean test_frames_equal (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info);

/* Deterministic random numbers for test data */
guint32 test_rand (guint32 * state);

/* A memory of @size bytes that ends right before an inaccessible page:
 * reading or writing one byte past it crashes the test (also outside
 * valgrind). Its data is 128-byte aligned when @size is a multiple of 128
 * (CPU devices then use it in place), else copied by the element. */
GstMemory *test_memory_new_guarded (gsize size);

/* Whether an OpenCL device is available: a platform with a device */
gboolean test_have_cl_device (void);

/* Whether an OpenCL CPU device is available (call it inside a test: it
 * loads the OpenCL platforms into this process) */
gboolean test_have_cl_cpu_device (void);

/* Whether the OpenCL device @element runs on (from its "gst.cl.context"
 * answer) is a CPU device; FALSE when it has no context */
gboolean test_element_on_cpu_device (GstElement * element);
/* The major version of PoCL when @element runs on a PoCL device, else 0 */
gint test_element_pocl_major (GstElement * element);

/* meson's and automake's exit status for a skipped test */
#define TEST_EXIT_SKIP 77
/* Without an OpenCL device: says so and exits with TEST_EXIT_SKIP, so a
 * machine without one never looks green. Call at the start of main(). */
void test_skip_without_cl_device (const gchar * suite);

/* Runs @suite in this process (no fork: PoCL does not survive fork() once
 * used, and counters see every case), with one started @keeper_factory
 * element alive throughout when not NULL: every case's elements then share
 * its OpenCL context and program cache (much faster under valgrind).
 * Returns main()'s exit status. */
gint test_run_suite_unforked (Suite * suite, const gchar * keeper_factory);

/* The GstClContext @element answers a "gst.cl.context" query with (a new
 * reference), NULL when it has none */
GstObject *test_element_cl_context (GstElement * element);

/* A "gst.cl.context" GstContext carrying an application's own cl_context
 * (made here on the first device, returned in @app_ctx for the caller to
 * release) */
GstContext *test_app_cl_context_new (gpointer * app_ctx);

/* Tears down a harness whose element posts on @bus, and drops the bus */
void test_free_harness (GstHarness * h, GstBus * bus);
/* The next "histogram" element message on @bus (a copy; NULL when none is
 * queued); an ERROR message on the way fails the test */
GstStructure *test_pop_histogram (GstBus * bus);

/* Sets *@seen (atomically, from any thread) to 1 whenever a debug line of
 * @category containing @text (both static strings) is logged, until the
 * next call replaces the watch; turns the debug log on and @category up to
 * INFO. The caller resets *@seen. (One log function for the whole
 * process, never removed: GStreamer leaks a removed entry.) */
void test_log_watch (const gchar * category, const gchar * text,
    gint * seen);

/* GObject refuses a value outside a property's GParamSpec with a warning
 * (GLib 2.74, Debian 12) or a critical (GLib 2.80, Ubuntu 24.04): either
 * passes, nothing fails */
#define ASSERT_PARAM_REFUSED(code) G_STMT_START { \
    _gst_check_expecting_log = TRUE; \
    _gst_check_raised_warning = FALSE; \
    _gst_check_raised_critical = FALSE; \
    code; \
    fail_unless (_gst_check_raised_warning || _gst_check_raised_critical, \
        "GObject did not refuse: " #code); \
    _gst_check_expecting_log = FALSE; \
  } G_STMT_END

/* the log levels GObject refuses such a value with, for log filters */
#define PARAM_REFUSED_LEVELS (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL)

G_END_DECLS
