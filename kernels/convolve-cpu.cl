/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-cpu.cl: the CPU row helpers (a strip's
 * source span widened, its results stored) and conv2d_strips (part of the
 * convolve program: convolve-common.cl lists the parts). */

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
