/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* histogram.cl: full-resolution histograms of up to 5 channels that share one
 * plane, one pixel stride and one subsampling (a "pass" in gstclhistogram.c).
 * OpenCL C 1.2, specialised with -D options:
 *
 *   NOUT        channels counted by this pass (1..5)
 *   PSTRIDE     bytes from one sample (pixel) to the next in a row (1..4)
 *   SRC0..SRC4  byte offset of channel k inside a pixel, or -1 for luma
 *               computed from RGB: (KR*r + KG*g + KB*b + 32768) >> 16 with
 *               r, g, b at byte offsets ROFF, GOFF, BOFF
 *   DEPTH16     1: one little-endian 16-bit sample per pixel (GRAY16_LE)
 *   RANGE       256 or 65536 (values, hence bins of the histograms made here)
 *   NCOPY       (CPU) interleaved private histograms per channel
 *   NREP, WG    (GPU) local histogram replicas (a power of two),
 *               work-group size
 *   BATCH       (GPU) 16-byte chunks a work-item loads before counting them
 *   GPU         1: the program holds hist_gpu alone, 0: the CPU kernels
 *               alone (NVIDIA's compiler spends seconds on hist_cpu's big
 *               private arrays, which a GPU never runs)
 *
 * Output: result[out_base + k * RANGE + v] = number of samples of channel k
 * with value v. Binning to the user's bin count, mean, stddev, min and max
 * are derived exactly from these counts on the host. */

#ifndef NOUT
#define NOUT 1
#endif
#ifndef PSTRIDE
#define PSTRIDE 1
#endif
#ifndef SRC0
#define SRC0 0
#endif
#ifndef SRC1
#define SRC1 0
#endif
#ifndef SRC2
#define SRC2 0
#endif
#ifndef SRC3
#define SRC3 0
#endif
#ifndef SRC4
#define SRC4 0
#endif
#ifndef ROFF
#define ROFF 0
#endif
#ifndef GOFF
#define GOFF 1
#endif
#ifndef BOFF
#define BOFF 2
#endif
#ifndef KR
#define KR 19595
#endif
#ifndef KG
#define KG 38470
#endif
#ifndef KB
#define KB 7471
#endif
#ifndef DEPTH16
#define DEPTH16 0
#endif
#ifndef RANGE
#define RANGE 256
#endif
#ifndef GPU
#define GPU 0
#endif
#ifndef NCOPY
#define NCOPY 4
#endif
#ifndef NREP
#define NREP 4
#endif
#ifndef WG
#define WG 256
#endif
#ifndef BATCH
#define BATCH 8
#endif

/* pixels per 16-byte chunk */
#define PPC (16 / PSTRIDE)

/* some channel of this pass is luma computed from RGB */
#define HAS_LUMA (SRC0 < 0 || (NOUT > 1 && SRC1 < 0) || (NOUT > 2 && SRC2 < 0) \
    || (NOUT > 3 && SRC3 < 0) || (NOUT > 4 && SRC4 < 0))
/* luma of 8-bit r, g, b: uints or vectors of uint */
#define LUMA_RGB(r, g, b) ((KR * (r) + KG * (g) + KB * (b) + 32768u) >> 16)

#if DEPTH16
#define SAMPLE(px, k) ((uint) (px)[0] | ((uint) (px)[1] << 8))
#else
#define LUMA(px) LUMA_RGB ((uint) (px)[ROFF], (uint) (px)[GOFF], \
      (uint) (px)[BOFF])
#define SRCV(px, s) ((s) < 0 ? LUMA (px) : (uint) (px)[(s) < 0 ? 0 : (s)])
#define SAMPLE(px, k) ((k) == 0 ? SRCV (px, SRC0) : (k) == 1 ? SRCV (px, SRC1) \
      : (k) == 2 ? SRCV (px, SRC2) : (k) == 3 ? SRCV (px, SRC3) \
      : SRCV (px, SRC4))
#endif

/* Adds one pixel's samples @v0.. (the first NOUT) to histogram copy @c */
#define COUNTV(hist, c, v0, v1, v2, v3, v4) do {                          \
    hist[((c) * NOUT + 0) * RANGE + (v0)]++;                              \
    if (NOUT > 1) hist[((c) * NOUT + 1) * RANGE + (v1)]++;                \
    if (NOUT > 2) hist[((c) * NOUT + 2) * RANGE + (v2)]++;                \
    if (NOUT > 3) hist[((c) * NOUT + 3) * RANGE + (v3)]++;                \
    if (NOUT > 4) hist[((c) * NOUT + 4) * RANGE + (v4)]++;                \
  } while (0)

/* ... of the pixel at @px */
#define COUNT(hist, c, px) COUNTV (hist, c, SAMPLE (px, 0), SAMPLE (px, 1), \
      SAMPLE (px, 2), SAMPLE (px, 3), SAMPLE (px, 4))

/* ... of a pixel in the low bytes of @u whose luma is @l */
#define BYTEU(u, o) (((u) >> (8 * (o))) & 0xffu)
#define SRCL(u, l, s) ((s) < 0 ? (l) : BYTEU (u, (s) < 0 ? 0 : (s)))
#define COUNTL(hist, c, u, l) COUNTV (hist, c, SRCL (u, l, SRC0), \
      SRCL (u, l, SRC1), SRCL (u, l, SRC2), SRCL (u, l, SRC3), SRCL (u, l, SRC4))

/* ... of a pixel held in bits 8 * @o... of the 32-bit word @u */
#define LUMAU(u, o) LUMA_RGB (BYTEU (u, (o) + ROFF), BYTEU (u, (o) + GOFF), \
      BYTEU (u, (o) + BOFF))
#define SRCU(u, o, s) SRCL ((u) >> (8 * (o)), LUMAU (u, o), s)
#define COUNTU(hist, c, u, o) COUNTL (hist, c, (u) >> (8 * (o)), LUMAU (u, o))
/* lane @k (a constant) of a uint4 */
#define LANE4(v, k) ((k) == 0 ? (v).s0 : (k) == 1 ? (v).s1 : (k) == 2 ? \
      (v).s2 : (v).s3)

#if !GPU
/* ---- CPU devices: few long work-items, private histograms ---- */

/* One work-item (work-group of 1) per band of @rows_per_band rows of the
 * region (x0, y0, w, h), counting into NCOPY interleaved private histograms
 * (consecutive equal values then hit different counters, so a solid frame
 * does not serialise on one store-to-load chain). The band's sum goes to
 * partial[band * NOUT * RANGE ...]. For 16-bit samples the histogram is too
 * big for private memory: the work-item counts straight into its slice of
 * @partial (NCOPY must be 1). Bands start at @partial + @pbase. */
__kernel void
hist_cpu (__global const uchar * base, uint offset, int stride, int x0,
    int y0, int w, int h, int rows_per_band, __global uint * partial,
    uint pbase)
{
  int band = get_global_id (0);
  int ya = band * rows_per_band, yb = min (h, ya + rows_per_band);
  __global uint *out = partial + pbase + (size_t) band * NOUT * RANGE;
  int x, y, i;
#if DEPTH16
  __global uint *hist = out;
#define HCOPIES 1
#else
  uint hist[NCOPY * NOUT * RANGE];
#define HCOPIES NCOPY
#endif

  for (i = 0; i < HCOPIES * NOUT * RANGE; i++)
    hist[i] = 0;

  for (y = ya; y < yb; y++) {
    __global const uchar *row = base + offset + (size_t) (y0 + y) * stride +
        (size_t) x0 * PSTRIDE;

    x = 0;
#if !DEPTH16 && HAS_LUMA && (PSTRIDE == 3 || PSTRIDE == 4)
    /* 4 pixels a step, pixel k's bytes at the bottom of lane k, and their
     * lumas in one vector expression: one pixel at a time, the lumas'
     * multiplies were most of the time (1080p RGBA and RGB luma, PoCL
     * on 2 cores: 1.9-2.7 ms, against 0.7-1.7 this way). 3-byte pixels
     * step while 16 bytes are left in the row. */
    for (; x + (PSTRIDE == 3 ? 6 : 4) <= w; x += 4) {
      uint4 v = as_uint4 (vload16 (0, row + x * PSTRIDE)), px, lv;
      int k;

      px = PSTRIDE == 4 ? v : shuffle (v, (uint4) (0, 0, 1, 2)) >>
          (uint4) (0, 24, 16, 8) | (shuffle (v, (uint4) (0, 1, 2, 0)) &
          (uint4) (0, ~0u, ~0u, 0)) << (uint4) (0, 8, 16, 0);
      lv = LUMA_RGB (px >> 8 * ROFF & 0xffu, px >> 8 * GOFF & 0xffu,
          px >> 8 * BOFF & 0xffu);
#pragma unroll
      for (k = 0; k < 4; k++)
        COUNTL (hist, k % NCOPY, LANE4 (px, k), LANE4 (lv, k));
    }
#elif !DEPTH16 && (PSTRIDE == 1 || PSTRIDE == 2 || PSTRIDE == 4)
    /* one 16-byte load per PPC pixels, unpacked with shifts (the bytes stay
     * in registers); pixel p of the chunk counts into copy p % NCOPY */
    for (; x + PPC <= w; x += PPC) {
      uint4 v = as_uint4 (vload16 (0, row + x * PSTRIDE));
      int k;

#pragma unroll
      for (k = 0; k < 16 / PSTRIDE; k++) {
        uint u = (k * PSTRIDE < 4) ? v.s0 : (k * PSTRIDE < 8) ? v.s1 :
            (k * PSTRIDE < 12) ? v.s2 : v.s3;
        COUNTU (hist, k % NCOPY, u, (k * PSTRIDE) & 3);
      }
    }
#elif !DEPTH16
    /* one vector load per pixel, NCOPY pixels to NCOPY copies */
    for (; x + NCOPY <= w; x += NCOPY) {
      int k;
#pragma unroll
      for (k = 0; k < NCOPY; k++) {
        uchar3 v = vload3 (x + k, row);
        uchar b[3] = { v.s0, v.s1, v.s2 };
        COUNT (hist, k, b);
      }
    }
#endif
    for (; x < w; x++)
      COUNT (hist, 0, row + x * PSTRIDE);
  }

#if !DEPTH16
  for (i = 0; i < NOUT * RANGE; i++) {
    uint s = 0;
    int c;

    for (c = 0; c < NCOPY; c++)
      s += hist[c * NOUT * RANGE + i];
    out[i] = s;
  }
#endif
}

/* Sums the bands: one work-item per (channel, value) */
__kernel void
hist_merge (__global const uint * partial, int nbands, __global uint * result,
    uint out_base)
{
  int i = get_global_id (0), b;
  uint s = 0;

  if (i >= NOUT * RANGE)
    return;
  for (b = 0; b < nbands; b++)
    s += partial[(size_t) b * NOUT * RANGE + i];
  result[out_base + i] = s;
}

#endif /* !GPU */

#if GPU
/* ---- GPUs: one kernel, interleaved local sub-histograms ---- */

/* 8-bit samples count into NREP local replicas, interleaved: counter
 * (channel k, value v) of replica r is lhist[(k * RANGE + v) * NREP + r]
 * and work-item i uses replica i % NREP. Lanes of a warp then hit NREP
 * different banks for equal values (a solid frame does not serialise on
 * one counter) and spread over the banks for random ones. */
#define LSLOT(k, v) (((k) * RANGE + (v)) * NREP + rep)
#if DEPTH16
#define GCOUNT(px) atomic_inc (&gout[SAMPLE (px, 0)])
/* the 16-bit sample in bits 16 * @o... of @u */
#define GCOUNTU(u, o) atomic_inc (&gout[((u) >> (16 * (o))) & 0xffffu])
#else
#define GCOUNT(px) do {                                                  \
    atomic_inc (&lhist[LSLOT (0, SAMPLE (px, 0))]);                      \
    if (NOUT > 1) atomic_inc (&lhist[LSLOT (1, SAMPLE (px, 1))]);        \
    if (NOUT > 2) atomic_inc (&lhist[LSLOT (2, SAMPLE (px, 2))]);        \
    if (NOUT > 3) atomic_inc (&lhist[LSLOT (3, SAMPLE (px, 3))]);        \
    if (NOUT > 4) atomic_inc (&lhist[LSLOT (4, SAMPLE (px, 4))]);        \
  } while (0)
/* the pixel in bits 8 * @o... of @u */
#define GCOUNTU(u, o) do {                                               \
    atomic_inc (&lhist[LSLOT (0, SRCU (u, o, SRC0))]);                   \
    if (NOUT > 1) atomic_inc (&lhist[LSLOT (1, SRCU (u, o, SRC1))]);     \
    if (NOUT > 2) atomic_inc (&lhist[LSLOT (2, SRCU (u, o, SRC2))]);     \
    if (NOUT > 3) atomic_inc (&lhist[LSLOT (3, SRCU (u, o, SRC3))]);     \
    if (NOUT > 4) atomic_inc (&lhist[LSLOT (4, SRCU (u, o, SRC4))]);     \
  } while (0)
#endif

/* One launch per pass and frame. The region (x0, y0, w, h) is cut into
 * 16-byte chunks of PPC pixels, ceil (w / PPC) per row; work-items take
 * chunks grid-stride (consecutive work-items, consecutive chunks, so a
 * warp reads 512 contiguous bytes), loading each with one 16-byte load
 * when rows are 16-byte aligned. Each work-group adds its non-zero local
 * counts to result[out_base ...] with one global atomic per bin; 16-bit
 * samples count straight into @result. result[out_base ...] must be zero
 * on entry; the kernel zeroes result[clear_base ...] (NOUT * RANGE
 * counters) for the next frame, which the host reads from there. */
__kernel void
hist_gpu (__global const uchar * base, uint offset, int stride, int x0,
    int y0, int w, int h, __global uint * result, uint out_base,
    uint clear_base)
{
  int lid = get_local_id (0);
  uint gs = get_global_size (0);
  uint cpr = (uint) (w + PPC - 1) / PPC;        /* chunks per row */
  /* this work-item's first chunk (c, y) and its step (dc, dy) */
  uint c = get_global_id (0) % cpr, dc = gs % cpr;
  int y = get_global_id (0) / cpr, dy = gs / cpr;
  __global const uchar *origin = base + offset + (size_t) y0 * stride +
      (size_t) x0 * PSTRIDE;
  bool aligned = ((offset + (size_t) y0 * stride + (size_t) x0 * PSTRIDE) |
      (size_t) stride) % 16 == 0;
  uint i;
#if DEPTH16
  __global uint *gout = result + out_base;
#else
  __local uint lhist[NREP * NOUT * RANGE];
  int rep = lid % NREP;

  for (i = lid; i < NREP * NOUT * RANGE; i += WG)
    lhist[i] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);
#endif

  for (i = get_global_id (0); i < NOUT * RANGE; i += gs)
    result[clear_base + i] = 0;

  /* BATCH chunks are loaded before any of them is counted, so that their
   * loads are in flight together (a frame takes few chunks per work-item:
   * their latency, not the bandwidth, is what a small frame waits for) */
  while (y < h) {
    uint4 v[BATCH];
    int bx[BATCH], by[BATCH], j, k;

#pragma unroll
    for (j = 0; j < BATCH; j++) {
      int x = c * PPC;

      bx[j] = x;
      by[j] = y;
      v[j] = (uint4) 0;
      if (y < h && x * PSTRIDE + 16 <= w * PSTRIDE) {
        __global const uchar *p = origin + (size_t) y * stride + x * PSTRIDE;

#if PSTRIDE == 1 || PSTRIDE == 2 || PSTRIDE == 4
        v[j] = aligned ? *(__global const uint4 *) p :
            as_uint4 (vload16 (0, p));
#else
        v[j] = as_uint4 (vload16 (0, p));
#endif
      }
      c += dc;
      y += dy;
      if (c >= cpr) {
        c -= cpr;
        y++;
      }
    }

#pragma unroll
    for (j = 0; j < BATCH && by[j] < h; j++) {
      __global const uchar *row = origin + (size_t) by[j] * stride;
      int x = bx[j];

      if (x * PSTRIDE + 16 <= w * PSTRIDE) {
#if PSTRIDE == 1 || PSTRIDE == 2 || PSTRIDE == 4
#pragma unroll
        for (k = 0; k < 4; k++) {
          uint u = k == 0 ? v[j].s0 : k == 1 ? v[j].s1 : k == 2 ? v[j].s2 :
              v[j].s3;
#if DEPTH16
          GCOUNTU (u, 0);
          GCOUNTU (u, 1);
#elif PSTRIDE == 4
          GCOUNTU (u, 0);
#elif PSTRIDE == 2
          GCOUNTU (u, 0);
          GCOUNTU (u, 2);
#else
          GCOUNTU (u, 0);
          GCOUNTU (u, 1);
          GCOUNTU (u, 2);
          GCOUNTU (u, 3);
#endif
        }
#else
        uchar b[16];

        vstore16 (as_uchar16 (v[j]), 0, b);
#pragma unroll
        for (k = 0; k < PPC; k++)
          GCOUNT (b + k * PSTRIDE);
#endif
      } else {
        for (k = 0; k < PPC && x + k < w; k++)
          GCOUNT (row + (x + k) * PSTRIDE);
      }
    }
  }

#if !DEPTH16
  barrier (CLK_LOCAL_MEM_FENCE);
  for (i = lid; i < NOUT * RANGE; i += WG) {
    uint s = 0;
    int r;

    /* replicas read in a rotated order: fewer bank conflicts */
    for (r = 0; r < NREP; r++)
      s += lhist[i * NREP + ((r + i) & (NREP - 1))];
    if (s)
      atomic_add (&result[out_base + i], s);
  }
#endif
}

#endif /* GPU */

#if !GPU
/* hist_cpu's counts (same arguments and output) with one private histogram
 * and one pixel at a time: what frames run until the warm-up worker has
 * compiled hist_cpu. PoCL compiles a kernel at its first launch, hist_cpu
 * (16-byte loads unpacked in registers, NCOPY histograms) in about 0.15 s
 * on 2 cores, this one in about 0.04 s. */
__kernel void
hist_cpu_first (__global const uchar * base, uint offset, int stride, int x0,
    int y0, int w, int h, int rows_per_band, __global uint * partial,
    uint pbase)
{
  int band = get_global_id (0);
  int ya = band * rows_per_band, yb = min (h, ya + rows_per_band);
  __global uint *out = partial + pbase + (size_t) band * NOUT * RANGE;
  int x, y, i;
#if DEPTH16
  __global uint *hist = out;
#else
  uint hist[NOUT * RANGE];
#endif

  for (i = 0; i < NOUT * RANGE; i++)
    hist[i] = 0;
  for (y = ya; y < yb; y++) {
    __global const uchar *row = base + offset + (size_t) (y0 + y) * stride +
        (size_t) x0 * PSTRIDE;

    for (x = 0; x < w; x++)
      COUNT (hist, 0, row + x * PSTRIDE);
  }
#if !DEPTH16
  for (i = 0; i < NOUT * RANGE; i++)
    out[i] = hist[i];
#endif
}
#endif /* !GPU */
