/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral-cpu-scan.cl: the CPU integral image's scans of a
 * band of rows (part of the integral program). */

#if !GPU_ONLY && !BOX

/* 16 samples at byte @x of row @r, as VAL in 16-bit lanes (the word scans
 * below) */
#define WLOAD16(r, x) CONVERT (ushort16, VAL (uchar16, vload16 (0, (r) + (x))))

/* (CPU instruction sets only: this block is written for PoCL's CPU code;
 * on GPUs, where only tests force the CPU variant, the generic scan below
 * serves, which NVIDIA's compiler builds) */
#if CH == 1 && PSTRIDE == 1 && VALUE != 1 && (defined (__x86_64__) || \
    defined (__i386__) || defined (__aarch64__) || defined (__arm__))
/* 8-bit samples summed (or counted), 16 columns of 4 rows at a time, in
 * 16-bit lanes until the last step: the rows are first added up down the
 * 4 rows (4 samples: at most 1020), so that row k's integral is the
 * integral of the row above the 4 plus the row prefix of the sum of rows
 * 0..k (16 of those: at most 16320). A 16-lane prefix is two 64-bit shifts
 * and one byte shuffle inside each 128-bit half, then one shuffle across
 * the halves; each row then needs one 32-bit carry, its sum left of the
 * columns. Shuffles across halves run on one port only on these cores: an
 * 8-lane 32-bit prefix per row (LOADC, PREFIX) was bound by that port. */
#define WORD_SCAN 1
#define WPREFIX16(w) do { \
    w += as_ushort16 (as_ulong4 (w) << (ulong) 16); \
    w += as_ushort16 (as_ulong4 (w) << (ulong) 32); \
    w += __builtin_shufflevector (w, (ushort16) 0, 16, 16, 16, 16, 3, 3, 3, \
        3, 16, 16, 16, 16, 11, 11, 11, 11); \
    w += __builtin_shufflevector (w, (ushort16) 0, 16, 16, 16, 16, 16, 16, \
        16, 16, 7, 7, 7, 7, 7, 7, 7, 7); } while (0)

/* the 16 columns at @x of the 4 rows into @lo (columns 0-7 of each row)
 * and @hi (8-15), from @c (row k's: the sum of rows 0..k left of @x,
 * updated) and @acc (the integral of the row above, the last row's stored
 * back). @up: the rows come bottom-up and @acc holds the integral of the
 * row below them: each row's sums are taken off instead (exact in the
 * wrapping ACC), and the 4 output rows, bottom-up too, are @acc as it was
 * and the first three results. chunk16 and scan4 are static: only
 * cpu_integral calls them, and PoCL then leaves them out of
 * cpu_integral_first (about 0.1 s less to compile before the first
 * frame); inlined, so that @up costs no branch */
static void chunk16 (__global const uchar * r0, __global const uchar * r1,
    __global const uchar * r2, __global const uchar * r3, int x, uint8 * c,
    __global ACC * acc, bool up, ACC8 * lo, ACC8 * hi);

static inline __attribute__ ((always_inline)) void
chunk16 (__global const uchar * r0, __global const uchar * r1,
    __global const uchar * r2, __global const uchar * r3, int x, uint8 * c,
    __global ACC * acc, bool up, ACC8 * lo, ACC8 * hi)
{
  ushort16 w[4];
  ACC8 al = vload8 (0, acc + x), ah = vload8 (1, acc + x), vl[4], vh[4];
  int k;

  w[0] = WLOAD16 (r0, x);
  w[1] = w[0] + WLOAD16 (r1, x);
  w[2] = w[1] + WLOAD16 (r2, x);
  w[3] = w[2] + WLOAD16 (r3, x);
#pragma unroll
  for (k = 0; k < 4; k++) {
    uint8 sl, sh;

    WPREFIX16 (w[k]);
    sl = convert_uint8 (w[k].lo) + c[k];
    sh = convert_uint8 (w[k].hi) + c[k];
    c[k] = __builtin_shufflevector (sh, sh, 7, 7, 7, 7, 7, 7, 7, 7);
    vl[k] = up ? al - CONVERT (ACC8, sl) : al + CONVERT (ACC8, sl);
    vh[k] = up ? ah - CONVERT (ACC8, sh) : ah + CONVERT (ACC8, sh);
  }
#pragma unroll
  for (k = 0; k < 4; k++) {
    lo[k] = !up ? vl[k] : k ? vl[k - 1] : al;
    hi[k] = !up ? vh[k] : k ? vh[k - 1] : ah;
  }
  vstore8 (vl[3], 0, acc + x);
  vstore8 (vh[3], 1, acc + x);
}

#define OUT32_uint 1
#define OUT32_float 1
#if defined (__x86_64__) && defined (__AVX512VL__) && defined (__clang__) \
    && CAT (OUT32_, OUT)
/* x86 with AVX-512, 32-bit outputs: the rows leave in non-temporal stores.
 * The output plane (8 MB at 1080p) is not in the caches when the next frame
 * comes (the pool hands out another buffer), and ordinary stores read every
 * line in before writing it: on the 2-core build machine 8 MB took 0.55-1.0
 * ms in ordinary stores (buffers taken in turn), 0.3-0.5 ms in streaming
 * ones, which write whole lines without reading them, but only when each
 * line is written whole at once: 32-byte halves taking turns between the 4
 * rows took 0.9-2.1 ms. So each row's 16 columns leave as one aligned
 * 64-byte line; rows are W + 1 elements apart, so each is aligned
 * differently, and its line is cut out of its last 32 elements with
 * two-register permutes by a run-time index (vpermi2d; OpenCL's shuffle2
 * with a run-time mask becomes scalar code in PoCL) */
#define NT_ROWS 1
typedef int nt_v8si __attribute__ ((__vector_size__ (32)));
typedef union
{
  uint8 u;
  nt_v8si v;
} NtV8;

/* elements idx[i] of @a then @b (0-7: a, 8-15: b) */
static uint8 nt_perm2 (uint8 a, uint8 idx, uint8 b);

static uint8
nt_perm2 (uint8 a, uint8 idx, uint8 b)
{
  NtV8 x, i, y;

  x.u = a;
  i.u = idx;
  y.u = b;
  x.v = __builtin_ia32_vpermi2vard256 (x.v, i.v, y.v);
  return x.u;
}

/* the aligned line of the row at @o (16 elements from o - m, m = its
 * misalignment in elements) from its previous 16 elements (@p0, @p1) and
 * these (@c0, @c1): elements 16 - m .. 31 - m of the 32 */
static void nt_line (uint8 p0, uint8 p1, uint8 c0, uint8 c1, uint m,
    __global OUT * o);

static void
nt_line (uint8 p0, uint8 p1, uint8 c0, uint8 c1, uint m, __global OUT * o)
{
  bool far = m > 8;
  uint8 a = far ? p0 : p1, b = far ? p1 : c0, c = far ? c0 : c1;
  uint8 idx = (uint8) ((far ? 16 : 8) - m) + (uint8) (0, 1, 2, 3, 4, 5, 6, 7);
  __global uint8 *line = (__global uint8 *) (o - m);

  __builtin_nontemporal_store (nt_perm2 (a, idx, b), line);
  __builtin_nontemporal_store (nt_perm2 (b, idx, c), line + 1);
}

/* o[j] = element j of @a then @b, j in [j0, j1): ordinary stores of the
 * parts of a row that share a line with the row before or after, which no
 * streaming store may touch (a line in the cache written both ways costs a
 * round trip to memory) */
static void nt_part (uint8 a, uint8 b, uint j0, uint j1,
    __global uint * o);

static void
nt_part (uint8 a, uint8 b, uint j0, uint j1, __global uint * o)
{
  uint e[16];
  uint j;

  vstore8 (a, 0, e);
  vstore8 (b, 1, e);
  SCALAR_LOOP
  for (j = j0; j < j1; j++)
    o[j] = e[j];
}
#endif

/* Planes smaller than this (elements, 16 MB of U32) are written in ordinary
 * stores, each row's line prefetched for writing PF_AHEAD elements ahead:
 * then the lines come from the L3 (or L2) ready to be written, which took
 * 0.51-0.63 ms per 1080p frame on one core against 0.58-0.86 streamed and
 * 0.57-0.75 without the prefetch, and 0.092 against 0.102 ms at 640x480
 * (2 bands); at 3840x2160 streaming kept ahead (3.1 against 3.2 ms) */
#define STREAM_MIN_ELEMS (1 << 22)
#define PF_AHEAD 32

/* the vector part of 4 rows (x from 0 in steps of 16) into the output rows
 * at @o0 + k * @ostride; returns the first column left, @s the rows' sums
 * up to it; @stream: streaming stores where there are; @up: as chunk16
 * (the caller passes the rows and output rows bottom-up, @ostride
 * negative) */
static int scan4 (__global const uchar * r0, __global const uchar * r1,
    __global const uchar * r2, __global const uchar * r3, int width,
    __global ACC * acc, __global OUT * o0, long ostride, bool stream,
    bool up, uint * s);

static inline __attribute__ ((always_inline)) int
scan4 (__global const uchar * r0, __global const uchar * r1,
    __global const uchar * r2, __global const uchar * r3, int width,
    __global ACC * acc, __global OUT * o0, long ostride, bool stream,
    bool up, uint * s)
{
  uint8 c[4] = { 0, 0, 0, 0 };
  ACC8 r[4], h[4];
  int x = 0, k;

#ifdef NT_ROWS
  {
    /* 16 columns at a time; row k's line at x - m[k] streamed once its
     * elements are there; columns before 16 - m[k] and from the last
     * x - m[k] on in ordinary stores */
    uint8 p0[4], p1[4];
    uint m[4];

#pragma unroll
    for (k = 0; k < 4; k++)
      m[k] = (uint) ((size_t) (o0 + k * ostride) / sizeof (OUT) % 16);
    /* elements not on their own alignment never line up (the element's
     * planes are, but a misaligned streaming store would fault) */
    stream = stream && (size_t) o0 % sizeof (OUT) == 0;
    for (; stream && x + 16 <= width; x += 16) {
      chunk16 (r0, r1, r2, r3, x, c, acc, up, r, h);
#pragma unroll
      for (k = 0; k < 4; k++) {
        __global OUT *o = o0 + k * ostride + x;
        uint8 c0 = as_uint8 (CONVERT (CAT (OUT, 8), r[k]));
        uint8 c1 = as_uint8 (CONVERT (CAT (OUT, 8), h[k]));

        if (x > 0)
          nt_line (p0[k], p1[k], c0, c1, m[k], o);
        else
          nt_part (c0, c1, 0, 16 - m[k], (__global uint *) o);
        p0[k] = c0;
        p1[k] = c1;
      }
    }
#pragma unroll
    for (k = 0; x > 0 && k < 4; k++)
      nt_part (p0[k], p1[k], 16 - m[k], 16,
          (__global uint *) (o0 + k * ostride + x - 16));
  }
#endif
  for (; x + 16 <= width; x += 16) {
    chunk16 (r0, r1, r2, r3, x, c, acc, up, r, h);
#pragma unroll
    for (k = 0; k < 4; k++) {
      /* (a prefetch never faults, past the plane's end too) */
      __builtin_prefetch ((const __global void *) (o0 + k * ostride + x +
              PF_AHEAD), 1, 3);
      STOREO (r[k], o0 + k * ostride + x);
      STOREO (h[k], o0 + k * ostride + x + 8);
    }
  }
  /* row k's own sum left of x: c[k] holds that of rows 0..k */
  s[0] = c[0].s0;
  s[1] = c[1].s0 - c[0].s0;
  s[2] = c[2].s0 - c[1].s0;
  s[3] = c[3].s0 - c[2].s0;
  return x;
}
#endif

#if CH == 3 && PSTRIDE == 4 && VALUE == 0 && (defined (__x86_64__) || \
    defined (__i386__) || defined (__aarch64__) || defined (__arm__))
/* The sums of 4-byte pixels (RGBA and kin) in 16-bit lanes, as 8-bit gray
 * above: whole pixels, the pass-through byte summed too and dropped when
 * R, G, B are picked out (SEL). The 12-lane chunks of R, G, B (LOADC,
 * PREFIX) shift by 3 lanes across the halves of a vector; here a pixel is
 * 4 lanes, so a row's 4-pixel prefix is two in-half shuffles (1080p RGBA on
 * a 2-vCPU AMD EPYC Zen 3: 4.2-4.3 -> 2.4-2.8 ms a frame, 1.2-1.3x ->
 * 0.8-0.9x cv::integral's time). Static: only cpu_integral calls these, as
 * scan4. */
#define PX4_WORDS 1
#endif

#if defined (WORD_SCAN) || defined (PX4_WORDS)
/* rows ahead that add_down64 prefetches: its loads go down a 64-byte
 * strip, a row stride apart, which no hardware prefetcher follows (1080p
 * GRAY8 frames where both groups of cpu_integral ran at once, medians of
 * two traced runs: 0.215 / 0.242 ms against 0.250 / 0.289 without; 16
 * ahead 0.222 / 0.247) */
#define ADD_AHEAD 8

/* @t[0..3] = VAL of the 64 bytes at byte @xb of source rows [@y, @ye),
 * added up in 16-bit lanes, 16 bytes each (at most 256 rows: 256 x 255 <
 * 2^16) */
static void add_down64 (__global const uchar * src, uint src_off,
    int src_stride, size_t xb, int y, int ye, ushort16 * t);

static inline __attribute__ ((always_inline)) void
add_down64 (__global const uchar * src, uint src_off, int src_stride,
    size_t xb, int y, int ye, ushort16 * t)
{
  ushort16 t0 = 0, t1 = 0, t2 = 0, t3 = 0;

  for (; y < ye; y++) {
    __global const uchar *p = SRC_ROW (y) + xb;

    __builtin_prefetch ((const __global void *) (p + (size_t) ADD_AHEAD *
            src_stride), 0, 3);
    __builtin_prefetch ((const __global void *) (p + (size_t) ADD_AHEAD *
            src_stride + 63), 0, 3);
    t0 += WLOAD16 (p, 0);
    t1 += WLOAD16 (p, 16);
    t2 += WLOAD16 (p, 32);
    t3 += WLOAD16 (p, 48);
  }
  t[0] = t0;
  t[1] = t1;
  t[2] = t2;
  t[3] = t3;
}
#endif

/* add_rows' vector part, where there is one: strips of 64 bytes (STRIP_PX
 * pixels) added down the rows in 16-bit lanes by add_down64, the sums of
 * each 256 rows widened and folded into @acc (4-byte pixels: R, G, B
 * picked out). In LOADC's 4-pixel chunks the rows above the second band of
 * a 1080p RGBA frame took half the time of scanning as many rows, and that
 * band finished far behind the first. Returns the first pixel left. Static
 * and called for the fast kernel only, as scan4: PoCL can leave it out of
 * cpu_integral_first */
#ifdef WORD_SCAN
#define STRIP_PX 64
#define FOLD_STRIP(t, k, acc, x) vstore16 (vload16 (k, (acc) + (x)) + \
    CONVERT (ACC16, t), k, (acc) + (x))
#elif defined (PX4_WORDS)
#define STRIP_PX 16
#define FOLD_STRIP(t, k, acc, x) do { \
    __global ACC *a_ = (acc) + ((x) + 4 * (k)) * 3; \
    ACC16 s_ = LOADA (a_) + CONVERT (ACC16, (t).SEL); \
    STOREA (s_, a_); } while (0)
#endif
#ifdef STRIP_PX
static int add_strips (__global const uchar * src, uint src_off,
    int src_stride, int width, int ya, int yb, __global ACC * acc);

static int
add_strips (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc)
{
  int x, y, k;

  for (x = 0; x + STRIP_PX <= width; x += STRIP_PX)
    for (y = ya; y < yb; y += 256) {
      ushort16 t[4];

      add_down64 (src, src_off, src_stride, (size_t) x * PSTRIDE, y,
          min (yb, y + 256), t);
#pragma unroll
      for (k = 0; k < 4; k++)
        FOLD_STRIP (t[k], k, acc, x);
    }
  return x;
}
#endif

#ifdef PX4_WORDS
/* scan4 for them: 4 pixels of 4 rows at a time, the rows added down first
 * and each row's prefix over the 4 pixels taken in 16-bit lanes (4 x 4 x
 * 255 < 2^16), then widened, one carry per row; row k is the integral above
 * the block plus the prefix of the sum of rows 0..k. Returns the first
 * column left, @s (3 per row) the rows' own sums up to it. */
static int scan4_px4 (__global const uchar * r0, __global const uchar * r1,
    __global const uchar * r2, __global const uchar * r3, int width,
    __global ACC * acc, __global OUT * o0, size_t ostride, uint * s);

static inline __attribute__ ((always_inline)) int
scan4_px4 (__global const uchar * r0, __global const uchar * r1,
    __global const uchar * r2, __global const uchar * r3, int width,
    __global ACC * acc, __global OUT * o0, size_t ostride, uint * s)
{
  uint16 c[4] = { 0, 0, 0, 0 };
  uint e16[16];
  int x, k;

  for (x = 0; x + 4 <= width; x += 4) {
    size_t e = (size_t) x * 3;
    ACC16 a = LOADA (acc + e), t;
    ushort16 w[4];

    w[0] = WLOAD16 (r0, x * 4);
    w[1] = w[0] + WLOAD16 (r1, x * 4);
    w[2] = w[1] + WLOAD16 (r2, x * 4);
    w[3] = w[2] + WLOAD16 (r3, x * 4);
#pragma unroll
    for (k = 0; k < 4; k++) {
      uint16 v;

      w[k] += __builtin_shufflevector (w[k], (ushort16) 0, 16, 16, 16, 16,
          0, 1, 2, 3, 16, 16, 16, 16, 8, 9, 10, 11);
      w[k] += __builtin_shufflevector (w[k], (ushort16) 0, 16, 16, 16, 16,
          16, 16, 16, 16, 4, 5, 6, 7, 4, 5, 6, 7);
      v = convert_uint16 (w[k]) + c[k];
      c[k] = __builtin_shufflevector (v, v, 12, 13, 14, 15, 12, 13, 14, 15,
          12, 13, 14, 15, 12, 13, 14, 15);
      t = a + CONVERT (ACC16, v.SEL);
      STOREO (t, o0 + k * ostride + e);
    }
    STOREA (t, acc + e);
  }
  for (k = 0; k < 4; k++) {
    vstore16 (k ? c[k] - c[k - 1] : c[0], 0, e16);
    s[3 * k] = e16[ROFF];
    s[3 * k + 1] = e16[GOFF];
    s[3 * k + 2] = e16[BOFF];
  }
  return x;
}
#endif

/* acc[0 .. W * CH) += VAL of the samples of source rows [ya, yb); @fast
 * FALSE: pixel by pixel only (less code to compile) */
void add_rows (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc, bool fast);

void
add_rows (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc, bool fast)
{
  int x, y, k;

#ifdef STRIP_PX
  if (fast) {
    x = add_strips (src, src_off, src_stride, width, ya, yb, acc);
    if (x >= width)
      return;
    src_off += x * PSTRIDE;
    width -= x;
    acc += x * CH;
  }
#endif
  for (y = ya; y < yb; y += R) {
    int nr = min (R, yb - y);

    for (x = 0; fast && x + NPX <= width; x += NPX) {
      VT t = LOADA (acc + x * CH);
      SCALAR_LOOP
      for (k = 0; k < nr; k++)
        t += LOADC (SRC_ROW (y + k), x);
      STOREA (t, acc + x * CH);
    }
    SCALAR_LOOP
    for (; x < width; x++) {
      V (ACC) t = LOADV (x, acc);
      SCALAR_LOOP
      for (k = 0; k < nr; k++)
        t += VAL (V (ACC), load_px (SRC_ROW (y + k), x));
      STOREV (t, x, acc);
    }
  }
}

/* Source rows [y0, y1) top-down: @acc the integral of row y0 in (columns
 * 1..W, so float outputs never feed back into the sums), of row y1 out;
 * writes output rows y0 + 1 .. y1 of the plane at @o. @stream: streaming
 * stores where there are. @fast FALSE (cpu_integral_first): one row at a
 * time, pixel by pixel: a third of the compile time, for the frames before
 * the warm-up worker has compiled cpu_integral. */
void scan_down (__global const uchar * src, uint src_off, int src_stride,
    int width, int y0, int y1, __global ACC * acc, __global OUT * o,
    size_t ostride, bool stream, bool fast);

void
scan_down (__global const uchar * src, uint src_off, int src_stride,
    int width, int y0, int y1, __global ACC * acc, __global OUT * o,
    size_t ostride, bool stream, bool fast)
{
  V (ACC) s = 0;
  int x, y, k;

  for (y = y0; y < y1; y += R) {
    int nr = min (R, y1 - y);
    __global OUT *orow = o + (size_t) (y + 1) * ostride;

    if (fast && nr == R) {
      __global const uchar *r0 = SRC_ROW (y), *r1 = SRC_ROW (y + 1);
      __global const uchar *r2 = SRC_ROW (y + 2), *r3 = SRC_ROW (y + 3);
      __global OUT *o0 = orow + CH, *o1 = o0 + ostride;
      __global OUT *o2 = o1 + ostride, *o3 = o2 + ostride;
      VT c0 = 0, c1 = 0, c2 = 0, c3 = 0;
      V (ACC) s0, s1, s2, s3, a;

      SCALAR_LOOP
      for (k = 0; k < R; k++)
        STOREV ((V (OUT)) 0, 0, orow + k * ostride);
#ifdef WORD_SCAN
      {
        uint sw[4];

        x = scan4 (r0, r1, r2, r3, width, acc, o0, (long) ostride,
            stream, false, sw);
        s0 = sw[0];
        s1 = sw[1];
        s2 = sw[2];
        s3 = sw[3];
      }
#elif defined (PX4_WORDS)
      {
        uint sw[12];

        x = scan4_px4 (r0, r1, r2, r3, width, acc, o0, ostride, sw);
        s0 = CONVERT (V (ACC), vload3 (0, sw));
        s1 = CONVERT (V (ACC), vload3 (1, sw));
        s2 = CONVERT (V (ACC), vload3 (2, sw));
        s3 = CONVERT (V (ACC), vload3 (3, sw));
      }
#else
      for (x = 0; x + NPX <= width; x += NPX) {
        VT v0 = LOADC (r0, x), v1 = LOADC (r1, x);
        VT v2 = LOADC (r2, x), v3 = LOADC (r3, x), t;
        size_t e = (size_t) x * CH;

        PREFIX (v0);
        PREFIX (v1);
        PREFIX (v2);
        PREFIX (v3);
        v0 += c0;
        v1 += c1;
        v2 += c2;
        v3 += c3;
        c0 = CARRY (v0);
        c1 = CARRY (v1);
        c2 = CARRY (v2);
        c3 = CARRY (v3);
        t = LOADA (acc + e) + v0;
        STOREO (t, o0 + e);
        t += v1;
        STOREO (t, o1 + e);
        t += v2;
        STOREO (t, o2 + e);
        t += v3;
        STOREO (t, o3 + e);
        STOREA (t, acc + e);
      }
#if CH == 1
      s0 = c0.s0;
      s1 = c1.s0;
      s2 = c2.s0;
      s3 = c3.s0;
#else
      s0 = c0.s012;
      s1 = c1.s012;
      s2 = c2.s012;
      s3 = c3.s012;
#endif
#endif /* WORD_SCAN */
      SCALAR_LOOP
      for (; x < width; x++) {
        s0 += VAL (V (ACC), load_px (r0, x));
        s1 += VAL (V (ACC), load_px (r1, x));
        s2 += VAL (V (ACC), load_px (r2, x));
        s3 += VAL (V (ACC), load_px (r3, x));
        a = LOADV (x, acc) + s0;
        STOREV (CONVERT (V (OUT), a), x, o0);
        a += s1;
        STOREV (CONVERT (V (OUT), a), x, o1);
        a += s2;
        STOREV (CONVERT (V (OUT), a), x, o2);
        a += s3;
        STOREV (CONVERT (V (OUT), a), x, o3);
        STOREV (a, x, acc);
      }
      continue;
    }
    /* the band's last rows, one at a time */
    SCALAR_LOOP
    for (k = 0; k < nr; k++, orow += ostride) {
      __global const uchar *row = SRC_ROW (y + k);
      VT c = 0;

      STOREV ((V (OUT)) 0, 0, orow);
      for (x = 0; fast && x + NPX <= width; x += NPX) {
        VT v = LOADC (row, x), t;
        size_t e = (size_t) x * CH;

        PREFIX (v);
        v += c;
        c = CARRY (v);
        t = LOADA (acc + e) + v;
        STOREO (t, orow + CH + e);
        STOREA (t, acc + e);
      }
#if CH == 1
      s = c.s0;
#else
      s = c.s012;
#endif
      SCALAR_LOOP
      for (; x < width; x++) {
        V (ACC) a;
        s += VAL (V (ACC), load_px (row, x));
        a = LOADV (x, acc) + s;
        STOREV (a, x, acc);
        STOREV (CONVERT (V (OUT), a), x + 1, orow);
      }
    }
  }
}

/* One work-item (work-group of 1) per band of rows: band b covers source
 * rows [bands[b], bands[b + 1]) and writes output rows bands[b] + 1 ...
 * (band 0 also row 0). It first adds up the column totals of the rows above
 * its band itself (one launch, no second kernel to compile; the host makes
 * the later bands shorter to even out that extra reading), then scans its
 * rows. acc (the band's first scratch row) holds the integral of the row
 * above. */
void integral_band (__global const uchar * src, uint src_off,
    int src_stride, int width, int height, int16 bands,
    __global ACC * accrow, __global uchar * out, ulong out_off, bool fast);

void
integral_band (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, int16 bands, __global ACC * accrow,
    __global uchar * out, ulong out_off, bool fast)
{
  int b = get_global_id (0);
  int bs[16];
  int y0, y1;
  size_t n = (size_t) width * CH;
  size_t ostride = (size_t) (width + 1) * CH;
  __global ACC *acc = SCRATCH_ROWS (accrow) + b * 3 * n;
  __global OUT *o = (__global OUT *) (out + out_off);
  V (ACC) s = 0;
  int x;

  vstore16 (bands, 0, bs);
  y0 = bs[b];
  y1 = min (bs[b + 1], height);
  if (b == 0)
    SCALAR_LOOP
    for (x = 0; x < (int) ostride; x++)
      o[x] = 0;
  if (y0 >= y1)
    return;
  /* the row above the band: column totals, then their prefix over x */
  SCALAR_LOOP
  for (x = 0; x < (int) n; x++)
    acc[x] = 0;
  add_rows (src, src_off, src_stride, width, 0, y0, acc, fast);
  SCALAR_LOOP
  for (x = 0; x < width; x++) {
    s += LOADV (x, acc);
    STOREV (s, x, acc);
  }
  /* (no streaming stores: only the 8-bit gray scan has them, and for it
   * this runs as cpu_integral_first only, pixel by pixel) */
  scan_down (src, src_off, src_stride, width, y0, y1, acc, o, ostride, false,
      fast);
}

#endif /* !GPU_ONLY && !BOX */
