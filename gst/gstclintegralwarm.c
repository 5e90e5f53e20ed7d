/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clintegral's kernels launched once on the warm-up worker, so that no
 * frame waits for a device that compiles a kernel at its first launch */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclintegralpriv.h"

/* the warm-up jobs' argument setter: sets argument j++ of `kernel` to @v
 * while `err` is CL_SUCCESS */
#define WARM_ARG(v) (err == CL_SUCCESS ? \
    (err = clSetKernelArg (kernel, j++, sizeof (v), &(v))) : err)

/* On the warm-up worker: PoCL compiles a kernel at its first launch (about
 * 0.4-0.5 s for cpu_integral or cpu_box_mean on 2 cores, against about a
 * third of that for their pixel-by-pixel _first variants, which the frames
 * use until then). Launches every plane's fast kernel once, with the
 * stream's band count, on a 4x4 frame of scratch memory; nothing touches
 * those kernel objects before fast_ready is set. */
static void
warm_job_run (GstClContext * ctx, cl_command_queue queue, gpointer data)
{
  GstClIntegral *self = data;
  cl_int err, w = 4, h = 4, r = 1, bands[16];
  cl_uint zero = 0, stride = 16, img_off = 2048, epoch = 1;
  cl_ulong out_off = img_off;
  gsize one = 1, nb = self->n_bands;
  cl_mem mem, scratch;
  gpointer zeros;
  guint i, j, k;

  bands[0] = 0;
  for (k = 1; k < 16; k++)
    bands[k] = h;
  /* zeroed: the kernels compute on these samples (an uninitialised frame
   * made float conversions branch on garbage under valgrind) */
  zeros = g_malloc0 (16 * 4096);
  mem = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE |
      CL_MEM_COPY_HOST_PTR, 4096, zeros, &err);
  /* (zeroed too: cpu_integral's region words) */
  scratch = err == CL_SUCCESS ? clCreateBuffer (ctx->context,
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 16 * 4096, zeros, &err) :
      NULL;
  g_free (zeros);
  for (i = 0; i < self->n_planes && err == CL_SUCCESS; i++) {
    cl_kernel kernel = self->plane[i].fast;

    j = 0;
    WARM_ARG (mem);
    WARM_ARG (zero);
    WARM_ARG (stride);
    if (self->box_mean) {
      WARM_ARG (mem);
      WARM_ARG (img_off);
      WARM_ARG (stride);
      WARM_ARG (w);
      WARM_ARG (h);
      WARM_ARG (r);
      WARM_ARG (bands);
      WARM_ARG (scratch);
      WARM_ARG (epoch);
    } else {
      WARM_ARG (w);
      WARM_ARG (h);
      WARM_ARG (bands);
      WARM_ARG (scratch);
      WARM_ARG (mem);
      WARM_ARG (out_off);
      WARM_ARG (epoch);
    }
    if (err == CL_SUCCESS)
      err = gst_cl_warmup_launch (queue, kernel, 1, &nb, &one);
  }
  if (scratch)
    clReleaseMemObject (scratch);
  if (mem)
    clReleaseMemObject (mem);
  if (err == CL_SUCCESS) {
    g_atomic_int_set (&self->fast_ready, 1);
    /* (after the flag: tests take this line as the switch) */
    GST_INFO_OBJECT (self, "fast CPU kernels compiled");
  } else
    GST_WARNING_OBJECT (self, "background compile of the CPU kernels "
        "failed (%s): frames keep the first-frame kernels",
        gst_cl_error_name (err));
}

/* CPU, at caps: the fast kernels compile on the warm-up worker, which
 * starts after the first frame (a one-frame pipeline never pays for it);
 * live streams (and GST_CL_INTEGRAL_VARIANT=cpu or wait) wait for it now,
 * so they never stall on it later. Always TRUE: without a worker the frames
 * keep the first-frame kernels. */
static gboolean
start_warm_up (GstClIntegral * self, GstClWarmupFunc job)
{
  const gchar *variant = g_getenv (VARIANT_ENV);
  GstClWarmup *warmup;

  if (variant && g_str_equal (variant, "cpu-first"))
    return TRUE;
  warmup = gst_cl_base_filter_get_warmup (GST_CL_BASE_FILTER (self));
  if (!warmup)
    return TRUE;
  gst_cl_warmup_add (warmup, job, self, NULL);
  if ((variant && (g_str_equal (variant, "cpu") ||
              g_str_equal (variant, "wait"))) ||
      gst_cl_base_filter_upstream_is_live (GST_CL_BASE_FILTER (self)))
    gst_cl_warmup_wait_all (warmup);
  return TRUE;
}

/* On the warm-up worker, GPU box mean: a radius set while playing moves
 * the frames between box_mean_tile and the integral path (above 32), and a
 * device that compiles a kernel at its first launch (PoCL, where the tests
 * force the GPU variant) would hold that frame for it. Launches each of
 * the five kernels once on a 4x4 frame of scratch memory, through kernel
 * objects of its own (the streaming thread sets the element's). */
static void
warm_box_job_run (GstClContext * ctx, cl_command_queue queue, gpointer data)
{
  GstClIntegral *self = data;
  IntegralPlane *p = &self->plane[0];
  static const gchar *names[] = { "gpu_strip_sums", "gpu_strip_scan",
    "gpu_strip_integral", "box_mean", "box_mean_tile"
  };
  cl_int err, w = 4, h = 4, r = 1, stride = 16, strips = 1;
  cl_uint zero = 0, m = (cl_uint) ((w + 1) * self->channels);
  cl_ulong off = 0;
  cl_float inv = 1.0f / 9;
  gsize g_strip[2] = { GPU_STRIP_WG, 1 }, l_strip[2] = { GPU_STRIP_WG, 1 };
  gsize g_scan[2] = { 32, GPU_SCAN_BANDS }, l_scan[2] = { 32, GPU_SCAN_BANDS };
  gsize g_box[2] = { 16, 16 }, l_box[2] = { 16, 16 };
  gsize g_tile[2] = { self->box_tile_wg, 1 };
  gsize l_tile[2] = { self->box_tile_wg, 1 };
  /* (in the order of names) */
  const gsize *global[] = { g_strip, g_scan, g_strip, g_box, g_tile };
  const gsize *local[] = { l_strip, l_scan, l_strip, l_box, l_tile };
  gpointer zeros = g_malloc0 (65536);
  cl_mem frame, scratch, ii;
  guint i, j;

  /* (zeroed: the kernels read every byte they are given) */
  frame = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE |
      CL_MEM_COPY_HOST_PTR, 4096, zeros, &err);
  scratch = err == CL_SUCCESS ? clCreateBuffer (ctx->context,
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 65536, zeros, &err) : NULL;
  ii = err == CL_SUCCESS ? clCreateBuffer (ctx->context, CL_MEM_READ_WRITE |
      CL_MEM_COPY_HOST_PTR, 4096, zeros, &err) : NULL;
  g_free (zeros);
  for (i = 0; i < G_N_ELEMENTS (names) && err == CL_SUCCESS; i++) {
    cl_kernel kernel;

    if (i == 4 && !self->box_tile)
      break;
    kernel = clCreateKernel (p->program, names[i], &err);
    j = 0;
    if (i != 1) {
      WARM_ARG (frame);
      WARM_ARG (zero);
      WARM_ARG (stride);
    }
    if (i == 0 || i == 2) {
      WARM_ARG (w);
      WARM_ARG (h);
      WARM_ARG (scratch);
      if (i == 2) {
        WARM_ARG (ii);
        WARM_ARG (off);
      }
    } else if (i == 1) {
      WARM_ARG (m);
      WARM_ARG (strips);
      WARM_ARG (scratch);
    } else {
      /* box means into the frame's second kilobyte */
      cl_uint dst_off = 1024;

      WARM_ARG (frame);
      WARM_ARG (dst_off);
      WARM_ARG (stride);
      if (i == 3)
        WARM_ARG (ii);
      WARM_ARG (w);
      WARM_ARG (h);
      WARM_ARG (r);
      if (i == 4)
        WARM_ARG (inv);
    }
    if (err == CL_SUCCESS)
      err = gst_cl_warmup_launch (queue, kernel, 2, global[i], local[i]);
    if (kernel)
      clReleaseKernel (kernel);
  }
  if (ii)
    clReleaseMemObject (ii);
  if (scratch)
    clReleaseMemObject (scratch);
  if (frame)
    clReleaseMemObject (frame);
  if (err == CL_SUCCESS)
    /* (tests take this line as the job done) */
    GST_INFO_OBJECT (self, "box-mean kernels launched once");
  else
    GST_WARNING_OBJECT (self, "background launch of the box-mean kernels "
        "failed (%s): a radius change may wait for a first launch",
        gst_cl_error_name (err));
}

gboolean
gst_cl_integral_warm_cpu_kernels (GstClIntegral * self)
{
  return start_warm_up (self, warm_job_run);
}

gboolean
gst_cl_integral_warm_box_kernels (GstClIntegral * self)
{
  return start_warm_up (self, warm_box_job_run);
}
