/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* overlay.cl: clhistogram's overlay blended into a frame on the device
 * (gstclhistogramblend.c), the same arithmetic as the host blender in
 * gstclhistogramoverlay.c, so both give the same bytes. OpenCL C 1.2, no
 * options: the frame's layout comes in a table, so one program serves every
 * format.
 *
 * A box is a rectangle (rx, ry, rw, rh) of frame pixels; each pixel has a
 * class (0 = background, else a mask of channels whose bars reach it), read
 * from @params (rw * rh bytes, row-major, from byte @cls_at) or, with
 * @all_one, 1 everywhere. The table (uints, from uint @tab_at of @params)
 * holds:
 *   [0]                   number of components n (1..4)
 *   [1 + 8 * c + 0..7]    component c: plane, pixel stride (bytes), byte
 *                         offset in the pixel, log2 horizontal and vertical
 *                         subsampling, 16-bit little-endian sample (0/1),
 *                         background value o (0..255) and alpha a (0..255)
 *   [TAB_BARS + 128 * c + m]  component c's value for bar class m (8-bit,
 *                         or 16-bit for 16-bit samples)
 * A sample takes its bar value when its class is not 0, else the background
 * over it: (o * a + v * (255 - a)) / 255 rounded (16-bit samples:
 * (o * 257 * a + 127 + v * (255 - a)) / 255). A subsampled sample takes the
 * class of its first luma pixel inside the box: that pixel's work-item
 * writes it, the others leave it. */

#define TAB_COMP 8
#define TAB_BARS 33
#define N_CLASSES 128

__kernel void
overlay_blend (__global uchar * frame, uint off0, int stride0, uint off1,
    int stride1, uint off2, int stride2, __global const uint * params,
    uint tab_at, uint cls_at, int all_one, int rx, int ry, int rw, int rh)
{
  __global const uint *tab = params + tab_at;
  __global const uchar *classes = (__global const uchar *) params + cls_at;
  int x = get_global_id (0), y = get_global_id (1);
  int fx = rx + x, fy = ry + y;
  uint m, n, c;

  if (x >= rw || y >= rh)
    return;
  m = all_one ? 1u : classes[y * rw + x];
  n = tab[0];
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
