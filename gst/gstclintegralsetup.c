/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clintegral per stream: which kernels a format and the properties take,
 * their programs, kernels and scratch memory (set_info), and their
 * release (reset) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclintegralpriv.h"

#include <string.h>

typedef struct
{
  gint channels;
  const gchar *src_t;
  guint max_value;
  gint pstride, roff, goff, boff;
} SourceDesc;

static gboolean
describe_source (const GstVideoInfo * info, SourceDesc * d)
{
  const gchar *name = gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info));

  memset (d, 0, sizeof (*d));
  if (gst_cl_integral_is_rgb_format (name)) {
    d->channels = 3;
    d->src_t = "uchar";
    d->max_value = 255;
    d->pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
    d->roff = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R);
    d->goff = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G);
    d->boff = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B);
    return TRUE;
  }
  if (!gst_cl_integral_is_gray_format (name))
    return FALSE;
  d->channels = 1;
  d->pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  d->src_t = d->pstride == 2 ? "ushort" : "uchar";
  d->max_value = d->pstride == 2 ? 65535 : 255;
  return TRUE;
}

/* CPU bands: one per core (PoCL runs each work-group on one of its threads),
 * at most 15. In cpu_integral band b first adds up the rows above it, each
 * costing @add_row_cost (c) of a scanned row, so its own share is smaller
 * (8-bit gray sums and counts: where the work-groups start, the split then
 * follows the groups' progress, integral-cpu-bands.cl):
 * with band b scanning T - c * start(b) rows, start(b) = T (1 - (1 - c)^b) / c
 * and start(n) = height. c = 0: equal bands (cpu_box_mean). Starts are
 * multiples of 4 (cpu_integral's row block). */
#define ADD_ROW_COST 0.25
static void
plan_cpu_bands (GstClIntegral * self, guint compute_units,
    gdouble add_row_cost)
{
  gint *start = (gint *) & self->band_start;
  guint n = MIN (CLAMP (compute_units, 1u, 15u),
      (guint) MAX (self->height / 4, 1)), b;
  gdouble keep = 1.0 - add_row_cost, keep_n = 1.0, t, keep_b = 1.0;

  for (b = 0; b < n; b++)
    keep_n *= keep;
  t = add_row_cost != 0 ? self->height * add_row_cost / (1.0 - keep_n) : 0;
  start[0] = 0;
  for (b = 1; b < 16; b++) {
    gdouble at;

    keep_b *= keep;
    at = add_row_cost != 0 ? t * (1.0 - keep_b) / add_row_cost :
        (gdouble) self->height * b / n;
    start[b] = b < n ? MIN ((gint) at & ~3, self->height) : self->height;
  }
  self->n_bands = n;
}

/* The GPU kernels' rows loaded a row ahead, across a barrier: on GPU
 * devices only (on PoCL, where tests run the GPU kernels, see
 * write_tile_rows in integral-gpu.cl) */
static gboolean
row_ahead (GstClIntegral * self)
{
  return gst_cl_context_is_gpu (gst_cl_base_filter_get_context
      (GST_CL_BASE_FILTER (self)));
}

/* -D options of one plane program. @acc/@out are OpenCL type names;
 * @out2 non-NULL: the squares plane's output type of a PAIR program.
 * SEL: the swizzle that packs R, G, B of 4 pixels (16 loaded bytes) into
 * lanes 0-11 of a 16-vector for the CPU kernels. */
static gchar *
plane_options (GstClIntegral * self, const SourceDesc * d, const gchar * acc,
    const gchar * out, const gchar * out2, gint value, gint strip_rows,
    gint tile_rows)
{
  gchar sel[18] = "s";
  gint i, c;

  for (i = 0; i < 16; i++) {
    gint px = MIN (i / 3, 3), comp = i < 12 ? i % 3 : 2;
    gint off[3] = { d->roff, d->goff, d->boff };

    c = d->channels == 3 ? px * d->pstride + off[comp] : i;
    sel[1 + i] = "0123456789abcdef"[MIN (c, 15)];
  }
  sel[17] = 0;
  return g_strdup_printf ("-D CH=%d -D SRC_T=%s -D PSTRIDE=%d -D ROFF=%d "
      "-D GOFF=%d -D BOFF=%d -D SEL=%s -D ACC=%s -D OUT=%s "
      "-D VALUE=%d -D WG=%d -D SH=%d -D CB=%d -D CPU_ONLY=%d "
      "-D GPU_ONLY=%d -D BOX=%d -D ONEPASS=%d -D TH=%d -D PACKED=%d "
      "-D PAIR=%d -D OUT2=%s -D CPU_HEAD=%d -D ROW_AHEAD=%d",
      d->channels, d->src_t, d->pstride, d->roff, d->goff, d->boff, sel, acc,
      out, value, GPU_STRIP_WG, strip_rows, GPU_SCAN_BANDS, !self->gpu,
      self->gpu, self->box_mean, self->one_pass, tile_rows,
      g_strcmp0 (g_getenv (PACKED_ENV), "0") != 0, out2 != NULL,
      out2 ? out2 : "ulong", CPU_HEAD, row_ahead (self));
}

static cl_mem
create_scratch (GstClIntegral * self, gsize size)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  cl_int err;
  cl_mem mem = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, MAX (size, 1),
      NULL, &err);

  if (!gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
          "clCreateBuffer", "Could not allocate OpenCL scratch memory"))
    return NULL;
  return mem;
}

/* Scratch of @size bytes whose first @zeroed bytes (a multiple of 4) are
 * cleared once here: the kernels tell frames apart by an epoch in those
 * words, so they are never cleared per frame */
static cl_mem
create_zeroed_scratch (GstClIntegral * self, gsize size, gsize zeroed)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  const cl_uint zero = 0;
  cl_mem mem = create_scratch (self, size);
  cl_int err;

  if (!mem)
    return NULL;
  err = clEnqueueFillBuffer (ctx->queue, mem, &zero, sizeof (zero), 0,
      zeroed, 0, NULL, NULL);
  if (!gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
          "clEnqueueFillBuffer", "Could not clear OpenCL scratch memory")) {
    clReleaseMemObject (mem);
    return NULL;
  }
  return mem;
}

static gboolean check_size (GstClIntegral * self, gboolean computed,
    guint64 size, const gchar * what);

/* Local memory of a PAIR program's gpu_strip_integral (its largest
 * kernel, integral-gpu.cl) with @rows rows per strip: both planes' partial
 * sums (the squares' 4 bytes for 8-bit sources, @narrow), left sums,
 * staging rows (@out_size + 8 bytes per element) and the squares' sums
 * above the tile per work-item and per 8 */
static guint64
pair_local_bytes (GstClIntegral * self, gsize acc_size, gsize out_size,
    gboolean narrow, gint rows)
{
  guint64 lanes = self->channels == 3 ? 4 : 1;  /* of a V (ACC) */
  guint64 packed = g_strcmp0 (g_getenv (PACKED_ENV), "0") != 0 ?
      (guint64) self->channels : lanes;
  guint64 part = (guint64) rows * (GPU_STRIP_WG + 1) * packed *
      (acc_size + (narrow ? 4 : 8));
  guint64 left = (guint64) rows * lanes * (acc_size + 2 * 8);
  guint64 above = (guint64) (GPU_STRIP_WG + GPU_STRIP_WG / 8) *
      self->channels * 8;
  guint64 row = (guint64) GPU_STRIP_PIXELS * self->channels;

  return part + left + above + (row + row / 32 + 1) * (out_size + 8);
}

/* Rows per strip of the GPU kernels for @acc_size-byte sums; @out_size > 0:
 * a PAIR program (@out_size-byte sums out, squares 8 bytes) of a source of
 * samples up to @max_value, whose squares' rows run on the second half of
 * the work-group and whose rows are cut until its local memory fits the
 * device's */
static gint
gpu_strip_rows (GstClIntegral * self, gsize acc_size, gsize out_size,
    guint max_value)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  const gchar *env = g_getenv (STRIP_ROWS_ENV);
  gboolean pair = out_size > 0;
  gboolean wide = self->channels == 3 && (acc_size == 8 || pair);
  gint max = pair ? GPU_STRIP_WG / 2 : GPU_STRIP_WG, rows;

  if (env && wide && strchr (env, ','))
    env = strchr (env, ',') + 1;
  rows = env ? CLAMP (atoi (env), 2, max) : GPU_STRIP_ROWS;
  /* (a margin for the compiler's alignment of the arrays; 8-bit sources
   * sum their squares within a tile in 32 bits, SQT in integral-gpu.cl) */
  while (pair && rows > 2 && pair_local_bytes (self, acc_size, out_size,
          max_value <= 255, rows) + 512 > ctx->local_mem_size)
    rows--;
  return rows;
}

/* Rows per tile of the one-pass GPU kernel */
static gint
gpu_tile_rows (void)
{
  const gchar *env = g_getenv (TILE_ROWS_ENV);

  return env ? CLAMP (atoi (env), 1, GPU_STRIP_WG) : GPU_TILE_ROWS;
}

/* The one-pass GPU kernel's status words (integral-gpu-lookback.cl): 2 ticket
 * counters in one 64-bit word, then per tile (GPU_STRIP_PIXELS + 1) vertical
 * and tile_rows horizontal values of channels sums, one 64-bit word per 32 bits
 * of sum. Zeroed once here: the kernel tells frames apart by an epoch in each
 * word and resets its own counters. */
static cl_mem
create_gpu_status (GstClIntegral * self, gint tile_rows, gsize acc_size)
{
  guint64 strips, blocks, tiles = 0, per_tile, size = 0;
  gboolean ok;

  gst_cl_integral_gpu_tiles (self, tile_rows, &strips, &blocks);
  per_tile = (GPU_STRIP_PIXELS + 1 + tile_rows) * self->channels *
      (acc_size / 4);
  ok = g_uint64_checked_mul (&tiles, strips, blocks) && tiles <= G_MAXINT &&
      g_uint64_checked_mul (&size, tiles, per_tile) &&
      g_uint64_checked_add (&size, size, 1) &&
      g_uint64_checked_mul (&size, size, 8);
  if (!check_size (self, ok, size, "GPU integral status"))
    return NULL;
  return create_zeroed_scratch (self, size, size);
}

/* The GPU strip kernels' scratch: per strip its column sums and tile
 * totals, then SH row sums per tile (integral-gpu.cl), ACC each; @pair: both
 * planes', 8 bytes each */
static cl_mem
create_gpu_scratch (GstClIntegral * self, gint strip_rows, gsize acc_size,
    gboolean pair)
{
  guint64 strips = (self->height + strip_rows - 1) / strip_rows;
  guint64 blocks = (self->width + GPU_STRIP_PIXELS - 1) / GPU_STRIP_PIXELS;
  guint64 row = 0, tiles = 0, size = 0;
  gboolean ok = g_uint64_checked_mul (&row, self->width + blocks,
      self->channels * (pair ? 2 : 1)) && g_uint64_checked_mul (&tiles,
      strips * blocks, strip_rows * self->channels * (pair ? 2 : 1)) &&
      g_uint64_checked_mul (&size, strips, row) &&
      g_uint64_checked_add (&size, size, tiles) &&
      g_uint64_checked_mul (&size, size, pair ? 8 : acc_size);

  if (!check_size (self, ok, size, "GPU integral scratch"))
    return NULL;
  return create_scratch (self, size);
}

/* The CPU kernels' scratch: the region words (zeroed once), then
 * @band_bytes per band */
static cl_mem
create_cpu_scratch (GstClIntegral * self, gsize band_bytes)
{
  return create_zeroed_scratch (self, CPU_HEAD + (gsize) self->n_bands *
      band_bytes, CPU_HEAD);
}

/* Builds plane @i's program and kernels (and scratch); @out2 non-NULL:
 * the GPU strips' PAIR program, which writes the squares plane too */
static gboolean
setup_plane (GstClIntegral * self, guint i, const SourceDesc * d,
    const gchar * acc, const gchar * out, const gchar * out2, gint value,
    gsize acc_size)
{
  GstClBaseFilter *base = GST_CL_BASE_FILTER (self);
  IntegralPlane *p = &self->plane[i];
  gchar *opts;

  p->pair = out2 != NULL;
  /* (a pair's sums out: 4-byte uint or float, else 8 bytes) */
  p->strip_rows = self->gpu ? gpu_strip_rows (self, acc_size, !p->pair ? 0 :
          g_str_equal (out, "uint") || g_str_equal (out, "float") ? 4 : 8,
      d->max_value) : GPU_STRIP_ROWS;
  p->tile_rows = gpu_tile_rows ();
  opts = plane_options (self, d, acc, out, out2, value, p->strip_rows,
      p->tile_rows);

  GST_DEBUG_OBJECT (self, "plane %u: %s (%s variant)", i, opts,
      self->gpu ? "GPU" : "CPU");
  p->program = gst_cl_base_filter_get_program (base, "integral.cl", opts);
  g_free (opts);
  if (!p->program)
    return FALSE;
  p->k1 = gst_cl_base_filter_create_kernel (base, p->program,
      !self->gpu ? "cpu_integral_first" : self->one_pass ?
      "gpu_lookback_integral" : "gpu_strip_sums");
  if (self->gpu && self->one_pass) {
    if (!p->k1)
      return FALSE;
    p->accrow = create_gpu_status (self, p->tile_rows, acc_size);
    return p->accrow != NULL;
  }
  if (self->gpu) {
    p->k2 = gst_cl_base_filter_create_kernel (base, p->program,
        "gpu_strip_scan");
    p->k3 = gst_cl_base_filter_create_kernel (base, p->program,
        "gpu_strip_integral");
  } else {
    p->fast = gst_cl_base_filter_create_kernel (base, p->program,
        "cpu_integral");
  }
  if (!p->k1 || !(self->gpu ? p->k2 && p->k3 : p->fast != NULL))
    return FALSE;
  if (self->gpu) {
    p->accrow = create_gpu_scratch (self, p->strip_rows, acc_size,
        p->pair);
    if (!p->accrow)
      return FALSE;
  } else {
    /* 3 rows of sums per band; no overflow: n_bands <= max (height / 4,
     * 1), so the rows are at most 3 times the plane's size, which
     * check_size() bounded */
    p->accrow = create_cpu_scratch (self, 3 * (gsize) self->width *
        self->channels * acc_size);
    if (!p->accrow)
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cl_integral_box_fits_32 (GstClIntegral * self, gint radius)
{
  guint64 side = 2 * (guint64) MAX (radius, 0) + 1, area, top;

  area = MIN (side, (guint64) self->width) * MIN (side,
      (guint64) self->height);
  /* (top < 2^32 bounds area / 2 below 2^31: no wrap) */
  return g_uint64_checked_mul (&top, area, self->box_max_value) &&
      top < G_GUINT64_CONSTANT (1) << 32 &&
      top + area / 2 < G_GUINT64_CONSTANT (1) << 32;
}

/* CPU box mean plane @i: cpu_box_mean's program summing in @acc, its
 * kernels and scratch */
static gboolean
setup_cpu_box_plane (GstClIntegral * self, const SourceDesc * d, guint i,
    const gchar * acc, gsize acc_size)
{
  GstClBaseFilter *base = GST_CL_BASE_FILTER (self);
  IntegralPlane *p = &self->plane[i];
  gchar *opts = plane_options (self, d, acc, acc, NULL, 0, GPU_STRIP_ROWS,
      GPU_TILE_ROWS);
  gsize n;

  GST_DEBUG_OBJECT (self, "box mean %u: %s (CPU variant)", i, opts);
  p->program = gst_cl_base_filter_get_program (base, "integral.cl", opts);
  g_free (opts);
  if (!p->program)
    return FALSE;
  p->k1 = gst_cl_base_filter_create_kernel (base, p->program,
      "cpu_box_mean_first");
  p->fast = gst_cl_base_filter_create_kernel (base, p->program,
      "cpu_box_mean");
  /* per band: column sums (W) and their prefix (W + 1) of the kernel's
   * lanes per pixel (4-byte RGB pixels: 4); no overflow: at most the
   * integral image check_size() bounded (bands <= height / 4) */
  n = (2 * (gsize) self->width + 1) * (d->channels == 3 && d->pstride == 4 ?
      4 : self->channels) * acc_size;
  p->accrow = create_cpu_scratch (self, n);
  return p->k1 && p->fast && p->accrow;
}

/* CPU box mean: one kernel and no integral image (see cpu_box_mean).
 * Plane 0 sums in 32 bits. Where a box of the frame, with the kernel's
 * rounding term, could reach 2^32 (8-bit frames from 16.8 Mpixels, 16-bit
 * ones from 65537 pixels), plane 1 sums in 64 bits, and each frame takes
 * it only if its radius needs it: twice the lanes per vector in 32 bits
 * (7680x4320 GRAY8, radius 7, on PoCL with 2 cores: 40 -> 19 ms). Each
 * plane has its own scratch and claims' epoch. */
static gboolean
setup_cpu_box_mean (GstClIntegral * self, const SourceDesc * d)
{
  guint i;

  self->box_max_value = d->max_value;
  self->n_planes = gst_cl_integral_box_fits_32 (self, G_MAXINT) ? 1 : 2;
  for (i = 0; i < self->n_planes; i++)
    if (!setup_cpu_box_plane (self, d, i, i ? "ulong" : "uint", i ? 8 : 4))
      return FALSE;
  return gst_cl_integral_warm_cpu_kernels (self);
}

/* GPU box mean: box_mean_tile where the device takes its work-group and
 * local memory (else every radius goes through the integral image); FALSE
 * only when the kernel could not be made (error posted) */
static gboolean
setup_box_tile (GstClIntegral * self, const SourceDesc * d,
    cl_program program)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  gsize wg = 0, tile[3] = { 0, 0, 0 };
  cl_ulong local = G_MAXUINT64;

  self->box_pstride = d->pstride;
  if (g_strcmp0 (g_getenv (BOX_ENV), "integral") == 0)
    return TRUE;
  self->box_tile = gst_cl_base_filter_create_kernel (GST_CL_BASE_FILTER
      (self), program, "box_mean_tile");
  if (!self->box_tile)
    return FALSE;
  /* the tile's width is the kernel's fixed work-group, which the compiled
   * kernel, the device and its local memory must all take */
  if (clGetKernelWorkGroupInfo (self->box_tile, ctx->device,
          CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof (tile), tile,
          NULL) != CL_SUCCESS || clGetKernelWorkGroupInfo (self->box_tile,
          ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof (wg), &wg,
          NULL) != CL_SUCCESS || clGetKernelWorkGroupInfo (self->box_tile,
          ctx->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof (local), &local,
          NULL) != CL_SUCCESS || tile[0] <= 2 * BOX_TILE_MAX_RADIUS ||
      wg < tile[0] || local > ctx->local_mem_size) {
    GST_INFO_OBJECT (self, "box_mean_tile (work-group %" G_GSIZE_FORMAT
        ", %" G_GUINT64_FORMAT " bytes of local memory) does not fit the "
        "device (%" G_GSIZE_FORMAT " work-items, %" G_GUINT64_FORMAT
        " bytes): box means through the integral image", tile[0], local, wg,
        ctx->local_mem_size);
    clReleaseKernel (self->box_tile);
    self->box_tile = NULL;
    return TRUE;
  }
  self->box_tile_wg = tile[0];
  return TRUE;
}

/* ACC and OUT type names of a sum or count plane (@sq FALSE) or a sqsum
 * plane */
static void
plane_types (GstClIntegralFormat f, gboolean sq, const gchar ** acc,
    const gchar ** out, gsize * acc_size)
{
  static const gchar *outs[] = { "uint", "ulong", "float", "double" };

  if (sq) {
    *acc = "ulong";
    *out = gst_cl_integral_format_is_float (f) ? "double" : "ulong";
  } else {
    *acc = f == GST_CL_INTEGRAL_FORMAT_U32 ? "uint" : "ulong";
    *out = outs[f];
  }
  *acc_size = g_str_equal (*acc, "uint") ? 4 : 8;
}

/* @computed FALSE: the layout overflowed 64 bits (no device holds that;
 * unreachable once the base filter accepted the input frames) */
static gboolean
check_size (GstClIntegral * self, gboolean computed, guint64 size,
    const gchar * what)
{
  gchar *desc;
  gboolean ok;

  if (!computed)
    size = G_MAXUINT64;
  desc = g_strdup_printf ("%s of a %dx%d frame", what, self->width,
      self->height);
  ok = gst_cl_base_filter_check_alloc_size (GST_CL_BASE_FILTER (self), size,
      desc, "ask for fewer planes, a 32-bit format or a smaller frame");
  g_free (desc);
  return ok;
}

gboolean
gst_cl_integral_set_info (GstClBaseFilter * base, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstClIntegral *self = GST_CL_INTEGRAL (base);
  GstClContext *ctx = gst_cl_base_filter_get_context (base);
  const gchar *variant = g_getenv (VARIANT_ENV);
  const gchar *acc, *out;
  guint64 offsets[GST_CL_INTEGRAL_MAX_PLANES];
  GstClIntegralFormat format;
  SourceDesc d;
  gsize acc_size;
  guint planes, bit, n = 0, k = 0;
  gboolean pair;

  if (!describe_source (in_info, &d)) {
    GST_ERROR_OBJECT (self, "unsupported input %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  self->width = GST_VIDEO_INFO_WIDTH (in_info);
  self->height = GST_VIDEO_INFO_HEIGHT (in_info);
  self->channels = d.channels;
  self->gpu = gst_cl_context_is_gpu (ctx);
  if (variant && g_str_equal (variant, "gpu"))
    self->gpu = TRUE;
  else if (variant && g_str_has_prefix (variant, "cpu"))
    self->gpu = FALSE;
  self->one_pass = g_strcmp0 (g_getenv (GPU_PASSES_ENV), "lookback") == 0;
  self->reverse = g_strcmp0 (g_getenv (CPU_ORDER_ENV), "reverse") == 0;
  self->skip = g_getenv (SKIP_ENV) ? atoi (g_getenv (SKIP_ENV)) : 0;
  if (self->skip && self->gpu && !self->one_pass)
    GST_WARNING_OBJECT (self, SKIP_ENV "=%u: GPU launches left out, the "
        "output is wrong (for timing launches alone only)", self->skip);
  self->box_mean = out_info != NULL;
  plan_cpu_bands (self, ctx->compute_units, g_getenv (ROW_COST_ENV) ?
      MIN (g_ascii_strtod (g_getenv (ROW_COST_ENV), NULL), 0.99) :
      self->box_mean ? 0 : ADD_ROW_COST);
  if (self->gpu && ctx->max_work_group_size < 32 * GPU_SCAN_BANDS) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (NULL),
        ("device work-group size %" G_GSIZE_FORMAT " < %d",
            ctx->max_work_group_size, 32 * GPU_SCAN_BANDS));
    return FALSE;
  }

  if (self->box_mean) {
    /* U32 while a whole-frame box cannot reach 2^32 (exact modulo 2^32) */
    guint64 pixels, box_max;
    gboolean wide = !g_uint64_checked_mul (&pixels, self->width,
        self->height) || !g_uint64_checked_mul (&box_max, pixels,
        d.max_value) || box_max >= G_GUINT64_CONSTANT (1) << 32;
    guint64 size = 0;
    gboolean computed;

    format = wide ? GST_CL_INTEGRAL_FORMAT_U64 : GST_CL_INTEGRAL_FORMAT_U32;
    computed = gst_cl_integral_layout (self->width, self->height,
        d.channels, format, GST_CL_INTEGRAL_PLANES_SUM, NULL, &size);
    if (!check_size (self, computed, size, "box-mean integral image"))
      return FALSE;
    if (!self->gpu)
      return setup_cpu_box_mean (self, &d);
    plane_types (format, FALSE, &acc, &out, &acc_size);
    if (!setup_plane (self, 0, &d, acc, out, NULL, 0, acc_size))
      return FALSE;
    self->plane[0].offset = 0;
    self->n_planes = 1;
    self->box_kernel = gst_cl_base_filter_create_kernel (base,
        self->plane[0].program, "box_mean");
    self->box_ii = create_scratch (self, size);
    return self->box_kernel && self->box_ii &&
        setup_box_tile (self, &d, self->plane[0].program) &&
        (self->one_pass || gst_cl_integral_warm_box_kernels (self));
  }

  {
    gint w, h, ch;
    if (!gst_cl_integral_parse_caps (outcaps, &w, &h, &ch, &format, &planes) ||
        w != self->width || h != self->height || ch != d.channels) {
      GST_ERROR_OBJECT (self, "output caps %" GST_PTR_FORMAT " do not match "
          "the input %" GST_PTR_FORMAT, outcaps, incaps);
      return FALSE;
    }
  }
  {
    guint64 size = 0;
    gboolean computed = gst_cl_integral_layout (self->width, self->height,
        d.channels, format, planes, offsets, &size);

    if (!check_size (self, computed, size, "integral image"))
      return FALSE;
    self->out_size = size;
  }
  /* GPU strips: the sum program writes the squares plane too (while both
   * planes' scratch columns, 2 x (width + blocks) x channels, stay far
   * from the kernels' 32-bit counts) */
  pair = self->gpu && !self->one_pass &&
      (planes & GST_CL_INTEGRAL_PLANES_SQSUM) &&
      (guint64) self->width * d.channels < G_MAXINT / 4 &&
      g_strcmp0 (g_getenv (PAIR_ENV), "0") != 0;
  for (bit = 1; bit <= GST_CL_INTEGRAL_PLANES_COUNT; bit <<= 1) {
    const gchar *out2 = NULL, *acc2;
    gsize acc2_size;

    if (!(planes & bit))
      continue;
    if (pair && bit == GST_CL_INTEGRAL_PLANES_SQSUM) {
      k++;
      continue;
    }
    plane_types (format, bit == GST_CL_INTEGRAL_PLANES_SQSUM, &acc, &out,
        &acc_size);
    if (pair && bit == GST_CL_INTEGRAL_PLANES_SUM)
      plane_types (format, TRUE, &acc2, &out2, &acc2_size);
    if (!setup_plane (self, n, &d, acc, out, out2,
            bit == GST_CL_INTEGRAL_PLANES_SUM ? 0 :
            bit == GST_CL_INTEGRAL_PLANES_SQSUM ? 1 : 2, acc_size))
      return FALSE;
    self->plane[n].offset = offsets[k];
    /* (the squares plane follows the sum plane) */
    if (out2)
      self->plane[n].offset2 = offsets[k + 1];
    n++;
    k++;
  }
  self->n_planes = n;
  if (!self->gpu)
    gst_cl_integral_warm_cpu_kernels (self);
  GST_INFO_OBJECT (self, "%dx%d x%d -> %s %s, %" G_GSIZE_FORMAT " bytes, %s "
      "variant", self->width, self->height, d.channels,
      gst_cl_integral_format_name (format),
      gst_cl_integral_planes_name (planes), self->out_size,
      self->gpu ? "GPU" : "CPU");
  return TRUE;
}

void
gst_cl_integral_reset (GstClBaseFilter * base)
{
  GstClIntegral *self = GST_CL_INTEGRAL (base);
  guint i;

  /* (the base class joined a compile in progress, which uses the planes'
   * fast kernels, before this) */
  self->fast_ready = 0;
  for (i = 0; i < GST_CL_INTEGRAL_MAX_PLANES; i++) {
    IntegralPlane *p = &self->plane[i];
    if (p->k1)
      clReleaseKernel (p->k1);
    if (p->fast)
      clReleaseKernel (p->fast);
    if (p->k2)
      clReleaseKernel (p->k2);
    if (p->k3)
      clReleaseKernel (p->k3);
    if (p->program)
      clReleaseProgram (p->program);
    if (p->accrow)
      clReleaseMemObject (p->accrow);
    memset (p, 0, sizeof (*p));
  }
  if (self->box_kernel)
    clReleaseKernel (self->box_kernel);
  self->box_kernel = NULL;
  if (self->box_tile)
    clReleaseKernel (self->box_tile);
  self->box_tile = NULL;
  if (self->box_ii)
    clReleaseMemObject (self->box_ii);
  self->box_ii = NULL;
  self->n_planes = 0;
}
