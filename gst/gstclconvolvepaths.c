/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvolve's paths: which program and kernels a matrix takes on this
 * device, and their preparation (build, first launch) before a frame
 * needs them, on the base class's warm-up worker */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclconvolvepriv.h"

/* whether frames filtered with @k take the separable path. On CPU
 * devices a 3x3 integer matrix whose factors have both signs (sobel)
 * takes the 2-D path, whose exact 16-bit lanes beat sep_strips' 32-bit
 * ones there (1080p RGBA sobel-x 2.4-3.4 ms against 5.0-5.3, from plain
 * memory 2.2-2.4 against 7.0-7.9; GRAY8 and I420 the same or better;
 * docs/performance-log.md) */
gboolean
gst_cl_convolve_takes_separable_path (GstClConvolve * self,
    const GstClConvolveKernel * k)
{
  if (k->separable && !k->exact16 && k->exact2d16 &&
      k->width * k->height <= 9 && gst_cl_convolve_has_fixed_kernels (self))
    return FALSE;
  return k->separable && (MAX (k->width, k->height) >= self->separable_min
      || gst_cl_convolve_px_separable (self, k));
}

/* whether this stream's device and format have the fixed-point kernels
 * (in both programs: the integer one's sum exactly,
 * kernels/convolve-cpu-fixed.cl) */
gboolean
gst_cl_convolve_has_fixed_kernels (GstClConvolve * self)
{
  return self->fixed_ok && !self->use_tile && !self->depth16;
}

/* whether the program of arithmetic @integer has them in this stream */
gboolean
gst_cl_convolve_program_has_fixed (GstClConvolve * self, gboolean integer)
{
  return gst_cl_convolve_has_fixed_kernels (self) && (!integer ||
      self->integer_fixed);
}

/* whether @k's sums fit the integer program's 16-bit lanes on the path
 * it takes (sep_fixed or conv2d_fixed) on this stream's device and format */
gboolean
gst_cl_convolve_fits_exact16 (GstClConvolve * self,
    const GstClConvolveKernel * k)
{
  return (gst_cl_convolve_takes_separable_path (self, k) ? k->exact16 :
      k->exact2d16) && gst_cl_convolve_has_fixed_kernels (self);
}

/* whether frames filtered with @k take the integer program's sep_fixed or
 * conv2d_fixed, exact sums in 16-bit lanes (box blurs; sharpen, edge
 * detectors), instead of sep_strips or conv2d_strips (exact too, 32-bit
 * lanes, 2.5-4.7x slower at 1080p): once they are ready (exact16_ready) */
gboolean
gst_cl_convolve_uses_exact16 (GstClConvolve * self,
    const GstClConvolveKernel * k)
{
  guint kernel = gst_cl_convolve_takes_separable_path (self, k) ?
      EXACT16_SEP : EXACT16_2D;

  return (self->exact16_ready & kernel) && gst_cl_convolve_fits_exact16 (self,
      k);
}

/* Streaming thread, before a frame: the 16-bit kernels whose jobs are
 * done (exact16_job, exact16_all_job) become ready */
void
gst_cl_convolve_exact16_jobs_done (GstClConvolve * self)
{
  const ConvKernels *k = &self->kernels[1];
  guint made = (k->sep_fixed ? EXACT16_SEP : 0) |
      (k->strips_fixed ? EXACT16_2D : 0);

  if (self->exact16_job && gst_cl_warmup_is_done (self->warmup,
          self->exact16_job)) {
    self->exact16_job = 0;
    self->exact16_ready |= self->exact16_start & made;
  }
  if (self->exact16_all_job && gst_cl_warmup_is_done (self->warmup,
          self->exact16_all_job)) {
    self->exact16_all_job = 0;
    self->exact16_ready |= made;
    GST_INFO_OBJECT (self, "sep_fixed for exact sums %s",
        (made & EXACT16_SEP) ? "ready" : "failed: sep_strips");
  }
}

/* the arithmetic frames filtered with @k use */
gint
gst_cl_convolve_path_arith (GstClConvolve * self, const GstClConvolveKernel * k)
{
  if (k->integer)
    return ARITH_INTEGER;
  /* fixed point's error bound assumes the path @k was derived for: a
   * separable matrix forced through the 2-D path stays in float */
  return k->fixed && gst_cl_convolve_has_fixed_kernels (self) &&
      gst_cl_convolve_takes_separable_path (self, k) == k->separable ?
      ARITH_FIXED : ARITH_FLOAT;
}

/* whether a plane of this stream has 4-sample pixels whose first or last
 * sample passes through (sep_fixed's colour path; sep_fixed_global) */
static gboolean
has_colour_planes (GstClConvolve * self)
{
  guint p;

  for (p = 0; p < self->n_planes; p++)
    if (self->planes[p].ch == 4 && (self->planes[p].alpha_pos == 0 ||
            self->planes[p].alpha_pos == 3))
      return TRUE;
  return FALSE;
}

/* Build options of the program of one arithmetic path (conv2d_px has
 * programs of its own, see px_build_run). The colour path only for a
 * stream that takes it: its code adds about 0.4 s to the build on PoCL
 * (live I420 start, 2-vCPU AMD EPYC), and caps reset the kernels. */
static gchar *
program_options (GstClConvolve * self, gboolean integer)
{
  gboolean fixed = gst_cl_convolve_program_has_fixed (self, integer);

  return g_strdup_printf ("-D DEPTH16=%d -D INTEGER=%d -D CPU_ONLY=%d "
      "-D FIXED=%d -D FIXED_COLOUR=%d -D BOX_SLIDE=%d -D PX_MAX_R=0",
      self->depth16 ? 1 : 0, integer ? 1 : 0, self->use_tile ? 0 : 1,
      fixed ? 1 : 0, fixed && has_colour_planes (self) ? self->fixed_colour : 0,
      integer && self->integer_box ? 1 : 0);
}

/* Creates @program's kernels that this device's path runs into @k; on
 * failure returns the CL error with *@name the kernel, and @k may be
 * partly filled */
static cl_int
create_kernels (GstClConvolve * self, cl_program program, gboolean integer,
    ConvKernels * k, const gchar ** name)
{
  static const gchar *gpu_names[] = { "conv2d_tile", "hpass_strips",
    "vpass_strips", "conv2d_reg1", "conv2d_reg2", "conv2d_reg3",
    "conv2d_reg4", "conv2d_reg5"
  };
  cl_kernel *gpu[G_N_ELEMENTS (gpu_names)] = { &k->tile, &k->hpass,
    &k->vpass, &k->reg[0], &k->reg[1], &k->reg[2], &k->reg[3], &k->reg[4]
  };
  cl_int err;
  guint i;

  G_STATIC_ASSERT (REG_MAX_R == 5);
  *name = "conv2d_strips";
  k->strips = clCreateKernel (program, *name, &err);
  if (err == CL_SUCCESS) {
    *name = "sep_strips";
    k->sep = clCreateKernel (program, *name, &err);
  }
  if (err == CL_SUCCESS && gst_cl_convolve_program_has_fixed (self, integer)) {
    *name = "conv2d_fixed";
    k->strips_fixed = clCreateKernel (program, *name, &err);
  }
  if (err == CL_SUCCESS && gst_cl_convolve_program_has_fixed (self, integer)) {
    *name = "sep_fixed";
    k->sep_fixed = clCreateKernel (program, *name, &err);
  }
  /* the GPU path's kernels (not in the CPU program) */
  for (i = 0; i < G_N_ELEMENTS (gpu) && self->use_tile && err == CL_SUCCESS;
      i++) {
    *name = gpu_names[i];
    *gpu[i] = clCreateKernel (program, *name, &err);
  }
  return err;
}

static void
clear_kernels (ConvKernels * k)
{
  cl_kernel *kernels = (cl_kernel *) k;
  guint i;

  for (i = 0; i < sizeof (ConvKernels) / sizeof (cl_kernel); i++)
    if (kernels[i])
      clReleaseKernel (kernels[i]);
  memset (k, 0, sizeof (*k));
}

/* The kernels of the integer or float path: the one in use at caps time
 * made by set_info, the other by the warm-up worker (else here, at its
 * first frame) */
ConvKernels *
gst_cl_convolve_get_kernels (GstClConvolve * self, gboolean integer)
{
  GstClBaseFilter *filter = GST_CL_BASE_FILTER (self);
  ConvKernels *k = &self->kernels[integer ? 1 : 0];
  const gchar *name;
  cl_program program;
  gchar *options;
  cl_int err;

  if (k->strips)
    return k;
  options = program_options (self, integer);
  program = gst_cl_base_filter_get_program (filter, "convolve.cl", options);
  g_free (options);
  if (!program)
    return NULL;
  err = create_kernels (self, program, integer, k, &name);
  clReleaseProgram (program);
  if (err != CL_SUCCESS) {
    GST_ERROR_OBJECT (self, "kernel %s: %s", name, gst_cl_error_name (err));
    gst_cl_base_filter_check (filter, err, "clCreateKernel",
        "Could not create an OpenCL kernel");
    gst_cl_convolve_reset (filter);
    return NULL;
  }
  return k;
}

/* The CPU kernel of path (@arith, @separable) */
static cl_kernel
cpu_path_kernel (GstClConvolve * self, gint arith, gboolean separable)
{
  ConvKernels *k = &self->kernels[arith == ARITH_INTEGER ? 1 : 0];

  if (arith == ARITH_FIXED)
    return separable ? k->sep_fixed : k->strips_fixed;
  return separable ? k->sep : k->strips;
}

static const gchar *
cpu_path_kernel_name (gint arith, gboolean separable)
{
  if (arith == ARITH_FIXED)
    return separable ? "sep_fixed" : "conv2d_fixed";
  return separable ? "sep_strips" : "conv2d_strips";
}

/* Launches the integer program's 16-bit kernels of @which (EXACT16_SEP,
 * EXACT16_2D bits) once on @queue */
static cl_int
warm_up_exact16 (GstClConvolve * self, GstClContext * ctx,
    cl_command_queue queue, guint which, const gchar ** name)
{
  const ConvKernels *k = &self->kernels[1];
  cl_int err = CL_SUCCESS;

  if (which & EXACT16_SEP) {
    *name = "sep_fixed";
    err = k->sep_fixed ? gst_cl_convolve_warm_up_kernel (ctx, queue,
        k->sep_fixed, TRUE, TRUE) : CL_INVALID_KERNEL;
  }
  if (err == CL_SUCCESS && (which & EXACT16_2D)) {
    *name = "conv2d_fixed";
    err = k->strips_fixed ? gst_cl_convolve_warm_up_kernel (ctx, queue,
        k->strips_fixed, FALSE, TRUE) : CL_INVALID_KERNEL;
  }
  return err;
}

/* Launches path (@arith, @separable)'s kernels once on @queue (EXACT16_JOB:
 * both 16-bit kernels of the integer program); where the stream started on
 * exact 16-bit sums, an integer path's launch includes the 16-bit kernel
 * it started on, since a matrix set while playing may move frames to it.
 * @name: the kernel of a failure. */
static cl_int
warm_up_path (GstClConvolve * self, GstClContext * ctx,
    cl_command_queue queue, gint arith, gboolean separable,
    const gchar ** name)
{
  cl_int err;

  if (separable == EXACT16_JOB)
    return warm_up_exact16 (self, ctx, queue, EXACT16_BOTH, name);
  *name = cpu_path_kernel_name (arith, separable);
  err = gst_cl_convolve_warm_up_kernel (ctx, queue, cpu_path_kernel (self,
          arith, separable), separable, arith == ARITH_FIXED);
  if (err == CL_SUCCESS && arith == ARITH_INTEGER && self->exact16_start)
    err = warm_up_exact16 (self, ctx, queue, self->exact16_start, name);
  return err;
}

/* The current path's kernels, in set_info: the first frame needs them */
gboolean
gst_cl_convolve_warm_up_now (GstClConvolve * self, gint arith,
    gboolean separable)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  const gchar *name;
  cl_int err;

  err = warm_up_path (self, ctx, ctx->queue, arith, separable, &name);
  return gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
      "clEnqueueNDRangeKernel", "Could not prepare the convolution kernels");
}

typedef struct
{
  GstClConvolve *self;          /* outlives the job: reset joins the worker */
  gint arith;
  gint separable;               /* kernel to launch: TRUE, FALSE, -1:
                                 * none (GPU compilers finish in the build),
                                 * or EXACT16_JOB: the integer program's
                                 * sep_fixed alone */
} WarmJob;

/* On the worker thread: makes path (@integer, @separable) ready, its
 * program and the stream's kernel objects included. Nothing else touches
 * them until the stream waits for this job (see
 * gst_cl_convolve_wait_for_path). Failures are only logged: the frame that
 * needs the path then builds or launches it itself and posts the error. */
static void
warm_job_run (GstClContext * ctx, cl_command_queue queue, gpointer data)
{
  WarmJob *job = data;
  GstClConvolve *self = job->self;
  gboolean integer = job->arith == ARITH_INTEGER;
  ConvKernels *k = &self->kernels[integer ? 1 : 0];
  const gchar *name = NULL;
  GError *error = NULL;
  cl_int err = CL_SUCCESS;
  gboolean created = FALSE;

  if (!k->strips) {
    gchar *options = program_options (self, integer);
    cl_program program = gst_cl_context_get_program (ctx, "convolve.cl",
        options, NULL, &error);

    if (!program) {
      GST_WARNING_OBJECT (self, "background build (%s) failed: %s", options,
          error->message);
      g_clear_error (&error);
      g_free (options);
      return;
    }
    g_free (options);
    err = create_kernels (self, program, integer, k, &name);
    clReleaseProgram (program);
    created = TRUE;
  }
  if (err == CL_SUCCESS && job->separable >= 0)
    err = warm_up_path (self, ctx, queue, job->arith, job->separable, &name);
  if (err != CL_SUCCESS) {
    GST_WARNING_OBJECT (self, "background preparation of %s failed: %s",
        name, gst_cl_error_name (err));
    /* only what no frame can be using yet */
    if (created)
      clear_kernels (k);
  }
}

guint
gst_cl_convolve_add_warm_job (GstClConvolve * self, gint arith, gint separable)
{
  WarmJob *job = g_new (WarmJob, 1);

  job->self = self;
  job->arith = arith;
  job->separable = separable;
  return gst_cl_warmup_add (self->warmup, warm_job_run, job, g_free);
}

/* Every path but the current one (@arith, @separable; -1 for none: only
 * its program is built), the likelier first: separable matrices (gaussian,
 * box), then integer 2-D ones (sharpen, edge detectors), float ones outside
 * fixed point (negative coefficients, a bias) last; on GPUs only the other
 * program */
void
gst_cl_convolve_warm_up_in_background (GstClConvolve * self, gint arith,
    gint separable, gboolean first)
{
  static const gint order[6][2] = {
    {ARITH_FIXED, 1}, {ARITH_INTEGER, 1}, {ARITH_INTEGER, 0},
    {ARITH_FIXED, 0}, {ARITH_FLOAT, 1}, {ARITH_FLOAT, 0}
  };
  gboolean integer = arith == ARITH_INTEGER;
  guint n;

  self->warmup = gst_cl_base_filter_get_warmup (GST_CL_BASE_FILTER (self));
  if (!self->warmup)
    return;
  /* frames run conv2d_first until the current path is ready: it comes
   * first (on GPUs its program, the compile is part of the build) */
  if (first && self->use_tile)
    self->warm_job[arith][0] = self->warm_job[arith][1] =
        gst_cl_convolve_add_warm_job (self, arith, -1);
  else if (first)
    self->warm_job[arith][separable] = gst_cl_convolve_add_warm_job (self,
        arith, separable);
  if (self->use_tile && separable >= 0)
    gst_cl_convolve_px_prepare (self);
  if (self->use_tile) {
    n = gst_cl_convolve_add_warm_job (self, integer ? ARITH_FLOAT :
        ARITH_INTEGER, -1);
    self->warm_job[!integer][0] = self->warm_job[!integer][1] = n;
    return;
  }
  for (n = 0; n < G_N_ELEMENTS (order); n++) {
    gint a = order[n][0], s = order[n][1];

    if (a == ARITH_FIXED && !gst_cl_convolve_has_fixed_kernels (self))
      continue;
    if (a != arith || s != separable)
      self->warm_job[a][s] = gst_cl_convolve_add_warm_job (self, a, s);
  }
}

/* Before a frame uses the path of @k: if the worker has not made it ready
 * yet, waits for it (at most the jobs queued before it, never a frame's
 * compile of its own on top) */
void
gst_cl_convolve_wait_for_path (GstClConvolve * self,
    const GstClConvolveKernel * k)
{
  guint *job = &self->warm_job[gst_cl_convolve_path_arith (self, k)]
      [gst_cl_convolve_takes_separable_path (self, k) ? 1 : 0];

  if (*job) {
    gst_cl_warmup_wait (self->warmup, *job);
    *job = 0;
  }
}
