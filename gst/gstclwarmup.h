/* GstClWarmup: preparation that no frame is waiting for yet (program
 * variants, PoCL's first-launch compile of kernels a property change may
 * switch to), done in order on one worker thread with its own command
 * queue on the element's context, so that the streaming thread never runs
 * it. The worker starts shortly (see START_DELAY_US) after it is made or,
 * deferred, after gst_cl_warmup_start(): GstClBaseFilter makes its
 * elements' workers deferred and starts them once the first frame after
 * new caps is done, so that a one-frame pipeline stops before any job
 * begins. Jobs count as compile work (gstclcompilegate.h) from when they
 * may run: queued on a started worker, or at the start (or a wait).
 * gst_cl_warmup_free() drops the jobs that have not begun and waits only
 * for the one in progress. */
#pragma once

#include "gstclcontext.h"

G_BEGIN_DECLS

typedef struct _GstClWarmup GstClWarmup;

/* Runs on the worker thread; @queue is the worker's own (in-order). Must
 * not touch what the streaming thread changes. */
typedef void (*GstClWarmupFunc) (GstClContext * ctx, cl_command_queue queue,
    gpointer data);

/* NULL (with a warning logged) when no queue or thread can be made: the
 * caller then does without. @deferred: the start delay begins only at
 * gst_cl_warmup_start() (or at once when someone waits for a job). */
GstClWarmup *gst_cl_warmup_new (GstClContext * ctx, gboolean deferred);
/* Starts a deferred worker's start delay; nothing if it runs already */
void gst_cl_warmup_start (GstClWarmup * warmup);
/* Queues a job; @notify frees @data when the job is done or dropped.
 * Returns the job's number (from 1, in order). */
guint gst_cl_warmup_add (GstClWarmup * warmup, GstClWarmupFunc func,
    gpointer data, GDestroyNotify notify);
/* Waits until job @job (and so every job before it) is done, starting the
 * worker at once if it is still in its start delay. What the job made is
 * then visible to the caller. */
void gst_cl_warmup_wait (GstClWarmup * warmup, guint job);
/* Whether job @job is done (what it made is then visible), not waiting */
gboolean gst_cl_warmup_is_done (GstClWarmup * warmup, guint job);
/* Waits until every job queued so far is done */
void gst_cl_warmup_wait_all (GstClWarmup * warmup);
void gst_cl_warmup_free (GstClWarmup * warmup);

/* Launches @kernel (arguments set) once on @queue and waits: PoCL compiles
 * a kernel for its work-group size at its first launch. */
cl_int gst_cl_warmup_launch (cl_command_queue queue, cl_kernel kernel,
    cl_uint dims, const gsize * global, const gsize * local);

G_END_DECLS
