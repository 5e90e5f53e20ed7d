/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's passes: one kernel launch per group of channels that share
 * a plane, pixel stride and subsampling; their programs, the CPU kernels'
 * compile on the warm-up worker, and their launches for a frame */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "gstclhistogrampriv.h"
#include "gstclwarmup.h"

/* @def, or the value of the benchmark override @env (1..64) */
guint
gst_cl_histogram_gpu_tuning (const gchar * env, guint def)
{
  const gchar *v = g_getenv (env);

  return v ? (guint) CLAMP (atoi (v), 1, 64) : def;
}

/* The program and kernels of @pass for this stream's format, on this
 * device */
gboolean
gst_cl_histogram_build_pass (GstClHistogram * self, Pass * pass,
    gboolean depth16, gboolean bt709, const GstVideoInfo * info)
{
  GstClBaseFilter *filter = GST_CL_BASE_FILTER (self);
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  GString *opt = g_string_new (NULL);
  const GstVideoFormatInfo *f = info->finfo;
  cl_program program;
  guint k;

  g_string_append_printf (opt, "-DNOUT=%u -DPSTRIDE=%u -DDEPTH16=%d "
      "-DRANGE=%u -DGPU=%d", pass->n_out, pass->pstride, depth16, self->range,
      self->gpu);
  for (k = 0; k < pass->n_out; k++)
    g_string_append_printf (opt, " -DSRC%u=%d", k, pass->src[k]);
  if (GST_VIDEO_INFO_IS_RGB (info))
    g_string_append_printf (opt, " -DROFF=%u -DGOFF=%u -DBOFF=%u "
        "-DKR=%u -DKG=%u -DKB=%u", GST_VIDEO_FORMAT_INFO_POFFSET (f, 0),
        GST_VIDEO_FORMAT_INFO_POFFSET (f, 1),
        GST_VIDEO_FORMAT_INFO_POFFSET (f, 2), bt709 ? 13933 : 19595,
        bt709 ? 46871 : 38470, bt709 ? 4732 : 7471);
  if (self->gpu) {
    /* replicas of the local histograms: a power of two, as many as fit two
     * thirds of the local memory, at most one per lane of a warp */
    gsize one = (gsize) pass->n_out * self->range * 4;
    guint nrep = 1;

    while (!depth16 && nrep < 32 && 2 * nrep * one <= ctx->local_mem_size *
        2 / 3)
      nrep *= 2;
    g_string_append_printf (opt, " -DNREP=%u -DWG=%" G_GSIZE_FORMAT
        " -DBATCH=%u", nrep, pass->wg,
        gst_cl_histogram_gpu_tuning (GPU_BATCH_ENV, GPU_BATCH));
  } else {
    g_string_append_printf (opt, " -DNCOPY=%d", depth16 ? 1 : 4);
  }

  program = gst_cl_base_filter_get_program (filter, "histogram.cl", opt->str);
  g_string_free (opt, TRUE);
  if (!program)
    return FALSE;
  pass->hist = gst_cl_base_filter_create_kernel (filter, program,
      self->gpu ? "hist_gpu" : "hist_cpu");
  if (pass->hist && !self->gpu)
    pass->merge = gst_cl_base_filter_create_kernel (filter, program,
        "hist_merge");
  if (pass->merge)
    pass->hist_first = gst_cl_base_filter_create_kernel (filter, program,
        "hist_cpu_first");
  clReleaseProgram (program);
  if (pass->hist && self->gpu) {
    gsize max = 0;

    /* the compiled kernel may allow fewer work-items than the device:
     * rebuild for the largest power of two it takes */
    if (clGetKernelWorkGroupInfo (pass->hist, ctx->device,
            CL_KERNEL_WORK_GROUP_SIZE, sizeof (max), &max, NULL) == CL_SUCCESS
        && max > 0 && max < pass->wg) {
      GST_INFO_OBJECT (self, "kernel takes %" G_GSIZE_FORMAT " work-items, "
          "not %" G_GSIZE_FORMAT, max, pass->wg);
      clReleaseKernel (pass->hist);
      pass->hist = NULL;
      while (pass->wg > max)
        pass->wg /= 2;
      return gst_cl_histogram_build_pass (self, pass, depth16, bt709, info);
    }
  }
  return pass->hist && (self->gpu || pass->hist_first);
}

/* On the warm-up worker: PoCL compiles a kernel at its first launch.
 * Launches every pass's hist_cpu once, as frames do (one work-item per
 * work-group), on one pixel of scratch memory; the frames take hist_cpu
 * only once hist_ready is set. */
static void
warm_job_run (GstClContext * ctx, cl_command_queue queue, gpointer data)
{
  GstClHistogram *self = data;
  const cl_uint zero = 0;
  const cl_int one = 1, izero = 0, stride = 64;
  gsize n = 1;
  cl_mem mem, partial = NULL;
  cl_int err;
  guint i;

  mem = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, 64, NULL, &err);
  if (err == CL_SUCCESS)
    err = clEnqueueFillBuffer (queue, mem, &zero, sizeof (zero), 0, 64, 0,
        NULL, NULL);
  if (err == CL_SUCCESS)
    partial = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE,
        (gsize) MAX_PASS_OUT * self->range * 4, NULL, &err);
  for (i = 0; i < self->n_passes && err == CL_SUCCESS; i++) {
    const GstClArg args[] = { GST_CL_ARG (mem), GST_CL_ARG (zero),
      GST_CL_ARG (stride), GST_CL_ARG (izero), GST_CL_ARG (izero),
      GST_CL_ARG (one), GST_CL_ARG (one), GST_CL_ARG (one),
      GST_CL_ARG (partial), GST_CL_ARG (zero)
    };

    err = gst_cl_kernel_set_args (self->passes[i].hist, args,
        G_N_ELEMENTS (args));
    if (err == CL_SUCCESS)
      err = gst_cl_warmup_launch (queue, self->passes[i].hist, 1, &n, &n);
  }
  if (partial)
    clReleaseMemObject (partial);
  if (mem)
    clReleaseMemObject (mem);
  if (err == CL_SUCCESS) {
    GST_INFO_OBJECT (self, "hist_cpu compiled");
    g_atomic_int_set (&self->hist_ready, 1);
  } else {
    GST_WARNING_OBJECT (self, "background compile of hist_cpu failed (%s): "
        "frames keep hist_cpu_first", gst_cl_error_name (err));
  }
}

/* CPU, at caps: frames start on hist_cpu_first (quick to compile) while
 * the warm-up worker, which starts after the first frame, compiles
 * hist_cpu; a live stream (or FIRST_ENV=off) waits for that compile now,
 * so that it never stalls on it later (PoCL holds every launch while it
 * compiles) */
void
gst_cl_histogram_start_warm_up (GstClHistogram * self)
{
  const gchar *env = g_getenv (FIRST_ENV);
  GstClWarmup *warmup;

  if (env && g_str_equal (env, "only"))
    return;
  warmup = gst_cl_base_filter_get_warmup (GST_CL_BASE_FILTER (self));
  if (!warmup)
    return;
  gst_cl_warmup_add (warmup, warm_job_run, self, NULL);
  if ((env && g_str_equal (env, "off")) ||
      gst_cl_base_filter_upstream_is_live (GST_CL_BASE_FILTER (self)))
    gst_cl_warmup_wait_all (warmup);
}

/* Enqueues @pass over the region (x, y, w, h) given in luma pixels */
gboolean
gst_cl_histogram_enqueue_pass (GstClHistogram * self, Pass * pass,
    GstClFrame * frame, const gint * roi)
{
  /* chroma: every sample that touches a luma pixel of the region */
  cl_int x0 = roi[0] >> pass->wsub, y0 = roi[1] >> pass->hsub;
  cl_int x1 = (roi[0] + roi[2] + (1 << pass->wsub) - 1) >> pass->wsub;
  cl_int y1 = (roi[1] + roi[3] + (1 << pass->hsub) - 1) >> pass->hsub;
  cl_int w = x1 - x0, h = y1 - y0;
  cl_uint out_base = pass->first * self->range;
  gsize global, local;

  if (self->gpu) {
    guint ppc = pass->pstride == 3 ? 5 : 16 / pass->pstride;
    gsize n = (gsize) self->n_channels * self->range;
    /* 16-byte chunks of the region: no overflow, the region is within a
     * mapped frame */
    gsize chunks = (gsize) (w + ppc - 1) / ppc * h;
    /* few large work-groups, pass->chunks chunks per work-item at least:
     * each group costs a clear and a merge of its local histograms (one
     * global atomic per bin) */
    gsize per_group = pass->chunks * pass->wg;
    gsize groups = CLAMP ((chunks + per_group - 1) / per_group, 1,
        MAX (self->max_items / pass->wg, 1));
    cl_uint clear_base = (1 - self->half) * n + out_base;

    out_base += self->half * n;
    local = pass->wg;
    global = groups * pass->wg;
    GST_CL_LAUNCH (self, pass->hist, 1, &global, &local, HIST_WHAT,
        GST_CL_ARG_PLANE (frame, pass->plane), GST_CL_ARG (x0),
        GST_CL_ARG (y0), GST_CL_ARG (w), GST_CL_ARG (h),
        GST_CL_ARG (self->result), GST_CL_ARG (out_base),
        GST_CL_ARG (clear_base));
  } else {
    /* a band zeroes and sums NCOPY private histograms: small regions get
     * fewer, longer bands (a 16x16 frame one, not max_bands) */
    cl_int rows = MAX ((cl_int) ((h + self->max_bands - 1) / self->max_bands),
        (MIN_BAND_PIXELS + w - 1) / MAX (w, 1));
    cl_int nbands = (h + rows - 1) / rows;
    gsize merge_n = (gsize) pass->n_out * self->range;
    /* with host_merge each pass has its own bands in @partial */
    cl_uint pbase = self->host_merge ? pass->first * self->max_bands *
        self->range : 0;

    global = nbands;
    local = 1;
    pass->nbands = nbands;
    GST_CL_LAUNCH (self, g_atomic_int_get (&self->hist_ready) ? pass->hist :
        pass->hist_first, 1, &global, &local, HIST_WHAT,
        GST_CL_ARG_PLANE (frame, pass->plane), GST_CL_ARG (x0),
        GST_CL_ARG (y0), GST_CL_ARG (w), GST_CL_ARG (h), GST_CL_ARG (rows),
        GST_CL_ARG (self->partial), GST_CL_ARG (pbase));
    /* 8-bit: the host sums the few bands from the read it does anyway,
     * cheaper than a second launch */
    if (self->host_merge)
      return TRUE;
    /* few long work-items: the merge is a few thousand additions */
    local = 64;
    global = gst_cl_global_size (merge_n, local);
    GST_CL_LAUNCH (self, pass->merge, 1, &global, &local, HIST_WHAT,
        GST_CL_ARG (self->partial), GST_CL_ARG (nbands),
        GST_CL_ARG (self->result), GST_CL_ARG (out_base));
  }
  return TRUE;
fail:
  return FALSE;
}

/* host_merge: the bytes of self->partial this frame's bands wrote (each
 * pass's bands from its own offset), not all max_bands of every pass: a
 * small frame has one band */
gsize
gst_cl_histogram_used_partial_bytes (GstClHistogram * self)
{
  gsize end = 0;
  guint p;

  for (p = 0; p < self->n_passes; p++) {
    const Pass *pass = &self->passes[p];

    end = MAX (end, ((gsize) pass->first * self->max_bands +
            (gsize) pass->nbands * pass->n_out) * self->range);
  }
  return end * 4;
}
