/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Waiting for a frame's commands: short waits are polled, not slept. */
#pragma once

#include <gst/gst.h>
#include <CL/cl.h>

G_BEGIN_DECLS

/* Waits for commands on at most this many bytes are polled before the
 * thread sleeps, for at most GST_CL_WAIT_POLL_US */
#define GST_CL_WAIT_POLL_BYTES (64 * 1024)
#define GST_CL_WAIT_POLL_US 100
/* Waits that sleep at once after a poll that ran out */
#define GST_CL_WAIT_SKIP 15

/* One caller's recent waits (zero-initialised: the first wait polls) */
typedef struct
{
  guint skip;                   /* waits left that sleep without a poll */
} GstClWaiter;

/* Flushes @queue and waits until @event is complete; @bytes: how much
 * memory the commands waited for work on (the frame's size). Returns the
 * event's error (a negative status) or CL_SUCCESS. Does not release
 * @event. */
cl_int gst_cl_wait (GstClWaiter * waiter, cl_command_queue queue,
    cl_event event, gsize bytes);

G_END_DECLS
