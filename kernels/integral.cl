/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral.cl: integral images (summed-area tables) and box means.
 *
 * One program computes one plane of the integral image (the sum, the sum of
 * squares or the count of non-zero samples, chosen by VALUE) of one source
 * layout; the host builds one program per plane it needs.
 *
 * Output plane: (W+1) x (H+1) elements of OUT, CH channels interleaved, rows
 * tightly packed, first row and first column zero, starting at byte
 * `out_off` of `out`. Element (r, c, ch) = sum over source rows < r and
 * columns < c of VALUE(sample ch).
 *
 * Accumulation is always in integers (ACC: uint wraps modulo 2^32 for U32
 * outputs, ulong otherwise); float outputs are the exact integer converted
 * once, rounded to nearest.
 *
 * CPU variant (few long work-items, no barriers, one kernel): cpu_integral
 * gives each band of rows the column totals of the rows above it, then walks
 * the band top-down with a running row prefix plus one private-to-the-band
 * row of column sums, so the output is written exactly once.
 * GPU variant: gpu_rows scans each row in local memory (one work-group per
 * row) and stores the row prefix as integer bits (BITS) in place; gpu_cols
 * walks columns (coalesced) in CB bands per work-group and turns them into
 * the final values in place.
 *
 * Options: CH (1|3), SRC_T (uchar|ushort, CH=1), PSTRIDE ROFF GOFF BOFF
 * (bytes, CH=3), SEL (swizzle picking R, G, B of 4 pixels, CH=3), ACC, OUT, BITS, VALUE (0 sum, 1 square, 2 non-zero),
 * WG (gpu_rows work-group size, power of two), CB (gpu_cols row bands),
 * CPU_ONLY / GPU_ONLY (0|1: only one variant's kernels, which the device
 * runs; the other's would only cost build time), BOX (1: the box mean's
 * kernels: cpu_box_mean*, or gpu_rows, gpu_cols and box_mean; 0: the
 * integral image's, less to build either way). */

#ifndef CH
#define CH 1
#endif
#ifndef SRC_T
#define SRC_T uchar
#endif
#ifndef PSTRIDE
#define PSTRIDE 4
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
#ifndef SEL
#define SEL s012456789abcdef
#endif
#ifndef ACC
#define ACC uint
#endif
#ifndef OUT
#define OUT uint
#endif
#ifndef BITS
#define BITS uint
#endif
#ifndef VALUE
#define VALUE 0
#endif
#ifndef WG
#define WG 64
#endif
#ifndef CB
#define CB 8
#endif
#ifndef CPU_ONLY
#define CPU_ONLY 0
#endif
#ifndef GPU_ONLY
#define GPU_ONLY 0
#endif
#ifndef BOX
#define BOX 0
#endif

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CONVERT(t, x) CAT (convert_, t) (x)

/* one pixel: a scalar for CH=1, a 3-vector for CH=3 (vload3/vstore3 keep
 * the 3 channels tightly packed in memory) */
#if CH == 1
#define V(t) t
#define LOADV(i, p) ((p)[i])
#define STOREV(v, i, p) ((p)[i] = (v))
#else
#define V(t) CAT (t, 3)
#define LOADV(i, p) vload3 (i, p)
#define STOREV(v, i, p) vstore3 (v, i, p)
#endif

/* the value a sample contributes, as type T (elementwise for vectors) */
#if VALUE == 0
#define VAL(T, px) CONVERT (T, px)
#elif VALUE == 1
#define VAL(T, px) (CONVERT (T, px) * CONVERT (T, px))
#else
#define VAL(T, px) CONVERT (T, min (px, 1u))
#endif

V (uint) load_px (__global const uchar * row, int x);

V (uint)
load_px (__global const uchar * row, int x)
{
#if CH == 1
  return (uint) ((__global const SRC_T *) row)[x];
#else
  __global const uchar *p = row + (size_t) x * PSTRIDE;
  return (uint3) (p[ROFF], p[GOFF], p[BOFF]);
#endif
}

#define SRC_ROW(y) (src + src_off + (size_t) (y) * src_stride)

/* ---- CPU variant (left out with GPU_ONLY) ---- */

#if !GPU_ONLY

/* Chunks: NPX pixels (NE = NPX * CH elements) handled as one vector VT of
 * ACC: CH=1 8 pixels in an ACC8; CH=3 4 pixels whose R, G, B bytes SEL
 * (a swizzle from the host, lanes 12-15 don't care) packs into the first 12
 * lanes of an ACC16. */
#define ACC4 CAT (ACC, 4)
#define ACC8 CAT (ACC, 8)
#define ACC16 CAT (ACC, 16)
#if CH == 1
#define NPX 8
#define VT ACC8
#define LOADC(row, x) VAL (ACC8, \
    convert_uint8 (vload8 (0, (__global const SRC_T *) (row) + (x))))
/* inclusive prefix over the 8 lanes: 3 shifted adds */
#define PREFIX(v) do { \
    v += (ACC8) ((ACC) 0, v.s0123, v.s456); \
    v += (ACC8) ((ACC) 0, (ACC) 0, v.s0123, v.s45); \
    v += (ACC8) ((ACC4) 0, v.s0123); } while (0)
#define CARRY(v) ((ACC8) (v.s7))
#define LOADA(p) vload8 (0, p)
#define STOREA(v, p) vstore8 (v, 0, p)
#define STOREO(v, p) vstore8 (CONVERT (CAT (OUT, 8), v), 0, p)
#else
#define NPX 4
#define VT ACC16
#if PSTRIDE == 4
#define LOADRAW(p) vload16 (0, p)
#else
#define LOADRAW(p) ((uchar16) (vload8 (0, p), vload4 (0, (p) + 8), \
    (uchar4) 0))
#endif
#define LOADC(row, x) VAL (ACC16, \
    convert_uint16 (LOADRAW ((row) + (size_t) (x) * PSTRIDE).SEL))
/* prefix over the 4 pixels, channel lanes 3 apart */
#define PREFIX(v) do { \
    v += (ACC16) ((ACC4) ((ACC) 0, (ACC) 0, (ACC) 0, v.s0), v.s12345678, \
        v.s9abc); \
    v += (ACC16) ((ACC4) 0, (ACC) 0, (ACC) 0, v.s01, v.s23456789); } while (0)
#define CARRY(v) (v.s9ab9ab9ab9ab9ab9)
#define LOADA(p) ((ACC16) (vload8 (0, p), vload4 (0, (p) + 8), (ACC4) 0))
#define STOREA(v, p) do { vstore8 (v.lo, 0, p); \
    vstore4 (v.s89ab, 0, (p) + 8); } while (0)
#define STOREO(v, p) do { vstore8 (CONVERT (CAT (OUT, 8), v.lo), 0, p); \
    vstore4 (CONVERT (CAT (OUT, 4), v.s89ab), 0, (p) + 8); } while (0)
#endif
/* rows scanned together: independent row prefixes overlap, and the running
 * column sums are loaded and stored once per R rows */
#define R 4

/* Per-pixel loops are left scalar: auto-vectorized, they made PoCL's
 * first-launch compile of cpu_integral_first about 0.1 s (a third)
 * longer; the chunked loops are vector code already */
#define SCALAR_LOOP \
  _Pragma ("clang loop vectorize(disable) interleave(disable)")

#if !BOX

/* acc[0 .. W * CH) += VAL of the samples of source rows [ya, yb); @fast
 * FALSE: pixel by pixel only (less code to compile) */
void add_rows (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc, bool fast);

void
add_rows (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc, bool fast)
{
  int x, y, k;

  for (y = ya; y < yb; y += R) {
    int nr = min (R, yb - y);

    for (x = 0; fast && x + NPX <= width; x += NPX) {
      VT t = LOADA (acc + x * CH);
      SCALAR_LOOP
      for (k = 0; k < nr; k++)
        t += LOADC (SRC_ROW (y + k), x);
      STOREA (t, acc + x * CH);
    }
    SCALAR_LOOP
    for (; x < width; x++) {
      V (ACC) t = LOADV (x, acc);
      SCALAR_LOOP
      for (k = 0; k < nr; k++)
        t += VAL (V (ACC), load_px (SRC_ROW (y + k), x));
      STOREV (t, x, acc);
    }
  }
}

/* One work-item (work-group of 1) per band of rows: band b covers source
 * rows [bands[b], bands[b + 1]) and writes output rows bands[b] + 1 ...
 * (band 0 also row 0). It first adds up the column totals of the rows above
 * its band itself (one launch, no second kernel to compile; the host makes
 * the later bands shorter to even out that extra reading), then scans its
 * rows. acc (the band's W * CH scratch) holds the integral of the row above
 * (columns 1..W) in ACC, so float outputs never feed back into the sums.
 * @fast FALSE (cpu_integral_first): one row at a time, pixel by pixel:
 * a third of the compile time, for the frames before the warm-up worker
 * has compiled cpu_integral. */
void integral_band (__global const uchar * src, uint src_off,
    int src_stride, int width, int height, int16 bands,
    __global ACC * accrow, __global uchar * out, ulong out_off, bool fast);

void
integral_band (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, int16 bands, __global ACC * accrow,
    __global uchar * out, ulong out_off, bool fast)
{
  int b = get_global_id (0);
  int bs[16];
  int y0, y1;
  size_t n = (size_t) width * CH;
  size_t ostride = (size_t) (width + 1) * CH;
  __global ACC *acc = accrow + b * n;
  __global OUT *o = (__global OUT *) (out + out_off);
  V (ACC) s = 0;
  int x, y, k;

  vstore16 (bands, 0, bs);
  y0 = bs[b];
  y1 = min (bs[b + 1], height);
  if (b == 0)
    SCALAR_LOOP
    for (x = 0; x < (int) ostride; x++)
      o[x] = 0;
  if (y0 >= y1)
    return;
  /* the row above the band: column totals, then their prefix over x */
  SCALAR_LOOP
  for (x = 0; x < (int) n; x++)
    acc[x] = 0;
  add_rows (src, src_off, src_stride, width, 0, y0, acc, fast);
  SCALAR_LOOP
  for (x = 0; x < width; x++) {
    s += LOADV (x, acc);
    STOREV (s, x, acc);
  }

  for (y = y0; y < y1; y += R) {
    int nr = min (R, y1 - y);
    __global OUT *orow = o + (size_t) (y + 1) * ostride;

    if (fast && nr == R) {
      __global const uchar *r0 = SRC_ROW (y), *r1 = SRC_ROW (y + 1);
      __global const uchar *r2 = SRC_ROW (y + 2), *r3 = SRC_ROW (y + 3);
      __global OUT *o0 = orow + CH, *o1 = o0 + ostride;
      __global OUT *o2 = o1 + ostride, *o3 = o2 + ostride;
      VT c0 = 0, c1 = 0, c2 = 0, c3 = 0;
      V (ACC) s0, s1, s2, s3, a;

      for (k = 0; k < R; k++)
        STOREV ((V (OUT)) 0, 0, orow + k * ostride);
      for (x = 0; x + NPX <= width; x += NPX) {
        VT v0 = LOADC (r0, x), v1 = LOADC (r1, x);
        VT v2 = LOADC (r2, x), v3 = LOADC (r3, x), t;
        size_t e = (size_t) x * CH;

        PREFIX (v0);
        PREFIX (v1);
        PREFIX (v2);
        PREFIX (v3);
        v0 += c0;
        v1 += c1;
        v2 += c2;
        v3 += c3;
        c0 = CARRY (v0);
        c1 = CARRY (v1);
        c2 = CARRY (v2);
        c3 = CARRY (v3);
        t = LOADA (acc + e) + v0;
        STOREO (t, o0 + e);
        t += v1;
        STOREO (t, o1 + e);
        t += v2;
        STOREO (t, o2 + e);
        t += v3;
        STOREO (t, o3 + e);
        STOREA (t, acc + e);
      }
#if CH == 1
      s0 = c0.s0;
      s1 = c1.s0;
      s2 = c2.s0;
      s3 = c3.s0;
#else
      s0 = c0.s012;
      s1 = c1.s012;
      s2 = c2.s012;
      s3 = c3.s012;
#endif
      SCALAR_LOOP
      for (; x < width; x++) {
        s0 += VAL (V (ACC), load_px (r0, x));
        s1 += VAL (V (ACC), load_px (r1, x));
        s2 += VAL (V (ACC), load_px (r2, x));
        s3 += VAL (V (ACC), load_px (r3, x));
        a = LOADV (x, acc) + s0;
        STOREV (CONVERT (V (OUT), a), x, o0);
        a += s1;
        STOREV (CONVERT (V (OUT), a), x, o1);
        a += s2;
        STOREV (CONVERT (V (OUT), a), x, o2);
        a += s3;
        STOREV (CONVERT (V (OUT), a), x, o3);
        STOREV (a, x, acc);
      }
      continue;
    }
    /* the band's last rows, one at a time */
    SCALAR_LOOP
    for (k = 0; k < nr; k++, orow += ostride) {
      __global const uchar *row = SRC_ROW (y + k);
      VT c = 0;

      STOREV ((V (OUT)) 0, 0, orow);
      for (x = 0; fast && x + NPX <= width; x += NPX) {
        VT v = LOADC (row, x), t;
        size_t e = (size_t) x * CH;

        PREFIX (v);
        v += c;
        c = CARRY (v);
        t = LOADA (acc + e) + v;
        STOREO (t, orow + CH + e);
        STOREA (t, acc + e);
      }
#if CH == 1
      s = c.s0;
#else
      s = c.s012;
#endif
      SCALAR_LOOP
      for (; x < width; x++) {
        V (ACC) a;
        s += VAL (V (ACC), load_px (row, x));
        a = LOADV (x, acc) + s;
        STOREV (a, x, acc);
        STOREV (CONVERT (V (OUT), a), x + 1, orow);
      }
    }
  }
}

__kernel void
cpu_integral (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, int16 bands, __global ACC * accrow,
    __global uchar * out, ulong out_off)
{
  integral_band (src, src_off, src_stride, width, height, bands, accrow, out,
      out_off, true);
}

__kernel void
cpu_integral_first (__global const uchar * src, uint src_off,
    int src_stride, int width, int height, int16 bands,
    __global ACC * accrow, __global uchar * out, ulong out_off)
{
  integral_band (src, src_off, src_stride, width, height, bands, accrow, out,
      out_off, false);
}

#else /* BOX */

/* ---- CPU box mean (VALUE 0): one pass, running sums, no integral image ----
 *
 * Band b (rows [bands[b], bands[b + 1])) keeps, for its current row y, the
 * column sums of source rows y - r .. y + r (clipped) in cs, updated by one
 * row in and one out per row; their prefix over x (pre, W + 1 entries) gives
 * every window sum with one subtraction. Mean as box_mean below:
 * (sum + area / 2) / area, computed as num * (1 / area) in double plus
 * 2^-32: exact while num < 2^53 and area < 2^31 (the product is within
 * 2^-36 of num / area <= 65535, an integer quotient is not lowered, and a
 * fraction stays at least 1 / area - 2^-32 below the next integer).
 *
 * A pixel's sums are BL lanes of ACC: CH, except for 4-byte RGB pixels,
 * where all 4 bytes are summed in memory order (one aligned 4-vector; the
 * extra byte's lane is never stored). Except for 3-byte pixels, the loops
 * take chunks of 16 lanes (BPX pixels) and finish pixel by pixel. */

#if CH == 3 && PSTRIDE == 4
#define BL 4
#define BV(t) CAT (t, 4)
#define BSRC(row, x) CONVERT (BV (ACC), vload4 (x, row))
#define BLOAD(i, p) vload4 (i, p)
#define BSTORE(v, i, p) vstore4 (v, i, p)
/* lanes (bytes) of the pixel kept from the source: -1 */
#define KEEPL(i) ((i) != ROFF && (i) != GOFF && (i) != BOFF ? -1 : 0)
#define STORE_MEAN(m, x) vstore4 (select (convert_uchar4 (m), \
      vload4 (x, srow), (char4) (KEEPL (0), KEEPL (1), KEEPL (2), \
          KEEPL (3))), x, drow)
#else
#define BL CH
#define BV(t) V (t)
#define BSRC(row, x) VAL (V (ACC), load_px (row, x))
#define BLOAD(i, p) LOADV (i, p)
#define BSTORE(v, i, p) STOREV (v, i, p)
#if CH == 1
#define STORE_MEAN(m, x) (((__global SRC_T *) drow)[x] = (SRC_T) (m))
#else
/* 3-byte pixels: nothing else in them */
#define STORE_MEAN(m, x) do { \
    __global uchar *p_ = drow + (size_t) (x) * PSTRIDE; \
    p_[ROFF] = (uchar) (m).x; \
    p_[GOFF] = (uchar) (m).y; \
    p_[BOFF] = (uchar) (m).z; } while (0)
#endif
#endif

#define MEAN(sum, area, inv) CONVERT (BV (uint), CONVERT (BV (double), \
      (sum) + (area) / 2) * (inv) + 0x1p-32)

#if BL != 3
#define BPX (16 / BL)
#define ACC2 CAT (ACC, 2)
#if BL == 1
#define BSRC16(row, x) CONVERT (ACC16, vload16 (0, \
      (__global const SRC_T *) (row) + (x)))
#define BPREFIX(v) do { \
    v += (ACC16) ((ACC) 0, v.s0123, v.s4567, v.s89ab, v.scde); \
    v += (ACC16) ((ACC2) 0, v.s0123, v.s4567, v.s89ab, v.scd); \
    v += (ACC16) ((ACC4) 0, v.s0123, v.s4567, v.s89ab); \
    v += (ACC16) ((ACC8) 0, v.lo); } while (0)
#define BCARRY(v) ((ACC16) (v.sf))
#define BLAST(v) (v.s0)
#define STORE_MEAN16(m, x) vstore16 (CONVERT (CAT (SRC_T, 16), m), 0, \
      (__global SRC_T *) drow + (x))
#else
#define BSRC16(row, x) CONVERT (ACC16, vload16 (0, (row) + (x) * 4))
#define BPREFIX(v) do { \
    v += (ACC16) ((ACC4) 0, v.s0123, v.s4567, v.s89ab); \
    v += (ACC16) ((ACC8) 0, v.lo); } while (0)
#define BCARRY(v) (v.scdefcdefcdefcdef)
#define BLAST(v) (v.s0123)
#define KEEP4 KEEPL (0), KEEPL (1), KEEPL (2), KEEPL (3)
#define STORE_MEAN16(m, x) vstore16 (select (convert_uchar16 (m), \
      vload16 (0, srow + (x) * 4), (char16) (KEEP4, KEEP4, KEEP4, KEEP4)), \
      0, drow + (x) * 4)
#endif
#endif

/* acc[0 .. W * BL) += row @ya - row @yb (either may be -1: none) */
void add_sub_row (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc, bool fast);

void
add_sub_row (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc, bool fast)
{
  __global const uchar *ra = SRC_ROW (max (ya, 0)), *rb = SRC_ROW (max (yb,
          0));
  int x = 0;

#if BL != 3
  for (; fast && x + BPX <= width; x += BPX) {
    ACC16 t = vload16 (0, acc + x * BL);
    if (ya >= 0)
      t += BSRC16 (ra, x);
    if (yb >= 0)
      t -= BSRC16 (rb, x);
    vstore16 (t, 0, acc + x * BL);
  }
#endif
  SCALAR_LOOP
  for (; x < width; x++) {
    BV (ACC) t = BLOAD (x, acc);
    if (ya >= 0)
      t += BSRC (ra, x);
    if (yb >= 0)
      t -= BSRC (rb, x);
    BSTORE (t, x, acc);
  }
}

/* @fast FALSE (cpu_box_mean_first): pixel by pixel, less to compile */
void box_mean_band (__global const uchar * src, uint src_off,
    int src_stride, __global uchar * dst, uint dst_off, int dst_stride,
    int width, int height, int radius, int16 bands, __global ACC * scratch,
    bool fast);

void
box_mean_band (__global const uchar * src, uint src_off, int src_stride,
    __global uchar * dst, uint dst_off, int dst_stride, int width,
    int height, int radius, int16 bands, __global ACC * scratch, bool fast)
{
  int b = get_global_id (0);
  int bs[16];
  size_t n = (size_t) width * BL;
  __global ACC *cs = scratch + b * (2 * n + BL);
  __global ACC *pre = cs + n;
  int rx = min (radius, width), ry = min (radius, height);
  int y0, y1, x, y;

  vstore16 (bands, 0, bs);
  y0 = bs[b];
  y1 = min (bs[b + 1], height);
  if (y0 >= y1)
    return;
  SCALAR_LOOP
  for (x = 0; x < (int) n; x++)
    cs[x] = 0;
  SCALAR_LOOP
  for (y = max (y0 - ry, 0); y < min (y0 + ry + 1, height); y++)
    add_sub_row (src, src_off, src_stride, width, y, -1, cs, fast);

  SCALAR_LOOP
  for (y = y0; y < y1; y++) {
    __global const uchar *srow = SRC_ROW (y);
    __global uchar *drow = dst + dst_off + (size_t) y * dst_stride;
    ACC ny = (ACC) (min (y + ry, height - 1) + 1 - max (y - ry, 0));
    BV (ACC) s = 0;
    int xa = min (rx, width), xb = max (width - rx, xa);

    BSTORE (s, 0, pre);
    x = 0;
#if BL != 3
    {
      ACC16 c = 0;

      for (; fast && x + BPX <= width; x += BPX) {
        ACC16 v = vload16 (0, cs + x * BL);

        BPREFIX (v);
        v += c;
        c = BCARRY (v);
        vstore16 (v, 0, pre + (x + 1) * BL);
      }
      s = BLAST (c);
    }
#endif
    SCALAR_LOOP
    for (; x < width; x++) {
      s += BLOAD (x, cs);
      BSTORE (s, x + 1, pre);
    }
    /* left and right borders (x < xa, x >= xb): clipped windows */
    SCALAR_LOOP
    for (x = xa > 0 ? 0 : xb; x < width; x = x + 1 == xa ? xb : x + 1) {
      int x0 = max (x - rx, 0), x1 = min (x + rx, width - 1) + 1;
      ACC area = (ACC) (x1 - x0) * ny;
      BV (uint) m = MEAN (BLOAD (x1, pre) - BLOAD (x0, pre), area,
          1.0 / (double) area);

      STORE_MEAN (m, x);
    }
    /* interior: whole windows, one area */
    {
      ACC area = (ACC) (2 * rx + 1) * ny;
      double inv = 1.0 / (double) area;

      x = xa;
#if BL != 3
      for (; fast && x + BPX <= xb; x += BPX) {
        ACC16 sum = vload16 (0, pre + (x + rx + 1) * BL) -
            vload16 (0, pre + (x - rx) * BL);
        uint16 m = convert_uint16 (convert_double16 (sum + area / 2) * inv +
            0x1p-32);

        STORE_MEAN16 (m, x);
      }
#endif
      SCALAR_LOOP
      for (; x < xb; x++) {
        BV (uint) m = MEAN (BLOAD (x + rx + 1, pre) - BLOAD (x - rx, pre),
            area, inv);

        STORE_MEAN (m, x);
      }
    }
    add_sub_row (src, src_off, src_stride, width,
        y + ry + 1 < height ? y + ry + 1 : -1, y - ry >= 0 ? y - ry : -1, cs,
        fast);
  }
}

__kernel void
cpu_box_mean (__global const uchar * src, uint src_off, int src_stride,
    __global uchar * dst, uint dst_off, int dst_stride, int width,
    int height, int radius, int16 bands, __global ACC * scratch)
{
  box_mean_band (src, src_off, src_stride, dst, dst_off, dst_stride, width,
      height, radius, bands, scratch, true);
}

__kernel void
cpu_box_mean_first (__global const uchar * src, uint src_off,
    int src_stride, __global uchar * dst, uint dst_off, int dst_stride,
    int width, int height, int radius, int16 bands, __global ACC * scratch)
{
  box_mean_band (src, src_off, src_stride, dst, dst_off, dst_stride, width,
      height, radius, bands, scratch, false);
}

#endif /* BOX */

#endif /* !GPU_ONLY */

/* ---- GPU variant (left out with CPU_ONLY) ---- */

#if !CPU_ONLY

#define K 4                     /* consecutive pixels per work-item */

/* global (WG, height), local (WG, 1): work-group y scans source row y and
 * stores the inclusive row prefix as BITS at output row y + 1 */
__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))
void
gpu_rows (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, __global uchar * out, ulong out_off)
{
  __local V (ACC) part[WG];
  int lid = get_local_id (0);
  int y = get_group_id (1);
  __global const uchar *row = SRC_ROW (y);
  __global BITS *o = (__global BITS *) (out + out_off) +
      (size_t) (y + 1) * (width + 1) * CH;
  V (ACC) carry = 0;
  int base, k, d;

  if (lid == 0)
    STOREV ((V (BITS)) 0, 0, o);
  for (base = 0; base < width; base += WG * K) {
    int x0 = base + lid * K;
    V (ACC) v[K], t = 0, excl = 0;

    for (k = 0; k < K; k++) {
      if (x0 + k < width)
        t += VAL (V (ACC), load_px (row, x0 + k));
      v[k] = t;
    }
    part[lid] = t;
    barrier (CLK_LOCAL_MEM_FENCE);
    /* Hillis-Steele inclusive scan of the per-work-item totals */
    for (d = 1; d < WG; d <<= 1) {
      V (ACC) add = 0;
      if (lid >= d)
        add = part[lid - d];
      barrier (CLK_LOCAL_MEM_FENCE);
      part[lid] += add;
      barrier (CLK_LOCAL_MEM_FENCE);
    }
    if (lid > 0)
      excl = part[lid - 1];
    excl += carry;
    for (k = 0; k < K; k++)
      if (x0 + k < width)
        STOREV (CONVERT (V (BITS), v[k] + excl), x0 + k + 1, o);
    carry += part[WG - 1];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
}

/* global (round_up ((W + 1) * CH, 32), CB), local (32, CB): each column of
 * elements is split in CB bands; band totals are combined in local memory,
 * then each band turns row prefixes into integrals in place */
__kernel __attribute__ ((reqd_work_group_size (32, CB, 1)))
void
gpu_cols (int width, int height, __global uchar * out, ulong out_off)
{
  __local ACC part[CB][32];
  int lx = get_local_id (0), ly = get_local_id (1);
  size_t i = get_global_id (0);
  size_t n = (size_t) (width + 1) * CH;
  __global const BITS *ib = (__global const BITS *) (out + out_off);
  __global OUT *ob = (__global OUT *) (out + out_off);
  int rows = (height + CB - 1) / CB;
  int r0 = 1 + ly * rows, r1 = min (r0 + rows, height + 1);
  ACC t = 0, a = 0;
  int r, k;

  if (i < n)
    for (r = r0; r < r1; r++)
      t += CONVERT (ACC, ib[r * n + i]);
  part[ly][lx] = t;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (k = 0; k < ly; k++)
    a += part[k][lx];
  if (i >= n)
    return;
  if (ly == 0)
    ob[i] = 0;
  for (r = r0; r < r1; r++) {
    a += CONVERT (ACC, ib[r * n + i]);
    ob[r * n + i] = CONVERT (OUT, a);
  }
}

#endif /* !CPU_ONLY */

/* ---- GPU box mean (VALUE 0, OUT == ACC, integral at ii) ---- */

#if BOX && !CPU_ONLY


/* Mean of the (2r+1)^2 window clipped to the frame, divided by the clipped
 * area, rounded half up: (sum + area / 2) / area. CH=3 copies the pixel's
 * other bytes (alpha, padding) from the source. */
__kernel void
box_mean (__global const uchar * src, uint src_off, int src_stride,
    __global uchar * dst, uint dst_off, int dst_stride,
    __global const ACC * ii, int width, int height, int radius)
{
  int x = get_global_id (0), y = get_global_id (1);
  size_t w1 = (size_t) width + 1;
  int x0, x1, y0, y1;
  ulong area;
  V (ulong) sum;
  V (ulong) mean;
  __global uchar *drow;

  if (x >= width || y >= height)
    return;
  x0 = max (x - radius, 0);
  x1 = min (x, width - 1 - radius) + radius + 1;
  y0 = max (y - radius, 0);
  y1 = min (y, height - 1 - radius) + radius + 1;
  area = (ulong) (x1 - x0) * (ulong) (y1 - y0);
  /* ACC arithmetic: exact modulo 2^32 for uint; the host picks ulong when a
   * box could reach 2^32 */
  sum = CONVERT (V (ulong), LOADV (y1 * w1 + x1, ii)
      - LOADV (y0 * w1 + x1, ii) - LOADV (y1 * w1 + x0, ii)
      + LOADV (y0 * w1 + x0, ii));
  mean = (sum + area / 2) / area;
  drow = dst + dst_off + (size_t) y * dst_stride;
#if CH == 1
  ((__global SRC_T *) drow)[x] = CAT (convert_, SRC_T) (mean);
#else
  {
    __global const uchar *sp = SRC_ROW (y) + (size_t) x * PSTRIDE;
    __global uchar *dp = drow + (size_t) x * PSTRIDE;
    int k;

    for (k = 0; k < PSTRIDE; k++)
      dp[k] = sp[k];
    dp[ROFF] = (uchar) mean.x;
    dp[GOFF] = (uchar) mean.y;
    dp[BOFF] = (uchar) mean.z;
  }
#endif
}

#endif /* BOX && !CPU_ONLY */
