/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral-cpu-box.cl: the CPU box mean (part of the
 * integral program). */

#if !GPU_ONLY && BOX

/* ---- CPU box mean (VALUE 0): one pass, running sums, no integral image ----
 *
 * A work-group keeps, for its current row y, the column sums of source
 * rows y - r .. y + r (clipped) in cs, updated by one row in and one out per
 * row, down or up the frame; their prefix over x (pre, W + 1 entries) gives
 * every window sum with one subtraction. Which rows each group scans is
 * decided while running (box_dynamic). Mean as box_mean below:
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
/* Chunks of BN lanes (BPX pixels): gray 8 lanes, 4-byte RGB 16 (4
 * pixels). 8 gray lanes keep to 256-bit vectors: PoCL makes 512-bit ones
 * of 16 lanes, which on these cores leave one vector ALU port idle and
 * put every shuffle on the other; the prefix's first two steps stay
 * inside 128-bit halves */
#if BL == 1
#define BN 8
#else
#define BN 16
#endif
#define BPX (BN / BL)
#define BVN CAT (ACC, BN)
#define BLOADN(p) CAT (vload, BN) (0, p)
#define BSTOREN(v, p) CAT (vstore, BN) (v, 0, p)
#define ACC2 CAT (ACC, 2)
/* BN samples stored with one unaligned vector store (vstore16 of 8-bit
 * lanes became 16 byte stores in PoCL 3.1) */
#if BL == 1
typedef SRC_T UNALIGNED_N __attribute__ ((ext_vector_type (BN), aligned (1)));
#else
typedef uchar UNALIGNED_N __attribute__ ((ext_vector_type (BN), aligned (1)));
#endif
/* 8-bit samples: the interior's means in float where that is exact.
 * N = sum + area / 2 < 2^24 is exact, N * fl(1 / area) + 2^-14 is within
 * E = 256 * 1.5 * 2^-23 < 2^-14 of Q + 2^-14 (Q = N / area <= 255 + 1/2,
 * three roundings of relative 2^-24): truncation never lowers an integer
 * Q, and a fractional one, at least 1 / area below the next integer,
 * stays below it while 2^-14 + E < 1 / area, i.e. area <= 8192 (windows
 * up to 89 x 89); larger windows take the double path */
#if CH == 3 || PSTRIDE == 1
#define FLOAT_MEAN_AREA 8192
#endif
#if BL == 1
#define BSRCN(row, x) CONVERT (ACC8, vload8 (0, \
      (__global const SRC_T *) (row) + (x)))
#define BPREFIX(v) do { \
    v += __builtin_shufflevector (v, (ACC8) 0, 8, 0, 1, 2, 8, 4, 5, 6); \
    v += __builtin_shufflevector (v, (ACC8) 0, 8, 8, 0, 1, 8, 8, 4, 5); \
    v += __builtin_shufflevector (v, (ACC8) 0, 8, 8, 8, 8, 3, 3, 3, 3); \
  } while (0)
#define BCARRY(v) ((ACC8) (v.s7))
#define BLAST(v) (v.s0)
#define STORE_MEANN(m, x) (*(__global UNALIGNED_N *) \
      ((__global SRC_T *) drow + (x)) = CONVERT (CAT (SRC_T, 8), m))
#else
#define BSRCN(row, x) CONVERT (ACC16, vload16 (0, (row) + (x) * 4))
#define BPREFIX(v) do { \
    v += (ACC16) ((ACC4) 0, v.s0123, v.s4567, v.s89ab); \
    v += (ACC16) ((ACC8) 0, v.lo); } while (0)
#define BCARRY(v) (v.scdefcdefcdefcdef)
#define BLAST(v) (v.s0123)
#define KEEP4 KEEPL (0), KEEPL (1), KEEPL (2), KEEPL (3)
#define STORE_MEANN(m, x) (*(__global UNALIGNED_N *) (drow + (x) * 4) = \
      select (convert_uchar16 (m), vload16 (0, srow + (x) * 4), \
          (char16) (KEEP4, KEEP4, KEEP4, KEEP4)))
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
    BVN t = BLOADN (acc + x * BL);
    if (ya >= 0)
      t += BSRCN (ra, x);
    if (yb >= 0)
      t -= BSRCN (rb, x);
    BSTOREN (t, acc + x * BL);
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

/* the box mean's arguments, passed on to its helpers */
#define BOX_ARGS src, src_off, src_stride, dst, dst_off, dst_stride, width, \
    height, rx, ry
#define BOX_PARAMS __global const uchar * src, uint src_off, \
    int src_stride, __global uchar * dst, uint dst_off, int dst_stride, \
    int width, int height, int rx, int ry

/* row @y's means from @cs, the column sums of its window (source rows
 * y - ry .. y + ry, clipped); @pre: scratch for their prefix over x.
 * @fast FALSE (cpu_box_mean_first): pixel by pixel, less to compile */
static void box_row (BOX_PARAMS, int y, __global ACC * cs,
    __global ACC * pre, bool fast);

static inline __attribute__ ((always_inline)) void
box_row (BOX_PARAMS, int y, __global ACC * cs, __global ACC * pre,
    bool fast)
{
  __global const uchar *srow = SRC_ROW (y);
  __global uchar *drow = dst + dst_off + (size_t) y * dst_stride;
  ACC ny = (ACC) (min (y + ry, height - 1) + 1 - max (y - ry, 0));
  BV (ACC) s = 0;
  int xa = min (rx, width), xb = max (width - rx, xa), x;

  BSTORE (s, 0, pre);
  x = 0;
#if BL != 3
  {
    BVN c = 0;

    for (; fast && x + BPX <= width; x += BPX) {
      BVN v = BLOADN (cs + x * BL), t;

      BPREFIX (v);
      /* the chunk's total broadcast before the carry goes in: the
       * loop-carried chain is one add */
      t = BCARRY (v);
      v += c;
      c += t;
      BSTOREN (v, pre + (x + 1) * BL);
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
#ifdef FLOAT_MEAN_AREA
    if (area <= FLOAT_MEAN_AREA) {
      float invf = (float) inv;

      for (; fast && x + BPX <= xb; x += BPX) {
        BVN sum = BLOADN (pre + (x + rx + 1) * BL) -
            BLOADN (pre + (x - rx) * BL);
        CAT (uint, BN) m = CONVERT (CAT (uint, BN),
            CONVERT (CAT (float, BN), sum + area / 2) * invf + 0x1p-14f);

        STORE_MEANN (m, x);
      }
    }
#endif
    for (; fast && x + BPX <= xb; x += BPX) {
      BVN sum = BLOADN (pre + (x + rx + 1) * BL) -
          BLOADN (pre + (x - rx) * BL);
      CAT (uint, BN) m = CONVERT (CAT (uint, BN),
          CONVERT (CAT (double, BN), sum + area / 2) * inv + 0x1p-32);

      STORE_MEANN (m, x);
    }
#endif
    SCALAR_LOOP
    for (; x < xb; x++) {
      BV (uint) m = MEAN (BLOAD (x + rx + 1, pre) - BLOAD (x - rx, pre),
          area, inv);

      STORE_MEAN (m, x);
    }
  }
}

/* @cs = the column sums of row @y's window */
static void box_window (BOX_PARAMS, int y, __global ACC * cs, bool fast);

static void
box_window (BOX_PARAMS, int y, __global ACC * cs, bool fast)
{
  int x, k;

  SCALAR_LOOP
  for (x = 0; x < width * BL; x++)
    cs[x] = 0;
  SCALAR_LOOP
  for (k = max (y - ry, 0); k < min (y + ry + 1, height); k++)
    add_sub_row (src, src_off, src_stride, width, k, -1, cs, fast);
}

/* rows [y0, y1): top-down (@cs the window of row y0 in, of row y1 out) or
 * @up, bottom-up (the window of row y1 - 1 in, of row y0 - 1 out) */
static void box_rows (BOX_PARAMS, int y0, int y1, bool up,
    __global ACC * cs, __global ACC * pre, bool fast);

static void
box_rows (BOX_PARAMS, int y0, int y1, bool up, __global ACC * cs,
    __global ACC * pre, bool fast)
{
  int i, y, in, out;

  SCALAR_LOOP
  for (i = 0; i < y1 - y0; i++) {
    y = up ? y1 - 1 - i : y0 + i;
    box_row (BOX_ARGS, y, cs, pre, fast);
    /* the next row's window: one row in, one out (-1: none) */
    in = up ? y - ry - 1 : y + ry + 1;
    out = up ? y + ry : y - ry;
    add_sub_row (src, src_off, src_stride, width,
        in >= 0 && in < height ? in : -1, out >= 0 && out < height ? out : -1,
        cs, fast);
  }
}

/* one band per work-group, split at launch (cpu_box_mean_first) */
static void box_mean_band (BOX_PARAMS, int16 bands,
    __global ACC * scratch);

static void
box_mean_band (BOX_PARAMS, int16 bands, __global ACC * scratch)
{
  int b = get_global_id (0), bs[16], y0, y1;
  __global ACC *cs = SCRATCH_ROWS (scratch) + b * (2 * width + 1) * BL;

  vstore16 (bands, 0, bs);
  y0 = bs[b];
  y1 = min (bs[b + 1], height);
  if (y0 >= y1)
    return;
  box_window (BOX_ARGS, y0, cs, false);
  box_rows (BOX_ARGS, y0, y1, false, cs, cs + width * BL, false);
}

/* The split decided while running (cpu_box_mean), as dynamic_bands does
 * for the integral, with less to it: any row's means need only its window,
 * whose column sums take 2r + 1 rows added up from anywhere. Group g
 * claims region g from the top and scans down, on into the next regions
 * while their tops are free (whichever group runs alone does the whole
 * frame, its window sliding across); then it helps every region from the
 * bottom, scanning up from a window of its own, where more is left than
 * that window costs. No group waits for another. */
static void box_dynamic (BOX_PARAMS, int16 bands, __global ACC * scratch,
    uint epoch);

static void
box_dynamic (BOX_PARAMS, int16 bands, __global ACC * scratch, uint epoch)
{
  /* (tests: bit 8 of @epoch gives the regions to the groups bottom-up, so
   * that a group that runs alone scans most rows upwards) */
  int ng = get_global_size (0), g = epoch & 0x100 ? ng - 1 -
      (int) get_global_id (0) : (int) get_global_id (0);
  int bs[16], br = max (BLOCK_ROWS, (height + MAX_BLOCKS - 1) / MAX_BLOCKS);
  volatile __global uint *words = (volatile __global uint *) scratch;
  __global ACC *cs = SCRATCH_ROWS (scratch) + g * (2 * width + 1) * BL;
  __global ACC *pre = cs + width * BL;
  int r = g, i, k, ys, ye, nb;

  epoch &= 0xff;
  vstore16 (bands, 0, bs);
  REGION (r, ys, ye, nb);
  i = claim (words + r * 16, epoch, nb, false, true);
  if (i >= 0)
    box_window (BOX_ARGS, ys, cs, true);
  while (i >= 0) {
    box_rows (BOX_ARGS, ys + i * br, min (ys + (i + 1) * br, ye), false, cs,
        pre, true);
    if (i == nb - 1) {
      /* the region's last row done, @cs the next row's window: the next
       * region with rows, from its top if still free */
      do {
        if (++r >= ng)
          break;
        REGION (r, ys, ye, nb);
      } while (nb == 0);
      i = r < ng ? claim (words + r * 16, epoch, nb, false, true) : -1;
    } else {
      i = claim (words + r * 16, epoch, nb, false, false);
    }
  }
  for (k = 1; k <= ng; k++) {
    int j;

    r = (g + k) % ng;
    REGION (r, ys, ye, nb);
    if (unclaimed (words + r * 16, epoch, nb) * br * ADD_PER_ROW <=
        min (2 * ry + 1, height))
      continue;
    for (j = claim (words + r * 16, epoch, nb, true, true); j >= 0;
        j = claim (words + r * 16, epoch, nb, true, false)) {
      int b = nb - 1 - j, y1 = min (ys + (b + 1) * br, ye);

      /* the first block from the bottom: its last row's window */
      if (y1 == ye)
        box_window (BOX_ARGS, ye - 1, cs, true);
      box_rows (BOX_ARGS, ys + b * br, y1, true, cs, pre, true);
    }
  }
}

__kernel void
cpu_box_mean (__global const uchar * src, uint src_off, int src_stride,
    __global uchar * dst, uint dst_off, int dst_stride, int width,
    int height, int radius, int16 bands, __global ACC * scratch, uint epoch)
{
  int rx = min (radius, width), ry = min (radius, height);

  box_dynamic (BOX_ARGS, bands, scratch, epoch);
}

/* (@epoch: cpu_box_mean's arguments, unused) */
__kernel void
cpu_box_mean_first (__global const uchar * src, uint src_off,
    int src_stride, __global uchar * dst, uint dst_off, int dst_stride,
    int width, int height, int radius, int16 bands, __global ACC * scratch,
    uint epoch)
{
  int rx = min (radius, width), ry = min (radius, height);

  box_mean_band (BOX_ARGS, bands, scratch);
}

#endif /* !GPU_ONLY && BOX */
