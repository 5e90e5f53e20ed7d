/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-cpu-sep.cl: sep_strips, the CPU's separable
 * matrices (part of the convolve program). */

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

#endif /* !PX_ONLY */
