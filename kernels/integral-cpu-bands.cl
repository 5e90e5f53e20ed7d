/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral-cpu-bands.cl: the CPU integral image's kernels;
 * for 8-bit gray the split between work-groups decided while running
 * (part of the integral program). */

#if !GPU_ONLY && !BOX

#ifdef WORD_SCAN
/* ---- 8-bit gray sums and counts: the split between work-groups decided
 * while running ----
 *
 * A split fixed at launch makes the frame wait for the last band, and on a
 * shared host one of PoCL's threads is often late or shares its core. So
 * the bands (the host's plan) are only where each group starts: region r
 * = [bands[r], bands[r + 1]) is cut into blocks of rows, claimed one at a
 * time from the top (by its owner, scanning down from the integral of its
 * first row) and from the bottom (by a helper, scanning up from the
 * integral of its last row), until the claims meet. Group g owns region g
 * if it claims its top first: it adds up the rows above it (as
 * integral_band) and keeps that row; a group that scans down to the end of
 * its region takes the next one's top if that is still free (its group is
 * late: whichever group runs alone does the whole frame). Then each group
 * helps from below: the region above its own with the row it kept, the one
 * after its last with the rows of that region added up, when enough of it
 * is left to pay for that. No group ever waits for another (OpenCL promises
 * no forward progress across groups; PoCL may run them one after the
 * other): the owner of a region claims until its blocks are out, so every
 * block is scanned once whoever comes.
 */
/* @a from the integral of row @ya to that of row @yb: the column totals of
 * rows [ya, yb) in @t, prefixed over x, added */
static void extend (__global const uchar * src, uint src_off,
    int src_stride, int width, int ya, int yb, __global ACC * a,
    __global ACC * t);

static void
extend (__global const uchar * src, uint src_off, int src_stride, int width,
    int ya, int yb, __global ACC * a, __global ACC * t)
{
  ACC s = 0;
  int x;

  SCALAR_LOOP
  for (x = 0; x < width; x++)
    t[x] = 0;
  add_rows (src, src_off, src_stride, width, ya, yb, t, true);
  SCALAR_LOOP
  for (x = 0; x < width; x++) {
    s += t[x];
    a[x] += s;
  }
}

/* Source rows [y0, y1) bottom-up: @acc the integral of row y1 in, of row
 * y0 out; writes output rows y0 + 1 .. y1 (integral (y) = integral (y + 1)
 * minus row y's prefix sums). The rows past the last multiple of 4 from y0
 * first, one at a time, then 4 at a time. */
static void scan_up (__global const uchar * src, uint src_off,
    int src_stride, int width, int y0, int y1, __global ACC * acc,
    __global OUT * o, size_t ostride, bool stream);

static void
scan_up (__global const uchar * src, uint src_off, int src_stride,
    int width, int y0, int y1, __global ACC * acc, __global OUT * o,
    size_t ostride, bool stream)
{
  int y4 = y0 + ((y1 - y0) & ~3), x, y, k;

  for (y = y1 - 1; y >= y4; y--) {
    __global const uchar *row = SRC_ROW (y);
    __global OUT *orow = o + (size_t) (y + 1) * ostride;
    VT c = 0;
    ACC s;

    orow[0] = 0;
    for (x = 0; x + NPX <= width; x += NPX) {
      VT v = LOADC (row, x), t = LOADA (acc + x);

      PREFIX (v);
      v += c;
      c = CARRY (v);
      STOREO (t, orow + 1 + x);
      STOREA (t - v, acc + x);
    }
    s = c.s0;
    SCALAR_LOOP
    for (; x < width; x++) {
      ACC a = acc[x];

      s += VAL (ACC, load_px (row, x));
      orow[x + 1] = CONVERT (OUT, a);
      acc[x] = a - s;
    }
  }
  for (y = y4 - R; y >= y0; y -= R) {
    /* rows and output rows bottom-up: o0 is output row y + 4 */
    __global const uchar *r0 = SRC_ROW (y + 3), *r1 = SRC_ROW (y + 2);
    __global const uchar *r2 = SRC_ROW (y + 1), *r3 = SRC_ROW (y);
    __global OUT *o0 = o + (size_t) (y + 4) * ostride + 1, *o1 = o0 - ostride;
    __global OUT *o2 = o1 - ostride, *o3 = o2 - ostride;
    uint sw[4];
    ACC s0, s1, s2, s3;

    SCALAR_LOOP
    for (k = 0; k < R; k++)
      o0[-1 - k * (long) ostride] = 0;
    x = scan4 (r0, r1, r2, r3, width, acc, o0, -(long) ostride, stream, true,
        sw);
    s0 = sw[0];
    s1 = sw[1];
    s2 = sw[2];
    s3 = sw[3];
    SCALAR_LOOP
    for (; x < width; x++) {
      ACC a = acc[x];

      s0 += VAL (ACC, load_px (r0, x));
      s1 += VAL (ACC, load_px (r1, x));
      s2 += VAL (ACC, load_px (r2, x));
      s3 += VAL (ACC, load_px (r3, x));
      o0[x] = CONVERT (OUT, a);
      a -= s0;
      o1[x] = CONVERT (OUT, a);
      a -= s1;
      o2[x] = CONVERT (OUT, a);
      a -= s2;
      o3[x] = CONVERT (OUT, a);
      acc[x] = a - s3;
    }
  }
}

/* claims blocks of region @r from the bottom and scans them up from @a,
 * the integral of the region's last row */
#define HELP_UP(r, a) do { \
    int ys_, ye_, nb_, j_; \
    REGION (r, ys_, ye_, nb_); \
    for (j_ = claim (words + (r) * 16, epoch, nb_, true, true); j_ >= 0; \
        j_ = claim (words + (r) * 16, epoch, nb_, true, false)) { \
      int b_ = nb_ - 1 - j_; \
      scan_up (src, src_off, src_stride, width, ys_ + b_ * br, \
          min (ys_ + (b_ + 1) * br, ye_), a, o, ostride, stream); \
    } } while (0)

static void dynamic_bands (__global const uchar * src, uint src_off,
    int src_stride, int width, int height, int16 bands,
    __global ACC * accrow, __global OUT * o, uint epoch);

static void
dynamic_bands (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, int16 bands, __global ACC * accrow,
    __global OUT * o, uint epoch)
{
  /* (tests: bit 8 of @epoch gives the bands to the groups bottom-up, so that
   * a group that runs alone scans most rows upwards) */
  int ng = get_global_size (0), g = epoch & 0x100 ? ng - 1 -
      (int) get_global_id (0) : (int) get_global_id (0);
  int bs[16];
  size_t n = (size_t) width, ostride = (size_t) width + 1;
  volatile __global uint *words = (volatile __global uint *) accrow;
  __global ACC *acc = SCRATCH_ROWS (accrow) + (size_t) g * 3 * n;
  __global ACC *kept = acc + n, *tmp = kept + n;
  bool stream = ostride * height >= STREAM_MIN_ELEMS;
  int br = max (BLOCK_ROWS, ((height + MAX_BLOCKS - 1) / MAX_BLOCKS + 3) &
      ~3);
  int r = g, i, x, ys, ye, nb;
  bool next = false;

  epoch &= 0xff;
  vstore16 (bands, 0, bs);
  if (g == 0)
    SCALAR_LOOP
    for (x = 0; x < (int) ostride; x++)
      o[x] = 0;
  REGION (g, ys, ye, nb);
  i = claim (words + g * 16, epoch, nb, false, true);
  if (i < 0) {
    /* region g is scanned down by an earlier group (or done): from below,
     * from the integral of its last row, if enough is left */
    if (g > 0 && unclaimed (words + g * 16, epoch, nb) * br * ADD_PER_ROW >
        ye) {
      SCALAR_LOOP
      for (x = 0; x < width; x++)
        acc[x] = 0;
      extend (src, src_off, src_stride, width, 0, ye, acc, tmp);
      HELP_UP (g, acc);
    }
    return;
  }
  SCALAR_LOOP
  for (x = 0; x < width; x++)
    acc[x] = 0;
  if (g > 0) {
    extend (src, src_off, src_stride, width, 0, ys, acc, tmp);
    SCALAR_LOOP
    for (x = 0; x < width; x++)
      kept[x] = acc[x];
  }
  for (;;) {
    bool end = i == nb - 1;

    scan_down (src, src_off, src_stride, width, ys + i * br,
        min (ys + (i + 1) * br, ye), acc, o, ostride, stream, true);
    i = claim (words + r * 16, epoch, nb, false, false);
    if (i >= 0)
      continue;
    /* at the region's end (acc its last row's integral): the next
     * region with rows, its top if still free */
    if (!end)
      break;
    do {
      r++;
      if (r >= ng)
        break;
      REGION (r, ys, ye, nb);
    } while (nb == 0);
    if (r >= ng)
      break;
    i = claim (words + r * 16, epoch, nb, false, true);
    if (i < 0) {
      next = true;
      break;
    }
  }
  if (g > 0)
    HELP_UP (g - 1, kept);
  /* the next region (its owner scans it down) from below, if enough is
   * left to pay for adding up its rows */
  if (next && unclaimed (words + r * 16, epoch, nb) * br * ADD_PER_ROW >
      ye - ys) {
    extend (src, src_off, src_stride, width, ys, ye, acc, tmp);
    HELP_UP (r, acc);
  }
}

#endif /* WORD_SCAN */

__kernel void
cpu_integral (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, int16 bands, __global ACC * accrow,
    __global uchar * out, ulong out_off, uint epoch)
{
#ifdef WORD_SCAN
  dynamic_bands (src, src_off, src_stride, width, height, bands, accrow,
      (__global OUT *) (out + out_off), epoch);
#else
  integral_band (src, src_off, src_stride, width, height, bands, accrow, out,
      out_off, true);
#endif
#ifdef NT_ROWS
  /* streaming stores are weakly ordered: drained before the kernel ends */
  __asm__ __volatile__ ("sfence":::"memory");
#endif
}

/* (@epoch: cpu_integral's arguments, unused) */
__kernel void
cpu_integral_first (__global const uchar * src, uint src_off,
    int src_stride, int width, int height, int16 bands,
    __global ACC * accrow, __global uchar * out, ulong out_off, uint epoch)
{
  integral_band (src, src_off, src_stride, width, height, bands, accrow, out,
      out_off, false);
}

#endif /* !GPU_ONLY && !BOX */
