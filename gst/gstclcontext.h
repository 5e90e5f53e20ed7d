/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClContext: one OpenCL platform/device/context/queue, shared by every
 * element of the process that uses the same device, and exchanged between
 * elements and applications through a GstContext of type "gst.cl.context". */
#pragma once

#include <gst/gst.h>
#include <CL/cl.h>

G_BEGIN_DECLS

#define GST_CL_CONTEXT_TYPE "gst.cl.context"
/* environment variable that overrides device "auto" */
#define GST_CL_DEVICE_ENV "GST_CL_DEVICE"

#define GST_TYPE_CL_CONTEXT (gst_cl_context_get_type ())
G_DECLARE_FINAL_TYPE (GstClContext, gst_cl_context, GST, CL_CONTEXT, GstObject);

struct _GstClContext
{
  GstObject parent;

  /* read-only after creation */
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;       /* in-order; shared: use only from the streaming thread */

  cl_device_type device_type;
  gchar *device_name;
  gchar *platform_name;
  gchar *vendor;
  gchar *driver_version;
  guint compute_units;
  gsize max_work_group_size;
  cl_ulong local_mem_size;
  gboolean local_mem_is_dedicated;      /* CL_LOCAL, not emulated in global memory */
  guint mem_base_addr_align;    /* bytes */
  cl_ulong max_mem_alloc_size;

  /*< private >*/
  GMutex lock;
  GHashTable *programs;         /* "hash|options" -> cl_program */
  gboolean owns_context;
  gboolean profiling;           /* queue records events ($GST_CL_PROFILE=1) */
};

/* The shared context for the device that @selector names ("auto", "gpu",
 * "cpu", "P:D" or a substring of the device name; NULL = "auto"; "auto"
 * honours $GST_CL_DEVICE). Returns a new reference or NULL with @error set
 * (GST_RESOURCE_ERROR_NOT_FOUND with install advice). */
GstClContext *gst_cl_context_get_shared (const gchar * selector, GError ** error);

/* Wraps an application's cl_context (retained) for @device; makes its own queue */
GstClContext *gst_cl_context_new_wrapped (cl_context context,
    cl_device_id device, GError ** error);

/* Resolves @selector to a device without creating a context */
gboolean gst_cl_device_select (const gchar * selector, cl_platform_id * platform,
    cl_device_id * device, GError ** error);

/* Does @ctx satisfy @selector? "auto" (without $GST_CL_DEVICE) accepts any. */
gboolean gst_cl_context_matches (GstClContext * ctx, const gchar * selector);

static inline gboolean
gst_cl_context_is_gpu (GstClContext * ctx)
{
  return (ctx->device_type & CL_DEVICE_TYPE_GPU) != 0;
}

/* Program cache: built once per (context, source, options); on-disk binary
 * cache ($GST_CL_CACHE_DIR or $XDG_CACHE_HOME/gst-opencl-filters) where the
 * driver keeps none of its own, GST_CL_CACHE=1/0 to force it on/off.
 * @file is a kernels/ file name, e.g. "histogram.cl". Returns a new reference
 * (clReleaseProgram it) or NULL with @error (GST_LIBRARY_ERROR_INIT) and, when
 * the compiler said something, *@build_log (g_free it). */
cl_program gst_cl_context_get_program (GstClContext * ctx, const gchar * file,
    const gchar * options, gchar ** build_log, GError ** error);

/* GstContext plumbing (GstCudaContext style) */
GstContext *gst_cl_context_to_gst_context (GstClContext * ctx);
/* Accepts a "context" field (GstClContext), or "cl-context"/"cl-device"
 * (guint64 handles of an application's own OpenCL objects), or "device"
 * (a selector string). Returns a new reference or NULL. */
GstClContext *gst_cl_context_from_gst_context (GstContext * context, GError ** error);

/* Returns a new reference to the context @element holds, or NULL; the
 * element reads it under its own lock */
typedef GstClContext *(*GstClHeldContextFunc) (GstElement * element);

/* The context @element is to use: the one it holds; else one from its
 * neighbours (downstream, upstream, then NEED_CONTEXT on the bus), which
 * reach it through gst_element_set_context(); else the shared one for
 * @selector, given to the element with gst_element_set_context() and
 * posted as HAVE_CONTEXT. Calls out with no lock of ours held. Returns a
 * new reference, or NULL with @error set (nothing posted). */
GstClContext *gst_cl_ensure_element_context (GstElement * element,
    const gchar * selector, GstClHeldContextFunc held, GError ** error);
/* set_context handler: the context to take from a "gst.cl.context" that
 * matches @selector (a new reference), or NULL. The element stores it only
 * when it holds none: a held context is never replaced. */
GstClContext *gst_cl_handle_set_context (GstElement * element,
    GstContext * context, const gchar * selector);
/* answers a CONTEXT query with @ctx; TRUE when answered */
gboolean gst_cl_handle_context_query (GstElement * element, GstQuery * query,
    GstClContext * ctx);

G_END_DECLS
