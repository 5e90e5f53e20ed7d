/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvolve on GPUs: conv2d_px and conv2d_pxl, one-pass kernels built per
 * radius, pixel size, arithmetic and zero pattern of the matrix on the
 * warm-up worker; frames take conv2d_reg until theirs is built */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>

#include "gstclconvolvepriv.h"

/* conv2d_px<R>_<CH>: 32x4 work-items, PX_NX1 or PX_NX4 pixels x PX_ROWS
 * rows each (kernels/convolve-gpu-px.cl's defaults) */
#define PX_WX 32
#define PX_WY 4
#define PX_NX1 8
#define PX_NX4 2
#define PX_ROWS 8
#define PX_MAX_R 3
/* GST_CL_CONVOLVE_PX=NX1,NX4,ROWS,MAXR (tuning on a GPU): other work-item
 * shapes and largest radius; "off": the conv2d_reg kernels instead;
 * "dense": 2-D conv2d_px only (no fused separable kernel); "sparse": zero
 * taps left out at compile time for every matrix (one program per zero
 * pattern), "full": for none (by default: for 2-D matrices of at most half
 * non-zero taps, see gst_cl_convolve_px_pattern) */
#define PX_ENV "GST_CL_CONVOLVE_PX"
/* GST_CL_CONVOLVE_PX_WAIT=1 (tests, benchmarks): a frame waits for its
 * conv2d_px variant instead of running conv2d_reg until it is built */
#define PX_WAIT_ENV "GST_CL_CONVOLVE_PX_WAIT"
/* conv2d_pxl ((64 / PXL_NX) x 4 work-items, tiles of 64 pixels x
 * 4 * PXL_ROWS rows) serves 8-bit 4-sample planes; GST_CL_CONVOLVE_PX_LOCAL
 * (tuning on a GPU): "0" conv2d_px instead, "sep" conv2d_pxl for separable
 * matrices only, "ROWS[,NX[,HU[,SEP16[,FIN[,WID[,FP]]]]]]":
 * PXL_ROWS (1..8; 0 by program, see pxl_rows), pixels per work-item side
 * by side (1, 2), the separable
 * row pass's pixels per step (4, 8), its 16-byte local stores (0, 1),
 * PXL_FIN (0..3: saturating conversions, stores per `absolute'), PXL_WID
 * (0, 1: widening through byte permutes) and PXL_FP (0, 1: the 2-D
 * fill's loads ahead; by default for float matrices only, see px_fp) */
#define PXL_ENV "GST_CL_CONVOLVE_PX_LOCAL"
#define PXL_WX 64
#define PXL_WY 4
#define PXL_ROWS 0               /* see pxl_rows */
#define PXL_MAX_ROWS 8          /* local memory: 3 planes of 38 x 72 floats */
#define PXL_NX 2
#define PXL_HU 8
#define PXL_SEP16 0
#define PXL_FIN 3
#define PXL_WID 1
#define PXL_FP -1               /* see px_fp */
/* conv2d_px variants kept per caps (zero patterns seen on a stream) */
#define PX_MAX_VARIANTS 8
/* float sums of integers are exact up to here */
#define PX_EXACT_LIMIT (1 << 24)

/* conv2d_px's float sums are exact for @k: every partial sum of the
 * integer path lies within sum |c| * the largest sample (also for the
 * fused separable sums: sum |c| = sum |row| * sum |col| there) */
static gboolean
px_exact_for (GstClConvolve * self, const GstClConvolveKernel * k)
{
  gdouble abssum = 0;
  gint i;

  for (i = 0; i < k->width * k->height; i++)
    abssum += fabs (k->coef[i]);
  return !k->integer || abssum * (self->depth16 ? 65535 : 255) <
      PX_EXACT_LIMIT;
}

/* whether separable @k runs as conv2d_px's fused separable kernel on this
 * GPU path (once built; the two passes until then, same bytes) */
gboolean
gst_cl_convolve_px_separable (GstClConvolve * self,
    const GstClConvolveKernel * k)
{
  return self->use_tile && self->px_on && self->px_sep && k->separable &&
      self->separable_min != G_MAXINT &&
      MAX (k->width, k->height) / 2 <= self->px_max_r &&
      px_exact_for (self, k);
}

/* conv2d_pxl or conv2d_px, and conv2d_pxl's shape (GST_CL_CONVOLVE_PX_LOCAL) */
static void
pxl_config (GstClConvolve * self)
{
  const gchar *env = g_getenv (PXL_ENV);

  self->pxl_on = !(env && (g_str_equal (env, "0") ||
          g_str_equal (env, "off")));
  self->pxl_2d = !(env && g_str_equal (env, "sep"));
  self->pxl_rows = PXL_ROWS;
  self->pxl_nx = PXL_NX;
  self->pxl_hu = PXL_HU;
  self->pxl_sep16 = PXL_SEP16;
  self->pxl_fin = PXL_FIN;
  self->pxl_wid = PXL_WID;
  self->pxl_fp = PXL_FP;
  if (env && g_ascii_isdigit (env[0])) {
    gint rows = PXL_ROWS, nx = PXL_NX, hu = PXL_HU, sep16 = PXL_SEP16,
        fin = PXL_FIN, wid = PXL_WID, fp = PXL_FP;

    sscanf (env, "%d,%d,%d,%d,%d,%d,%d", &rows, &nx, &hu, &sep16, &fin,
        &wid, &fp);
    self->pxl_fp = CLAMP (fp, -1, 1);
    self->pxl_rows = CLAMP (rows, 0, PXL_MAX_ROWS);
    self->pxl_nx = nx >= 2 ? 2 : 1;
    self->pxl_hu = hu > 0 && hu <= 4 ? 4 : 8;
    self->pxl_sep16 = sep16 != 0;
    self->pxl_fin = CLAMP (fin, 0, 3);
    self->pxl_wid = wid != 0;
  }
}

/* The conv2d_px family's settings for this stream (GST_CL_CONVOLVE_PX,
 * GST_CL_CONVOLVE_PX_WAIT, GST_CL_CONVOLVE_PX_LOCAL), read at caps time */
void
gst_cl_convolve_px_config (GstClConvolve * self)
{
  const gchar *env;
  gint nx1, nx4, rows, max_r;

  env = g_getenv (PX_ENV);
  self->px_on = !(env && g_str_equal (env, "off"));
  self->px_sparse = !env ? 0 : g_str_equal (env, "sparse") ? 1 :
      g_str_equal (env, "full") ? -1 : 0;
  self->px_sep = !(env && g_str_equal (env, "dense"));
  self->px_wait = g_getenv (PX_WAIT_ENV) != NULL;
  self->px_nx1 = PX_NX1;
  self->px_nx4 = PX_NX4;
  self->px_rows = PX_ROWS;
  self->px_max_r = PX_MAX_R;
  /* (into temporaries: a partial match must not leave a shape unchecked) */
  if (env && self->px_on && sscanf (env, "%d,%d,%d,%d", &nx1, &nx4, &rows,
          &max_r) == 4) {
    self->px_nx1 = nx1 > 8 ? 16 : 8;
    self->px_nx4 = CLAMP (nx4, 1, 8);
    self->px_rows = CLAMP (rows, 1, 32);
    self->px_max_r = CLAMP (max_r, 1, REG_MAX_R);
  }
  pxl_config (self);
}

/* whether a px variant of @ch-sample pixels, separable (@sep) or not, is
 * conv2d_pxl */
static gboolean
pxl_applies (GstClConvolve * self, gint ch, gboolean sep)
{
  return self->pxl_on && (sep || self->pxl_2d) && ch == 4 && !self->depth16;
}

/* Whether at most half the taps of @k's @side x @side square are not
 * zero: then a kernel without the zero taps pays for its build (H200, 4K
 * RGBA motion blur, 17 of 49 taps: 0.087 ms against 0.151 with every tap;
 * a nearly full matrix gains nothing, see docs/performance.md) */
static gboolean
px_mostly_zero (const GstClConvolveKernel * k, gint side)
{
  gint i, n = 0;

  for (i = 0; i < k->width * k->height; i++)
    n += k->coef[i] != 0;
  return 2 * n <= side * side;
}

/* conv2d_px's view of matrix @k: the radius @r of its square and the zero
 * pattern @mask (bit ky * (2r+1) + kx set for a non-zero coefficient, bits
 * past 63 left out: the kernel computes those taps; every bit set for
 * separable matrices and for 2-D ones with more than half their taps
 * non-zero, unless GST_CL_CONVOLVE_PX=sparse or full). FALSE where no
 * conv2d_px kernel applies: a radius above px_max_r, or integer sums that
 * float cannot carry exactly. */
gboolean
gst_cl_convolve_px_pattern (GstClConvolve * self, const GstClConvolveKernel * k,
    gint * r, guint64 * mask)
{
  gint rx = k->width / 2, ry = k->height / 2, side, i, j;
  gboolean sep = gst_cl_convolve_px_separable (self, k);

  *r = MAX (MAX (rx, ry), 1);
  *mask = 0;
  if (*r > self->px_max_r)
    return FALSE;
  side = 2 * *r + 1;
  if (self->px_sparse < 0 || (self->px_sparse == 0 && (sep ||
              !px_mostly_zero (k, side)))) {
    /* every tap: one kernel serves every matrix of this radius */
    *mask = (sep ? 2 * side : side * side) >= 64 ? G_MAXUINT64 :
        (G_GUINT64_CONSTANT (1) << (sep ? 2 * side : side * side)) - 1;
    return px_exact_for (self, k);
  }
  if (sep) {
    /* bits 0..side-1: the row factor, then the column factor */
    for (j = 0; j < k->width; j++)
      if (k->row[j] != 0)
        *mask |= G_GUINT64_CONSTANT (1) << (j - rx + *r);
    for (i = 0; i < k->height; i++)
      if (k->col[i] != 0)
        *mask |= G_GUINT64_CONSTANT (1) << (side + i - ry + *r);
    return px_exact_for (self, k);
  }
  for (i = 0; i < k->height; i++)
    for (j = 0; j < k->width; j++) {
      gint bit = (i - ry + *r) * side + j - rx + *r;

      if (k->coef[i * k->width + j] != 0 && bit < 64)
        *mask |= G_GUINT64_CONSTANT (1) << bit;
    }
  return px_exact_for (self, k);
}

/* conv2d_px's kernel for plane @p, or NULL where it does not apply (pixels
 * of 2 or 3 samples, a misaligned 4-sample plane, large integer sums) or
 * is not built yet */
static cl_kernel
px_kernel (GstClConvolve * self, ConvKernels * ks, const ConvPlane * pl,
    guint p, GstClFrame * in, GstClFrame * out)
{
  if (!self->use_tile || !self->px_on || !self->reg_r || !self->px_exact ||
      self->reg_r > self->px_max_r)
    return NULL;
  if (pl->ch == 1)
    return self->frame_px[0];
  /* whole pixels as 32-bit words */
  if (pl->ch == 4 && !self->depth16 && (pl->alpha_pos == 0 ||
          pl->alpha_pos == 3) && (in->offset[p] | in->stride[p] |
          out->offset[p] | out->stride[p]) % 4 == 0)
    return self->frame_px[1];
  return NULL;
}

/* conv2d_pxl's rows per work-item for a program of @integer sums, separable
 * (@sep) or not: the knob's value, or by default 6 for float separable
 * matrices, 5 for float 2-D ones, 4 for integer ones (H200, 4K RGBA
 * kernel time against 4 rows, every one of 4 interleaved rounds: gaussian
 * 49.0 -> 46.1 us at 6, motion blur 48.5 -> 47.9 at 5 (6: 50.8); integer
 * matrices slower or no faster: 1080p custom 29.4 -> 31.0 at 5, box 22.1
 * -> 22.2 at 6; see docs/performance.md) */
static gint
pxl_rows (GstClConvolve * self, gboolean integer, gboolean sep)
{
  if (self->pxl_rows > 0)
    return self->pxl_rows;
  if (integer)
    return 4;
  return sep ? 6 : 5;
}

/* Runs conv2d_px on plane @p if it applies (*@ok: the launch succeeded) */
gboolean
gst_cl_convolve_launch_px (GstClConvolve * self, ConvKernels * ks,
    const ConvPlane * pl, ConvArgs * c, guint p, GstClFrame * in,
    GstClFrame * out, gboolean * ok)
{
  static const gsize px_local[2] = { PX_WX, PX_WY };
  cl_kernel kernel = px_kernel (self, ks, pl, p, in, out);
  gint nx = pl->ch == 4 ? self->px_nx4 : self->px_nx1;
  /* source and destination rows in 8-byte words */
  cl_int aligned8 = (in->offset[p] | in->stride[p] | out->offset[p] |
      out->stride[p]) % 8 == 0;
  gboolean sep;
  gsize g[2];

  if (!kernel)
    return FALSE;
  sep = gst_cl_convolve_px_separable (self, self->frame_kernel);
  GST_LOG_OBJECT (self, "plane %u: conv2d_px%d_%d%s, taps 0x%"
      G_GINT64_MODIFIER "x%s", p, self->reg_r, pl->ch, sep ? " separable" :
      "", self->px_mask, pxl_applies (self, pl->ch, sep) ?
      ", local (conv2d_pxl)" : "");
  *ok = FALSE;
  if (pxl_applies (self, pl->ch, sep)) {
    gsize pxl_local[2] = { PXL_WX / self->pxl_nx, PXL_WY };
    gint rows = pxl_rows (self, self->frame_kernel->integer, sep);

    g[0] = gst_cl_global_size ((pl->width + self->pxl_nx - 1) /
        self->pxl_nx, pxl_local[0]);
    g[1] = gst_cl_global_size ((pl->height + rows - 1) / rows, PXL_WY);
    GST_CL_LAUNCH (self, kernel, 2, g, pxl_local, CONV_WHAT,
        FRAME_ARGS (in, out, p, c), GST_CL_ARG (aligned8),
        GST_CL_ARG (self->px_coef), GST_CL_ARG (c->bval),
        GST_CL_ARG (c->border), GST_CL_ARG (c->border_row), PARAM_ARGS (c));
    *ok = TRUE;
    return TRUE;
  }
  g[0] = gst_cl_global_size ((pl->width + nx - 1) / nx, PX_WX);
  g[1] = gst_cl_global_size ((pl->height + self->px_rows - 1) /
      self->px_rows, PX_WY);
  GST_CL_LAUNCH (self, kernel, 2, g, px_local, CONV_WHAT,
      FRAME_ARGS (in, out, p, c), GST_CL_ARG (aligned8),
      GST_CL_ARG (self->px_coef), GST_CL_ARG (c->bval),
      GST_CL_ARG (c->border), GST_CL_ARG (c->border_row), PARAM_ARGS (c));
  *ok = TRUE;
fail:
  return TRUE;
}

/* A conv2d_px program of its own: one kernel for one radius, pixel size,
 * arithmetic and zero pattern. Built by a warm-up job; the stream takes
 * @kernel only once that job is done (see px_variant_kernel). */
typedef struct
{
  GstClConvolve *self;
  gint r, ch;
  gboolean integer, sep;        /* sep: the fused separable kernel */
  guint64 mask;
  guint job;                    /* the job building it, 0 once taken */
  cl_kernel kernel;             /* NULL if the build failed */
} PxVariant;

static void
px_variant_free (PxVariant * v)
{
  if (v->kernel)
    clReleaseKernel (v->kernel);
  g_free (v);
}

/* PXL_FP for @v's program: the knob's value, or by default the 2-D fill's
 * loads ahead for float 2-D matrices (H200: 4K RGBA motion blur, float,
 * faster; 1080p custom, integer, slower; see docs/performance.md) */
static gint
px_fp (GstClConvolve * self, const PxVariant * v)
{
  if (self->pxl_fp >= 0)
    return self->pxl_fp;
  return !v->integer && !v->sep ? 1 : 0;
}

/* On the worker thread: builds @data's program and kernel. A failure is
 * logged and leaves the stream on conv2d_reg. */
static void
px_build_run (GstClContext * ctx, cl_command_queue queue, gpointer data)
{
  PxVariant *v = data;
  GstClConvolve *self = v->self;
  GError *error = NULL;
  gchar *options, name[32];
  cl_program program;
  cl_int err;
  gint side = 2 * v->r + 1, bits = v->sep ? 2 * side : side * side;
  guint64 full = bits >= 64 ? G_MAXUINT64 :
      (G_GUINT64_CONSTANT (1) << bits) - 1;
  gchar mask[40] = "";

  /* a full pattern: no mask, the generic kernel without a test per tap */
  if (v->mask != full)
    g_snprintf (mask, sizeof (mask), " -D PX_MASK=0x%" G_GINT64_MODIFIER
        "xUL", v->mask);
  options = g_strdup_printf ("-D DEPTH16=%d -D INTEGER=%d -D PX_ONLY=1 "
      "-D PX_R=%d -D PX_CH=%d -D PX_SEP=%d -D PX_NX1=%d -D PX_NX4=%d "
      "-D PX_ROWS=%d -D PX_LOCAL=%d "
      "-D PXL_ROWS=%d -D PXL_NX=%d -D PXL_HU=%d -D PXL_SEP16=%d "
      "-D PXL_FIN=%d -D PXL_WID=%d -D PXL_FP=%d%s",
      self->depth16 ? 1 : 0,
      v->integer ? 1 : 0, v->r, v->ch, v->sep ? 1 : 0, self->px_nx1,
      self->px_nx4, self->px_rows, pxl_applies (self, v->ch, v->sep) ? 1 : 0,
      pxl_rows (self, v->integer, v->sep), self->pxl_nx, self->pxl_hu,
      self->pxl_sep16 ? 1 : 0, self->pxl_fin, self->pxl_wid, px_fp (self, v),
      mask);
  program = gst_cl_context_get_program (ctx, "convolve.cl", options, NULL,
      &error);
  if (!program) {
    GST_WARNING_OBJECT (self, "background build (%s) failed, conv2d_reg "
        "stays: %s", options, error->message);
    g_clear_error (&error);
    g_free (options);
    return;
  }
  g_snprintf (name, sizeof (name), "conv2d_px%s%d_%d", pxl_applies (self,
          v->ch, v->sep) ? "l" : "", v->r, v->ch);
  v->kernel = clCreateKernel (program, name, &err);
  if (err != CL_SUCCESS) {
    GST_WARNING_OBJECT (self, "%s (%s): %s, conv2d_reg stays", name,
        options, gst_cl_error_name (err));
    v->kernel = NULL;
  }
  clReleaseProgram (program);
  g_free (options);
}

static gboolean
px_variant_is (const PxVariant * v, gint r, gboolean integer, gboolean sep,
    guint64 mask)
{
  return v->r == r && v->integer == integer && v->sep == sep &&
      v->mask == mask;
}

static gboolean
px_variant_built (GstClConvolve * self, const PxVariant * v)
{
  return !v->job || gst_cl_warmup_is_done (self->warmup, v->job);
}

/* The variant (@r, @ch, @integer, @sep, @mask), its build queued if it is
 * new; NULL without a worker, or when all PX_MAX_VARIANTS are taken by
 * other patterns still building */
static PxVariant *
px_variant_get (GstClConvolve * self, gint r, gint ch, gboolean integer,
    gboolean sep, guint64 mask)
{
  PxVariant *v;
  guint i;

  if (!self->warmup)
    return NULL;
  if (!self->px_variants)
    self->px_variants = g_ptr_array_new_with_free_func ((GDestroyNotify)
        px_variant_free);
  for (i = 0; i < self->px_variants->len; i++) {
    v = g_ptr_array_index (self->px_variants, i);
    if (v->ch == ch && px_variant_is (v, r, integer, sep, mask))
      return v;
  }
  /* the oldest built one of another pattern makes room (this frame's other
   * pixel size has this pattern) */
  for (i = 0; i < self->px_variants->len &&
      self->px_variants->len >= PX_MAX_VARIANTS; i++) {
    v = g_ptr_array_index (self->px_variants, i);
    if (!px_variant_is (v, r, integer, sep, mask) &&
        px_variant_built (self, v))
      g_ptr_array_remove_index (self->px_variants, i);
  }
  if (self->px_variants->len >= PX_MAX_VARIANTS)
    return NULL;
  v = g_new0 (PxVariant, 1);
  v->self = self;
  v->r = r;
  v->ch = ch;
  v->integer = integer;
  v->sep = sep;
  v->mask = mask;
  v->job = gst_cl_warmup_add (self->warmup, px_build_run, v, NULL);
  g_ptr_array_add (self->px_variants, v);
  GST_DEBUG_OBJECT (self, "conv2d_px%d_%d taps 0x%" G_GINT64_MODIFIER "x: "
      "building in the background (job %u)", r, ch, mask, v->job);
  return v;
}

/* The conv2d_px kernel of @ch-sample planes under the frame's matrix, or
 * NULL (conv2d_reg) while its build runs: a frame never waits for one
 * unless GST_CL_CONVOLVE_PX_WAIT says so */
static cl_kernel
px_variant_kernel (GstClConvolve * self, gint ch)
{
  PxVariant *v = px_variant_get (self, self->reg_r, ch,
      self->frame_kernel->integer, gst_cl_convolve_px_separable (self,
          self->frame_kernel),
      self->px_mask);

  if (!v)
    return NULL;
  if (v->job && self->px_wait)
    gst_cl_warmup_wait (self->warmup, v->job);
  else if (!px_variant_built (self, v))
    return NULL;
  v->job = 0;
  return v->kernel;
}

/* Whether conv2d_px can serve @pl (see px_kernel) */
static gboolean
px_serves (GstClConvolve * self, const ConvPlane * pl)
{
  return pl->ch == 1 || (pl->ch == 4 && !self->depth16);
}

/* Picks the frame's conv2d_px kernels once, before its planes: every plane
 * of a frame runs the same kernel */
void
gst_cl_convolve_px_select (GstClConvolve * self, GstClConvolveChroma chroma)
{
  guint p;

  self->frame_px[0] = self->frame_px[1] = NULL;
  if (!self->use_tile || !self->px_on || !self->reg_r || !self->px_exact ||
      (gst_cl_convolve_takes_separable_path (self, self->frame_kernel) &&
          !gst_cl_convolve_px_separable (self, self->frame_kernel)))
    return;
  for (p = 0; p < self->n_planes; p++) {
    const ConvPlane *pl = &self->planes[p];
    gint i = pl->ch == 4;

    if ((pl->chroma && chroma == GST_CL_CONVOLVE_CHROMA_COPY) ||
        !px_serves (self, pl) || self->frame_px[i])
      continue;
    self->frame_px[i] = px_variant_kernel (self, pl->ch);
  }
}

/* Queues the conv2d_px builds the current matrix needs, ahead of the other
 * warm-up jobs: a running stream switches to them first */
void
gst_cl_convolve_px_prepare (GstClConvolve * self)
{
  GstClConvolveKernel *k;
  guint64 mask;
  gint r;
  guint p;

  GST_OBJECT_LOCK (self);
  k = g_memdup2 (self->kernel, sizeof (*k));
  GST_OBJECT_UNLOCK (self);
  if (self->px_on && (!gst_cl_convolve_takes_separable_path (self, k) ||
          gst_cl_convolve_px_separable (self, k)) &&
      gst_cl_convolve_px_pattern (self, k, &r, &mask)) {
    for (p = 0; p < self->n_planes; p++)
      if (px_serves (self, &self->planes[p]))
        px_variant_get (self, r, self->planes[p].ch, k->integer,
            gst_cl_convolve_px_separable (self, k), mask);
  }
  g_free (k);
}
