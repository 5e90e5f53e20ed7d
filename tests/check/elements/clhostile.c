/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hostile buffers on every element: GstVideoMetas with negative, huge (x8)
 * and too-small strides, offsets past the end, odd 16-bit strides, metas
 * that contradict the caps, planes in separate memories whose last one is
 * cut short, buffers smaller than the caps say, and caps whose frames the
 * kernels cannot address. Each gives the correct result or one clear
 * element error. Every memory ends right before an inaccessible page, so a
 * read or write past it crashes the test, with or without valgrind. Valid
 * layouts (exact-fit memories whose last row has no padding) must give the
 * same result as the plain packed frame with the same pixels.
 *
 * Small frames, so all but test_hostile_1080p (large frames with bad
 * strides fail cleanly too) run under valgrind in CI. */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "testframes.h"

typedef enum
{
  EL_HISTOGRAM,
  EL_CONVOLVE,
  EL_INTEGRAL,
  N_KINDS,
} Kind;

static const gchar *kind_names[] = { "clhistogram", "clconvolve",
  "clintegral"
};

/* one element in a harness, its bus, and the caps' frame layout */
typedef struct
{
  Kind kind;
  GstHarness *h;
  GstBus *bus;
  GstVideoInfo info;
} Rig;

static void
rig_init (Rig * r, Kind kind, GstVideoFormat format, gint width, gint height)
{
  GstElement *el = gst_element_factory_make (kind_names[kind], NULL);

  fail_unless (el != NULL);
  if (kind == EL_CONVOLVE)
    gst_util_set_object_arg (G_OBJECT (el), "preset", "box");
  r->kind = kind;
  r->bus = gst_bus_new ();
  gst_element_set_bus (el, r->bus);
  r->h = gst_harness_new_with_element (el, "sink", "src");
  gst_object_unref (el);
  if (kind == EL_INTEGRAL)
    gst_harness_set_sink_caps_str (r->h,
        "video/x-integral-image,format=U32,planes=sum");
  gst_harness_set_src_caps (r->h, test_caps_new (format, width, height));
  gst_video_info_set_format (&r->info, format, width, height);
}

static void
rig_clear (Rig * r)
{
  gst_harness_teardown (r->h);
  gst_bus_set_flushing (r->bus, TRUE);
  gst_object_unref (r->bus);
}

/* The one error posted since the last call, or NULL; fails on a second.
 * Other messages stay on the bus. */
static GError *
pop_error (Rig * r, gchar ** debug)
{
  GError *err = NULL;
  GList *keep = NULL, *l;
  GstMessage *m;

  while ((m = gst_bus_pop (r->bus))) {
    if (GST_MESSAGE_TYPE (m) != GST_MESSAGE_ERROR) {
      keep = g_list_append (keep, m);
      continue;
    }
    if (err) {
      GError *second;
      gst_message_parse_error (m, &second, NULL);
      fail ("two errors: \"%s\" then \"%s\"", err->message,
          second->message);
    }
    gst_message_parse_error (m, &err, debug);
    gst_message_unref (m);
  }
  for (l = keep; l; l = l->next) {
    gst_bus_post (r->bus, l->data);
  }
  g_list_free (keep);
  return err;
}

/* Visible rows of every plane of @buf (laid out as its meta says) */
static GBytes *
visible_bytes (GstBuffer * buf, const GstVideoInfo * info)
{
  GByteArray *a = g_byte_array_new ();
  GstVideoFrame f;
  guint p;

  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS], y;

    gst_video_format_info_component (info->finfo, p, comp);
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, comp[0]); y++)
      g_byte_array_append (a, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, p) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p),
          GST_VIDEO_FRAME_COMP_WIDTH (&f, comp[0]) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&f, comp[0]));
  }
  gst_video_frame_unmap (&f);
  return g_byte_array_free_to_bytes (a);
}

/* The histogram message's counts, serialized */
static GBytes *
histogram_counts (Rig * r)
{
  GstMessage *m;
  GBytes *counts = NULL;

  while (!counts && (m = gst_bus_pop_filtered (r->bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    if (gst_structure_has_name (s, "histogram")) {
      gchar *str = gst_value_serialize (gst_structure_get_value (s,
              "counts"));
      counts = g_bytes_new_take (str, strlen (str));
    }
    gst_message_unref (m);
  }
  fail_unless (counts != NULL, "no histogram message");
  return counts;
}

/* Pushes @buf. Returns the element's result (histogram counts, visible
 * output pixels, integral image bytes), or NULL with *@error set when the
 * element refused the buffer with an error message. */
static GBytes *
rig_push (Rig * r, GstBuffer * buf, GError ** error, gchar ** debug)
{
  GstFlowReturn ret = gst_harness_push (r->h, buf);
  GstBuffer *out;
  GBytes *result;
  GstMapInfo map;

  *error = pop_error (r, debug);
  if (*error) {
    fail_if (ret == GST_FLOW_OK, "error \"%s\" but the buffer went through",
        (*error)->message);
    fail_unless (gst_harness_buffers_in_queue (r->h) == 0);
    return NULL;
  }
  fail_unless (ret == GST_FLOW_OK, "flow %s without an error message",
      gst_flow_get_name (ret));
  out = gst_harness_pull (r->h);
  fail_unless (out != NULL);
  switch (r->kind) {
    case EL_HISTOGRAM:
      result = histogram_counts (r);
      break;
    case EL_CONVOLVE:
      result = visible_bytes (out, &r->info);
      break;
    default:
      fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
      result = g_bytes_new (map.data, map.size);
      gst_buffer_unmap (out, &map);
      break;
  }
  gst_buffer_unref (out);
  return result;
}

static gsize
row_bytes (const GstVideoInfo * info, guint p)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, p, comp);
  return (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
}

static gint
rows_of (const GstVideoInfo * info, guint p)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, p, comp);
  return GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
}

/* Copies @src's visible rows into @dst at @offset/@stride per plane, where
 * they fit in @dst_size bytes (hostile layouts get what fits) */
static void
copy_rows (GstBuffer * src, const GstVideoInfo * info, guint8 * dst,
    gsize dst_size, const gsize * offset, const gint * stride)
{
  GstVideoFrame f;
  guint p;

  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) info, src,
          GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row = row_bytes (info, p);
    gint y;

    for (y = 0; y < rows_of (info, p); y++) {
      gint64 at = (gint64) offset[p] + (gint64) y * stride[p];
      if (at >= 0 && (guint64) at + row <= dst_size)
        memcpy (dst + at, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, p) +
            (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p), row);
    }
  }
  gst_video_frame_unmap (&f);
}

/* A buffer of one guarded memory of @size bytes holding @src's pixels at
 * @offset/@stride (padding 0xEE); with a GstVideoMeta saying so when @meta.
 * @meta_height 0: the caps' height. */
static GstBuffer *
single_memory_frame (GstBuffer * src, const GstVideoInfo * info,
    const gsize * offset, const gint * stride, gsize size, gboolean meta,
    guint meta_height)
{
  GstMemory *mem = test_memory_new_guarded (size);
  GstBuffer *buf = gst_buffer_new ();
  GstMapInfo map;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  memset (map.data, 0xee, map.size);
  copy_rows (src, info, map.data, map.size, offset, stride);
  gst_memory_unmap (mem, &map);
  gst_buffer_append_memory (buf, mem);
  if (meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        meta_height ? meta_height : (guint) GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_N_PLANES (info), (gsize *) offset,
        (gint *) stride);
  return buf;
}

/* Bytes from a plane's first pixel to its last row's last pixel */
static gsize
exact_extent (const GstVideoInfo * info, guint p, gint stride)
{
  return (gsize) (rows_of (info, p) - 1) * stride + row_bytes (info, p);
}

/* Each plane in its own guarded memory holding exactly its rows (the last
 * one without padding), the last plane @last_delta bytes longer/shorter */
static GstBuffer *
multi_memory_frame (GstBuffer * src, const GstVideoInfo * info,
    const gint * stride, gssize last_delta)
{
  guint n = GST_VIDEO_INFO_N_PLANES (info), p;
  GstBuffer *buf = gst_buffer_new ();
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 }, at = 0;

  for (p = 0; p < n; p++) {
    gsize size = exact_extent (info, p, stride[p]);
    gsize only_p[GST_VIDEO_MAX_PLANES];
    GstMemory *mem;
    GstMapInfo map;
    guint q;

    if (p + 1 == n)
      size += last_delta;
    mem = test_memory_new_guarded (size);
    fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
    memset (map.data, 0xee, map.size);
    /* plane p only: the other planes' rows land beyond this memory */
    for (q = 0; q < n; q++)
      only_p[q] = q == p ? 0 : G_MAXINT32;
    copy_rows (src, info, map.data, map.size, only_p, stride);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (buf, mem);
    offset[p] = at;
    at += size;
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), n, offset, (gint *) stride);
  return buf;
}

static void
expect_error (Rig * r, GstBuffer * buf, const gchar * what,
    const gchar * const *phrases)
{
  GError *err = NULL;
  gchar *debug = NULL;
  GBytes *res = rig_push (r, buf, &err, &debug);

  fail_unless (res == NULL, "%s %s: accepted", kind_names[r->kind], what);
  GST_INFO ("%s %s: %s (%s)", kind_names[r->kind], what, err->message, debug);
  fail_unless (err->domain == GST_STREAM_ERROR, "%s %s: %s", kind_names
      [r->kind], what, err->message);
  for (; *phrases; phrases++)
    fail_unless (strstr (err->message, *phrases) != NULL,
        "%s %s: \"%s\" lacks \"%s\"", kind_names[r->kind], what, err->message,
        *phrases);
  g_clear_error (&err);
  g_free (debug);
}

static void
expect_same (Rig * r, GstBuffer * buf, GBytes * expected, const gchar * what)
{
  GError *err = NULL;
  gchar *debug = NULL;
  GBytes *res = rig_push (r, buf, &err, &debug);

  fail_unless (res != NULL, "%s %s: %s (%s)", kind_names[r->kind], what,
      err ? err->message : "", debug);
  fail_unless (g_bytes_equal (res, expected), "%s %s: result differs from "
      "the packed frame's", kind_names[r->kind], what);
  g_bytes_unref (res);
}

#define PHRASES(...) ((const gchar * const[]) { __VA_ARGS__, NULL })

/* GRAY8 64x48: rows of 64 bytes, caps stride 64, 3072 bytes */
static void
gray8_cases (Kind kind)
{
  const gint w = 64, h = 48;
  GstBuffer *src = test_frame_new (GST_VIDEO_FORMAT_GRAY8, w, h,
      TEST_LAYOUT_PACKED, 11, NULL);
  GError *err = NULL;
  GBytes *expected;
  Rig r;

  rig_init (&r, kind, GST_VIDEO_FORMAT_GRAY8, w, h);
  expected = rig_push (&r, gst_buffer_copy_deep (src), &err, NULL);
  fail_unless (expected != NULL);

  {
    gsize off[4] = { 47 * 64 };
    gint st[4] = { -64 };
    expect_error (&r, single_memory_frame (src, &r.info, off, st, 3072, TRUE,
            0), "negative stride", PHRASES ("plane 0", "stride -64",
            "negative strides"));
  }
  {
    gsize off[4] = { 0 };
    gint st[4] = { 512 };
    expect_error (&r, single_memory_frame (src, &r.info, off, st, 3072, TRUE,
            0), "stride x8", PHRASES ("plane 0", "offset 0", "stride 512",
            "memory of 3072 bytes", "past its end"));
  }
  {
    gsize off[4] = { 0 };
    gint st[4] = { 32 };
    expect_error (&r, single_memory_frame (src, &r.info, off, st, 3072, TRUE,
            0), "stride too small", PHRASES ("plane 0", "stride 32",
            "smaller than a row of 64 bytes"));
  }
  {
    gsize off[4] = { 3072 + 64 };
    gint st[4] = { 64 };
    expect_error (&r, single_memory_frame (src, &r.info, off, st, 3072, TRUE,
            0), "offset past the end", PHRASES ("plane 0", "offset 3136",
            "past the end of the 3072-byte buffer"));
  }
  {
    gsize off[4] = { 64 };
    gint st[4] = { 64 };
    expect_error (&r, single_memory_frame (src, &r.info, off, st, 3072, TRUE,
            0), "offset into the end", PHRASES ("plane 0", "offset 64",
            "past its end"));
  }
  {
    gsize off[4] = { 0 };
    gint st[4] = { 64 };
    expect_error (&r, single_memory_frame (src, &r.info, off, st, 3000,
            FALSE, 0), "buffer smaller than the caps",
        PHRASES ("holds 3000 bytes", "needs 3072 bytes"));
    expect_error (&r, single_memory_frame (src, &r.info, off, st, 3072, TRUE,
            40), "meta smaller than the caps",
        PHRASES ("64x40 GRAY8", "64x48 GRAY8"));
  }

  /* valid: exact fits, the last row unpadded; 9088 and 3072 are multiples
   * of 128 (used in place on CPU devices), 3213 is copied */
  {
    gsize off[4] = { 0 };
    gint st[4] = { 192 };
    expect_same (&r, single_memory_frame (src, &r.info, off, st,
            exact_extent (&r.info, 0, 192), TRUE, 0), expected,
        "exact fit, stride 192");
    st[0] = 67;
    expect_same (&r, single_memory_frame (src, &r.info, off, st,
            exact_extent (&r.info, 0, 67), TRUE, 0), expected,
        "exact fit, stride 67");
    st[0] = 64;
    expect_same (&r, single_memory_frame (src, &r.info, off, st, 3072, FALSE,
            0), expected, "exact fit, no meta");
  }
  g_bytes_unref (expected);

  /* padding must not count: an all-7 frame in padded rows is 3072 sevens */
  if (kind == EL_HISTOGRAM) {
    GstBuffer *sevens = test_frame_new_filled (GST_VIDEO_FORMAT_GRAY8, w, h,
        TEST_LAYOUT_PACKED, 7, NULL);
    gsize off[4] = { 0 };
    gint st[4] = { 192 };
    GstMessage *m;
    const GValue *counts;
    guint b;

    fail_unless (gst_harness_push (r.h, single_memory_frame (sevens, &r.info,
                off, st, exact_extent (&r.info, 0, 192), TRUE, 0)) ==
        GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (r.h));
    m = gst_bus_pop_filtered (r.bus, GST_MESSAGE_ELEMENT);
    fail_unless (m != NULL);
    counts = gst_value_array_get_value (gst_structure_get_value
        (gst_message_get_structure (m), "counts"), 0);
    for (b = 0; b < gst_value_array_get_size (counts); b++)
      fail_unless_equals_uint64 (g_value_get_uint64 (gst_value_array_get_value
              (counts, b)), b == 7 ? 3072 : 0);
    gst_message_unref (m);
    gst_buffer_unref (sevens);
  }
  rig_clear (&r);
  gst_buffer_unref (src);
}

/* I420 64x48 with each plane in its own memory: padded strides, the last
 * row of each plane unpadded (valid), then the V plane one byte short */
static void
multi_memory_cases (Kind kind)
{
  const gint w = 64, h = 48, st[4] = { 67, 35, 37 };
  GstBuffer *src = test_frame_new (GST_VIDEO_FORMAT_I420, w, h,
      TEST_LAYOUT_PACKED, 12, NULL);
  GError *err = NULL;
  GBytes *expected;
  Rig r;

  rig_init (&r, kind, GST_VIDEO_FORMAT_I420, w, h);
  expected = rig_push (&r, gst_buffer_copy_deep (src), &err, NULL);
  fail_unless (expected != NULL);
  expect_same (&r, multi_memory_frame (src, &r.info, st, 0), expected,
      "separate memories, exact fit");
  expect_error (&r, multi_memory_frame (src, &r.info, st, -1),
      "last plane one byte short", PHRASES ("plane 2", "stride 37",
          "past its end"));
  g_bytes_unref (expected);
  rig_clear (&r);
  gst_buffer_unref (src);
}

/* GRAY16_LE: samples need even strides */
static void
gray16_cases (Kind kind)
{
  const gint w = 32, h = 8;
  GstBuffer *src = test_frame_new (GST_VIDEO_FORMAT_GRAY16_LE, w, h,
      TEST_LAYOUT_PACKED, 13, NULL);
  GError *err = NULL;
  GBytes *expected;
  gsize off[4] = { 0 };
  gint st[4] = { 66 };
  Rig r;

  rig_init (&r, kind, GST_VIDEO_FORMAT_GRAY16_LE, w, h);
  expected = rig_push (&r, gst_buffer_copy_deep (src), &err, NULL);
  fail_unless (expected != NULL);
  expect_same (&r, single_memory_frame (src, &r.info, off, st,
          exact_extent (&r.info, 0, 66), TRUE, 0), expected,
      "16-bit, exact fit");
  st[0] = 65;
  expect_error (&r, single_memory_frame (src, &r.info, off, st,
          exact_extent (&r.info, 0, 65), TRUE, 0), "16-bit, odd stride",
      PHRASES ("plane 0", "stride 65", "16-bit"));
  g_bytes_unref (expected);
  rig_clear (&r);
  gst_buffer_unref (src);
}

GST_START_TEST (test_hostile_strides)
{
  Kind k;

  for (k = 0; k < N_KINDS; k++)
    gray8_cases (k);
}

GST_END_TEST;

GST_START_TEST (test_hostile_separate_planes)
{
  Kind k;

  for (k = 0; k < N_KINDS; k++)
    multi_memory_cases (k);
}

GST_END_TEST;

GST_START_TEST (test_hostile_16bit)
{
  Kind k;

  for (k = 0; k < N_KINDS; k++)
    gray16_cases (k);
}

GST_END_TEST;

/* Large frames with bad strides: a clear error, no crash */
GST_START_TEST (test_hostile_1080p)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_RGBA
  };
  guint f;
  Kind k;

  for (k = 0; k < N_KINDS; k++)
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      GstBuffer *src = test_frame_new (formats[f], 1920, 1080,
          TEST_LAYOUT_PACKED, 14, NULL);
      gsize size, off[4] = { 0 };
      gint row, st[4];
      Rig r;

      rig_init (&r, k, formats[f], 1920, 1080);
      size = GST_VIDEO_INFO_SIZE (&r.info);
      row = GST_VIDEO_INFO_PLANE_STRIDE (&r.info, 0);
      st[0] = row * 8;
      expect_error (&r, single_memory_frame (src, &r.info, off, st, size,
              TRUE, 0), "1080p stride x8", PHRASES ("past its end"));
      st[0] = -row;
      off[0] = size - row;
      expect_error (&r, single_memory_frame (src, &r.info, off, st, size,
              TRUE, 0), "1080p negative stride", PHRASES ("negative"));
      st[0] = row / 2;
      off[0] = 0;
      expect_error (&r, single_memory_frame (src, &r.info, off, st, size,
              TRUE, 0), "1080p stride too small", PHRASES ("smaller"));
      rig_clear (&r);
      gst_buffer_unref (src);
    }
}

GST_END_TEST;

/* Caps whose frames need more than the kernels' 32-bit offsets address:
 * one error at caps time with the real byte count (no 64-bit wrap) */
GST_START_TEST (test_unaddressable_caps)
{
  static const struct
  {
    Kind kind;
    gint width, height;
    const gchar *bytes;
  } cases[] = {
    /* 46341 x 46341, rows of 46344 bytes */
    {EL_CONVOLVE, 46341, 46341, "needs 2147627304 bytes"},
    {EL_HISTOGRAM, 46341, 46341, "needs 2147627304 bytes"},
    /* GstVideoInfo's int stride overflows here */
    {EL_INTEGRAL, 2147483647, 1, "needs 2147483647 bytes"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    Rig r;
    GError *err;
    gchar *debug = NULL;

    rig_init (&r, cases[i].kind, GST_VIDEO_FORMAT_GRAY8, cases[i].width,
        cases[i].height);
    err = pop_error (&r, &debug);
    fail_unless (err != NULL, "%s %dx%d: no error", kind_names[cases[i].kind],
        cases[i].width, cases[i].height);
    GST_INFO ("%s: %s (%s)", kind_names[cases[i].kind], err->message, debug);
    fail_unless (strstr (err->message, cases[i].bytes) != NULL, "%s: \"%s\"",
        kind_names[cases[i].kind], err->message);
    fail_unless (strstr (err->message, "2147483647") != NULL);
    fail_if (strstr (err->message, "18446744") != NULL, "wrapped size");
    fail_unless (err->domain == GST_STREAM_ERROR &&
        err->code == GST_STREAM_ERROR_FORMAT);
    g_clear_error (&err);
    g_free (debug);
    rig_clear (&r);
  }
}

GST_END_TEST;

static Suite *
clhostile_suite (void)
{
  Suite *s = suite_create ("clhostile");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_hostile_strides);
  tcase_add_test (tc, test_hostile_separate_planes);
  tcase_add_test (tc, test_hostile_16bit);
  tcase_add_test (tc, test_unaddressable_caps);
  tcase_add_test (tc, test_hostile_1080p);
  return s;
}

int
main (int argc, char **argv)
{
  gint ret;

  gst_check_init (&argc, &argv);
  test_skip_without_cl_device ("clhostile");
  ret = test_run_suite_unforked (clhostile_suite (), "clhistogram");
  return ret;
}
