/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-common.cl: the convolve program's options, arithmetic and
 * border mapping.
 *
 * The convolve program computes the 2-D convolution of one image plane
 * (clconvolve). It is built from one source, these files joined in this
 * order (kernels/meson.build): convolve-common.cl; convolve-cpu.cl (row
 * helpers, conv2d_strips); convolve-gpu.cl (conv2d_tile, conv2d_reg),
 * convolve-gpu-px.cl, convolve-gpu-pxl.cl (conv2d_px, conv2d_pxl and their
 * instances), convolve-gpu-passes.cl (hpass_strips, vpass_strips);
 * convolve-cpu-sep.cl (sep_strips), convolve-cpu-fixed.cl and
 * convolve-cpu-fixed-colour.cl (the fixed-point and exact 16-bit kernels);
 * convolve-first.cl (conv2d_first). Each part holds only what its options
 * select.
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
 *     with exact sums for integer separable ones and for 2-D ones of any
 *     sign whose sums span at most 2^16 values (see "Exact sums", "Exact
 *     2-D sums"); the tap's .w holds the 16-bit value fixed point and
 *     sep_fixed multiply by, .z the coefficient (float bits, or an int in
 *     the integer program, which the exact 2-D sums multiply by).
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
