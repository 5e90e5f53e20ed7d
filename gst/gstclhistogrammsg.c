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

static void
append (GValue * array, GType type, gconstpointer v)
{
  GValue item = G_VALUE_INIT;

  g_value_init (&item, type);
  switch (type) {
    case G_TYPE_UINT64:
      g_value_set_uint64 (&item, *(const guint64 *) v);
      break;
    case G_TYPE_UINT:
      g_value_set_uint (&item, *(const guint *) v);
      break;
    case G_TYPE_DOUBLE:
      g_value_set_double (&item, *(const gdouble *) v);
      break;
    case G_TYPE_STRING:
      g_value_set_string (&item, (const gchar *) v);
      break;
    default:
      g_assert_not_reached ();
  }
  gst_value_array_append_and_take_value (array, &item);
}

static void
take_array (GstStructure * s, const gchar * field, GValue * array)
{
  gst_structure_take_value (s, field, array);
}

GstStructure *
gst_cl_histogram_make_structure (const GstClHistogramResult * r)
{
  GstStructure *s;
  GValue names = G_VALUE_INIT, counts = G_VALUE_INIT, mean = G_VALUE_INIT,
      stddev = G_VALUE_INIT, vmin = G_VALUE_INIT, vmax = G_VALUE_INIT,
      clo = G_VALUE_INIT, chi = G_VALUE_INIT;
  guint64 *binned = g_new (guint64, r->bins);
  guint c, v, b;

  s = gst_structure_new ("histogram",
      "timestamp", G_TYPE_UINT64, r->timestamp,
      "stream-time", G_TYPE_UINT64, r->stream_time,
      "running-time", G_TYPE_UINT64, r->running_time,
      "duration", G_TYPE_UINT64, r->duration,
      "width", G_TYPE_INT, r->width, "height", G_TYPE_INT, r->height,
      "roi-x", G_TYPE_INT, r->roi_x, "roi-y", G_TYPE_INT, r->roi_y,
      "roi-width", G_TYPE_INT, r->roi_width,
      "roi-height", G_TYPE_INT, r->roi_height,
      "frames", G_TYPE_UINT64, r->frames, "pixels", G_TYPE_UINT64, r->pixels,
      "bins", G_TYPE_UINT, r->bins, NULL);

  g_value_init (&names, GST_TYPE_ARRAY);
  g_value_init (&counts, GST_TYPE_ARRAY);
  g_value_init (&mean, GST_TYPE_ARRAY);
  g_value_init (&stddev, GST_TYPE_ARRAY);
  g_value_init (&vmin, GST_TYPE_ARRAY);
  g_value_init (&vmax, GST_TYPE_ARRAY);
  g_value_init (&clo, GST_TYPE_ARRAY);
  g_value_init (&chi, GST_TYPE_ARRAY);

  for (c = 0; c < r->n_channels; c++) {
    const guint64 *h = r->counts + (gsize) c * r->range;
    GValue ch_counts = G_VALUE_INIT;
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
      g_value_init (&ch_counts, GST_TYPE_ARRAY);
      for (b = 0; b < r->bins; b++)
        append (&ch_counts, G_TYPE_UINT64, &binned[b]);
      gst_value_array_append_and_take_value (&counts, &ch_counts);
    } else if (r->counts_mode == GST_CL_HISTOGRAM_COUNTS_BYTES) {
      /* one GValue per channel instead of one per bin: 65536 bins cost a
       * copy of 512 KiB, not 65536 GValues */
      gchar *field = g_strconcat ("counts-", r->names[c], NULL);
      GBytes *bytes = g_bytes_new (binned, r->bins * sizeof (guint64));

      gst_structure_set (s, field, G_TYPE_BYTES, bytes, NULL);
      g_bytes_unref (bytes);
      g_free (field);
    }

    append (&names, G_TYPE_STRING, r->names[c]);
    append (&mean, G_TYPE_DOUBLE, &m);
    append (&stddev, G_TYPE_DOUBLE, &sd);
    append (&vmin, G_TYPE_UINT, &mn);
    append (&vmax, G_TYPE_UINT, &mx);
    append (&clo, G_TYPE_DOUBLE, &lo);
    append (&chi, G_TYPE_DOUBLE, &hi);
  }
  g_free (binned);

  take_array (s, "channels", &names);
  if (r->counts_mode == GST_CL_HISTOGRAM_COUNTS_ARRAY)
    take_array (s, "counts", &counts);
  else
    g_value_unset (&counts);
  take_array (s, "mean", &mean);
  take_array (s, "stddev", &stddev);
  take_array (s, "min", &vmin);
  take_array (s, "max", &vmax);
  take_array (s, "clip-low", &clo);
  take_array (s, "clip-high", &chi);
  return s;
}
