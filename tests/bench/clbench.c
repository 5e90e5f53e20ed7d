/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clbench: per-frame cost of clhistogram, clconvolve and clintegral beside
 * their yardsticks, in one run.
 *
 * Frames are made once, in buffers from the pool the element proposes in an
 * ALLOCATION query (on a GPU that is pinned memory: what a real upstream
 * gets), then pushed again and again through a GstHarness; each sample is
 * push + pull of one frame, timed with CLOCK_MONOTONIC. No source, no
 * conversion, no sink in the figure. Median and p10/p90 over the samples.
 * With --kernel-time, also the elements' device time of kernels
 * ("kernel-time" under GST_CL_PROFILE=1), and each row's memory floor:
 * the bytes a frame must read and write at the device's copy bandwidth,
 * measured at the start of the same run.
 *
 * The plain-C yardsticks are the references in tests/reference/ (what the
 * tests compare against); yardsticks.c only adds the separable loop they
 * lack. A case whose element, device or optional yardstick is missing, or
 * whose value/caps the element refuses, prints "skipped: reason" and the
 * run goes on.
 *
 *   clbench [--quick] [--kernel-time] [--device auto|gpu|cpu|P:D]
 *           [--csv results.csv]
 *   clbench --first-frame ELEMENT ...   (one cold/warm sample; spawned by
 *                                        the full run, one process each)
 *   clbench --elements chain   (clupload ! ... ! cldownload chains beside
 *                               the same elements on system memory)
 *   clbench --multi-device 0:0,0:1 [--chain DESC] [--seconds S]
 *       one pipeline per device, alone and all at once: frames per second
 *   clbench --live-change [--elements E,...]
 *       live 30 fps source, properties changed every 100 ms, cold caches:
 *       the gaps between buffers at the sink (only this case runs)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <time.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <gmodule.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/check/gstharness.h>
#include <CL/cl.h>

#include "cvshim.h"
#include "convolve.h"
#include "histogram.h"
#include "integral.h"
#include "yardsticks.h"

#define N_FRAMES 3              /* frames rotated through the element */
#define MIN_SAMPLES 3

/* ---- options ---- */

static gchar *opt_device = NULL;
static gchar *opt_sizes = NULL;
static gchar *opt_formats = NULL;
static gchar *opt_elements = NULL;
static gchar *opt_ksizes = NULL;
static gchar *opt_sweep_size = NULL;
static gchar *opt_csv = NULL;
static gchar *opt_first_frame = NULL;
static gboolean rig_not_live = FALSE;   /* rigs' sources report live */
static gint opt_repeat = 30;
static gint opt_warmup = 5;
static gdouble opt_warmup_seconds = 0.5;
static gint opt_ff_runs = 3;
static gdouble opt_budget = 1.5;
static gboolean opt_quick = FALSE;
static gboolean opt_no_yardsticks = FALSE;
static gboolean opt_no_fixed = FALSE;
static gboolean opt_kernel_time = FALSE;
static gboolean opt_live_change = FALSE;
static gchar *opt_memory = NULL;
static gchar *opt_multi_device = NULL;
static gchar *opt_chain = NULL;
static gdouble opt_seconds = 5.0;
static gint opt_live_settle = 1000;
static gint opt_overlay_ab = 0;

static GOptionEntry entries[] = {
  {"device", 'd', 0, G_OPTION_ARG_STRING, &opt_device,
      "Device for the elements' `device` property (auto, gpu, cpu, P:D, "
        "name substring; default auto)", "DEV"},
  {"sizes", 's', 0, G_OPTION_ARG_STRING, &opt_sizes,
        "Frame sizes (default 640x480,1280x720,1920x1080,3840x2160,7680x4320)",
      "WxH,..."},
  {"formats", 'f', 0, G_OPTION_ARG_STRING, &opt_formats,
      "Formats (default RGBA,I420,GRAY8)", "F,..."},
  {"elements", 'e', 0, G_OPTION_ARG_STRING, &opt_elements,
      "Elements: histogram, convolve, integral, chain (default "
        "histogram,convolve,integral)", "E,..."},
  {"kernel-sizes", 'k', 0, G_OPTION_ARG_STRING, &opt_ksizes,
      "clconvolve kernel sizes of the kernel sweep (default 3,5,7,9,15,31)",
      "K,..."},
  {"sweep-size", 0, 0, G_OPTION_ARG_STRING, &opt_sweep_size,
        "Frame size of the kernel sweep and the first-frame runs "
        "(default 1920x1080)",
      "WxH"},
  {"repeat", 'r', 0, G_OPTION_ARG_INT, &opt_repeat,
      "Timed frames per case (default 30)", "N"},
  {"warmup", 'w', 0, G_OPTION_ARG_INT, &opt_warmup,
      "Untimed frames first (default 5, at least 1)", "N"},
  {"warmup-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &opt_warmup_seconds,
        "Untimed frames for at least this long too, within the case's "
        "budget, so that each case is timed at its own steady load "
        "(default 0.5)", "S"},
  {"budget", 'b', 0, G_OPTION_ARG_DOUBLE, &opt_budget,
        "Seconds per case after which sampling stops early (after 3 samples, "
        "or 1 once a case has spent 4x this; default 1.5)",
      "S"},
  {"first-frame-runs", 0, 0, G_OPTION_ARG_INT, &opt_ff_runs,
      "Processes per first-frame case (default 3)", "N"},
  {"csv", 'o', 0, G_OPTION_ARG_FILENAME, &opt_csv, "Write CSV rows here",
      "FILE"},
  {"quick", 'q', 0, G_OPTION_ARG_NONE, &opt_quick,
        "Short run: 640x480 and 1920x1080, kernels 3,7,15, 10 frames, "
        "0.5 s budget",
      NULL},
  {"no-yardsticks", 0, 0, G_OPTION_ARG_NONE, &opt_no_yardsticks,
      "Only the clfilters elements", NULL},
  {"no-fixed", 0, 0, G_OPTION_ARG_NONE, &opt_no_fixed,
      "Skip the fixed costs (tiny frame, first frame)", NULL},
  {"kernel-time", 0, 0, G_OPTION_ARG_NONE, &opt_kernel_time,
        "Also report kernel-only device time per frame, the device's copy "
        "bandwidth and each row's memory floor at it (sets "
        "GST_CL_PROFILE=1: the runtime then waits on each kernel, so "
        "end-to-end times of this run are a little pessimistic)",
      NULL},
  {"live-change", 0, 0, G_OPTION_ARG_NONE, &opt_live_change,
        "Only the live-change case: a live 320x240 30 fps source, the "
        "element's playing-time properties changed every 100 ms, program "
        "caches (ours and PoCL's) empty; reports the gaps between buffers "
        "at the sink",
      NULL},
  {"overlay-ab", 0, 0, G_OPTION_ARG_INT, &opt_overlay_ab,
        "Histogram: the overlay rows from one pipeline whose overlay is "
        "switched off and on between blocks of --repeat frames, N pairs of "
        "blocks (off-on, then on-off, ...), so drift cancels; adds a row "
        "+overlay-ab of the pairs' differences of block medians",
      "N"},
  {"live-settle", 0, 0, G_OPTION_ARG_INT, &opt_live_settle,
        "Live-change case: ms of steady state after the first buffer before "
        "the first change, and after the last (default 1000)", "MS"},
  {"memory", 'm', 0, G_OPTION_ARG_STRING, &opt_memory,
        "Where clfilters rows' input frames live: pool (from the element's "
        "proposed pool) and/or plain (system memory 16 bytes past a 128-byte "
        "boundary, no pool: a camera's, decoder's or appsrc's frames; row "
        "impl clfilters-plainmem). Default pool,plain",
      "pool,plain"},
  {"multi-device", 0, 0, G_OPTION_ARG_STRING, &opt_multi_device,
        "Only the multi-device case: the chain (--chain) on each device "
        "alone, then on all of them at once, one pipeline per device in its "
        "own thread; frames per second of each (first --sizes/--formats)",
      "DEV,DEV,..."},
  {"chain", 0, 0, G_OPTION_ARG_STRING, &opt_chain,
        "Multi-device case: the pipeline fragment (gst-launch syntax; "
        "`device` is set on every element that has it). Default "
        "clupload ! clconvolve preset=motion-blur ! clhistogram ! cldownload",
      "DESC"},
  {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &opt_seconds,
      "Multi-device case: seconds per measurement (default 5)", "S"},
  {"first-frame", 0, 0, G_OPTION_ARG_STRING, &opt_first_frame,
        "Internal: measure one first frame of ELEMENT in this process "
        "(first format of --formats, --sweep-size) and print it",
      "ELEMENT"},
  {NULL}
};

/* ---- output ---- */

static FILE *csv = NULL;
static gchar *cl_device_name = NULL;    /* from the first element that ran */
static gdouble device_gbps = 0;  /* copy bandwidth (read + write), 0: none */
static gchar *cv_info = NULL;

typedef struct
{
  const gchar *impl;            /* clfilters, c-ref, opencv, gst-<factory> */
  const gchar *element;         /* histogram, convolve, integral */
  const gchar *casename;
  const gchar *format;
  gint width, height, ksize;
  const gchar *device;
} RowKey;

static void
csv_field (const gchar * s)
{
  const gchar *p;

  if (!s)
    s = "";
  if (!strpbrk (s, ",\"\n")) {
    fputs (s, csv);
    return;
  }
  fputc ('"', csv);
  for (p = s; *p; p++) {
    if (*p == '"')
      fputc ('"', csv);
    fputc (*p == '\n' ? ' ' : *p, csv);
  }
  fputc ('"', csv);
}

/* first line of a file, stripped, or NULL */
static gchar *
read_line (const gchar * path)
{
  gchar *text = NULL, *nl;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  if ((nl = strchr (text, '\n')))
    *nl = '\0';
  return text;
}

/* What the host does with idle CPUs weighs on the fixed cost per frame on
 * CPU devices: on a VM guest whose idle loop does not poll, each hand-over
 * to PoCL's threads on a halted vCPU costs a VM exit (docs/performance-log.md),
 * so a run says which it was */
static void
print_host (void)
{
  gchar *load = read_line ("/proc/loadavg");
  gchar *idle = read_line ("/sys/devices/system/cpu/cpuidle/current_driver");
  gchar *poll =
      read_line ("/sys/module/haltpoll/parameters/guest_halt_poll_ns");
  gchar **loads = g_strsplit (load ? load : "?", " ", 4);

  g_print ("# host: load %s %s %s, cpuidle driver %s", loads[0],
      loads[1] ? loads[1] : "", loads[1] && loads[2] ? loads[2] : "",
      idle ? idle : "none");
  if (poll)
    g_print (", guest_halt_poll_ns %s", poll);
  g_print ("\n");
  g_strfreev (loads);
  g_free (load);
  g_free (idle);
  g_free (poll);
}

static void
print_table_header (void)
{
  g_print ("%-20s %-9s %-18s %-5s %9s %9s %9s %9s %9s %9s  %s\n", "impl",
      "element", "case", "fmt", "size", "median_ms", "p10_ms", "p90_ms",
      "Mpix/s", "kernel_ms", "note");
}

/* Bytes a clfilters row's frame must read and write at least (its input
 * plane(s) once, its output once), 0 when there is no such figure (the
 * yardsticks, overlays, fixed costs) */
static gdouble
frame_floor_bytes (const RowKey * k)
{
  GstVideoInfo info;
  GstVideoFormat fmt = gst_video_format_from_string (k->format);
  gdouble plane0, frame, cells;
  gint ch;

  if (!g_str_has_prefix (k->impl, "clfilters")
      || fmt == GST_VIDEO_FORMAT_UNKNOWN || strstr (k->casename, "overlay")
      || g_str_has_prefix (k->casename, "overhead")
      || g_str_has_prefix (k->casename, "first-frame")
      || !gst_video_info_set_format (&info, fmt, k->width, k->height))
    return 0;
  plane0 = (gdouble) GST_VIDEO_INFO_COMP_WIDTH (&info, 0) *
      GST_VIDEO_INFO_COMP_HEIGHT (&info, 0) *
      GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
  frame = (gdouble) GST_VIDEO_INFO_SIZE (&info);
  if (!strcmp (k->element, "histogram"))
    return plane0;              /* luma and RGB channels live in plane 0 */
  if (!strcmp (k->element, "convolve"))
    return 2 * frame;
  if (g_str_has_prefix (k->casename, "box-mean"))
    return 2 * frame;
  ch = ref_integral_channels (fmt);
  cells = (gdouble) (k->width + 1) * (k->height + 1) * ch;
  /* U32 sums, U64 squares */
  return plane0 + cells * 4 + (g_str_equal (k->casename, "u32+sq") ?
      cells * 8 : 0);
}

/* ms a frame of @k takes at the measured bandwidth, 0: unknown */
static gdouble
floor_ms_of (const RowKey * k)
{
  gdouble bytes = frame_floor_bytes (k);

  return device_gbps > 0 && bytes > 0 ? bytes / (device_gbps * 1e6) : 0;
}

/* @kernel_ms: mean device time of the kernels per frame, < 0 when not
 * measured */
static void
emit (const RowKey * k, GArray * ms, gdouble kernel_ms, const gchar * note,
    const gchar * skip)
{
  gchar size[32], kms[32] = "-";
  gdouble med = 0, p10 = 0, p90 = 0, mn = 0, mx = 0, mpix = 0, floor_ms;
  guint n = ms ? ms->len : 0;
  gchar *floor_note = NULL;

  g_snprintf (size, sizeof (size), "%dx%d", k->width, k->height);
  if (n > 0) {
    gdouble *v = (gdouble *) ms->data;

    med = v[(n - 1) / 2];
    if (n % 2 == 0)
      med = (v[n / 2 - 1] + v[n / 2]) / 2;
    p10 = v[(guint) floor (0.1 * (n - 1) + 0.5)];
    p90 = v[(guint) floor (0.9 * (n - 1) + 0.5)];
    mn = v[0];
    mx = v[n - 1];
    /* a rate means nothing for fixed costs */
    if (med > 0 && !g_str_has_prefix (k->casename, "first-frame")
        && !g_str_has_prefix (k->casename, "overhead")
        && !g_str_has_prefix (k->casename, "live-change"))
      mpix = (gdouble) k->width * k->height / (med * 1000.0);
  }
  if (kernel_ms >= 0)
    g_snprintf (kms, sizeof (kms), "%.3f", kernel_ms);
  floor_ms = kernel_ms > 0 ? floor_ms_of (k) : 0;
  if (floor_ms > 0) {
    floor_note = g_strdup_printf ("%s%sfloor %.4f ms, %.1fx", note ? note :
        "", note ? "; " : "", floor_ms, kernel_ms / floor_ms);
    note = floor_note;
  }
  if (skip)
    g_print ("%-20s %-9s %-18s %-5s %9s  skipped: %s\n", k->impl, k->element,
        k->casename, k->format, size, skip);
  else
    g_print ("%-20s %-9s %-18s %-5s %9s %9.3f %9.3f %9.3f %9.1f %9s  %s\n",
        k->impl, k->element, k->casename, k->format, size, med, p10, p90,
        mpix, kms, note ? note : "");
  if (!csv) {
    g_free (floor_note);
    return;
  }
  csv_field (k->impl);
  fputc (',', csv);
  csv_field (k->element);
  fputc (',', csv);
  csv_field (k->casename);
  fprintf (csv, ",%s,%d,%d,", k->format, k->width, k->height);
  if (k->ksize > 0)
    fprintf (csv, "%d", k->ksize);
  fputc (',', csv);
  csv_field (k->device);
  if (skip) {
    gchar *s = g_strdup_printf ("skipped: %s", skip);

    fprintf (csv, ",0,,,,,,,,,,");
    csv_field (s);
    g_free (s);
  } else {
    fprintf (csv, ",%u,%.4f,%.4f,%.4f,%.4f,%.4f,%.2f,", n, med, p10, p90, mn,
        mx, mpix);
    if (kernel_ms >= 0)
      fprintf (csv, "%.4f", kernel_ms);
    fputc (',', csv);
    if (floor_ms > 0)
      fprintf (csv, "%.4f,%.2f", floor_ms, kernel_ms / floor_ms);
    else
      fputc (',', csv);
    fputc (',', csv);
    csv_field (note);
  }
  fputc ('\n', csv);
  fflush (csv);
  g_free (floor_note);
}

/* ---- timing ---- */

typedef gboolean (*StepFunc) (gpointer data, guint i, gchar ** why);

/* ns: g_get_monotonic_time's microseconds are too coarse for the tiny
 * frame and for GPU frames */
static inline gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : (x > y);
}

static guint64
kernel_time_ns (GstElement * el)
{
  guint64 ns = 0;

  g_object_get (el, "kernel-time", &ns, NULL);
  return ns;
}

/* Warm up, then time single steps until @repeat samples or the budget is
 * spent (with at least MIN_SAMPLES, unless one step alone is that slow).
 * With @kt_el (--kernel-time) also the mean of its "kernel-time" growth per
 * timed frame in @kernel_ms (-1 when it did not grow: the element enqueues
 * outside gst_cl_base_filter_run_kernel). Returns sorted ms samples, or
 * NULL with @why set. */
static GArray *
measure (StepFunc step, gpointer data, guint warmup, GstElement * kt_el,
    gdouble * kernel_ms, gchar ** why)
{
  guint64 kt0 = 0;
  GArray *ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gint64 budget = (gint64) (opt_budget * 1e9), start;
  guint i, n = 0;

  /* untimed frames: @warmup of them and opt_warmup_seconds' worth (the
   * case's own load for a while: on a 2-core PoCL host the scheduler
   * placed PoCL's threads by the previous case's load for up to about a
   * second, a 16x16 frame costing 70-140 us right after 1080p frames
   * against 31-44 us after a pause), within half the budget; none for
   * @warmup 0 (the plain-C references) */
  start = now_ns ();
  for (i = 0; i < warmup || (warmup > 0 && now_ns () - start <
          opt_warmup_seconds * 1e9); i++) {
    if (!step (data, n++, why))
      goto fail;
    if (now_ns () - start > budget / 2)
      break;
  }
  if (kt_el)
    kt0 = kernel_time_ns (kt_el);
  start = now_ns ();
  for (i = 0; i < (guint) opt_repeat; i++) {
    gint64 t0 = now_ns (), t1;
    gdouble v;

    if (!step (data, n++, why))
      goto fail;
    t1 = now_ns ();
    v = (t1 - t0) / 1e6;
    g_array_append_val (ms, v);
    if (t1 - start > budget && (ms->len >= MIN_SAMPLES || t1 - start >
            4 * budget))
      break;
  }
  if (kt_el) {
    guint64 kt = kernel_time_ns (kt_el) - kt0;

    *kernel_ms = kt > 0 ? kt / 1e6 / ms->len : -1;
  }
  g_array_sort (ms, cmp_double);
  return ms;

fail:
  g_array_unref (ms);
  return NULL;
}

/* ---- parsing helpers ---- */

static guint64 rng_state = 0x9e3779b97f4a7c15ull;

static inline guint64
rng_next (void)
{
  /* xorshift64*: fast enough to fill 8K frames */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

static void
fill_random (guint8 * p, gsize n)
{
  gsize i;

  for (i = 0; i + 8 <= n; i += 8) {
    guint64 v = rng_next ();
    memcpy (p + i, &v, 8);
  }
  for (; i < n; i++)
    p[i] = (guint8) rng_next ();
}

static gboolean
parse_size (const gchar * s, gint * w, gint * h)
{
  return sscanf (s, "%dx%d", w, h) == 2 && *w > 0 && *h > 0;
}

/* ---- pushing frames through a GStreamer element ---- */

typedef struct
{
  GstHarness *h;
  GstElement *el;
  GstBufferPool *pool;
  gboolean own_pool;            /* the element proposed it */
  GstVideoInfo info;
  GstBuffer *frames[N_FRAMES];
  guint n_frames;
  guint64 pts;
  gchar *error;
  guint n_messages;
  gboolean plain;               /* frames in plain unaligned memory, no pool */
  GstElement *cl_el;            /* the first element with a device-name */
} Rig;

static GstBusSyncReply
bus_sync (GstBus * bus, GstMessage * msg, gpointer data)
{
  Rig *r = data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && !r->error) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    r->error = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
    g_strdelimit (r->error, "\n", ' ');        /* one table row */
    g_clear_error (&err);
    g_free (dbg);
  }
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT)
    r->n_messages++;
  /* like a bus nobody reads: the element pays for making the message */
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* float properties read back rounded: equal within a relative 1e-5 */
static gboolean
values_match (const GValue * a, const GValue * b)
{
  gint c = gst_value_compare (a, b);

  if (G_VALUE_HOLDS_FLOAT (a))
    return fabs (g_value_get_float (a) - g_value_get_float (b)) <=
        1e-5 * MAX (1.0, fabs (g_value_get_float (a)));
  if (G_VALUE_HOLDS_DOUBLE (a))
    return fabs (g_value_get_double (a) - g_value_get_double (b)) <=
        1e-5 * MAX (1.0, fabs (g_value_get_double (a)));
  return c != GST_VALUE_LESS_THAN && c != GST_VALUE_GREATER_THAN;
}

/* Sets @name from its string form (enum/flags nicks, arrays "<1,2>") and
 * reads it back: a rejected value is a skip, not a silent wrong case. */
static gboolean
set_prop (GstElement * el, const gchar * name, const gchar * value,
    gchar ** why)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (el),
      name);
  GValue want = G_VALUE_INIT, got = G_VALUE_INIT;
  gboolean ok = TRUE;

  if (!ps || !(ps->flags & G_PARAM_WRITABLE)) {
    *why = g_strdup_printf ("%s has no property '%s'",
        GST_OBJECT_NAME (gst_element_get_factory (el)), name);
    return FALSE;
  }
  g_value_init (&want, ps->value_type);
  if (!gst_value_deserialize_with_pspec (&want, value, ps)) {
    *why = g_strdup_printf ("%s: cannot parse '%s' for %s", name, value,
        g_type_name (ps->value_type));
    g_value_unset (&want);
    return FALSE;
  }
  g_object_set_property (G_OBJECT (el), name, &want);
  if (ps->flags & G_PARAM_READABLE) {
    g_value_init (&got, ps->value_type);
    g_object_get_property (G_OBJECT (el), name, &got);
    if (!values_match (&want, &got)) {
      gchar *g = gst_value_serialize (&got);

      *why = g_strdup_printf ("element rejected %s=%s (kept %s)", name, value,
          g ? g : "?");
      g_free (g);
      ok = FALSE;
    }
    g_value_unset (&got);
  }
  g_value_unset (&want);
  return ok;
}

static void
rig_close (Rig * r)
{
  guint i;

  for (i = 0; i < r->n_frames; i++)
    gst_clear_buffer (&r->frames[i]);
  r->n_frames = 0;
  if (r->h) {
    gst_harness_teardown (r->h);
    r->h = NULL;
  } else if (r->el) {
    gst_object_unref (r->el);
  }
  r->el = NULL;
  if (r->pool) {
    gst_buffer_pool_set_active (r->pool, FALSE);
    gst_clear_object (&r->pool);
  }
  g_clear_pointer (&r->error, g_free);
}

/* Takes @buf as frame @i and fills it with random pixels (or 0x5a) */
static gboolean
rig_add_frame (Rig * r, GstBuffer * buf, gboolean random, gchar ** why)
{
  GstVideoFrame f;
  guint p;

  r->frames[r->n_frames++] = buf;
  if (!gst_video_frame_map (&f, &r->info, buf, GST_MAP_WRITE)) {
    *why = g_strdup ("cannot map a frame for filling");
    return FALSE;
  }
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize n;

    gst_video_format_info_component (f.info.finfo, p, comp);
    n = (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&f, p) *
        GST_VIDEO_FRAME_COMP_HEIGHT (&f, comp[0]);
    if (random)
      fill_random (GST_VIDEO_FRAME_PLANE_DATA (&f, p), n);
    else
      memset (GST_VIDEO_FRAME_PLANE_DATA (&f, p), 0x5a, n);
  }
  gst_video_frame_unmap (&f);
  return TRUE;
}

/* Frames as a camera, decoder or appsrc hands them over: system memory of
 * their own, default layout, no GstVideoMeta, and not on the 128-byte
 * boundary OpenCL's CL_MEM_USE_HOST_PTR wants (malloc's 16 bytes past it) */
static gboolean
rig_make_plain_frames (Rig * r, gboolean random, gchar ** why)
{
  guint i;

  for (i = 0; i < N_FRAMES; i++) {
    gsize size = r->info.size;
    guint8 *block = g_malloc (size + 256);
    gsize skew = (128 - ((guintptr) block & 127)) % 128 + 16;

    if (!rig_add_frame (r, gst_buffer_new_wrapped_full (0, block, size + 256,
                skew, size, block, g_free), random, why))
      return FALSE;
  }
  return TRUE;
}

/* Frames from the element's proposed pool (falls back to a plain video
 * pool when it proposes none), filled once. */
static gboolean
rig_make_frames (Rig * r, GstCaps * caps, gboolean random, gchar ** why)
{
  GstQuery *q;
  GstStructure *config;
  guint size = 0, min = 0, max = 0, i;

  if (r->plain)
    return rig_make_plain_frames (r, random, why);
  q = gst_query_new_allocation (caps, TRUE);
  if (gst_pad_peer_query (r->h->srcpad, q)
      && gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &r->pool, &size, &min, &max);
  gst_query_unref (q);
  r->own_pool = r->pool != NULL;
  if (!r->pool)
    r->pool = gst_video_buffer_pool_new ();
  size = MAX (size, (guint) r->info.size);

  config = gst_buffer_pool_get_config (r->pool);
  gst_buffer_pool_config_set_params (config, caps, size, N_FRAMES, 0);
  if (gst_buffer_pool_has_option (r->pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (r->pool, config)) {
    /* the pool answered with what it can do: take it */
    config = gst_buffer_pool_get_config (r->pool);
    if (!gst_buffer_pool_set_config (r->pool, config)) {
      *why = g_strdup ("the proposed pool refuses every configuration");
      return FALSE;
    }
  }
  if (!gst_buffer_pool_set_active (r->pool, TRUE)) {
    *why = g_strdup ("cannot activate the proposed pool");
    return FALSE;
  }
  for (i = 0; i < N_FRAMES; i++) {
    GstBuffer *buf = NULL;

    if (gst_buffer_pool_acquire_buffer (r->pool, &buf, NULL) != GST_FLOW_OK) {
      *why = g_strdup ("cannot acquire a buffer from the proposed pool");
      return FALSE;
    }
    if (!rig_add_frame (r, buf, random, why))
      return FALSE;
  }
  return TRUE;
}

/* A chain of elements ("a ! b ! c") as one element with sink and src pads;
 * `device` set on each element that has the property, and the first of
 * them kept for its device name and kernel time */
static gchar *
rig_make_chain (Rig * r, const gchar * desc, const gchar * device)
{
  GError *err = NULL;
  GstIterator *it;
  GValue v = G_VALUE_INIT;
  GList *els = NULL, *l;
  gchar *why = NULL;

  r->el = gst_parse_bin_from_description (desc, TRUE, &err);
  if (!r->el) {
    why = g_strdup_printf ("cannot make %s: %s", desc, err->message);
    g_clear_error (&err);
    return why;
  }
  g_clear_error (&err);         /* a warning, e.g. a missing property */
  it = gst_bin_iterate_sorted (GST_BIN (r->el));
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    els = g_list_prepend (els, g_value_dup_object (&v));
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  /* sorted from sink to source: prepending puts the source first */
  for (l = els; l && !why; l = l->next) {
    GstElement *e = l->data;

    if (!g_object_class_find_property (G_OBJECT_GET_CLASS (e), "device"))
      continue;
    if (device && !set_prop (e, "device", device, &why))
      break;
    if (!r->cl_el)
      r->cl_el = e;
  }
  g_list_free_full (els, gst_object_unref);
  return why;
}

/* @factory: an element, or a description "a prop=v ! b"; @props: NULL-terminated name,
 * value, name, value... (single elements); @sinkcaps: what the harness'
 * sink accepts (NULL: anything); @plain: frames in plain unaligned memory
 * instead of the element's pool. Returns a skip reason or NULL. */
static gchar *
rig_open (Rig * r, const gchar * factory, const gchar * device,
    const gchar * const *props, const gchar * format, gint w, gint h,
    const gchar * sinkcaps, gboolean random, gboolean plain)
{
  GstVideoFormat fmt = gst_video_format_from_string (format);
  GstCaps *caps, *accepted;
  GstPad *sinkpad;
  GstBus *bus;
  gchar *why = NULL;
  guint i;

  memset (r, 0, sizeof (*r));
  r->plain = plain;
  if (strpbrk (factory, "! ")) {
    if ((why = rig_make_chain (r, factory, device)))
      return why;
  } else {
    r->el = gst_element_factory_make (factory, NULL);
    if (!r->el)
      return g_strdup_printf ("element %s not installed", factory);
    if (device && !set_prop (r->el, "device", device, &why))
      return why;
    if (device)
      r->cl_el = r->el;
  }
  for (i = 0; props && props[i] && props[i + 1]; i += 2)
    if (!set_prop (r->el, props[i], props[i + 1], &why))
      return why;

  gst_video_info_set_format (&r->info, fmt, w, h);
  GST_VIDEO_INFO_FPS_N (&r->info) = 30;
  GST_VIDEO_INFO_FPS_D (&r->info) = 1;
  caps = gst_video_info_to_caps (&r->info);
  sinkpad = gst_element_get_static_pad (r->el, "sink");
  accepted = gst_pad_query_caps (sinkpad, NULL);
  gst_object_unref (sinkpad);
  if (!gst_caps_can_intersect (caps, accepted)) {
    gst_caps_unref (accepted);
    gst_caps_unref (caps);
    return g_strdup_printf ("%s refuses %s", factory, format);
  }
  gst_caps_unref (accepted);

  bus = gst_bus_new ();
  gst_bus_set_sync_handler (bus, bus_sync, r, NULL);
  gst_element_set_bus (r->el, bus);
  gst_object_unref (bus);

  /* started here first: gst_harness_play() asserts when the element cannot
   * start (no such device), where the bench must say why and go on */
  if (gst_element_set_state (r->el, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE) {
    gst_caps_unref (caps);
    gst_element_set_state (r->el, GST_STATE_NULL);
    why = g_strdup_printf ("%s did not start: %s", factory,
        r->error ? r->error : "state change failed");
    /* the first clfilters element cannot open the device: no case can
     * run, say why once and fail */
    if (device && !cl_device_name) {
      g_printerr ("clbench: %s\n", why);
      exit (1);
    }
    return why;
  }
  r->h = gst_harness_new_with_element (r->el, "sink", "src");
  gst_object_unref (r->el);     /* the harness holds it */
  /* a harness answers latency queries as a live source */
  if (rig_not_live)
    gst_harness_set_live (r->h, FALSE);
  if (sinkcaps)
    gst_harness_set_sink_caps_str (r->h, sinkcaps);
  /* events pushed by hand: gst_harness_set_src_caps() asserts when an
   * element refuses caps; a refusal shows up at the first push instead */
  gst_pad_push_event (r->h->srcpad, gst_event_new_stream_start ("clbench"));
  gst_pad_push_event (r->h->srcpad, gst_event_new_caps (caps));
  {
    GstSegment seg;

    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_pad_push_event (r->h->srcpad, gst_event_new_segment (&seg));
  }
  if (r->error) {
    why = g_strdup (r->error);
  } else if (!rig_make_frames (r, caps, random, &why)) {
    /* why set */
  }
  gst_caps_unref (caps);
  return why;
}

static gboolean
rig_step (gpointer data, guint i, gchar ** why)
{
  Rig *r = data;
  GstBuffer *b = r->frames[i % r->n_frames], *out;
  GstFlowReturn ret;
  guint64 dur = GST_SECOND / 30;
  /* in-place elements get the frame itself, writable as in a pipeline (a
   * reference kept here would make one that writes copy the frame) and
   * give it back */
  gboolean give = GST_IS_BASE_TRANSFORM (r->el) &&
      gst_base_transform_is_in_place (GST_BASE_TRANSFORM (r->el));

  if (gst_buffer_is_writable (b)) {
    GST_BUFFER_PTS (b) = r->pts;
    GST_BUFFER_DURATION (b) = dur;
  }
  r->pts += dur;
  if (give)
    r->frames[i % r->n_frames] = NULL;
  ret = gst_harness_push (r->h, give ? b : gst_buffer_ref (b));
  if (ret != GST_FLOW_OK) {
    *why = g_strdup_printf ("push returned %s%s%s", gst_flow_get_name (ret),
        r->error ? ": " : "", r->error ? r->error : "");
    return FALSE;
  }
  out = gst_harness_try_pull (r->h);
  if (!out)
    out = gst_harness_pull (r->h);
  if (!out) {
    *why = g_strdup ("no output buffer");
    return FALSE;
  }
  if (give)
    r->frames[i % r->n_frames] = out;
  else
    gst_buffer_unref (out);
  return TRUE;
}

static const gchar *
rig_device_name (Rig * r)
{
  gchar *name = NULL;

  if (!r->cl_el || !g_object_class_find_property (G_OBJECT_GET_CLASS
          (r->cl_el), "device-name"))
    return NULL;
  g_object_get (r->cl_el, "device-name", &name, NULL);
  if (name && !cl_device_name)
    cl_device_name = g_strdup (name);
  g_free (name);
  return cl_device_name;
}

/* Fails the case when the caps the element negotiated on its source pad
 * are not within @expect */
static gchar *
check_caps (Rig * r, const gchar * expect)
{
  GstCaps *want = gst_caps_from_string (expect);
  GstCaps *got = gst_pad_get_current_caps (r->h->sinkpad);
  gchar *why = NULL;

  if (!got || !gst_caps_is_subset (got, want)) {
    gchar *g = got ? gst_caps_to_string (got) : g_strdup ("none");

    why = g_strdup_printf ("negotiated %s, expected %s", g, expect);
    g_free (g);
  }
  gst_caps_unref (want);
  if (got)
    gst_caps_unref (got);
  return why;
}

static gboolean
want_memory (const gchar * mode)
{
  gchar **modes = g_strsplit (opt_memory, ",", -1);
  gboolean yes = g_strv_contains ((const gchar * const *) modes, mode);

  g_strfreev (modes);
  return yes;
}

static void run_gst_once (const RowKey * key, const gchar * factory,
    const gchar * device, const gchar * const *props,
    const gchar * push_format, const gchar * sinkcaps, const gchar * expect,
    const gchar * note, gboolean plain);

/* One GStreamer element case: ours (@device set; once per --memory mode)
 * or a GStreamer yardstick (frames from its pool, if any). @factory: an
 * element or a chain "a ! b". @expect: caps the output must have (NULL:
 * anything). */
static void
run_gst (const RowKey * key, const gchar * factory, const gchar * device,
    const gchar * const *props, const gchar * push_format,
    const gchar * sinkcaps, const gchar * expect, const gchar * note)
{
  if (!device || want_memory ("pool"))
    run_gst_once (key, factory, device, props, push_format, sinkcaps, expect,
        note, FALSE);
  if (device && want_memory ("plain")) {
    RowKey k = *key;

    k.impl = "clfilters-plainmem";
    run_gst_once (&k, factory, device, props, push_format, sinkcaps, expect,
        note, TRUE);
  }
}

static void
run_gst_once (const RowKey * key, const gchar * factory, const gchar * device,
    const gchar * const *props, const gchar * push_format,
    const gchar * sinkcaps, const gchar * expect, const gchar * note,
    gboolean plain)
{
  Rig r;
  RowKey k = *key;
  gchar *why, *full_note;
  GArray *ms = NULL;
  gdouble kernel_ms = -1;
  gboolean chain = strpbrk (factory, "! ") != NULL;

  why = rig_open (&r, factory, device, props,
      push_format ? push_format : key->format, key->width, key->height,
      sinkcaps, TRUE, plain);
  /* a chain's kernel time would be its first element's only */
  if (!why)
    ms = measure (rig_step, &r, MAX (opt_warmup, 1), opt_kernel_time &&
        !chain ? r.cl_el : NULL, &kernel_ms, &why);
  if (ms && expect && (why = check_caps (&r, expect)))
    g_clear_pointer (&ms, g_array_unref);
  if (device)
    k.device = rig_device_name (&r);
  if (!k.device)
    k.device = device ? device : "cpu (GStreamer element)";
  full_note = g_strdup_printf ("%s%s%s%s%s%s", r.plain ?
      "plain memory, 16 bytes past 128-byte alignment" : r.own_pool ?
      "element's pool" : "plain pool", note ? "; " : "",
      note ? note : "", push_format ? "; pushed as " : "",
      push_format ? push_format : "", opt_kernel_time && device && !chain &&
      kernel_ms < 0 ? "; no kernel-time (kernels not enqueued through "
      "gst_cl_base_filter_run_kernel)" : "");
  emit (&k, ms, kernel_ms, full_note, why);
  g_free (full_note);
  g_free (why);
  if (ms)
    g_array_unref (ms);
  rig_close (&r);
}

/* ---- plain-C and OpenCV yardsticks ---- */

typedef enum
{
  CJ_HIST_RGB, CJ_HIST_LUMA, CJ_CONV, CJ_CONVSEP, CJ_INTEGRAL, CJ_INTEGRAL_SQ,
  CJ_BOXMEAN
} CJobOp;

/* One plain-C job on a frame laid out like GstVideoInfo's defaults: the
 * references take GstBuffers and GstVideoFrames like the tests do. */
typedef struct
{
  CJobOp op;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame in_frame, out_frame;    /* mapped for integral/box mean */
  gboolean mapped;
  GstMapInfo in_map;            /* CJ_CONVSEP */
  /* CJ_CONV */
  RefConvolve conv;
  gdouble coef[31 * 31];
  /* CJ_CONVSEP (bench yardstick, no reference) */
  YsPlane src, dst;
  gfloat k1d[31], *scratch;
  /* CJ_HIST_*, CJ_INTEGRAL */
  guint64 *counts;
  guint32 rgb[3 * 256];
  guint planes;
  guint8 *integral;
} CJob;

static gboolean
cjob_step (gpointer data, guint i, gchar ** why)
{
  CJob *j = data;
  GstMapInfo map;

  switch (j->op) {
    case CJ_HIST_RGB:
      gst_buffer_map (j->in, &map, GST_MAP_READ);
      ref_histogram_rgba_fast (map.data, GST_VIDEO_INFO_WIDTH (&j->info),
          GST_VIDEO_INFO_HEIGHT (&j->info),
          GST_VIDEO_INFO_PLANE_STRIDE (&j->info, 0), j->rgb);
      gst_buffer_unmap (j->in, &map);
      break;
    case CJ_HIST_LUMA:
      memset (j->counts, 0, 256 * sizeof (guint64));
      ref_histogram_add (j->in, &j->info, REF_CH_LUMA, FALSE, 0, 0,
          GST_VIDEO_INFO_WIDTH (&j->info), GST_VIDEO_INFO_HEIGHT (&j->info),
          j->counts);
      break;
    case CJ_CONV:
      g_free (ref_convolve_frame (&j->conv, j->in, &j->info, j->out, FALSE));
      break;
    case CJ_CONVSEP:
      ys_convolve_sep (&j->src, &j->dst, j->k1d, j->k1d, j->conv.width / 2,
          j->scratch);
      break;
    case CJ_INTEGRAL:
    case CJ_INTEGRAL_SQ:
      ref_integral (&j->in_frame, REF_INTEGRAL_U32, j->planes, j->integral);
      break;
    case CJ_BOXMEAN:
      ref_box_mean (&j->in_frame, j->conv.width / 2, &j->out_frame);
      break;
  }
  return TRUE;
}

static GstBuffer *
random_buffer (gsize size)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  fill_random (map.data, map.size);
  gst_buffer_unmap (b, &map);
  return b;
}

/* @coef: the matrix (conv: ksize^2 row order; convsep: ksize 1-D taps,
 * normalised) */
static void
run_cref (const RowKey * key, CJobOp op, gint ksize, const gdouble * coef,
    const gchar * note)
{
  CJob *j = g_new0 (CJob, 1);
  RowKey rk = *key;
  GArray *ms;
  gchar *why = NULL;
  GstVideoFormat fmt = gst_video_format_from_string (key->format);
  gint i;

  rk.impl = op == CJ_CONVSEP ? "c-sep" : "c-ref";
  rk.device = "cpu, 1 thread";
  j->op = op;
  gst_video_info_set_format (&j->info, fmt, key->width, key->height);
  j->in = random_buffer (j->info.size);
  j->conv.width = j->conv.height = ksize;
  switch (op) {
    case CJ_HIST_RGB:
    case CJ_HIST_LUMA:
      j->counts = g_new0 (guint64, 256);
      break;
    case CJ_CONV:
      memcpy (j->coef, coef, sizeof (gdouble) * ksize * ksize);
      j->conv.coef = j->coef;
      j->conv.divisor = ref_convolve_auto_divisor (j->coef, ksize * ksize);
      j->conv.border = REF_BORDER_CLAMP;
      j->out = gst_buffer_new_allocate (NULL, j->info.size, NULL);
      break;
    case CJ_CONVSEP:
      /* luma/gray plane, or the 3 colour channels of RGBA; I420 chroma is
       * copied by the element, not here (a few percent of the frame) */
      j->src.width = key->width;
      j->src.height = key->height;
      j->src.bpp = GST_VIDEO_INFO_COMP_PSTRIDE (&j->info, 0);
      j->src.nch = GST_VIDEO_INFO_IS_RGB (&j->info) ? 3 : 1;
      j->src.stride = GST_VIDEO_INFO_PLANE_STRIDE (&j->info, 0);
      gst_buffer_map (j->in, &j->in_map, GST_MAP_READ);
      j->src.data = j->in_map.data;
      j->dst = j->src;
      j->dst.data = g_malloc ((gsize) j->src.stride * key->height);
      j->scratch = g_new (gfloat, (gsize) key->width * key->height *
          j->src.nch);
      for (i = 0; i < ksize; i++)
        j->k1d[i] = (gfloat) coef[i];
      break;
    case CJ_INTEGRAL:
    case CJ_INTEGRAL_SQ:
      j->planes = REF_INTEGRAL_SUM |
          (op == CJ_INTEGRAL_SQ ? REF_INTEGRAL_SQSUM : 0);
      j->integral = g_malloc (ref_integral_layout (key->width, key->height,
              ref_integral_channels (fmt), REF_INTEGRAL_U32, j->planes,
              (guint64[3]) {
              0}));
      break;
    case CJ_BOXMEAN:
      j->out = gst_buffer_new_allocate (NULL, j->info.size, NULL);
      break;
  }
  if (op == CJ_INTEGRAL || op == CJ_INTEGRAL_SQ || op == CJ_BOXMEAN) {
    gst_video_frame_map (&j->in_frame, &j->info, j->in, GST_MAP_READ);
    if (j->out)
      gst_video_frame_map (&j->out_frame, &j->info, j->out, GST_MAP_WRITE);
    j->mapped = TRUE;
  }

  /* no warm-up: nothing to build, and the slow references would spend the
   * budget on it */
  ms = measure (cjob_step, j, 0, NULL, NULL, &why);
  emit (&rk, ms, -1, note, why);
  if (ms)
    g_array_unref (ms);
  g_free (why);
  if (j->mapped) {
    gst_video_frame_unmap (&j->in_frame);
    if (j->out)
      gst_video_frame_unmap (&j->out_frame);
  }
  if (j->in_map.data)
    gst_buffer_unmap (j->in, &j->in_map);
  gst_clear_buffer (&j->in);
  gst_clear_buffer (&j->out);
  g_free (j->dst.data);
  g_free (j->scratch);
  g_free (j->counts);
  g_free (j->integral);
  g_free (j);
}

static ClbCvPrepareFunc cv_prepare = NULL;
static ClbCvRunFunc cv_run = NULL;
static ClbCvFreeFunc cv_free = NULL;
static gchar *cv_missing = NULL;

static void
load_opencv_shim (void)
{
  const gchar *env = g_getenv ("CLBENCH_OPENCV_SHIM");
  gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
  gchar *dir = exe ? g_path_get_dirname (exe) : g_strdup (".");
  gchar *path = env ? g_strdup (env) :
      g_build_filename (dir, "libclbench-opencv.so", NULL);
  GModule *mod;
  ClbCvInitFunc init;
  gchar info[128] = "";

  g_free (exe);
  g_free (dir);
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    cv_missing = g_strdup ("OpenCV shim not built (no libopencv-dev when "
        "configured)");
    g_free (path);
    return;
  }
  mod = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (!mod || !g_module_symbol (mod, CLB_CV_INIT, (gpointer *) & init)
      || !g_module_symbol (mod, CLB_CV_PREPARE, (gpointer *) & cv_prepare)
      || !g_module_symbol (mod, CLB_CV_RUN, (gpointer *) & cv_run)
      || !g_module_symbol (mod, CLB_CV_FREE, (gpointer *) & cv_free)) {
    cv_missing = g_strdup_printf ("OpenCV shim unusable: %s",
        g_module_error ());
    cv_prepare = NULL;
    g_free (path);
    return;
  }
  init ((gint) g_get_num_processors (), info, sizeof (info));
  cv_info = g_strdup (info);
  g_free (path);
}

static gboolean
cv_step (gpointer data, guint i, gchar ** why)
{
  cv_run (data);
  return TRUE;
}

static void
run_opencv (const RowKey * key, const gchar * op, gint ksize, gdouble sigma,
    const gfloat * k2d, const gchar * note)
{
  RowKey rk = *key;
  gint layout;
  gpointer job;
  GArray *ms;
  gchar *why = NULL, *impl = g_strdup_printf ("opencv-%s", op);

  rk.impl = impl;
  rk.device = cv_info ? cv_info : "cpu";
  layout = !strcmp (key->format, "RGBA") ? CLB_CV_RGBA :
      !strcmp (key->format, "I420") ? CLB_CV_I420 :
      !strcmp (key->format, "GRAY8") ? CLB_CV_GRAY8 : -1;
  if (!cv_prepare) {
    emit (&rk, NULL, -1, NULL, cv_missing);
  } else if (layout < 0 || !(job = cv_prepare (op, layout, key->width,
              key->height, ksize, sigma, k2d))) {
    emit (&rk, NULL, -1, NULL, "op/format not covered by the shim");
  } else {
    ms = measure (cv_step, job, MIN (MAX (opt_warmup, 1), 2), NULL, NULL,
        &why);
    emit (&rk, ms, -1, note, why);
    if (ms)
      g_array_unref (ms);
    cv_free (job);
  }
  g_free (why);
  g_free (impl);
}

/* ---- the cases ---- */

static gdouble
gauss_sigma (gint k)
{
  /* OpenCV's rule for sigma = 0, so every impl blurs alike */
  return 0.3 * ((k - 1) * 0.5 - 1) + 0.8;
}

static void
gauss_1d (gint k, gdouble sigma, gdouble * out)
{
  gdouble s = 0;
  gint i, r = k / 2;

  for (i = 0; i < k; i++)
    s += out[i] = exp (-(gdouble) (i - r) * (i - r) / (2 * sigma * sigma));
  for (i = 0; i < k; i++)
    out[i] /= s;
}

/* a full-rank integer matrix: the element cannot factor it */
static gchar *
custom_kernel (gint k, gdouble * coef)
{
  GString *s = g_string_new ("<");
  GRand *rand = g_rand_new_with_seed (k);
  gint i;

  for (i = 0; i < k * k; i++) {
    gint v = g_rand_int_range (rand, -4, 5);

    if (i == k * k / 2)
      v += k * k;
    coef[i] = v;
    g_string_append_printf (s, "%s%d", i ? "," : "", v);
  }
  g_string_append (s, ">");
  g_rand_free (rand);
  return g_string_free (s, FALSE);
}

static gdouble
median_ms (GArray * sorted)
{
  gdouble *v = (gdouble *) sorted->data;
  guint n = sorted->len;

  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* clhistogram with @props, its overlay switched between blocks of frames
 * (--overlay-ab pairs): rows @k (off), @k+overlay (on), and @k+overlay-ab,
 * the pairs' differences of block medians (on - off) */
static void
bench_overlay_ab (const RowKey * k, const gchar * const *props,
    const gchar * on_case, gboolean plain)
{
  GArray *all[2], *diff = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gchar *why, *note = NULL;
  gdouble unused, pct[3] = { 0, 0, 0 };
  RowKey rk[3] = { *k, *k, *k };
  guint pair, half, i;
  Rig r;

  rk[1].casename = on_case;
  rk[2].casename = g_strconcat (on_case, "-ab", NULL);
  all[0] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  all[1] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  why = rig_open (&r, "clhistogram", opt_device, props, k->format, k->width,
      k->height, NULL, TRUE, plain);
  for (pair = 0; !why && pair < (guint) opt_overlay_ab; pair++) {
    gdouble med[2] = { 0, 0 }, d;

    for (half = 0; !why && half < 2; half++) {
      gboolean on = pair % 2 ? !half : half;
      GArray *ms;

      g_object_set (r.el, "overlay", on, NULL);
      if (!(ms = measure (rig_step, &r, MAX (opt_warmup, 1), NULL, &unused,
                  &why)))
        break;
      med[on] = median_ms (ms);
      g_array_append_vals (all[on], ms->data, ms->len);
      g_array_unref (ms);
    }
    d = med[1] - med[0];
    if (!why)
      g_array_append_val (diff, d);
  }
  for (i = 0; i < 3; i++)
    rk[i].device = rig_device_name (&r);
  g_array_sort (all[0], cmp_double);
  g_array_sort (all[1], cmp_double);
  g_array_sort (diff, cmp_double);
  if (!why && diff->len) {
    gdouble base = median_ms (all[0]), *v = (gdouble *) diff->data;

    pct[0] = 100 * median_ms (diff) / base;
    pct[1] = 100 * v[(guint) floor (0.1 * (diff->len - 1) + 0.5)] / base;
    pct[2] = 100 * v[(guint) floor (0.9 * (diff->len - 1) + 0.5)] / base;
    note = g_strdup_printf ("on - off, %u pairs of %d-frame blocks: median "
        "%+.1f%% of off (p10 %+.1f%%, p90 %+.1f%%)", diff->len, opt_repeat,
        pct[0], pct[1], pct[2]);
  }
  emit (&rk[0], all[0], -1, "overlay off, A/B blocks", why);
  emit (&rk[1], all[1], -1, "overlay on, A/B blocks", why);
  emit (&rk[2], diff, -1, note, why);
  g_free (note);
  g_free (why);
  g_free ((gchar *) rk[2].casename);
  g_array_unref (all[0]);
  g_array_unref (all[1]);
  g_array_unref (diff);
  rig_close (&r);
}

static void
bench_histogram (const gchar * format, gint w, gint h, gboolean yard)
{
  gboolean rgba = !strcmp (format, "RGBA");
  gboolean rgb = GST_VIDEO_FORMAT_INFO_IS_RGB (gst_video_format_get_info
      (gst_video_format_from_string (format)));
  gint pass;

  for (pass = rgb ? 0 : 1; pass < 2; pass++) {
    gboolean luma = pass == 1;
    RowKey k = { "clfilters", "histogram", luma ? "luma-256" : "rgb-3x256",
      format, w, h, 0, NULL
    };
    /* channels=auto is red+green+blue on RGB formats, luma otherwise */
    const gchar *props[] = { "bins", "256", "channels", luma ? "luma" :
          "auto", NULL
    };

    if (opt_overlay_ab > 0) {
      bench_overlay_ab (&k, props, luma ? "luma-256+overlay" :
          "rgb-3x256+overlay", !want_memory ("pool"));
    } else {
      run_gst (&k, "clhistogram", opt_device, props, NULL, NULL, NULL, NULL);
    }
    if (opt_overlay_ab <= 0) {
      /* the live overlay drawn into the frame (no downstream meta) */
      const gchar *ov_props[] = { "bins", "256", "channels", luma ? "luma" :
            "auto", "overlay", "true", NULL
      };
      RowKey o = k;

      o.casename = luma ? "luma-256+overlay" : "rgb-3x256+overlay";
      run_gst (&o, "clhistogram", opt_device, ov_props, NULL, NULL, NULL,
          "overlay blended into the frame");
    }
    /* the 3x256 yardsticks take RGBA frames only */
    if (!yard || (!luma && !rgba))
      continue;
    run_cref (&k, luma ? CJ_HIST_LUMA : CJ_HIST_RGB, 0, NULL, luma ?
        "ref_histogram_add" : "ref_histogram_rgba_fast");
    /* luma of RGBA frames: OpenCV converts to gray first */
    run_opencv (&k, !luma ? "calcHist-rgb" : rgba ? "cvtColor-calcHist-luma" :
        "calcHist-luma", 0, 0, NULL, NULL);
    if (luma && !strcmp (format, "I420")) {
      RowKey v = k;

      v.impl = "gst-videoanalyse";
      v.casename = "luma-stats";
      run_gst (&v, "videoanalyse", NULL, NULL, NULL, NULL, NULL,
          "mean/variance only, no histogram");
    }
  }
}

typedef enum
{ CV_MOTION, CV_GAUSS, CV_BOX, CV_CUSTOM, CV_SOBEL } ConvKind;

static void
bench_convolve (const gchar * format, gint w, gint h, ConvKind kind, gint ks,
    gboolean yard)
{
  static const gchar *names[] = { "motion-blur", "gaussian", "box", "custom",
    "sobel-x"
  };
  gchar *casename = g_strdup_printf ("%s-%dx%d", names[kind], ks, ks);
  RowKey k = { "clfilters", "convolve", casename, format, w, h, ks, NULL };
  gchar radius[16], sigma[32], size[16];
  gchar *kernel_str = NULL;
  gdouble *coef = g_new0 (gdouble, 31 * 31), k1d[31], sum = 0;
  gfloat *k2d = g_new0 (gfloat, ks * ks);
  const gchar *props[8] = { NULL };
  gboolean sep = kind == CV_GAUSS || kind == CV_BOX;
  gdouble sg = gauss_sigma (ks);
  gint i, kw = ks, kh = ks;

  g_snprintf (radius, sizeof (radius), "%d", ks / 2);
  g_snprintf (size, sizeof (size), "%d", ks);
  g_ascii_formatd (sigma, sizeof (sigma), "%.4f", sg);
  sg = g_ascii_strtod (sigma, NULL);    /* what the element gets */
  props[0] = "preset";
  props[1] = names[kind];
  props[2] = "radius";
  props[3] = radius;
  switch (kind) {
    case CV_MOTION:
      props[2] = NULL;          /* a fixed 7x7 matrix */
      ref_convolve_preset (REF_PRESET_MOTION_BLUR, 1, 0, coef, &kw, &kh);
      break;
    case CV_GAUSS:
      props[4] = "sigma";
      props[5] = sigma;
      ref_convolve_preset (REF_PRESET_GAUSSIAN, sg, ks / 2, coef, &kw, &kh);
      gauss_1d (ks, sg, k1d);
      break;
    case CV_BOX:
      ref_convolve_preset (REF_PRESET_BOX, 1, ks / 2, coef, &kw, &kh);
      for (i = 0; i < ks; i++)
        k1d[i] = 1.0 / ks;
      break;
    case CV_CUSTOM:
      kernel_str = custom_kernel (ks, coef);
      props[0] = "kernel";
      props[1] = kernel_str;
      props[2] = NULL;
      break;
    case CV_SOBEL:
      /* 3x3, integer factors of both signs, coefficients summing to 0
       * (divisor 1) */
      props[2] = NULL;
      ref_convolve_preset (REF_PRESET_SOBEL_X, 1, 0, coef, &kw, &kh);
      break;
  }
  g_assert (kw == ks && kh == ks);
  run_gst (&k, "clconvolve", opt_device, props, NULL, NULL, NULL,
      sep ? "separable" : kind == CV_SOBEL ? "integer" : "2-D");

  if (yard) {
    for (i = 0; i < ks * ks; i++)
      sum += coef[i];
    for (i = 0; i < ks * ks; i++)
      k2d[i] = (gfloat) (coef[i] / (sum != 0 ? sum : 1));
    /* the reference is 2-D only and costs the same for any k x k matrix:
     * it runs on the 2-D cases (motion-blur, custom), the separable ones
     * get the bench's two-pass loop instead */
    if (sep)
      run_cref (&k, CJ_CONVSEP, ks, k1d, "two 1-D float passes (no "
          "separable reference)");
    else
      run_cref (&k, CJ_CONV, ks, coef, "ref_convolve_frame, 2-D");
    switch (kind) {
      case CV_MOTION:
      case CV_CUSTOM:
      case CV_SOBEL:
        run_opencv (&k, "filter2D", ks, 0, k2d,
            !strcmp (format, "RGBA") ? "4 channels" : NULL);
        break;
      case CV_GAUSS:
        run_opencv (&k, "GaussianBlur", ks, sg, NULL, NULL);
        run_opencv (&k, "sepFilter2D", ks, sg, NULL, NULL);
        break;
      case CV_BOX:
        run_opencv (&k, "blur", ks, 0, NULL, NULL);
        break;
    }
    if (kind == CV_GAUSS || kind == CV_BOX) {
      RowKey c = k;
      const gchar *cvprops[] = { "type", kind == CV_GAUSS ? "gaussian" :
            "blur", "kernel-width", size, "kernel-height", size,
        kind == CV_GAUSS ? "color" : NULL, sigma, NULL
      };
      const gchar *push = !strcmp (format, "RGBA") ? "RGB" : NULL;

      c.impl = "gst-cvsmooth";
      if (strcmp (format, "I420"))
        run_gst (&c, "cvsmooth", NULL, cvprops, push, NULL, NULL, NULL);
      else
        emit (&c, NULL, -1, NULL, "cvsmooth takes no I420");
    }
    if (kind == CV_GAUSS && ks == 7) {
      RowKey g = k;
      const gchar *gprops[] = { "sigma", sigma, NULL };

      g.impl = "gst-gaussianblur";
      if (!strcmp (format, "RGBA"))
        run_gst (&g, "gaussianblur", NULL, gprops, "AYUV", NULL, NULL,
            "kernel size from sigma by its own rule");
      else
        emit (&g, NULL, -1, NULL, "gaussianblur takes AYUV only");
    }
  }
  g_free (kernel_str);
  g_free (k2d);
  g_free (coef);
  g_free (casename);
}

static void
bench_integral (const gchar * format, gint w, gint h, gboolean yard)
{
  static const gchar *cases[] = { "u32", "u32+sq", "box-mean-r7" };
  static const gchar *planes[] = { "sum", "sum+sqsum" };
  gint channels = ref_integral_channels (gst_video_format_from_string
      (format));
  /* steady state: on CPU devices clintegral's fast kernels from the first
   * frame (as live streams get them), not its first-frame ones */
  gboolean set_wait = !g_getenv ("GST_CL_INTEGRAL_VARIANT");
  gint pass;

  if (set_wait)
    g_setenv ("GST_CL_INTEGRAL_VARIANT", "wait", TRUE);
  for (pass = 0; pass < 3; pass++) {
    RowKey k = { "clfilters", "integral", cases[pass], format, w, h,
      pass == 2 ? 15 : 0, NULL
    };

    if (pass < 2) {
      const gchar *props[] = { "output", "integral", "format", "U32",
        "planes", planes[pass], NULL
      };
      /* what the element must have negotiated: fails the case otherwise */
      gchar *expect = g_strdup_printf ("video/x-integral-image, "
          "format=(string)U32, channels=(int)%d, planes=(string)\"%s\"",
          channels, pass ? "sum,sqsum" : "sum");

      run_gst (&k, "clintegral", opt_device, props, NULL, NULL, expect,
          NULL);
      g_free (expect);
    } else {
      const gchar *props[] = { "output", "box-mean", "radius", "7", NULL };

      run_gst (&k, "clintegral", opt_device, props, NULL, NULL, NULL, NULL);
    }
    if (!yard)
      continue;
    if (pass == 0) {
      run_cref (&k, CJ_INTEGRAL, 0, NULL, "ref_integral U32");
      run_opencv (&k, "integral", 0, 0, NULL,
          !strcmp (format, "RGBA") ? "4 channels, CV_32S" : "CV_32S");
    } else if (pass == 1) {
      run_cref (&k, CJ_INTEGRAL_SQ, 0, NULL, "ref_integral U32 + U64 "
          "squares");
      run_opencv (&k, "integral-sq", 0, 0, NULL, "CV_32S + CV_64F squares");
    } else {
      run_cref (&k, CJ_BOXMEAN, 15, NULL, "ref_box_mean");
      run_opencv (&k, "blur", 15, 0, NULL, "cv::blur 15x15");
    }
  }
  if (set_wait)
    g_unsetenv ("GST_CL_INTEGRAL_VARIANT");
}

/* ---- device bandwidth yardstick ---- */

#define BW_MAX_BYTES (256u << 20)
#define BW_RUNS 5

/* Device time of one clEnqueueCopyBuffer of @bytes, ms (< 0: failed) */
static gdouble
timed_copy (cl_command_queue q, cl_mem src, cl_mem dst, gsize bytes)
{
  cl_event ev = NULL;
  cl_ulong t0 = 0, t1 = 0;
  cl_int err = clEnqueueCopyBuffer (q, src, dst, 0, 0, bytes, 0, NULL, &ev);

  if (err == CL_SUCCESS)
    err = clWaitForEvents (1, &ev);
  if (err == CL_SUCCESS)
    err = clGetEventProfilingInfo (ev, CL_PROFILING_COMMAND_START,
        sizeof (t0), &t0, NULL);
  if (err == CL_SUCCESS)
    err = clGetEventProfilingInfo (ev, CL_PROFILING_COMMAND_END,
        sizeof (t1), &t1, NULL);
  if (ev)
    clReleaseEvent (ev);
  return err == CL_SUCCESS && t1 > t0 ? (t1 - t0) / 1e6 : -1;
}

/* The device's copy bandwidth (bytes read + written per second, best of
 * BW_RUNS copies of up to 256 MB) on the device a clhistogram with
 * device=@device opens: what the kernel rows' floors are computed from */
static void
bench_bandwidth (const gchar * device)
{
  GstElement *el = gst_element_factory_make ("clhistogram", NULL);
  RowKey k = { "clfilters", "device", "bandwidth-copy", "-", 0, 0, 0, NULL };
  GstContext *context = NULL;
  guint64 cl_ctx = 0, cl_dev = 0;
  cl_command_queue q = NULL;
  cl_mem src = NULL, dst = NULL;
  cl_ulong max_alloc = 0;
  cl_int err = CL_SUCCESS;
  GArray *ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gchar *why = NULL, *note = NULL, *devname = NULL;
  gsize bytes = 0;
  gint i;

  if (!el || !set_prop (el, "device", device, &why) ||
      gst_element_set_state (el, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE
      || !(context = gst_element_get_context (el, "gst.cl.context"))
      || !gst_structure_get_uint64 (gst_context_get_structure (context),
          "cl-context", &cl_ctx)
      || !gst_structure_get_uint64 (gst_context_get_structure (context),
          "cl-device", &cl_dev)) {
    if (!why)
      why = g_strdup ("no OpenCL context from clhistogram");
    goto done;
  }
  clGetDeviceInfo ((cl_device_id) (guintptr) cl_dev,
      CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof (max_alloc), &max_alloc, NULL);
  bytes = MIN (BW_MAX_BYTES, max_alloc / 2) & ~(gsize) 4095;
  q = clCreateCommandQueue ((cl_context) (guintptr) cl_ctx,
      (cl_device_id) (guintptr) cl_dev, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err == CL_SUCCESS)
    src = clCreateBuffer ((cl_context) (guintptr) cl_ctx, CL_MEM_READ_WRITE,
        bytes, NULL, &err);
  if (err == CL_SUCCESS)
    dst = clCreateBuffer ((cl_context) (guintptr) cl_ctx, CL_MEM_READ_WRITE,
        bytes, NULL, &err);
  if (err != CL_SUCCESS || bytes == 0) {
    why = g_strdup_printf ("cannot set up a %" G_GSIZE_FORMAT "-byte copy "
        "(OpenCL error %d)", bytes, err);
    goto done;
  }
  /* the first copy touches every page of both buffers: not timed */
  for (i = 0; i <= BW_RUNS; i++) {
    gdouble t = timed_copy (q, src, dst, bytes);

    if (t < 0) {
      why = g_strdup ("clEnqueueCopyBuffer failed");
      goto done;
    }
    if (i > 0)
      g_array_append_val (ms, t);
  }
  g_array_sort (ms, cmp_double);
  device_gbps = 2.0 * bytes / (g_array_index (ms, gdouble, 0) * 1e6);
  g_object_get (el, "device-name", &devname, NULL);
  k.device = devname;
  note = g_strdup_printf ("clEnqueueCopyBuffer of %" G_GSIZE_FORMAT " MB, "
      "best of %d, read + write: %.0f GB/s", bytes >> 20, BW_RUNS,
      device_gbps);
  g_print ("# device bandwidth: %s\n", note);

done:
  emit (&k, why ? NULL : ms, -1, note, why);
  g_array_unref (ms);
  g_free (note);
  g_free (why);
  g_free (devname);
  if (dst)
    clReleaseMemObject (dst);
  if (src)
    clReleaseMemObject (src);
  if (q)
    clReleaseCommandQueue (q);
  if (context)
    gst_context_unref (context);
  if (el) {
    gst_element_set_state (el, GST_STATE_NULL);
    gst_object_unref (el);
  }
}

/* the case each element's fixed costs are measured with */
static const gchar *const *
primary_props (const gchar * element, const gchar ** factory,
    const gchar ** casename)
{
  static const gchar *hist[] = { "bins", "256", NULL };
  static const gchar *conv[] = { "preset", "box", "radius", "1", NULL };
  static const gchar *integ[] = { "output", "integral", NULL };

  if (!strcmp (element, "histogram")) {
    *factory = "clhistogram";
    *casename = "hist-256";
    return hist;
  }
  if (!strcmp (element, "convolve")) {
    *factory = "clconvolve";
    *casename = "box-3x3";
    return conv;
  }
  *factory = "clintegral";
  *casename = "integral";
  return integ;
}

/* ---- first frame (one per process) ---- */

static gint
first_frame_child (gint64 t_main)
{
  const gchar *factory, *casename;
  const gchar *const *props = primary_props (opt_first_frame, &factory,
      &casename);
  gchar **formats = g_strsplit (opt_formats, ",", -1);
  gint w, h;
  gint64 t0, t1;
  Rig r;
  gchar *why;

  if (!parse_size (opt_sweep_size, &w, &h)) {
    g_printerr ("bad --sweep-size\n");
    return 2;
  }
  t0 = g_get_monotonic_time ();
  /* a file or videotestsrc, as in gst-launch-1.0: live starts are measured
   * by --live-change and tests/bench/live-start.py */
  rig_not_live = TRUE;
  /* frames filled with a constant: only the element's work is counted */
  why = rig_open (&r, factory, opt_device, props, formats[0], w, h, NULL,
      FALSE, FALSE);
  if (!why)
    rig_step (&r, 0, &why);
  t1 = g_get_monotonic_time ();
  if (why) {
    g_print ("SKIP %s\n", why);
  } else {
    g_print ("FIRSTFRAME %.3f %.3f %s\n", (t1 - t0) / 1000.0,
        (t1 - t_main) / 1000.0, rig_device_name (&r) ? cl_device_name : "");
  }
  g_free (why);
  rig_close (&r);
  g_strfreev (formats);
  return 0;
}

static void
rm_rf (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *n;

  if (d) {
    while ((n = g_dir_read_name (d))) {
      gchar *p = g_build_filename (path, n, NULL);

      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        rm_rf (p);
      else
        g_unlink (p);
      g_free (p);
    }
    g_dir_close (d);
  }
  g_rmdir (path);
}

/* user + system CPU time of the waited-for children so far, ms */
static gdouble
children_cpu_ms (void)
{
  struct rusage ru;

  if (getrusage (RUSAGE_CHILDREN, &ru) != 0)
    return 0;
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* Runs the child; returns ms from element creation (and @proc_ms from
 * process start) or a negative value with @why set. @exit_ms: spawn to
 * exit (the child's whole life, stop and teardown included); @cpu_ms: its
 * CPU time, every thread (what an idle machine shows as wall time when
 * the work is one compile after another). */
static gdouble
spawn_first_frame (const gchar * element, gchar ** envp, gdouble * proc_ms,
    gdouble * exit_ms, gdouble * cpu_ms, gchar ** device, gchar ** why)
{
  gdouble cpu0 = children_cpu_ms ();
  gint64 t0 = g_get_monotonic_time ();
  gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
  gchar *argv[16];
  gchar *out = NULL, *err = NULL, *line;
  gint status = 0, n = 0;
  gdouble ms = -1;
  GError *gerr = NULL;

  argv[n++] = exe;
  argv[n++] = (gchar *) "--first-frame";
  argv[n++] = (gchar *) element;
  argv[n++] = (gchar *) "--formats";
  argv[n++] = opt_formats;
  argv[n++] = (gchar *) "--sweep-size";
  argv[n++] = opt_sweep_size;
  argv[n++] = (gchar *) "--device";
  argv[n++] = opt_device;
  argv[n] = NULL;
  if (!g_spawn_sync (NULL, argv, envp, 0, NULL, NULL, &out, &err, &status,
          &gerr)) {
    *why = g_strdup (gerr->message);
    g_clear_error (&gerr);
  } else if ((line = strstr (out, "FIRSTFRAME "))) {
    gchar dev[256] = "";

    if (sscanf (line, "FIRSTFRAME %lf %lf %255[^\n]", &ms, proc_ms, dev) < 2)
      ms = -1;
    if (*dev && device && !*device)
      *device = g_strdup (dev);
  } else if ((line = strstr (out, "SKIP "))) {
    *why = g_strstrip (g_strdup (line + 5));
  } else {
    *why = g_strdup_printf ("child failed (status %d): %.200s", status,
        err ? err : "");
  }
  if (exit_ms)
    *exit_ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (cpu_ms)
    *cpu_ms = children_cpu_ms () - cpu0;
  if (ms < 0 && !*why)
    *why = g_strdup ("unreadable child output");
  g_free (out);
  g_free (err);
  g_free (exe);
  return ms;
}

/* our program cache, PoCL's and NVIDIA's in fresh folders under TMP/NAME */
static void
cache_dirs_set (gchar *** env, const gchar * tmp, const gchar * name)
{
  static const gchar *vars[][2] = { {"GST_CL_CACHE_DIR", "cl"},
  {"POCL_CACHE_DIR", "pocl"}, {"CUDA_CACHE_PATH", "cuda"}
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (vars); i++) {
    gchar *dir = g_build_filename (tmp, name, vars[i][1], NULL);

    *env = g_environ_setenv (*env, vars[i][0], dir, TRUE);
    g_free (dir);
  }
  *env = g_environ_unsetenv (*env, "GST_CL_CACHE");
  *env = g_environ_unsetenv (*env, "POCL_KERNEL_CACHE");
  *env = g_environ_unsetenv (*env, "CUDA_CACHE_DISABLE");
}

static void
bench_first_frame (const gchar * element)
{
  static const gchar *modes[] = { "first-frame-cold", "first-frame-warm" };
  gchar *tmp = g_dir_make_tmp ("clbench-cache-XXXXXX", NULL);
  gchar **formats = g_strsplit (opt_formats, ",", -1);
  gint w = 0, h = 0, m, i;

  parse_size (opt_sweep_size, &w, &h);
  for (m = 0; m < 2; m++) {
    RowKey k = { "clfilters", element, modes[m], formats[0], w, h, 0, NULL };
    GArray *ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
    GArray *proc = g_array_new (FALSE, FALSE, sizeof (gdouble));
    GArray *exits = g_array_new (FALSE, FALSE, sizeof (gdouble));
    GArray *cpus = g_array_new (FALSE, FALSE, sizeof (gdouble));
    gchar *why = NULL, *device = NULL, *note;
    gchar **env = g_get_environ ();

    if (m == 1) {
      /* the caches primed by one run first */
      gdouble p;

      cache_dirs_set (&env, tmp, "warm");
      spawn_first_frame (element, env, &p, NULL, NULL, NULL, &why);
      g_clear_pointer (&why, g_free);
    }
    for (i = 0; i < MAX (opt_ff_runs, 1) && !why; i++) {
      gdouble p = 0, e = 0, c = 0, v;
      gchar *cold = g_strdup_printf ("cold-%d", i);

      /* default settings, every program cache empty: a new machine */
      if (m == 0)
        cache_dirs_set (&env, tmp, cold);
      g_free (cold);
      v = spawn_first_frame (element, env, &p, &e, &c, &device, &why);

      if (v >= 0) {
        g_array_append_val (ms, v);
        g_array_append_val (proc, p);
        g_array_append_val (exits, e);
        g_array_append_val (cpus, c);
      }
    }
    g_array_sort (ms, cmp_double);
    g_array_sort (proc, cmp_double);
    g_array_sort (exits, cmp_double);
    g_array_sort (cpus, cmp_double);
#define MEDIAN(a) ((a)->len ? g_array_index ((a), gdouble, ((a)->len - 1) / 2) : 0.0)
    note = g_strdup_printf ("element creation -> first output buffer, %u "
        "processes; medians from process start: %.1f ms, to process exit: "
        "%.1f ms, process CPU time %.1f ms%s", ms->len, MEDIAN (proc),
        MEDIAN (exits), MEDIAN (cpus),
        m == 0 ? "; empty GST_CL_CACHE_DIR, POCL_CACHE_DIR, CUDA_CACHE_PATH" :
        "; those caches primed by one run");
#undef MEDIAN
    k.device = device ? device : opt_device;
    emit (&k, why ? NULL : ms, -1, note, why);
    g_free (note);
    g_free (why);
    g_free (device);
    g_strfreev (env);
    g_array_unref (ms);
    g_array_unref (proc);
    g_array_unref (exits);
    g_array_unref (cpus);
  }
  rm_rf (tmp);
  g_free (tmp);
  g_strfreev (formats);
}

static void
bench_overhead (const gchar * element)
{
  const gchar *factory, *casename;
  const gchar *const *props = primary_props (element, &factory, &casename);
  gchar *name = g_strdup_printf ("overhead-%s", casename);
  RowKey k = { "clfilters", element, name, "GRAY8", 16, 16, 0, NULL };

  run_gst (&k, factory, opt_device, props, NULL, NULL, NULL,
      "per-frame fixed cost on a 16x16 frame");
  /* the empty GStreamer path in the same harness: what a frame costs
   * before any OpenCL work */
  if (!opt_no_yardsticks) {
    k.impl = "gst-identity";
    run_gst (&k, "identity", NULL, NULL, NULL, NULL, NULL,
        "GStreamer's identity: the harness and GstBaseTransform alone");
  }
  g_free (name);
}

/* ---- chains of elements ---- */

/* "N of M links carry memory:OpenCL": whether frames stayed on the device
 * between the chain's elements */
static gchar *
chain_memory_note (Rig * r)
{
  GstIterator *it = gst_bin_iterate_elements (GST_BIN (r->el));
  GValue v = G_VALUE_INIT;
  guint links = 0, device = 0;

  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstPad *src = gst_element_get_static_pad (g_value_get_object (&v), "src");
    GstPad *peer = src ? gst_pad_get_peer (src) : NULL;
    GstCaps *caps = src ? gst_pad_get_current_caps (src) : NULL;

    /* links inside the chain only (the last element's peer is the ghost
     * pad's proxy) */
    if (peer && !GST_IS_PROXY_PAD (peer)) {
      links++;
      if (caps && gst_caps_features_contains (gst_caps_get_features (caps, 0),
              "memory:OpenCL"))
        device++;
    }
    if (caps)
      gst_caps_unref (caps);
    if (peer)
      gst_object_unref (peer);
    if (src)
      gst_object_unref (src);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return g_strdup_printf ("%u of %u links in memory:OpenCL", device, links);
}

#define MB "clconvolve preset=motion-blur"

/* One frame through chains of elements, beside the same elements on system
 * memory: the cost of the transfers device memory saves */
static void
bench_chain (const gchar * format, gint w, gint h)
{
  static const struct
  {
    const gchar *name, *desc;
  } cases[] = {
    {"upload-download", "clupload ! cldownload"},
    {"conv", MB},
    {"conv-hist", MB " ! clhistogram"},
    {"up-conv-hist-down", "clupload ! " MB " ! clhistogram ! cldownload"},
    {"up-hist-down", "clupload ! clhistogram ! cldownload"},
    {"up-hist-overlay-down", "clupload ! clhistogram overlay=true ! "
          "cldownload"},
    {"conv3", MB " ! " MB " ! " MB},
    {"up-conv3-down", "clupload ! " MB " ! " MB " ! " MB " ! cldownload"},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    RowKey k = { "clfilters", "chain", cases[c].name, format, w, h, 0, NULL };
    gboolean plain;

    for (plain = FALSE; plain <= TRUE; plain++) {
      Rig r;
      GArray *ms = NULL;
      gchar *why, *note = NULL;

      if (!want_memory (plain ? "plain" : "pool"))
        continue;
      k.impl = plain ? "clfilters-plainmem" : "clfilters";
      why = rig_open (&r, cases[c].desc, opt_device, NULL, format, w, h, NULL,
          TRUE, plain);
      if (!why)
        ms = measure (rig_step, &r, MAX (opt_warmup, 1), NULL, NULL, &why);
      if (ms) {
        gchar *links = strchr (cases[c].desc, '!') ?
            chain_memory_note (&r) : g_strdup ("one element");

        note = g_strdup_printf ("%s; %s; %s", cases[c].desc, links,
            plain ? "plain memory, 16 bytes past 128-byte alignment" :
            r.own_pool ? "first element's pool" : "plain pool");
        g_free (links);
      }
      k.device = rig_device_name (&r);
      if (!k.device)
        k.device = opt_device;
      emit (&k, ms, -1, note, why);
      g_free (note);
      g_free (why);
      if (ms)
        g_array_unref (ms);
      rig_close (&r);
    }
  }
}

/* ---- several devices at once ---- */

typedef struct
{
  Rig r;
  const gchar *device;
  gchar *name;
  guint64 frames;
  gdouble seconds;
  gchar *why;
} Runner;

static GMutex start_lock;
static GCond start_cond;
static gboolean started;

static void
runner_run (Runner * t)
{
  gint64 start = now_ns (), end = start + (gint64) (opt_seconds * 1e9);
  guint i = 0;

  t->frames = 0;
  while (now_ns () < end && !t->why) {
    if (rig_step (&t->r, i++, &t->why))
      t->frames++;
  }
  t->seconds = (now_ns () - start) / 1e9;
}

static gpointer
runner_thread (gpointer data)
{
  g_mutex_lock (&start_lock);
  while (!started)
    g_cond_wait (&start_cond, &start_lock);
  g_mutex_unlock (&start_lock);
  runner_run (data);
  return NULL;
}

static void
emit_runner (Runner * t, const gchar * casename, const gchar * extra)
{
  gdouble fps = t->frames / t->seconds, v = 1000.0 / MAX (fps, 1e-9);
  GArray *ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gchar *dev = g_strdup_printf ("%s (%s)", t->device, t->name);
  RowKey k = { "clfilters", "multi-dev", casename, NULL, t->r.info.width,
    t->r.info.height, 0, dev
  };
  gchar *note = g_strdup_printf ("%" G_GUINT64_FORMAT " frames in %.2f s = "
      "%.1f frames/s%s", t->frames, t->seconds, fps, extra ? extra : "");

  k.format = gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&t->r.info));
  g_array_append_val (ms, v);
  emit (&k, t->why ? NULL : ms, -1, note, t->why);
  g_array_unref (ms);
  g_free (note);
  g_free (dev);
}

/* The chain on each device alone, then on every device at once (one
 * pipeline per device, each in its own thread, all started together) */
static void
bench_multi_device (const gchar * format, gint w, gint h)
{
  const gchar *desc = opt_chain ? opt_chain : "clupload ! " MB
      " ! clhistogram ! cldownload";
  gchar **devices = g_strsplit (opt_multi_device, ",", -1);
  guint n = g_strv_length (devices), i;
  Runner *t = g_new0 (Runner, n);
  GThread **threads = g_new0 (GThread *, n);
  gdouble alone = 0, together = 0;
  gchar *why;

  g_print ("# multi-device: %s, %dx%d %s, %.1f s per measurement\n", desc, w,
      h, format, opt_seconds);
  for (i = 0; i < n; i++) {
    t[i].device = devices[i];
    why = rig_open (&t[i].r, desc, devices[i], NULL, format, w, h, NULL, TRUE,
        FALSE);
    if (why) {
      g_printerr ("clbench: %s on %s: %s\n", desc, devices[i], why);
      exit (1);
    }
    if (t[i].r.cl_el)
      g_object_get (t[i].r.cl_el, "device-name", &t[i].name, NULL);
    /* warm: programs built, pools filled */
    for (guint j = 0; j < 20 && !t[i].why; j++)
      rig_step (&t[i].r, j, &t[i].why);
    runner_run (&t[i]);
    emit_runner (&t[i], "alone", NULL);
    alone += t[i].frames / t[i].seconds;
  }
  for (i = 0; i < n; i++)
    threads[i] = g_thread_new ("runner", runner_thread, &t[i]);
  g_mutex_lock (&start_lock);
  started = TRUE;
  g_cond_broadcast (&start_cond);
  g_mutex_unlock (&start_lock);
  for (i = 0; i < n; i++) {
    g_thread_join (threads[i]);
    together += t[i].frames / t[i].seconds;
  }
  for (i = 0; i < n; i++)
    emit_runner (&t[i], "together", NULL);
  g_print ("# together: %.1f frames/s in all, %.2fx the mean of one device "
      "alone (%.1f frames/s)\n", together, together / (alone / n), alone / n);
  for (i = 0; i < n; i++) {
    rig_close (&t[i].r);
    g_free (t[i].name);
    g_free (t[i].why);
  }
  g_free (t);
  g_free (threads);
  g_strfreev (devices);
}

/* ---- live property changes ---- */

/* one property change; the case applies them in order, LIVE_CHANGE_MS
 * apart */
typedef struct
{
  const gchar *prop, *value;
} LiveChange;

#define LIVE_CHANGE_MS 100

/* every property documented as changeable while PLAYING, each several
 * times, switching between the integer and float paths and every border */
static const LiveChange conv_changes[] = {
  {"border", "mirror"}, {"preset", "gaussian"}, {"border", "wrap"},
  {"sigma", "2"}, {"border", "constant"}, {"preset", "sharpen"},
  {"bias", "0.5"}, {"bias", "0"}, {"absolute", "true"}, {"preset", "box"},
  {"radius", "3"}, {"divisor", "10"}, {"chroma", "filter"},
  {"divisor", "0"}, {"kernel", "<1,2,1,2,4,2,1,2,1>"}, {"border", "clamp"},
  {"preset", "motion-blur"}, {"chroma", "copy"}, {"preset", "sobel-x"},
  {"absolute", "false"}, {"preset", "identity"}, {"preset", "emboss"},
  {"border", "mirror"}, {"preset", "gaussian"}, {"radius", "5"},
  {"border", "constant"}, {"preset", "laplacian"}, {"bias", "128"},
  {NULL, NULL}
};

static const LiveChange hist_changes[] = {
  {"bins", "64"}, {"roi-x", "10"}, {"roi-width", "100"},
  {"interval", "100000000"}, {"bins", "16"}, {"roi-height", "50"},
  {"roi-y", "20"}, {"interval", "0"}, {"bins", "256"}, {"roi-x", "0"},
  {"roi-width", "0"}, {"roi-height", "0"}, {"roi-y", "0"}, {"bins", "2"},
  {NULL, NULL}
};

static const LiveChange integ_changes[] = {
  {"radius", "1"}, {"radius", "7"}, {"radius", "0"}, {"radius", "15"},
  {"radius", "3"}, {"radius", "2"}, {"radius", "9"}, {"radius", "4"},
  {NULL, NULL}
};

typedef struct
{
  GMutex lock;
  GArray *arrivals;             /* gint64 ns, one per buffer at the sink */
} LiveSink;

static void
live_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  LiveSink *s = data;
  gint64 t = now_ns ();

  g_mutex_lock (&s->lock);
  g_array_append_val (s->arrivals, t);
  g_mutex_unlock (&s->lock);
}

static guint
live_count (LiveSink * s)
{
  guint n;

  g_mutex_lock (&s->lock);
  n = s->arrivals->len;
  g_mutex_unlock (&s->lock);
  return n;
}

/* sorted gaps (ms) between arrivals [from, to), and from the last of
 * them to @until (a stall still going on when the case ends) */
static GArray *
live_gaps (LiveSink * s, guint from, guint to, gint64 until)
{
  GArray *gaps = g_array_new (FALSE, FALSE, sizeof (gdouble));
  guint i;

  g_mutex_lock (&s->lock);
  for (i = MAX (from, 1); i < MIN (to, s->arrivals->len); i++) {
    gdouble ms = (g_array_index (s->arrivals, gint64, i) -
        g_array_index (s->arrivals, gint64, i - 1)) / 1e6;
    g_array_append_val (gaps, ms);
  }
  if (to > 0 && to <= s->arrivals->len) {
    gdouble ms = (until - g_array_index (s->arrivals, gint64, to - 1)) / 1e6;
    g_array_append_val (gaps, ms);
  }
  g_mutex_unlock (&s->lock);
  g_array_sort (gaps, cmp_double);
  return gaps;
}

static gchar *
live_bus_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gchar *why = NULL;

  if (m) {
    GError *err = NULL;

    gst_message_parse_error (m, &err, NULL);
    why = g_strdup_printf ("error: %s", err->message);
    g_clear_error (&err);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return why;
}

/* Live source -> element -> fakesink (no sync: arrival is when the element
 * let go of the buffer). After the first buffer and --live-settle ms of
 * steady state, the changes are applied LIVE_CHANGE_MS apart from this
 * thread (an application's), then as long again. */
static void
bench_live_change (const gchar * element)
{
  const LiveChange *changes;
  const gchar *factory, *format = "I420", *extra = "";
  RowKey k = { "clfilters", element, "live-change", NULL, 320, 240, 0, NULL };
  LiveSink sink = { 0, };
  GstElement *pipeline, *el, *fakesink;
  GArray *steady = NULL, *during = NULL;
  gchar *desc, *why = NULL, *note;
  GError *err = NULL;
  guint i, n_changes = 0, first_change = 0, end;
  gint64 t0, first_ms = 0;

  if (!strcmp (element, "histogram")) {
    factory = "clhistogram";
    format = "RGBA";
    changes = hist_changes;
  } else if (!strcmp (element, "integral")) {
    factory = "clintegral";
    extra = " output=box-mean";
    format = "GRAY8";
    changes = integ_changes;
  } else {
    factory = "clconvolve";
    changes = conv_changes;
  }
  k.format = format;
  desc = g_strdup_printf ("videotestsrc is-live=true pattern=ball ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! "
      "%s name=el device=\"%s\"%s ! fakesink name=sink sync=false "
      "signal-handoffs=true", format, k.width, k.height, factory, opt_device,
      extra);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    emit (&k, NULL, -1, NULL, err->message);
    g_clear_error (&err);
    return;
  }
  el = gst_bin_get_by_name (GST_BIN (pipeline), "el");
  fakesink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_mutex_init (&sink.lock);
  sink.arrivals = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_signal_connect (fakesink, "handoff", G_CALLBACK (live_handoff), &sink);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* caps time (program builds) is not part of the figure */
  t0 = now_ns ();
  while (live_count (&sink) == 0 && !why) {
    g_usleep (10000);
    why = live_bus_error (pipeline);
    if (!why && now_ns () - t0 > 120 * (gint64) 1000000000)
      why = g_strdup ("no buffer in 120 s");
  }
  if (!why) {
    first_ms = (now_ns () - t0) / 1000000;
    g_usleep (MAX (opt_live_settle, 0) * (gulong) 1000);
    first_change = live_count (&sink);
    steady = live_gaps (&sink, 1, first_change, now_ns ());
    for (i = 0; changes[i].prop && !why; i++) {
      gst_util_set_object_arg (G_OBJECT (el), changes[i].prop,
          changes[i].value);
      n_changes++;
      g_usleep (LIVE_CHANGE_MS * 1000);
      why = live_bus_error (pipeline);
    }
  }
  if (!why) {
    g_usleep (MAX (opt_live_settle, 0) * (gulong) 1000);
    why = live_bus_error (pipeline);
  }
  /* a stall still going on: wait (60 s at most) for the buffer that ends
   * it, so that the figure is its whole length */
  end = live_count (&sink);
  t0 = now_ns ();
  while (!why && live_count (&sink) == end && now_ns () - t0 <
      60 * (gint64) 1000000000) {
    g_usleep (10000);
    why = live_bus_error (pipeline);
  }
  end = live_count (&sink);
  if (!why) {
    /* from the gap that ends at the first buffer after the first change */
    during = live_gaps (&sink, first_change, end, now_ns ());
    if (!cl_device_name)
      g_object_get (el, "device-name", &cl_device_name, NULL);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  note = during && during->len ? g_strdup_printf ("MAX GAP %.1f ms over %u "
      "changes %d ms apart (%u buffers); steady max %.1f ms; caches empty, "
      "first buffer %" G_GINT64_FORMAT " ms after PLAYING",
      g_array_index (during, gdouble, during->len - 1), n_changes,
      LIVE_CHANGE_MS, during->len, steady && steady->len ?
      g_array_index (steady, gdouble, steady->len - 1) : 0.0, first_ms) :
      NULL;
  k.device = cl_device_name;
  emit (&k, during, -1, note, why ? why : (during && during->len ? NULL :
          "no buffers"));
  g_free (note);
  g_free (why);
  if (steady)
    g_array_unref (steady);
  if (during)
    g_array_unref (during);
  g_array_unref (sink.arrivals);
  g_mutex_clear (&sink.lock);
  gst_object_unref (el);
  gst_object_unref (fakesink);
  gst_object_unref (pipeline);
}

/* Cold caches for the live-change run: our disk cache and PoCL's pointed
 * at empty folders (set before the first OpenCL call); returns the folder
 * to remove at the end */
static gchar *
live_change_cold_caches (void)
{
  gchar *tmp = g_dir_make_tmp ("clbench-live-XXXXXX", NULL);
  gchar *ours = g_build_filename (tmp, "gst-cl", NULL);
  gchar *pocl = g_build_filename (tmp, "pocl", NULL);

  g_mkdir_with_parents (pocl, 0700);
  g_setenv ("GST_CL_CACHE_DIR", ours, TRUE);
  g_setenv ("POCL_CACHE_DIR", pocl, TRUE);
  g_free (ours);
  g_free (pocl);
  return tmp;
}

/* ---- main ---- */

int
main (int argc, char **argv)
{
  gint64 t_main = g_get_monotonic_time ();
  GOptionContext *ctx;
  GError *err = NULL;
  gchar **sizes, **formats, **elements, **ks;
  guint s, f, i;
  gint sw, sh;
  gboolean yard;
  gchar *live_tmp = NULL;

  ctx = g_option_context_new ("- clfilters benchmark");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  /* read when the first element creates its OpenCL queue */
  if (opt_kernel_time)
    g_setenv ("GST_CL_PROFILE", "1", TRUE);
  if (opt_live_change)
    live_tmp = live_change_cold_caches ();
  gst_init (NULL, NULL);

  if (opt_quick) {
    if (!opt_sizes)
      opt_sizes = g_strdup ("640x480,1920x1080");
    if (!opt_ksizes)
      opt_ksizes = g_strdup ("3,7,15");
    opt_repeat = MIN (opt_repeat, 10);
    opt_warmup = MIN (opt_warmup, 2);
    opt_warmup_seconds = MIN (opt_warmup_seconds, 0.1);
    opt_budget = MIN (opt_budget, 0.5);
    opt_ff_runs = MIN (opt_ff_runs, 1);
  }
  if (!opt_device)
    opt_device = g_strdup ("auto");
  if (!opt_sizes)
    opt_sizes = g_strdup ("640x480,1280x720,1920x1080,3840x2160,7680x4320");
  if (!opt_formats)
    opt_formats = g_strdup ("RGBA,I420,GRAY8");
  if (!opt_elements)
    opt_elements = g_strdup ("histogram,convolve,integral");
  if (!opt_ksizes)
    opt_ksizes = g_strdup ("3,5,7,9,15,31");
  if (!opt_sweep_size)
    opt_sweep_size = g_strdup ("1920x1080");
  if (!opt_memory)
    opt_memory = g_strdup ("pool,plain");

  if (opt_first_frame)
    return first_frame_child (t_main);

  sizes = g_strsplit (opt_sizes, ",", -1);
  formats = g_strsplit (opt_formats, ",", -1);
  elements = g_strsplit (opt_elements, ",", -1);
  ks = g_strsplit (opt_ksizes, ",", -1);
  if (!parse_size (opt_sweep_size, &sw, &sh)) {
    g_printerr ("bad --sweep-size %s\n", opt_sweep_size);
    return 2;
  }
  yard = !opt_no_yardsticks;
  if (yard)
    load_opencv_shim ();

  if (opt_csv) {
    csv = fopen (opt_csv, "w");
    if (!csv) {
      g_printerr ("cannot write %s\n", opt_csv);
      return 2;
    }
    fprintf (csv, "impl,element,case,format,width,height,ksize,device,n,"
        "median_ms,p10_ms,p90_ms,min_ms,max_ms,mpix_s,kernel_ms,floor_ms,"
        "floor_ratio,note\n");
  }
  {
    GDateTime *now = g_date_time_new_now_local ();
    gchar *date = g_date_time_format (now, "%Y-%m-%d %H:%M");

    g_print ("# clbench %s, %s, %u cores, device=%s, repeat=%d warmup=%d "
        "(%.2fs) budget=%.1fs, %s, yardstick OpenCV: %s\n", VERSION, date,
        g_get_num_processors (), opt_device, opt_repeat, opt_warmup,
        opt_warmup_seconds, opt_budget, gst_version_string (), cv_info ? cv_info :
        (cv_missing ? cv_missing : "off"));
    g_free (date);
    g_date_time_unref (now);
    print_host ();
  }
  print_table_header ();

  if (opt_multi_device) {
    gint w, h;

    if (!parse_size (sizes[0], &w, &h)) {
      g_printerr ("bad size %s\n", sizes[0]);
      return 2;
    }
    bench_multi_device (formats[0], w, h);
    goto done;
  }
  if (opt_live_change) {
    for (i = 0; elements[i]; i++)
      bench_live_change (elements[i]);
    rm_rf (live_tmp);
    g_free (live_tmp);
    goto done;
  }

  /* the floor the kernel rows are held against, same device, same run */
  if (opt_kernel_time)
    bench_bandwidth (opt_device);
  for (i = 0; elements[i]; i++) {
    gboolean sweep_done = FALSE;

    for (s = 0; sizes[s]; s++) {
      gint w, h;

      if (!parse_size (sizes[s], &w, &h)) {
        g_printerr ("bad size %s\n", sizes[s]);
        continue;
      }
      for (f = 0; formats[f]; f++) {
        if (gst_video_format_from_string (formats[f]) ==
            GST_VIDEO_FORMAT_UNKNOWN) {
          g_printerr ("unknown format %s\n", formats[f]);
          continue;
        }
        if (!strcmp (elements[i], "histogram"))
          bench_histogram (formats[f], w, h, yard);
        else if (!strcmp (elements[i], "integral"))
          bench_integral (formats[f], w, h, yard);
        else if (!strcmp (elements[i], "chain"))
          bench_chain (formats[f], w, h);
        else if (!strcmp (elements[i], "convolve")) {
          bench_convolve (formats[f], w, h, CV_MOTION, 7, yard);
          bench_convolve (formats[f], w, h, CV_GAUSS, 7, yard);
          if (w == sw && h == sh)
            sweep_done = TRUE;
        }
      }
    }
    /* kernel-size sweep at one frame size */
    if (!strcmp (elements[i], "convolve")) {
      for (f = 0; formats[f]; f++) {
        guint j;

        if (gst_video_format_from_string (formats[f]) ==
            GST_VIDEO_FORMAT_UNKNOWN)
          continue;
        for (j = 0; ks[j]; j++) {
          gint kk = atoi (ks[j]);

          if (kk < 1 || kk > 31 || kk % 2 == 0) {
            g_printerr ("kernel size %s: odd, 1..31\n", ks[j]);
            continue;
          }
          bench_convolve (formats[f], sw, sh, CV_BOX, kk, yard);
          if (!(sweep_done && kk == 7))
            bench_convolve (formats[f], sw, sh, CV_GAUSS, kk, yard);
          bench_convolve (formats[f], sw, sh, CV_CUSTOM, kk, yard);
          if (kk == 3)
            bench_convolve (formats[f], sw, sh, CV_SOBEL, kk, yard);
        }
      }
    }
  }

  if (!opt_no_fixed) {
    /* fixed costs are the elements' own (a chain has none of its own) */
    for (i = 0; elements[i]; i++)
      if (strcmp (elements[i], "chain"))
        bench_overhead (elements[i]);
    for (i = 0; elements[i]; i++)
      if (strcmp (elements[i], "chain"))
        bench_first_frame (elements[i]);
  }

done:
  g_print ("# device: %s\n", cl_device_name ? cl_device_name :
      "(no clfilters element ran)");
  if (!opt_kernel_time)
    g_print ("# kernel-only time: not measured (--kernel-time)\n");
  if (csv)
    fclose (csv);
  g_strfreev (sizes);
  g_strfreev (formats);
  g_strfreev (elements);
  g_strfreev (ks);
  return 0;
}
