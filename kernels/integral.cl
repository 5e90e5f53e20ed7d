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
 * CPU variant (few long work-items, no barriers): cpu_colsum gives each band
 * of rows its column totals; cpu_scan then walks each band top-down with a
 * running row prefix plus one private-to-the-band row of column sums, so the
 * output is written exactly once.
 * GPU variant: gpu_rows scans each row in local memory (one work-group per
 * row) and stores the row prefix as integer bits (BITS) in place; gpu_cols
 * walks columns (coalesced) in CB bands per work-group and turns them into
 * the final values in place.
 *
 * Options: CH (1|3), SRC_T (uchar|ushort, CH=1), PSTRIDE ROFF GOFF BOFF
 * (bytes, CH=3), ACC, OUT, BITS, VALUE (0 sum, 1 square, 2 non-zero),
 * WG (gpu_rows work-group size, power of two), CB (gpu_cols row bands). */

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

/* ---- CPU variant ---- */

/* Band b (rows [b * band_rows, ...)) -> its column totals, W * CH ACC */
__kernel void
cpu_colsum (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, int band_rows, __global ACC * colsum)
{
  int b = get_global_id (0);
  int y0 = b * band_rows, y1 = min (y0 + band_rows, height);
  __global ACC *cs = colsum + (size_t) b * width * CH;
  int x, y;

  for (x = 0; x < width * CH; x++)
    cs[x] = 0;
  for (y = y0; y < y1; y++) {
    __global const uchar *row = SRC_ROW (y);
    x = 0;
#if CH == 1
    for (; x + 8 <= width; x += 8) {
      uint8 px = convert_uint8 (vload8 (0, (__global const SRC_T *) row + x));
      vstore8 (vload8 (0, cs + x) + VAL (CAT (ACC, 8), px), 0, cs + x);
    }
#endif
    for (; x < width; x++)
      STOREV (LOADV (x, cs) + VAL (V (ACC), load_px (row, x)), x, cs);
  }
}

/* Band b writes output rows b * band_rows + 1 ... (band 0 also row 0).
 * acc holds the integral of the row above (columns 1..W), in ACC, so float
 * outputs never feed back into the sums. */
__kernel void
cpu_scan (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, int band_rows, __global const ACC * colsum,
    __global ACC * accrow, __global uchar * out, ulong out_off)
{
  int b = get_global_id (0);
  int y0 = b * band_rows, y1 = min (y0 + band_rows, height);
  size_t n = (size_t) width * CH;
  size_t ostride = (size_t) (width + 1) * CH;
  __global ACC *acc = accrow + b * n;
  __global OUT *o = (__global OUT *) (out + out_off);
  V (ACC) s = 0;
  int x, y, k;

  if (y0 >= height)
    return;
  /* the row above the band: prefix over x of the column totals above */
  for (x = 0; x < width; x++) {
    V (ACC) c = 0;
    for (k = 0; k < b; k++)
      c += LOADV (x, colsum + k * n);
    s += c;
    STOREV (s, x, acc);
  }
  if (b == 0)
    for (x = 0; x < (int) ostride; x++)
      o[x] = 0;

  for (y = y0; y < y1; y++) {
    __global const uchar *row = SRC_ROW (y);
    __global OUT *orow = o + (size_t) (y + 1) * ostride;

    STOREV ((V (OUT)) 0, 0, orow);
    s = 0;
    x = 0;
#if CH == 1
    /* 8 pixels at a time: in-vector prefix (3 shifted adds), then the
     * running sum; the serial dependency is one add per 8 pixels */
    for (; x + 8 <= width; x += 8) {
      CAT (ACC, 8) v = VAL (CAT (ACC, 8),
          convert_uint8 (vload8 (0, (__global const SRC_T *) row + x)));
      v += (CAT (ACC, 8)) ((ACC) 0, v.s0123, v.s456);
      v += (CAT (ACC, 8)) ((ACC) 0, (ACC) 0, v.s0123, v.s45);
      v += (CAT (ACC, 8)) ((CAT (ACC, 4)) 0, v.s0123);
      v += s;
      s = v.s7;
      v += vload8 (0, acc + x);
      vstore8 (v, 0, acc + x);
      vstore8 (CONVERT (CAT (OUT, 8), v), 0, orow + x + 1);
    }
#endif
    for (; x < width; x++) {
      V (ACC) a;
      s += VAL (V (ACC), load_px (row, x));
      a = LOADV (x, acc) + s;
      STOREV (a, x, acc);
      STOREV (CONVERT (V (OUT), a), x + 1, orow);
    }
  }
}

/* ---- GPU variant ---- */

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

/* ---- box mean (VALUE 0, OUT == ACC, integral at ii) ---- */

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
