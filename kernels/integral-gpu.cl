/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral-gpu.cl: the GPU integral image in three
 * launches (part of the integral program). */

#if !CPU_ONLY

/* Reduce, scan, then write once. The frame is cut into tiles of SH rows
 * (a strip) by TW pixels (a block), one work-group of WG work-items each,
 * K consecutive pixels per work-item. Scratch (ACC): for each strip s a
 * row of m = (W + nblocks) * CH: the strip's column sums, then its tiles'
 * totals; after the nstrips rows, the tiles' row sums (SH per tile, V (ACC)
 * each).
 *   gpu_strip_sums      reads the source: column, row and tile sums
 *   gpu_strip_scan      turns each scratch column into the sum over the
 *                       strips above (small: 1/SH of the frame)
 *   gpu_strip_integral  reads the source again and writes each output
 *                       element once, coalesced: the rows above the strip
 *                       come from the scanned column sums, the tiles on
 *                       the left from their row sums and scanned totals.
 * Traffic per GRAY8 -> U32 pixel: 1 + 4 (output) + 1 (second read) + about
 * 16 / SH (scratch) bytes, where a row-then-column scheme moves 13. */
#ifndef SH
#define SH 16
#endif
#ifndef ROW_AHEAD
#define ROW_AHEAD 0
#endif
#define K 4
#define TW (WG * K)
/* local staging of a tile row, one pad word per 32: conflict-free both
 * when a work-item writes its K pixels and when the row is stored */
#define PAD(e) ((e) + ((e) >> 5))
/* a tile's partial row sums, WG + 1 per row: with PACKED the CH values of
 * one packed (12 bytes for three 32-bit sums, not a 16-byte V (ACC)), so
 * that more work-groups fit in a compute unit's local memory */
#ifndef PACKED
#define PACKED 1
#endif
#if PACKED
#define PART_ROW __local ACC
#define PART_N ((WG + 1) * CH)
#define PGET(r, i) LOADV (i, part[r])
#define PSET(v, r, i) STOREV (v, i, part[r])
#else
#define PART_ROW __local V (ACC)
#define PART_N (WG + 1)
#define PGET(r, i) (part[r][i])
#define PSET(v, r, i) (part[r][i] = (v))
#endif

/* PAIR: one program writes the sum plane (VALUE 0) and the squares plane
 * (ulong sums, OUT2 outputs), so each launch reads the frame once for both
 * and a frame takes three launches, not six. The #if PAIR parts are the
 * squares' share; the squares' row-by-row work runs on work-items WG / 2
 * onwards (another warp than the sums', SH <= WG / 2). The scratch is then
 * of ulong (SACC) for both planes: per strip the sums' m / 2 columns, then
 * the squares'; after the strips, every tile's row sums of the sum plane,
 * then of the squares. */
#ifndef PAIR
#define PAIR 0
#endif
#if PAIR
#if VALUE != 0 || ONEPASS
#error "PAIR: the sum plane (VALUE 0) of the strip kernels only"
#endif
#if SH > WG / 2
#error "PAIR: at most WG / 2 rows per strip"
#endif
#define SACC ulong
#define ACC2 ulong
#ifndef OUT2
#define OUT2 ulong
#endif
#define SQ(T, px) (CONVERT (T, px) * CONVERT (T, px))
#define LANE2 (WG / 2)
/* SQT: squares summed within one tile (the kernels' local partial sums):
 * 32 bits for 8-bit sources, whose tile holds at most WG * K * SH * 255^2
 * < 2^32; half the local memory of 64-bit ones, so more work-groups fit
 * in a compute unit. What comes from outside the tile (the rows above, the
 * tiles on the left) is added in 64 bits (ACC2). */
#if (CH == 1 && PSTRIDE == 2) || WG * K * SH > 66051
#define SQT ulong
#else
#define SQT uint
#endif
#if PACKED
#define PART_ROW2 __local SQT
#define PGET2(r, i) LOADV (i, part2[r])
#define PSET2(v, r, i) STOREV (v, i, part2[r])
#else
#define PART_ROW2 __local V (SQT)
#define PGET2(r, i) (part2[r][i])
#define PSET2(v, r, i) (part2[r][i] = (v))
#endif
#else
#define SACC ACC
#endif

#if CH == 1
#define STAGE_T(T, v, e, buf) ((buf)[PAD (e)] = CONVERT (T, v))
#else
#define STAGE_T(T, v, e, buf) do { (buf)[PAD (e)] = CONVERT (T, (v).x); \
    (buf)[PAD ((e) + 1)] = CONVERT (T, (v).y); \
    (buf)[PAD ((e) + 2)] = CONVERT (T, (v).z); } while (0)
#endif
#define STAGE(v, e, buf) STAGE_T (OUT, v, e, buf)

/* A work-item's K pixels are K * PSTRIDE = 4 * NW contiguous bytes. When
 * src_off and src_stride are multiples of WALIGN they are read as NW
 * words (one 4-, 8- or 16-byte load; three 4-byte ones for 3-byte pixels)
 * and unpacked in registers: a third to a twelfth of the loads of one per
 * sample */
#define NW PSTRIDE
#if NW == 3
#define WALIGN 4
#else
#define WALIGN (4 * NW)
#endif
#define WBYTE(w, o) (((w)[(o) >> 2] >> (8 * ((o) & 3))) & 0xffu)

/* the K pixels at @x0 of @row, 0 beyond @width */
void load_k (__global const uchar * row, int x0, int width, bool aligned,
    V (uint) * px);

void
load_k (__global const uchar * row, int x0, int width, bool aligned,
    V (uint) * px)
{
  int k;

  if (aligned && x0 + K <= width) {
    __global const uchar *p = row + (size_t) x0 * PSTRIDE;
    uint w[4];

#if NW == 4
    vstore4 (*(__global const uint4 *) p, 0, w);
#elif NW == 3
    vstore3 (vload3 (0, (__global const uint *) p), 0, w);
#elif NW == 2
    vstore2 (*(__global const uint2 *) p, 0, w);
#else
    w[0] = *(__global const uint *) p;
#endif
#pragma unroll
    for (k = 0; k < K; k++) {
#if CH == 1 && PSTRIDE == 2
      px[k] = WBYTE (w, 2 * k) | (WBYTE (w, 2 * k + 1) << 8);
#elif CH == 1
      px[k] = WBYTE (w, k);
#else
      px[k] = (uint3) (WBYTE (w, k * PSTRIDE + ROFF),
          WBYTE (w, k * PSTRIDE + GOFF), WBYTE (w, k * PSTRIDE + BOFF));
#endif
    }
  } else {
    for (k = 0; k < K; k++)
      px[k] = x0 + k < width ? load_px (row, x0 + k) : (V (uint)) 0;
  }
}

#define ALIGNED (((src_off | (uint) src_stride) % WALIGN) == 0)

/* Output rows ya + 1 .. ya + nr of a tile: part[r][lid] holds the sum of
 * row r's columns up to this work-item's (over the rows above and the
 * tile's rows up to r, without the tile's columns left of the work-item),
 * part[r][WG] the row's sum left of the tile; q[k] the sums of column
 * x0 + k over the rows above ya. Turns part into exclusive prefixes over
 * the work-items, then adds each row of the source in and stores it
 * coalesced through @stage. Leaves q[k] at the sums over rows < ya + nr.
 * PAIR: the same for the squares (@o2, @q2, @part2, @stage2), but part2
 * holds the tile's own rows only (SQT): lrow2[r] is the row's sum left of
 * the tile, @qx the sum over the rows above of the tile's columns left of
 * the work-item. */
void write_tile_rows (__global const uchar * src, uint src_off,
    int src_stride, int width, bool aligned, __global OUT * o,
    size_t ostride, int ya, int nr, int xb, int ne, V (ACC) * q,
    PART_ROW (*part)[PART_N], __local OUT * stage
#if PAIR
    , __global OUT2 * o2, V (ACC2) * q2, PART_ROW2 (*part2)[PART_N],
    __local OUT2 * stage2, __local const V (ACC2) * lrow2, V (ACC2) qx
#endif
    );

void
write_tile_rows (__global const uchar * src, uint src_off, int src_stride,
    int width, bool aligned, __global OUT * o, size_t ostride, int ya,
    int nr, int xb, int ne, V (ACC) * q, PART_ROW (*part)[PART_N],
    __local OUT * stage
#if PAIR
    , __global OUT2 * o2, V (ACC2) * q2, PART_ROW2 (*part2)[PART_N],
    __local OUT2 * stage2, __local const V (ACC2) * lrow2, V (ACC2) qx
#endif
    )
{
  int lid = get_local_id (0), x0 = xb + lid * K;
  int r, k, i;

  /* exclusive prefix over the work-items, one row per work-item, starting
   * from the row's sum left of the tile */
  if (lid < nr) {
    V (ACC) a = PGET (lid, WG);

    for (i = 0; i < WG; i++) {
      V (ACC) v = PGET (lid, i);

      PSET (a, lid, i);
      a += v;
    }
  }
#if PAIR
  else if (lid >= LANE2 && lid - LANE2 < nr) {
    int rr = lid - LANE2;
    V (SQT) a = 0;

    for (i = 0; i < WG; i++) {
      V (SQT) v = PGET2 (rr, i);

      PSET2 (a, rr, i);
      a += v;
    }
  }
#endif
  barrier (CLK_LOCAL_MEM_FENCE);

  /* ROW_AHEAD (GPUs): the next row's pixels are loaded before this row's
   * barrier and stores, so that their latency overlaps them (H200: 1-4%).
   * Otherwise each row is loaded where it is used: PoCL 5.0 computes
   * wrong sums from a private array that lives across the barrier (seen
   * with each of its work-group methods; PoCL 3.1 and NVIDIA are right). */
  V (uint) px[K];
#if ROW_AHEAD
  V (uint) nx[K];

  if (nr > 0)
    load_k (SRC_ROW (ya), x0, width, aligned, nx);
#endif
  for (r = 0; r < nr; r++) {
    size_t oe = (size_t) (ya + r + 1) * ostride + (size_t) (xb + 1) * CH;
    __global OUT *orow = o + oe;
    V (ACC) a = PGET (r, lid);
#if PAIR
    __global OUT2 *orow2 = o2 + oe;
    V (ACC2) a2 = lrow2[r] + qx + CONVERT (V (ACC2), PGET2 (r, lid));
#endif

#if ROW_AHEAD
    for (k = 0; k < K; k++)
      px[k] = nx[k];
    if (r + 1 < nr)
      load_k (SRC_ROW (ya + r + 1), x0, width, aligned, nx);
#else
    load_k (SRC_ROW (ya + r), x0, width, aligned, px);
#endif
    for (k = 0; k < K; k++) {
      q[k] += VAL (V (ACC), px[k]);
      a += q[k];
      STAGE (a, (lid * K + k) * CH, stage);
#if PAIR
      q2[k] += SQ (V (ACC2), px[k]);
      a2 += q2[k];
      STAGE_T (OUT2, a2, (lid * K + k) * CH, stage2);
#endif
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    for (i = lid; i < ne; i += WG) {
      orow[i] = stage[PAD (i)];
#if PAIR
      orow2[i] = stage2[PAD (i)];
#endif
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
}

#if !ONEPASS

/* global (nblocks * WG, nstrips), local (WG, 1) */
__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))
void
gpu_strip_sums (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, __global SACC * sums)
{
  PART_ROW part[SH][PART_N];
#if PAIR
  PART_ROW2 part2[SH][PART_N];
#endif
  int lid = get_local_id (0), b = get_group_id (0), s = get_group_id (1);
  int nb = get_num_groups (0), ns = get_num_groups (1);
  int x0 = b * TW + lid * K, ya = s * SH, nr = min (SH, height - ya);
  size_t m = ((size_t) width + nb) * CH * (1 + PAIR);
  __global SACC *srow = sums + (size_t) s * m;
  __global SACC *rs = sums + (size_t) ns * m + ((size_t) s * nb + b) * SH * CH;
#if PAIR
  __global SACC *srow2 = srow + m / 2;
  __global SACC *rs2 = rs + (size_t) ns * nb * SH * CH;
#endif
  V (ACC) col[K];
#if PAIR
  V (SQT) col2[K];
#endif
  int r, k, i;

  bool aligned = ALIGNED;

  for (k = 0; k < K; k++) {
    col[k] = 0;
#if PAIR
    col2[k] = 0;
#endif
  }
  for (r = 0; r < nr; r++) {
    V (uint) px[K];
    V (ACC) t = 0;
#if PAIR
    V (SQT) t2 = 0;
#endif

    load_k (SRC_ROW (ya + r), x0, width, aligned, px);
    for (k = 0; k < K; k++) {
      V (ACC) v = VAL (V (ACC), px[k]);
      col[k] += v;
      t += v;
#if PAIR
      V (SQT) v2 = SQ (V (SQT), px[k]);
      col2[k] += v2;
      t2 += v2;
#endif
    }
    PSET (t, r, lid);
#if PAIR
    PSET2 (t2, r, lid);
#endif
  }
  for (k = 0; k < K; k++)
    if (x0 + k < width) {
      STOREV (CONVERT (V (SACC), col[k]), x0 + k, srow);
#if PAIR
      STOREV (CONVERT (V (SACC), col2[k]), x0 + k, srow2);
#endif
    }
  barrier (CLK_LOCAL_MEM_FENCE);
  if (lid < nr) {
    V (ACC) t = 0;

    for (i = 0; i < WG; i++)
      t += PGET (lid, i);
    STOREV (CONVERT (V (SACC), t), lid, rs);
    PSET (t, lid, WG);
  }
#if PAIR
  else if (lid >= LANE2 && lid - LANE2 < nr) {
    int rr = lid - LANE2;
    V (SQT) t = 0;

    for (i = 0; i < WG; i++)
      t += PGET2 (rr, i);
    STOREV (CONVERT (V (SACC), t), rr, rs2);
    PSET2 (t, rr, WG);
  }
#endif
  barrier (CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    V (ACC) t = 0;

    for (r = 0; r < nr; r++)
      t += PGET (r, WG);
    STOREV (CONVERT (V (SACC), t), width + b, srow);
  }
#if PAIR
  else if (lid == LANE2) {
    V (SQT) t = 0;

    for (r = 0; r < nr; r++)
      t += PGET2 (r, WG);
    STOREV (CONVERT (V (SACC), t), width + b, srow2);
  }
#endif
}

/* global (round_up (m, 32), CB), local (32, CB): each of the m scratch
 * columns split in CB bands of strips; band totals combined in local
 * memory, then each band writes exclusive prefixes in place */
__kernel __attribute__ ((reqd_work_group_size (32, CB, 1)))
void
gpu_strip_scan (uint m, int nstrips, __global SACC * sums)
{
  __local SACC part[CB][32];
  int lx = get_local_id (0), ly = get_local_id (1);
  size_t i = get_global_id (0);
  int per = (nstrips + CB - 1) / CB;
  int s0 = min (ly * per, nstrips), s1 = min (s0 + per, nstrips);
  SACC t = 0, a = 0;
  int s, k;

  if (i < m)
    for (s = s0; s < s1; s++)
      t += sums[(size_t) s * m + i];
  part[ly][lx] = t;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (k = 0; k < ly; k++)
    a += part[k][lx];
  if (i >= m)
    return;
  for (s = s0; s < s1; s++) {
    size_t e = (size_t) s * m + i;
    SACC v = sums[e];

    sums[e] = a;
    a += v;
  }
}

/* global (nblocks * WG, nstrips), local (WG, 1): output rows ya + 1 ..
 * ya + SH, columns xb + 1 .. xb + TW of the tile, plus the zero first row
 * and column (PAIR: of both planes, the squares' at out_off2) */
__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))
void
gpu_strip_integral (__global const uchar * src, uint src_off,
    int src_stride, int width, int height, __global const SACC * sums,
    __global uchar * out, ulong out_off
#if PAIR
    , ulong out_off2
#endif
    )
{
  PART_ROW part[SH][PART_N];
  __local V (ACC) left[SH];
  __local OUT stage[PAD (TW * CH) + 1];
#if PAIR
  PART_ROW2 part2[SH][PART_N];
  __local V (ACC2) left2[SH], lrow2[SH];
  /* each work-item's sum over the rows above of its K columns, then of
   * each 8 work-items' (for the exclusive prefix of those over the tile) */
  __local ACC2 qcol2[WG * CH], qblk2[WG / 8 * CH];
  __local OUT2 stage2[PAD (TW * CH) + 1];
#endif
  int lid = get_local_id (0), b = get_group_id (0), s = get_group_id (1);
  int nb = get_num_groups (0), ns = get_num_groups (1);
  int xb = b * TW, x0 = xb + lid * K, ya = s * SH;
  int nr = min (SH, height - ya), ne = min (TW, width - xb) * CH;
  size_t m = ((size_t) width + nb) * CH * (1 + PAIR);
  size_t ostride = ((size_t) width + 1) * CH;
  __global const SACC *srow = sums + (size_t) s * m;
  __global const SACC *rs = sums + (size_t) ns * m + (size_t) s * nb * SH * CH;
  __global OUT *o = (__global OUT *) (out + out_off);
  V (ACC) q[K], run = 0;
#if PAIR
  __global const SACC *srow2 = srow + m / 2;
  __global const SACC *rs2 = rs + (size_t) ns * nb * SH * CH;
  __global OUT2 *o2 = (__global OUT2 *) (out + out_off2);
  V (ACC2) q2[K], qsum2 = 0, qx = 0;
  V (SQT) run2 = 0;
#endif
  bool aligned = ALIGNED;
  int r, k, i;

  if (s == 0) {
    for (i = lid; i < ne; i += WG) {
      o[(size_t) (xb + 1) * CH + i] = 0;
#if PAIR
      o2[(size_t) (xb + 1) * CH + i] = 0;
#endif
    }
    if (b == 0 && lid < CH) {
      o[lid] = 0;
#if PAIR
      o2[lid] = 0;
#endif
    }
  }
  if (b == 0 && lid < nr) {
    STOREV ((V (OUT)) 0, 0, o + (size_t) (ya + lid + 1) * ostride);
#if PAIR
    STOREV ((V (OUT2)) 0, 0, o2 + (size_t) (ya + lid + 1) * ostride);
#endif
  }

  /* row r of the strip, left of the tile: its sums over the tiles on the
   * left, whose totals over the strips above (scanned) come on top */
  if (lid < nr) {
    V (ACC) t = 0;

    for (i = 0; i < b; i++)
      t += CONVERT (V (ACC), LOADV (i * SH + lid, rs));
    left[lid] = t;
  }
#if PAIR
  else if (lid >= LANE2 && lid - LANE2 < nr) {
    int rr = lid - LANE2;
    V (ACC2) t = 0;

    for (i = 0; i < b; i++)
      t += LOADV (i * SH + rr, rs2);
    left2[rr] = t;
  }
#endif
  for (k = 0; k < K; k++) {
    q[k] = x0 + k < width ? CONVERT (V (ACC), LOADV (x0 + k, srow)) :
        (V (ACC)) 0;
    run += q[k];
#if PAIR
    q2[k] = x0 + k < width ? LOADV (x0 + k, srow2) : (V (ACC2)) 0;
    qsum2 += q2[k];
#endif
  }
#if PAIR
  STOREV (qsum2, lid, qcol2);
#endif
  barrier (CLK_LOCAL_MEM_FENCE);
#if PAIR
  /* qx: qcol2's exclusive prefix, here over this work-item's 8, after the
   * next barrier over the 8s on the left */
  for (i = 0; i < 7; i++)
    if (i < (lid & 7))
      qx += LOADV ((lid & ~7) + i, qcol2);
  if ((lid & 7) == 7)
    STOREV (qx + qsum2, lid >> 3, qblk2);
#endif
  if (lid < nr) {
    V (ACC) t = 0;

    for (i = 0; i < b; i++)
      t += CONVERT (V (ACC), LOADV (width + i, srow));
    for (r = 0; r <= lid; r++)
      t += left[r];
    PSET (t, lid, WG);
  }
#if PAIR
  else if (lid >= LANE2 && lid - LANE2 < nr) {
    int rr = lid - LANE2;
    V (ACC2) t = 0;

    for (i = 0; i < b; i++)
      t += LOADV (width + i, srow2);
    for (r = 0; r <= rr; r++)
      t += left2[r];
    lrow2[rr] = t;
  }
#endif

  /* this work-item's K columns summed, row after row */
  for (r = 0; r < nr; r++) {
    V (uint) px[K];

    load_k (SRC_ROW (ya + r), x0, width, aligned, px);
    for (k = 0; k < K; k++) {
      run += VAL (V (ACC), px[k]);
#if PAIR
      run2 += SQ (V (SQT), px[k]);
#endif
    }
    PSET (run, r, lid);
#if PAIR
    PSET2 (run2, r, lid);
#endif
  }
  barrier (CLK_LOCAL_MEM_FENCE);
#if PAIR
  for (i = 0; i < WG / 8 - 1; i++)
    if (i < lid >> 3)
      qx += LOADV (i, qblk2);
#endif
  write_tile_rows (src, src_off, src_stride, width, aligned, o, ostride, ya,
      nr, xb, ne, q, part, stage
#if PAIR
      , o2, q2, part2, stage2, lrow2, qx
#endif
      );
}

#endif /* !ONEPASS */

#endif /* !CPU_ONLY */
