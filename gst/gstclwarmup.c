/* Background preparation of kernels, see gstclwarmup.h */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclwarmup.h"
#include "gstclutils.h"
#include "gstclcompilegate.h"

#define GST_CAT_DEFAULT gst_cl_debug

/* The worker starts its first job this long after it is made (deferred:
 * started): a pipeline that stops right after its first frame (a one-shot
 * gst-launch-1.0) then never waits at stop for a compile it will not use,
 * while a running stream still has its other paths ready within about a
 * second. */
#define START_DELAY_US (250 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  GstClWarmupFunc func;
  gpointer data;
  GDestroyNotify notify;
  gboolean gated;               /* counted as compile work */
} Job;

struct _GstClWarmup
{
  GstClContext *ctx;
  cl_command_queue queue;
  GThread *thread;
  GMutex lock;
  GCond cond;
  GQueue jobs;                  /* of Job, under @lock */
  guint added, done;            /* jobs so far, under @lock */
  gint64 start_at;              /* first job not before (monotonic µs; 0:
                                 * deferred, not started), under @lock */
  gboolean hurry;               /* someone waits: no start delay */
  gboolean gating;              /* started or hurried: jobs count as compile
                                 * work (a deferred worker's only then, so
                                 * that one whose first frame never comes
                                 * holds up no live stream), under @lock */
  gboolean stopping;            /* under @lock */
};

/* a job counts as compile work from queued (a deferred worker's: from its
 * start) to done or dropped */
static void
job_free (Job * job)
{
  if (job->notify)
    job->notify (job->data);
  if (job->gated)
    gst_cl_compile_gate_leave ();
  g_free (job);
}

/* under @lock: from now on every job counts as compile work */
static void
start_gating (GstClWarmup * w)
{
  GList *l;

  if (w->gating)
    return;
  w->gating = TRUE;
  for (l = w->jobs.head; l; l = l->next) {
    Job *job = l->data;

    job->gated = TRUE;
    gst_cl_compile_gate_enter ();
  }
}

static gpointer
warmup_thread (gpointer data)
{
  GstClWarmup *w = data;

  g_mutex_lock (&w->lock);
  while (!w->stopping && !w->hurry) {
    if (w->start_at == 0)
      g_cond_wait (&w->cond, &w->lock);
    else if (!g_cond_wait_until (&w->cond, &w->lock, w->start_at))
      break;
  }
  while (TRUE) {
    Job *job;
    gint64 start;

    while (!w->stopping && g_queue_is_empty (&w->jobs))
      g_cond_wait (&w->cond, &w->lock);
    if (w->stopping)
      break;
    job = g_queue_pop_head (&w->jobs);
    g_mutex_unlock (&w->lock);

    start = g_get_monotonic_time ();
    job->func (w->ctx, w->queue, job->data);
    GST_DEBUG ("warm-up job done in %.1f ms",
        (g_get_monotonic_time () - start) / 1000.0);
    job_free (job);

    g_mutex_lock (&w->lock);
    w->done++;
    g_cond_broadcast (&w->cond);
  }
  g_mutex_unlock (&w->lock);
  return NULL;
}

GstClWarmup *
gst_cl_warmup_new (GstClContext * ctx, gboolean deferred)
{
  GstClWarmup *w;
  GError *error = NULL;
  cl_int err;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);

  w = g_new0 (GstClWarmup, 1);
  w->queue = clCreateCommandQueue (ctx->context, ctx->device, 0, &err);
  if (!gst_cl_check (err, "clCreateCommandQueue")) {
    GST_WARNING ("no background warm-up: no second command queue");
    g_free (w);
    return NULL;
  }
  w->ctx = gst_object_ref (ctx);
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  g_queue_init (&w->jobs);
  if (!deferred) {
    w->start_at = g_get_monotonic_time () + START_DELAY_US;
    w->gating = TRUE;
  }
  w->thread = g_thread_try_new ("clwarmup", warmup_thread, w, &error);
  if (!w->thread) {
    GST_WARNING ("no background warm-up: %s", error->message);
    g_clear_error (&error);
    gst_cl_warmup_free (w);
    return NULL;
  }
  return w;
}

void
gst_cl_warmup_start (GstClWarmup * w)
{
  g_mutex_lock (&w->lock);
  if (w->start_at == 0) {
    w->start_at = g_get_monotonic_time () + START_DELAY_US;
    start_gating (w);
    g_cond_broadcast (&w->cond);
  }
  g_mutex_unlock (&w->lock);
}

guint
gst_cl_warmup_add (GstClWarmup * w, GstClWarmupFunc func, gpointer data,
    GDestroyNotify notify)
{
  Job *job = g_new (Job, 1);
  guint n;

  job->func = func;
  job->data = data;
  job->notify = notify;
  g_mutex_lock (&w->lock);
  job->gated = w->gating;
  if (job->gated)
    gst_cl_compile_gate_enter ();
  g_queue_push_tail (&w->jobs, job);
  n = ++w->added;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  return n;
}

void
gst_cl_warmup_wait (GstClWarmup * w, guint job)
{
  gint64 start = g_get_monotonic_time ();

  g_mutex_lock (&w->lock);
  if (w->done < job) {
    w->hurry = TRUE;
    start_gating (w);
    g_cond_broadcast (&w->cond);
    while (w->done < job && !w->stopping)
      g_cond_wait (&w->cond, &w->lock);
    GST_INFO ("waited %.1f ms for warm-up job %u",
        (g_get_monotonic_time () - start) / 1000.0, job);
  }
  g_mutex_unlock (&w->lock);
}

gboolean
gst_cl_warmup_is_done (GstClWarmup * w, guint job)
{
  gboolean done;

  g_mutex_lock (&w->lock);
  done = w->done >= job;
  g_mutex_unlock (&w->lock);
  return done;
}

void
gst_cl_warmup_wait_all (GstClWarmup * w)
{
  guint last;

  g_mutex_lock (&w->lock);
  last = w->added;
  g_mutex_unlock (&w->lock);
  gst_cl_warmup_wait (w, last);
}

void
gst_cl_warmup_free (GstClWarmup * w)
{
  if (!w)
    return;
  g_mutex_lock (&w->lock);
  w->stopping = TRUE;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  if (w->thread)
    g_thread_join (w->thread);
  g_queue_clear_full (&w->jobs, (GDestroyNotify) job_free);
  clReleaseCommandQueue (w->queue);
  gst_object_unref (w->ctx);
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
  g_free (w);
}

cl_int
gst_cl_warmup_launch (cl_command_queue queue, cl_kernel kernel, cl_uint dims,
    const gsize * global, const gsize * local)
{
  cl_int err = clEnqueueNDRangeKernel (queue, kernel, dims, NULL, global,
      local, 0, NULL, NULL);

  return err == CL_SUCCESS ? clFinish (queue) : err;
}
