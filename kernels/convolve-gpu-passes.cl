/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-gpu-passes.cl: the GPU's separable passes
 * through an intermediate buffer (part of the convolve program). */

#if !CPU_ONLY && !PX_ONLY

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

#endif /* !CPU_ONLY && !PX_ONLY */
