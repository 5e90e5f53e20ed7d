/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClContext: device selection, the process-wide context per device, and
 * GstContext sharing between elements (query downstream, upstream, then ask
 * the application, else create and announce), as GStreamer's CUDA and GL
 * elements share theirs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <stdlib.h>

#include "gstclcontext.h"
#include "gstclutils.h"

#define GST_CAT_DEFAULT gst_cl_debug

G_DEFINE_TYPE (GstClContext, gst_cl_context, GST_TYPE_OBJECT);

#define INSTALL_ADVICE \
  "Install an OpenCL driver: pocl-opencl-icd for the CPU, or your GPU " \
  "vendor's OpenCL ICD; `clinfo -l` lists the devices the ICD loader sees."

/* Serialises every call that enumerates devices or creates or releases
 * contexts: ICD loaders and drivers (PoCL) initialise themselves lazily
 * inside clGetPlatformIDs, and a second thread reading a device's info or
 * creating a context meanwhile crashes. */
static GMutex runtime_lock;

/* device -> its shared GstClContext, kept for the life of the process: a
 * pipeline started again (or a second one) finds its programs built, and
 * no process pays to tear a context down at exit (PoCL frees its built-in
 * kernel library and every program with the last context: 0.15-0.3 s).
 * GST_CL_CONTEXT_KEEP=0 (tests of the on-disk cache): each context dies
 * with its last user, as GWeakRef entries of the same table. */
static GMutex shared_lock;
static GHashTable *shared_contexts;

typedef struct
{
  GstClContext *kept;           /* NULL with GST_CL_CONTEXT_KEEP=0 */
  GWeakRef weak;
} SharedEntry;

static gboolean
contexts_kept (void)
{
  return g_strcmp0 (g_getenv ("GST_CL_CONTEXT_KEEP"), "0") != 0;
}

static void
gst_cl_context_finalize (GObject * object)
{
  GstClContext *self = GST_CL_CONTEXT (object);

  g_hash_table_unref (self->programs);
  /* PoCL tears its devices down with the last context: not while another
   * thread creates one */
  g_mutex_lock (&runtime_lock);
  if (self->queue)
    clReleaseCommandQueue (self->queue);
  if (self->context)
    clReleaseContext (self->context);
  g_mutex_unlock (&runtime_lock);
  g_free (self->device_name);
  g_free (self->platform_name);
  g_free (self->vendor);
  g_free (self->driver_version);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gst_cl_context_parent_class)->finalize (object);
}

static void
gst_cl_context_class_init (GstClContextClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_context_finalize;
}

static void
release_program (gpointer program)
{
  clReleaseProgram (program);
}

static void
gst_cl_context_init (GstClContext * self)
{
  g_mutex_init (&self->lock);
  self->programs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      release_program);
}

static gchar *
device_string (cl_device_id device, cl_device_info param)
{
  size_t size = 0;
  gchar *str;

  if (clGetDeviceInfo (device, param, 0, NULL, &size) != CL_SUCCESS)
    return g_strdup ("");
  str = g_malloc0 (size + 1);
  clGetDeviceInfo (device, param, size, str, NULL);
  return g_strstrip (str);
}

static gchar *
platform_string (cl_platform_id platform, cl_platform_info param)
{
  size_t size = 0;
  gchar *str;

  if (clGetPlatformInfo (platform, param, 0, NULL, &size) != CL_SUCCESS)
    return g_strdup ("");
  str = g_malloc0 (size + 1);
  clGetPlatformInfo (platform, param, size, str, NULL);
  return g_strstrip (str);
}

typedef struct
{
  cl_platform_id platform;
  cl_device_id device;
  cl_device_type type;
  guint platform_index, device_index;
  gchar *name;
} DeviceEntry;

/* Every device of every platform, in platform then device order; made
 * once per process (the ICD loader's list does not change either) */
static gpointer
enumerate_devices (gpointer unused)
{
  GArray *list = g_array_new (FALSE, TRUE, sizeof (DeviceEntry));
  cl_platform_id platforms[16];
  cl_uint n_platforms = 0, p;

  g_mutex_lock (&runtime_lock);
  if (clGetPlatformIDs (G_N_ELEMENTS (platforms), platforms, &n_platforms)
      != CL_SUCCESS)
    n_platforms = 0;
  n_platforms = MIN (n_platforms, G_N_ELEMENTS (platforms));

  for (p = 0; p < n_platforms; p++) {
    cl_device_id devices[32];
    cl_uint n_devices = 0, d;

    if (clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL,
            G_N_ELEMENTS (devices), devices, &n_devices) != CL_SUCCESS)
      continue;
    for (d = 0; d < MIN (n_devices, G_N_ELEMENTS (devices)); d++) {
      DeviceEntry e = { platforms[p], devices[d], 0, p, d, NULL };

      clGetDeviceInfo (devices[d], CL_DEVICE_TYPE, sizeof (e.type), &e.type,
          NULL);
      e.name = device_string (devices[d], CL_DEVICE_NAME);
      g_array_append_val (list, e);
    }
  }
  g_mutex_unlock (&runtime_lock);
  GST_INFO ("%u OpenCL device(s) on %u platform(s)", list->len, n_platforms);
  return list;
}

/* the process's device list (never freed; read-only once made) */
static GArray *
list_devices (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, enumerate_devices, NULL);
}

static const gchar *
effective_selector (const gchar * selector)
{
  const gchar *env;

  if (selector && *selector && g_ascii_strcasecmp (selector, "auto") != 0)
    return selector;
  env = g_getenv (GST_CL_DEVICE_ENV);
  return (env && *env) ? env : "auto";
}

static const DeviceEntry *
first_of_type (GArray * list, cl_device_type type)
{
  guint i;

  for (i = 0; i < list->len; i++) {
    DeviceEntry *e = &g_array_index (list, DeviceEntry, i);
    if (e->type & type)
      return e;
  }
  return NULL;
}

static const DeviceEntry *
find_device (GArray * list, const gchar * sel)
{
  guint pi, di;
  gchar *end = NULL;
  guint i;

  if (!g_ascii_strcasecmp (sel, "auto")) {
    const DeviceEntry *e = first_of_type (list, CL_DEVICE_TYPE_GPU);
    if (!e)
      e = first_of_type (list, CL_DEVICE_TYPE_ACCELERATOR);
    if (!e)
      e = first_of_type (list, CL_DEVICE_TYPE_CPU);
    if (!e && list->len)
      e = &g_array_index (list, DeviceEntry, 0);
    return e;
  }
  if (!g_ascii_strcasecmp (sel, "gpu"))
    return first_of_type (list, CL_DEVICE_TYPE_GPU);
  if (!g_ascii_strcasecmp (sel, "cpu"))
    return first_of_type (list, CL_DEVICE_TYPE_CPU);
  if (!g_ascii_strcasecmp (sel, "accelerator"))
    return first_of_type (list, CL_DEVICE_TYPE_ACCELERATOR);

  /* "P:D" indices */
  if (g_ascii_isdigit (sel[0])) {
    pi = strtoul (sel, &end, 10);
    if (end && *end == ':' && g_ascii_isdigit (end[1])) {
      di = strtoul (end + 1, &end, 10);
      if (end && *end == '\0') {
        for (i = 0; i < list->len; i++) {
          DeviceEntry *e = &g_array_index (list, DeviceEntry, i);
          if (e->platform_index == pi && e->device_index == di)
            return e;
        }
        return NULL;
      }
    }
  }

  /* a case-insensitive substring of the device name */
  for (i = 0; i < list->len; i++) {
    DeviceEntry *e = &g_array_index (list, DeviceEntry, i);
    gchar *lname = g_ascii_strdown (e->name, -1), *lsel = g_ascii_strdown (sel, -1);
    gboolean hit = strstr (lname, lsel) != NULL;

    g_free (lname);
    g_free (lsel);
    if (hit)
      return e;
  }
  return NULL;
}

static const gchar *
device_type_name (cl_device_type type)
{
  if (type & CL_DEVICE_TYPE_GPU)
    return "GPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR)
    return "accelerator";
  if (type & CL_DEVICE_TYPE_CPU)
    return "CPU";
  return "other";
}

/* The first device matching one of the comma-separated alternatives of
 * @sel ("gpu,cpu": a GPU, else a CPU) */
static const DeviceEntry *
find_first_device (GArray * list, const gchar * sel)
{
  gchar **alternatives = g_strsplit (sel, ",", -1);
  const DeviceEntry *e = NULL;
  guint i;

  for (i = 0; !e && alternatives[i]; i++) {
    g_strstrip (alternatives[i]);
    if (*alternatives[i])
      e = find_device (list, alternatives[i]);
  }
  g_strfreev (alternatives);
  return e;
}

gboolean
gst_cl_device_select (const gchar * selector, cl_platform_id * platform,
    cl_device_id * device, GError ** error)
{
  const gchar *sel = effective_selector (selector);
  GArray *list = list_devices ();
  const DeviceEntry *e;

  if (list->len == 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "No OpenCL device found. " INSTALL_ADVICE);
    return FALSE;
  }

  e = find_first_device (list, sel);
  if (!e) {
    GString *have = g_string_new (NULL);
    guint i;

    /* a driver is there: say what it offers, not what to install */
    for (i = 0; i < list->len; i++) {
      const DeviceEntry *d = &g_array_index (list, DeviceEntry, i);
      g_string_append_printf (have, "%s%u:%u \"%s\" (%s)", i ? ", " : "",
          d->platform_index, d->device_index, d->name,
          device_type_name (d->type));
    }
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "No OpenCL device matches \"%s\". Devices present: %s. Choose one "
        "of them (valid: auto, gpu, cpu, accelerator, PLATFORM:DEVICE or "
        "part of a device name), or give alternatives such as \"gpu,cpu\" (the "
        "first that matches is used); a missing GPU needs its vendor's "
        "OpenCL ICD (`clinfo -l` lists what the ICD loader sees).", sel,
        have->str);
    g_string_free (have, TRUE);
    return FALSE;
  }
  if (platform)
    *platform = e->platform;
  if (device)
    *device = e->device;
  return TRUE;
}

gboolean
gst_cl_context_matches (GstClContext * ctx, const gchar * selector)
{
  const gchar *sel = effective_selector (selector);
  cl_device_id device;

  if (!g_ascii_strcasecmp (sel, "auto"))
    return TRUE;
  if (!gst_cl_device_select (sel, NULL, &device, NULL))
    return FALSE;
  return device == ctx->device;
}

static void
read_device_facts (GstClContext * self)
{
  cl_uint align_bits = 0, cu = 0;
  cl_device_local_mem_type lmt = CL_GLOBAL;

  clGetDeviceInfo (self->device, CL_DEVICE_TYPE, sizeof (self->device_type),
      &self->device_type, NULL);
  clGetDeviceInfo (self->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof (cu), &cu,
      NULL);
  clGetDeviceInfo (self->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
      sizeof (self->max_work_group_size), &self->max_work_group_size, NULL);
  clGetDeviceInfo (self->device, CL_DEVICE_LOCAL_MEM_SIZE,
      sizeof (self->local_mem_size), &self->local_mem_size, NULL);
  clGetDeviceInfo (self->device, CL_DEVICE_LOCAL_MEM_TYPE, sizeof (lmt), &lmt,
      NULL);
  clGetDeviceInfo (self->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
      sizeof (align_bits), &align_bits, NULL);
  clGetDeviceInfo (self->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
      sizeof (self->max_mem_alloc_size), &self->max_mem_alloc_size, NULL);

  self->compute_units = MAX (cu, 1);
  self->local_mem_is_dedicated = (lmt == CL_LOCAL);
  self->mem_base_addr_align = MAX (align_bits / 8, 16);
  self->device_name = device_string (self->device, CL_DEVICE_NAME);
  self->vendor = device_string (self->device, CL_DEVICE_VENDOR);
  self->driver_version = device_string (self->device, CL_DRIVER_VERSION);
  self->platform_name = platform_string (self->platform, CL_PLATFORM_NAME);
}

/* Creates a context (or adopts @cl_ctx) and an in-order queue on @device;
 * called with runtime_lock held */
static gboolean
open_device (GstClContext * self, cl_context cl_ctx, GError ** error)
{
  cl_int err = CL_SUCCESS;

  if (cl_ctx) {
    clRetainContext (cl_ctx);
    self->context = cl_ctx;
  } else {
    cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties) self->platform, 0
    };
    self->context = clCreateContext (props, 1, &self->device, NULL, NULL,
        &err);
    if (!gst_cl_check (err, "clCreateContext")) {
      gst_cl_set_error (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_READ_WRITE, err, "clCreateContext",
          "Could not open the OpenCL device");
      return FALSE;
    }
    self->owns_context = TRUE;
  }

  /* device-event timing for benchmarks only: profiling can cost a little */
  self->profiling = !g_strcmp0 (g_getenv ("GST_CL_PROFILE"), "1");
  self->queue = clCreateCommandQueue (self->context, self->device,
      self->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
  if (!gst_cl_check (err, "clCreateCommandQueue")) {
    gst_cl_set_error (error, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_OPEN_READ_WRITE, err, "clCreateCommandQueue",
        "Could not open the OpenCL device");
    return FALSE;
  }
  read_device_facts (self);
  return TRUE;
}

static GstClContext *
context_new (cl_platform_id platform, cl_device_id device, cl_context cl_ctx,
    GError ** error)
{
  GstClContext *self;
  gboolean ok;

  /* the driver is initialised by now: this makes sure of it */
  list_devices ();

  self = g_object_new (GST_TYPE_CL_CONTEXT, NULL);
  gst_object_ref_sink (self);
  self->platform = platform;
  self->device = device;

  g_mutex_lock (&runtime_lock);
  ok = open_device (self, cl_ctx, error);
  g_mutex_unlock (&runtime_lock);
  if (!ok) {
    gst_object_unref (self);
    return NULL;
  }

  GST_INFO_OBJECT (self, "OpenCL device \"%s\" (%s, %s, driver %s), %u compute "
      "units, %" G_GSIZE_FORMAT " max work-group, %" G_GUINT64_FORMAT
      " B local memory%s", self->device_name, self->platform_name,
      gst_cl_context_is_gpu (self) ? "GPU" : "not a GPU", self->driver_version,
      self->compute_units, self->max_work_group_size, self->local_mem_size,
      self->local_mem_is_dedicated ? "" : " (emulated)");
  return self;
}

GstClContext *
gst_cl_context_get_shared (const gchar * selector, GError ** error)
{
  cl_platform_id platform;
  cl_device_id device;
  GstClContext *ctx = NULL;
  SharedEntry *entry;

  if (!gst_cl_device_select (selector, &platform, &device, error))
    return NULL;

  g_mutex_lock (&shared_lock);
  if (!shared_contexts)
    shared_contexts = g_hash_table_new (NULL, NULL);
  entry = g_hash_table_lookup (shared_contexts, device);
  if (!entry) {
    entry = g_new0 (SharedEntry, 1);
    g_weak_ref_init (&entry->weak, NULL);
    g_hash_table_insert (shared_contexts, device, entry);
  }
  if (!contexts_kept ())
    gst_clear_object (&entry->kept);    /* dies with its last user */
  ctx = entry->kept ? gst_object_ref (entry->kept) :
      g_weak_ref_get (&entry->weak);
  if (!ctx) {
    ctx = context_new (platform, device, NULL, error);
    if (ctx) {
      g_weak_ref_set (&entry->weak, ctx);
      if (contexts_kept ())
        entry->kept = gst_object_ref (ctx);
    }
  }
  g_mutex_unlock (&shared_lock);
  return ctx;
}

GstClContext *
gst_cl_context_new_wrapped (cl_context context, cl_device_id device,
    GError ** error)
{
  cl_platform_id platform = NULL;
  cl_int err;

  err = clGetDeviceInfo (device, CL_DEVICE_PLATFORM, sizeof (platform),
      &platform, NULL);
  if (!gst_cl_check (err, "clGetDeviceInfo")) {
    gst_cl_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        err, "clGetDeviceInfo", "The application's OpenCL device is not valid");
    return NULL;
  }
  return context_new (platform, device, context, error);
}

/* ---- GstContext ---- */

GstContext *
gst_cl_context_to_gst_context (GstClContext * ctx)
{
  GstContext *context = gst_context_new (GST_CL_CONTEXT_TYPE, TRUE);
  GstStructure *s = gst_context_writable_structure (context);

  gst_structure_set (s, "context", GST_TYPE_CL_CONTEXT, ctx,
      "device-name", G_TYPE_STRING, ctx->device_name,
      "cl-context", G_TYPE_UINT64, (guint64) (guintptr) ctx->context,
      "cl-device", G_TYPE_UINT64, (guint64) (guintptr) ctx->device, NULL);
  return context;
}

GstClContext *
gst_cl_context_from_gst_context (GstContext * context, GError ** error)
{
  const GstStructure *s;
  GstClContext *ctx = NULL;
  guint64 cl_ctx = 0, cl_dev = 0;
  const gchar *device;

  if (g_strcmp0 (gst_context_get_context_type (context), GST_CL_CONTEXT_TYPE))
    return NULL;
  s = gst_context_get_structure (context);

  if (gst_structure_get (s, "context", GST_TYPE_CL_CONTEXT, &ctx, NULL) && ctx)
    return ctx;
  if (gst_structure_get_uint64 (s, "cl-context", &cl_ctx)
      && gst_structure_get_uint64 (s, "cl-device", &cl_dev) && cl_ctx && cl_dev)
    return gst_cl_context_new_wrapped ((cl_context) (guintptr) cl_ctx,
        (cl_device_id) (guintptr) cl_dev, error);
  if ((device = gst_structure_get_string (s, "device")))
    return gst_cl_context_get_shared (device, error);

  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "A \"" GST_CL_CONTEXT_TYPE "\" context needs a \"context\" field, "
      "\"cl-context\" and \"cl-device\" handles, or a \"device\" string");
  return NULL;
}

static gboolean
query_peers (GstElement * element, GstQuery * query, GstPadDirection dir)
{
  GstIterator *it = (dir == GST_PAD_SRC) ?
      gst_element_iterate_src_pads (element) :
      gst_element_iterate_sink_pads (element);
  GValue item = G_VALUE_INIT;
  gboolean done = FALSE, found = FALSE;

  while (!done) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:
        if (gst_pad_peer_query (g_value_get_object (&item), query)) {
          found = done = TRUE;
        }
        g_value_reset (&item);
        break;
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return found;
}

GstClContext *
gst_cl_handle_set_context (GstElement * element, GstContext * context,
    const gchar * selector)
{
  GstClContext *other;
  GError *error = NULL;

  if (!context)
    return NULL;
  other = gst_cl_context_from_gst_context (context, &error);
  if (!other) {
    /* printed, not only in the debug log: an application that meant to
     * choose the device must learn that its context was not used. Not an
     * element message: GstBin calls set_context with its object lock held
     * while handling NEED_CONTEXT, and posting would deadlock. */
    if (error)
      g_warning ("%s: ignoring an unusable \"" GST_CL_CONTEXT_TYPE "\" "
          "context: %s. (From Python, Gst.Context.writable_structure() "
          "returns a copy, so fields set on it are lost: choose the device "
          "with the element's device property or $" GST_CL_DEVICE_ENV ", and "
          "share a context by passing on the one of a HAVE_CONTEXT message.)",
          GST_OBJECT_NAME (element), error->message);
    g_clear_error (&error);
    return NULL;
  }
  if (!gst_cl_context_matches (other, selector)) {
    GST_INFO_OBJECT (element, "Ignoring context for \"%s\": device is \"%s\"",
        other->device_name, selector);
    gst_object_unref (other);
    return NULL;
  }
  return other;
}

gboolean
gst_cl_handle_context_query (GstElement * element, GstQuery * query,
    GstClContext * ctx)
{
  const gchar *type;
  GstContext *context;

  if (!ctx || GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  if (!gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_CL_CONTEXT_TYPE))
    return FALSE;

  context = gst_cl_context_to_gst_context (ctx);
  gst_query_set_context (query, context);
  gst_context_unref (context);
  return TRUE;
}

GstClContext *
gst_cl_ensure_element_context (GstElement * element, const gchar * selector,
    GstClHeldContextFunc held, GError ** error)
{
  GstClContext *ctx;
  GstQuery *query;
  GstContext *context = NULL;
  GstMessage *msg;

  if ((ctx = held (element)))
    return ctx;

  /* 1) neighbours: downstream, then upstream */
  query = gst_query_new_context (GST_CL_CONTEXT_TYPE);
  if (query_peers (element, query, GST_PAD_SRC)
      || query_peers (element, query, GST_PAD_SINK)) {
    gst_query_parse_context (query, &context);
    if (context)
      gst_element_set_context (element, context);
  }
  gst_query_unref (query);
  if ((ctx = held (element)))
    return ctx;

  /* 2) the application (answers synchronously with gst_element_set_context) */
  msg = gst_message_new_need_context (GST_OBJECT_CAST (element),
      GST_CL_CONTEXT_TYPE);
  gst_element_post_message (element, msg);
  if ((ctx = held (element)))
    return ctx;

  /* 3) ours, announced to the pipeline (the element keeps whichever context
   * reached it first, should another thread have set one meanwhile) */
  ctx = gst_cl_context_get_shared (selector, error);
  if (!ctx)
    return NULL;
  context = gst_cl_context_to_gst_context (ctx);
  gst_element_set_context (element, context);
  gst_object_unref (ctx);
  ctx = held (element);
  if (!ctx) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
        "The element did not take its OpenCL context");
    gst_context_unref (context);
    return NULL;
  }
  gst_context_unref (context);
  context = gst_cl_context_to_gst_context (ctx);
  msg = gst_message_new_have_context (GST_OBJECT_CAST (element), context);
  gst_element_post_message (element, msg);
  return ctx;
}
