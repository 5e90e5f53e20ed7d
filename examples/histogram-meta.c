/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* histogram-meta: frame-accurate histograms from clhistogram in C.
 *
 * Runs `videotestsrc ! clhistogram attach-meta=true ! fakesink` and reads
 * the red channel's counts and mean twice: from the "histogram" bus
 * messages and from the GstClHistogramMeta on each buffer (a pad probe on
 * clhistogram's source pad). Prints both and exits 0 when every frame's
 * meta equals its message, 1 otherwise, 77 when there is no OpenCL device.
 *
 *     GST_PLUGIN_PATH=build/gst build/examples/histogram-meta [--num-buffers N]
 */
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>

#define META_NAME "GstClHistogramMeta"

typedef struct
{
  GstClockTime pts;
  gdouble mean;
  guint64 *counts;
  guint bins;
} RedChannel;

static void
red_channel_free (gpointer p)
{
  RedChannel *r = p;

  g_free (r->counts);
  g_free (r);
}

/* The red channel of a "histogram" structure (the message's or the meta's:
 * the same layout), or NULL when the frame has none */
static RedChannel *
read_red (const GstStructure * s)
{
  const GValue *names = gst_structure_get_value (s, "channels");
  const GValue *counts, *means, *red_counts;
  RedChannel *r;
  guint i, b, n;

  if (!names)
    return NULL;
  for (i = 0; i < gst_value_array_get_size (names); i++)
    if (!g_strcmp0 (g_value_get_string (gst_value_array_get_value (names, i)),
            "red"))
      break;
  if (i == gst_value_array_get_size (names))
    return NULL;

  counts = gst_structure_get_value (s, "counts");
  means = gst_structure_get_value (s, "mean");
  red_counts = gst_value_array_get_value (counts, i);
  n = gst_value_array_get_size (red_counts);
  r = g_new0 (RedChannel, 1);
  gst_structure_get_uint64 (s, "timestamp", &r->pts);
  r->mean = g_value_get_double (gst_value_array_get_value (means, i));
  r->bins = n;
  r->counts = g_new (guint64, n);
  for (b = 0; b < n; b++)
    r->counts[b] = g_value_get_uint64 (gst_value_array_get_value (red_counts,
            b));
  return r;
}

static void
print_red (const gchar * from, const RedChannel * r)
{
  guint64 total = 0;
  guint b, peak = 0;

  for (b = 0; b < r->bins; b++) {
    total += r->counts[b];
    if (r->counts[b] > r->counts[peak])
      peak = b;
  }
  g_print ("%-7s pts %" GST_TIME_FORMAT ": red mean %7.3f, %" G_GUINT64_FORMAT
      " samples, fullest bin %u (%" G_GUINT64_FORMAT ")\n", from,
      GST_TIME_ARGS (r->pts), r->mean, total, peak, r->counts[peak]);
}

/* streaming thread: the meta rides on the very buffer it describes */
static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GQueue *metas = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCustomMeta *meta = gst_buffer_get_custom_meta (buf, META_NAME);
  RedChannel *r;

  if (!meta) {
    g_printerr ("buffer %" GST_TIME_FORMAT " has no " META_NAME "\n",
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
    return GST_PAD_PROBE_OK;
  }
  r = read_red (gst_custom_meta_get_structure (meta));
  if (r)
    g_queue_push_tail (metas, r);       /* the main thread reads it after EOS */
  return GST_PAD_PROBE_OK;
}

static gboolean
same (const RedChannel * a, const RedChannel * b)
{
  return a->pts == b->pts && a->mean == b->mean && a->bins == b->bins &&
      memcmp (a->counts, b->counts, a->bins * sizeof (guint64)) == 0;
}

int
main (int argc, char **argv)
{
  gint num_buffers = 5;
  GOptionEntry entries[] = {
    {"num-buffers", 'n', 0, G_OPTION_ARG_INT, &num_buffers,
        "Frames to analyse (default 5)", "N"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- clhistogram meta example");
  GError *err = NULL;
  GstElement *pipeline, *hist;
  GstPad *src;
  GstBus *bus;
  GQueue messages = G_QUEUE_INIT, metas = G_QUEUE_INIT;
  gchar *desc;
  gboolean done = FALSE;
  gint rc = 0;
  GList *m, *k;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (octx);

  desc = g_strdup_printf ("videotestsrc pattern=smpte num-buffers=%d ! "
      "video/x-raw,format=RGBA,width=320,height=240 ! "
      "clhistogram name=hist attach-meta=true bins=64 ! fakesink",
      num_buffers);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    g_printerr ("Could not build the pipeline: %s\n"
        "Is the plugin found? Try GST_PLUGIN_PATH=build/gst.\n", err->message);
    return 1;
  }
  hist = gst_bin_get_by_name (GST_BIN (pipeline), "hist");
  src = gst_element_get_static_pad (hist, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &metas, NULL);
  gst_object_unref (src);
  gst_object_unref (hist);

  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop (bus, 60 * GST_SECOND);

    if (!msg) {
      g_printerr ("No EOS within 60 s\n");
      rc = 1;
      break;
    }
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:{
        const GstStructure *s = gst_message_get_structure (msg);
        RedChannel *r;

        if (gst_structure_has_name (s, "histogram") && (r = read_red (s)))
          g_queue_push_tail (&messages, r);
        break;
      }
      case GST_MESSAGE_ERROR:{
        gchar *dbg = NULL;

        gst_message_parse_error (msg, &err, &dbg);
        g_printerr ("Error: %s\n%s\n", err->message, dbg ? dbg : "");
        /* the device runtime missing: skipped, not failed */
        rc = g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NOT_FOUND) ? 77 : 1;
        g_clear_error (&err);
        g_free (dbg);
        done = TRUE;
        break;
      }
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);

  if (rc == 0) {
    for (m = messages.head, k = metas.head; m && k; m = m->next, k = k->next) {
      print_red ("message", m->data);
      print_red ("meta", k->data);
      if (!same (m->data, k->data)) {
        g_printerr ("  the meta differs from the message\n");
        rc = 1;
      }
    }
    if (messages.length != (guint) num_buffers ||
        metas.length != messages.length) {
      g_printerr ("%u messages, %u metas for %d frames\n", messages.length,
          metas.length, num_buffers);
      rc = 1;
    }
  }
  g_queue_clear_full (&messages, red_channel_free);
  g_queue_clear_full (&metas, red_channel_free);
  return rc;
}
