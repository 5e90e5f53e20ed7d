/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-gpu-px.cl: conv2d_px (part of the convolve
 * program). */

#if !CPU_ONLY

/* conv2d_px<R>_<CH> (GPU, matrices up to 2 PX_MAX_R + 1 square, planes of
 * 1-sample pixels and 8-bit 4-sample pixels): no local memory and no
 * barrier. A work-item
 * computes PX_NX pixels of PX_ROWS rows; it walks down its input rows once
 * and reads each row's window (its pixels plus R on each side) straight
 * from global memory (the neighbouring work-items' reads of the same lines
 * hit the L1 cache): one 32-bit load per 4-sample pixel; 1-sample pixels
 * away from the left and right edges in 8-byte words, loaded and stored.
 * Each sample is widened to float once and feeds every output of the
 * column it contributes to, as in conv2d_reg. Columns are border-mapped
 * once per work-item, rows once per row (4-sample pixels) or once per
 * work-item (1-sample pixels). On 4-sample pixels the alpha or x byte
 * is neither widened nor computed: the output copies it from the source
 * pixel. The coefficients come by value (a kernel argument, which GPUs
 * keep where multiply-adds read them directly), as float on both paths:
 * the host runs the integer path here only when every partial sum is an
 * integer below 2^24, exact in float. Sums run in tap order, each step one
 * fused multiply-add (one rounding, within the float path's tolerance;
 * conv2d_reg sums alike, so the two give the same bytes).
 *
 * The row loop is written out by the preprocessor (PX_IN_ROWS): NVIDIA's
 * compiler, given the loop with #pragma unroll, schedules the zero-pattern
 * kernels far worse (H200, 4K RGBA motion blur: 0.087 ms against 0.151).
 *
 * The host builds each in a program of its own (-D PX_ONLY=1, radius,
 * pixel size and zero pattern as defines: unrolled code compiles slowly,
 * so no program carries kernels its stream does not run). PX_MASK has bit
 * ky * (2R+1) + kx set for each non-zero coefficient of the (2R+1)^2
 * square: the other taps, and rows or columns no tap reads, vanish at
 * compile time (motion blur: 17 multiply-adds per sample instead of 49);
 * the host asks for that for 2-D matrices of at most half non-zero taps.
 * Skipping a zero tap changes no bit of the sum (fma(0, v, a) == a).
 *
 * -D PX_SEP=1: a separable matrix, both 1-D passes fused: coef.c[0..K-1]
 * is the row factor, c[K..2K-1] the column factor (mask bits likewise),
 * each input row's row pass feeds every output row it touches: per output
 * K (PX_ROWS + 2R) / PX_ROWS + K multiply-adds instead of K^2 (7x7: 19
 * instead of 49). Rows outside the frame with the
 * constant border take @border_row, sums run as in hpass_strips and
 * vpass_strips, so the results are theirs, bit for bit. */
#ifndef PX_NX1
#define PX_NX1 8                /* outputs per work-item, 1-sample pixels
                                 * (a multiple of 8) */
#endif
#ifndef PX_NX4
#define PX_NX4 2                /* outputs per work-item, 4-sample pixels */
#endif
#ifndef PX_ROWS
#define PX_ROWS 8               /* outputs per work-item, vertically */
#endif
#ifndef PX_MAX_R
#define PX_MAX_R 3              /* largest radius (7x7): each radius costs
                                 * build time, larger ones take conv2d_reg */
#endif
#ifndef PX_SEP
#define PX_SEP 0
#endif
#ifndef PX_PACK
#define PX_PACK 1               /* 8-byte stores, see px_store1x */
#endif
/* tap (ky, kx) of a K x K square is not zero (bits past 63: always); no
 * PX_MASK: every tap (the host leaves it out for a full pattern, so that
 * the generic kernel has no test at all) */
#ifdef PX_MASK
#define PX_TAP(ky, kx, K) ((ky) * (K) + (kx) >= 64 || \
    ((PX_MASK >> ((ky) * (K) + (kx))) & 1) != 0)
#else
#define PX_TAP(ky, kx, K) 1
#endif
#define PX_WX 32
#define PX_WY 4
#define PX_NXMAX (PX_NX1 > PX_NX4 ? PX_NX1 : PX_NX4)
/* 1-sample pixels: the words read for a row, samples x0 - 8 .. x0 + NX + 8 */
#define PX_WORDS ((PX_NX1 + 16) * (int) sizeof (sample_t) / 4)

typedef struct
{
  float c[(2 * 5 + 1) * (2 * 5 + 1)];   /* (2R+1)^2 used, row order */
} px_coef_t;

/* the float of an integer sample (< 2^23): one OR and one subtract instead
 * of an int-to-float conversion, which NVIDIA GPUs issue at a quarter of
 * the rate of float arithmetic */
inline float
sample_to_float (uint v)
{
  return as_float (v | 0x4b000000u) - 8388608.0f;
}

/* The colour samples of pixel @col (-1: the border value) of @row (@my -1:
 * the border row), 4-sample pixels */
inline float3
px_pixel4 (__global const uchar * row, int col, int my, int ashift,
    float fbval)
{
  uint p = ((__global const uint *) row)[max (col, 0)] >> ashift;

  if (my < 0 || col < 0)
    return (float3) fbval;
  return (float3) (sample_to_float (p & 0xff),
      sample_to_float ((p >> 8) & 0xff), sample_to_float ((p >> 16) & 0xff));
}

/* The same for 1-sample pixels */
inline float
px_sample1 (__global const uchar * row, int col, int my, float fbval)
{
  sample_t s = ((__global const sample_t *) row)[max (col, 0)];

  return my < 0 || col < 0 ? fbval : sample_to_float (s);
}

/* sample @n of 32-bit word @w */
#define PX_WORD_SAMPLES (4 / (int) sizeof (sample_t))
inline uint
px_word_sample (uint w, int n)
{
  return (w >> (8 * (int) sizeof (sample_t) * n)) & MAXV;
}

/* -D PXL_FIN=1 or 3 (4-sample pixels, float sums): finish () with the
 * clamp to 0..255 and the truncation in one saturating conversion (the
 * same byte for every value: negative sums give 0, those past 255 give
 * 255); on NVIDIA (cl_nv_pragma_unroll) one F2IP where finish takes two
 * FMNMX and a quarter-rate F2I (H200, 4K RGBA gaussian 52.1 -> 50.2 us) */
#ifndef PXL_FIN
#define PXL_FIN 0
#endif
#if (PXL_FIN & 1) && !INTEGER
#ifdef cl_nv_pragma_unroll
inline uint
px_sat8 (float v)
{
  uint r;

  asm ("cvt.rzi.sat.u8.f32 %0, %1;" : "=r" (r) : "f" (v));
  return r;
}
#else
#define px_sat8(v) ((uint) convert_uchar_sat_rtz (v))
#endif
#endif

/* Stores output pixel @x of a 4-sample row: the colour sums finished, the
 * alpha or x byte copied from the source row @srow */
inline uint
px_pack4 (uint src, int alpha_pos, int ashift, float3 acc, PARAMS)
{
  uint keep = src & (0xffu << (8 * alpha_pos));
#if (PXL_FIN & 1) && !INTEGER
  float3 v = acc * finv;
  uint p;

  if (absolute)
    v = fabs (v);
  v += fbias + 0.5f;
  p = px_sat8 (v.x) | px_sat8 (v.y) << 8 | px_sat8 (v.z) << 16;
#else
  /* acc holds an exact integer on the integer path */
  uint p = finish ((acc_t) acc.x, PARAM_ARGS) |
      finish ((acc_t) acc.y, PARAM_ARGS) << 8 |
      finish ((acc_t) acc.z, PARAM_ARGS) << 16;
#endif

  return (p << ashift) | keep;
}

inline void
px_store4 (__global const uchar * srow, __global uchar * drow, int x,
    int alpha_pos, int ashift, float3 acc, PARAMS)
{
  ((__global uint *) drow)[x] = px_pack4 (((__global const uint *) srow)[x],
      alpha_pos, ashift, acc, PARAM_ARGS);
}

inline void
px_store1 (__global uchar * drow, int x, float acc, PARAMS)
{
  ((__global sample_t *) drow)[x] = (sample_t) finish ((acc_t) acc,
      PARAM_ARGS);
}

/* Whole 8-byte words of output (-D PX_PACK=1, 1-sample rows of source and
 * destination in 8-byte words, away from the edges): one store per word
 * instead of one per sample (H200, 4K GRAY8 motion blur: 0.033 ms against
 * 0.039; pairs of 4-sample pixels gained nothing, so those are stored a
 * pixel at a time). Samples @x (a multiple of PX_WORD_N) to
 * @x + PX_WORD_N - 1 of a 1-sample row, sums in @acc[0..PX_WORD_N - 1].x */
#define PX_WORD_N (8 / (int) sizeof (sample_t))
inline void
px_store1x (__global uchar * drow, int x, const float3 * acc, PARAMS)
{
  uint w[2] = { 0, 0 };

#pragma unroll
  for (int n = 0; n < PX_WORD_N; n++)
    w[n / (PX_WORD_N / 2)] |= (uint) finish ((acc_t) acc[n].x, PARAM_ARGS) <<
        (8 * (int) sizeof (sample_t) * (n % (PX_WORD_N / 2)));
  ((__global uint2 *) drow)[x / PX_WORD_N] = (uint2) (w[0], w[1]);
}

/* The kernel body is a macro so that R and CH are literals in each kernel:
 * compilers unroll a callee's loops (or give up on them) before inlining it,
 * and loops left rolled put acc and the windows in (slow, off-chip) local
 * memory. #pragma cannot appear in a macro: _Pragma does. */
#define PX_UNROLL _Pragma ("unroll")
/* a = fma (c, v, a) on the colour lanes in use */
#define PX_FMA(a, c, v) do { \
    if (LANES == 3) \
      (a) = fma ((float3) (c), (v), (a)); \
    else \
      (a).x = fma ((c), (v).x, (a).x); \
  } while (0)

/* What one input row @r (samples v, border-mapped row my) adds to the
 * work-item's outputs: 2-D taps, or (PX_SEP) the row pass then the column
 * pass. Chosen with #if, so that each kernel holds only its own code. */
#define PX_ROW_2D(R, CH) \
PX_UNROLL \
    for (int j = 0; j < PX_ROWS; j++) { \
      if (r - j >= 0 && r - j < K) { \
PX_UNROLL \
        for (int dx = 0; dx < K; dx++) { \
          float c = coef.c[(r - j) * K + dx]; \
 \
          if (PX_TAP (r - j, dx, K)) { \
PX_UNROLL \
            for (int i = 0; i < NX; i++) \
              PX_FMA (acc[j][i], c, v[i + dx]); \
          } \
        } \
      } \
    }

#define PX_ROW_SEP(R, CH) \
    float3 h[PX_NXMAX]; \
 \
PX_UNROLL \
    for (int i = 0; i < NX; i++) { \
      h[i] = 0; \
PX_UNROLL \
      for (int dx = 0; dx < K; dx++) \
        if (PX_TAP (0, dx, K)) \
          PX_FMA (h[i], coef.c[dx], v[i + dx]); \
      if (my < 0) \
        h[i] = (float3) (INTEGER ? (float) border_row : \
            as_float (border_row)); \
    } \
PX_UNROLL \
    for (int j = 0; j < PX_ROWS; j++) { \
      if (r - j >= 0 && r - j < K && PX_TAP (1, r - j, K)) { \
PX_UNROLL \
        for (int i = 0; i < NX; i++) \
          PX_FMA (acc[j][i], coef.c[K + r - j], h[i]); \
      } \
    }

#if PX_SEP
#define PX_ROW PX_ROW_SEP
#else
#define PX_ROW PX_ROW_2D
#endif

/* Input row @RI (a literal or the loop's counter) of a work-item: its
 * window read and widened once, then its taps (PX_ROW) */
#define PX_IN_ROW(R, CH, RI) \
  if ((RI) < PX_ROWS + 2 * (R)) { \
    const int r = (RI); \
    int my = CH == 1 ? mrows[r] : map_index (y0 - R + r, height, border); \
    __global const uchar *row = sbase + max (my, 0) * sstride; \
    float3 v[PX_NXMAX + 2 * R]; \
 \
    if (CH == 4) { \
PX_UNROLL \
      for (int k = 0; k < W; k++) \
        v[k] = px_pixel4 (row, cols[k], my, ashift, fbval); \
    } else if (words) { \
      uint w[PX_WORDS]; \
 \
PX_UNROLL \
      for (int n = 0; n < PX_WORDS / 2; n++) { \
        uint2 t = ((__global const uint2 *) (row + (x0 - 8) * \
                (int) sizeof (sample_t)))[n]; \
        w[2 * n] = t.x; \
        w[2 * n + 1] = t.y; \
      } \
PX_UNROLL \
      for (int k = 0; k < W; k++) \
        v[k].x = my < 0 ? fbval : sample_to_float (px_word_sample (w[(k + 8 - \
                    R) / PX_WORD_SAMPLES], (k + 8 - R) % PX_WORD_SAMPLES)); \
    } else { \
PX_UNROLL \
      for (int k = 0; k < W; k++) \
        v[k].x = px_sample1 (row, cols[k], my, fbval); \
    } \
    PX_ROW (R, CH); \
  }

/* PX_PPROW=1 (default): the row loop written out by the preprocessor, r a
 * literal in each copy (rows up to PX_ROWS + 2R = 42), so nothing depends
 * on how the compiler unrolls it; -D PX_PPROW=0 (benchmarks): the loop */
#ifndef PX_PPROW
#define PX_PPROW 1
#endif
#if PX_PPROW
#define PX_IN_ROWS(R, CH) \
    PX_IN_ROW (R, CH, 0) PX_IN_ROW (R, CH, 1) PX_IN_ROW (R, CH, 2) \
    PX_IN_ROW (R, CH, 3) PX_IN_ROW (R, CH, 4) PX_IN_ROW (R, CH, 5) \
    PX_IN_ROW (R, CH, 6) PX_IN_ROW (R, CH, 7) PX_IN_ROW (R, CH, 8) \
    PX_IN_ROW (R, CH, 9) PX_IN_ROW (R, CH, 10) PX_IN_ROW (R, CH, 11) \
    PX_IN_ROW (R, CH, 12) PX_IN_ROW (R, CH, 13) PX_IN_ROW (R, CH, 14) \
    PX_IN_ROW (R, CH, 15) PX_IN_ROW (R, CH, 16) PX_IN_ROW (R, CH, 17) \
    PX_IN_ROW (R, CH, 18) PX_IN_ROW (R, CH, 19) PX_IN_ROW (R, CH, 20) \
    PX_IN_ROW (R, CH, 21) PX_IN_ROW (R, CH, 22) PX_IN_ROW (R, CH, 23) \
    PX_IN_ROW (R, CH, 24) PX_IN_ROW (R, CH, 25) PX_IN_ROW (R, CH, 26) \
    PX_IN_ROW (R, CH, 27) PX_IN_ROW (R, CH, 28) PX_IN_ROW (R, CH, 29) \
    PX_IN_ROW (R, CH, 30) PX_IN_ROW (R, CH, 31) PX_IN_ROW (R, CH, 32) \
    PX_IN_ROW (R, CH, 33) PX_IN_ROW (R, CH, 34) PX_IN_ROW (R, CH, 35) \
    PX_IN_ROW (R, CH, 36) PX_IN_ROW (R, CH, 37) PX_IN_ROW (R, CH, 38) \
    PX_IN_ROW (R, CH, 39) PX_IN_ROW (R, CH, 40) PX_IN_ROW (R, CH, 41)
#else
#define PX_IN_ROWS(R, CH) \
PX_UNROLL \
  for (int ri = 0; ri < PX_ROWS + 2 * (R); ri++) \
    PX_IN_ROW (R, CH, ri)
#endif

#define CONV2D_PX(R, CH) \
__kernel __attribute__ ((reqd_work_group_size (PX_WX, PX_WY, 1))) void \
conv2d_px##R##_##CH (__global const uchar * src, uint soff, int sstride, \
    __global uchar * dst, uint doff, int dstride, int width, int height, \
    int ch, int alpha_pos, int aligned8, px_coef_t coef, int bval, \
    int border, int border_row, PARAMS) \
{ \
  const int K = 2 * R + 1; \
  const int NX = CH == 4 ? PX_NX4 : PX_NX1, LANES = CH == 4 ? 3 : 1; \
  const int W = NX + 2 * R; \
  int x0 = get_global_id (0) * NX, y0 = get_global_id (1) * PX_ROWS; \
  int ashift = alpha_pos == 0 ? 8 : 0; \
  int words = CH == 1 && aligned8 && x0 >= 8 && x0 + NX + 8 <= width; \
  int packed = PX_PACK && words; \
  __global const uchar *sbase = src + soff; \
  int cols[PX_NXMAX + 2 * R], mrows[PX_ROWS + 2 * R]; \
  float3 acc[PX_ROWS][PX_NXMAX]; \
  float fbval = bval; \
 \
  if (x0 >= width || y0 >= height) \
    return; \
PX_UNROLL \
  for (int k = 0; k < W; k++) \
    cols[k] = map_index (x0 - R + k, width, border); \
  /* 1-sample planes map their rows up front (H200, 4K GRAY8: ~5% \
   * faster); on 4-sample planes that made the kernels 8-27% slower */ \
  if (CH == 1) { \
PX_UNROLL \
    for (int k = 0; k < PX_ROWS + 2 * R; k++) \
      mrows[k] = map_index (y0 - R + k, height, border); \
  } \
PX_UNROLL \
  for (int j = 0; j < PX_ROWS; j++) \
PX_UNROLL \
    for (int i = 0; i < NX; i++) \
      acc[j][i] = 0; \
  PX_IN_ROWS (R, CH) \
PX_UNROLL \
  for (int j = 0; j < PX_ROWS; j++) { \
    int y = y0 + j; \
 \
    if (y >= height) \
      break; \
    if (packed) { \
PX_UNROLL \
      for (int i = 0; i < NX; i += PX_WORD_N) \
        px_store1x (dst + doff + y * dstride, x0 + i, &acc[j][i], \
            PARAM_ARGS); \
      continue; \
    } \
PX_UNROLL \
    for (int i = 0; i < NX; i++) { \
      if (x0 + i >= width) \
        break; \
      if (CH == 4) \
        px_store4 (sbase + y * sstride, dst + doff + y * dstride, x0 + i, \
            alpha_pos, ashift, acc[j][i], PARAM_ARGS); \
      else \
        px_store1 (dst + doff + y * dstride, x0 + i, acc[j][i].x, \
            PARAM_ARGS); \
    } \
  } \
}

#endif /* !CPU_ONLY */
