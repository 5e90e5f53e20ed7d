/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-gpu.cl: conv2d_tile and conv2d_reg (part of
 * the convolve program). */

#if !CPU_ONLY

/* kernels of the GPU paths, left out of the CPU program (-D CPU_ONLY=1):
 * a CPU device never runs them, and they cost build time */

#if !PX_ONLY
#define TILE_W 64               /* samples: 16 work-items x 4 */
#define TILE_H 16

__kernel void
conv2d_tile (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * taps, int ntaps, int rx, int ry,
    int bval, int border, PARAMS, __local sample_t * tile)
{
  int lx = get_local_id (0), ly = get_local_id (1);
  int gx0 = get_group_id (0) * TILE_W, gy0 = get_group_id (1) * TILE_H;
  int rowlen = width * ch, rxs = rx * ch;
  int lw = TILE_W + 2 * rxs, lh = TILE_H + 2 * ry;
  __global const uchar *sbase = src + soff;
  int y = gy0 + ly;

  for (int i = ly * 16 + lx; i < lw * lh; i += 256) {
    int ty = i / lw, tx = i - ty * lw;
    int s = gx0 - rxs + tx;
    int px = s >= 0 ? s / ch : -((-s + ch - 1) / ch);
    int mx = map_index (px, width, border);
    int my = map_index (gy0 - ry + ty, height, border);

    tile[i] = (mx < 0 || my < 0) ? (sample_t) bval :
        ROW (sbase, sstride, my)[mx * ch + (s - px * ch)];
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  if (y >= height)
    return;
  for (int k = 0; k < 4; k++) {
    int tx = lx + 16 * k, s = gx0 + tx;
    __global sample_t *drow;
    acc_t acc = 0;

    if (s >= rowlen)
      break;
    for (int t = 0; t < ntaps; t++) {
      int4 tp = taps[t];
      acc += COEF (tp) * (acc_t) tile[(ly + ry + tp.y) * lw + tx + rxs +
          tp.x * ch];
    }
    drow = (__global sample_t *) (dst + doff + y * dstride);
    drow[s] = (s % ch) == alpha_pos ? ROW (sbase, sstride, y)[s] :
        (sample_t) finish (acc, PARAM_ARGS);
  }
}

/* conv2d_reg1..5 (GPU, matrices up to 11x11): register blocking. A 64x4
 * work-group loads a tile of 64 samples x 32 rows plus its apron into local
 * memory, widened to acc_t once (no conversion per tap); a work-item
 * computes a column of REG_ROWS outputs. The matrix radius R is a
 * compile-time constant (one kernel per R, matrices padded to a square
 * (2R+1)^2 with zeros, dense coefficients in __constant memory), so every
 * loop unrolls: each tile row is read once into registers (2R+1 local loads)
 * and feeds every output of the column it contributes to. Per output that is
 * (2R+1) * (REG_ROWS + 2R) / REG_ROWS local loads instead of (2R+1)^2.
 * Sums run in row order then column order, i.e. in tap order; zero taps add
 * exact zeros, so the float results equal the sparse tap loop's. */
#define REG_WX 64               /* work-group and tile width (samples) */
#define REG_WY 4
#define REG_ROWS 8              /* outputs per work-item, vertically */
#define REG_TH (REG_WY * REG_ROWS)

inline void
conv2d_reg (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant acc_t * coef, int bval, int border,
    PARAMS, __local acc_t * tile, const int R)
{
  const int K = 2 * R + 1;
  int lx = get_local_id (0), ly = get_local_id (1);
  int gx0 = get_group_id (0) * REG_WX, gy0 = get_group_id (1) * REG_TH;
  int rowlen = width * ch, rxs = R * ch;
  int lw = REG_WX + 2 * rxs, lh = REG_TH + 2 * R;
  __global const uchar *sbase = src + soff;
  int x = gx0 + lx, y0 = gy0 + ly * REG_ROWS;

  /* one border mapping per tile row; columns map only outside the row */
  for (int ty = ly; ty < lh; ty += REG_WY) {
    int my = map_index (gy0 - R + ty, height, border);
    __global const sample_t *row = ROW (sbase, sstride, max (my, 0));

    for (int tx = lx; tx < lw; tx += REG_WX) {
      int s = gx0 - rxs + tx;
      acc_t v;

      if (my < 0) {
        v = bval;
      } else if (s >= 0 && s < rowlen) {
        v = row[s];
      } else {
        int px = s >= 0 ? s / ch : -((-s + ch - 1) / ch);
        int mx = map_index (px, width, border);

        v = mx < 0 ? bval : row[mx * ch + s - px * ch];
      }
      tile[ty * lw + tx] = v;
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  if (x >= rowlen || y0 >= height)
    return;
  {
    /* tile row ly * REG_ROWS holds input row y0 - R, column lx sample
     * x - rxs */
    __local const acc_t *t = tile + ly * REG_ROWS * lw + lx;
    acc_t acc[REG_ROWS];
    int keep = (x % ch) == alpha_pos;
    __global sample_t *drow;

#pragma unroll
    for (int j = 0; j < REG_ROWS; j++)
      acc[j] = 0;
#pragma unroll
    for (int r = 0; r < REG_ROWS + 2 * R; r++) {
      acc_t v[2 * 5 + 1];

#pragma unroll
      for (int dx = 0; dx < K; dx++)
        v[dx] = t[r * lw + dx * ch];
#pragma unroll
      for (int j = 0; j < REG_ROWS; j++) {
        if (r - j >= 0 && r - j < K) {
#pragma unroll
          for (int dx = 0; dx < K; dx++)
            acc[j] = ACC_MAD (coef[(r - j) * K + dx], v[dx], acc[j]);
        }
      }
    }
#pragma unroll
    for (int j = 0; j < REG_ROWS; j++) {
      drow = (__global sample_t *) (dst + doff + (y0 + j) * dstride) + x;
      if (y0 + j < height)
        *drow = keep ?
            (sample_t) t[(j + R) * lw + rxs] :
            (sample_t) finish (acc[j], PARAM_ARGS);
    }
  }
}

#define CONV2D_REG(R) \
__kernel __attribute__ ((reqd_work_group_size (REG_WX, REG_WY, 1))) void \
conv2d_reg##R (__global const uchar * src, uint soff, int sstride, \
    __global uchar * dst, uint doff, int dstride, int width, int height, \
    int ch, int alpha_pos, __constant acc_t * coef, int bval, int border, \
    PARAMS, __local acc_t * tile) \
{ \
  conv2d_reg (src, soff, sstride, dst, doff, dstride, width, height, ch, \
      alpha_pos, coef, bval, border, PARAM_ARGS, tile, R); \
}

CONV2D_REG (1)
CONV2D_REG (2)
CONV2D_REG (3)
CONV2D_REG (4)
CONV2D_REG (5)

#endif /* !PX_ONLY */

#endif /* !CPU_ONLY */
