/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvolve: a frame's taps, kernel arguments and launches, plane by
 * plane, on every path but conv2d_px (gstclconvolvepx.c) and
 * conv2d_first (gstclconvolvefirst.c) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclconvolvepriv.h"

/* A tap (dx, dy, coefficient, 16-bit value): the coefficient @c as the
 * kernels of its program read it (an int in the integer program, float
 * bits in the other), and @q, the value sep_fixed and conv2d_fixed
 * multiply by, where @q16 (else the coefficient as an int) */
static void
pack_tap (cl_int * t, gint dx, gint dy, gdouble c, gboolean integer,
    gboolean q16, guint16 q)
{
  union
  {
    cl_float f;
    cl_int i;
  } u;

  u.f = (cl_float) c;
  t[0] = dx;
  t[1] = dy;
  t[2] = integer ? (cl_int) c : u.i;
  t[3] = q16 ? q : (cl_int) c;
}

/* Writes the snapshot's taps; zeros are left out (no work for them) */
gboolean
gst_cl_convolve_upload_taps (GstClConvolve * self)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  const GstClConvolveKernel *k = self->frame_kernel;
  cl_int taps[GST_CL_CONVOLVE_MAX_TAPS * 4];
  gint rx = k->width / 2, ry = k->height / 2, i, j, n = 0, rows = 0;
  /* the separable taps' .w: sep_fixed's 16-bit values (whether or not it
   * is ready: the other kernels read .z) */
  gboolean q16 = k->fixed || k->exact16;
  cl_int err;

  for (i = 0; i < k->height; i++) {
    gint before = n;
    for (j = 0; j < k->width; j++)
      if (k->coef[i * k->width + j] != 0)
        pack_tap (&taps[4 * n++], j - rx, i - ry, k->coef[i * k->width + j],
            k->integer, k->fixed, k->qcoef[i * k->width + j]);
    rows += n > before;
  }
  self->n2d = n;
  /* widening a row to float once pays off from about 2.5 taps per row */
  self->direct = 2 * n < 5 * rows;
  err = clEnqueueWriteBuffer (ctx->queue, self->taps2d, CL_TRUE, 0,
      MAX (n, 1) * sizeof (cl_int4), taps, 0, NULL, NULL);
  /* conv2d_reg<R>: the matrix centred in a (2R+1)^2 square of zeros, as
   * acc_t (float, or int on the integer path) */
  self->reg_r = MAX (MAX (rx, ry), 1);
  if (self->reg_r > REG_MAX_R)
    self->reg_r = 0;
  if (err == CL_SUCCESS && self->reg_r) {
    gint r = self->reg_r, side = 2 * r + 1;
    union
    {
      cl_float f;
      cl_int i;
    } sq[(2 * REG_MAX_R + 1) * (2 * REG_MAX_R + 1)];
    gint px_r;

    memset (sq, 0, sizeof (sq));
    memset (self->px_coef, 0, sizeof (self->px_coef));
    for (i = 0; i < k->height; i++)
      for (j = 0; j < k->width; j++) {
        gdouble c = k->coef[i * k->width + j];
        gint at = (i - ry + r) * side + j - rx + r;

        if (k->integer)
          sq[at].i = (cl_int) c;
        else
          sq[at].f = (cl_float) c;
        self->px_coef[at] = (cl_float) c;
      }
    self->px_exact = gst_cl_convolve_px_pattern (self, k, &px_r,
        &self->px_mask);
    if (gst_cl_convolve_px_separable (self, k)) {
      /* the fused separable kernel: row factor, then column factor */
      memset (self->px_coef, 0, sizeof (self->px_coef));
      for (j = 0; j < k->width; j++)
        self->px_coef[j - rx + r] = (cl_float) k->row[j];
      for (i = 0; i < k->height; i++)
        self->px_coef[side + i - ry + r] = (cl_float) k->col[i];
    }
    err = clEnqueueWriteBuffer (ctx->queue, self->coef_sq, CL_TRUE, 0,
        side * side * sizeof (sq[0]), sq, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS && k->separable) {
    for (j = 0, n = 0; j < k->width; j++)
      if (k->row[j] != 0)
        pack_tap (&taps[4 * n++], j - rx, 0, k->row[j], k->integer, q16,
            k->qrow[j]);
    self->nrow = n;
    err = clEnqueueWriteBuffer (ctx->queue, self->taps_row, CL_TRUE, 0,
        MAX (n, 1) * sizeof (cl_int4), taps, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS && k->separable) {
    for (i = 0, n = 0; i < k->height; i++)
      if (k->col[i] != 0)
        pack_tap (&taps[4 * n++], 0, i - ry, k->col[i], k->integer, q16,
            k->qcol[i]);
    self->ncol = n;
    err = clEnqueueWriteBuffer (ctx->queue, self->taps_col, CL_TRUE, 0,
        MAX (n, 1) * sizeof (cl_int4), taps, 0, NULL, NULL);
  }
  return gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
      "clEnqueueWriteBuffer", "Could not upload the convolution matrix");
}

/* The values of plane @pl under matrix @k; the tap buffers are the
 * caller's */
void
gst_cl_convolve_args (ConvArgs * c, const ConvPlane * pl,
    const GstClConvolveKernel * k, cl_int bval, cl_int border)
{
  union
  {
    cl_float f;
    cl_int i;
  } border_row;
  gdouble rowsum = 0;
  gint j;

  memset (c, 0, sizeof (*c));
  c->width = pl->width;
  c->height = pl->height;
  c->ch = pl->ch;
  c->apos = pl->alpha_pos;
  c->rx = k->width / 2;
  c->ry = k->height / 2;
  c->bval = bval;
  c->border = border;
  /* a row of border pixels after the row pass, for the column pass */
  for (j = 0; j < k->width; j++)
    rowsum += k->row[j];
  if (k->integer)
    border_row.i = (cl_int) (rowsum * bval);
  else
    border_row.f = (cl_float) (rowsum * bval);
  c->border_row = border_row.i;
  c->tpitch = gst_cl_round_up ((gsize) pl->width * pl->ch, STRIP);
  /* a multiply by the reciprocal: off by at most an ulp from a division,
   * within the float path's tolerance, and much cheaper per sample */
  c->finv = 1.0 / k->divisor;
  c->fbias = k->bias;
  c->idiv = k->idivisor;
  c->ibias = k->ibias;
  c->absolute = k->absolute;
}

static gboolean
ensure_tmp (GstClConvolve * self, GstClContext * ctx, gsize size)
{
  cl_int err;

  if (self->tmp && self->tmp_size >= size)
    return TRUE;
  if (self->tmp)
    clReleaseMemObject (self->tmp);
  self->tmp = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, size, NULL,
      &err);
  self->tmp_size = self->tmp ? size : 0;
  return gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
      "clCreateBuffer", "Could not allocate the separable pass buffer");
}

/* CPU devices: one work-item per work-group for the fused separable
 * kernel, else PoCL may put the whole range in one work-group (one
 * thread) */
static const gsize sep_local[2] = { 1, 1 };
static const gsize strips_local[2] = { STRIPS_LX, STRIPS_LY };
/* conv2d_fixed: 8 strips of a row in turn, so that a thread reads along
 * rows, which the hardware prefetchers follow (down a strip, a page per
 * row, they do not: 1080p RGBA motion blur took 20-30% more CPU time) */
static const gsize fix2d_local[2] = { 8, 1 };

/* the work-group shape of conv2d_fixed if @fixed, else of conv2d_strips */
static const gsize *
strips_local_size (gboolean fixed)
{
  return fixed ? fix2d_local : strips_local;
}

/* launch sizes of sep_strips and conv2d_strips */
static void
sep_global (const ConvArgs * c, gsize global[2])
{
  global[0] = ((gsize) c->width * c->ch + STRIP - 1) / STRIP;
  global[1] = ((gsize) c->height + SEP_ROWS - 1) / SEP_ROWS;
}

/* launch size of sep_fixed: COLOUR_STRIP samples per work-item where its
 * colour path (@colour: built) filters 3 of 4 samples (the kernel's test) */
static void
sep_fixed_global (const ConvArgs * c, gboolean colour, gsize global[2])
{
  gsize strip = colour && c->ch == 4 && (c->apos == 0 || c->apos == 3) ?
      COLOUR_STRIP : STRIP;

  sep_global (c, global);
  global[0] = ((gsize) c->width * c->ch + strip - 1) / strip;
}

/* conv2d_fixed makes FIX2D_ROWS rows per work-item, conv2d_strips one */
static void
strips_global (const ConvArgs * c, gboolean fixed, gsize global[2])
{
  gsize rows = fixed ? FIX2D_ROWS : 1;
  const gsize *local = strips_local_size (fixed);

  global[0] = gst_cl_global_size (((gsize) c->width * c->ch + STRIP - 1) /
      STRIP, local[0]);
  global[1] = gst_cl_global_size ((c->height + rows - 1) / rows, local[1]);
}

/* GPU separable path: row pass into @tmp, column pass into the output */
static gboolean
launch_two_pass (GstClConvolve * self, ConvKernels * ks, ConvArgs * c,
    guint p, GstClFrame * in, GstClFrame * out)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  gsize g[2] = { ((gsize) c->width * c->ch + STRIP - 1) / STRIP, c->height };

  if (!ensure_tmp (self, ctx, (gsize) c->tpitch * c->height * 4))
    return FALSE;
  c->tmp = self->tmp;
  GST_CL_LAUNCH (self, ks->hpass, 2, g, NULL, SEP_WHAT,
      GST_CL_ARG_PLANE (in, p), GST_CL_ARG (c->tmp), GST_CL_ARG (c->tpitch),
      GST_CL_ARG (c->width), GST_CL_ARG (c->height), GST_CL_ARG (c->ch),
      GST_CL_ARG (c->taps_row), GST_CL_ARG (c->nrow), GST_CL_ARG (c->rx),
      GST_CL_ARG (c->bval), GST_CL_ARG (c->border));
  GST_CL_LAUNCH (self, ks->vpass, 2, g, NULL, SEP_WHAT,
      GST_CL_ARG (c->tmp), GST_CL_ARG (c->tpitch), FRAME_ARGS (in, out, p, c),
      GST_CL_ARG (c->taps_col), GST_CL_ARG (c->ncol),
      GST_CL_ARG (c->border_row), GST_CL_ARG (c->border), PARAM_ARGS (c));
  return TRUE;
fail:
  return FALSE;
}

gboolean
gst_cl_convolve_filter_plane (GstClConvolve * self, ConvKernels * ks,
    const ConvPlane * pl, guint p, GstClFrame * in, GstClFrame * out,
    cl_int bval, cl_int border)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  const GstClConvolveKernel *k = self->frame_kernel;
  gsize rowlen = (gsize) pl->width * pl->ch;
  gsize g[2];
  gboolean fixed, ok;
  ConvArgs c;

  gst_cl_convolve_args (&c, pl, k, bval, border);
  c.taps2d = self->taps2d;
  c.taps_row = self->taps_row;
  c.taps_col = self->taps_col;
  c.coef_sq = self->coef_sq;
  c.n2d = self->n2d;
  c.nrow = self->nrow;
  c.ncol = self->ncol;
  c.direct = self->direct;

  /* conv2d_px where this frame has one (fused separable ones included) */
  if (gst_cl_convolve_launch_px (self, ks, pl, &c, p, in, out, &ok))
    return ok;
  if (gst_cl_convolve_takes_separable_path (self, k) && self->use_tile)
    return launch_two_pass (self, ks, &c, p, in, out);
  if (gst_cl_convolve_takes_separable_path (self, k)) {
    /* CPU: both passes in one kernel, no intermediate buffer */
    fixed = gst_cl_convolve_path_arith (self, k) == ARITH_FIXED ||
        gst_cl_convolve_uses_exact16 (self, k);
    if (fixed)
      sep_fixed_global (&c, self->fixed_colour != 0, g);
    else
      sep_global (&c, g);
    GST_CL_LAUNCH (self, fixed ? ks->sep_fixed : ks->sep, 2, g, sep_local,
        SEP_WHAT, SEP_ARGS (in, out, p, &c));
    return TRUE;
  }

  if (self->use_tile && self->reg_r) {
    gint r = self->reg_r;
    gsize tile_bytes = (gsize) (REG_WX + 2 * r * c.ch) * (REG_TH + 2 * r) * 4;
    static const gsize reg_local[2] = { REG_WX, REG_WY };

    if (tile_bytes <= ctx->local_mem_size) {
      g[0] = gst_cl_global_size (rowlen, REG_WX);
      g[1] = ((pl->height + REG_TH - 1) / REG_TH) * REG_WY;
      GST_CL_LAUNCH (self, ks->reg[r - 1], 2, g, reg_local, CONV_WHAT,
          FRAME_ARGS (in, out, p, &c), GST_CL_ARG (c.coef_sq),
          GST_CL_ARG (c.bval), GST_CL_ARG (c.border), PARAM_ARGS (&c),
          GST_CL_ARG_LOCAL (tile_bytes));
      return TRUE;
    }
  }

  if (self->use_tile) {
    gsize tile_bytes = (gsize) (TILE_W + 2 * c.rx * c.ch) *
        (TILE_H + 2 * c.ry) * (self->depth16 ? 2 : 1);
    static const gsize tile_local[2] = { 16, 16 };

    if (tile_bytes <= ctx->local_mem_size) {
      g[0] = ((rowlen + TILE_W - 1) / TILE_W) * 16;
      g[1] = gst_cl_global_size (pl->height, TILE_H);
      GST_CL_LAUNCH (self, ks->tile, 2, g, tile_local, CONV_WHAT,
          FRAME_ARGS (in, out, p, &c), GST_CL_ARG (c.taps2d),
          GST_CL_ARG (c.n2d), GST_CL_ARG (c.rx), GST_CL_ARG (c.ry),
          GST_CL_ARG (c.bval), GST_CL_ARG (c.border), PARAM_ARGS (&c),
          GST_CL_ARG_LOCAL (tile_bytes));
      return TRUE;
    }
  }

  fixed = gst_cl_convolve_path_arith (self, k) == ARITH_FIXED ||
      gst_cl_convolve_uses_exact16 (self, k);
  strips_global (&c, fixed, g);
  GST_CL_LAUNCH (self, fixed ? ks->strips_fixed : ks->strips, 2, g,
      strips_local_size (fixed), CONV_WHAT, STRIPS_ARGS (in, out, p, &c));
  return TRUE;
fail:
  return FALSE;
}

/* What a kernel's first launch runs on: a 1x1 plane of 64 bytes of scratch
 * memory (@f, the caller releases f->mem) and the arguments (@c) of a 3x3
 * matrix without taps, so nothing is read from the tap buffers (frames set
 * every argument again). Returns the CL error. */
cl_int
gst_cl_convolve_scratch_launch_args (GstClContext * ctx, GstClFrame * f,
    ConvArgs * c)
{
  const ConvPlane pl = { 1, 1, 1, -1, FALSE };
  GstClConvolveKernel k;
  cl_int err;

  memset (f, 0, sizeof (*f));
  f->mem = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, 64, NULL, &err);
  if (err != CL_SUCCESS)
    return err;
  f->n_planes = 1;
  f->stride[0] = 64;
  memset (&k, 0, sizeof (k));
  k.width = k.height = 3;
  k.divisor = 1;
  k.idivisor = 1;
  gst_cl_convolve_args (c, &pl, &k, 0, GST_CL_CONVOLVE_BORDER_CLAMP);
  c->taps2d = c->taps_row = c->taps_col = f->mem;
  return CL_SUCCESS;
}

/* PoCL compiles a kernel for its work-group size on its first launch (up
 * to ~0.9 s on 2 cores with an empty cache), and a kernel object's first
 * launch waits for any compile in progress in the context: this launches
 * @kernel (the CPU path's sep_strips if @separable, else conv2d_strips;
 * their fixed-point versions if @fixed) once on @queue with the frames'
 * work-group shape, on a 1x1 plane of scratch memory. A 3x3 matrix without
 * taps: nothing is read from the tap buffers; frames set every argument
 * again. Returns the CL error. */
cl_int
gst_cl_convolve_warm_up_kernel (GstClContext * ctx, cl_command_queue queue,
    cl_kernel kernel, gboolean separable, gboolean fixed)
{
  GstClFrame f;
  ConvArgs c;
  gsize global[2];
  cl_int err;

  err = gst_cl_convolve_scratch_launch_args (ctx, &f, &c);
  if (err != CL_SUCCESS)
    return err;
  if (separable) {
    const GstClArg args[] = { SEP_ARGS (&f, &f, 0, &c) };

    sep_global (&c, global);
    err = gst_cl_kernel_set_args (kernel, args, G_N_ELEMENTS (args));
  } else {
    const GstClArg args[] = { STRIPS_ARGS (&f, &f, 0, &c) };

    strips_global (&c, fixed, global);
    err = gst_cl_kernel_set_args (kernel, args, G_N_ELEMENTS (args));
  }
  if (err == CL_SUCCESS)
    err = gst_cl_warmup_launch (queue, kernel, 2, global, separable ?
        sep_local : strips_local_size (fixed));
  clReleaseMemObject (f.mem);
  return err;
}
