/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Programs: built once per (context, source, options) and kept in the
 * context. Optionally also kept on disk as binaries, so a new process skips
 * the compiler: $GST_CL_CACHE_DIR or $XDG_CACHE_HOME/gst-opencl-filters, one
 * folder per vendor--device--driver, one file per hash of the program's key.
 * GST_CL_CACHE=1/0 forces it on/off; by default it is off where the driver
 * keeps a cache of its own (PoCL, NVIDIA) and on elsewhere. Cache files carry
 * our own header (magic, version, key, length, SHA-256 of the binary): a
 * file that does not match to the byte is ignored and the program rebuilt,
 * so no unchecked bytes ever reach the driver. Binaries are read back from
 * the driver and written from a worker thread, never the streaming thread.
 * GST_CL_KERNEL_DIR=path/to/kernels makes the plugin read .cl files from
 * there instead of the embedded copies (a program's whole text, or its
 * parts); GST_CL_BUILD_OPTIONS adds options
 * to every build (e.g. -cl-nv-verbose, whose register counts then appear in
 * the DEBUG log with each build log). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#include "gstclcontext.h"
#include "gstclkernels.h"
#include "gstclutils.h"

#define GST_CAT_DEFAULT gst_cl_debug

/* every program is OpenCL C 1.2: the newest NVIDIA's compiler accepts */
#define BASE_OPTIONS "-cl-std=CL1.2"

static const GstClKernelSource *
find_embedded (const gchar * name, GError ** error)
{
  const GstClKernelSource *k;

  for (k = gst_cl_kernel_sources; k->name; k++)
    if (!strcmp (k->name, name))
      return k;
  g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
      "No embedded kernel program named %s", name);
  return NULL;
}

static gchar *
read_kernel_file (const gchar * dir, const gchar * file, GError ** error)
{
  gchar *path = g_build_filename (dir, file, NULL), *text = NULL;
  GError *err = NULL;

  if (!g_file_get_contents (path, &text, NULL, &err)) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
        "Could not read kernel file from GST_CL_KERNEL_DIR: %s", err->message);
    g_clear_error (&err);
  }
  g_free (path);
  return text;
}

/* A program's parts from @dir, joined as kernels/embed.py joins them */
static gchar *
join_kernel_files (const gchar * dir, const GstClKernelSource * k,
    GError ** error)
{
  GString *joined = g_string_new (NULL);
  const gchar *const *part;

  for (part = k->parts; *part; part++) {
    gchar *text = read_kernel_file (dir, *part, error);

    if (!text)
      return (gchar *) g_string_free (joined, TRUE);
    g_string_append_printf (joined, "#line 1 \"%s\"\n%s", *part, text);
    if (!g_str_has_suffix (text, "\n"))
      g_string_append_c (joined, '\n');
    g_free (text);
  }
  return g_string_free (joined, FALSE);
}

/* The source of program @name: the embedded one, or with GST_CL_KERNEL_DIR
 * set the files there: a file named like the program is taken whole (a
 * variant to measure, or a revision from before the program was split);
 * otherwise the program's part files are read and joined. */
static gchar *
load_source (const gchar * name, GError ** error)
{
  const gchar *dir = g_getenv ("GST_CL_KERNEL_DIR");
  const GstClKernelSource *k;

  if (dir && *dir) {
    gchar *whole = g_build_filename (dir, name, NULL);
    gboolean exists = g_file_test (whole, G_FILE_TEST_EXISTS);

    g_free (whole);
    if (exists) {
      GST_INFO ("program %s: the whole file from %s", name, dir);
      return read_kernel_file (dir, name, error);
    }
  }

  k = find_embedded (name, error);
  if (!k)
    return NULL;
  if (dir && *dir) {
    GST_INFO ("program %s: its part files from %s", name, dir);
    return join_kernel_files (dir, k, error);
  }
  return g_strdup (k->source);
}

/* ---- on-disk cache ---- */

#define CACHE_MAGIC "GSTCLBIN"
#define CACHE_VERSION 1

/* A cache file: this header (little-endian), the key, then the binary */
typedef struct
{
  gchar magic[8];
  guint32 version;
  guint32 key_len;
  guint64 binary_len;
  guint8 sha256[32];
} CacheHeader;

G_STATIC_ASSERT (sizeof (CacheHeader) == 56);

/* Drivers that keep compiled programs themselves: ours would only add the
 * cost of reading binaries back (PoCL: seconds per program, see
 * docs/design.md) */
static gboolean
driver_has_own_cache (GstClContext * ctx)
{
  return strstr (ctx->platform_name, "Portable Computing Language") != NULL
      || strstr (ctx->platform_name, "NVIDIA") != NULL
      || strstr (ctx->vendor, "NVIDIA") != NULL;
}

static gboolean
disk_cache_enabled (GstClContext * ctx)
{
  const gchar *env = g_getenv ("GST_CL_CACHE");

  if (env && (!strcmp (env, "0") || !g_ascii_strcasecmp (env, "off")))
    return FALSE;
  if (env && (!strcmp (env, "1") || !g_ascii_strcasecmp (env, "on")))
    return TRUE;
  return !driver_has_own_cache (ctx);
}

/* Everything a binary depends on, as stored in its file */
static gchar *
cache_key (GstClContext * ctx, const gchar * source_hash,
    const gchar * options)
{
  return g_strdup_printf ("platform=%s\nvendor=%s\ndevice=%s\ndriver=%s\n"
      "source=%s\noptions=%s", ctx->platform_name, ctx->vendor,
      ctx->device_name, ctx->driver_version, source_hash, options);
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

static gchar *
cache_path (GstClContext * ctx, const gchar * key)
{
  const gchar *dir = g_getenv ("GST_CL_CACHE_DIR");
  gchar *device_dir, *key_hash, *name, *path, *v, *d, *dv;

  v = sanitize (ctx->vendor);
  d = sanitize (ctx->device_name);
  dv = sanitize (ctx->driver_version);
  device_dir = g_strdup_printf ("%s--%s--%s", v, d, dv);
  key_hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
  name = g_strdup_printf ("%s.bin", key_hash);
  path = (dir && *dir) ? g_build_filename (dir, device_dir, name, NULL) :
      g_build_filename (g_get_user_cache_dir (), "gst-opencl-filters",
      device_dir, name, NULL);
  g_free (v);
  g_free (d);
  g_free (dv);
  g_free (device_dir);
  g_free (key_hash);
  g_free (name);
  return path;
}

static void
sha256 (const guint8 * data, gsize len, guint8 digest[32])
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize n = 32;

  g_checksum_update (sum, data, len);
  g_checksum_get_digest (sum, digest, &n);
  g_checksum_free (sum);
}

/* The binary inside cache file @data if it is one of ours, complete, for
 * @key and intact; else NULL with *@why set */
static const guint8 *
cache_file_binary (const guint8 * data, gsize len, const gchar * key,
    gsize * binary_len, const gchar ** why)
{
  CacheHeader h;
  gsize key_len = strlen (key);
  guint8 digest[32];
  guint64 blen;

  if (len < sizeof (h)) {
    *why = "shorter than a header";
    return NULL;
  }
  memcpy (&h, data, sizeof (h));
  if (memcmp (h.magic, CACHE_MAGIC, sizeof (h.magic))) {
    *why = "not a cache file";
    return NULL;
  }
  if (GUINT32_FROM_LE (h.version) != CACHE_VERSION) {
    *why = "another format version";
    return NULL;
  }
  if (GUINT32_FROM_LE (h.key_len) != key_len
      || len - sizeof (h) < key_len
      || memcmp (data + sizeof (h), key, key_len)) {
    *why = "the binary of another program, device or driver";
    return NULL;
  }
  blen = GUINT64_FROM_LE (h.binary_len);
  if (blen == 0 || blen != len - sizeof (h) - key_len) {
    *why = "truncated or padded";
    return NULL;
  }
  sha256 (data + sizeof (h) + key_len, blen, digest);
  if (memcmp (digest, h.sha256, sizeof (digest))) {
    *why = "checksum mismatch";
    return NULL;
  }
  *binary_len = blen;
  return data + sizeof (h) + key_len;
}

/* The program from cache file @path, or NULL (absent or not valid: the
 * caller rebuilds and replaces it) */
static cl_program
load_binary (GstClContext * ctx, const gchar * path, const gchar * key,
    const gchar * options)
{
  gchar *data = NULL;
  const guint8 *bin;
  const gchar *why = NULL;
  gsize len = 0, bin_len = 0;
  cl_int err, status = CL_SUCCESS;
  cl_program program;

  if (!g_file_get_contents (path, &data, &len, NULL))
    return NULL;
  bin = cache_file_binary ((const guint8 *) data, len, key, &bin_len, &why);
  if (!bin) {
    GST_INFO ("ignoring cache file %s (%s): rebuilding", path, why);
    g_free (data);
    return NULL;
  }
  program = clCreateProgramWithBinary (ctx->context, 1, &ctx->device,
      &bin_len, &bin, &status, &err);
  g_free (data);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    GST_INFO ("driver refused cached binary %s (%s): rebuilding", path,
        gst_cl_error_name (err != CL_SUCCESS ? err : status));
    if (program)
      clReleaseProgram (program);
    return NULL;
  }
  if (clBuildProgram (program, 1, &ctx->device, options, NULL, NULL)
      != CL_SUCCESS) {
    GST_INFO ("cached binary %s does not build: rebuilding", path);
    clReleaseProgram (program);
    return NULL;
  }
  GST_INFO ("loaded program binary %s", path);
  return program;
}

/* ---- saving, off the streaming thread ---- */

typedef struct
{
  GstClContext *ctx;
  cl_program program;
  gchar *path, *key;
} SaveJob;

static GMutex save_lock;
static GCond save_cond;
static guint saves_pending;
static GThreadPool *save_pool;

static void
write_cache_file (const gchar * path, const gchar * key, const guint8 * bin,
    gsize bin_len)
{
  CacheHeader h;
  gsize key_len = strlen (key), len = sizeof (h) + key_len + bin_len;
  guint8 *data = g_malloc (len);
  gchar *dir = g_path_get_dirname (path);
  GError *error = NULL;

  memcpy (h.magic, CACHE_MAGIC, sizeof (h.magic));
  h.version = GUINT32_TO_LE (CACHE_VERSION);
  h.key_len = GUINT32_TO_LE ((guint32) key_len);
  h.binary_len = GUINT64_TO_LE ((guint64) bin_len);
  sha256 (bin, bin_len, h.sha256);
  memcpy (data, &h, sizeof (h));
  memcpy (data + sizeof (h), key, key_len);
  memcpy (data + sizeof (h) + key_len, bin, bin_len);

  /* g_file_set_contents writes a temporary file and renames it over the
   * old one: readers see the old file or the new, never half of one */
  if (g_mkdir_with_parents (dir, 0755) == 0
      && g_file_set_contents (path, (const gchar *) data, len, &error))
    GST_DEBUG ("saved program binary %s (%" G_GSIZE_FORMAT " bytes)", path,
        len);
  else
    GST_INFO ("could not save program binary %s: %s", path,
        error ? error->message : g_strerror (errno));
  g_clear_error (&error);
  g_free (dir);
  g_free (data);
}

static void
save_job_run (gpointer data, gpointer unused)
{
  SaveJob *job = data;
  size_t size = 0;
  unsigned char *bin = NULL;
  gint64 start = g_get_monotonic_time ();

  /* reading the binary back can cost seconds (PoCL compiles every kernel
   * for it): the reason this runs here */
  if (clGetProgramInfo (job->program, CL_PROGRAM_BINARY_SIZES, sizeof (size),
          &size, NULL) == CL_SUCCESS && size > 0) {
    bin = g_malloc (size);
    if (clGetProgramInfo (job->program, CL_PROGRAM_BINARIES, sizeof (bin),
            &bin, NULL) == CL_SUCCESS) {
      GST_DEBUG ("read back %" G_GSIZE_FORMAT " bytes of binary in %.1f ms",
          (gsize) size, (g_get_monotonic_time () - start) / 1000.0);
    } else {
      g_clear_pointer (&bin, g_free);
    }
  }
  /* the context may go now: the file is written without it */
  clReleaseProgram (job->program);
  gst_object_unref (job->ctx);
  if (bin)
    write_cache_file (job->path, job->key, bin, size);
  g_free (bin);
  g_free (job->path);
  g_free (job->key);
  g_free (job);

  g_mutex_lock (&save_lock);
  saves_pending--;
  g_cond_broadcast (&save_cond);
  g_mutex_unlock (&save_lock);
}

/* at exit: a save still running would race the driver's own teardown */
static void
wait_for_saves (void)
{
  g_mutex_lock (&save_lock);
  while (saves_pending > 0)
    g_cond_wait (&save_cond, &save_lock);
  g_mutex_unlock (&save_lock);
}

/* Saves @program's binary to @path from a worker thread; the job holds
 * the context and the program until it is done */
static void
save_binary_async (GstClContext * ctx, cl_program program, const gchar * path,
    const gchar * key)
{
  SaveJob *job = g_new0 (SaveJob, 1);

  job->ctx = gst_object_ref (ctx);
  clRetainProgram (program);
  job->program = program;
  job->path = g_strdup (path);
  job->key = g_strdup (key);

  g_mutex_lock (&save_lock);
  if (!save_pool) {
    /* one worker: saves are rare and must not compete with streaming */
    save_pool = g_thread_pool_new (save_job_run, NULL, 1, FALSE, NULL);
    atexit (wait_for_saves);
  }
  saves_pending++;
  g_mutex_unlock (&save_lock);
  g_thread_pool_push (save_pool, job, NULL);
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

/* Warnings of a successful build go to the debug log, never to the
 * application's output */
static void
log_build_diagnostics (GstClContext * ctx, cl_program program,
    const gchar * file)
{
  gchar *log;

  if (gst_debug_category_get_threshold (gst_cl_debug) < GST_LEVEL_DEBUG)
    return;
  if ((log = get_build_log (ctx, program)) && *log)
    GST_DEBUG ("build log of %s:\n%s", file, log);
  g_free (log);
}

/* For a program joined from parts (kernels/embed.py): the part files'
 * lines in the joined source, for compilers that ignore the #line markers
 * (NVIDIA's counts lines of the whole source); NULL for a program of one
 * file */
static gchar *
describe_parts (const gchar * source)
{
  static const gchar marker[] = "#line 1 \"";
  gchar **lines = g_strsplit (source, "\n", -1);
  GString *map = NULL;
  guint i;

  for (i = 0; lines[i]; i++) {
    const gchar *name = lines[i] + sizeof (marker) - 1;
    const gchar *quote;

    if (!g_str_has_prefix (lines[i], marker) || !(quote = strchr (name, '"')))
      continue;
    if (map)                    /* the part before ends on the line above */
      g_string_append_printf (map, "%u, ", i);
    else
      map = g_string_new ("where a compiler ignores #line, the program's "
          "lines are its parts': ");
    /* the part's first line is the one after its marker: line i + 2 */
    g_string_append_printf (map, "%.*s lines %u-", (gint) (quote - name),
        name, i + 2);
  }
  if (map)
    g_string_append_printf (map, "%u", i - (*lines[i - 1] ? 0 : 1));
  g_strfreev (lines);
  return map ? g_string_free (map, FALSE) : NULL;
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
    gchar *log = get_build_log (ctx, program), *parts = describe_parts (source);

    if (parts) {
      gchar *with_parts = g_strconcat (log ? log : "", "\n", parts, NULL);

      g_free (log);
      g_free (parts);
      log = with_parts;
    }

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
  log_build_diagnostics (ctx, program, file);
  return program;
}

/* -w: compiler warnings would reach stderr (PoCL's clang prints "N warnings
 * generated." there, whatever the build log says). With clfilters' debug
 * log at DEBUG or above, programs are built with warnings, which then land
 * in that log. */
static const gchar *
warning_options (void)
{
  return gst_debug_category_get_threshold (gst_cl_debug) >= GST_LEVEL_DEBUG ?
      "" : " -w";
}

/* GST_CL_BUILD_OPTIONS (development: compiler reports, experiments); part of
 * a program's key, so programs built with them are kept apart */
static const gchar *
extra_options (void)
{
  const gchar *extra = g_getenv ("GST_CL_BUILD_OPTIONS");

  return extra ? extra : "";
}

cl_program
gst_cl_context_get_program (GstClContext * ctx, const gchar * file,
    const gchar * options, gchar ** build_log, GError ** error)
{
  gchar *source, *source_hash, *full_options, *key;
  cl_program program;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);

  source = load_source (file, error);
  if (!source)
    return NULL;
  source_hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, source, -1);
  full_options = g_strdup_printf ("%s%s %s %s", BASE_OPTIONS,
      warning_options (), options ? options : "", extra_options ());
  key = g_strdup_printf ("%s|%s", source_hash, full_options);

  g_mutex_lock (&ctx->lock);
  program = g_hash_table_lookup (ctx->programs, key);
  if (program) {
    clRetainProgram (program);
    g_free (key);
  } else {
    gboolean on_disk = disk_cache_enabled (ctx);
    gchar *disk_key = on_disk ? cache_key (ctx, source_hash, full_options) :
        NULL;
    gchar *path = on_disk ? cache_path (ctx, disk_key) : NULL;

    program = on_disk ? load_binary (ctx, path, disk_key, full_options) : NULL;
    if (!program) {
      program = build_from_source (ctx, file, source, full_options, build_log,
          error);
      if (program && on_disk)
        save_binary_async (ctx, program, path, disk_key);
    }
    g_free (path);
    g_free (disk_key);
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
