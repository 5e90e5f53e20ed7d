/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral.cl: integral images (summed-area tables) and box means.
 *
 * One program computes one plane of the integral image (the sum, the sum of
 * squares or the count of non-zero samples, chosen by VALUE) of one source
 * layout; the host builds one program per plane it needs, except that on
 * GPUs the sum program also writes the squares plane (PAIR).
 *
 * Output plane: (W+1) x (H+1) elements of OUT, CH channels interleaved, rows
 * tightly packed, first row and first column zero, starting at byte
 * `out_off` of `out`. Element (r, c, ch) = sum over source rows < r and
 * columns < c of VALUE(sample ch).
 *
 * Accumulation is always in integers (ACC: uint wraps modulo 2^32 for U32
 * outputs, ulong otherwise); float outputs are the exact integer converted
 * once, rounded to nearest.
 *
 * CPU variant (few long work-items, no barriers, one kernel): cpu_integral
 * gives each band of rows the column totals of the rows above it, then walks
 * the band top-down with a running row prefix plus one private-to-the-band
 * row of column sums, so the output is written exactly once. For 8-bit gray
 * sums and counts the bands are only where the work-groups start: blocks of
 * rows are claimed while running, from both ends of each band, so that no
 * group waits for a late one (dynamic_bands).
 * GPU variant (three launches, the output written once): gpu_strip_sums
 * sums tiles of the source, gpu_strip_scan prefixes those sums over the
 * strips, gpu_strip_integral reads the source again and writes every
 * element of the output once, coalesced (details below). With ONEPASS,
 * gpu_lookback_integral does it in one launch instead (opt-in, below).
 *
 * Options: CH (1|3), SRC_T (uchar|ushort, CH=1), PSTRIDE ROFF GOFF BOFF
 * (bytes, CH=3), SEL (swizzle picking R, G, B of 4 pixels, CH=3), ACC, OUT,
 * VALUE (0 sum, 1 square, 2 non-zero), WG (work-group size of the strip
 * kernels, at least SH), SH (rows per strip), CB (gpu_strip_scan bands),
 * CPU_ONLY / GPU_ONLY (0|1: only one variant's kernels, which the device
 * runs; the other's would only cost build time), ONEPASS (0|1: the strip
 * kernels or gpu_lookback_integral), TH (its rows per tile, at most WG),
 * PACKED (0|1: the GPU kernels' local partial sums as V (ACC) or packed),
 * PAIR (0|1: the strip kernels also write the squares plane, see below;
 * OUT2 its output type),
 * BOX (1: the box mean's
 * kernels: cpu_box_mean*, or the strip kernels and box_mean; 0: the
 * integral image's, less to build either way). */

#ifndef CH
#define CH 1
#endif
#ifndef SRC_T
#define SRC_T uchar
#endif
#ifndef PSTRIDE
#define PSTRIDE 4
#endif
#ifndef ROFF
#define ROFF 0
#endif
#ifndef GOFF
#define GOFF 1
#endif
#ifndef BOFF
#define BOFF 2
#endif
#ifndef SEL
#define SEL s012456789abcdef
#endif
#ifndef ACC
#define ACC uint
#endif
#ifndef OUT
#define OUT uint
#endif
#ifndef VALUE
#define VALUE 0
#endif
#ifndef WG
#define WG 64
#endif
#ifndef CB
#define CB 8
#endif
#ifndef CPU_ONLY
#define CPU_ONLY 0
#endif
#ifndef GPU_ONLY
#define GPU_ONLY 0
#endif
#ifndef BOX
#define BOX 0
#endif
#ifndef ONEPASS
#define ONEPASS 0
#endif

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CONVERT(t, x) CAT (convert_, t) (x)

/* one pixel: a scalar for CH=1, a 3-vector for CH=3 (vload3/vstore3 keep
 * the 3 channels tightly packed in memory) */
#if CH == 1
#define V(t) t
#define LOADV(i, p) ((p)[i])
#define STOREV(v, i, p) ((p)[i] = (v))
#else
#define V(t) CAT (t, 3)
#define LOADV(i, p) vload3 (i, p)
#define STOREV(v, i, p) vstore3 (v, i, p)
#endif

/* the value a sample contributes, as type T (elementwise for vectors) */
#if VALUE == 0
#define VAL(T, px) CONVERT (T, px)
#elif VALUE == 1
#define VAL(T, px) (CONVERT (T, px) * CONVERT (T, px))
#else
#define VAL(T, px) CONVERT (T, min (px, 1u))
#endif

V (uint) load_px (__global const uchar * row, int x);

V (uint)
load_px (__global const uchar * row, int x)
{
#if CH == 1
  return (uint) ((__global const SRC_T *) row)[x];
#else
  __global const uchar *p = row + (size_t) x * PSTRIDE;
  return (uint3) (p[ROFF], p[GOFF], p[BOFF]);
#endif
}

#define SRC_ROW(y) (src + src_off + (size_t) (y) * src_stride)

/* ---- CPU variant (left out with GPU_ONLY) ---- */

#if !GPU_ONLY

/* Chunks: NPX pixels (NE = NPX * CH elements) handled as one vector VT of
 * ACC: CH=1 8 pixels in an ACC8; CH=3 4 pixels whose R, G, B bytes SEL
 * (a swizzle from the host, lanes 12-15 don't care) packs into the first 12
 * lanes of an ACC16. */
#define ACC4 CAT (ACC, 4)
#define ACC8 CAT (ACC, 8)
#define ACC16 CAT (ACC, 16)
#if CH == 1
#define NPX 8
#define VT ACC8
#define LOADC(row, x) VAL (ACC8, \
    convert_uint8 (vload8 (0, (__global const SRC_T *) (row) + (x))))
/* inclusive prefix over the 8 lanes: 3 shifted adds */
#define PREFIX(v) do { \
    v += (ACC8) ((ACC) 0, v.s0123, v.s456); \
    v += (ACC8) ((ACC) 0, (ACC) 0, v.s0123, v.s45); \
    v += (ACC8) ((ACC4) 0, v.s0123); } while (0)
#define CARRY(v) ((ACC8) (v.s7))
#define LOADA(p) vload8 (0, p)
#define STOREA(v, p) vstore8 (v, 0, p)
#define STOREO(v, p) vstore8 (CONVERT (CAT (OUT, 8), v), 0, p)
#else
#define NPX 4
#define VT ACC16
#if PSTRIDE == 4
#define LOADRAW(p) vload16 (0, p)
#else
#define LOADRAW(p) ((uchar16) (vload8 (0, p), vload4 (0, (p) + 8), \
    (uchar4) 0))
#endif
#define LOADC(row, x) VAL (ACC16, \
    convert_uint16 (LOADRAW ((row) + (size_t) (x) * PSTRIDE).SEL))
/* prefix over the 4 pixels, channel lanes 3 apart */
#define PREFIX(v) do { \
    v += (ACC16) ((ACC4) ((ACC) 0, (ACC) 0, (ACC) 0, v.s0), v.s12345678, \
        v.s9abc); \
    v += (ACC16) ((ACC4) 0, (ACC) 0, (ACC) 0, v.s01, v.s23456789); } while (0)
#define CARRY(v) (v.s9ab9ab9ab9ab9ab9)
#define LOADA(p) ((ACC16) (vload8 (0, p), vload4 (0, (p) + 8), (ACC4) 0))
#define STOREA(v, p) do { vstore8 (v.lo, 0, p); \
    vstore4 (v.s89ab, 0, (p) + 8); } while (0)
#define STOREO(v, p) do { vstore8 (CONVERT (CAT (OUT, 8), v.lo), 0, p); \
    vstore4 (CONVERT (CAT (OUT, 4), v.s89ab), 0, (p) + 8); } while (0)
#endif
/* rows scanned together: independent row prefixes overlap, and the running
 * column sums are loaded and stored once per R rows */
#define R 4

/* Per-pixel loops are left scalar: auto-vectorized, they made PoCL's
 * first-launch compile of cpu_integral_first about 0.1 s (a third)
 * longer; the chunked loops are vector code already */
#define SCALAR_LOOP \
  _Pragma ("clang loop vectorize(disable) interleave(disable)")

/* ---- CPU work claimed while running (cpu_integral for 8-bit gray,
 * cpu_box_mean): regions of rows cut into blocks, each claimed once, from
 * the region's top or bottom; see dynamic_bands and box_dynamic ----
 *
 * A region's claims are one word: epoch (8 bits) | blocks from the top
 * (12) | from the bottom (12). Each launch passes a new epoch (1..255, never
 * the last one's); a word of another epoch counts as none claimed, so the
 * words are zeroed once, not per frame. Every block of every region with
 * rows is claimed in every launch, so its word is never older than the
 * last launch. */

/* CPU scratch (accrow): CPU_HEAD bytes of region words (the split decided
 * while running), then each work-group's rows of sums */
#ifndef CPU_HEAD
#define CPU_HEAD 1024
#endif
#define SCRATCH_ROWS(accrow) ((__global ACC *) ((__global uchar *) (accrow) \
    + CPU_HEAD))

#define BLOCK_ROWS 16
#define MAX_BLOCKS 4095
/* rows added up (add_rows, add_sub_row) for the time of one row scanned,
 * about (ADD_ROW_COST in the host) */
#define ADD_PER_ROW 4

/* region r's rows [ys, ye) and blocks (nb): from the bands' starts (bs)
 * and the block's rows (br) */
#define REGION(r, ys, ye, nb) do { \
    ys = min (bs[r], height); \
    ye = max (min (bs[(r) + 1], height), ys); \
    nb = (ye - ys + br - 1) / br; } while (0)

/* the next block of a region of @nb from its top (@up FALSE) or bottom:
 * its index from that end, or -1; @first: only while that end has none */
static int claim (volatile __global uint * word, uint epoch, int nb, bool up,
    bool first);

static int
claim (volatile __global uint * word, uint epoch, int nb, bool up,
    bool first)
{
  uint old = *word;

  for (;;) {
    uint cur = old >> 24 == epoch ? old & 0xffffffu : 0, prev;
    int top = cur & 0xfff, bottom = cur >> 12, mine = up ? bottom : top;

    if (top + bottom >= nb || (first && mine > 0))
      return -1;
    prev = atomic_cmpxchg (word, old, epoch << 24 | (cur + (up ? 0x1000 : 1)));
    if (prev == old)
      return mine;
    old = prev;
  }
}

/* blocks of a region of @nb not claimed yet */
static int unclaimed (volatile __global uint * word, uint epoch, int nb);

static int
unclaimed (volatile __global uint * word, uint epoch, int nb)
{
  uint w = *word, cur = w >> 24 == epoch ? w & 0xffffffu : 0;

  return max (nb - (int) (cur & 0xfff) - (int) (cur >> 12), 0);
}

#if !BOX

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
#define WLOAD16(r, x) CONVERT (ushort16, VAL (uchar16, vload16 (0, (r) + (x))))
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

#ifdef WORD_SCAN
/* rows ahead that add_cols64 prefetches: its loads go down a 64-column
 * strip, a row stride apart, which no hardware prefetcher follows (1080p
 * frames where both groups of cpu_integral ran at once, medians of two
 * traced runs: 0.215 / 0.242 ms against 0.250 / 0.289 without; 16 ahead
 * 0.222 / 0.247) */
#define ADD_AHEAD 8

/* add_rows for 8-bit gray sums and counts: 64 columns at a time, down the
 * rows in 16-bit lanes (256 samples sum to at most 65280), widened once per
 * 256 rows; returns the first column left. Static and called for the fast
 * kernel only, as scan4: PoCL can leave it out of cpu_integral_first */
static int add_cols64 (__global const uchar * src, uint src_off,
    int src_stride, int width, int ya, int yb, __global ACC * acc);

static int
add_cols64 (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc)
{
  int x, y;

  for (x = 0; x + 64 <= width; x += 64) {
    for (y = ya; y < yb;) {
      int ye = min (yb, y + 256);
      ushort16 t0 = 0, t1 = 0, t2 = 0, t3 = 0;

      for (; y < ye; y++) {
        __global const uchar *p = SRC_ROW (y) + x;

        __builtin_prefetch ((const __global void *) (p + (size_t) ADD_AHEAD *
                src_stride), 0, 3);
        __builtin_prefetch ((const __global void *) (p + (size_t) ADD_AHEAD *
                src_stride + 63), 0, 3);
        t0 += WLOAD16 (p, 0);
        t1 += WLOAD16 (p, 16);
        t2 += WLOAD16 (p, 32);
        t3 += WLOAD16 (p, 48);
      }
      vstore16 (vload16 (0, acc + x) + CONVERT (ACC16, t0), 0, acc + x);
      vstore16 (vload16 (1, acc + x) + CONVERT (ACC16, t1), 1, acc + x);
      vstore16 (vload16 (2, acc + x) + CONVERT (ACC16, t2), 2, acc + x);
      vstore16 (vload16 (3, acc + x) + CONVERT (ACC16, t3), 3, acc + x);
    }
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

#ifdef WORD_SCAN
  if (fast) {
    x = add_cols64 (src, src_off, src_stride, width, ya, yb, acc);
    if (x >= width)
      return;
    src_off += x;
    width -= x;
    acc += x;
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

#else /* BOX */

/* ---- CPU box mean (VALUE 0): one pass, running sums, no integral image ----
 *
 * A work-group keeps, for its current row y, the column sums of source
 * rows y - r .. y + r (clipped) in cs, updated by one row in and one out per
 * row, down or up the frame; their prefix over x (pre, W + 1 entries) gives
 * every window sum with one subtraction. Which rows each group scans is
 * decided while running (box_dynamic). Mean as box_mean below:
 * (sum + area / 2) / area, computed as num * (1 / area) in double plus
 * 2^-32: exact while num < 2^53 and area < 2^31 (the product is within
 * 2^-36 of num / area <= 65535, an integer quotient is not lowered, and a
 * fraction stays at least 1 / area - 2^-32 below the next integer).
 *
 * A pixel's sums are BL lanes of ACC: CH, except for 4-byte RGB pixels,
 * where all 4 bytes are summed in memory order (one aligned 4-vector; the
 * extra byte's lane is never stored). Except for 3-byte pixels, the loops
 * take chunks of 16 lanes (BPX pixels) and finish pixel by pixel. */

#if CH == 3 && PSTRIDE == 4
#define BL 4
#define BV(t) CAT (t, 4)
#define BSRC(row, x) CONVERT (BV (ACC), vload4 (x, row))
#define BLOAD(i, p) vload4 (i, p)
#define BSTORE(v, i, p) vstore4 (v, i, p)
/* lanes (bytes) of the pixel kept from the source: -1 */
#define KEEPL(i) ((i) != ROFF && (i) != GOFF && (i) != BOFF ? -1 : 0)
#define STORE_MEAN(m, x) vstore4 (select (convert_uchar4 (m), \
      vload4 (x, srow), (char4) (KEEPL (0), KEEPL (1), KEEPL (2), \
          KEEPL (3))), x, drow)
#else
#define BL CH
#define BV(t) V (t)
#define BSRC(row, x) VAL (V (ACC), load_px (row, x))
#define BLOAD(i, p) LOADV (i, p)
#define BSTORE(v, i, p) STOREV (v, i, p)
#if CH == 1
#define STORE_MEAN(m, x) (((__global SRC_T *) drow)[x] = (SRC_T) (m))
#else
/* 3-byte pixels: nothing else in them */
#define STORE_MEAN(m, x) do { \
    __global uchar *p_ = drow + (size_t) (x) * PSTRIDE; \
    p_[ROFF] = (uchar) (m).x; \
    p_[GOFF] = (uchar) (m).y; \
    p_[BOFF] = (uchar) (m).z; } while (0)
#endif
#endif

#define MEAN(sum, area, inv) CONVERT (BV (uint), CONVERT (BV (double), \
      (sum) + (area) / 2) * (inv) + 0x1p-32)

#if BL != 3
/* Chunks of BN lanes (BPX pixels): gray 8 lanes, 4-byte RGB 16 (4
 * pixels). 8 gray lanes keep to 256-bit vectors: PoCL makes 512-bit ones
 * of 16 lanes, which on these cores leave one vector ALU port idle and
 * put every shuffle on the other; the prefix's first two steps stay
 * inside 128-bit halves */
#if BL == 1
#define BN 8
#else
#define BN 16
#endif
#define BPX (BN / BL)
#define BVN CAT (ACC, BN)
#define BLOADN(p) CAT (vload, BN) (0, p)
#define BSTOREN(v, p) CAT (vstore, BN) (v, 0, p)
#define ACC2 CAT (ACC, 2)
/* BN samples stored with one unaligned vector store (vstore16 of 8-bit
 * lanes became 16 byte stores in PoCL 3.1) */
#if BL == 1
typedef SRC_T UNALIGNED_N __attribute__ ((ext_vector_type (BN), aligned (1)));
#else
typedef uchar UNALIGNED_N __attribute__ ((ext_vector_type (BN), aligned (1)));
#endif
/* 8-bit samples: the interior's means in float where that is exact.
 * N = sum + area / 2 < 2^24 is exact, N * fl(1 / area) + 2^-14 is within
 * E = 256 * 1.5 * 2^-23 < 2^-14 of Q + 2^-14 (Q = N / area <= 255 + 1/2,
 * three roundings of relative 2^-24): truncation never lowers an integer
 * Q, and a fractional one, at least 1 / area below the next integer,
 * stays below it while 2^-14 + E < 1 / area, i.e. area <= 8192 (windows
 * up to 89 x 89); larger windows take the double path */
#if CH == 3 || PSTRIDE == 1
#define FLOAT_MEAN_AREA 8192
#endif
#if BL == 1
#define BSRCN(row, x) CONVERT (ACC8, vload8 (0, \
      (__global const SRC_T *) (row) + (x)))
#define BPREFIX(v) do { \
    v += __builtin_shufflevector (v, (ACC8) 0, 8, 0, 1, 2, 8, 4, 5, 6); \
    v += __builtin_shufflevector (v, (ACC8) 0, 8, 8, 0, 1, 8, 8, 4, 5); \
    v += __builtin_shufflevector (v, (ACC8) 0, 8, 8, 8, 8, 3, 3, 3, 3); \
  } while (0)
#define BCARRY(v) ((ACC8) (v.s7))
#define BLAST(v) (v.s0)
#define STORE_MEANN(m, x) (*(__global UNALIGNED_N *) \
      ((__global SRC_T *) drow + (x)) = CONVERT (CAT (SRC_T, 8), m))
#else
#define BSRCN(row, x) CONVERT (ACC16, vload16 (0, (row) + (x) * 4))
#define BPREFIX(v) do { \
    v += (ACC16) ((ACC4) 0, v.s0123, v.s4567, v.s89ab); \
    v += (ACC16) ((ACC8) 0, v.lo); } while (0)
#define BCARRY(v) (v.scdefcdefcdefcdef)
#define BLAST(v) (v.s0123)
#define KEEP4 KEEPL (0), KEEPL (1), KEEPL (2), KEEPL (3)
#define STORE_MEANN(m, x) (*(__global UNALIGNED_N *) (drow + (x) * 4) = \
      select (convert_uchar16 (m), vload16 (0, srow + (x) * 4), \
          (char16) (KEEP4, KEEP4, KEEP4, KEEP4)))
#endif
#endif

/* acc[0 .. W * BL) += row @ya - row @yb (either may be -1: none) */
void add_sub_row (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc, bool fast);

void
add_sub_row (__global const uchar * src, uint src_off, int src_stride,
    int width, int ya, int yb, __global ACC * acc, bool fast)
{
  __global const uchar *ra = SRC_ROW (max (ya, 0)), *rb = SRC_ROW (max (yb,
          0));
  int x = 0;

#if BL != 3
  for (; fast && x + BPX <= width; x += BPX) {
    BVN t = BLOADN (acc + x * BL);
    if (ya >= 0)
      t += BSRCN (ra, x);
    if (yb >= 0)
      t -= BSRCN (rb, x);
    BSTOREN (t, acc + x * BL);
  }
#endif
  SCALAR_LOOP
  for (; x < width; x++) {
    BV (ACC) t = BLOAD (x, acc);
    if (ya >= 0)
      t += BSRC (ra, x);
    if (yb >= 0)
      t -= BSRC (rb, x);
    BSTORE (t, x, acc);
  }
}

/* the box mean's arguments, passed on to its helpers */
#define BOX_ARGS src, src_off, src_stride, dst, dst_off, dst_stride, width, \
    height, rx, ry
#define BOX_PARAMS __global const uchar * src, uint src_off, \
    int src_stride, __global uchar * dst, uint dst_off, int dst_stride, \
    int width, int height, int rx, int ry

/* row @y's means from @cs, the column sums of its window (source rows
 * y - ry .. y + ry, clipped); @pre: scratch for their prefix over x.
 * @fast FALSE (cpu_box_mean_first): pixel by pixel, less to compile */
static void box_row (BOX_PARAMS, int y, __global ACC * cs,
    __global ACC * pre, bool fast);

static inline __attribute__ ((always_inline)) void
box_row (BOX_PARAMS, int y, __global ACC * cs, __global ACC * pre,
    bool fast)
{
  __global const uchar *srow = SRC_ROW (y);
  __global uchar *drow = dst + dst_off + (size_t) y * dst_stride;
  ACC ny = (ACC) (min (y + ry, height - 1) + 1 - max (y - ry, 0));
  BV (ACC) s = 0;
  int xa = min (rx, width), xb = max (width - rx, xa), x;

  BSTORE (s, 0, pre);
  x = 0;
#if BL != 3
  {
    BVN c = 0;

    for (; fast && x + BPX <= width; x += BPX) {
      BVN v = BLOADN (cs + x * BL), t;

      BPREFIX (v);
      /* the chunk's total broadcast before the carry goes in: the
       * loop-carried chain is one add */
      t = BCARRY (v);
      v += c;
      c += t;
      BSTOREN (v, pre + (x + 1) * BL);
    }
    s = BLAST (c);
  }
#endif
  SCALAR_LOOP
  for (; x < width; x++) {
    s += BLOAD (x, cs);
    BSTORE (s, x + 1, pre);
  }
  /* left and right borders (x < xa, x >= xb): clipped windows */
  SCALAR_LOOP
  for (x = xa > 0 ? 0 : xb; x < width; x = x + 1 == xa ? xb : x + 1) {
    int x0 = max (x - rx, 0), x1 = min (x + rx, width - 1) + 1;
    ACC area = (ACC) (x1 - x0) * ny;
    BV (uint) m = MEAN (BLOAD (x1, pre) - BLOAD (x0, pre), area,
        1.0 / (double) area);

    STORE_MEAN (m, x);
  }
  /* interior: whole windows, one area */
  {
    ACC area = (ACC) (2 * rx + 1) * ny;
    double inv = 1.0 / (double) area;

    x = xa;
#if BL != 3
#ifdef FLOAT_MEAN_AREA
    if (area <= FLOAT_MEAN_AREA) {
      float invf = (float) inv;

      for (; fast && x + BPX <= xb; x += BPX) {
        BVN sum = BLOADN (pre + (x + rx + 1) * BL) -
            BLOADN (pre + (x - rx) * BL);
        CAT (uint, BN) m = CONVERT (CAT (uint, BN),
            CONVERT (CAT (float, BN), sum + area / 2) * invf + 0x1p-14f);

        STORE_MEANN (m, x);
      }
    }
#endif
    for (; fast && x + BPX <= xb; x += BPX) {
      BVN sum = BLOADN (pre + (x + rx + 1) * BL) -
          BLOADN (pre + (x - rx) * BL);
      CAT (uint, BN) m = CONVERT (CAT (uint, BN),
          CONVERT (CAT (double, BN), sum + area / 2) * inv + 0x1p-32);

      STORE_MEANN (m, x);
    }
#endif
    SCALAR_LOOP
    for (; x < xb; x++) {
      BV (uint) m = MEAN (BLOAD (x + rx + 1, pre) - BLOAD (x - rx, pre),
          area, inv);

      STORE_MEAN (m, x);
    }
  }
}

/* @cs = the column sums of row @y's window */
static void box_window (BOX_PARAMS, int y, __global ACC * cs, bool fast);

static void
box_window (BOX_PARAMS, int y, __global ACC * cs, bool fast)
{
  int x, k;

  SCALAR_LOOP
  for (x = 0; x < width * BL; x++)
    cs[x] = 0;
  SCALAR_LOOP
  for (k = max (y - ry, 0); k < min (y + ry + 1, height); k++)
    add_sub_row (src, src_off, src_stride, width, k, -1, cs, fast);
}

/* rows [y0, y1): top-down (@cs the window of row y0 in, of row y1 out) or
 * @up, bottom-up (the window of row y1 - 1 in, of row y0 - 1 out) */
static void box_rows (BOX_PARAMS, int y0, int y1, bool up,
    __global ACC * cs, __global ACC * pre, bool fast);

static void
box_rows (BOX_PARAMS, int y0, int y1, bool up, __global ACC * cs,
    __global ACC * pre, bool fast)
{
  int i, y, in, out;

  SCALAR_LOOP
  for (i = 0; i < y1 - y0; i++) {
    y = up ? y1 - 1 - i : y0 + i;
    box_row (BOX_ARGS, y, cs, pre, fast);
    /* the next row's window: one row in, one out (-1: none) */
    in = up ? y - ry - 1 : y + ry + 1;
    out = up ? y + ry : y - ry;
    add_sub_row (src, src_off, src_stride, width,
        in >= 0 && in < height ? in : -1, out >= 0 && out < height ? out : -1,
        cs, fast);
  }
}

/* one band per work-group, split at launch (cpu_box_mean_first) */
static void box_mean_band (BOX_PARAMS, int16 bands,
    __global ACC * scratch);

static void
box_mean_band (BOX_PARAMS, int16 bands, __global ACC * scratch)
{
  int b = get_global_id (0), bs[16], y0, y1;
  __global ACC *cs = SCRATCH_ROWS (scratch) + b * (2 * width + 1) * BL;

  vstore16 (bands, 0, bs);
  y0 = bs[b];
  y1 = min (bs[b + 1], height);
  if (y0 >= y1)
    return;
  box_window (BOX_ARGS, y0, cs, false);
  box_rows (BOX_ARGS, y0, y1, false, cs, cs + width * BL, false);
}

/* The split decided while running (cpu_box_mean), as dynamic_bands does
 * for the integral, with less to it: any row's means need only its window,
 * whose column sums take 2r + 1 rows added up from anywhere. Group g
 * claims region g from the top and scans down, on into the next regions
 * while their tops are free (whichever group runs alone does the whole
 * frame, its window sliding across); then it helps every region from the
 * bottom, scanning up from a window of its own, where more is left than
 * that window costs. No group waits for another. */
static void box_dynamic (BOX_PARAMS, int16 bands, __global ACC * scratch,
    uint epoch);

static void
box_dynamic (BOX_PARAMS, int16 bands, __global ACC * scratch, uint epoch)
{
  /* (tests: bit 8 of @epoch gives the regions to the groups bottom-up, so
   * that a group that runs alone scans most rows upwards) */
  int ng = get_global_size (0), g = epoch & 0x100 ? ng - 1 -
      (int) get_global_id (0) : (int) get_global_id (0);
  int bs[16], br = max (BLOCK_ROWS, (height + MAX_BLOCKS - 1) / MAX_BLOCKS);
  volatile __global uint *words = (volatile __global uint *) scratch;
  __global ACC *cs = SCRATCH_ROWS (scratch) + g * (2 * width + 1) * BL;
  __global ACC *pre = cs + width * BL;
  int r = g, i, k, ys, ye, nb;

  epoch &= 0xff;
  vstore16 (bands, 0, bs);
  REGION (r, ys, ye, nb);
  i = claim (words + r * 16, epoch, nb, false, true);
  if (i >= 0)
    box_window (BOX_ARGS, ys, cs, true);
  while (i >= 0) {
    box_rows (BOX_ARGS, ys + i * br, min (ys + (i + 1) * br, ye), false, cs,
        pre, true);
    if (i == nb - 1) {
      /* the region's last row done, @cs the next row's window: the next
       * region with rows, from its top if still free */
      do {
        if (++r >= ng)
          break;
        REGION (r, ys, ye, nb);
      } while (nb == 0);
      i = r < ng ? claim (words + r * 16, epoch, nb, false, true) : -1;
    } else {
      i = claim (words + r * 16, epoch, nb, false, false);
    }
  }
  for (k = 1; k <= ng; k++) {
    int j;

    r = (g + k) % ng;
    REGION (r, ys, ye, nb);
    if (unclaimed (words + r * 16, epoch, nb) * br * ADD_PER_ROW <=
        min (2 * ry + 1, height))
      continue;
    for (j = claim (words + r * 16, epoch, nb, true, true); j >= 0;
        j = claim (words + r * 16, epoch, nb, true, false)) {
      int b = nb - 1 - j, y1 = min (ys + (b + 1) * br, ye);

      /* the first block from the bottom: its last row's window */
      if (y1 == ye)
        box_window (BOX_ARGS, ye - 1, cs, true);
      box_rows (BOX_ARGS, ys + b * br, y1, true, cs, pre, true);
    }
  }
}

__kernel void
cpu_box_mean (__global const uchar * src, uint src_off, int src_stride,
    __global uchar * dst, uint dst_off, int dst_stride, int width,
    int height, int radius, int16 bands, __global ACC * scratch, uint epoch)
{
  int rx = min (radius, width), ry = min (radius, height);

  box_dynamic (BOX_ARGS, bands, scratch, epoch);
}

/* (@epoch: cpu_box_mean's arguments, unused) */
__kernel void
cpu_box_mean_first (__global const uchar * src, uint src_off,
    int src_stride, __global uchar * dst, uint dst_off, int dst_stride,
    int width, int height, int radius, int16 bands, __global ACC * scratch,
    uint epoch)
{
  int rx = min (radius, width), ry = min (radius, height);

  box_mean_band (BOX_ARGS, bands, scratch);
}

#endif /* BOX */

#endif /* !GPU_ONLY */

/* ---- GPU variant (left out with CPU_ONLY) ---- */

#if !CPU_ONLY

/* Reduce, scan, then write once. The frame is cut into tiles of SH rows
 * (a strip) by TW pixels (a block), one work-group of WG work-items each,
 * K consecutive pixels per work-item. Scratch (ACC): for each strip s a
 * row of m = (W + nblocks) * CH: the strip's column sums, then its tiles'
 * totals; after the nstrips rows, the tiles' row sums (SH per tile, V (ACC)
 * each).
 *   gpu_strip_sums      reads the source: column, row and tile sums
 *   gpu_strip_scan      turns each scratch column into the sum over the
 *                       strips above (small: 1/SH of the frame)
 *   gpu_strip_integral  reads the source again and writes each output
 *                       element once, coalesced: the rows above the strip
 *                       come from the scanned column sums, the tiles on
 *                       the left from their row sums and scanned totals.
 * Traffic per GRAY8 -> U32 pixel: 1 + 4 (output) + 1 (second read) + about
 * 16 / SH (scratch) bytes, where a row-then-column scheme moves 13. */
#ifndef SH
#define SH 16
#endif
#ifndef ROW_AHEAD
#define ROW_AHEAD 0
#endif
#define K 4
#define TW (WG * K)
/* local staging of a tile row, one pad word per 32: conflict-free both
 * when a work-item writes its K pixels and when the row is stored */
#define PAD(e) ((e) + ((e) >> 5))
/* a tile's partial row sums, WG + 1 per row: with PACKED the CH values of
 * one packed (12 bytes for three 32-bit sums, not a 16-byte V (ACC)), so
 * that more work-groups fit in a compute unit's local memory */
#ifndef PACKED
#define PACKED 1
#endif
#if PACKED
#define PART_ROW __local ACC
#define PART_N ((WG + 1) * CH)
#define PGET(r, i) LOADV (i, part[r])
#define PSET(v, r, i) STOREV (v, i, part[r])
#else
#define PART_ROW __local V (ACC)
#define PART_N (WG + 1)
#define PGET(r, i) (part[r][i])
#define PSET(v, r, i) (part[r][i] = (v))
#endif

/* PAIR: one program writes the sum plane (VALUE 0) and the squares plane
 * (ulong sums, OUT2 outputs), so each launch reads the frame once for both
 * and a frame takes three launches, not six. The #if PAIR parts are the
 * squares' share; the squares' row-by-row work runs on work-items WG / 2
 * onwards (another warp than the sums', SH <= WG / 2). The scratch is then
 * of ulong (SACC) for both planes: per strip the sums' m / 2 columns, then
 * the squares'; after the strips, every tile's row sums of the sum plane,
 * then of the squares. */
#ifndef PAIR
#define PAIR 0
#endif
#if PAIR
#if VALUE != 0 || ONEPASS
#error "PAIR: the sum plane (VALUE 0) of the strip kernels only"
#endif
#if SH > WG / 2
#error "PAIR: at most WG / 2 rows per strip"
#endif
#define SACC ulong
#define ACC2 ulong
#ifndef OUT2
#define OUT2 ulong
#endif
#define SQ(T, px) (CONVERT (T, px) * CONVERT (T, px))
#define LANE2 (WG / 2)
/* SQT: squares summed within one tile (the kernels' local partial sums):
 * 32 bits for 8-bit sources, whose tile holds at most WG * K * SH * 255^2
 * < 2^32; half the local memory of 64-bit ones, so more work-groups fit
 * in a compute unit. What comes from outside the tile (the rows above, the
 * tiles on the left) is added in 64 bits (ACC2). */
#if (CH == 1 && PSTRIDE == 2) || WG * K * SH > 66051
#define SQT ulong
#else
#define SQT uint
#endif
#if PACKED
#define PART_ROW2 __local SQT
#define PGET2(r, i) LOADV (i, part2[r])
#define PSET2(v, r, i) STOREV (v, i, part2[r])
#else
#define PART_ROW2 __local V (SQT)
#define PGET2(r, i) (part2[r][i])
#define PSET2(v, r, i) (part2[r][i] = (v))
#endif
#else
#define SACC ACC
#endif

#if CH == 1
#define STAGE_T(T, v, e, buf) ((buf)[PAD (e)] = CONVERT (T, v))
#else
#define STAGE_T(T, v, e, buf) do { (buf)[PAD (e)] = CONVERT (T, (v).x); \
    (buf)[PAD ((e) + 1)] = CONVERT (T, (v).y); \
    (buf)[PAD ((e) + 2)] = CONVERT (T, (v).z); } while (0)
#endif
#define STAGE(v, e, buf) STAGE_T (OUT, v, e, buf)

/* A work-item's K pixels are K * PSTRIDE = 4 * NW contiguous bytes. When
 * src_off and src_stride are multiples of WALIGN they are read as NW
 * words (one 4-, 8- or 16-byte load; three 4-byte ones for 3-byte pixels)
 * and unpacked in registers: a third to a twelfth of the loads of one per
 * sample */
#define NW PSTRIDE
#if NW == 3
#define WALIGN 4
#else
#define WALIGN (4 * NW)
#endif
#define WBYTE(w, o) (((w)[(o) >> 2] >> (8 * ((o) & 3))) & 0xffu)

/* the K pixels at @x0 of @row, 0 beyond @width */
void load_k (__global const uchar * row, int x0, int width, bool aligned,
    V (uint) * px);

void
load_k (__global const uchar * row, int x0, int width, bool aligned,
    V (uint) * px)
{
  int k;

  if (aligned && x0 + K <= width) {
    __global const uchar *p = row + (size_t) x0 * PSTRIDE;
    uint w[4];

#if NW == 4
    vstore4 (*(__global const uint4 *) p, 0, w);
#elif NW == 3
    vstore3 (vload3 (0, (__global const uint *) p), 0, w);
#elif NW == 2
    vstore2 (*(__global const uint2 *) p, 0, w);
#else
    w[0] = *(__global const uint *) p;
#endif
#pragma unroll
    for (k = 0; k < K; k++) {
#if CH == 1 && PSTRIDE == 2
      px[k] = WBYTE (w, 2 * k) | (WBYTE (w, 2 * k + 1) << 8);
#elif CH == 1
      px[k] = WBYTE (w, k);
#else
      px[k] = (uint3) (WBYTE (w, k * PSTRIDE + ROFF),
          WBYTE (w, k * PSTRIDE + GOFF), WBYTE (w, k * PSTRIDE + BOFF));
#endif
    }
  } else {
    for (k = 0; k < K; k++)
      px[k] = x0 + k < width ? load_px (row, x0 + k) : (V (uint)) 0;
  }
}

#define ALIGNED (((src_off | (uint) src_stride) % WALIGN) == 0)

/* Output rows ya + 1 .. ya + nr of a tile: part[r][lid] holds the sum of
 * row r's columns up to this work-item's (over the rows above and the
 * tile's rows up to r, without the tile's columns left of the work-item),
 * part[r][WG] the row's sum left of the tile; q[k] the sums of column
 * x0 + k over the rows above ya. Turns part into exclusive prefixes over
 * the work-items, then adds each row of the source in and stores it
 * coalesced through @stage. Leaves q[k] at the sums over rows < ya + nr.
 * PAIR: the same for the squares (@o2, @q2, @part2, @stage2), but part2
 * holds the tile's own rows only (SQT): lrow2[r] is the row's sum left of
 * the tile, @qx the sum over the rows above of the tile's columns left of
 * the work-item. */
void write_tile_rows (__global const uchar * src, uint src_off,
    int src_stride, int width, bool aligned, __global OUT * o,
    size_t ostride, int ya, int nr, int xb, int ne, V (ACC) * q,
    PART_ROW (*part)[PART_N], __local OUT * stage
#if PAIR
    , __global OUT2 * o2, V (ACC2) * q2, PART_ROW2 (*part2)[PART_N],
    __local OUT2 * stage2, __local const V (ACC2) * lrow2, V (ACC2) qx
#endif
    );

void
write_tile_rows (__global const uchar * src, uint src_off, int src_stride,
    int width, bool aligned, __global OUT * o, size_t ostride, int ya,
    int nr, int xb, int ne, V (ACC) * q, PART_ROW (*part)[PART_N],
    __local OUT * stage
#if PAIR
    , __global OUT2 * o2, V (ACC2) * q2, PART_ROW2 (*part2)[PART_N],
    __local OUT2 * stage2, __local const V (ACC2) * lrow2, V (ACC2) qx
#endif
    )
{
  int lid = get_local_id (0), x0 = xb + lid * K;
  int r, k, i;

  /* exclusive prefix over the work-items, one row per work-item, starting
   * from the row's sum left of the tile */
  if (lid < nr) {
    V (ACC) a = PGET (lid, WG);

    for (i = 0; i < WG; i++) {
      V (ACC) v = PGET (lid, i);

      PSET (a, lid, i);
      a += v;
    }
  }
#if PAIR
  else if (lid >= LANE2 && lid - LANE2 < nr) {
    int rr = lid - LANE2;
    V (SQT) a = 0;

    for (i = 0; i < WG; i++) {
      V (SQT) v = PGET2 (rr, i);

      PSET2 (a, rr, i);
      a += v;
    }
  }
#endif
  barrier (CLK_LOCAL_MEM_FENCE);

  /* ROW_AHEAD (GPUs): the next row's pixels are loaded before this row's
   * barrier and stores, so that their latency overlaps them (H200: 1-4%).
   * Otherwise each row is loaded where it is used: PoCL 5.0 computes
   * wrong sums from a private array that lives across the barrier (seen
   * with each of its work-group methods; PoCL 3.1 and NVIDIA are right). */
  V (uint) px[K];
#if ROW_AHEAD
  V (uint) nx[K];

  if (nr > 0)
    load_k (SRC_ROW (ya), x0, width, aligned, nx);
#endif
  for (r = 0; r < nr; r++) {
    size_t oe = (size_t) (ya + r + 1) * ostride + (size_t) (xb + 1) * CH;
    __global OUT *orow = o + oe;
    V (ACC) a = PGET (r, lid);
#if PAIR
    __global OUT2 *orow2 = o2 + oe;
    V (ACC2) a2 = lrow2[r] + qx + CONVERT (V (ACC2), PGET2 (r, lid));
#endif

#if ROW_AHEAD
    for (k = 0; k < K; k++)
      px[k] = nx[k];
    if (r + 1 < nr)
      load_k (SRC_ROW (ya + r + 1), x0, width, aligned, nx);
#else
    load_k (SRC_ROW (ya + r), x0, width, aligned, px);
#endif
    for (k = 0; k < K; k++) {
      q[k] += VAL (V (ACC), px[k]);
      a += q[k];
      STAGE (a, (lid * K + k) * CH, stage);
#if PAIR
      q2[k] += SQ (V (ACC2), px[k]);
      a2 += q2[k];
      STAGE_T (OUT2, a2, (lid * K + k) * CH, stage2);
#endif
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    for (i = lid; i < ne; i += WG) {
      orow[i] = stage[PAD (i)];
#if PAIR
      orow2[i] = stage2[PAD (i)];
#endif
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
}

#if !ONEPASS

/* global (nblocks * WG, nstrips), local (WG, 1) */
__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))
void
gpu_strip_sums (__global const uchar * src, uint src_off, int src_stride,
    int width, int height, __global SACC * sums)
{
  PART_ROW part[SH][PART_N];
#if PAIR
  PART_ROW2 part2[SH][PART_N];
#endif
  int lid = get_local_id (0), b = get_group_id (0), s = get_group_id (1);
  int nb = get_num_groups (0), ns = get_num_groups (1);
  int x0 = b * TW + lid * K, ya = s * SH, nr = min (SH, height - ya);
  size_t m = ((size_t) width + nb) * CH * (1 + PAIR);
  __global SACC *srow = sums + (size_t) s * m;
  __global SACC *rs = sums + (size_t) ns * m + ((size_t) s * nb + b) * SH * CH;
#if PAIR
  __global SACC *srow2 = srow + m / 2;
  __global SACC *rs2 = rs + (size_t) ns * nb * SH * CH;
#endif
  V (ACC) col[K];
#if PAIR
  V (SQT) col2[K];
#endif
  int r, k, i;

  bool aligned = ALIGNED;

  for (k = 0; k < K; k++) {
    col[k] = 0;
#if PAIR
    col2[k] = 0;
#endif
  }
  for (r = 0; r < nr; r++) {
    V (uint) px[K];
    V (ACC) t = 0;
#if PAIR
    V (SQT) t2 = 0;
#endif

    load_k (SRC_ROW (ya + r), x0, width, aligned, px);
    for (k = 0; k < K; k++) {
      V (ACC) v = VAL (V (ACC), px[k]);
      col[k] += v;
      t += v;
#if PAIR
      V (SQT) v2 = SQ (V (SQT), px[k]);
      col2[k] += v2;
      t2 += v2;
#endif
    }
    PSET (t, r, lid);
#if PAIR
    PSET2 (t2, r, lid);
#endif
  }
  for (k = 0; k < K; k++)
    if (x0 + k < width) {
      STOREV (CONVERT (V (SACC), col[k]), x0 + k, srow);
#if PAIR
      STOREV (CONVERT (V (SACC), col2[k]), x0 + k, srow2);
#endif
    }
  barrier (CLK_LOCAL_MEM_FENCE);
  if (lid < nr) {
    V (ACC) t = 0;

    for (i = 0; i < WG; i++)
      t += PGET (lid, i);
    STOREV (CONVERT (V (SACC), t), lid, rs);
    PSET (t, lid, WG);
  }
#if PAIR
  else if (lid >= LANE2 && lid - LANE2 < nr) {
    int rr = lid - LANE2;
    V (SQT) t = 0;

    for (i = 0; i < WG; i++)
      t += PGET2 (rr, i);
    STOREV (CONVERT (V (SACC), t), rr, rs2);
    PSET2 (t, rr, WG);
  }
#endif
  barrier (CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    V (ACC) t = 0;

    for (r = 0; r < nr; r++)
      t += PGET (r, WG);
    STOREV (CONVERT (V (SACC), t), width + b, srow);
  }
#if PAIR
  else if (lid == LANE2) {
    V (SQT) t = 0;

    for (r = 0; r < nr; r++)
      t += PGET2 (r, WG);
    STOREV (CONVERT (V (SACC), t), width + b, srow2);
  }
#endif
}

/* global (round_up (m, 32), CB), local (32, CB): each of the m scratch
 * columns split in CB bands of strips; band totals combined in local
 * memory, then each band writes exclusive prefixes in place */
__kernel __attribute__ ((reqd_work_group_size (32, CB, 1)))
void
gpu_strip_scan (uint m, int nstrips, __global SACC * sums)
{
  __local SACC part[CB][32];
  int lx = get_local_id (0), ly = get_local_id (1);
  size_t i = get_global_id (0);
  int per = (nstrips + CB - 1) / CB;
  int s0 = min (ly * per, nstrips), s1 = min (s0 + per, nstrips);
  SACC t = 0, a = 0;
  int s, k;

  if (i < m)
    for (s = s0; s < s1; s++)
      t += sums[(size_t) s * m + i];
  part[ly][lx] = t;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (k = 0; k < ly; k++)
    a += part[k][lx];
  if (i >= m)
    return;
  for (s = s0; s < s1; s++) {
    size_t e = (size_t) s * m + i;
    SACC v = sums[e];

    sums[e] = a;
    a += v;
  }
}

/* global (nblocks * WG, nstrips), local (WG, 1): output rows ya + 1 ..
 * ya + SH, columns xb + 1 .. xb + TW of the tile, plus the zero first row
 * and column (PAIR: of both planes, the squares' at out_off2) */
__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))
void
gpu_strip_integral (__global const uchar * src, uint src_off,
    int src_stride, int width, int height, __global const SACC * sums,
    __global uchar * out, ulong out_off
#if PAIR
    , ulong out_off2
#endif
    )
{
  PART_ROW part[SH][PART_N];
  __local V (ACC) left[SH];
  __local OUT stage[PAD (TW * CH) + 1];
#if PAIR
  PART_ROW2 part2[SH][PART_N];
  __local V (ACC2) left2[SH], lrow2[SH];
  /* each work-item's sum over the rows above of its K columns, then of
   * each 8 work-items' (for the exclusive prefix of those over the tile) */
  __local ACC2 qcol2[WG * CH], qblk2[WG / 8 * CH];
  __local OUT2 stage2[PAD (TW * CH) + 1];
#endif
  int lid = get_local_id (0), b = get_group_id (0), s = get_group_id (1);
  int nb = get_num_groups (0), ns = get_num_groups (1);
  int xb = b * TW, x0 = xb + lid * K, ya = s * SH;
  int nr = min (SH, height - ya), ne = min (TW, width - xb) * CH;
  size_t m = ((size_t) width + nb) * CH * (1 + PAIR);
  size_t ostride = ((size_t) width + 1) * CH;
  __global const SACC *srow = sums + (size_t) s * m;
  __global const SACC *rs = sums + (size_t) ns * m + (size_t) s * nb * SH * CH;
  __global OUT *o = (__global OUT *) (out + out_off);
  V (ACC) q[K], run = 0;
#if PAIR
  __global const SACC *srow2 = srow + m / 2;
  __global const SACC *rs2 = rs + (size_t) ns * nb * SH * CH;
  __global OUT2 *o2 = (__global OUT2 *) (out + out_off2);
  V (ACC2) q2[K], qsum2 = 0, qx = 0;
  V (SQT) run2 = 0;
#endif
  bool aligned = ALIGNED;
  int r, k, i;

  if (s == 0) {
    for (i = lid; i < ne; i += WG) {
      o[(size_t) (xb + 1) * CH + i] = 0;
#if PAIR
      o2[(size_t) (xb + 1) * CH + i] = 0;
#endif
    }
    if (b == 0 && lid < CH) {
      o[lid] = 0;
#if PAIR
      o2[lid] = 0;
#endif
    }
  }
  if (b == 0 && lid < nr) {
    STOREV ((V (OUT)) 0, 0, o + (size_t) (ya + lid + 1) * ostride);
#if PAIR
    STOREV ((V (OUT2)) 0, 0, o2 + (size_t) (ya + lid + 1) * ostride);
#endif
  }

  /* row r of the strip, left of the tile: its sums over the tiles on the
   * left, whose totals over the strips above (scanned) come on top */
  if (lid < nr) {
    V (ACC) t = 0;

    for (i = 0; i < b; i++)
      t += CONVERT (V (ACC), LOADV (i * SH + lid, rs));
    left[lid] = t;
  }
#if PAIR
  else if (lid >= LANE2 && lid - LANE2 < nr) {
    int rr = lid - LANE2;
    V (ACC2) t = 0;

    for (i = 0; i < b; i++)
      t += LOADV (i * SH + rr, rs2);
    left2[rr] = t;
  }
#endif
  for (k = 0; k < K; k++) {
    q[k] = x0 + k < width ? CONVERT (V (ACC), LOADV (x0 + k, srow)) :
        (V (ACC)) 0;
    run += q[k];
#if PAIR
    q2[k] = x0 + k < width ? LOADV (x0 + k, srow2) : (V (ACC2)) 0;
    qsum2 += q2[k];
#endif
  }
#if PAIR
  STOREV (qsum2, lid, qcol2);
#endif
  barrier (CLK_LOCAL_MEM_FENCE);
#if PAIR
  /* qx: qcol2's exclusive prefix, here over this work-item's 8, after the
   * next barrier over the 8s on the left */
  for (i = 0; i < 7; i++)
    if (i < (lid & 7))
      qx += LOADV ((lid & ~7) + i, qcol2);
  if ((lid & 7) == 7)
    STOREV (qx + qsum2, lid >> 3, qblk2);
#endif
  if (lid < nr) {
    V (ACC) t = 0;

    for (i = 0; i < b; i++)
      t += CONVERT (V (ACC), LOADV (width + i, srow));
    for (r = 0; r <= lid; r++)
      t += left[r];
    PSET (t, lid, WG);
  }
#if PAIR
  else if (lid >= LANE2 && lid - LANE2 < nr) {
    int rr = lid - LANE2;
    V (ACC2) t = 0;

    for (i = 0; i < b; i++)
      t += LOADV (width + i, srow2);
    for (r = 0; r <= rr; r++)
      t += left2[r];
    lrow2[rr] = t;
  }
#endif

  /* this work-item's K columns summed, row after row */
  for (r = 0; r < nr; r++) {
    V (uint) px[K];

    load_k (SRC_ROW (ya + r), x0, width, aligned, px);
    for (k = 0; k < K; k++) {
      run += VAL (V (ACC), px[k]);
#if PAIR
      run2 += SQ (V (SQT), px[k]);
#endif
    }
    PSET (run, r, lid);
#if PAIR
    PSET2 (run2, r, lid);
#endif
  }
  barrier (CLK_LOCAL_MEM_FENCE);
#if PAIR
  for (i = 0; i < WG / 8 - 1; i++)
    if (i < lid >> 3)
      qx += LOADV (i, qblk2);
#endif
  write_tile_rows (src, src_off, src_stride, width, aligned, o, ostride, ya,
      nr, xb, ne, q, part, stage
#if PAIR
      , o2, q2, part2, stage2, lrow2, qx
#endif
      );
}

#endif /* !ONEPASS */

#if ONEPASS

/* One launch (opt-in: slower than the strip kernels on an H200, see
 * docs/performance.md): a tile of TH rows (a strip) by TW pixels (a block)
 * per work-group, its 2-D sums completed from two chains of published sums:
 *   vertical    per column of the block, its sum over the strips above;
 *               plus, per channel, the tile's corner I(ya, xb) (element
 *               TW of the chain, fed by the horizontal chain's totals);
 *   horizontal  per row of the strip, its sum over the blocks on the left.
 * Each tile publishes its own sums (AGG), and once it has its
 * predecessors', its sums including everything before it (INC); a tile
 * waits for its predecessor's INC values (LOOK_BACK).
 *
 * Tiles are taken in row-major order from an atomic ticket, not from the
 * group id: a tile only ever waits for tiles whose work-groups took their
 * ticket earlier, so are running or done (forward progress without an
 * occupancy guarantee; on a CPU device a work-group runs to its end).
 *
 * Status words: 64 bits each, tag << 32 | 32 bits of value, tag = epoch << 2
 * | kind, so one load gives value and state and no fence orders a flag
 * against its data; 64-bit sums take two words, read until both carry this
 * frame's epoch and kind. The host passes a new epoch (1 .. 2^30 - 1) per
 * frame: words of earlier frames read as not ready, so the buffer is never
 * cleared. The two ticket counters in front of it alternate by epoch; the
 * first tile of a frame zeroes the next frame's. */
#ifndef TH
#define TH 64
#endif
#define ST_AGG 1u
#define ST_INC 2u
#define WPE (sizeof (ACC) / 4)      /* status words per value */
#define VW (CH * WPE)                /* status words per V (ACC) */
/* a tile's vertical words: TW columns and the corner; horizontal: TH rows */
#define VSZ ((TW + 1) * VW)
#define HSZ (TH * VW)
/* elements a work-item looks back on vertically: its K columns' and, on
 * work-item 0, the corner's, CH values each */
#define NV ((K + 1) * CH)

#if CH == 1
#define CHAN(v, c) (v)
#else
#define CHAN(v, c) ((c) == 0 ? (v).x : (c) == 1 ? (v).y : (v).z)
#endif

void st_put (volatile __global ulong * p, ACC v, uint tag);

/* publishes @v at @p with @tag */
void
st_put (volatile __global ulong * p, ACC v, uint tag)
{
  p[0] = ((ulong) tag << 32) | (uint) v;
  if (WPE == 2)
    p[1] = ((ulong) tag << 32) | (uint) ((ulong) v >> 32);
}

void vst_put (volatile __global ulong * p, V (ACC) v, uint tag);

void
vst_put (volatile __global ulong * p, V (ACC) v, uint tag)
{
  int c;

  for (c = 0; c < CH; c++)
    st_put (p + c * WPE, CHAN (v, c), tag);
}

/* Sums into sum[i] the values of the predecessors, the one @step words
 * before @p first, up to and including the first whose inclusive value
 * has been published: value i at off[i] (none where off[i] < 0).
 * For now it waits for the nearest predecessor's inclusive values (a
 * chained scan); taking aggregates and walking on (the decoupled form,
 * measured on an H200 in docs/performance.md) gave wrong sums on PoCL
 * with several threads and is left for later (docs/design.md). The words
 * of one predecessor are loaded together and reloaded until all are
 * ready, so a wait costs one round trip, not one per value. */
#define LOOK_BACK(p, step, depth, off, sum, n, epoch) do { \
    volatile __global const ulong *b_ = (p) - (step); \
    ulong w_[n][2]; \
    bool ready_; \
    int i_; \
    if ((depth) > 0) { \
      do { \
        ready_ = true; \
        for (i_ = 0; i_ < (n); i_++) \
          if (off[i_] >= 0) { \
            w_[i_][0] = b_[off[i_]]; \
            w_[i_][1] = WPE == 2 ? b_[off[i_] + 1] : w_[i_][0]; \
            ready_ = ready_ && (uint) (w_[i_][0] >> 32) == \
                ((epoch) << 2 | ST_INC) && (uint) (w_[i_][1] >> 32) == \
                ((epoch) << 2 | ST_INC); \
          } \
      } while (!ready_); \
      for (i_ = 0; i_ < (n); i_++) \
        if (off[i_] >= 0) \
          sum[i_] += (ACC) (((ulong) (uint) w_[i_][1] << 32) | \
              (uint) w_[i_][0]); \
    } \
  } while (0)

/* global (ntiles * WG), local (WG); @status: 2 ticket counters (one ulong),
 * then ntiles * VSZ vertical words, then ntiles * HSZ horizontal ones */
__kernel __attribute__ ((reqd_work_group_size (WG, 1, 1)))
void
gpu_lookback_integral (__global const uchar * src, uint src_off,
    int src_stride, int width, int height, int nb, uint epoch,
    __global ulong * status, __global uchar * out, ulong out_off)
{
  PART_ROW part[SH][PART_N];
  __local V (ACC) rows[TH];     /* the tile's row sums, then left of it */
  __local V (ACC) pre[TH];      /* row r's sum over rows <= r, left of it */
  __local OUT stage[PAD (TW * CH) + 1];
  __local int ticket;
  volatile __global int *counter = (volatile __global int *) status;
  int lid = get_local_id (0);
  int ns = (height + TH - 1) / TH, t, s, b, xb, x0, ya, nr, ne, r0, r, k, i;
  size_t ostride = ((size_t) width + 1) * CH;
  __global OUT *o = (__global OUT *) (out + out_off);
  volatile __global ulong *vs, *hs;
  uint tag_agg = epoch << 2 | ST_AGG, tag_inc = epoch << 2 | ST_INC;
  V (ACC) col[K], q[K], left = 0, left_total = 0, run = 0;
  bool aligned = ALIGNED;

  if (lid == 0) {
    t = atomic_inc (counter + (epoch & 1));
    if (t == 0)
      counter[(epoch & 1) ^ 1] = 0;
    ticket = t;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  t = ticket;
  s = t / nb;
  b = t % nb;
  xb = b * TW;
  x0 = xb + lid * K;
  ya = s * TH;
  nr = min (TH, height - ya);
  ne = min (TW, width - xb) * CH;
  vs = (volatile __global ulong *) status + 1 + (size_t) t * VSZ;
  hs = (volatile __global ulong *) status + 1 + (size_t) ns * nb * VSZ +
      (size_t) t * HSZ;

  /* the tile's column sums (registers) and row sums (rows[]) */
  for (k = 0; k < K; k++)
    col[k] = 0;
  for (r0 = 0; r0 < nr; r0 += SH) {
    int n = min (SH, nr - r0);

    for (r = 0; r < n; r++) {
      V (uint) px[K];
      V (ACC) sum = 0;

      load_k (SRC_ROW (ya + r0 + r), x0, width, aligned, px);
      for (k = 0; k < K; k++) {
        V (ACC) v = VAL (V (ACC), px[k]);

        col[k] += v;
        sum += v;
      }
      PSET (sum, r, lid);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    if (lid < n) {
      V (ACC) sum = 0;

      for (i = 0; i < WG; i++)
        sum += PGET (lid, i);
      rows[r0 + lid] = sum;
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }

  /* publish them: inclusive already in the first strip / block */
  for (k = 0; k < K; k++)
    vst_put (vs + (lid * K + k) * VW, col[k], s == 0 ? tag_inc : tag_agg);
  if (lid < nr)
    vst_put (hs + lid * VW, rows[lid], b == 0 ? tag_inc : tag_agg);

  /* horizontal: row lid's sum over the blocks on the left */
  if (lid < nr && b > 0) {
    ACC sum[CH];
    int off[CH];

    for (i = 0; i < CH; i++) {
      sum[i] = 0;
      off[i] = lid * VW + i * WPE;
    }
    LOOK_BACK (hs, HSZ, b, off, sum, CH, epoch);
#if CH == 1
    left = sum[0];
#else
    left = (V (ACC)) (sum[0], sum[1], sum[2]);
#endif
    if (b < nb - 1)
      vst_put (hs + lid * VW, left + rows[lid], tag_inc);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  if (lid < nr)
    rows[lid] = left;
  barrier (CLK_LOCAL_MEM_FENCE);
  if (lid < nr) {
    V (ACC) sum = 0;

    for (i = 0; i <= lid; i++)
      sum += rows[i];
    pre[lid] = sum;
  }
  /* the corner chain's own value: the tile's rows left of it */
  if (lid == 0) {
    for (i = 0; i < nr; i++)
      left_total += rows[i];
    vst_put (vs + TW * VW, left_total, s == 0 ? tag_inc : tag_agg);
  }

  /* vertical: the columns' sums over the strips above, and the corner */
  {
    ACC sum[NV];
    int off[NV], c;

    for (k = 0; k < K; k++)
      for (c = 0; c < CH; c++) {
        sum[k * CH + c] = 0;
        off[k * CH + c] = (lid * K + k) * VW + c * WPE;
      }
    for (c = 0; c < CH; c++) {
      sum[K * CH + c] = 0;
      off[K * CH + c] = lid == 0 ? TW * VW + c * WPE : -1;
    }
    if (s > 0)
      LOOK_BACK (vs, (size_t) nb * VSZ, s, off, sum, NV, epoch);
    for (k = 0; k < K; k++) {
#if CH == 1
      q[k] = sum[k];
#else
      q[k] = (V (ACC)) (sum[k * CH], sum[k * CH + 1], sum[k * CH + 2]);
#endif
      run += q[k];
    }
    if (s > 0 && s < ns - 1) {
      for (k = 0; k < K; k++)
        vst_put (vs + (lid * K + k) * VW, col[k] + q[k], tag_inc);
      if (lid == 0)
#if CH == 1
        vst_put (vs + TW * VW, left_total + sum[K], tag_inc);
#else
        vst_put (vs + TW * VW, left_total + (V (ACC)) (sum[K * CH],
                sum[K * CH + 1], sum[K * CH + 2]), tag_inc);
#endif
    }
    /* the corner on top of every row's left sum */
    barrier (CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
#if CH == 1
      rows[0] = sum[K];
#else
      rows[0] = (V (ACC)) (sum[K * CH], sum[K * CH + 1], sum[K * CH + 2]);
#endif
    barrier (CLK_LOCAL_MEM_FENCE);
    left = rows[0];
  }

  /* the zero first row and column */
  if (s == 0) {
    for (i = lid; i < ne; i += WG)
      o[(size_t) (xb + 1) * CH + i] = 0;
    if (b == 0 && lid < CH)
      o[lid] = 0;
  }
  if (b == 0 && lid < nr)
    STOREV ((V (OUT)) 0, 0, o + (size_t) (ya + lid + 1) * ostride);

  /* SH rows at a time, as gpu_strip_integral */
  for (r0 = 0; r0 < nr; r0 += SH) {
    int n = min (SH, nr - r0);

    if (lid < n)
      PSET (left + pre[r0 + lid], lid, WG);
    for (r = 0; r < n; r++) {
      V (uint) px[K];

      load_k (SRC_ROW (ya + r0 + r), x0, width, aligned, px);
      for (k = 0; k < K; k++)
        run += VAL (V (ACC), px[k]);
      PSET (run, r, lid);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    write_tile_rows (src, src_off, src_stride, width, aligned, o, ostride,
        ya + r0, n, xb, ne, q, part, stage);
  }
}

#endif /* ONEPASS */

#endif /* !CPU_ONLY */

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
