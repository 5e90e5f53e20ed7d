/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The process's kernel compiles, counted, so that a live stream can start
 * streaming only when no other element is compiling.
 *
 * PoCL compiles a kernel for its work-group size at its first launch while
 * holding a process-wide lock that every later launch of any kernel takes:
 * while one element compiles, every other stream of the process stops.
 * Elements count what compiles (caps-time preparation, the first frame
 * after new caps, queued and running warm-up jobs); a live element holds
 * its first output until the count is zero, so pipelines started together
 * pay all their compiles before the first frame instead of stalling each
 * other in mid-stream. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* Compile work begins / ends; calls pair up. */
void gst_cl_compile_gate_enter (void);
void gst_cl_compile_gate_leave (void);

/* Waits until no compile work has been counted for a short while (see
 * QUIET_US), at most @max_wait (µs), and
 * returns early when @pad starts flushing (the pipeline is stopping).
 * Returns TRUE when the count reached zero. Never call it between enter
 * and leave. */
gboolean gst_cl_compile_gate_wait (GstPad * pad, gint64 max_wait);

G_END_DECLS
