/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* overlay.cl: clhistogram's overlay blended into a frame on the device
 * (gstclhistogramblend.c), the same arithmetic as the host blender in
 * gstclhistogramoverlayblend.c, so both give the same bytes. OpenCL C 1.2. The
 * frame's layout comes in a table, so one program serves every format;
 * -DOVERLAY_FP64=1 (devices with doubles) adds overlay_graph.
 *
 * A box is a rectangle (rx, ry, rw, rh) of frame pixels; each pixel has a
 * class (0 = background, else a mask of channels whose bars reach it),
 * worked out from the graph's bar heights (below), or 1 everywhere (the ROI
 * outline's edges). The table (uints, from uint @tab_at of @params) holds:
 *   [0]                   number of components n (1..4)
 *   [1 + 8 * c + 0..7]    component c: plane, pixel stride (bytes), byte
 *                         offset in the pixel, log2 horizontal and vertical
 *                         subsampling, 16-bit little-endian sample (0/1),
 *                         background value o (0..255) and alpha a (0..255)
 *   [TAB_BARS + 128 * c + m]  component c's value for bar class m (8-bit,
 *                         or 16-bit for 16-bit samples)
 *   [TAB_GRAPH + 0..8]    0: class 1 everywhere; 1: a graph whose first
 *                         column is frame column [1] and bottom row frame
 *                         row [2], [3] columns wide, panels [4] columns wide
 *                         [5] apart, [6] channels, [7] 1 for one panel per
 *                         channel (parade), heights (ushort, [6] * [4],
 *                         channel-major) from ushort [8] of @params
 * A sample takes its bar value when its class is not 0, else the background
 * over it: (o * a + v * (255 - a)) / 255 rounded (16-bit samples:
 * (o * 257 * a + 127 + v * (255 - a)) / 255). A subsampled sample takes the
 * class of its first luma pixel inside the box: that pixel's work-item
 * writes it, the others leave it. */

#define TAB_COMP 8
#define TAB_BARS 33
#define N_CLASSES 128
#define TAB_GRAPH (TAB_BARS + 4 * N_CLASSES)

/* Class of frame pixel (@fx, @fy) in the graph @g: channel k's bit when
 * its bar in the pixel's column is taller than the pixel's row above the
 * graph's bottom row (the host's classify () builds the same rows) */
static uint
graph_class (__global const uint * g, __global const ushort * heights,
    int fx, int fy)
{
  int gx = fx - (int) g[1], r = (int) g[2] - fy;
  int gw = g[3], pw = g[4], gap = g[5];
  uint n = g[6], first = 0, last = n, m = 0, k;

  if (gx < 0 || gx >= gw || r < 0 || pw <= 0)
    return 0;
  if (g[7]) {
    first = gx / (pw + gap);
    gx -= first * (pw + gap);
    last = first < n && gx < pw ? first + 1 : first;
  } else if (gx >= pw) {
    return 0;
  }
  for (k = first; k < last; k++)
    if (heights[k * pw + gx] > r)
      m |= 1u << k;
  return m;
}

/* Blends the samples of frame pixel (@fx, @fy) of class @m with table @tab
 * into @frame (planes at @off / @stride); the box starts at (@rx, @ry) */
static void
blend_pixel (__global uchar * frame, uint off0, int stride0, uint off1,
    int stride1, uint off2, int stride2, __global const uint * tab, uint m,
    int fx, int fy, int rx, int ry)
{
  uint n = tab[0], c;

  for (c = 0; c < n; c++) {
    __global const uint *d = tab + 1 + TAB_COMP * c;
    uint plane = d[0], a = d[7], bar = tab[TAB_BARS + N_CLASSES * c + m];
    int ws = d[3], hs = d[4];
    int sx = fx >> ws, sy = fy >> hs;
    __global uchar *p;

    /* only the sample's first pixel in the box writes it */
    if (max (sx << ws, rx) != fx || max (sy << hs, ry) != fy)
      continue;
    p = frame + (plane == 0 ? off0 + sy * stride0 : plane == 1 ?
        off1 + sy * stride1 : off2 + sy * stride2) + sx * (int) d[1] + d[2];
    if (d[5]) {
      uint v = p[0] | (uint) p[1] << 8;
      uint o = m ? bar : (d[6] * 257 * a + 127 + v * (255 - a)) / 255;

      p[0] = o & 0xff;
      p[1] = o >> 8;
    } else {
      uint t = d[6] * a + p[0] * (255 - a) + 128;

      p[0] = m ? bar : (t + (t >> 8)) >> 8;
    }
  }
}

__kernel void
overlay_blend (__global uchar * frame, uint off0, int stride0, uint off1,
    int stride1, uint off2, int stride2, __global const uint * params,
    uint tab_at, int rx, int ry, int rw, int rh)
{
  __global const uint *tab = params + tab_at;
  __global const uint *g = tab + TAB_GRAPH;
  int x = get_global_id (0), y = get_global_id (1);
  uint m;

  if (x >= rw || y >= rh)
    return;
  m = g[0] ? graph_class (g, (__global const ushort *) params + g[8],
      rx + x, ry + y) : 1u;
  blend_pixel (frame, off0, stride0, off1, stride1, off2, stride2, tab, m,
      rx + x, ry + y, rx, ry);
}

#if OVERLAY_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* the host computes gh * f + 0.5 as a multiply, then an add: no fused
 * multiply-add here either, so the heights come out the same */
#pragma OPENCL FP_CONTRACT OFF

/* First value of bar @b of @bins over @range values (v is in bar
 * v * bins / range) */
static uint
bar_start (ulong b, uint bins, uint range)
{
  return (uint) ((b * range + bins - 1) / bins);
}

/* The sum of the counts @h of graph column @x of @pw: it shows bar
 * x * bins / pw (pw >= bins) or the bars b with b * pw / bins == x, either
 * way one run of values */
static ulong
column_sum (__global const uint * h, uint x, uint pw, uint bins, uint range)
{
  ulong b0 = pw >= bins ? (ulong) x * bins / pw :
      ((ulong) x * bins + pw - 1) / pw;
  ulong b1 = pw >= bins ? b0 + 1 : ((ulong) (x + 1) * bins + pw - 1) / pw;
  uint v, v1 = bar_start (b1, bins, range);
  ulong sum = 0;

  for (v = bar_start (b0, bins, range); v < v1; v++)
    sum += h[v];
  return sum;
}

/* A column's bar height of @gh rows, linear or log (1 + count) against
 * the fullest column @cmax, as the host's bar_height () */
static uint
column_height (ulong sum, ulong cmax, uint gh, int log_scale)
{
  double f, t;

  if (!sum)
    return 0;
  f = log_scale ? log1p ((double) sum) / log1p ((double) cmax) :
      (double) sum / (double) cmax;
  t = (double) gh * f;
  /* any sample shows: at least one pixel */
  return clamp ((uint) (t + 0.5), 1u, gh);
}

/* The graph's box with its bar heights computed from the histogram's
 * counts, as the host's channel_heights () computes them (the same column
 * sums, fullest column and linear or log rounding, in double precision):
 * each work-group (OVERLAY_GROUP_W columns, a power of two rows) finds the
 * fullest column of every channel from the counts itself (a few hundred
 * counts, in cache after the first group), computes the heights of its own
 * columns into local memory, then blends its pixels of the box, one per
 * work-item as overlay_blend (groups looping over the box's rows took
 * longer on an H200 than separate heights and blend kernels). @most:
 * n * (local size) ulongs. */
#define MAX_CHANNELS 7
#define OVERLAY_GROUP_W 16

__kernel void
overlay_graph (__global uchar * frame, uint off0, int stride0, uint off1,
    int stride1, uint off2, int stride2, __global const uint * params,
    uint tab_at, int rx, int ry, int rw, int rh,
    __global const uint * counts, uint counts_at, uint range, uint bins,
    uint gh, int log_scale, __local ulong * most)
{
  __local ushort hgt[MAX_CHANNELS * OVERLAY_GROUP_W];
  __global const uint *tab = params + tab_at;
  __global const uint *g = tab + TAB_GRAPH;
  int lx = get_local_id (0), ly = get_local_id (1);
  int lh = get_local_size (1);
  uint l = ly * OVERLAY_GROUP_W + lx, nl = OVERLAY_GROUP_W * lh;
  int gw = g[3], pw = g[4], gap = g[5];
  uint n = min (g[6], (uint) MAX_CHANNELS), c, s, x;
  int fx = rx + get_global_id (0), gx = fx - (int) g[1];
  int fy = ry + get_global_id (1), r = (int) g[2] - fy;
  uint m = 0;

  /* the fullest column of each channel */
  for (c = 0; c < n; c++) {
    __global const uint *h = counts + counts_at + (ulong) c * range;
    ulong cmax = 0;

    for (x = l; x < (uint) pw; x += nl)
      cmax = max (cmax, column_sum (h, x, pw, bins, range));
    most[c * nl + l] = cmax;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  for (s = nl / 2; s > 0; s /= 2) {
    if (l < s)
      for (c = 0; c < n; c++)
        most[c * nl + l] = max (most[c * nl + l], most[c * nl + l + s]);
    barrier (CLK_LOCAL_MEM_FENCE);
  }

  /* work-item c * OVERLAY_GROUP_W + i: channel c's height in the group's
   * column i (0 where the column shows no bar of channel c) */
  if (l < n * OVERLAY_GROUP_W) {
    int i = l % OVERLAY_GROUP_W, cx = fx - lx + i - (int) g[1];
    uint hc = 0;

    /* columns past the graph's width are left to the class test below */
    c = l / OVERLAY_GROUP_W;
    if (g[7] && cx >= 0 && pw > 0) {
      if ((uint) (cx / (pw + gap)) != c)
        cx = -1;
      else
        cx -= c * (pw + gap);
    }
    if (cx >= 0 && cx < pw)
      hc = column_height (column_sum (counts + counts_at + (ulong) c * range,
              cx, pw, bins, range), most[c * nl], gh, log_scale);
    hgt[l] = hc;
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  if (fx - rx >= rw || fy - ry >= rh)
    return;
  /* as graph_class (): columns outside the graph have no bars */
  if (gx >= 0 && gx < gw && r >= 0)
    for (c = 0; c < n; c++)
      if (hgt[c * OVERLAY_GROUP_W + lx] > r)
        m |= 1u << c;
  blend_pixel (frame, off0, stride0, off1, stride1, off2, stride2, tab, m,
      fx, fy, rx, ry);
}
#endif
