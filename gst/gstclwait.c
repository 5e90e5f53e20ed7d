/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclwait.h"

#include <sched.h>

/* A thread that sleeps on an event is woken by whoever completes it: on a
 * CPU device, the driver's worker thread. When the sleeping thread's core
 * has gone idle, the wake-up costs a few microseconds on bare metal and
 * tens on a virtual machine whose idle vCPUs halt (a VM exit): as much as
 * a small frame's whole kernel. So the wait for a small frame is polled
 * for up to GST_CL_WAIT_POLL_US first, as GPU runtimes spin before they
 * yield; each poll yields the core to any thread ready on it.
 *
 * Larger frames always sleep. Their wake-up is a small part of the frame,
 * and a polling thread holds a core that the driver's threads need: the
 * scheduler then puts the waking workers together on the other core, and
 * 640x480 GRAY8 frames on a 2-core PoCL host took twice as long. A poll
 * that runs out (a slow device, a loaded host) makes the next
 * GST_CL_WAIT_SKIP waits sleep at once; the one after tries again. */
static cl_int
poll_status (cl_event event)
{
  gint64 end = g_get_monotonic_time () + GST_CL_WAIT_POLL_US;
  cl_int status = CL_QUEUED;

  while (clGetEventInfo (event, CL_EVENT_COMMAND_EXECUTION_STATUS,
          sizeof (status), &status, NULL) == CL_SUCCESS &&
      status > CL_COMPLETE && g_get_monotonic_time () < end)
    sched_yield ();
  return status;
}

cl_int
gst_cl_wait (GstClWaiter * waiter, cl_command_queue queue, cl_event event,
    gsize bytes)
{
  cl_int status = CL_QUEUED, err;

  err = clFlush (queue);
  if (err != CL_SUCCESS)
    return err;
  if (bytes <= GST_CL_WAIT_POLL_BYTES) {
    if (waiter->skip > 0)
      waiter->skip--;
    else if ((status = poll_status (event)) > CL_COMPLETE)
      waiter->skip = GST_CL_WAIT_SKIP;
  }
  if (status > CL_COMPLETE) {
    err = clWaitForEvents (1, &event);
    /* a failed command: its own status says why */
    if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
      clGetEventInfo (event, CL_EVENT_COMMAND_EXECUTION_STATUS,
          sizeof (status), &status, NULL);
  }
  return status < 0 ? status : err;
}
