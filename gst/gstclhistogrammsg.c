/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The "histogram" message: counts binned, exact per-sample statistics from
 * the full-resolution counts (see docs/clhistogram.md for the layout). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstclhistogrammsg.h"

GType
gst_cl_histogram_message_counts_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_HISTOGRAM_COUNTS_ARRAY, "\"counts\": an array per channel of "
          "guint64 per bin", "array"},
    {GST_CL_HISTOGRAM_COUNTS_BYTES, "\"counts-<channel>\": GBytes of "
          "guint64 per bin in host byte order, one field per channel",
        "bytes"},
    {GST_CL_HISTOGRAM_COUNTS_NONE, "No counts: statistics only", "none"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClHistogramMessageCounts", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Field names as quarks, made once: a message per frame looks none up */
enum
{
  Q_HISTOGRAM, Q_TIMESTAMP, Q_STREAM_TIME, Q_RUNNING_TIME, Q_DURATION,
  Q_WIDTH, Q_HEIGHT, Q_ROI_X, Q_ROI_Y, Q_ROI_WIDTH, Q_ROI_HEIGHT, Q_FRAMES,
  Q_PIXELS, Q_BINS, Q_CHANNELS, Q_COUNTS, Q_MEAN, Q_STDDEV, Q_MIN, Q_MAX,
  Q_CLIP_LOW, Q_CLIP_HIGH, N_QUARKS
};

static const GQuark *
field_quarks (void)
{
  static const gchar *const names[N_QUARKS] = {
    "histogram", "timestamp", "stream-time", "running-time", "duration",
    "width", "height", "roi-x", "roi-y", "roi-width", "roi-height", "frames",
    "pixels", "bins", "channels", "counts", "mean", "stddev", "min", "max",
    "clip-low", "clip-high"
  };
  static GQuark quarks[N_QUARKS];
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    guint i;

    for (i = 0; i < N_QUARKS; i++)
      quarks[i] = g_quark_from_static_string (names[i]);
    g_once_init_leave (&done, 1);
  }
  return quarks;
}

/* An array of @n values of @type, filled by append () */
static void
array_init (GValue * array, GValue * item, GType type, guint n)
{
  gst_value_array_init (array, n);
  g_value_init (item, type);
}

/* Appends a copy of @item, a number: a number's GValue owns nothing, so
 * the bitwise copy the array takes is a whole value and @item stays usable
 * for the next one */
static void
append (GValue * array, const GValue * item)
{
  GValue copy = *item;

  gst_value_array_append_and_take_value (array, &copy);
}

static void
append_string (GValue * array, const gchar * v)
{
  GValue item = G_VALUE_INIT;

  g_value_init (&item, G_TYPE_STRING);
  g_value_set_string (&item, v);
  gst_value_array_append_and_take_value (array, &item);
}

static void
append_double (GValue * array, GValue * item, gdouble v)
{
  g_value_set_double (item, v);
  append (array, item);
}

static void
append_uint (GValue * array, GValue * item, guint v)
{
  g_value_set_uint (item, v);
  append (array, item);
}

/* Counts, binned, for one channel: one initialised value set per bin (no
 * type lookup per bin), the array sized once */
static void
append_counts (GValue * counts, const guint64 * binned, guint bins)
{
  GValue ch = G_VALUE_INIT, item = G_VALUE_INIT;
  guint b;

  array_init (&ch, &item, G_TYPE_UINT64, bins);
  for (b = 0; b < bins; b++) {
    g_value_set_uint64 (&item, binned[b]);
    append (&ch, &item);
  }
  gst_value_array_append_and_take_value (counts, &ch);
}

/* Up to this many bins are binned on the stack, more on the heap */
#define STACK_BINS 256

GstStructure *
gst_cl_histogram_make_structure (const GstClHistogramResult * r)
{
  const GQuark *q = field_quarks ();
  GstStructure *s;
  GValue names = G_VALUE_INIT, counts = G_VALUE_INIT, mean = G_VALUE_INIT,
      stddev = G_VALUE_INIT, vmin = G_VALUE_INIT, vmax = G_VALUE_INIT,
      clo = G_VALUE_INIT, chi = G_VALUE_INIT;
  GValue dbl = G_VALUE_INIT, uint = G_VALUE_INIT;
  guint64 stack_bins[STACK_BINS];
  guint64 *binned = r->bins <= STACK_BINS ? stack_bins :
      g_new (guint64, r->bins);
  guint n = r->n_channels, c, v;

  s = gst_structure_new_id (q[Q_HISTOGRAM],
      q[Q_TIMESTAMP], G_TYPE_UINT64, r->timestamp,
      q[Q_STREAM_TIME], G_TYPE_UINT64, r->stream_time,
      q[Q_RUNNING_TIME], G_TYPE_UINT64, r->running_time,
      q[Q_DURATION], G_TYPE_UINT64, r->duration,
      q[Q_WIDTH], G_TYPE_INT, r->width, q[Q_HEIGHT], G_TYPE_INT, r->height,
      q[Q_ROI_X], G_TYPE_INT, r->roi_x, q[Q_ROI_Y], G_TYPE_INT, r->roi_y,
      q[Q_ROI_WIDTH], G_TYPE_INT, r->roi_width,
      q[Q_ROI_HEIGHT], G_TYPE_INT, r->roi_height,
      q[Q_FRAMES], G_TYPE_UINT64, r->frames,
      q[Q_PIXELS], G_TYPE_UINT64, r->pixels,
      q[Q_BINS], G_TYPE_UINT, r->bins, 0);

  gst_value_array_init (&names, n);
  gst_value_array_init (&counts, n);
  array_init (&mean, &dbl, G_TYPE_DOUBLE, n);
  gst_value_array_init (&stddev, n);
  gst_value_array_init (&clo, n);
  gst_value_array_init (&chi, n);
  array_init (&vmin, &uint, G_TYPE_UINT, n);
  gst_value_array_init (&vmax, n);

  for (c = 0; c < n; c++) {
    const guint64 *h = r->counts + (gsize) c * r->range;
    guint64 total = 0;
    gdouble sum = 0, sq = 0, m = 0, sd = 0, lo = 0, hi = 0;
    guint mn = 0, mx = 0;

    memset (binned, 0, r->bins * sizeof (guint64));
    for (v = 0; v < r->range; v++) {
      if (!h[v])
        continue;
      binned[(guint64) v * r->bins / r->range] += h[v];
      if (!total)
        mn = v;
      mx = v;
      total += h[v];
      sum += (gdouble) v * h[v];
    }
    if (total) {
      m = sum / total;
      for (v = mn; v <= mx; v++)
        if (h[v])
          sq += (v - m) * (v - m) * h[v];
      sd = sqrt (sq / total);
      lo = (gdouble) binned[0] / total;
      hi = (gdouble) binned[r->bins - 1] / total;
    }

    if (r->counts_mode == GST_CL_HISTOGRAM_COUNTS_ARRAY) {
      append_counts (&counts, binned, r->bins);
    } else if (r->counts_mode == GST_CL_HISTOGRAM_COUNTS_BYTES) {
      /* one GValue per channel instead of one per bin: 65536 bins cost a
       * copy of 512 KiB, not 65536 GValues */
      gchar *field = g_strconcat ("counts-", r->names[c], NULL);
      GBytes *bytes = g_bytes_new (binned, r->bins * sizeof (guint64));

      gst_structure_set (s, field, G_TYPE_BYTES, bytes, NULL);
      g_bytes_unref (bytes);
      g_free (field);
    }

    append_string (&names, r->names[c]);
    append_double (&mean, &dbl, m);
    append_double (&stddev, &dbl, sd);
    append_uint (&vmin, &uint, mn);
    append_uint (&vmax, &uint, mx);
    append_double (&clo, &dbl, lo);
    append_double (&chi, &dbl, hi);
  }
  if (binned != stack_bins)
    g_free (binned);

  gst_structure_id_take_value (s, q[Q_CHANNELS], &names);
  if (r->counts_mode == GST_CL_HISTOGRAM_COUNTS_ARRAY)
    gst_structure_id_take_value (s, q[Q_COUNTS], &counts);
  else
    g_value_unset (&counts);
  gst_structure_id_take_value (s, q[Q_MEAN], &mean);
  gst_structure_id_take_value (s, q[Q_STDDEV], &stddev);
  gst_structure_id_take_value (s, q[Q_MIN], &vmin);
  gst_structure_id_take_value (s, q[Q_MAX], &vmax);
  gst_structure_id_take_value (s, q[Q_CLIP_LOW], &clo);
  gst_structure_id_take_value (s, q[Q_CLIP_HIGH], &chi);
  return s;
}
