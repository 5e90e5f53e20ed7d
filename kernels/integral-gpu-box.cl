/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral-gpu-box.cl: the GPU box means (part of the
 * integral program). */

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

/* ---- GPU box mean in one launch, no integral image (radius <= BT_R) ----
 *
 * A work-group of BT_WG (256) work-items owns BT_WG columns of the frame,
 * its BT_WG - 2r means and r columns of apron on each side (tiles overlap
 * by 2r columns), and BT_H (16) rows. Vertical pass: each work-item slides
 * a window of 2r + 1 source rows down the tile's rows in its column and
 * leaves the column sums in local memory. Horizontal pass: each work-item
 * slides a window of 2r + 1 column sums along BT_SEG (16) consecutive means
 * of one row. A window costs 2r + 1 additions once and two per further
 * step, whatever the radius; the source is read about once, each mean
 * written once, where the integral path writes and reads back a table of 4
 * bytes per sample.
 *
 * Sums are exact: 8-bit column sums fit 16 bits ((2r + 1) * 255), so
 * 3-sample pixels keep theirs two to a word (bt_vsum), 16-bit samples'
 * fit 32 bits. Means as box_mean, (sum + area / 2) / area: whole
 * windows of 8-bit samples ((2r + 1)^2 <= 4225 <= 8192) in float with
 * @inv = fl (1 / area) from the host, exact by the argument at
 * FLOAT_MEAN_AREA (the CPU box mean, which computes the same expression);
 * clipped windows and 16-bit samples by 32-bit integer division
 * (sum + area / 2 < 65535 * 4225 + 2113 < 2^32). 4-byte pixels are read and
 * written as one 32-bit word: the host takes this kernel for them only
 * where the plane's offset and row pitch are multiples of 4 (a test of
 * alignment per load, measured on an H200, cost a quarter of the time). */

#define BT_WG 256
#define BT_H 16
#define BT_SEG 16
#define BT_R 32
/* local column sums: one spare element after every BT_SEG, so that the
 * work-items of a warp, reading BT_SEG-element segments, spread over the
 * banks; rows 16 elements apart modulo 32 (4-byte sums: two rows per warp
 * on distinct banks) */
#define BT_PITCH ((BT_WG + BT_WG / BT_SEG + 15) / 32 * 32 + 16)
#define BT_AT(row, c) ((row) * BT_PITCH + (c) + (c) / BT_SEG)

#if CH == 1
typedef uint bt_sum;
typedef uint bt_vsum;
typedef uint bt_col;
#define BT_COL(s) (s)
#define BT_SUM(c) (c)
#else
/* column sums two to a word in 16-bit lanes, (R | B << 16, G): adding
 * and subtracting whole words is exact modulo 2^32 since each lane's
 * result fits; half the additions of 4 lanes (H200, 4K RGBA 69 -> 67 us) */
typedef uint4 bt_sum;
typedef uint2 bt_vsum;
typedef uint2 bt_col;
#define BT_COL(s) (s)
#define BT_SUM(c) ((uint4) ((c).x & 0xffff, (c).y, (c).x >> 16, 0))
#endif
/* row sums of radius <= 7 ((2r + 1)^2 * 255 < 2^16) fit the column sums'
 * 16-bit lanes as well: such rows slide their window packed, two lanes to
 * a word, and unpack once per mean (H200, 4K RGBA 67 -> 64 us); one sum
 * to a word (CH=1) slides as it is, whatever the radius */
#if CH == 1
#define BT_PACKED_ROWS(r) true
#else
#define BT_PACKED_ROWS(r) ((r) <= 7)
#endif
/* component i (0..3, a constant) of a 4-vector */
#define BT_LANE(v, i) (v).CAT (s, i)
/* a pixel as loaded, one 32-bit word (R, G, B in bytes 0-2 for CH=3),
 * widened to the column sums' lanes: the slides keep 30 loaded words in
 * flight, not 60 widened pairs */
#if CH == 1
#define BT_WIDEN(w) (w)
#else
#define BT_WIDEN(w) ((uint2) ((w) & 0x00ff00ff, ((w) >> 8) & 0xff))
#endif

/* the byte of a 4-byte pixel that passes through (alpha, padding) */
#define BT_KOFF (6 - ROFF - GOFF - BOFF)
/* 4-byte pixels: interior tiles of radius <= 7 keep that byte of their 16
 * rows in local memory from the vertical slide's loads (which cover those
 * rows there), so that the stores need no load */
#define BT_KEEP (CH == 3 && PSTRIDE == 4)

/* a whole window's mean of 8-bit samples in float (see above) */
#if CH == 1
#define BT_FLOAT_MEAN(s, area) \
  convert_uint ((float) ((s) + (area) / 2) * inv + 0x1p-14f)
#else
#define BT_FLOAT_MEAN(s, area) \
  convert_uint4 (convert_float4 ((s) + (area) / 2) * inv + 0x1p-14f)
#endif

/* means packed into a word as the stores take them (R, G, B in bytes 0-2
 * for CH=3) */
uint bt_pack (bt_sum m);

uint
bt_pack (bt_sum m)
{
#if CH == 1
  return m;
#else
  return m.x | m.y << 8 | m.z << 16;
#endif
}

/* a pixel's R, G, B in bytes 0-2 (CH=3; 4-byte pixels: the kept byte in
 * byte 3) */
uint bt_fetch (__global const uchar * row, int x);

uint
bt_fetch (__global const uchar * row, int x)
{
#if CH == 1
  return ((__global const SRC_T *) row)[x];
#elif PSTRIDE == 4
  uint w = ((__global const uint *) row)[x];

  return (w >> 8 * ROFF & 0xff) | (w >> 8 * GOFF & 0xff) << 8 |
      (w >> 8 * BOFF & 0xff) << 16 | (w >> 8 * BT_KOFF) << 24;
#else
  __global const uchar *p = row + (size_t) x * PSTRIDE;

  return p[ROFF] | (uint) p[GOFF] << 8 | (uint) p[BOFF] << 16;
#endif
}

#define BT_LOAD(row, x) BT_WIDEN (bt_fetch (row, x))

/* row @row of the tile's means from local memory to the frame: a step of
 * box_mean_tile's stores, in its variables (a macro, so that full tiles
 * unroll all 16 and issue their local reads together: H200, 4K RGBA
 * 55.3 -> 54.8 us, GRAY8 34.5 -> 33.0 us) */
#if CH == 1
#define BT_STORE_ROW(row) ((__global SRC_T *) (dst + dst_off + \
        (size_t) (ty + (row)) * dst_stride))[x] = (SRC_T) lmem[BT_AT (row, lid)]
#elif PSTRIDE == 4
#define BT_STORE_ROW(row) do { \
    uint m_ = lmem[BT_AT (row, lid)]; \
    uchar4 p_ = keep_local ? \
        as_uchar4 ((uint) kept[(row) * BT_WG + lid + r] << 8 * BT_KOFF) : \
        as_uchar4 (((__global const uint *) SRC_ROW (ty + (row)))[x]); \
    BT_LANE (p_, ROFF) = (uchar) m_; \
    BT_LANE (p_, GOFF) = (uchar) (m_ >> 8); \
    BT_LANE (p_, BOFF) = (uchar) (m_ >> 16); \
    ((__global uint *) (dst + dst_off + (size_t) (ty + (row)) * \
          dst_stride))[x] = as_uint (p_); \
  } while (0)
#else
#define BT_STORE_ROW(row) do { \
    uint m_ = lmem[BT_AT (row, lid)]; \
    __global uchar *p_ = dst + dst_off + (size_t) (ty + (row)) * dst_stride + \
        (size_t) x * PSTRIDE; \
    p_[ROFF] = (uchar) m_; \
    p_[GOFF] = (uchar) (m_ >> 8); \
    p_[BOFF] = (uchar) (m_ >> 16); \
  } while (0)
#endif

__kernel __attribute__ ((reqd_work_group_size (BT_WG, 1, 1)))
void
box_mean_tile (__global const uchar * src, uint src_off, int src_stride,
    __global uchar * dst, uint dst_off, int dst_stride, int width,
    int height, int radius, float inv)
{
  /* the column sums, then the means (one word each; declared as the
   * column sums, whose 8-byte vectors need the stricter alignment) */
  __local bt_col cols[BT_H * BT_PITCH];
  __local uint *lmem = (__local uint *) cols;
#if BT_KEEP
  __local uchar kept[BT_H * BT_WG];
#endif
  int r = radius, lid = get_local_id (0), i, k;
  int tx = get_group_id (0) * (BT_WG - 2 * r), ty = get_group_id (1) * BT_H;
#if BT_KEEP
  /* the slide's rows cover the tile's: the kept bytes come from them */
  bool keep_local = ty - r >= 0 && ty + BT_H + r <= height &&
      r <= (BT_H - 2) / 2;
#endif

  /* vertical: column tx - r + lid; columns outside the frame add nothing */
  {
    int x = tx - r + lid, rows = min (BT_H, height - ty), y;
    bt_vsum s = 0;

    if (x < 0 || x >= width) {
      for (i = 0; i < BT_H; i++)
        cols[BT_AT (i, lid)] = 0;
    } else {
      bool interior = ty - r >= 0 && ty + BT_H + r <= height;
      /* the slide's first 2r + 1 rows are the first window's: up to
       * radius 7 an interior tile sums it from them, not from loads of
       * its own (H200, 4K RGBA 63.5 -> 59.6 us) */
      bool window_from_slide = interior && 2 * r + 1 <= BT_H - 1;

      if (!window_from_slide) {
        /* (four loads in flight at a time: the sums wait on memory, not
         * on arithmetic) */
        y = max (ty - r, 0);
        for (; y + 3 <= min (ty + r, height - 1); y += 4)
          s += (BT_LOAD (SRC_ROW (y), x) + BT_LOAD (SRC_ROW (y + 1), x)) +
              (BT_LOAD (SRC_ROW (y + 2), x) + BT_LOAD (SRC_ROW (y + 3), x));
        for (; y <= min (ty + r, height - 1); y++)
          s += BT_LOAD (SRC_ROW (y), x);
      }
      if (interior) {
        /* every row of the slide inside the frame: loads without tests,
         * all in flight together */
        uint in[BT_H - 1], out[BT_H - 1];

#pragma unroll
        for (i = 0; i < BT_H - 1; i++) {
          in[i] = bt_fetch (SRC_ROW (ty + i + r + 1), x);
          out[i] = bt_fetch (SRC_ROW (ty + i - r), x);
        }
        if (window_from_slide)
#pragma unroll
          for (i = 0; i < BT_H - 1; i++)
            if (i <= 2 * r)
              s += BT_WIDEN (out[i]);
#pragma unroll
        for (i = 0; i < BT_H; i++) {
          cols[BT_AT (i, lid)] = BT_COL (s);
          if (i + 1 < BT_H)
            s += BT_WIDEN (in[i]) - BT_WIDEN (out[i]);
        }
#if BT_KEEP
        /* out[i] is row ty - r + i, in[i] row ty + r + 1 + i */
        if (keep_local)
#pragma unroll
          for (i = 0; i < BT_H - 1; i++) {
            if (i >= r)
              kept[(i - r) * BT_WG + lid] = (uchar) (out[i] >> 24);
            if (i + r + 1 < BT_H)
              kept[(i + r + 1) * BT_WG + lid] = (uchar) (in[i] >> 24);
          }
#endif
      } else {
        for (i = 0; i < rows; i++) {
          cols[BT_AT (i, lid)] = BT_COL (s);
          if (ty + i + r + 1 < height)
            s += BT_LOAD (SRC_ROW (ty + i + r + 1), x);
          if (ty + i - r >= 0)
            s -= BT_LOAD (SRC_ROW (ty + i - r), x);
        }
      }
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* horizontal: BT_SEG means of one row, the first at tx + c0 (its window
   * starts at local column c0), packed into a word each (R, G, B in bytes
   * 0-2 for CH=3) */
  {
    int row = lid / (BT_WG / BT_SEG), c0 = lid % (BT_WG / BT_SEG) * BT_SEG;
    int y = ty + row, n = min (BT_SEG, min (BT_WG - 2 * r - c0,
            width - tx - c0));
    uint whole = (uint) (2 * r + 1) * (uint) (2 * r + 1), means[BT_SEG];

    if (y < height && n > 0) {
      uint cy = (uint) (min (y + r, height - 1) - max (y - r, 0) + 1);
      bool packed = BT_PACKED_ROWS (r);
      bt_sum s = 0;
      bt_col sp = 0;

      if (packed && 2 * r + 1 <= BT_SEG - 1) {
        /* the first window's local reads in flight together, not in a
         * loop (H200, 4K RGBA 56.1 -> 55.3 us) */
#pragma unroll
        for (k = 0; k < BT_SEG - 1; k++)
          if (k <= 2 * r)
            sp += cols[BT_AT (row, c0 + k)];
      } else if (packed) {
        for (k = 0; k + 3 <= 2 * r; k += 4)
          sp += (cols[BT_AT (row, c0 + k)] + cols[BT_AT (row, c0 + k + 1)]) +
              (cols[BT_AT (row, c0 + k + 2)] + cols[BT_AT (row, c0 + k + 3)]);
        for (; k <= 2 * r; k++)
          sp += cols[BT_AT (row, c0 + k)];
      } else {
        for (k = 0; k + 3 <= 2 * r; k += 4)
          s += (BT_SUM (cols[BT_AT (row, c0 + k)]) +
              BT_SUM (cols[BT_AT (row, c0 + k + 1)])) +
              (BT_SUM (cols[BT_AT (row, c0 + k + 2)]) +
              BT_SUM (cols[BT_AT (row, c0 + k + 3)]));
        for (; k <= 2 * r; k++)
          s += BT_SUM (cols[BT_AT (row, c0 + k)]);
      }
      if (sizeof (SRC_T) == 1 && packed && n == BT_SEG && cy == 2 * r + 1 &&
          tx + c0 - r >= 0 && tx + c0 + BT_SEG - 1 + r < width) {
        /* BT_SEG whole windows of 8-bit samples: no clipping, no tests
         * (H200, 4K RGBA 58.0 -> 56.0 us) */
#pragma unroll
        for (i = 0; i < BT_SEG; i++) {
          means[i] = bt_pack (BT_FLOAT_MEAN (BT_SUM (sp), whole));
          if (i + 1 < BT_SEG)
            sp += cols[BT_AT (row, c0 + i + 2 * r + 1)] -
                cols[BT_AT (row, c0 + i)];
        }
      } else
#pragma unroll
      for (i = 0; i < BT_SEG; i++) {
        int x = tx + c0 + i;
        uint area = (uint) (min (x + r, width - 1) - max (x - r, 0) + 1) *
            cy;

        if (i >= n)
          break;
        if (packed)
          s = BT_SUM (sp);
        means[i] = bt_pack (sizeof (SRC_T) == 1 && area == whole ?
            BT_FLOAT_MEAN (s, area) : (s + area / 2) / area);
        if (i + 1 < n && packed)
          sp += cols[BT_AT (row, c0 + i + 2 * r + 1)] -
              cols[BT_AT (row, c0 + i)];
        else if (i + 1 < n)
          s += BT_SUM (cols[BT_AT (row, c0 + i + 2 * r + 1)]) -
              BT_SUM (cols[BT_AT (row, c0 + i)]);
      }
    }
    /* the means back into local memory (the column sums are read), so
     * that the stores below go out a row at a time: one work-item per
     * pixel, neighbours side by side */
    barrier (CLK_LOCAL_MEM_FENCE);
    if (y < height)
#pragma unroll
      for (i = 0; i < BT_SEG; i++)
        if (i < n)
          lmem[BT_AT (row, c0 + i)] = means[i];
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  {
    int x = tx + lid, row;

    if (lid >= BT_WG - 2 * r || x >= width)
      return;
    if (ty + BT_H <= height) {
#pragma unroll
      for (row = 0; row < BT_H; row++)
        BT_STORE_ROW (row);
    } else {
      for (row = 0; row < height - ty; row++)
        BT_STORE_ROW (row);
    }
  }
}

#endif /* BOX && !CPU_ONLY */
