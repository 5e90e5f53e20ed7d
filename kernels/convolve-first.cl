/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-first.cl: conv2d_first, the first frames'
 * kernel (part of the convolve program). */

/* conv2d_first (-D FIRST_ONLY=1 -D CPU_ONLY=1 -D PX_ONLY=1: a program
 * of this kernel alone): the frames' kernel until the warm-up worker has
 * compiled the current path's. PoCL compiles a kernel at its first launch,
 * about 0.3 s for the strip kernels on 2 cores and much less for this one:
 * 16 samples of a row per work-item, every tap read from the frame; the
 * border is mapped per sample and tap, only for work-items whose taps
 * leave the frame. Same arithmetic as the other kernels of its program:
 * bit-exact on the integer path, the float path's tap-order sum elsewhere
 * (the fixed-point matrices included: their frames are then within the
 * float path's window). */
#ifndef FIRST_ONLY
#define FIRST_ONLY 0
#endif
#if FIRST_ONLY
__kernel void
conv2d_first (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * taps, int ntaps, int rx, int ry,
    int bval, int border, PARAMS)
{
  int sx = get_global_id (0) * 16, y = get_global_id (1);
  int rowlen = width * ch, rxs = rx * ch;
  __global const uchar *sbase = src + soff;
  __global const sample_t *srow;
  __global sample_t *drow;

  if (sx >= rowlen || y >= height)
    return;
  srow = ROW (sbase, sstride, y);
  drow = (__global sample_t *) (dst + doff + y * dstride);
  if (sx >= rxs && sx + 16 + rxs <= rowlen && y >= ry && y + ry < height) {
    acc16_t a = 0;

    for (int t = 0; t < ntaps; t++) {
      int4 tp = taps[t];

      a += COEF (tp) * convert_acc16 (LOAD16 (0, ROW (sbase, sstride,
                  y + tp.y) + sx + tp.x * ch));
    }
    store16 (finish16 (a, PARAM_ARGS), sx, alpha_pos, srow, drow);
    return;
  }
  for (int s = sx; s < sx + 16 && s < rowlen; s++) {
    int px = s / ch, c = s - px * ch;
    acc_t acc = 0;

    for (int t = 0; t < ntaps && c != alpha_pos; t++) {
      int4 tp = taps[t];
      int yy = map_index (y + tp.y, height, border);
      int xx = map_index (px + tp.x, width, border);

      acc += COEF (tp) * (yy < 0 || xx < 0 ? (acc_t) bval :
          (acc_t) ROW (sbase, sstride, yy)[xx * ch + c]);
    }
    drow[s] = c == alpha_pos ? srow[s] : (sample_t) finish (acc, PARAM_ARGS);
  }
}
#endif /* FIRST_ONLY */
