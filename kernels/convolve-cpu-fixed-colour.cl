/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-cpu-fixed-colour.cl: sep_fixed and its colour path
 * (part of the convolve program). */

#if !PX_ONLY && CPU_ONLY && FIXED && !DEPTH16

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

#endif /* !PX_ONLY && CPU_ONLY && FIXED && !DEPTH16 */
