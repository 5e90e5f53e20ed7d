/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvolve's conv2d_first: a small program of its own that filters a
 * non-live stream's first frames while the warm-up worker prepares the
 * path the matrix takes */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclconvolvepriv.h"

/* conv2d_first */
#define FIRST_ARGS(in, out, p, c) FRAME_ARGS (in, out, p, c), \
    GST_CL_ARG ((c)->taps2d), GST_CL_ARG ((c)->n2d), GST_CL_ARG ((c)->rx), \
    GST_CL_ARG ((c)->ry), GST_CL_ARG ((c)->bval), GST_CL_ARG ((c)->border), \
    PARAM_ARGS (c)

/* conv2d_first of the integer or float program (@integer), compiled: its
 * own small program, launched once on a 1x1 plane of scratch memory with
 * the frames' work-group size (PoCL compiles it then, in this thread,
 * before any worker can be compiling). Posts the error. */
gboolean
gst_cl_convolve_ensure_first (GstClConvolve * self, gboolean integer)
{
  GstClBaseFilter *filter = GST_CL_BASE_FILTER (self);
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  const gsize global[2] = { FIRST_LX, 1 }, local[2] = { FIRST_LX, 1 };
  cl_program program;
  GstClFrame f;
  ConvArgs c;
  gchar *options;
  cl_int err;
  gint64 start;

  if (self->first && self->first_integer == integer)
    return TRUE;
  if (self->first)
    clReleaseKernel (self->first);
  self->first = NULL;
  options = g_strdup_printf ("-D DEPTH16=%d -D INTEGER=%d -D CPU_ONLY=1 "
      "-D PX_ONLY=1 -D FIRST_ONLY=1", self->depth16 ? 1 : 0, integer ? 1 : 0);
  program = gst_cl_base_filter_get_program (filter, "convolve.cl", options);
  g_free (options);
  if (!program)
    return FALSE;
  self->first = gst_cl_base_filter_create_kernel (filter, program,
      "conv2d_first");
  clReleaseProgram (program);
  if (!self->first)
    return FALSE;
  self->first_integer = integer;

  err = gst_cl_convolve_scratch_launch_args (ctx, &f, &c);
  if (err == CL_SUCCESS) {
    const GstClArg args[] = { FIRST_ARGS (&f, &f, 0, &c) };

    err = gst_cl_kernel_set_args (self->first, args, G_N_ELEMENTS (args));
    start = g_get_monotonic_time ();
    if (err == CL_SUCCESS)
      err = gst_cl_warmup_launch (ctx->queue, self->first, 2, global, local);
    GST_DEBUG_OBJECT (self, "conv2d_first's first launch: %.1f ms",
        (g_get_monotonic_time () - start) / 1000.0);
    clReleaseMemObject (f.mem);
  }
  if (err != CL_SUCCESS) {
    clReleaseKernel (self->first);
    self->first = NULL;
  }
  return gst_cl_base_filter_check (filter, err, "clEnqueueNDRangeKernel",
      "Could not prepare the convolution kernels");
}

/* Whether conv2d_first is worth it for matrix @k: on GPUs always (the
 * program it stands in for takes seconds to build: 3.9-7.5 s on an H200);
 * on CPU devices taps x samples of the frame (every plane counted) at most
 * FIRST_MAX_WORK. No overflow: the base class accepted the frame's bytes
 * (they fit a gsize, samples are at least a byte) and there are at most
 * 31 x 31 taps. */
gboolean
gst_cl_convolve_first_pays_off (GstClConvolve * self,
    const GstClConvolveKernel * k)
{
  guint64 samples = 0, taps = 0;
  guint p;
  gint i;

  if (self->use_tile)
    return TRUE;
  for (i = 0; i < k->width * k->height; i++)
    taps += k->coef[i] != 0;
  for (p = 0; p < self->n_planes; p++)
    samples += (guint64) self->planes[p].width * self->planes[p].height *
        self->planes[p].ch;
  return taps * samples <= FIRST_MAX_WORK;
}

/* Whether this frame runs conv2d_first: its arithmetic's, while the
 * worker has not made the frame's path ready (never waiting for it). The
 * first frame that takes its path's own kernel releases conv2d_first:
 * the frames after it never go back (a later change to a path not ready
 * yet waits for its job). O(1) per frame: the matrix's size test is made
 * when the matrix changes. */
gboolean
gst_cl_convolve_first_serves_frame (GstClConvolve * self)
{
  const GstClConvolveKernel *k = self->frame_kernel;
  guint job;

  if (self->first_only) {
    /* (a failure posted its error; gst_cl_convolve_filter_frame_first then
     * fails) */
    gst_cl_convolve_ensure_first (self, k->integer);
    return TRUE;
  }
  if (!self->first)
    return FALSE;
  job = self->warm_job[gst_cl_convolve_path_arith (self, k)]
      [gst_cl_convolve_takes_separable_path (self, k) ? 1 : 0];
  if (self->first_integer == k->integer && self->first_fits && job &&
      !gst_cl_warmup_is_done (self->warmup, job))
    return TRUE;
  GST_INFO_OBJECT (self, "conv2d_first filtered %u frames, now the path's "
      "own kernel; conv2d_first released", self->first_frames);
  clReleaseKernel (self->first);
  self->first = NULL;
  self->first_frames = 0;
  return FALSE;
}

/* Every plane of the frame through conv2d_first (chroma copied if so set) */
gboolean
gst_cl_convolve_filter_frame_first (GstClConvolve * self, GstClFrame * in,
    GstClFrame * out, cl_int bval, cl_int border, GstClConvolveChroma chroma)
{
  GstClBaseFilter *filter = GST_CL_BASE_FILTER (self);
  static const gsize local[2] = { FIRST_LX, 1 };
  ConvArgs c;
  gsize g[2];
  guint p;

  if (!self->first)
    return FALSE;
  self->first_frames++;
  GST_LOG_OBJECT (self, "conv2d_first (frame %u)", self->first_frames);
  for (p = 0; p < self->n_planes; p++) {
    const ConvPlane *pl = &self->planes[p];

    if (pl->chroma && chroma == GST_CL_CONVOLVE_CHROMA_COPY) {
      if (!gst_cl_base_filter_copy_plane (filter, in, out, p))
        return FALSE;
      continue;
    }
    gst_cl_convolve_args (&c, pl, self->frame_kernel, bval, border);
    c.taps2d = self->taps2d;
    c.n2d = self->n2d;
    g[0] = gst_cl_global_size (((gsize) pl->width * pl->ch +
            FIRST_SAMPLES - 1) / FIRST_SAMPLES, FIRST_LX);
    g[1] = pl->height;
    GST_CL_LAUNCH (self, self->first, 2, g, local, CONV_WHAT,
        FIRST_ARGS (in, out, p, &c));
  }
  return TRUE;
fail:
  return FALSE;
}
