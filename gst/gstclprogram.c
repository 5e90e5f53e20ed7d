/* Programs: built once per (context, source, options) and kept in the
 * context; binaries also kept on disk so a new process skips the compiler
 * (PoCL's LLVM build costs ~0.5 s a program). The disk cache lives in
 * $GST_CL_CACHE_DIR or $XDG_CACHE_HOME/gst-opencl-filters, one folder per
 * vendor--device--driver, one file per hash of (source, options);
 * GST_CL_CACHE=0 turns it off. GST_CL_KERNEL_DIR=path/to/kernels makes the
 * plugin read .cl files from there instead of the embedded copies. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <glib/gstdio.h>

#include "gstclcontext.h"
#include "gstclkernels.h"
#include "gstclutils.h"

#define GST_CAT_DEFAULT gst_cl_debug

/* every program is OpenCL C 1.2: the newest NVIDIA's compiler accepts */
#define BASE_OPTIONS "-cl-std=CL1.2"

static gchar *
load_source (const gchar * file, GError ** error)
{
  const gchar *dir = g_getenv ("GST_CL_KERNEL_DIR");
  const GstClKernelSource *k;

  if (dir && *dir) {
    gchar *path = g_build_filename (dir, file, NULL), *text = NULL;
    GError *err = NULL;

    if (!g_file_get_contents (path, &text, NULL, &err)) {
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
          "Could not read kernel file from GST_CL_KERNEL_DIR: %s",
          err->message);
      g_clear_error (&err);
    }
    g_free (path);
    return text;
  }

  for (k = gst_cl_kernel_sources; k->name; k++)
    if (!strcmp (k->name, file))
      return g_strdup (k->source);

  g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
      "No embedded kernel file named %s", file);
  return NULL;
}

static gchar *
sanitize (const gchar * s)
{
  gchar *out = g_strdup (s), *p;

  for (p = out; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '-' && *p != '_')
      *p = '_';
  return out;
}

/* NULL when the disk cache is off */
static gchar *
disk_cache_path (GstClContext * ctx, const gchar * source_hash,
    const gchar * options)
{
  const gchar *off = g_getenv ("GST_CL_CACHE"), *dir = g_getenv ("GST_CL_CACHE_DIR");
  gchar *device_dir, *key, *key_hash, *name, *path, *v, *d, *dv;

  if (off && (!strcmp (off, "0") || !g_ascii_strcasecmp (off, "off")))
    return NULL;

  v = sanitize (ctx->vendor);
  d = sanitize (ctx->device_name);
  dv = sanitize (ctx->driver_version);
  device_dir = g_strdup_printf ("%s--%s--%s", v, d, dv);
  key = g_strdup_printf ("%s\n%s", source_hash, options);
  key_hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
  name = g_strdup_printf ("%s.bin", key_hash);
  path = (dir && *dir) ? g_build_filename (dir, device_dir, name, NULL) :
      g_build_filename (g_get_user_cache_dir (), "gst-opencl-filters",
      device_dir, name, NULL);
  g_free (v);
  g_free (d);
  g_free (dv);
  g_free (device_dir);
  g_free (key);
  g_free (key_hash);
  g_free (name);
  return path;
}

static cl_program
load_binary (GstClContext * ctx, const gchar * path, const gchar * options)
{
  gchar *bin = NULL;
  gsize len = 0;
  cl_int err, status = CL_SUCCESS;
  cl_program program;

  if (!path || !g_file_get_contents (path, &bin, &len, NULL))
    return NULL;

  program = clCreateProgramWithBinary (ctx->context, 1, &ctx->device, &len,
      (const unsigned char **) &bin, &status, &err);
  g_free (bin);
  if (err != CL_SUCCESS || status != CL_SUCCESS)
    return NULL;
  if (clBuildProgram (program, 1, &ctx->device, options, NULL, NULL)
      != CL_SUCCESS) {
    GST_INFO ("stale or broken cached binary %s, rebuilding", path);
    clReleaseProgram (program);
    return NULL;
  }
  GST_DEBUG ("loaded program binary %s", path);
  return program;
}

static void
save_binary (GstClContext * ctx, cl_program program, const gchar * path)
{
  size_t size = 0;
  unsigned char *bin;
  gchar *dir;

  if (!path || clGetProgramInfo (program, CL_PROGRAM_BINARY_SIZES,
          sizeof (size), &size, NULL) != CL_SUCCESS || size == 0)
    return;
  bin = g_malloc (size);
  if (clGetProgramInfo (program, CL_PROGRAM_BINARIES, sizeof (bin), &bin,
          NULL) == CL_SUCCESS) {
    dir = g_path_get_dirname (path);
    /* g_file_set_contents writes a temporary file and renames it, so
     * concurrent processes never read a half-written binary */
    if (g_mkdir_with_parents (dir, 0755) == 0
        && g_file_set_contents (path, (const gchar *) bin, size, NULL))
      GST_DEBUG ("saved program binary %s", path);
    g_free (dir);
  }
  g_free (bin);
}

static gchar *
get_build_log (GstClContext * ctx, cl_program program)
{
  size_t size = 0;
  gchar *log;

  if (clGetProgramBuildInfo (program, ctx->device, CL_PROGRAM_BUILD_LOG, 0,
          NULL, &size) != CL_SUCCESS || size <= 1)
    return NULL;
  log = g_malloc0 (size + 1);
  clGetProgramBuildInfo (program, ctx->device, CL_PROGRAM_BUILD_LOG, size, log,
      NULL);
  return g_strstrip (log);
}

static cl_program
build_from_source (GstClContext * ctx, const gchar * file,
    const gchar * source, const gchar * options, gchar ** build_log,
    GError ** error)
{
  cl_int err;
  cl_program program;
  gint64 start = g_get_monotonic_time ();

  program = clCreateProgramWithSource (ctx->context, 1, &source, NULL, &err);
  if (!gst_cl_check (err, "clCreateProgramWithSource")) {
    gst_cl_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, err,
        "clCreateProgramWithSource", "Could not load OpenCL kernels");
    return NULL;
  }

  err = clBuildProgram (program, 1, &ctx->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    gchar *log = get_build_log (ctx, program);

    GST_ERROR ("building %s (%s) failed: %s\n%s", file, options,
        gst_cl_error_name (err), log ? log : "");
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
        "Could not build the OpenCL kernels in %s for device \"%s\" (%s): "
        "OpenCL error %s (%d) during call: clBuildProgram", file,
        ctx->device_name, ctx->platform_name, gst_cl_error_name (err), err);
    if (build_log)
      *build_log = log;
    else
      g_free (log);
    clReleaseProgram (program);
    return NULL;
  }
  GST_INFO ("built %s (%s) in %.1f ms", file, options,
      (g_get_monotonic_time () - start) / 1000.0);
  return program;
}

cl_program
gst_cl_context_get_program (GstClContext * ctx, const gchar * file,
    const gchar * options, gchar ** build_log, GError ** error)
{
  gchar *source, *source_hash, *full_options, *key, *path;
  cl_program program;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);

  source = load_source (file, error);
  if (!source)
    return NULL;
  source_hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, source, -1);
  full_options = g_strdup_printf ("%s %s", BASE_OPTIONS, options ? options : "");
  key = g_strdup_printf ("%s|%s", source_hash, full_options);

  g_mutex_lock (&ctx->lock);
  program = g_hash_table_lookup (ctx->programs, key);
  if (program) {
    clRetainProgram (program);
    g_free (key);
  } else {
    path = disk_cache_path (ctx, source_hash, full_options);
    program = load_binary (ctx, path, full_options);
    if (!program) {
      program = build_from_source (ctx, file, source, full_options, build_log,
          error);
      if (program)
        save_binary (ctx, program, path);
    }
    g_free (path);
    if (program) {
      clRetainProgram (program);
      g_hash_table_insert (ctx->programs, key, program);
    } else {
      g_free (key);
    }
  }
  g_mutex_unlock (&ctx->lock);

  g_free (source);
  g_free (source_hash);
  g_free (full_options);
  return program;
}
