/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Process-wide count of compile work, see gstclcompilegate.h */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclcompilegate.h"
#include "gstclutils.h"

#define GST_CAT_DEFAULT gst_cl_debug

/* how often a waiter looks at its pad's flushing flag: stopping a pipeline
 * never waits for another pipeline's compile longer than this */
#define POLL_US (20 * G_TIME_SPAN_MILLISECOND)

/* how long the count must stay zero: the element after a live one in the
 * same pipeline begins its first frame (and its compiles) only once the
 * first has pushed its own, a moment after the count first reached zero */
#define QUIET_US (20 * G_TIME_SPAN_MILLISECOND)

static GMutex gate_lock;
static GCond gate_cond;
static guint gate_busy;         /* under gate_lock */
static guint64 gate_entries;    /* enter calls so far, under gate_lock */

void
gst_cl_compile_gate_enter (void)
{
  g_mutex_lock (&gate_lock);
  gate_busy++;
  gate_entries++;
  g_mutex_unlock (&gate_lock);
}

void
gst_cl_compile_gate_leave (void)
{
  g_mutex_lock (&gate_lock);
  g_assert (gate_busy > 0);
  if (--gate_busy == 0)
    g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_lock);
}

gboolean
gst_cl_compile_gate_wait (GstPad * pad, gint64 max_wait)
{
  gint64 start = g_get_monotonic_time (), end = start + max_wait;
  gint64 quiet_since = -1;
  guint64 entries = 0;
  gboolean idle = FALSE;

  g_mutex_lock (&gate_lock);
  while (!GST_PAD_IS_FLUSHING (pad)) {
    gint64 now = g_get_monotonic_time ();

    if (gate_busy > 0 || (quiet_since >= 0 && gate_entries != entries)) {
      quiet_since = -1;
    } else if (quiet_since < 0) {
      quiet_since = now;
      entries = gate_entries;
    } else if (now - quiet_since >= QUIET_US) {
      idle = TRUE;
      break;
    }
    if (now >= end)
      break;
    g_cond_wait_until (&gate_cond, &gate_lock, MIN (end, now +
            (quiet_since >= 0 ? quiet_since + QUIET_US - now : POLL_US)));
  }
  g_mutex_unlock (&gate_lock);
  if (g_get_monotonic_time () - start > 2 * QUIET_US)
    GST_INFO_OBJECT (pad, "waited %.1f ms for compiles in the process%s",
        (g_get_monotonic_time () - start) / 1000.0, idle ? "" :
        GST_PAD_IS_FLUSHING (pad) ? " (stopping)" : " (gave up)");
  return idle;
}
