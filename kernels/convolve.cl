/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve.cl: 2-D convolution of one image plane (clconvolve).
 *
 * A plane is worked on as rows of samples: a pixel of CH interleaved
 * channels is CH consecutive samples, so a horizontal tap dx reads dx*CH
 * samples away and one code path serves GRAY, RGB(A) and NV12's UV plane.
 * Taps come from a buffer of int4 (dx, dy, float bits of the coefficient,
 * integer coefficient) in row order, zeros left out, so changing the matrix
 * needs no rebuild. Arithmetic (shared with tests/reference/convolve.c):
 *   INTEGER=1: exact integer sum; v = round_half_away(n / d + bias)
 *   INTEGER=0: float sum in tap order; v = round_half_away(acc * (1/d) + bias)
 * with |.| applied to n / d before the bias when `absolute`, then
 * saturated to the sample range.
 *
 * Options: -D DEPTH16=0|1 (8- or 16-bit little-endian samples),
 * -D INTEGER=0|1, -D CPU_ONLY=1 (only the strip kernels, those of CPU
 * devices: a smaller program builds faster), -D FIXED=1 (with CPU_ONLY and
 * 8-bit samples: also the fixed-point kernels, which use clang's 32-lane
 * vectors; for CPU devices only, GPU compilers refuse them), -D
 * FIXED_COLOUR=1|2 (with FIXED, where the CPU has AVX-512 VBMI or AVX2:
 * sep_fixed's colour path, see there), -D BOX_SLIDE=1 (with INTEGER:
 * sep_strips slides a box's sums, see there), -D PX_ONLY=1
 * -D PX_R=r -D PX_CH=1|4 -D PX_MASK=m (only conv2d_px<r>_<ch>, whose taps
 * with a 0 bit in m vanish at compile time; see below). The border mode (0..3: clamp, reflect-101, wrap,
 * constant) is a kernel argument, so that changing it on a running stream
 * needs no program build; it is only looked at for rows and samples
 * outside the frame.
 *
 * Kernels:
 *   conv2d_strips (CPU): a work-item filters STRIP samples of a row with four
 *     16-wide accumulators, no local memory, no barriers. For each kernel
 *     row the source span (strip + apron) is widened to acc_t once
 *     (fill_row: vector conversion inside the frame, one border mapping per
 *     sample only for strips touching the left/right edge, never one per
 *     tap); sparse matrices (`direct`) read interior taps from the frame.
 *   sep_strips (CPU): separable matrices, both 1-D passes fused: a
 *     work-item owns STRIP samples x SEP_ROWS rows and keeps the row pass
 *     in a private ring of 32 rows.
 *   conv2d_fixed / sep_fixed (CPU, 8-bit samples): the same two in 16-bit
 *     lanes, in fixed point for float matrices of non-negative
 *     coefficients (see "Fixed point" below) and, in the integer program,
 *     with exact sums for integer separable ones (see "Exact sums"); the
 *     tap's .w holds the 16-bit value they multiply by, .z the coefficient
 *     (float bits, or an int in the integer program).
 *   conv2d_reg1..5 (GPU, up to 11x11): register-blocked, see below.
 *   conv2d_px<R>_1, _4 (GPU, up to 7x7, 1-sample and 8-bit 4-sample
 *     pixels): no local memory, rows read from global memory, see below.
 *   conv2d_pxl<R>_4 (GPU, up to 7x7, 8-bit 4-sample pixels, -D PX_LOCAL=1):
 *     a tile widened (or row-passed) into local memory, see below.
 *   conv2d_tile (GPU, larger matrices): a 16x16 work-group loads a tile of
 *     64x16 samples plus its apron into local memory (border mapping at load
 *     time), each work-item computes 4 samples.
 *   hpass_strips / vpass_strips (GPU): the two 1-D passes of separable
 *     matrices through an intermediate buffer of acc_t. */

#ifndef DEPTH16
#define DEPTH16 0
#endif
#ifndef INTEGER
#define INTEGER 0
#endif
#ifndef FIXED
#define FIXED 0
#endif
#ifndef CPU_ONLY
#define CPU_ONLY 0
#endif
#ifndef PX_ONLY
#define PX_ONLY 0
#endif
#ifndef BOX_SLIDE
#define BOX_SLIDE 0
#endif

#define STRIP 64

#if DEPTH16
typedef ushort sample_t;
typedef ushort16 sample16_t;
#define MAXV 65535
#define convert_sample16_sat convert_ushort16_sat
#define convert_sample_sat convert_ushort_sat
#else
typedef uchar sample_t;
typedef uchar16 sample16_t;
#define MAXV 255
#define convert_sample16_sat convert_uchar16_sat
#define convert_sample_sat convert_uchar_sat
#endif

/* 16-wide unaligned loads/stores as single vector moves (vload16 and
 * vstore16 of 8/16-bit types become element-wise accesses on PoCL) */
typedef sample16_t __attribute__ ((aligned (1))) usample16_t;
#define LOAD16(i, p) (*(__global const usample16_t *) ((p) + 16 * (i)))
#define STORE16(v, p) (*(__global usample16_t *) (p) = (v))

#if INTEGER
typedef int acc_t;
typedef int16 acc16_t;
#define convert_acc16 convert_int16
#define COEF(t) ((t).z)
#define ACC_MAD(c, v, a) ((a) + (c) * (v))
#else
typedef float acc_t;
typedef float16 acc16_t;
#define convert_acc16 convert_float16
#define COEF(t) as_float ((t).z)
/* explicit, so that conv2d_reg and conv2d_px round alike (same bytes) */
#define ACC_MAD(c, v, a) fma ((c), (v), (a))
#endif

/* arithmetic constants of the current matrix */
#define PARAMS float finv, float fbias, int idiv, int ibias, int absolute
#define PARAM_ARGS finv, fbias, idiv, ibias, absolute

#define BORDER_CLAMP 0
#define BORDER_MIRROR 1
#define BORDER_WRAP 2

/* Source index for i in [0, n), or -1 for "the border value" */
inline int
map_index (int i, int n, int border)
{
  if (i >= 0 && i < n)
    return i;
  if (border == BORDER_CLAMP)
    return clamp (i, 0, n - 1);
  if (border == BORDER_MIRROR) {
    int p = 2 * n - 2;
    if (p == 0)
      return 0;
    i = ((int) abs (i)) % p;
    return i < n ? i : p - i;
  }
  if (border == BORDER_WRAP) {
    i %= n;
    return i < 0 ? i + n : i;
  }
  return -1;
}

inline int
finish (acc_t acc, PARAMS)
{
#if INTEGER
  int d = abs (idiv);
  int n = idiv < 0 ? -acc : acc;
  int q;
  if (absolute)
    n = abs (n);
  n += ibias * d;
  q = (2 * (int) abs (n) + d) / (2 * d);
  return clamp (n < 0 ? -q : q, 0, MAXV);
#else
  float v = acc * finv;
  if (absolute)
    v = fabs (v);
  return (int) clamp (v + (fbias + 0.5f), 0.0f, (float) MAXV);
#endif
}

inline int16
finish16 (acc16_t acc, PARAMS)
{
#if INTEGER
  /* round_half_away (n / d) for n > 0, else 0 (saturated anyway): n is
   * capped so that q <= MAXV + 1, where a float quotient is off by at most
   * one; one correction step each way makes it exact without a (scalar,
   * slow) vector integer division */
  int d = abs (idiv);
  int16 n = idiv < 0 ? -acc : acc;
  int16 num, q, r;
  if (absolute)
    n = select (n, -n, n < 0);
  n = clamp (n + ibias * d, 0, (MAXV + 1) * d);
  if (d == 1)
    return min (n, MAXV);
  num = 2 * n + d;
  q = convert_int16 (convert_float16 (num) * (0.5f / d));
  r = num - q * 2 * d;
  q += select ((int16) 0, (int16) 1, r >= 2 * d);
  q -= select ((int16) 0, (int16) 1, r < 0);
  return select (min (q, MAXV), (int16) 0, n <= 0);
#else
  /* results below 0 saturate to 0, so truncating v + 0.5 rounds half away
   * from zero wherever it matters */
  float16 v = acc * finv;
  if (absolute)
    v = fabs (v);
  return convert_int16 (clamp (v + (fbias + 0.5f), 0.0f, (float) MAXV));
#endif
}

#define ROW(base, stride, y) \
  ((__global const sample_t *) ((base) + (y) * (stride)))

/* Stores 16 results at sample @s (a multiple of 16) of @drow, keeping the
 * samples of channel @alpha_pos (alpha, x padding: 4-channel pixels only)
 * from @srow. */
inline void
store16 (int16 v, int s, int alpha_pos, __global const sample_t * srow,
    __global sample_t * drow)
{
  if (alpha_pos >= 0) {
    int16 lane = (int16) (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    int16 orig = convert_int16 (LOAD16 (0, srow + s));
    v = select (v, orig, lane == alpha_pos);
  }
  STORE16 (convert_sample16_sat (v), drow + s);
}

/* Samples [sx - rxs, sx + STRIP + rxs) of row @yy (-1: the border value)
 * widened to acc_t once, so that taps cost one load and one multiply-add:
 * vector conversion when the span lies inside the row, else one border
 * mapping per sample (never one per tap) */
#define MAX_APRON (15 * 4)
#define BUF_LEN (STRIP + 2 * MAX_APRON)
typedef acc16_t __attribute__ ((aligned (4))) uacc16_t;
#define PLOAD16(p) (*(const uacc16_t *) (p))

inline void
fill_row (__global const uchar * sbase, int sstride, int yy, int sx, int rxs,
    int rowlen, int width, int ch, int bval, int border, acc_t * buf)
{
  int n = STRIP + 2 * rxs;

  if (yy >= 0 && sx >= rxs && sx + STRIP + rxs <= rowlen) {
    __global const sample_t *p = ROW (sbase, sstride, yy) + sx - rxs;
    int i = 0;

    for (; i + 16 <= n; i += 16)
      *(uacc16_t *) (buf + i) = convert_acc16 (LOAD16 (0, p + i));
    for (; i < n; i++)
      buf[i] = p[i];
  } else {
    __global const sample_t *srow = yy < 0 ? 0 : ROW (sbase, sstride, yy);

    for (int i = 0; i < n; i++) {
      int s = sx - rxs + i;
      int px = s >= 0 ? s / ch : -((-s + ch - 1) / ch);
      int mx = map_index (px, width, border);

      buf[i] = (mx < 0 || yy < 0) ? bval : srow[mx * ch + s - px * ch];
    }
  }
}

/* Stores the first @n of 64 results, keeping channel @alpha_pos */
inline void
store_tail (acc16_t a0, acc16_t a1, acc16_t a2, acc16_t a3, int sx, int n,
    int ch, int alpha_pos, __global const sample_t * srow,
    __global sample_t * drow, PARAMS)
{
  int v[STRIP];

  vstore16 (finish16 (a0, PARAM_ARGS), 0, v);
  vstore16 (finish16 (a1, PARAM_ARGS), 1, v);
  vstore16 (finish16 (a2, PARAM_ARGS), 2, v);
  vstore16 (finish16 (a3, PARAM_ARGS), 3, v);
  for (int i = 0; i < n; i++)
    drow[sx + i] = ((sx + i) % ch) == alpha_pos ? srow[sx + i] :
        (sample_t) v[i];
}

#if !PX_ONLY
__kernel void
conv2d_strips (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * taps, int ntaps, int rx,
    int bval, int border, int direct, PARAMS)
{
  int sx = get_global_id (0) * STRIP, y = get_global_id (1);
  int rowlen = width * ch, rxs = rx * ch;
  __global const uchar *sbase = src + soff;
  __global const sample_t *srow;
  __global sample_t *drow;

  if (sx >= rowlen || y >= height)
    return;
  srow = ROW (sbase, sstride, y);
  drow = (__global sample_t *) (dst + doff + y * dstride);

  {
    acc16_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    acc_t buf[BUF_LEN];
    int cur_dy = -1000;

    /* sparse matrices (few taps per row, e.g. motion blur): taps read the
     * frame directly where the apron is inside the row */
    if (direct && sx >= rxs && sx + STRIP + rxs <= rowlen) {
      for (int t = 0; t < ntaps; t++) {
        int4 tp = taps[t];
        acc_t c = COEF (tp);
        int yy = map_index (y + tp.y, height, border);
        __global const sample_t *p;

        if (yy < 0) {
          acc16_t b = (acc16_t) (c * bval);
          a0 += b;
          a1 += b;
          a2 += b;
          a3 += b;
          continue;
        }
        p = ROW (sbase, sstride, yy) + sx + tp.x * ch;
        a0 += c * convert_acc16 (LOAD16 (0, p));
        a1 += c * convert_acc16 (LOAD16 (1, p));
        a2 += c * convert_acc16 (LOAD16 (2, p));
        a3 += c * convert_acc16 (LOAD16 (3, p));
      }
      ntaps = 0;
    }
    /* taps come in row order: one row fill per kernel row */
    for (int t = 0; t < ntaps; t++) {
      int4 tp = taps[t];
      acc_t c = COEF (tp);
      const acc_t *q;

      if (tp.y != cur_dy) {
        cur_dy = tp.y;
        fill_row (sbase, sstride, map_index (y + tp.y, height, border), sx,
            rxs, rowlen, width, ch, bval, border, buf);
      }
      q = buf + rxs + tp.x * ch;
      a0 += c * PLOAD16 (q);
      a1 += c * PLOAD16 (q + 16);
      a2 += c * PLOAD16 (q + 32);
      a3 += c * PLOAD16 (q + 48);
    }
    if (sx + STRIP <= rowlen) {
      store16 (finish16 (a0, PARAM_ARGS), sx, alpha_pos, srow, drow);
      store16 (finish16 (a1, PARAM_ARGS), sx + 16, alpha_pos, srow, drow);
      store16 (finish16 (a2, PARAM_ARGS), sx + 32, alpha_pos, srow, drow);
      store16 (finish16 (a3, PARAM_ARGS), sx + 48, alpha_pos, srow, drow);
    } else {
      store_tail (a0, a1, a2, a3, sx, rowlen - sx, ch, alpha_pos, srow, drow,
          PARAM_ARGS);
    }
  }
}

#endif /* !PX_ONLY */

/* kernels of the GPU paths, left out of the CPU program (-D CPU_ONLY=1):
 * a CPU device never runs them, and they cost build time */
#if !CPU_ONLY

#if !PX_ONLY
#define TILE_W 64               /* samples: 16 work-items x 4 */
#define TILE_H 16

__kernel void
conv2d_tile (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * taps, int ntaps, int rx, int ry,
    int bval, int border, PARAMS, __local sample_t * tile)
{
  int lx = get_local_id (0), ly = get_local_id (1);
  int gx0 = get_group_id (0) * TILE_W, gy0 = get_group_id (1) * TILE_H;
  int rowlen = width * ch, rxs = rx * ch;
  int lw = TILE_W + 2 * rxs, lh = TILE_H + 2 * ry;
  __global const uchar *sbase = src + soff;
  int y = gy0 + ly;

  for (int i = ly * 16 + lx; i < lw * lh; i += 256) {
    int ty = i / lw, tx = i - ty * lw;
    int s = gx0 - rxs + tx;
    int px = s >= 0 ? s / ch : -((-s + ch - 1) / ch);
    int mx = map_index (px, width, border);
    int my = map_index (gy0 - ry + ty, height, border);

    tile[i] = (mx < 0 || my < 0) ? (sample_t) bval :
        ROW (sbase, sstride, my)[mx * ch + (s - px * ch)];
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  if (y >= height)
    return;
  for (int k = 0; k < 4; k++) {
    int tx = lx + 16 * k, s = gx0 + tx;
    __global sample_t *drow;
    acc_t acc = 0;

    if (s >= rowlen)
      break;
    for (int t = 0; t < ntaps; t++) {
      int4 tp = taps[t];
      acc += COEF (tp) * (acc_t) tile[(ly + ry + tp.y) * lw + tx + rxs +
          tp.x * ch];
    }
    drow = (__global sample_t *) (dst + doff + y * dstride);
    drow[s] = (s % ch) == alpha_pos ? ROW (sbase, sstride, y)[s] :
        (sample_t) finish (acc, PARAM_ARGS);
  }
}

/* conv2d_reg1..5 (GPU, matrices up to 11x11): register blocking. A 64x4
 * work-group loads a tile of 64 samples x 32 rows plus its apron into local
 * memory, widened to acc_t once (no conversion per tap); a work-item
 * computes a column of REG_ROWS outputs. The matrix radius R is a
 * compile-time constant (one kernel per R, matrices padded to a square
 * (2R+1)^2 with zeros, dense coefficients in __constant memory), so every
 * loop unrolls: each tile row is read once into registers (2R+1 local loads)
 * and feeds every output of the column it contributes to. Per output that is
 * (2R+1) * (REG_ROWS + 2R) / REG_ROWS local loads instead of (2R+1)^2.
 * Sums run in row order then column order, i.e. in tap order; zero taps add
 * exact zeros, so the float results equal the sparse tap loop's. */
#define REG_WX 64               /* work-group and tile width (samples) */
#define REG_WY 4
#define REG_ROWS 8              /* outputs per work-item, vertically */
#define REG_TH (REG_WY * REG_ROWS)

inline void
conv2d_reg (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant acc_t * coef, int bval, int border,
    PARAMS, __local acc_t * tile, const int R)
{
  const int K = 2 * R + 1;
  int lx = get_local_id (0), ly = get_local_id (1);
  int gx0 = get_group_id (0) * REG_WX, gy0 = get_group_id (1) * REG_TH;
  int rowlen = width * ch, rxs = R * ch;
  int lw = REG_WX + 2 * rxs, lh = REG_TH + 2 * R;
  __global const uchar *sbase = src + soff;
  int x = gx0 + lx, y0 = gy0 + ly * REG_ROWS;

  /* one border mapping per tile row; columns map only outside the row */
  for (int ty = ly; ty < lh; ty += REG_WY) {
    int my = map_index (gy0 - R + ty, height, border);
    __global const sample_t *row = ROW (sbase, sstride, max (my, 0));

    for (int tx = lx; tx < lw; tx += REG_WX) {
      int s = gx0 - rxs + tx;
      acc_t v;

      if (my < 0) {
        v = bval;
      } else if (s >= 0 && s < rowlen) {
        v = row[s];
      } else {
        int px = s >= 0 ? s / ch : -((-s + ch - 1) / ch);
        int mx = map_index (px, width, border);

        v = mx < 0 ? bval : row[mx * ch + s - px * ch];
      }
      tile[ty * lw + tx] = v;
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  if (x >= rowlen || y0 >= height)
    return;
  {
    /* tile row ly * REG_ROWS holds input row y0 - R, column lx sample
     * x - rxs */
    __local const acc_t *t = tile + ly * REG_ROWS * lw + lx;
    acc_t acc[REG_ROWS];
    int keep = (x % ch) == alpha_pos;
    __global sample_t *drow;

#pragma unroll
    for (int j = 0; j < REG_ROWS; j++)
      acc[j] = 0;
#pragma unroll
    for (int r = 0; r < REG_ROWS + 2 * R; r++) {
      acc_t v[2 * 5 + 1];

#pragma unroll
      for (int dx = 0; dx < K; dx++)
        v[dx] = t[r * lw + dx * ch];
#pragma unroll
      for (int j = 0; j < REG_ROWS; j++) {
        if (r - j >= 0 && r - j < K) {
#pragma unroll
          for (int dx = 0; dx < K; dx++)
            acc[j] = ACC_MAD (coef[(r - j) * K + dx], v[dx], acc[j]);
        }
      }
    }
#pragma unroll
    for (int j = 0; j < REG_ROWS; j++) {
      drow = (__global sample_t *) (dst + doff + (y0 + j) * dstride) + x;
      if (y0 + j < height)
        *drow = keep ?
            (sample_t) t[(j + R) * lw + rxs] :
            (sample_t) finish (acc[j], PARAM_ARGS);
    }
  }
}

#define CONV2D_REG(R) \
__kernel __attribute__ ((reqd_work_group_size (REG_WX, REG_WY, 1))) void \
conv2d_reg##R (__global const uchar * src, uint soff, int sstride, \
    __global uchar * dst, uint doff, int dstride, int width, int height, \
    int ch, int alpha_pos, __constant acc_t * coef, int bval, int border, \
    PARAMS, __local acc_t * tile) \
{ \
  conv2d_reg (src, soff, sstride, dst, doff, dstride, width, height, ch, \
      alpha_pos, coef, bval, border, PARAM_ARGS, tile, R); \
}

CONV2D_REG (1)
CONV2D_REG (2)
CONV2D_REG (3)
CONV2D_REG (4)
CONV2D_REG (5)

#endif /* !PX_ONLY */

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

/* conv2d_pxl<R>_4 (-D PX_LOCAL=1): matrices on 8-bit 4-sample pixels
 * through local memory. A work-group of (64 / PXL_NX) x 4 work-items owns a
 * tile of 64 pixels x PXL_TH rows; a work-item computes PXL_NX pixels side
 * by side (-D PXL_NX=1 or 2) of PXL_ROWS of its rows.
 * Separable matrices (PX_SEP=1): first the work-group runs the row pass of
 * the tile's PXL_TH + 2R input rows, PXL_HU (8) pixels at a time (four
 * 16-byte loads away from the left and right edges), into local memory, one
 * plane per colour lane; then each work-item runs the column pass from
 * there. 2-D matrices: the work-group widens the tile's input pixels (apron
 * included) into local memory once (groups of 4 pixels, 16-byte loads and
 * stores away from the edges), then each work-item runs its taps from
 * there. Either way each
 * input pixel is read and widened about once per tile instead of once per
 * work-item that needs it, and a work-item keeps few registers, so many
 * more of them run at once. With PXL_NX = 2 a
 * work-item reads a row's 2 + 2R samples of a lane as float2 (no bank
 * conflicts) instead of 2 (2R + 1) single floats: the 2-D tile's local
 * loads per output fall from 2R + 1 to R + 1 per row and lane, and it
 * stores its two pixels in one 8-byte store where rows allow. Sums run in
 * conv2d_px's order, so the two give the same bytes.
 *
 * H200, 4K RGBA (GST_CL_CONVOLVE_PX_LOCAL=ROWS,NX): 2 pixels x 5 rows
 * (float 2-D matrices), 6 (float separable) or 4 (integer), the host's
 * default, motion blur 0.0479 ms, gaussian 0.0461 (4 rows: 0.0485 /
 * 0.0490); 4 rows x 2 pixels motion blur 0.048 ms, gaussian 0.049 (0.050
 * motion blur before the 2-D fill's loads ahead; 0.052 / 0.052 before the
 * saturating finish and the widening through byte permutes, 0.057 / 0.061
 * before the aligned 2-D fill, 8-pixel row-pass steps and uchar
 * widening); before those, 8 x 1 0.061 / 0.064; 8 x 2 0.059 / 0.071;
 * 4 pixels per work-item 0.119 / 0.105; 8 x 2 with the fill and 8-pixel
 * steps (old widening) 0.059 / 0.058. */
#ifndef PX_LOCAL
#define PX_LOCAL 0
#endif
#define PXL_WX 64
#define PXL_WY 4
#ifndef PXL_ROWS
#define PXL_ROWS 4              /* at most 8: local memory for R = 3 */
#endif
#ifndef PXL_NX
#define PXL_NX 2
#endif
#define PXL_TH (PXL_ROWS * PXL_WY)
#define PXL_LX (PXL_WX / PXL_NX)        /* work-items across */
/* NX-float vectors a work-item reads per row and lane: NX + 2R samples */
#define PXL_NV(R) ((PXL_NX + 2 * (R) + PXL_NX - 1) / PXL_NX)

/* v[0 .. N * PXL_NX - 1] = samples PXL_NX * tx .. of local row @row of the
 * three planes @a, N vectors per plane */
#if PXL_NX == 2
#define PXL_READ(a, row, v, N) \
PX_UNROLL \
  for (int m = 0; m < (N); m++) { \
    float2 p0 = ((__local const float2 *) (a)[0][row])[tx + m]; \
    float2 p1 = ((__local const float2 *) (a)[1][row])[tx + m]; \
    float2 p2 = ((__local const float2 *) (a)[2][row])[tx + m]; \
 \
    v[2 * m] = (float3) (p0.x, p1.x, p2.x); \
    v[2 * m + 1] = (float3) (p0.y, p1.y, p2.y); \
  }
#else
#define PXL_READ(a, row, v, N) \
PX_UNROLL \
  for (int m = 0; m < (N); m++) \
    v[m] = (float3) ((a)[0][row][tx + m], (a)[1][row][tx + m], \
        (a)[2][row][tx + m]);
#endif

/* the outputs @a[0 .. PXL_NX - 1] of pixels x0 .. of destination row
 * @drow, alpha or x bytes from source row @srow, in one PXL_NX-word load
 * and store */
#if PXL_NX == 2
#define PXL_STOREV(srow, drow, a) do { \
    uint2 s2 = ((__global const uint2 *) (srow))[x0 / 2]; \
 \
    ((__global uint2 *) (drow))[x0 / 2] = (uint2) \
        (px_pack4 (s2.x, alpha_pos, ashift, (a)[0], PARAM_ARGS), \
        px_pack4 (s2.y, alpha_pos, ashift, (a)[1], PARAM_ARGS)); \
  } while (0)
#else
#define PXL_STOREV(srow, drow, a) do { } while (0)
#endif

/* input row @rr of the tile, border-mapped (my) */
#define PXL_ROW_START(R) \
    int yy = gy0 - R + rr; \
    int my = yy >= 0 && yy < height ? yy : map_index (yy, height, border); \
    __global const uchar *row = sbase + max (my, 0) * sstride

/* float3 @v[0..3] into columns @c .. @c + 3 (@c a multiple of 4) of local
 * row @rr of the three planes @a: one 16-byte store per plane (@V4) or four
 * 4-byte stores, which the compiler pairs into 8-byte ones. The 2-D fill
 * takes the 16-byte stores, its work-items on consecutive 16-byte words
 * (H200, 4K RGBA motion blur 57.0 -> 52.7 us against main's four 4-way
 * conflicting 4-byte stores); the separable row pass the pairs unless
 * -D PXL_SEP16=1 (tuning, see docs/performance.md: with the old widening
 * 16-byte stores were 2 us slower at 4 pixels per step and 1 us faster
 * at 8) */
#ifndef PXL_SEP16
#define PXL_SEP16 0
#endif
#define PXL_PUT4(a, c, rr, v, V4) do { \
    if (V4) { \
      *(__local float4 *) &(a)[0][rr][c] = \
          (float4) ((v)[0].x, (v)[1].x, (v)[2].x, (v)[3].x); \
      *(__local float4 *) &(a)[1][rr][c] = \
          (float4) ((v)[0].y, (v)[1].y, (v)[2].y, (v)[3].y); \
      *(__local float4 *) &(a)[2][rr][c] = \
          (float4) ((v)[0].z, (v)[1].z, (v)[2].z, (v)[3].z); \
    } else { \
PX_UNROLL \
      for (int i_ = 0; i_ < 4; i_++) { \
        (a)[0][rr][(c) + i_] = (v)[i_].x; \
        (a)[1][rr][(c) + i_] = (v)[i_].y; \
        (a)[2][rr][(c) + i_] = (v)[i_].z; \
      } \
    } \
  } while (0)

/* the colour samples of a 32-bit pixel as float3, no border test: as
 * uchar conversions NVIDIA's compiler widens most bytes with one
 * byte-selecting I2F.U8 (the row pass's 14 pixels: 112 instructions where
 * sample_to_float's shift, mask, OR and subtract took 168; H200, 4K RGBA
 * gaussian 56.5 -> 52.1 us, motion blur 52.8 -> 51.8) */
#define PXL_RAW(p) ((float3) (convert_float (as_uchar4 (p).s0), \
    convert_float (as_uchar4 (p).s1), convert_float (as_uchar4 (p).s2)))

/* -D PXL_WID=1 on NVIDIA: the colour samples of pixel @p, alpha or x byte
 * where ashift says, as floats through their bits: a byte permute makes
 * 0x4b0000bb (2^23 + b) of byte b, a subtract leaves b (exact, the same
 * floats), no conversion and no shift (@psel = 0x7540 + the first colour
 * byte selects it): the row pass's 14 pixels in 84 instructions instead
 * of 114 (H200, 4K RGBA gaussian 49.2 -> 48.9 us with PXL_FIN=3, 52.1 ->
 * 50.6 without) */
#ifndef PXL_WID
#define PXL_WID 0
#endif
#if PXL_WID && defined (cl_nv_pragma_unroll)
inline float
pxl_byte (uint p, uint sel)
{
  uint r;

  asm ("prmt.b32 %0, %1, 0x4b000000, %2;" : "=r" (r) : "r" (p), "r" (sel));
  return as_float (r) - 8388608.0f;
}

#define PXL_RAWA(p) ((float3) (pxl_byte ((p), psel), \
    pxl_byte ((p), psel + 1), pxl_byte ((p), psel + 2)))
#else
#define PXL_RAWA(p) PXL_RAW ((p) >> ashift)
#endif

/* the row pass's pixels per step (8; 4 for tuning): 8 widen 8 + 2R input
 * pixels for 8 outputs instead of 4 + 2R for 4 (H200, 4K RGBA gaussian
 * 59.5 -> 55.4 us) */
#ifndef PXL_HU
#define PXL_HU 8
#endif

#define PXL_SEP_BODY(R) \
  __local float hl[3][PXL_TH + 2 * R][PXL_WX] __attribute__ ((aligned (16))); \
 \
  /* the row pass: PXL_HU pixels of one input row per step; a border row \
   * (my < 0) is the constant hb, whatever its pixels */ \
  for (int it = lid; it < (PXL_TH + 2 * R) * (PXL_WX / PXL_HU); \
      it += PXL_LX * PXL_WY) { \
    int rr = it / (PXL_WX / PXL_HU), q = PXL_HU * (it % (PXL_WX / PXL_HU)); \
    int x = gx0 + q; \
    PXL_ROW_START (R); \
    float3 v[PXL_HU + 2 * R], h[PXL_HU]; \
 \
    if (R <= 4 && a16 && x >= 4 && x + PXL_HU + 4 <= width) { \
      uint u[PXL_HU + 8];       /* pixels x - 4 .. x + PXL_HU + 3 */ \
 \
PX_UNROLL \
      for (int n = 0; n < PXL_HU / 4 + 2; n++) { \
        uint4 t = ((__global const uint4 *) row)[x / 4 - 1 + n]; \
 \
        u[4 * n] = t.s0; \
        u[4 * n + 1] = t.s1; \
        u[4 * n + 2] = t.s2; \
        u[4 * n + 3] = t.s3; \
      } \
PX_UNROLL \
      for (int k = 0; k < PXL_HU + 2 * R; k++) \
        v[k] = PXL_RAWA (u[4 - R + k]); \
    } else { \
PX_UNROLL \
      for (int k = 0; k < PXL_HU + 2 * R; k++) \
        v[k] = px_pixel4 (row, map_index (x - R + k, width, border), my, \
            ashift, fbval); \
    } \
PX_UNROLL \
    for (int i = 0; i < PXL_HU; i++) { \
      h[i] = 0; \
PX_UNROLL \
      for (int dx = 0; dx < K; dx++) \
        if (PX_TAP (0, dx, K)) \
          PX_FMA (h[i], coef.c[dx], v[i + dx]); \
      if (my < 0) \
        h[i] = (float3) hb; \
    } \
PX_UNROLL \
    for (int g = 0; g < PXL_HU; g += 4) \
      PXL_PUT4 (hl, q + g, rr, h + g, PXL_SEP16); \
  } \
  barrier (CLK_LOCAL_MEM_FENCE); \
  /* the column pass */ \
PX_UNROLL \
  for (int r = 0; r < PXL_ROWS + 2 * R; r++) { \
    float3 hv[PXL_NX]; \
 \
    PXL_READ (hl, j0 + r, hv, 1) \
PX_UNROLL \
    for (int j = 0; j < PXL_ROWS; j++) \
      if (r - j >= 0 && r - j < K && PX_TAP (1, r - j, K)) { \
PX_UNROLL \
        for (int i = 0; i < PXL_NX; i++) \
          PX_FMA (acc[j][i], coef.c[K + r - j], hv[i]); \
      } \
  }

/* the tile's input pixels, apron included: column c of a local row is
 * pixel gx0 - R + c, filled in groups of 4 columns stored with PXL_PUT4;
 * a group starts O = -R mod 4 words into a 16-byte unit, so away from the
 * edges it takes words O .. O + 3 of two units (one if O = 0) */
#define PXL_LW4(R) ((PXL_WX + 2 * (R) + 3) / 4 * 4)
#define PXL_O(R) ((4 - (R) % 4) % 4)
/* pixels xx .. xx + 3 of row my into @v, border-mapped */
#define PXL_FILL_EDGE(v) \
PX_UNROLL \
      for (int i = 0; i < 4; i++) { \
        int mx = xx + i >= 0 && xx + i < width ? xx + i : \
            map_index (xx + i, width, border); \
 \
        (v)[i] = px_pixel4 (row, mx, my, ashift, fbval); \
      }
/* group @g of local row @rr: whether its words lie whole in the frame's
 * 16-byte units (@ok), and those 4 words (@u, when @ok) */
#define PXL_FILL_LOAD(R, RR, G, ok, u) do { \
    int rr = (RR), x4 = gx0 - R + 4 * (G) - PXL_O (R); \
    PXL_ROW_START (R); \
 \
    ok = my >= 0 && a16 && x4 >= 0 && x4 + (PXL_O (R) ? 8 : 4) <= width; \
    if (ok) { \
      __global const uint4 *row4 = (__global const uint4 *) row; \
      uint4 t0 = row4[x4 / 4], t1 = PXL_O (R) ? row4[x4 / 4 + 1] : t0; \
      uint w_[8] = { t0.s0, t0.s1, t0.s2, t0.s3, t1.s0, t1.s1, t1.s2, \
        t1.s3 }; \
 \
PX_UNROLL \
      for (int i_ = 0; i_ < 4; i_++) \
        (u)[i_] = w_[PXL_O (R) + i_]; \
    } \
  } while (0)

/* the same group widened into @v and stored: from @u when @ok, else pixel
 * by pixel, border-mapped */
#define PXL_FILL_PUT(R, RR, G, ok, u) do { \
    int rr = (RR), g = (G), xx = gx0 - R + 4 * g; \
    float3 v[4]; \
 \
    if (ok) { \
PX_UNROLL \
      for (int i = 0; i < 4; i++) \
        v[i] = PXL_RAWA ((u)[i]); \
    } else { \
      PXL_ROW_START (R); \
 \
      PXL_FILL_EDGE (v) \
    } \
    PXL_PUT4 (pl, 4 * (g), rr, v, 1); \
  } while (0)

#define PXL_FILL_N(R) ((PXL_TH + 2 * (R)) * (PXL_LW4 (R) / 4))
#define PXL_FILL4(R) \
  for (int it = lid; it < PXL_FILL_N (R); it += PXL_LX * PXL_WY) { \
    int rr = it / (PXL_LW4 (R) / 4), g = it % (PXL_LW4 (R) / 4); \
    int xx = gx0 - R + 4 * g, x4 = xx - PXL_O (R); \
    PXL_ROW_START (R); \
    float3 v[4]; \
 \
    if (my >= 0 && a16 && x4 >= 0 && x4 + (PXL_O (R) ? 8 : 4) <= width) { \
      uint u[8]; \
      uint4 t = ((__global const uint4 *) row)[x4 / 4]; \
 \
      u[0] = t.s0; \
      u[1] = t.s1; \
      u[2] = t.s2; \
      u[3] = t.s3; \
      if (PXL_O (R)) { \
        t = ((__global const uint4 *) row)[x4 / 4 + 1]; \
        u[4] = t.s0; \
        u[5] = t.s1; \
        u[6] = t.s2; \
        u[7] = t.s3; \
      } \
PX_UNROLL \
      for (int i = 0; i < 4; i++) \
        v[i] = PXL_RAWA (u[PXL_O (R) + i]); \
    } else { \
      PXL_FILL_EDGE (v) \
    } \
    PXL_PUT4 (pl, 4 * g, rr, v, 1); \
  }

#ifndef PXL_FP
#define PXL_FP 0
#endif
/* -D PXL_FP=1: the fill's PXL_FN steps unrolled (a fixed count, no
 * break, so the words stay in registers), the loads of all of them issued
 * before any is widened: a work-item waits for one load latency, not one a
 * step (H200, 4K RGBA motion blur 50.0 -> 48.2 us at the same 56
 * registers; the integer 49-tap custom matrix 29.3 -> 31.4 us at 1080p,
 * so the host asks for it for float matrices only) */
#define PXL_FN(R) ((PXL_FILL_N (R) + PXL_LX * PXL_WY - 1) / \
    (PXL_LX * PXL_WY))
#define PXL_FILL4P(R) \
  uint fu[PXL_FN (R)][4]; \
  int fok[PXL_FN (R)]; \
 \
PX_UNROLL \
  for (int k = 0; k < PXL_FN (R); k++) { \
    int it = lid + k * PXL_LX * PXL_WY; \
 \
    fok[k] = 0; \
    if (it < PXL_FILL_N (R)) \
      PXL_FILL_LOAD (R, it / (PXL_LW4 (R) / 4), it % (PXL_LW4 (R) / 4), \
          fok[k], fu[k]); \
  } \
PX_UNROLL \
  for (int k = 0; k < PXL_FN (R); k++) { \
    int it = lid + k * PXL_LX * PXL_WY; \
 \
    if (it < PXL_FILL_N (R)) \
      PXL_FILL_PUT (R, it / (PXL_LW4 (R) / 4), it % (PXL_LW4 (R) / 4), \
          fok[k], fu[k]); \
  }

#define PXL_2D_BODY(R) \
  __local float pl[3][PXL_TH + 2 * R][PXL_LW4 (R)] \
      __attribute__ ((aligned (16))); \
 \
  /* the tile's input pixels, apron included, widened once */ \
  if (PXL_FP) { \
    PXL_FILL4P (R) \
  } else { \
    PXL_FILL4 (R) \
  } \
  barrier (CLK_LOCAL_MEM_FENCE); \
  /* each input row's taps into the outputs it touches */ \
PX_UNROLL \
  for (int r = 0; r < PXL_ROWS + 2 * R; r++) { \
    float3 v[PXL_NV (R) * PXL_NX]; \
 \
    PXL_READ (pl, j0 + r, v, PXL_NV (R)) \
PX_UNROLL \
    for (int j = 0; j < PXL_ROWS; j++) { \
      if (r - j >= 0 && r - j < K) { \
PX_UNROLL \
        for (int dx = 0; dx < K; dx++) \
          if (PX_TAP (r - j, dx, K)) { \
PX_UNROLL \
            for (int i = 0; i < PXL_NX; i++) \
              PX_FMA (acc[j][i], coef.c[(r - j) * K + dx], v[i + dx]); \
          } \
      } \
    } \
  }

#if PX_SEP
#define PXL_BODY PXL_SEP_BODY
#else
#define PXL_BODY PXL_2D_BODY
#endif

/* the work-item's outputs */
#define PXL_STORES \
PX_UNROLL \
  for (int j = 0; j < PXL_ROWS; j++) { \
    int y = gy0 + j0 + j; \
 \
    if (y >= height) \
      break; \
    if (vst) \
      PXL_STOREV (sbase + y * sstride, dst + doff + y * dstride, acc[j]); \
    else { \
PX_UNROLL \
      for (int i = 0; i < PXL_NX; i++) \
        if (x0 + i < width) \
          px_store4 (sbase + y * sstride, dst + doff + y * dstride, \
              x0 + i, alpha_pos, ashift, acc[j][i], PARAM_ARGS); \
    } \
  }

/* -D PXL_FIN=3: the stores written twice, `absolute' a constant in each
 * (one uniform branch instead of an |.| per sample; H200, 4K RGBA motion
 * blur 51.8 -> 50.5 us; not for integer separable sums: box 1080p 22.4 ->
 * 23.2) */
#if (PXL_FIN & 2) && !(INTEGER && PX_SEP)
#define PXL_STORES_ABS \
  if (absolute) { \
    const int absolute = 1; \
 \
    PXL_STORES \
  } else { \
    const int absolute = 0; \
 \
    PXL_STORES \
  }
#else
#define PXL_STORES_ABS PXL_STORES
#endif

/* (NVIDIA's compiler makes the required work-group size a launch bound,
 * under which -cl-nv-maxrregcount is ignored; without it, register limits
 * spilled and were slower: see docs/performance.md) */
#define CONV2D_PXL(R) \
__kernel __attribute__ ((reqd_work_group_size (PXL_LX, PXL_WY, 1))) void \
conv2d_pxl##R##_4 (__global const uchar * src, uint soff, int sstride, \
    __global uchar * dst, uint doff, int dstride, int width, int height, \
    int ch, int alpha_pos, int aligned8, px_coef_t coef, int bval, \
    int border, int border_row, PARAMS) \
{ \
  const int K = 2 * R + 1, LANES = 3; \
  int tx = get_local_id (0), ty = get_local_id (1), j0 = ty * PXL_ROWS; \
  int lid = ty * PXL_LX + tx; \
  int gx0 = get_group_id (0) * PXL_WX, gy0 = get_group_id (1) * PXL_TH; \
  int x0 = gx0 + PXL_NX * tx; \
  int ashift = alpha_pos == 0 ? 8 : 0; \
  uint psel = 0x7540 + (ashift >> 3); \
  int a16 = ((soff | (uint) sstride) & 15) == 0; \
  __global const uchar *sbase = src + soff; \
  float fbval = bval; \
  float hb = INTEGER ? (float) border_row : as_float (border_row); \
  float3 acc[PXL_ROWS][PXL_NX]; \
  /* a work-item's NX pixels in one NX-word load and store */ \
  int vst = PXL_NX > 1 && x0 + PXL_NX <= width && ((soff | doff | \
          (uint) sstride | (uint) dstride) & (4 * PXL_NX - 1)) == 0; \
 \
PX_UNROLL \
  for (int j = 0; j < PXL_ROWS; j++) \
PX_UNROLL \
    for (int i = 0; i < PXL_NX; i++) \
      acc[j][i] = 0; \
  PXL_BODY (R) \
  PXL_STORES_ABS \
}

/* 4-sample pixels are 8-bit only (RGBA and its orders) */
#if DEPTH16
#define CONV2D_PX_BOTH(R) CONV2D_PX (R, 1)
#else
#define CONV2D_PX_BOTH(R) CONV2D_PX (R, 1) CONV2D_PX (R, 4)
#endif

#if PX_ONLY
/* through a second macro, so that PX_R and PX_CH expand before ## */
#define CONV2D_PX_ONE(R, CH) CONV2D_PX (R, CH)
#if PX_LOCAL && PX_CH == 4 && !DEPTH16
#define CONV2D_PXL_ONE(R) CONV2D_PXL (R)
CONV2D_PXL_ONE (PX_R)
#else
CONV2D_PX_ONE (PX_R, PX_CH)
#endif
#else
#if PX_MAX_R >= 1
CONV2D_PX_BOTH (1)
#endif
#if PX_MAX_R >= 2
CONV2D_PX_BOTH (2)
#endif
#if PX_MAX_R >= 3
CONV2D_PX_BOTH (3)
#endif
#if PX_MAX_R >= 4
CONV2D_PX_BOTH (4)
#endif
#if PX_MAX_R >= 5
CONV2D_PX_BOTH (5)
#endif
#endif /* PX_ONLY */

#if !PX_ONLY
/* Separable pass 1: tmp[y][s] = sum_j row[j] * src[y][s + dx_j * ch] */
__kernel void
hpass_strips (__global const uchar * src, uint soff, int sstride,
    __global acc_t * tmp, int tpitch, int width, int height, int ch,
    __constant int4 * taps, int ntaps, int rx, int bval, int border)
{
  int sx = get_global_id (0) * STRIP, y = get_global_id (1);
  int rowlen = width * ch, rxs = rx * ch;
  __global const uchar *sbase = src + soff;
  __global const sample_t *srow;
  __global acc_t *trow;

  if (sx >= rowlen || y >= height)
    return;
  srow = ROW (sbase, sstride, y);
  trow = tmp + y * tpitch;

  if (sx >= rxs && sx + STRIP + rxs <= rowlen) {
    acc16_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;

    for (int t = 0; t < ntaps; t++) {
      acc_t c = COEF (taps[t]);
      __global const sample_t *p = srow + sx + taps[t].x * ch;

      a0 = ACC_MAD ((acc16_t) c, convert_acc16 (LOAD16 (0, p)), a0);
      a1 = ACC_MAD ((acc16_t) c, convert_acc16 (LOAD16 (1, p)), a1);
      a2 = ACC_MAD ((acc16_t) c, convert_acc16 (LOAD16 (2, p)), a2);
      a3 = ACC_MAD ((acc16_t) c, convert_acc16 (LOAD16 (3, p)), a3);
    }
    vstore16 (a0, 0, trow + sx);
    vstore16 (a1, 0, trow + sx + 16);
    vstore16 (a2, 0, trow + sx + 32);
    vstore16 (a3, 0, trow + sx + 48);
  } else {
    int end = min (sx + STRIP, rowlen);

    for (int s = sx; s < end; s++) {
      int x = s / ch, c = s - x * ch;
      acc_t acc = 0;

      for (int t = 0; t < ntaps; t++) {
        int mx = map_index (x + taps[t].x, width, border);
        acc = ACC_MAD (COEF (taps[t]), (acc_t) (mx < 0 ? bval :
                srow[mx * ch + c]), acc);
      }
      trow[s] = acc;
    }
  }
}

/* Separable pass 2: dst[y][s] = finish (sum_i col[i] * tmp[y + dy_i][s]);
 * rows outside the frame read @border_row (the row pass of a row of
 * border-value pixels) with the constant border. */
__kernel void
vpass_strips (__global const acc_t * tmp, int tpitch,
    __global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * taps, int ntaps, acc_t border_row,
    int border, PARAMS)
{
  int sx = get_global_id (0) * STRIP, y = get_global_id (1);
  int rowlen = width * ch;
  __global const sample_t *srow;
  __global sample_t *drow;

  if (sx >= rowlen || y >= height)
    return;
  srow = ROW (src + soff, sstride, y);
  drow = (__global sample_t *) (dst + doff + y * dstride);

  if (sx + STRIP <= rowlen) {
    acc16_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;

    for (int t = 0; t < ntaps; t++) {
      acc_t c = COEF (taps[t]);
      int yy = map_index (y + taps[t].y, height, border);
      __global const acc_t *p;

      if (yy < 0) {
        a0 = ACC_MAD ((acc16_t) c, (acc16_t) border_row, a0);
        a1 = ACC_MAD ((acc16_t) c, (acc16_t) border_row, a1);
        a2 = ACC_MAD ((acc16_t) c, (acc16_t) border_row, a2);
        a3 = ACC_MAD ((acc16_t) c, (acc16_t) border_row, a3);
        continue;
      }
      p = tmp + yy * tpitch + sx;
      a0 = ACC_MAD ((acc16_t) c, vload16 (0, p), a0);
      a1 = ACC_MAD ((acc16_t) c, vload16 (1, p), a1);
      a2 = ACC_MAD ((acc16_t) c, vload16 (2, p), a2);
      a3 = ACC_MAD ((acc16_t) c, vload16 (3, p), a3);
    }
    store16 (finish16 (a0, PARAM_ARGS), sx, alpha_pos, srow, drow);
    store16 (finish16 (a1, PARAM_ARGS), sx + 16, alpha_pos, srow, drow);
    store16 (finish16 (a2, PARAM_ARGS), sx + 32, alpha_pos, srow, drow);
    store16 (finish16 (a3, PARAM_ARGS), sx + 48, alpha_pos, srow, drow);
  } else {
    for (int s = sx; s < rowlen; s++) {
      acc_t acc = 0;

      for (int t = 0; t < ntaps; t++) {
        int yy = map_index (y + taps[t].y, height, border);
        acc = ACC_MAD (COEF (taps[t]), yy < 0 ? border_row :
            tmp[yy * tpitch + s], acc);
      }
      drow[s] = (s % ch) == alpha_pos ? srow[s] :
          (sample_t) finish (acc, PARAM_ARGS);
    }
  }
}

#endif /* !PX_ONLY */
#endif /* !CPU_ONLY */

#if !PX_ONLY
/* Separable matrices on CPU devices: both passes fused, no intermediate
 * buffer. A work-item owns STRIP samples x SEP_ROWS rows; it runs the row
 * pass on each input row once (into a ring of 32 rows, enough for a 31-row
 * column pass) and the column pass from the ring. SEP_ROWS: the host's
 * (gst/gstclconvolvepriv.h says why 128). */
#define SEP_ROWS 128
#define RING 32

/* Whether @taps are a box's (one coefficient on every sample of the
 * window, field @field (0: x, 1: y) running -r .. r): integer sums of
 * those slide instead of taking every tap, where the host builds that code
 * (-D BOX_SLIDE=1: the integer program of a stream that can use it) */
inline bool
box_taps (__constant int4 * taps, int n, int r, int field)
{
  bool box = INTEGER && BOX_SLIDE && n == 2 * r + 1;

  for (int t = 0; t < n && box; t++)
    box = COEF (taps[t]) == COEF (taps[0]) &&
        (field ? taps[t].y : taps[t].x) == t - r;
  return box;
}

/* A box's row sums over buf (window of n samples, @ch apart), times @c,
 * where a 16-lane step is whole pixels (16 % ch == 0) and cheaper than n
 * taps (box_row_slides): the first vector's window slides 16 samples a
 * step, 2 * 16 / ch samples in and out (1080p RGBA box 31x31: 13.6 ->
 * 6.8 ms with the column's slide; prefix sums along the row, for the other
 * layouts, were slower than the taps: RGB 10.8 -> 13.0 ms) */
#define box_row_slides(n, ch) (16 % (ch) == 0 && 2 * 16 / (ch) < (n))
#if INTEGER && BOX_SLIDE
inline void
box_row (const acc_t * buf, int n, int ch, acc_t c, acc16_t * h)
{
  int q = 16 / ch;
  acc16_t a = 0;

  for (int t = 0; t < n; t++)
    a += PLOAD16 (buf + t * ch);
  h[0] = c * a;
  for (int j = 1; j < 4; j++) {
    const acc_t *b = buf + 16 * (j - 1);

    for (int m = 0; m < q; m++)
      a += PLOAD16 (b + (n + m) * ch) - PLOAD16 (b + m * ch);
    h[j] = c * a;
  }
}
#endif

/* Row pass of input row @yy (or the border row) for samples [sx, sx+STRIP) */
inline void
row_pass (__global const uchar * sbase, int sstride, int yy, int sx,
    int rowlen, int width, int ch, int rx, __constant int4 * taps, int ntaps,
    int bval, int border, acc_t border_row, bool row_box, acc16_t * h)
{
  acc16_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  acc_t buf[BUF_LEN];

  if (yy < 0) {
    h[0] = h[1] = h[2] = h[3] = (acc16_t) border_row;
    return;
  }
  fill_row (sbase, sstride, yy, sx, rx * ch, rowlen, width, ch, bval, border,
      buf);
#if INTEGER && BOX_SLIDE
  if (row_box) {
    box_row (buf, ntaps, ch, COEF (taps[0]), h);
    return;
  }
#endif
  for (int t = 0; t < ntaps; t++) {
    acc_t c = COEF (taps[t]);
    const acc_t *q = buf + rx * ch + taps[t].x * ch;

    a0 += c * PLOAD16 (q);
    a1 += c * PLOAD16 (q + 16);
    a2 += c * PLOAD16 (q + 32);
    a3 += c * PLOAD16 (q + 48);
  }
  h[0] = a0;
  h[1] = a1;
  h[2] = a2;
  h[3] = a3;
}

__kernel void
sep_strips (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * row_taps, int nrow, int rx,
    __constant int4 * col_taps, int ncol, int ry, int bval, int border,
    acc_t border_row, PARAMS)
{
  int sx = get_global_id (0) * STRIP, y0 = get_global_id (1) * SEP_ROWS;
  int rowlen = width * ch, y1 = min (y0 + SEP_ROWS, height);
  __global const uchar *sbase = src + soff;
  acc16_t ring[RING][4];
  bool row_box = box_taps (row_taps, nrow, rx, 0) &&
      box_row_slides (nrow, ch);
#if INTEGER && BOX_SLIDE
  /* a box's column: its sum slides down the strip, two ring rows a step
   * instead of 2ry + 1 */
  acc_t c_box = COEF (col_taps[0]);
  bool col_box = box_taps (col_taps, ncol, ry, 1);
  acc16_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#endif

  if (sx >= rowlen || y0 >= height)
    return;
  /* ring row k holds input row y0 - ry + k */
  for (int k = 0; k < 2 * ry; k++)
    row_pass (sbase, sstride, map_index (y0 - ry + k, height, border), sx,
        rowlen, width, ch, rx, row_taps, nrow, bval, border, border_row,
        row_box, ring[k & (RING - 1)]);

  for (int y = y0; y < y1; y++) {
    int k = y - y0 + 2 * ry;
    acc16_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    __global const sample_t *srow = ROW (sbase, sstride, y);
    __global sample_t *drow = (__global sample_t *) (dst + doff + y * dstride);

    row_pass (sbase, sstride, map_index (y + ry, height, border), sx, rowlen,
        width, ch, rx, row_taps, nrow, bval, border, border_row, row_box,
        ring[k & (RING - 1)]);
#if INTEGER && BOX_SLIDE
    if (col_box) {
      /* ring rows k (input row y + ry) in, k - 2ry - 1 (y - ry - 1) out */
      int in = k & (RING - 1), out = (k - 2 * ry - 1) & (RING - 1);

      if (y == y0) {
        /* the first window: ring rows 0 .. 2ry */
        for (int t = 0; t < ncol; t++) {
          s0 += ring[t][0];
          s1 += ring[t][1];
          s2 += ring[t][2];
          s3 += ring[t][3];
        }
      } else {
        s0 += ring[in][0] - ring[out][0];
        s1 += ring[in][1] - ring[out][1];
        s2 += ring[in][2] - ring[out][2];
        s3 += ring[in][3] - ring[out][3];
      }
      a0 = c_box * s0;
      a1 = c_box * s1;
      a2 = c_box * s2;
      a3 = c_box * s3;
    } else
#endif
      for (int t = 0; t < ncol; t++) {
        acc_t c = COEF (col_taps[t]);
        int r = (y - y0 + ry + col_taps[t].y) & (RING - 1);

        a0 += c * ring[r][0];
        a1 += c * ring[r][1];
        a2 += c * ring[r][2];
        a3 += c * ring[r][3];
      }
    if (sx + STRIP <= rowlen) {
      store16 (finish16 (a0, PARAM_ARGS), sx, alpha_pos, srow, drow);
      store16 (finish16 (a1, PARAM_ARGS), sx + 16, alpha_pos, srow, drow);
      store16 (finish16 (a2, PARAM_ARGS), sx + 32, alpha_pos, srow, drow);
      store16 (finish16 (a3, PARAM_ARGS), sx + 48, alpha_pos, srow, drow);
    } else {
      store_tail (a0, a1, a2, a3, sx, rowlen - sx, ch, alpha_pos, srow, drow,
          PARAM_ARGS);
    }
  }
}

/* Fixed point. CPU devices, 8-bit samples, float matrices of non-negative
 * coefficients (the element decides: gst_cl_convolve_kernel_derive): the
 * samples as Q8 (x << 8) in 16-bit lanes, each tap's coefficient divided
 * by the divisor as Q16 in the tap's .w, and each product the high half of
 * a 16x16-bit multiply: 32 samples per AVX-512 operation and no float
 * conversion (docs/performance.md has the figures). Every truncation
 * loses less than one Q8 unit; accumulators start at n/2 units (n taps) to
 * centre them, so a pass is off by at most (n + 1) / 2 units (1/512 of a
 * sample value each) plus the coefficients' rounding (255 / 2^17 per tap):
 * under 1/256 per tap in all (docs/clconvolve.md, "Arithmetic"); the
 * separable kernel's mirrored pairs (mirrored_pairs) keep that bound. */
#if CPU_ONLY && FIXED && !DEPTH16

/* OpenCL C stops at 16 lanes: 32-lane vectors are clang's extension, so
 * that one operation fills an AVX-512 register (built-ins such as mul_hi
 * and select do not take them: plain operators do the work) */
typedef ushort fix32_t __attribute__ ((ext_vector_type (32)));
typedef uint fix32w_t __attribute__ ((ext_vector_type (32)));
typedef uchar u8x32_t __attribute__ ((ext_vector_type (32)));
typedef u8x32_t __attribute__ ((aligned (1))) uu8x32_t;
typedef fix32_t __attribute__ ((aligned (2))) ufix32_t;
#define FLOAD(p) (*(const ufix32_t *) (p))
#define FSTORE(v, p) (*(ufix32_t *) (p) = (v))
#define LOAD32(p) (*(__global const uu8x32_t *) (p))
#define STORE32(v, p) (*(__global uu8x32_t *) (p) = (v))
/* Q8 samples (x << 8) */
#define TO_Q8(v) (__builtin_convertvector ((v), fix32_t) << 8)

/* sep_fixed's work-items walk down a column of 64-sample strips, one image
 * row (another page) at a time, which the hardware prefetchers do not
 * follow: the row PREFETCH_ROWS below is requested ahead, 3 cache lines
 * from the strip's left apron (1080p RGBA gaussian 7x7: 8.3-8.9 ms CPU per
 * frame against 9.8-11.6 without; conv2d_fixed's work-groups run 8 strips
 * of a row in turn instead, which the prefetchers follow). On PoCL's CPU devices pointers are flat (the
 * built-in prefetch() does nothing there), hence the integer cast. */
#define PREFETCH_ROWS 4
inline void
prefetch_row (__global const uchar * sbase, int sstride, int yy, int height,
    int start)
{
  if (yy < height) {
    size_t a = (size_t) (ROW (sbase, sstride, yy) + max (start, 0));

    __builtin_prefetch ((const void *) a);
    __builtin_prefetch ((const void *) (a + 64));
    __builtin_prefetch ((const void *) (a + 128));
  }
}

/* The same for output row @y (below @y1) of @n samples from @sx, with
 * intent to write (prefetchw): a store that misses holds up the stores
 * behind it until the line's owner hands it over, and sep_fixed's stores
 * go to a new page every row (1080p RGBA gaussian 7x7: about an eighth
 * less CPU time, docs/performance.md) */
inline void
prefetch_out_row (__global uchar * dbase, int dstride, int y, int y1, int sx,
    int n)
{
  if (y < y1) {
    size_t a = (size_t) (dbase + y * dstride + sx);

    for (int i = 0; i < n; i += 64)
      __builtin_prefetch ((const void *) (a + i), 1, 3);
    __builtin_prefetch ((const void *) (a + n - 1), 1, 3);
  }
}

/* the high half of @a * @c (LLVM makes it one vpmulhuw) */
inline fix32_t
mul_hi32 (fix32_t a, fix32_t c)
{
  return __builtin_convertvector ((__builtin_convertvector (a, fix32w_t) *
          __builtin_convertvector (c, fix32w_t)) >> 16, fix32_t);
}

/* (@a + @b + 1) >> 1 in each lane, without overflow. Written as the
 * widening expression, LLVM folds it into mul_hi32's widening and leaves
 * 32-bit lanes behind (3x slower), hence the x86 built-ins: one vpavgw per
 * register. */
#if defined (__AVX512BW__)
typedef short avg_hi_t __attribute__ ((vector_size (64)));
#elif defined (__AVX2__)
typedef short avg_hi_t __attribute__ ((vector_size (32)));
typedef ushort fix16_t __attribute__ ((ext_vector_type (16)));
#define HALF_LO 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
#define HALF_HI 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
#define AVG16(a, b) __builtin_astype (__builtin_ia32_pavgw256 ( \
        __builtin_astype ((a), avg_hi_t), __builtin_astype ((b), avg_hi_t)), \
    fix16_t)
#endif
/* mul_hi32 as the x86 built-in, for products whose factors come from
 * 16-bit arithmetic: LLVM would otherwise widen that arithmetic to 32-bit
 * lanes as well, as with avg32 (exact sums' division: 1080p GRAY8 box
 * 3x3 0.53 ms, 0.31 with the built-in) */
#if defined (__AVX512BW__)
#define MULHI16(a, b) __builtin_astype (__builtin_ia32_pmulhuw512 ( \
        __builtin_astype ((a), avg_hi_t), __builtin_astype ((b), avg_hi_t)), \
    fix32_t)
#elif defined (__AVX2__)
#define MULHI16_HALF(a, b) __builtin_astype (__builtin_ia32_pmulhuw256 ( \
        __builtin_astype ((a), avg_hi_t), __builtin_astype ((b), avg_hi_t)), \
    fix16_t)
#define MULHI16(a, b) __builtin_shufflevector ( \
    MULHI16_HALF (__builtin_shufflevector ((a), (a), HALF_LO), \
        __builtin_shufflevector ((b), (b), HALF_LO)), \
    MULHI16_HALF (__builtin_shufflevector ((a), (a), HALF_HI), \
        __builtin_shufflevector ((b), (b), HALF_HI)), HALF_LO, HALF_HI)
#else
#define MULHI16(a, b) mul_hi32 ((a), (b))
#endif

inline fix32_t
avg32 (fix32_t a, fix32_t b)
{
#if defined (__AVX512BW__)
  return __builtin_astype (__builtin_ia32_pavgw512 (__builtin_astype (a,
              avg_hi_t), __builtin_astype (b, avg_hi_t)), fix32_t);
#elif defined (__AVX2__)
  fix16_t lo = AVG16 (__builtin_shufflevector (a, a, HALF_LO),
      __builtin_shufflevector (b, b, HALF_LO));
  fix16_t hi = AVG16 (__builtin_shufflevector (a, a, HALF_HI),
      __builtin_shufflevector (b, b, HALF_HI));

  return __builtin_shufflevector (lo, hi, HALF_LO, HALF_HI);
#else
  return __builtin_convertvector ((__builtin_convertvector (a, fix32w_t) +
          __builtin_convertvector (b, fix32w_t) + 1) >> 1, fix32_t);
#endif
}

/* Exact sums (the integer program, -D INTEGER=1): integer matrices of
 * non-negative coefficients whose sums of 8-bit samples fit 16 bits (box
 * blurs up to 15x15, binomial ones), separable (sep_fixed; the element
 * decides: gst_cl_convolve_kernel_derive's exact16). The same loads and
 * lanes as fixed point: a row tap's .w holds c << 8, so the high half of
 * (x << 8) * (c << 8) is x * c exactly (a mirrored pair's exact average
 * (x + x') << 7 times 2c << 8 likewise); the row sums are then plain
 * integers, so the column pass multiplies them by c (.w = c) in the low
 * half and adds a pair's two rows instead of averaging them. Nothing is
 * truncated, so no sum starts at a rounding offset, and the result is
 * (sum + d / 2) / d exactly (fix_div: d = the divisor): bit-exact as the
 * integer path's other kernels. */
#define EXACT INTEGER
/* a pass of @n products starts at this many units: half the products'
 * truncations in fixed point, none in exact sums */
#define FIX_START(n) ((fix32_t) ((ushort) (EXACT ? 0 : (n) / 2)))

/* the column pass's product of row sums @h and coefficient @c */
inline fix32_t
col_mul (fix32_t h, fix32_t c)
{
#if EXACT
  return h * c;
#else
  return mul_hi32 (h, c);
#endif
}

/* a mirrored column pair's two rows of sums, for one product */
inline fix32_t
col_pair (fix32_t a, fix32_t b)
{
#if EXACT
  return a + b;
#else
  return avg32 (a, b);
#endif
}

/* Dividing exact sums by d (3 to 1024), rounded half up: n = sum + x,
 * then (t + ((n - t) >> 1)) >> (l - 1) with t the high half of n * y and
 * l = ceil (log2 d): Granlund and Montgomery's division by an invariant
 * (Figure 4.1 of their 1994 paper), exact for every n < 2^16
 * (tests/check/elements/clconvolve.c checks every n for every d the
 * element allows). The last shift, whose count is not a constant, is a
 * multiply by z = 2^(16 - (l - 1)) keeping the high half, as MULHI16 (see
 * there). Unused by fixed point. */
typedef uint4 fix_div_t;

inline fix_div_t
fix_div_new (int divisor)
{
#if EXACT
  uint d = clamp (divisor, 3, 1024), l = 32 - clz (d - 1);

  return (fix_div_t) (d / 2, (((1u << l) - d) << 16) / d + 1,
      1u << (17 - l), 0);
#else
  return (fix_div_t) 0;
#endif
}

/* 32 sums (Q8 in fixed point, integers in exact sums) to samples, rounded
 * half up, not yet clamped to 255 */
inline fix32_t
fix_round (fix32_t a, fix_div_t dq)
{
#if EXACT
  fix32_t n = a + (fix32_t) ((ushort) dq.x);
  fix32_t t = MULHI16 (n, (fix32_t) ((ushort) dq.y));

  return MULHI16 (t + ((n - t) >> 1), (fix32_t) ((ushort) dq.z));
#else
  return (a >> 8) + ((a >> 7) & (fix32_t) 1);
#endif
}

/* The source samples of those of span [sx - rxs, sx + STRIP + rxs) that
 * lie outside the row (-1: the border value) into @cmap, where
 * fill_row_fixed reads them: mapped once per work-item, not once per row */
inline void
edge_columns_fixed (int sx, int rxs, int rowlen, int width, int ch,
    int border, int *cmap)
{
  int n = STRIP + 2 * rxs;
  int lo = clamp (rxs - sx, 0, n), hi = clamp (rowlen - sx + rxs, lo, n);

  for (int i = lo == 0 ? hi : 0; i < n; i = i + 1 == lo ? hi : i + 1) {
    int s = sx - rxs + i;
    int px = s >= 0 ? s / ch : -((-s + ch - 1) / ch);
    int mx = map_index (px, width, border);

    cmap[i] = mx < 0 ? -1 : mx * ch + s - px * ch;
  }
}

/* fill_row as Q8 samples. The interior copy is 32 samples at a time, the
 * last chunk overlapping the one before (the span is at least 64 long);
 * samples outside the row come through @cmap (edge_columns_fixed). */
inline void
fill_row_fixed (__global const uchar * sbase, int sstride, int yy, int sx,
    int rxs, int rowlen, const int *cmap, int bval, ushort * buf)
{
  int n = STRIP + 2 * rxs;

  if (yy >= 0 && sx >= rxs && sx + STRIP + rxs <= rowlen) {
    __global const uchar *p = ROW (sbase, sstride, yy) + sx - rxs;
    int i = 0;

    for (; i + 32 <= n; i += 32)
      FSTORE (TO_Q8 (LOAD32 (p + i)), buf + i);
    if (i < n)
      FSTORE (TO_Q8 (LOAD32 (p + n - 32)), buf + n - 32);
  } else {
    /* an edge strip: the samples inside the row [lo, hi) copied as above,
     * those outside it through the column map */
    __global const uchar *p = yy < 0 ? 0 : ROW (sbase, sstride, yy) + sx - rxs;
    int lo = yy < 0 ? n : clamp (rxs - sx, 0, n);
    int hi = yy < 0 ? n : clamp (rowlen - sx + rxs, lo, n);
    int i = lo;

    if (hi - lo >= 32) {
      for (; i + 32 <= hi; i += 32)
        FSTORE (TO_Q8 (LOAD32 (p + i)), buf + i);
      if (i < hi)
        FSTORE (TO_Q8 (LOAD32 (p + hi - 32)), buf + hi - 32);
    } else {
      for (; i < hi; i++)
        buf[i] = p[i] << 8;
    }
    for (i = lo == 0 ? hi : 0; i < n; i = i + 1 == lo ? hi : i + 1)
      buf[i] = ((yy < 0 || cmap[i] < 0) ? bval : p[rxs - sx + cmap[i]]) << 8;
  }
}

/* Rounds 32 Q8 sums to samples (half up) and stores the first @n of them
 * at sample @s, keeping channel @alpha_pos */
inline void
store_fixed (fix32_t acc, int s, int n, int alpha_pos,
    __global const uchar * srow, __global uchar * drow, fix_div_t dq)
{
  const fix32_t top = 255;
  fix32_t r = fix_round (acc, dq);
  u8x32_t v = __builtin_convertvector (r > top ? top : r, u8x32_t);

  if (alpha_pos >= 0) {
    /* s is a multiple of 32, so lane i holds channel i % 4 */
    const u8x32_t lane = (u8x32_t) (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1,
        2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    u8x32_t orig = 0;

    if (n >= 32)
      orig = LOAD32 (srow + s);
    else
      for (int i = 0; i < n; i++)
        orig[i] = srow[s + i];
    v = lane == (uchar) alpha_pos ? orig : v;
  }
  if (n >= 32) {
    STORE32 (v, drow + s);
  } else {
    for (int i = 0; i < n; i++)
      drow[s + i] = v[i];
  }
}

typedef uchar u8x64_t __attribute__ ((ext_vector_type (64)));
typedef u8x64_t __attribute__ ((aligned (1))) uu8x64_t;
#define LOAD64(p) (*(__global const uu8x64_t *) (p))
#define STORE64(v, p) (*(__global uu8x64_t *) (p) = (v))
/* 64 samples as Q8 in two halves: one 64-byte load, each byte put straight
 * into the high byte of a 16-bit lane beside a zero byte (index 64 + ...:
 * the second operand), which LLVM makes one vpunpcklbw / vpunpckhbw each
 * instead of a widening load and a shift per 32 samples. Those work within
 * 16-byte lanes, so the low half holds samples 0-7, 16-23, 32-39, 48-55
 * and the high half the others; every lane is summed on its own, and
 * store_fixed64 puts them back in order (one vpackuswb). */
#define UNPACK_LO(L) 64 + 16 * L, 16 * L + 0, 64 + 16 * L, 16 * L + 1, \
    64 + 16 * L, 16 * L + 2, 64 + 16 * L, 16 * L + 3, 64 + 16 * L, 16 * L + 4, \
    64 + 16 * L, 16 * L + 5, 64 + 16 * L, 16 * L + 6, 64 + 16 * L, 16 * L + 7
#define UNPACK_HI(L) 64 + 16 * L, 16 * L + 8, 64 + 16 * L, 16 * L + 9, \
    64 + 16 * L, 16 * L + 10, 64 + 16 * L, 16 * L + 11, 64 + 16 * L, \
    16 * L + 12, 64 + 16 * L, 16 * L + 13, 64 + 16 * L, 16 * L + 14, \
    64 + 16 * L, 16 * L + 15
#define Q8_LO(v) __builtin_astype (__builtin_shufflevector ((v), (u8x64_t) 0, \
        UNPACK_LO (0), UNPACK_LO (1), UNPACK_LO (2), UNPACK_LO (3)), fix32_t)
#define Q8_HI(v) __builtin_astype (__builtin_shufflevector ((v), (u8x64_t) 0, \
        UNPACK_HI (0), UNPACK_HI (1), UNPACK_HI (2), UNPACK_HI (3)), fix32_t)
#define PACK_L(L) 16 * L, 16 * L + 2, 16 * L + 4, 16 * L + 6, 16 * L + 8, \
    16 * L + 10, 16 * L + 12, 16 * L + 14, 64 + 16 * L, 64 + 16 * L + 2, \
    64 + 16 * L + 4, 64 + 16 * L + 6, 64 + 16 * L + 8, 64 + 16 * L + 10, \
    64 + 16 * L + 12, 64 + 16 * L + 14

/* The 64 Q8 sums of Q8_LO / Q8_HI halves rounded (half up) to samples,
 * back in order */
inline u8x64_t
round_fixed64 (fix32_t lo, fix32_t hi, fix_div_t dq)
{
  const fix32_t top = 255;
  fix32_t rl = fix_round (lo, dq);
  fix32_t rh = fix_round (hi, dq);

  rl = rl > top ? top : rl;
  rh = rh > top ? top : rh;
  return __builtin_shufflevector (__builtin_astype (rl, u8x64_t),
      __builtin_astype (rh, u8x64_t), PACK_L (0),
      PACK_L (1), PACK_L (2), PACK_L (3));
}

/* Rounds the 64 Q8 sums of Q8_LO / Q8_HI halves and stores them at sample
 * @s of row @y, keeping channel @alpha_pos */
inline void
store_fixed64 (fix32_t lo, fix32_t hi, int s, int alpha_pos,
    __global const uchar * sbase, int sstride, __global uchar * dbase,
    int dstride, int y, fix_div_t dq)
{
  u8x64_t v = round_fixed64 (lo, hi, dq);

  if (alpha_pos >= 0) {
    u8x64_t lane = (u8x64_t) (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
        0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
        0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    v = lane == (uchar) alpha_pos ? LOAD64 (ROW (sbase, sstride, y) + s) : v;
  }
  STORE64 (v, dbase + y * dstride + s);
}

/* conv2d_fixed's output rows per work-item: a tap's decoding, row choice
 * and border test are paid once for FIX2D_ROWS rows, and rows that several
 * outputs read are filled once on the edge path */
#define FIX2D_ROWS 8            /* as in gstclconvolvepriv.h */
/* rows an edge work-item fills: its own plus the matrix's (up to 31) */
#define FIX2D_BUF_ROWS (FIX2D_ROWS + 30)

/* An edge work-item (its strip or rows touch the frame's border, or an
 * empty matrix): each input row its outputs read is filled once, bordered,
 * into a Q8 copy; taps come in row order */
inline void
conv2d_fixed_edge (__global const uchar * sbase, int sstride, int y0,
    int nrows, int sx, int rowlen, int width, int height, int ch,
    int alpha_pos, __constant int4 * taps, int ntaps, int rxs, int bval,
    int border, __global uchar * dbase, int dstride, fix_div_t dq)
{
  ushort buf[FIX2D_BUF_ROWS][STRIP + 2 * MAX_APRON];
  int cmap[STRIP + 2 * MAX_APRON];
  fix32_t init = FIX_START (ntaps);
  int dy0 = ntaps ? taps[0].y : 0, nfill = ntaps ? nrows + taps[ntaps -
      1].y - dy0 : 0;

  edge_columns_fixed (sx, rxs, rowlen, width, ch, border, cmap);
  for (int k = 0; k < nfill; k++)
    fill_row_fixed (sbase, sstride, map_index (y0 + dy0 + k, height, border),
        sx, rxs, rowlen, cmap, bval, buf[k]);
  for (int r = 0; r < nrows; r++) {
    fix32_t a0 = init, a1 = init;
    __global const uchar *srow = ROW (sbase, sstride, y0 + r);
    __global uchar *drow = dbase + (y0 + r) * dstride;

    for (int t = 0; t < ntaps; t++) {
      int4 tp = taps[t];
      fix32_t c = (fix32_t) ((ushort) tp.w);
      const ushort *q = buf[r + tp.y - dy0] + rxs + tp.x * ch;

      a0 += mul_hi32 (FLOAD (q), c);
      a1 += mul_hi32 (FLOAD (q + 32), c);
    }
    store_fixed (a0, sx, rowlen - sx, alpha_pos, srow, drow, dq);
    if (rowlen - sx > 32)
      store_fixed (a1, sx + 32, rowlen - sx - 32, alpha_pos, srow, drow, dq);
  }
}

/* one output row's 64 samples from a tap's row @p (Q8_LO / Q8_HI halves) */
#define FIX2D_TAP(r) do {                                                  \
    u8x64_t v_ = LOAD64 (p + (r) * sstride);                               \
    a##r##0 += mul_hi32 (Q8_LO (v_), c);                                    \
    a##r##1 += mul_hi32 (Q8_HI (v_), c);                                    \
  } while (0)
#define FIX2D_STORE(r) store_fixed64 (a##r##0, a##r##1, sx, alpha_pos, sbase, \
    sstride, dbase, dstride, y0 + (r), dq)

/* The 2-D kernel (conv2d_strips' arguments and layout); work-item (i, j)
 * makes rows FIX2D_ROWS * j ... of strip i. Taps come in row order. */
__kernel void
conv2d_fixed (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * taps, int ntaps, int rx,
    int bval, int border, int direct, PARAMS)
{
  int sx = get_global_id (0) * STRIP, y0 = get_global_id (1) * FIX2D_ROWS;
  int rowlen = width * ch, rxs = rx * ch;
  __global const uchar *sbase = src + soff;
  __global uchar *dbase = dst + doff;
  fix32_t init = FIX_START (ntaps);
  fix_div_t dq = fix_div_new (idiv);
  fix32_t a00, a01, a10, a11, a20, a21, a30, a31;
  fix32_t a40, a41, a50, a51, a60, a61, a70, a71;

  if (sx >= rowlen || y0 >= height)
    return;
  if (ntaps == 0 || sx < rxs || sx + STRIP + rxs > rowlen ||
      y0 + taps[0].y < 0 || y0 + FIX2D_ROWS - 1 + taps[ntaps - 1].y >=
      height) {
    conv2d_fixed_edge (sbase, sstride, y0, min (FIX2D_ROWS, height - y0), sx,
        rowlen, width, height, ch, alpha_pos, taps, ntaps, rxs, bval, border,
        dbase, dstride, dq);
    return;
  }

  /* every tap of every row reads the frame: no border, no copy (a Q8 copy
   * in private memory would be read back before its stores retire) */
  a00 = a01 = a10 = a11 = a20 = a21 = a30 = a31 = init;
  a40 = a41 = a50 = a51 = a60 = a61 = a70 = a71 = init;
  for (int t = 0; t < ntaps; t++) {
    int4 tp = taps[t];
    fix32_t c = (fix32_t) ((ushort) tp.w);
    __global const uchar *p = ROW (sbase, sstride, y0 + tp.y) + sx +
        tp.x * ch;

    FIX2D_TAP (0);
    FIX2D_TAP (1);
    FIX2D_TAP (2);
    FIX2D_TAP (3);
    FIX2D_TAP (4);
    FIX2D_TAP (5);
    FIX2D_TAP (6);
    FIX2D_TAP (7);
  }
  /* the vertical test above keeps all FIX2D_ROWS rows inside the frame */
  FIX2D_STORE (0);
  FIX2D_STORE (1);
  FIX2D_STORE (2);
  FIX2D_STORE (3);
  FIX2D_STORE (4);
  FIX2D_STORE (5);
  FIX2D_STORE (6);
  FIX2D_STORE (7);
}

/* sep_fixed's row pass reads a tap's 64 samples as one 64-byte load,
 * unpacked like conv2d_fixed's (Q8_LO / Q8_HI lane order); an edge row,
 * filled in sample order, is put in that order by one two-source shuffle
 * of 128-bit lanes per half (vshufi64x2), so that both paths leave the
 * same lanes */
#define ORDER_HALF(h, L) 16 * L + 8 * h, 16 * L + 8 * h + 1, \
    16 * L + 8 * h + 2, 16 * L + 8 * h + 3, 16 * L + 8 * h + 4, \
    16 * L + 8 * h + 5, 16 * L + 8 * h + 6, 16 * L + 8 * h + 7
#define ORDER_LO(a, b) __builtin_shufflevector ((a), (b), ORDER_HALF (0, 0), \
    ORDER_HALF (0, 1), ORDER_HALF (0, 2), ORDER_HALF (0, 3))
#define ORDER_HI(a, b) __builtin_shufflevector ((a), (b), ORDER_HALF (1, 0), \
    ORDER_HALF (1, 1), ORDER_HALF (1, 2), ORDER_HALF (1, 3))
/* taps of one pass at most (matrices up to 31x31) */
#define SEP_MAX_TAPS 31

/* Mirrored taps. A symmetric matrix (gaussian, box) has its taps in
 * pairs t, n - 1 - t of opposite offsets and equal coefficients c, whose
 * two products become one: the pair's Q8 samples averaged exactly (x + x')
 * << 7 (vpavgw of x << 8 and x' << 8, no carry lost) times 2c. Fewer
 * multiplies, one truncation per pair instead of two, the same bound; the
 * column pass averages Q8 sums, whose rounding (at most half a unit times
 * 2c / 2^16) keeps a pass within (n + 1) / 2 units too (docs/clconvolve.md,
 * "Arithmetic"). Returns the number of pairs, 0 where any pair is not
 * mirrored or 2c does not fit 16 bits (two taps of 1/2). @field: 0 row
 * taps (dx), 1 column taps (dy). */
inline int
mirrored_pairs (__constant int4 * taps, int n, int field)
{
  for (int t = 0; t < n / 2; t++) {
    int4 a = taps[t], b = taps[n - 1 - t];

    if ((field ? a.y + b.y : a.x + b.x) != 0 || a.w != b.w ||
        2 * a.w > 0xffff)
      return 0;
  }
  if ((n & 1) && (field ? taps[n / 2].y : taps[n / 2].x) != 0)
    return 0;
  return n / 2;
}

/* One pass's taps for the loops: @coef[t] the Q16 coefficient, doubled
 * for the first (returned) mirrored_pairs, @pos[t] = @base + offset *
 * @scale (@field 0: dx, row taps; 1: dy, column taps) */
inline int
pass_taps (__constant int4 * taps, int n, int field, int scale, int base,
    ushort * coef, int *pos)
{
  int np = mirrored_pairs (taps, n, field);

  for (int t = 0; t < n; t++) {
    /* exact sums add a column pair's rows instead of averaging them */
    coef[t] = (ushort) (taps[t].w << (t < np && !(EXACT && field)));
    pos[t] = base + (field ? taps[t].y : taps[t].x) * scale;
  }
  return np;
}

/* Row pass of input row @yy (-1: the border row): 64 samples as Q8 sums
 * in Q8_LO / Q8_HI lane order into @h. @coef and @off: each tap's Q16
 * coefficient (doubled for the first @np, mirrored_pairs) and offset in
 * samples; @cmap: the strip's edge_columns_fixed. A coefficient is
 * broadcast where it is used, not kept as a vector: one load per tap, not
 * two (the loads are what bounds this kernel on AVX2: 1080p RGBA gaussian
 * 7x7, mirrored pairs and broadcasts, 12% less time). Inlined by force: the
 * two loops made LLVM call it (8% slower). */
__attribute__ ((always_inline)) inline void
row_pass_fixed (__global const uchar * sbase, int sstride, int yy, int sx,
    int rowlen, int rxs, const ushort * coef, const int *off, int ntaps,
    int np, const int *cmap, int bval, fix32_t * h)
{
  fix32_t lo, hi;

  /* centred on the products' truncations (see "Fixed point") */
  lo = hi = FIX_START (ntaps - np);
  if (yy >= 0 && sx >= rxs && sx + STRIP + rxs <= rowlen) {
    /* reads the frame (see conv2d_fixed) */
    __global const uchar *row = ROW (sbase, sstride, yy) + sx;

    for (int t = 0; t < np; t++) {
      u8x64_t v = LOAD64 (row + off[t]);
      u8x64_t w = LOAD64 (row + off[ntaps - 1 - t]);

      lo += mul_hi32 (avg32 (Q8_LO (v), Q8_LO (w)), (fix32_t) coef[t]);
      hi += mul_hi32 (avg32 (Q8_HI (v), Q8_HI (w)), (fix32_t) coef[t]);
    }
    for (int t = np; t < ntaps - np; t++) {
      u8x64_t v = LOAD64 (row + off[t]);

      lo += mul_hi32 (Q8_LO (v), (fix32_t) coef[t]);
      hi += mul_hi32 (Q8_HI (v), (fix32_t) coef[t]);
    }
  } else {
    ushort buf[STRIP + 2 * MAX_APRON];

    fill_row_fixed (sbase, sstride, yy, sx, rxs, rowlen, cmap, bval, buf);
    for (int t = 0; t < ntaps - np; t++) {
      const ushort *q = buf + rxs + off[t];
      fix32_t a = FLOAD (q), b = FLOAD (q + 32);

      if (t < np) {
        const ushort *m = buf + rxs + off[ntaps - 1 - t];

        a = avg32 (a, FLOAD (m));
        b = avg32 (b, FLOAD (m + 32));
      }
      lo += mul_hi32 (ORDER_LO (a, b), (fix32_t) coef[t]);
      hi += mul_hi32 (ORDER_HI (a, b), (fix32_t) coef[t]);
    }
  }
  h[0] = lo;
  h[1] = hi;
}

/* store_fixed64 of the first @n (< 64) samples at sample @s (a multiple of
 * 64, so that sample s + i holds channel i % 4) */
inline void
store_fixed64_tail (fix32_t lo, fix32_t hi, int s, int n, int alpha_pos,
    __global const uchar * srow, __global uchar * drow, fix_div_t dq)
{
  u8x64_t v = round_fixed64 (lo, hi, dq);

  for (int i = 0; i < n; i++)
    drow[s + i] = (i & 3) == alpha_pos ? srow[s + i] : v[i];
}

/* One work-item of the separable kernel: STRIP samples from sample @sx,
 * rows [y0, y0 + SEP_ROWS). The taps' coefficients are broadcast once per
 * work-item, not once per row: a tap of either pass then multiplies by a
 * vector in memory and leaves the shuffle port to the unpacks. Not
 * inlined: the colour path's edge strips call it too. */
__attribute__ ((noinline)) void
sep_fixed_strip (__global const uchar * sbase, int sstride,
    __global uchar * dbase, int dstride, int width, int height, int ch,
    int alpha_pos, __constant int4 * row_taps, int nrow, int rx,
    __constant int4 * col_taps, int ncol, int ry, int bval, int border,
    int sx, int y0, fix_div_t dq)
{
  int rowlen = width * ch, y1 = min (y0 + SEP_ROWS, height), rxs = rx * ch;
  fix32_t ring[RING][2];
  ushort rcoef[SEP_MAX_TAPS], ccoef[SEP_MAX_TAPS];
  int roff[SEP_MAX_TAPS], cring[SEP_MAX_TAPS];
  int cmap[STRIP + 2 * MAX_APRON];
  int rp = pass_taps (row_taps, nrow, 0, ch, 0, rcoef, roff);
  /* the ring row of tap t for output row y: (y - y0 + cring[t]) % RING */
  int cp = pass_taps (col_taps, ncol, 1, 1, ry, ccoef, cring);
  fix32_t init = FIX_START (ncol - cp);

  if (sx >= rowlen || y0 >= height)
    return;
  edge_columns_fixed (sx, rxs, rowlen, width, ch, border, cmap);
  /* ring row k holds input row y0 - ry + k */
  for (int k = 0; k < 2 * ry; k++)
    row_pass_fixed (sbase, sstride, map_index (y0 - ry + k, height, border),
        sx, rowlen, rxs, rcoef, roff, nrow, rp, cmap, bval,
        ring[k & (RING - 1)]);

  for (int y = y0; y < y1; y++) {
    int i = y - y0;
    fix32_t a0 = init, a1 = init;

    prefetch_row (sbase, sstride, y + ry + PREFETCH_ROWS, height, sx - rxs);
    prefetch_out_row (dbase, dstride, y + PREFETCH_ROWS, y1, sx, STRIP);
    row_pass_fixed (sbase, sstride, map_index (y + ry, height, border), sx,
        rowlen, rxs, rcoef, roff, nrow, rp, cmap, bval,
        ring[(i + 2 * ry) & (RING - 1)]);
    for (int t = 0; t < ncol - cp; t++) {
      int r = (i + cring[t]) & (RING - 1);
      fix32_t h0 = ring[r][0], h1 = ring[r][1];

      if (t < cp) {
        int m = (i + cring[ncol - 1 - t]) & (RING - 1);

        h0 = col_pair (h0, ring[m][0]);
        h1 = col_pair (h1, ring[m][1]);
      }
      a0 += col_mul (h0, (fix32_t) ccoef[t]);
      a1 += col_mul (h1, (fix32_t) ccoef[t]);
    }
    if (rowlen - sx >= STRIP)
      store_fixed64 (a0, a1, sx, alpha_pos, sbase, sstride, dbase, dstride,
          y, dq);
    else
      store_fixed64_tail (a0, a1, sx, rowlen - sx, alpha_pos,
          ROW (sbase, sstride, y), dbase + y * dstride, dq);
  }
}

#ifndef FIXED_COLOUR
#define FIXED_COLOUR 0
#endif
#if FIXED_COLOUR
/* The colour path: 4-sample pixels whose sample 0 or 3 (@a0: 0) passes
 * through unfiltered (alpha, x). A work-item owns COLOUR_STRIP samples
 * (32 pixels) and keeps only their 96 colour samples, as Q8 in three
 * 32-lane vectors without the pass-through ones: a quarter fewer
 * multiply-adds in both passes than sep_fixed_strip's four vectors, and
 * half the per-tap and per-row bookkeeping per sample. A tap's 128 bytes
 * are sorted into those lanes by byte shuffles, and the store puts the
 * samples back between the source's pass-through ones. Same lane
 * arithmetic as sep_fixed_strip (mirrored pairs included), so the same
 * results. Two ways to sort, chosen by the element from the host CPU:
 *   FIXED_COLOUR=1 (AVX-512 VBMI): the lanes in sample order, one
 *     vpermt2b against zeros per 64-byte load (without VBMI LLVM makes
 *     each a dozen shuffles, hence the target attribute below);
 *   FIXED_COLOUR=2 (AVX2): shuffles within 16-byte lanes only (vpshufb):
 *     each 16-byte lane of pixels gives its first 8 colour samples to one
 *     vector and its last 4 to the third, which takes them from both
 *     halves of the strip (colour_load). */
#define COLOUR_STRIP 128
/* byte of colour sample m (0..95) in the strip's 128, after @off (1 when
 * the pass-through sample is the first of the pixel) */
#define CSRC(m, off) (4 * ((m) / 3) + (m) % 3 + (off))
#if FIXED_COLOUR == 1
/* colour samples m... as Q8 lanes: each the high byte of a 16-bit lane
 * beside a zero byte (index 64: the second operand) of the 64-byte load
 * from byte @base */
#define CQ8(m, off, base) 64, CSRC (m, off) - (base)
#define CQ8_4(m, off, base) CQ8 (m, off, base), CQ8 (m + 1, off, base), \
    CQ8 (m + 2, off, base), CQ8 (m + 3, off, base)
#define CQ8_16(m, off, base) CQ8_4 (m, off, base), \
    CQ8_4 (m + 4, off, base), CQ8_4 (m + 8, off, base), \
    CQ8_4 (m + 12, off, base)
#define COLOUR_Q8(v, m, off, base) __builtin_astype (__builtin_shufflevector \
    ((v), (u8x64_t) 0, CQ8_16 (m, off, base), CQ8_16 (m + 16, off, base)), \
    fix32_t)

/* The strip's colour samples at @p (a tap's offset from the strip) as Q8
 * in three vectors, each from one 64-byte load (colour samples 0-31 lie in
 * bytes 0-43, 32-63 in 42-85, 64-95 in 85-127) and one byte shuffle */
inline void
colour_load (__global const uchar * p, int a0, fix32_t * c)
{
  u8x64_t v0 = LOAD64 (p), v1 = LOAD64 (p + 32), v2 = LOAD64 (p + 64);

  if (a0) {
    c[0] = COLOUR_Q8 (v0, 0, 1, 0);
    c[1] = COLOUR_Q8 (v1, 32, 1, 32);
    c[2] = COLOUR_Q8 (v2, 64, 1, 64);
  } else {
    c[0] = COLOUR_Q8 (v0, 0, 0, 0);
    c[1] = COLOUR_Q8 (v1, 32, 0, 32);
    c[2] = COLOUR_Q8 (v2, 64, 0, 64);
  }
}

#else /* FIXED_COLOUR == 2 */
/* word w of 16-byte lane L as colour sample m of that lane's 4 pixels in
 * Q8 (a zero byte, index 64 of the second operand, then the sample); ZW:
 * a zero word */
#define LQ8(L, m, off) 64, 16 * (L) + CSRC (m, off)
#define ZW 64, 64
/* samples 0-7 of each lane; samples 8-11 in words 0-3 (LANE_B) or 4-7
 * (LANE_BH) */
#define LANE_A(L, off) LQ8 (L, 0, off), LQ8 (L, 1, off), LQ8 (L, 2, off), \
    LQ8 (L, 3, off), LQ8 (L, 4, off), LQ8 (L, 5, off), LQ8 (L, 6, off), \
    LQ8 (L, 7, off)
#define LANE_B(L, off) LQ8 (L, 8, off), LQ8 (L, 9, off), LQ8 (L, 10, off), \
    LQ8 (L, 11, off), ZW, ZW, ZW, ZW
#define LANE_BH(L, off) ZW, ZW, ZW, ZW, LQ8 (L, 8, off), LQ8 (L, 9, off), \
    LQ8 (L, 10, off), LQ8 (L, 11, off)
#define LANES(X, off) X (0, off), X (1, off), X (2, off), X (3, off)
#define LSHUF(v, X, off) __builtin_astype (__builtin_shufflevector ((v), \
        (u8x64_t) 0, LANES (X, off)), fix32_t)

/* The strip's colour samples at @p as Q8: c[0] the first 8 of each 16-byte
 * lane of bytes 0-63, c[1] of bytes 64-127, c[2] the last 4 of each lane
 * of both (words 0-3 from the first half, 4-7 from the second) */
inline void
colour_load (__global const uchar * p, int a0, fix32_t * c)
{
  u8x64_t v0 = LOAD64 (p), v1 = LOAD64 (p + 64);

  if (a0) {
    c[0] = LSHUF (v0, LANE_A, 1);
    c[1] = LSHUF (v1, LANE_A, 1);
    c[2] = LSHUF (v0, LANE_B, 1) | LSHUF (v1, LANE_BH, 1);
  } else {
    c[0] = LSHUF (v0, LANE_A, 0);
    c[1] = LSHUF (v1, LANE_A, 0);
    c[2] = LSHUF (v0, LANE_B, 0) | LSHUF (v1, LANE_BH, 0);
  }
}
#endif

/* Row pass of the colour path for input row @yy (-1: the border row);
 * @coef, @off, @np as row_pass_fixed's */
__attribute__ ((always_inline)) inline void
colour_row_pass (__global const uchar * sbase, int sstride, int yy, int sx,
    int a0, const ushort * coef, const int *off, int ntaps, int np, int bval,
    fix32_t * h)
{
  fix32_t c[3], init = FIX_START (ntaps - np);

  h[0] = h[1] = h[2] = init;
  if (yy < 0) {
    /* every sample is the border value (a pair's average too) */
    fix32_t b = (fix32_t) ((ushort) (bval << 8));

    for (int t = 0; t < ntaps - np; t++)
      h[0] += mul_hi32 (b, (fix32_t) coef[t]);
    h[1] = h[2] = h[0];
    return;
  }
  for (int t = 0; t < ntaps - np; t++) {
    colour_load (ROW (sbase, sstride, yy) + sx + off[t], a0, c);
    if (t < np) {
      fix32_t m[3];

      colour_load (ROW (sbase, sstride, yy) + sx + off[ntaps - 1 - t], a0,
          m);
      c[0] = avg32 (c[0], m[0]);
      c[1] = avg32 (c[1], m[1]);
      c[2] = avg32 (c[2], m[2]);
    }
    h[0] += mul_hi32 (c[0], (fix32_t) coef[t]);
    h[1] += mul_hi32 (c[1], (fix32_t) coef[t]);
    h[2] += mul_hi32 (c[2], (fix32_t) coef[t]);
  }
}

/* Rounds Q8 sums (half up) to samples, as round_fixed64 */
inline fix32_t
round_fixed (fix32_t a, fix_div_t dq)
{
  const fix32_t top = 255;
  fix32_t r = fix_round (a, dq);

  return r > top ? top : r;
}

#if FIXED_COLOUR == 1
/* the byte of @r ++ @s (rounded colour sums from sample @m0: their low
 * bytes) that byte b of the strip's output takes (-1: a pass-through
 * byte, taken from the source) */
#define CDST(b, off, m0) (((b) & 3) == 3 * (1 - (off)) ? -1 : \
    2 * (3 * ((b) / 4) + ((b) & 3) - (off) - (m0)))
#define CDST4(b, off, m0) CDST (b, off, m0), CDST (b + 1, off, m0), \
    CDST (b + 2, off, m0), CDST (b + 3, off, m0)
#define CDST16(b, off, m0) CDST4 (b, off, m0), CDST4 (b + 4, off, m0), \
    CDST4 (b + 8, off, m0), CDST4 (b + 12, off, m0)
#define CDST64(b, off, m0) CDST16 (b, off, m0), CDST16 (b + 16, off, m0), \
    CDST16 (b + 32, off, m0), CDST16 (b + 48, off, m0)

/* the strip's output bytes @o0 (pixels 0-15: colour samples 0-47, r0 and
 * r1) and @o1 (pixels 16-31: samples 48-95, r1 from byte 32 and r2) */
#define COLOUR_OUT(r0, r1, r2, off, o0, o1) do {                          \
    o0 = __builtin_shufflevector (r0, r1, CDST64 (0, off, 0));            \
    o1 = __builtin_shufflevector (r1, r2, CDST64 (64, off, 32));          \
  } while (0)

#else /* FIXED_COLOUR == 2 */
/* output byte b (0..63) of a half of the strip from the rounded samples
 * of its A vector (@r, first operand) and of the B vector (second
 * operand, @hw: 0 first half's words 0-3, 4 second half's words 4-7);
 * a pass-through byte takes any (the source's replaces it) */
#define LDST(b, off, hw) (((b) & 3) == 3 * (1 - (off)) ? 0 : \
    3 * (((b) & 15) / 4) + ((b) & 3) - (off) < 8 ? \
    ((b) & ~15) + 2 * (3 * (((b) & 15) / 4) + ((b) & 3) - (off)) : \
    64 + ((b) & ~15) + 2 * (3 * (((b) & 15) / 4) + ((b) & 3) - (off) - 8 + \
        (hw)))
#define LDST4(b, off, hw) LDST (b, off, hw), LDST (b + 1, off, hw), \
    LDST (b + 2, off, hw), LDST (b + 3, off, hw)
#define LDST16(b, off, hw) LDST4 (b, off, hw), LDST4 (b + 4, off, hw), \
    LDST4 (b + 8, off, hw), LDST4 (b + 12, off, hw)
#define LDST64(off, hw) LDST16 (0, off, hw), LDST16 (16, off, hw), \
    LDST16 (32, off, hw), LDST16 (48, off, hw)

/* the strip's output bytes @o0 (pixels 0-15: r0 and words 0-3 of r2) and
 * @o1 (pixels 16-31: r1 and words 4-7 of r2) */
#define COLOUR_OUT(r0, r1, r2, off, o0, o1) do {                          \
    o0 = __builtin_shufflevector (r0, r2, LDST64 (off, 0));               \
    o1 = __builtin_shufflevector (r1, r2, LDST64 (off, 4));               \
  } while (0)
#endif

/* Rounds the strip's 96 colour sums @a (colour_load's lanes) and stores
 * them at @drow between the pass-through samples of @srow */
inline void
colour_store (const fix32_t * a, int a0, __global const uchar * srow,
    __global uchar * drow, fix_div_t dq)
{
  u8x64_t r0 = __builtin_astype (round_fixed (a[0], dq), u8x64_t);
  u8x64_t r1 = __builtin_astype (round_fixed (a[1], dq), u8x64_t);
  u8x64_t r2 = __builtin_astype (round_fixed (a[2], dq), u8x64_t);
  const u8x64_t lane = (u8x64_t) (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1,
      2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1,
      2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1,
      2, 3);
  uchar pass = a0 ? 0 : 3;
  u8x64_t o0, o1;

  if (a0)
    COLOUR_OUT (r0, r1, r2, 1, o0, o1);
  else
    COLOUR_OUT (r0, r1, r2, 0, o0, o1);
  STORE64 (lane == pass ? LOAD64 (srow) : o0, drow);
  STORE64 (lane == pass ? LOAD64 (srow + 64) : o1, drow + 64);
}

/* A colour-path work-item (see above) whose strip and row-pass taps lie
 * inside the row */
__attribute__ ((always_inline)) inline void
sep_fixed_colour (__global const uchar * sbase, int sstride,
    __global uchar * dbase, int dstride, int height, int a0,
    __constant int4 * row_taps, int nrow, int rxs, __constant int4 * col_taps,
    int ncol, int ry, int bval, int border, int sx, int y0, fix_div_t dq)
{
  int y1 = min (y0 + SEP_ROWS, height);
  fix32_t ring[RING][3];
  ushort rcoef[SEP_MAX_TAPS], ccoef[SEP_MAX_TAPS];
  int roff[SEP_MAX_TAPS], cring[SEP_MAX_TAPS];
  int rp = pass_taps (row_taps, nrow, 0, 4, 0, rcoef, roff);
  int cp = pass_taps (col_taps, ncol, 1, 1, ry, ccoef, cring);
  fix32_t init = FIX_START (ncol - cp);

  for (int k = 0; k < 2 * ry; k++)
    colour_row_pass (sbase, sstride, map_index (y0 - ry + k, height, border),
        sx, a0, rcoef, roff, nrow, rp, bval, ring[k & (RING - 1)]);

  for (int y = y0; y < y1; y++) {
    int i = y - y0;
    fix32_t a[3];

    prefetch_row (sbase, sstride, y + ry + PREFETCH_ROWS, height, sx - rxs);
    /* the span is up to 4 lines, prefetch_row's 3 end before its last */
    if (y + ry + PREFETCH_ROWS < height)
      __builtin_prefetch ((const void *) (size_t) (ROW (sbase, sstride,
                  y + ry + PREFETCH_ROWS) + sx + COLOUR_STRIP + rxs - 1));
    prefetch_out_row (dbase, dstride, y + PREFETCH_ROWS, y1, sx,
        COLOUR_STRIP);
    colour_row_pass (sbase, sstride, map_index (y + ry, height, border), sx,
        a0, rcoef, roff, nrow, rp, bval, ring[(i + 2 * ry) & (RING - 1)]);
    a[0] = a[1] = a[2] = init;
    for (int t = 0; t < ncol - cp; t++) {
      int r = (i + cring[t]) & (RING - 1);
      fix32_t h0 = ring[r][0], h1 = ring[r][1], h2 = ring[r][2];

      if (t < cp) {
        int m = (i + cring[ncol - 1 - t]) & (RING - 1);

        h0 = col_pair (h0, ring[m][0]);
        h1 = col_pair (h1, ring[m][1]);
        h2 = col_pair (h2, ring[m][2]);
      }
      a[0] += col_mul (h0, (fix32_t) ccoef[t]);
      a[1] += col_mul (h1, (fix32_t) ccoef[t]);
      a[2] += col_mul (h2, (fix32_t) ccoef[t]);
    }
    colour_store (a, a0, ROW (sbase, sstride, y) + sx, dbase + y * dstride +
        sx, dq);
  }
}

/* sep_fixed_colour's two instances: constant shuffle indices, and with
 * FIXED_COLOUR=1 the byte permutes of AVX-512 VBMI (PoCL may give LLVM an
 * older CPU model; the element builds this only where the CPU has VBMI).
 * Not inlined: a function of more target features cannot be inlined into
 * the kernel. */
#if FIXED_COLOUR == 1
#define COLOUR_TARGET __attribute__ ((noinline, target ("avx512vbmi")))
#else
#define COLOUR_TARGET __attribute__ ((noinline))
#endif
#define COLOUR_ARGS __global const uchar * sbase, int sstride, \
    __global uchar * dbase, int dstride, int height, \
    __constant int4 * row_taps, int nrow, int rxs, \
    __constant int4 * col_taps, int ncol, int ry, int bval, int border, \
    int sx, int y0, fix_div_t dq
#define COLOUR_CALL(a0) sep_fixed_colour (sbase, sstride, dbase, dstride, \
    height, a0, row_taps, nrow, rxs, col_taps, ncol, ry, bval, border, sx, \
    y0, dq)
COLOUR_TARGET void
sep_fixed_colour0 (COLOUR_ARGS)
{
  COLOUR_CALL (1);
}

COLOUR_TARGET void
sep_fixed_colour3 (COLOUR_ARGS)
{
  COLOUR_CALL (0);
}

/* A colour-path work-item: its strip from sep_fixed_colour, or at the
 * row's ends (where taps leave the row) from sep_fixed_strip in two
 * halves */
inline void
colour_work_item (__global const uchar * sbase, int sstride,
    __global uchar * dbase, int dstride, int width, int height,
    int alpha_pos, __constant int4 * row_taps, int nrow, int rx,
    __constant int4 * col_taps, int ncol, int ry, int bval, int border,
    int y0, fix_div_t dq)
{
  int sx = get_global_id (0) * COLOUR_STRIP, rowlen = width * 4;
  int rxs = rx * 4;

  if (sx >= rowlen || y0 >= height)
    return;
  if (sx >= rxs && sx + COLOUR_STRIP + rxs <= rowlen) {
    /* a constant a0 in each: the shuffles' indices */
    if (alpha_pos == 0)
      sep_fixed_colour0 (sbase, sstride, dbase, dstride, height, row_taps,
          nrow, rxs, col_taps, ncol, ry, bval, border, sx, y0, dq);
    else
      sep_fixed_colour3 (sbase, sstride, dbase, dstride, height, row_taps,
          nrow, rxs, col_taps, ncol, ry, bval, border, sx, y0, dq);
    return;
  }
  for (int s = sx; s < sx + COLOUR_STRIP; s += STRIP)
    sep_fixed_strip (sbase, sstride, dbase, dstride, width, height, 4,
        alpha_pos, row_taps, nrow, rx, col_taps, ncol, ry, bval, border, s,
        y0, dq);
}
#endif /* FIXED_COLOUR */

/* The separable kernel (sep_strips' arguments and layout). Built with
 * -D FIXED_COLOUR=1 or 2 (the element's choice: the host CPU has AVX-512
 * VBMI or AVX2), 4-sample pixels with a pass-through sample take the colour
 * path, COLOUR_STRIP samples per work-item; other pixels, STRIP. */
__kernel void
sep_fixed (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * row_taps, int nrow, int rx,
    __constant int4 * col_taps, int ncol, int ry, int bval, int border,
    acc_t border_row, PARAMS)
{
  int y0 = get_global_id (1) * SEP_ROWS;
  __global const uchar *sbase = src + soff;
  __global uchar *dbase = dst + doff;
  fix_div_t dq = fix_div_new (idiv);

#if FIXED_COLOUR
  if (ch == 4 && (alpha_pos == 0 || alpha_pos == 3)) {
    colour_work_item (sbase, sstride, dbase, dstride, width, height,
        alpha_pos, row_taps, nrow, rx, col_taps, ncol, ry, bval, border, y0,
        dq);
    return;
  }
#endif
  sep_fixed_strip (sbase, sstride, dbase, dstride, width, height, ch,
      alpha_pos, row_taps, nrow, rx, col_taps, ncol, ry, bval, border,
      get_global_id (0) * STRIP, y0, dq);
}

#endif /* CPU_ONLY && FIXED && !DEPTH16 */
#endif /* !PX_ONLY */

/* conv2d_first (-D FIRST_ONLY=1 -D CPU_ONLY=1 -D PX_ONLY=1: a program
 * of this kernel alone): the frames' kernel until the warm-up worker has
 * compiled the current path's. PoCL compiles a kernel at its first launch,
 * about 0.3 s for the strip kernels on 2 cores and much less for this one:
 * 16 samples of a row per work-item, every tap read from the frame; the
 * border is mapped per sample and tap, only for work-items whose taps
 * leave the frame. Same arithmetic as the other kernels of its program:
 * bit-exact on the integer path, the float path's tap-order sum elsewhere
 * (the fixed-point matrices included: their frames are then within the
 * float path's window). */
#ifndef FIRST_ONLY
#define FIRST_ONLY 0
#endif
#if FIRST_ONLY
__kernel void
conv2d_first (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * taps, int ntaps, int rx, int ry,
    int bval, int border, PARAMS)
{
  int sx = get_global_id (0) * 16, y = get_global_id (1);
  int rowlen = width * ch, rxs = rx * ch;
  __global const uchar *sbase = src + soff;
  __global const sample_t *srow;
  __global sample_t *drow;

  if (sx >= rowlen || y >= height)
    return;
  srow = ROW (sbase, sstride, y);
  drow = (__global sample_t *) (dst + doff + y * dstride);
  if (sx >= rxs && sx + 16 + rxs <= rowlen && y >= ry && y + ry < height) {
    acc16_t a = 0;

    for (int t = 0; t < ntaps; t++) {
      int4 tp = taps[t];

      a += COEF (tp) * convert_acc16 (LOAD16 (0, ROW (sbase, sstride,
                  y + tp.y) + sx + tp.x * ch));
    }
    store16 (finish16 (a, PARAM_ARGS), sx, alpha_pos, srow, drow);
    return;
  }
  for (int s = sx; s < sx + 16 && s < rowlen; s++) {
    int px = s / ch, c = s - px * ch;
    acc_t acc = 0;

    for (int t = 0; t < ntaps && c != alpha_pos; t++) {
      int4 tp = taps[t];
      int yy = map_index (y + tp.y, height, border);
      int xx = map_index (px + tp.x, width, border);

      acc += COEF (tp) * (yy < 0 || xx < 0 ? (acc_t) bval :
          (acc_t) ROW (sbase, sstride, yy)[xx * ch + c]);
    }
    drow[s] = c == alpha_pos ? srow[s] : (sample_t) finish (acc, PARAM_ARGS);
  }
}
#endif /* FIRST_ONLY */
