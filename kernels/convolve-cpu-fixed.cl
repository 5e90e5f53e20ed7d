/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-cpu-fixed.cl: the CPU's fixed-point and exact
 * 16-bit kernels (part of the convolve program). */

#if !PX_ONLY && CPU_ONLY && FIXED && !DEPTH16

/* Fixed point. CPU devices, 8-bit samples, float matrices of non-negative
 * coefficients (the element decides: gst_cl_convolve_kernel_derive): the
 * samples as Q8 (x << 8) in 16-bit lanes, each tap's coefficient divided
 * by the divisor as Q16 in the tap's .w, and each product the high half of
 * a 16x16-bit multiply: 32 samples per AVX-512 operation and no float
 * conversion (docs/performance.md has the figures). Every truncation
 * loses less than one Q8 unit; accumulators start at n/2 units (n taps) to
 * centre them, so a pass is off by at most (n + 1) / 2 units (1/512 of a
 * sample value each) plus the coefficients' rounding (255 / 2^17 per tap):
 * under 1/256 per tap in all (docs/clconvolve.md, "Arithmetic"); the
 * separable kernel's mirrored pairs (mirrored_pairs) keep that bound. */

/* OpenCL C stops at 16 lanes: 32-lane vectors are clang's extension, so
 * that one operation fills an AVX-512 register (built-ins such as mul_hi
 * and select do not take them: plain operators do the work) */
typedef ushort fix32_t __attribute__ ((ext_vector_type (32)));
typedef uint fix32w_t __attribute__ ((ext_vector_type (32)));
typedef uchar u8x32_t __attribute__ ((ext_vector_type (32)));
typedef u8x32_t __attribute__ ((aligned (1))) uu8x32_t;
typedef fix32_t __attribute__ ((aligned (2))) ufix32_t;
#define FLOAD(p) (*(const ufix32_t *) (p))
#define FSTORE(v, p) (*(ufix32_t *) (p) = (v))
#define LOAD32(p) (*(__global const uu8x32_t *) (p))
#define STORE32(v, p) (*(__global uu8x32_t *) (p) = (v))
/* samples shifted left by @s: Q8 (x << 8) for @s 8 */
#define TO_LANES(v, s) (__builtin_convertvector ((v), fix32_t) << (s))

/* sep_fixed's work-items walk down a column of 64-sample strips, one image
 * row (another page) at a time, which the hardware prefetchers do not
 * follow: the row PREFETCH_ROWS below is requested ahead, 3 cache lines
 * from the strip's left apron (1080p RGBA gaussian 7x7: 8.3-8.9 ms CPU per
 * frame against 9.8-11.6 without; conv2d_fixed's work-groups run 8 strips
 * of a row in turn instead, which the prefetchers follow). On PoCL's CPU devices pointers are flat (the
 * built-in prefetch() does nothing there), hence the integer cast. */
#define PREFETCH_ROWS 4
inline void
prefetch_row (__global const uchar * sbase, int sstride, int yy, int height,
    int start)
{
  if (yy < height) {
    size_t a = (size_t) (ROW (sbase, sstride, yy) + max (start, 0));

    __builtin_prefetch ((const void *) a);
    __builtin_prefetch ((const void *) (a + 64));
    __builtin_prefetch ((const void *) (a + 128));
  }
}

/* The same for output row @y (below @y1) of @n samples from @sx, with
 * intent to write (prefetchw): a store that misses holds up the stores
 * behind it until the line's owner hands it over, and sep_fixed's stores
 * go to a new page every row (1080p RGBA gaussian 7x7: about an eighth
 * less CPU time, docs/performance.md) */
inline void
prefetch_out_row (__global uchar * dbase, int dstride, int y, int y1, int sx,
    int n)
{
  if (y < y1) {
    size_t a = (size_t) (dbase + y * dstride + sx);

    for (int i = 0; i < n; i += 64)
      __builtin_prefetch ((const void *) (a + i), 1, 3);
    __builtin_prefetch ((const void *) (a + n - 1), 1, 3);
  }
}

/* the high half of @a * @c (LLVM makes it one vpmulhuw) */
inline fix32_t
mul_hi32 (fix32_t a, fix32_t c)
{
  return __builtin_convertvector ((__builtin_convertvector (a, fix32w_t) *
          __builtin_convertvector (c, fix32w_t)) >> 16, fix32_t);
}

/* (@a + @b + 1) >> 1 in each lane, without overflow. Written as the
 * widening expression, LLVM folds it into mul_hi32's widening and leaves
 * 32-bit lanes behind (3x slower), hence the x86 built-ins: one vpavgw per
 * register. */
/* a fix32_t's halves, and its lanes' shuffle indices */
typedef ushort fix16_t __attribute__ ((ext_vector_type (16)));
#define HALF_LO 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
#define HALF_HI 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
#if defined (__AVX512BW__)
typedef short avg_hi_t __attribute__ ((vector_size (64)));
#elif defined (__AVX2__)
typedef short avg_hi_t __attribute__ ((vector_size (32)));
#define AVG16(a, b) __builtin_astype (__builtin_ia32_pavgw256 ( \
        __builtin_astype ((a), avg_hi_t), __builtin_astype ((b), avg_hi_t)), \
    fix16_t)
#endif
/* mul_hi32 as the x86 built-in, for products whose factors come from
 * 16-bit arithmetic: LLVM would otherwise widen that arithmetic to 32-bit
 * lanes as well, as with avg32 (exact sums' division: 1080p GRAY8 box
 * 3x3 0.53 ms, 0.31 with the built-in) */
#if defined (__AVX512BW__)
#define MULHI16(a, b) __builtin_astype (__builtin_ia32_pmulhuw512 ( \
        __builtin_astype ((a), avg_hi_t), __builtin_astype ((b), avg_hi_t)), \
    fix32_t)
#elif defined (__AVX2__)
#define MULHI16_HALF(a, b) __builtin_astype (__builtin_ia32_pmulhuw256 ( \
        __builtin_astype ((a), avg_hi_t), __builtin_astype ((b), avg_hi_t)), \
    fix16_t)
#define MULHI16(a, b) __builtin_shufflevector ( \
    MULHI16_HALF (__builtin_shufflevector ((a), (a), HALF_LO), \
        __builtin_shufflevector ((b), (b), HALF_LO)), \
    MULHI16_HALF (__builtin_shufflevector ((a), (a), HALF_HI), \
        __builtin_shufflevector ((b), (b), HALF_HI)), HALF_LO, HALF_HI)
#else
#define MULHI16(a, b) mul_hi32 ((a), (b))
#endif

inline fix32_t
avg32 (fix32_t a, fix32_t b)
{
#if defined (__AVX512BW__)
  return __builtin_astype (__builtin_ia32_pavgw512 (__builtin_astype (a,
              avg_hi_t), __builtin_astype (b, avg_hi_t)), fix32_t);
#elif defined (__AVX2__)
  fix16_t lo = AVG16 (__builtin_shufflevector (a, a, HALF_LO),
      __builtin_shufflevector (b, b, HALF_LO));
  fix16_t hi = AVG16 (__builtin_shufflevector (a, a, HALF_HI),
      __builtin_shufflevector (b, b, HALF_HI));

  return __builtin_shufflevector (lo, hi, HALF_LO, HALF_HI);
#else
  return __builtin_convertvector ((__builtin_convertvector (a, fix32w_t) +
          __builtin_convertvector (b, fix32w_t) + 1) >> 1, fix32_t);
#endif
}

/* Exact sums (the integer program, -D INTEGER=1): integer matrices of
 * non-negative coefficients whose sums of 8-bit samples fit 16 bits (box
 * blurs up to 15x15, binomial ones), separable (sep_fixed; the element
 * decides: gst_cl_convolve_kernel_derive's exact16). The same loads and
 * lanes as fixed point: a row tap's .w holds c << 8, so the high half of
 * (x << 8) * (c << 8) is x * c exactly (a mirrored pair's exact average
 * (x + x') << 7 times 2c << 8 likewise); the row sums are then plain
 * integers, so the column pass multiplies them by c (.w = c) in the low
 * half and adds a pair's two rows instead of averaging them. Nothing is
 * truncated, so no sum starts at a rounding offset, and the result is
 * (sum + d / 2) / d exactly (fix_div: d = the divisor): bit-exact as the
 * integer path's other kernels. */
#define EXACT INTEGER
/* a pass of @n products starts at this many units: half the products'
 * truncations in fixed point, none in exact sums */
#define FIX_START(n) ((fix32_t) ((ushort) (EXACT ? 0 : (n) / 2)))

/* the column pass's product of row sums @h and coefficient @c */
inline fix32_t
col_mul (fix32_t h, fix32_t c)
{
#if EXACT
  return h * c;
#else
  return mul_hi32 (h, c);
#endif
}

/* a mirrored column pair's two rows of sums, for one product */
inline fix32_t
col_pair (fix32_t a, fix32_t b)
{
#if EXACT
  return a + b;
#else
  return avg32 (a, b);
#endif
}

/* Dividing exact sums by d (3 to 1024), rounded half up: n = sum + x,
 * then (t + ((n - t) >> 1)) >> (l - 1) with t the high half of n * y and
 * l = ceil (log2 d): Granlund and Montgomery's division by an invariant
 * (Figure 4.1 of their 1994 paper), exact for every n < 2^16
 * (tests/check/elements/clconvolve.c checks every n for every d the
 * element allows). The last shift, whose count is not a constant, is a
 * multiply by z = 2^(16 - (l - 1)) keeping the high half, as MULHI16 (see
 * there). Unused by fixed point. */
typedef uint8 fix_div_t;

inline fix_div_t
fix_div_new (int divisor)
{
#if EXACT
  uint d = clamp (divisor, 3, 1024), l = 32 - clz (d - 1);

  return (fix_div_t) (d / 2, (((1u << l) - d) << 16) / d + 1,
      1u << (17 - l), 0, 0, 0, 0, 0);
#else
  return (fix_div_t) 0;
#endif
}

/* exact sums @n (d / 2 added here) divided by d, fix_div_new's */
inline fix32_t
fix_divide (fix32_t a, fix_div_t dq)
{
  fix32_t n = a + (fix32_t) ((ushort) dq.s0);
  fix32_t t = MULHI16 (n, (fix32_t) ((ushort) dq.s1));

  return MULHI16 (t + ((n - t) >> 1), (fix32_t) ((ushort) dq.s2));
}

/* Exact 2-D sums (the integer program's conv2d_fixed): integer matrices
 * of any sign whose sums of 8-bit samples span at most 2^16 values,
 * 255 * sum|c| <= 65535 (sharpen, edge detectors, emboss, most custom
 * matrices up to 7x7; the element decides: exact2d16). Samples in the
 * low byte of 16-bit lanes, each product the low half of x * c, the sums
 * started at o = 255 * (the sum of the negative coefficients'
 * magnitudes): the lanes wrap modulo 2^16 on the way but end at u = the
 * exact sum S plus o, in 0..65535.
 *
 * The integer path's result is round_half_away (n / d) clamped to
 * 0..255, n = s * S (or |S| with `absolute`) + bias * d, d = |divisor|,
 * s its sign. Only n in [0, 256 d] matters (below 0 gives 0, above gives
 * 255 or more), and n is u or |u - o| or 65535 - u, plus or minus a
 * constant K, so saturating 16-bit arithmetic gives n clamped to that
 * range exactly for d <= 255 (256 d < 2^16). Rounding half up (n >= 0)
 * is then (n + d / 2) / d: fix_div's exact division, d = 1 and 2 by
 * hand. Divisors above 255 take the integer path's finish16 on the sums
 * widened to 32 bits. Layout (.s3 = mode; 0 is sep_fixed's division):
 *   mode 1: .s0-.s2 fix_div of d, .s4 the lanes' value (0: u, 1: |u - o|,
 *     2: 65535 - u), .s5 the operation (0: value - K, 1: value + K,
 *     2: K - value, each saturated to 0..65535), .s6 K, .s7 d | o << 16
 *   mode 2: .s5 divisor, .s6 bias, .s7 absolute | o << 16 */
#if EXACT
#define FIX2D_VALUE_U 0
#define FIX2D_VALUE_ABS 1
#define FIX2D_VALUE_NOT 2
#define FIX2D_SUB_K 0
#define FIX2D_ADD_K 1
#define FIX2D_K_SUB 2

inline fix_div_t
fix_div_2d_new (__constant int4 * taps, int ntaps, int idiv, int ibias,
    int absolute)
{
  int o = 0, d = abs (idiv), value = FIX2D_VALUE_U, op = FIX2D_SUB_K, k;
  fix_div_t dq;

  for (int t = 0; t < ntaps; t++)
    o += taps[t].z < 0 ? -taps[t].z * 255 : 0;
  if (d > 255)
    return (fix_div_t) (0, 0, 0, 2, 0, idiv, ibias, absolute | o << 16);
  /* n = value - k, or (sign -1) k - value; |bias * d| < 2^29 */
  if (absolute) {
    value = FIX2D_VALUE_ABS;
    k = -ibias * d;
  } else if (idiv > 0) {
    k = o - ibias * d;
  } else {
    k = o + ibias * d;
    if (k > 65535) {
      /* k - u = (65535 - u) - (65535 - k) */
      value = FIX2D_VALUE_NOT;
      k = 65535 - k;
    } else {
      op = FIX2D_K_SUB;
      k = max (k, 0);
    }
  }
  if (absolute || idiv > 0 || value == FIX2D_VALUE_NOT) {
    op = k >= 0 ? FIX2D_SUB_K : FIX2D_ADD_K;
    k = min ((int) abs (k), 65535);
  }
  dq = fix_div_new (d);
  dq.s3 = 1;
  dq.s4 = value;
  dq.s5 = op;
  dq.s6 = k;
  dq.s7 = d | o << 16;
  return dq;
}

/* mode 2: the integer path's finish16 on the sums widened to 32 bits */
inline fix32_t
fix_finish_2d_wide (fix32_t u, fix_div_t dq)
{
  int o = (int) (dq.s7 >> 16), idiv = (int) dq.s5, ibias = (int) dq.s6;
  int absolute = (int) (dq.s7 & 1);
  int16 lo = __builtin_convertvector (__builtin_shufflevector (u, u,
          HALF_LO), int16) - o;
  int16 hi = __builtin_convertvector (__builtin_shufflevector (u, u,
          HALF_HI), int16) - o;
  fix16_t rl = __builtin_convertvector (finish16 (lo, 0.0f, 0.0f, idiv,
          ibias, absolute), fix16_t);
  fix16_t rh = __builtin_convertvector (finish16 (hi, 0.0f, 0.0f, idiv,
          ibias, absolute), fix16_t);

  return __builtin_shufflevector (rl, rh, HALF_LO, HALF_HI);
}

/* 32 sums u to samples (see fix_div_2d_new), not yet clamped to 255 */
inline fix32_t
fix_finish_2d (fix32_t u, fix_div_t dq)
{
  const fix32_t o = (ushort) (dq.s7 >> 16), k = (ushort) dq.s6;
  int d = dq.s7 & 0xffff;
  fix32_t v, n;

  if (dq.s3 == 2)
    return fix_finish_2d_wide (u, dq);
  v = dq.s4 == FIX2D_VALUE_U ? u : dq.s4 == FIX2D_VALUE_ABS ?
      (u > o ? u - o : o - u) : ~u;
  if (dq.s5 == FIX2D_SUB_K)
    n = v > k ? v - k : (fix32_t) 0;
  else if (dq.s5 == FIX2D_ADD_K)
    n = v > (fix32_t) 65535 - k ? (fix32_t) 65535 : v + k;
  else
    n = k > v ? k - v : (fix32_t) 0;
  n = n > (fix32_t) (256 * d) ? (fix32_t) (256 * d) : n;
  if (d == 1)
    return n;
  if (d == 2)
    return (n >> 1) + (n & (fix32_t) 1);
  return fix_divide (n, dq);
}
#endif

/* 32 sums (Q8 in fixed point, integers in exact sums) to samples, rounded
 * half up, not yet clamped to 255 */
inline fix32_t
fix_round (fix32_t a, fix_div_t dq)
{
#if EXACT
  if (dq.s3)
    return fix_finish_2d (a, dq);
  return fix_divide (a, dq);
#else
  return (a >> 8) + ((a >> 7) & (fix32_t) 1);
#endif
}

/* The source samples of those of span [sx - rxs, sx + STRIP + rxs) that
 * lie outside the row (-1: the border value) into @cmap, where
 * fill_row_fixed reads them: mapped once per work-item, not once per row */
inline void
edge_columns_fixed (int sx, int rxs, int rowlen, int width, int ch,
    int border, int *cmap)
{
  int n = STRIP + 2 * rxs;
  int lo = clamp (rxs - sx, 0, n), hi = clamp (rowlen - sx + rxs, lo, n);

  for (int i = lo == 0 ? hi : 0; i < n; i = i + 1 == lo ? hi : i + 1) {
    int s = sx - rxs + i;
    int px = s >= 0 ? s / ch : -((-s + ch - 1) / ch);
    int mx = map_index (px, width, border);

    cmap[i] = mx < 0 ? -1 : mx * ch + s - px * ch;
  }
}

/* fill_row as Q8 samples (@shift 8), or plain ones (0: exact 2-D sums).
 * The interior copy is 32 samples at a time, the
 * last chunk overlapping the one before (the span is at least 64 long);
 * samples outside the row come through @cmap (edge_columns_fixed). */
inline void
fill_row_fixed (__global const uchar * sbase, int sstride, int yy, int sx,
    int rxs, int rowlen, const int *cmap, int bval, int shift, ushort * buf)
{
  int n = STRIP + 2 * rxs;

  if (yy >= 0 && sx >= rxs && sx + STRIP + rxs <= rowlen) {
    __global const uchar *p = ROW (sbase, sstride, yy) + sx - rxs;
    int i = 0;

    for (; i + 32 <= n; i += 32)
      FSTORE (TO_LANES (LOAD32 (p + i), shift), buf + i);
    if (i < n)
      FSTORE (TO_LANES (LOAD32 (p + n - 32), shift), buf + n - 32);
  } else {
    /* an edge strip: the samples inside the row [lo, hi) copied as above,
     * those outside it through the column map */
    __global const uchar *p = yy < 0 ? 0 : ROW (sbase, sstride, yy) + sx - rxs;
    int lo = yy < 0 ? n : clamp (rxs - sx, 0, n);
    int hi = yy < 0 ? n : clamp (rowlen - sx + rxs, lo, n);
    int i = lo;

    if (hi - lo >= 32) {
      for (; i + 32 <= hi; i += 32)
        FSTORE (TO_LANES (LOAD32 (p + i), shift), buf + i);
      if (i < hi)
        FSTORE (TO_LANES (LOAD32 (p + hi - 32), shift), buf + hi - 32);
    } else {
      for (; i < hi; i++)
        buf[i] = p[i] << shift;
    }
    for (i = lo == 0 ? hi : 0; i < n; i = i + 1 == lo ? hi : i + 1)
      buf[i] = ((yy < 0 || cmap[i] < 0) ? bval : p[rxs - sx + cmap[i]]) <<
          shift;
  }
}

/* Rounds 32 Q8 sums to samples (half up) and stores the first @n of them
 * at sample @s, keeping channel @alpha_pos */
inline void
store_fixed (fix32_t acc, int s, int n, int alpha_pos,
    __global const uchar * srow, __global uchar * drow, fix_div_t dq)
{
  const fix32_t top = 255;
  fix32_t r = fix_round (acc, dq);
  u8x32_t v = __builtin_convertvector (r > top ? top : r, u8x32_t);

  if (alpha_pos >= 0) {
    /* s is a multiple of 32, so lane i holds channel i % 4 */
    const u8x32_t lane = (u8x32_t) (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1,
        2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    u8x32_t orig = 0;

    if (n >= 32)
      orig = LOAD32 (srow + s);
    else
      for (int i = 0; i < n; i++)
        orig[i] = srow[s + i];
    v = lane == (uchar) alpha_pos ? orig : v;
  }
  if (n >= 32) {
    STORE32 (v, drow + s);
  } else {
    for (int i = 0; i < n; i++)
      drow[s + i] = v[i];
  }
}

typedef uchar u8x64_t __attribute__ ((ext_vector_type (64)));
typedef u8x64_t __attribute__ ((aligned (1))) uu8x64_t;
#define LOAD64(p) (*(__global const uu8x64_t *) (p))
#define STORE64(v, p) (*(__global uu8x64_t *) (p) = (v))
/* 64 samples as Q8 in two halves: one 64-byte load, each byte put straight
 * into the high byte of a 16-bit lane beside a zero byte (index 64 + ...:
 * the second operand), which LLVM makes one vpunpcklbw / vpunpckhbw each
 * instead of a widening load and a shift per 32 samples. Those work within
 * 16-byte lanes, so the low half holds samples 0-7, 16-23, 32-39, 48-55
 * and the high half the others; every lane is summed on its own, and
 * store_fixed64 puts them back in order (one vpackuswb). */
#define UNPACK_LO(L) 64 + 16 * L, 16 * L + 0, 64 + 16 * L, 16 * L + 1, \
    64 + 16 * L, 16 * L + 2, 64 + 16 * L, 16 * L + 3, 64 + 16 * L, 16 * L + 4, \
    64 + 16 * L, 16 * L + 5, 64 + 16 * L, 16 * L + 6, 64 + 16 * L, 16 * L + 7
#define UNPACK_HI(L) 64 + 16 * L, 16 * L + 8, 64 + 16 * L, 16 * L + 9, \
    64 + 16 * L, 16 * L + 10, 64 + 16 * L, 16 * L + 11, 64 + 16 * L, \
    16 * L + 12, 64 + 16 * L, 16 * L + 13, 64 + 16 * L, 16 * L + 14, \
    64 + 16 * L, 16 * L + 15
#define Q8_LO(v) __builtin_astype (__builtin_shufflevector ((v), (u8x64_t) 0, \
        UNPACK_LO (0), UNPACK_LO (1), UNPACK_LO (2), UNPACK_LO (3)), fix32_t)
#define Q8_HI(v) __builtin_astype (__builtin_shufflevector ((v), (u8x64_t) 0, \
        UNPACK_HI (0), UNPACK_HI (1), UNPACK_HI (2), UNPACK_HI (3)), fix32_t)
/* the same with each byte in the low byte of its lane (exact 2-D sums) */
#define PLAIN_LO(L) 16 * L + 0, 64 + 16 * L, 16 * L + 1, 64 + 16 * L, \
    16 * L + 2, 64 + 16 * L, 16 * L + 3, 64 + 16 * L, 16 * L + 4, 64 + 16 * L, \
    16 * L + 5, 64 + 16 * L, 16 * L + 6, 64 + 16 * L, 16 * L + 7, 64 + 16 * L
#define PLAIN_HI(L) 16 * L + 8, 64 + 16 * L, 16 * L + 9, 64 + 16 * L, \
    16 * L + 10, 64 + 16 * L, 16 * L + 11, 64 + 16 * L, 16 * L + 12, \
    64 + 16 * L, 16 * L + 13, 64 + 16 * L, 16 * L + 14, 64 + 16 * L, \
    16 * L + 15, 64 + 16 * L
#define X_LO(v) __builtin_astype (__builtin_shufflevector ((v), (u8x64_t) 0, \
        PLAIN_LO (0), PLAIN_LO (1), PLAIN_LO (2), PLAIN_LO (3)), fix32_t)
#define X_HI(v) __builtin_astype (__builtin_shufflevector ((v), (u8x64_t) 0, \
        PLAIN_HI (0), PLAIN_HI (1), PLAIN_HI (2), PLAIN_HI (3)), fix32_t)
#define PACK_L(L) 16 * L, 16 * L + 2, 16 * L + 4, 16 * L + 6, 16 * L + 8, \
    16 * L + 10, 16 * L + 12, 16 * L + 14, 64 + 16 * L, 64 + 16 * L + 2, \
    64 + 16 * L + 4, 64 + 16 * L + 6, 64 + 16 * L + 8, 64 + 16 * L + 10, \
    64 + 16 * L + 12, 64 + 16 * L + 14

/* The 64 Q8 sums of Q8_LO / Q8_HI halves rounded (half up) to samples,
 * back in order */
inline u8x64_t
round_fixed64 (fix32_t lo, fix32_t hi, fix_div_t dq)
{
  const fix32_t top = 255;
  fix32_t rl = fix_round (lo, dq);
  fix32_t rh = fix_round (hi, dq);

  rl = rl > top ? top : rl;
  rh = rh > top ? top : rh;
  return __builtin_shufflevector (__builtin_astype (rl, u8x64_t),
      __builtin_astype (rh, u8x64_t), PACK_L (0),
      PACK_L (1), PACK_L (2), PACK_L (3));
}

/* Rounds the 64 Q8 sums of Q8_LO / Q8_HI halves and stores them at sample
 * @s of row @y, keeping channel @alpha_pos */
inline void
store_fixed64 (fix32_t lo, fix32_t hi, int s, int alpha_pos,
    __global const uchar * sbase, int sstride, __global uchar * dbase,
    int dstride, int y, fix_div_t dq)
{
  u8x64_t v = round_fixed64 (lo, hi, dq);

  if (alpha_pos >= 0) {
    u8x64_t lane = (u8x64_t) (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
        0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
        0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    v = lane == (uchar) alpha_pos ? LOAD64 (ROW (sbase, sstride, y) + s) : v;
  }
  STORE64 (v, dbase + y * dstride + s);
}

/* conv2d_fixed's output rows per work-item: a tap's decoding, row choice
 * and border test are paid once for FIX2D_ROWS rows, and rows that several
 * outputs read are filled once on the edge path */
#define FIX2D_ROWS 8            /* as in gstclconvolvepriv.h */
/* rows an edge work-item fills: its own plus the matrix's (up to 31) */
#define FIX2D_BUF_ROWS (FIX2D_ROWS + 30)

/* conv2d_fixed's lanes and products: Q8 samples times Q16 coefficients
 * (the high half) in fixed point; plain samples times the integer
 * coefficient (the low half) for exact 2-D sums (fix_div_2d_new) */
#if EXACT
#define FIX2D_SHIFT 0
#define FIX2D_LO X_LO
#define FIX2D_HI X_HI
#define FIX2D_COEF(tp) ((fix32_t) ((ushort) (tp).z))
#define FIX2D_MUL(a, c) ((a) * (c))
#define FIX2D_DIV() fix_div_2d_new (taps, ntaps, idiv, ibias, absolute)
#define FIX2D_START(n, dq) ((fix32_t) ((ushort) ((dq).s7 >> 16)))
#else
#define FIX2D_SHIFT 8
#define FIX2D_LO Q8_LO
#define FIX2D_HI Q8_HI
#define FIX2D_COEF(tp) ((fix32_t) ((ushort) (tp).w))
#define FIX2D_MUL(a, c) mul_hi32 ((a), (c))
#define FIX2D_DIV() fix_div_new (idiv)
#define FIX2D_START(n, dq) FIX_START (n)
#endif

/* An edge work-item (its strip or rows touch the frame's border, or an
 * empty matrix): each input row its outputs read is filled once, bordered,
 * into a Q8 copy; taps come in row order */
inline void
conv2d_fixed_edge (__global const uchar * sbase, int sstride, int y0,
    int nrows, int sx, int rowlen, int width, int height, int ch,
    int alpha_pos, __constant int4 * taps, int ntaps, int rxs, int bval,
    int border, __global uchar * dbase, int dstride, fix_div_t dq)
{
  ushort buf[FIX2D_BUF_ROWS][STRIP + 2 * MAX_APRON];
  int cmap[STRIP + 2 * MAX_APRON];
  fix32_t init = FIX2D_START (ntaps, dq);
  int dy0 = ntaps ? taps[0].y : 0, nfill = ntaps ? nrows + taps[ntaps -
      1].y - dy0 : 0;

  edge_columns_fixed (sx, rxs, rowlen, width, ch, border, cmap);
  for (int k = 0; k < nfill; k++)
    fill_row_fixed (sbase, sstride, map_index (y0 + dy0 + k, height, border),
        sx, rxs, rowlen, cmap, bval, FIX2D_SHIFT, buf[k]);
  for (int r = 0; r < nrows; r++) {
    fix32_t a0 = init, a1 = init;
    __global const uchar *srow = ROW (sbase, sstride, y0 + r);
    __global uchar *drow = dbase + (y0 + r) * dstride;

    for (int t = 0; t < ntaps; t++) {
      int4 tp = taps[t];
      fix32_t c = FIX2D_COEF (tp);
      const ushort *q = buf[r + tp.y - dy0] + rxs + tp.x * ch;

      a0 += FIX2D_MUL (FLOAD (q), c);
      a1 += FIX2D_MUL (FLOAD (q + 32), c);
    }
    store_fixed (a0, sx, rowlen - sx, alpha_pos, srow, drow, dq);
    if (rowlen - sx > 32)
      store_fixed (a1, sx + 32, rowlen - sx - 32, alpha_pos, srow, drow, dq);
  }
}

/* one output row's 64 samples from a tap's row @p (Q8_LO / Q8_HI halves) */
#define FIX2D_TAP(r) do {                                                  \
    u8x64_t v_ = LOAD64 (p + (r) * sstride);                               \
    a##r##0 += FIX2D_MUL (FIX2D_LO (v_), c);                                \
    a##r##1 += FIX2D_MUL (FIX2D_HI (v_), c);                                \
  } while (0)
#define FIX2D_STORE(r) store_fixed64 (a##r##0, a##r##1, sx, alpha_pos, sbase, \
    sstride, dbase, dstride, y0 + (r), dq)

/* The 2-D kernel (conv2d_strips' arguments and layout); work-item (i, j)
 * makes rows FIX2D_ROWS * j ... of strip i. Taps come in row order. */
__kernel void
conv2d_fixed (__global const uchar * src, uint soff, int sstride,
    __global uchar * dst, uint doff, int dstride, int width, int height,
    int ch, int alpha_pos, __constant int4 * taps, int ntaps, int rx,
    int bval, int border, int direct, PARAMS)
{
  int sx = get_global_id (0) * STRIP, y0 = get_global_id (1) * FIX2D_ROWS;
  int rowlen = width * ch, rxs = rx * ch;
  __global const uchar *sbase = src + soff;
  __global uchar *dbase = dst + doff;
  fix_div_t dq = FIX2D_DIV ();
  fix32_t init = FIX2D_START (ntaps, dq);
  fix32_t a00, a01, a10, a11, a20, a21, a30, a31;
  fix32_t a40, a41, a50, a51, a60, a61, a70, a71;

  if (sx >= rowlen || y0 >= height)
    return;
  if (ntaps == 0 || sx < rxs || sx + STRIP + rxs > rowlen ||
      y0 + taps[0].y < 0 || y0 + FIX2D_ROWS - 1 + taps[ntaps - 1].y >=
      height) {
    conv2d_fixed_edge (sbase, sstride, y0, min (FIX2D_ROWS, height - y0), sx,
        rowlen, width, height, ch, alpha_pos, taps, ntaps, rxs, bval, border,
        dbase, dstride, dq);
    return;
  }

  /* every tap of every row reads the frame: no border, no copy (a Q8 copy
   * in private memory would be read back before its stores retire) */
  a00 = a01 = a10 = a11 = a20 = a21 = a30 = a31 = init;
  a40 = a41 = a50 = a51 = a60 = a61 = a70 = a71 = init;
  for (int t = 0; t < ntaps; t++) {
    int4 tp = taps[t];
    fix32_t c = FIX2D_COEF (tp);
    __global const uchar *p = ROW (sbase, sstride, y0 + tp.y) + sx +
        tp.x * ch;

    FIX2D_TAP (0);
    FIX2D_TAP (1);
    FIX2D_TAP (2);
    FIX2D_TAP (3);
    FIX2D_TAP (4);
    FIX2D_TAP (5);
    FIX2D_TAP (6);
    FIX2D_TAP (7);
  }
  /* the vertical test above keeps all FIX2D_ROWS rows inside the frame */
  FIX2D_STORE (0);
  FIX2D_STORE (1);
  FIX2D_STORE (2);
  FIX2D_STORE (3);
  FIX2D_STORE (4);
  FIX2D_STORE (5);
  FIX2D_STORE (6);
  FIX2D_STORE (7);
}

/* sep_fixed's row pass reads a tap's 64 samples as one 64-byte load,
 * unpacked like conv2d_fixed's (Q8_LO / Q8_HI lane order); an edge row,
 * filled in sample order, is put in that order by one two-source shuffle
 * of 128-bit lanes per half (vshufi64x2), so that both paths leave the
 * same lanes */
#define ORDER_HALF(h, L) 16 * L + 8 * h, 16 * L + 8 * h + 1, \
    16 * L + 8 * h + 2, 16 * L + 8 * h + 3, 16 * L + 8 * h + 4, \
    16 * L + 8 * h + 5, 16 * L + 8 * h + 6, 16 * L + 8 * h + 7
#define ORDER_LO(a, b) __builtin_shufflevector ((a), (b), ORDER_HALF (0, 0), \
    ORDER_HALF (0, 1), ORDER_HALF (0, 2), ORDER_HALF (0, 3))
#define ORDER_HI(a, b) __builtin_shufflevector ((a), (b), ORDER_HALF (1, 0), \
    ORDER_HALF (1, 1), ORDER_HALF (1, 2), ORDER_HALF (1, 3))
/* taps of one pass at most (matrices up to 31x31) */
#define SEP_MAX_TAPS 31

/* Mirrored taps. A symmetric matrix (gaussian, box) has its taps in
 * pairs t, n - 1 - t of opposite offsets and equal coefficients c, whose
 * two products become one: the pair's Q8 samples averaged exactly (x + x')
 * << 7 (vpavgw of x << 8 and x' << 8, no carry lost) times 2c. Fewer
 * multiplies, one truncation per pair instead of two, the same bound; the
 * column pass averages Q8 sums, whose rounding (at most half a unit times
 * 2c / 2^16) keeps a pass within (n + 1) / 2 units too (docs/clconvolve.md,
 * "Arithmetic"). Returns the number of pairs, 0 where any pair is not
 * mirrored or 2c does not fit 16 bits (two taps of 1/2). @field: 0 row
 * taps (dx), 1 column taps (dy). */
inline int
mirrored_pairs (__constant int4 * taps, int n, int field)
{
  for (int t = 0; t < n / 2; t++) {
    int4 a = taps[t], b = taps[n - 1 - t];

    if ((field ? a.y + b.y : a.x + b.x) != 0 || a.w != b.w ||
        2 * a.w > 0xffff)
      return 0;
  }
  if ((n & 1) && (field ? taps[n / 2].y : taps[n / 2].x) != 0)
    return 0;
  return n / 2;
}

/* One pass's taps for the loops: @coef[t] the Q16 coefficient, doubled
 * for the first (returned) mirrored_pairs, @pos[t] = @base + offset *
 * @scale (@field 0: dx, row taps; 1: dy, column taps) */
inline int
pass_taps (__constant int4 * taps, int n, int field, int scale, int base,
    ushort * coef, int *pos)
{
  int np = mirrored_pairs (taps, n, field);

  for (int t = 0; t < n; t++) {
    /* exact sums add a column pair's rows instead of averaging them */
    coef[t] = (ushort) (taps[t].w << (t < np && !(EXACT && field)));
    pos[t] = base + (field ? taps[t].y : taps[t].x) * scale;
  }
  return np;
}

/* Row pass of input row @yy (-1: the border row): 64 samples as Q8 sums
 * in Q8_LO / Q8_HI lane order into @h. @coef and @off: each tap's Q16
 * coefficient (doubled for the first @np, mirrored_pairs) and offset in
 * samples; @cmap: the strip's edge_columns_fixed. A coefficient is
 * broadcast where it is used, not kept as a vector: one load per tap, not
 * two (the loads are what bounds this kernel on AVX2: 1080p RGBA gaussian
 * 7x7, mirrored pairs and broadcasts, 12% less time). Inlined by force: the
 * two loops made LLVM call it (8% slower). */
__attribute__ ((always_inline)) inline void
row_pass_fixed (__global const uchar * sbase, int sstride, int yy, int sx,
    int rowlen, int rxs, const ushort * coef, const int *off, int ntaps,
    int np, const int *cmap, int bval, fix32_t * h)
{
  fix32_t lo, hi;

  /* centred on the products' truncations (see "Fixed point") */
  lo = hi = FIX_START (ntaps - np);
  if (yy >= 0 && sx >= rxs && sx + STRIP + rxs <= rowlen) {
    /* reads the frame (see conv2d_fixed) */
    __global const uchar *row = ROW (sbase, sstride, yy) + sx;

    for (int t = 0; t < np; t++) {
      u8x64_t v = LOAD64 (row + off[t]);
      u8x64_t w = LOAD64 (row + off[ntaps - 1 - t]);

      lo += mul_hi32 (avg32 (Q8_LO (v), Q8_LO (w)), (fix32_t) coef[t]);
      hi += mul_hi32 (avg32 (Q8_HI (v), Q8_HI (w)), (fix32_t) coef[t]);
    }
    for (int t = np; t < ntaps - np; t++) {
      u8x64_t v = LOAD64 (row + off[t]);

      lo += mul_hi32 (Q8_LO (v), (fix32_t) coef[t]);
      hi += mul_hi32 (Q8_HI (v), (fix32_t) coef[t]);
    }
  } else {
    ushort buf[STRIP + 2 * MAX_APRON];

    fill_row_fixed (sbase, sstride, yy, sx, rxs, rowlen, cmap, bval, 8, buf);
    for (int t = 0; t < ntaps - np; t++) {
      const ushort *q = buf + rxs + off[t];
      fix32_t a = FLOAD (q), b = FLOAD (q + 32);

      if (t < np) {
        const ushort *m = buf + rxs + off[ntaps - 1 - t];

        a = avg32 (a, FLOAD (m));
        b = avg32 (b, FLOAD (m + 32));
      }
      lo += mul_hi32 (ORDER_LO (a, b), (fix32_t) coef[t]);
      hi += mul_hi32 (ORDER_HI (a, b), (fix32_t) coef[t]);
    }
  }
  h[0] = lo;
  h[1] = hi;
}

/* store_fixed64 of the first @n (< 64) samples at sample @s (a multiple of
 * 64, so that sample s + i holds channel i % 4) */
inline void
store_fixed64_tail (fix32_t lo, fix32_t hi, int s, int n, int alpha_pos,
    __global const uchar * srow, __global uchar * drow, fix_div_t dq)
{
  u8x64_t v = round_fixed64 (lo, hi, dq);

  for (int i = 0; i < n; i++)
    drow[s + i] = (i & 3) == alpha_pos ? srow[s + i] : v[i];
}

/* One work-item of the separable kernel: STRIP samples from sample @sx,
 * rows [y0, y0 + SEP_ROWS). The taps' coefficients are broadcast once per
 * work-item, not once per row: a tap of either pass then multiplies by a
 * vector in memory and leaves the shuffle port to the unpacks. Not
 * inlined: the colour path's edge strips call it too. */
__attribute__ ((noinline)) void
sep_fixed_strip (__global const uchar * sbase, int sstride,
    __global uchar * dbase, int dstride, int width, int height, int ch,
    int alpha_pos, __constant int4 * row_taps, int nrow, int rx,
    __constant int4 * col_taps, int ncol, int ry, int bval, int border,
    int sx, int y0, fix_div_t dq)
{
  int rowlen = width * ch, y1 = min (y0 + SEP_ROWS, height), rxs = rx * ch;
  fix32_t ring[RING][2];
  ushort rcoef[SEP_MAX_TAPS], ccoef[SEP_MAX_TAPS];
  int roff[SEP_MAX_TAPS], cring[SEP_MAX_TAPS];
  int cmap[STRIP + 2 * MAX_APRON];
  int rp = pass_taps (row_taps, nrow, 0, ch, 0, rcoef, roff);
  /* the ring row of tap t for output row y: (y - y0 + cring[t]) % RING */
  int cp = pass_taps (col_taps, ncol, 1, 1, ry, ccoef, cring);
  fix32_t init = FIX_START (ncol - cp);

  if (sx >= rowlen || y0 >= height)
    return;
  edge_columns_fixed (sx, rxs, rowlen, width, ch, border, cmap);
  /* ring row k holds input row y0 - ry + k */
  for (int k = 0; k < 2 * ry; k++)
    row_pass_fixed (sbase, sstride, map_index (y0 - ry + k, height, border),
        sx, rowlen, rxs, rcoef, roff, nrow, rp, cmap, bval,
        ring[k & (RING - 1)]);

  for (int y = y0; y < y1; y++) {
    int i = y - y0;
    fix32_t a0 = init, a1 = init;

    prefetch_row (sbase, sstride, y + ry + PREFETCH_ROWS, height, sx - rxs);
    prefetch_out_row (dbase, dstride, y + PREFETCH_ROWS, y1, sx, STRIP);
    row_pass_fixed (sbase, sstride, map_index (y + ry, height, border), sx,
        rowlen, rxs, rcoef, roff, nrow, rp, cmap, bval,
        ring[(i + 2 * ry) & (RING - 1)]);
    for (int t = 0; t < ncol - cp; t++) {
      int r = (i + cring[t]) & (RING - 1);
      fix32_t h0 = ring[r][0], h1 = ring[r][1];

      if (t < cp) {
        int m = (i + cring[ncol - 1 - t]) & (RING - 1);

        h0 = col_pair (h0, ring[m][0]);
        h1 = col_pair (h1, ring[m][1]);
      }
      a0 += col_mul (h0, (fix32_t) ccoef[t]);
      a1 += col_mul (h1, (fix32_t) ccoef[t]);
    }
    if (rowlen - sx >= STRIP)
      store_fixed64 (a0, a1, sx, alpha_pos, sbase, sstride, dbase, dstride,
          y, dq);
    else
      store_fixed64_tail (a0, a1, sx, rowlen - sx, alpha_pos,
          ROW (sbase, sstride, y), dbase + y * dstride, dq);
  }
}

#endif /* !PX_ONLY && CPU_ONLY && FIXED && !DEPTH16 */
