/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclutils.h"

#define GST_CAT_DEFAULT gst_cl_debug

const gchar *
gst_cl_error_name (cl_int err)
{
  switch (err) {
#define CASE(x) case x: return #x
      CASE (CL_SUCCESS);
      CASE (CL_DEVICE_NOT_FOUND);
      CASE (CL_DEVICE_NOT_AVAILABLE);
      CASE (CL_COMPILER_NOT_AVAILABLE);
      CASE (CL_MEM_OBJECT_ALLOCATION_FAILURE);
      CASE (CL_OUT_OF_RESOURCES);
      CASE (CL_OUT_OF_HOST_MEMORY);
      CASE (CL_PROFILING_INFO_NOT_AVAILABLE);
      CASE (CL_MEM_COPY_OVERLAP);
      CASE (CL_IMAGE_FORMAT_MISMATCH);
      CASE (CL_IMAGE_FORMAT_NOT_SUPPORTED);
      CASE (CL_BUILD_PROGRAM_FAILURE);
      CASE (CL_MAP_FAILURE);
      CASE (CL_MISALIGNED_SUB_BUFFER_OFFSET);
      CASE (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      CASE (CL_COMPILE_PROGRAM_FAILURE);
      CASE (CL_LINKER_NOT_AVAILABLE);
      CASE (CL_LINK_PROGRAM_FAILURE);
      CASE (CL_DEVICE_PARTITION_FAILED);
      CASE (CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
      CASE (CL_INVALID_VALUE);
      CASE (CL_INVALID_DEVICE_TYPE);
      CASE (CL_INVALID_PLATFORM);
      CASE (CL_INVALID_DEVICE);
      CASE (CL_INVALID_CONTEXT);
      CASE (CL_INVALID_QUEUE_PROPERTIES);
      CASE (CL_INVALID_COMMAND_QUEUE);
      CASE (CL_INVALID_HOST_PTR);
      CASE (CL_INVALID_MEM_OBJECT);
      CASE (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
      CASE (CL_INVALID_IMAGE_SIZE);
      CASE (CL_INVALID_SAMPLER);
      CASE (CL_INVALID_BINARY);
      CASE (CL_INVALID_BUILD_OPTIONS);
      CASE (CL_INVALID_PROGRAM);
      CASE (CL_INVALID_PROGRAM_EXECUTABLE);
      CASE (CL_INVALID_KERNEL_NAME);
      CASE (CL_INVALID_KERNEL_DEFINITION);
      CASE (CL_INVALID_KERNEL);
      CASE (CL_INVALID_ARG_INDEX);
      CASE (CL_INVALID_ARG_VALUE);
      CASE (CL_INVALID_ARG_SIZE);
      CASE (CL_INVALID_KERNEL_ARGS);
      CASE (CL_INVALID_WORK_DIMENSION);
      CASE (CL_INVALID_WORK_GROUP_SIZE);
      CASE (CL_INVALID_WORK_ITEM_SIZE);
      CASE (CL_INVALID_GLOBAL_OFFSET);
      CASE (CL_INVALID_EVENT_WAIT_LIST);
      CASE (CL_INVALID_EVENT);
      CASE (CL_INVALID_OPERATION);
      CASE (CL_INVALID_GL_OBJECT);
      CASE (CL_INVALID_BUFFER_SIZE);
      CASE (CL_INVALID_MIP_LEVEL);
      CASE (CL_INVALID_GLOBAL_WORK_SIZE);
      CASE (CL_INVALID_PROPERTY);
      CASE (CL_INVALID_IMAGE_DESCRIPTOR);
      CASE (CL_INVALID_COMPILER_OPTIONS);
      CASE (CL_INVALID_LINKER_OPTIONS);
      CASE (CL_INVALID_DEVICE_PARTITION_COUNT);
#undef CASE
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "CL_UNKNOWN_ERROR";
  }
}

gboolean
_gst_cl_check (cl_int err, const gchar * call, const gchar * file,
    const gchar * func, gint line)
{
  if (G_LIKELY (err == CL_SUCCESS))
    return TRUE;

  gst_debug_log (gst_cl_debug, GST_LEVEL_ERROR, file, func, line, NULL,
      "OpenCL error %s (%d) during call: %s", gst_cl_error_name (err), err,
      call);
  return FALSE;
}

void
gst_cl_set_error (GError ** error, GQuark domain, gint code, cl_int err,
    const gchar * call, const gchar * what)
{
  g_set_error (error, domain, code, "%s: OpenCL error %s (%d) during call: %s",
      what, gst_cl_error_name (err), err, call);
}
