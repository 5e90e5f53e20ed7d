/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* convolve-gpu-pxl.cl: conv2d_pxl, and the px kernels'
 * instances (part of the convolve program). */

#if !CPU_ONLY

/* conv2d_pxl<R>_4 (-D PX_LOCAL=1): matrices on 8-bit 4-sample pixels
 * through local memory. A work-group of (64 / PXL_NX) x 4 work-items owns a
 * tile of 64 pixels x PXL_TH rows; a work-item computes PXL_NX pixels side
 * by side (-D PXL_NX=1 or 2) of PXL_ROWS of its rows.
 * Separable matrices (PX_SEP=1): first the work-group runs the row pass of
 * the tile's PXL_TH + 2R input rows, PXL_HU (8) pixels at a time (four
 * 16-byte loads away from the left and right edges), into local memory, one
 * plane per colour lane; then each work-item runs the column pass from
 * there. 2-D matrices: the work-group widens the tile's input pixels (apron
 * included) into local memory once (groups of 4 pixels, 16-byte loads and
 * stores away from the edges), then each work-item runs its taps from
 * there. Either way each
 * input pixel is read and widened about once per tile instead of once per
 * work-item that needs it, and a work-item keeps few registers, so many
 * more of them run at once. With PXL_NX = 2 a
 * work-item reads a row's 2 + 2R samples of a lane as float2 (no bank
 * conflicts) instead of 2 (2R + 1) single floats: the 2-D tile's local
 * loads per output fall from 2R + 1 to R + 1 per row and lane, and it
 * stores its two pixels in one 8-byte store where rows allow. Sums run in
 * conv2d_px's order, so the two give the same bytes.
 *
 * H200, 4K RGBA (GST_CL_CONVOLVE_PX_LOCAL=ROWS,NX): 2 pixels x 5 rows
 * (float 2-D matrices), 6 (float separable) or 4 (integer), the host's
 * default, motion blur 0.0479 ms, gaussian 0.0461 (4 rows: 0.0485 /
 * 0.0490); 4 rows x 2 pixels motion blur 0.048 ms, gaussian 0.049 (0.050
 * motion blur before the 2-D fill's loads ahead; 0.052 / 0.052 before the
 * saturating finish and the widening through byte permutes, 0.057 / 0.061
 * before the aligned 2-D fill, 8-pixel row-pass steps and uchar
 * widening); before those, 8 x 1 0.061 / 0.064; 8 x 2 0.059 / 0.071;
 * 4 pixels per work-item 0.119 / 0.105; 8 x 2 with the fill and 8-pixel
 * steps (old widening) 0.059 / 0.058. */
#ifndef PX_LOCAL
#define PX_LOCAL 0
#endif
#define PXL_WX 64
#define PXL_WY 4
#ifndef PXL_ROWS
#define PXL_ROWS 4              /* at most 8: local memory for R = 3 */
#endif
#ifndef PXL_NX
#define PXL_NX 2
#endif
#define PXL_TH (PXL_ROWS * PXL_WY)
#define PXL_LX (PXL_WX / PXL_NX)        /* work-items across */
/* NX-float vectors a work-item reads per row and lane: NX + 2R samples */
#define PXL_NV(R) ((PXL_NX + 2 * (R) + PXL_NX - 1) / PXL_NX)

/* v[0 .. N * PXL_NX - 1] = samples PXL_NX * tx .. of local row @row of the
 * three planes @a, N vectors per plane */
#if PXL_NX == 2
#define PXL_READ(a, row, v, N) \
PX_UNROLL \
  for (int m = 0; m < (N); m++) { \
    float2 p0 = ((__local const float2 *) (a)[0][row])[tx + m]; \
    float2 p1 = ((__local const float2 *) (a)[1][row])[tx + m]; \
    float2 p2 = ((__local const float2 *) (a)[2][row])[tx + m]; \
 \
    v[2 * m] = (float3) (p0.x, p1.x, p2.x); \
    v[2 * m + 1] = (float3) (p0.y, p1.y, p2.y); \
  }
#else
#define PXL_READ(a, row, v, N) \
PX_UNROLL \
  for (int m = 0; m < (N); m++) \
    v[m] = (float3) ((a)[0][row][tx + m], (a)[1][row][tx + m], \
        (a)[2][row][tx + m]);
#endif

/* the outputs @a[0 .. PXL_NX - 1] of pixels x0 .. of destination row
 * @drow, alpha or x bytes from source row @srow, in one PXL_NX-word load
 * and store */
#if PXL_NX == 2
#define PXL_STOREV(srow, drow, a) do { \
    uint2 s2 = ((__global const uint2 *) (srow))[x0 / 2]; \
 \
    ((__global uint2 *) (drow))[x0 / 2] = (uint2) \
        (px_pack4 (s2.x, alpha_pos, ashift, (a)[0], PARAM_ARGS), \
        px_pack4 (s2.y, alpha_pos, ashift, (a)[1], PARAM_ARGS)); \
  } while (0)
#else
#define PXL_STOREV(srow, drow, a) do { } while (0)
#endif

/* input row @rr of the tile, border-mapped (my) */
#define PXL_ROW_START(R) \
    int yy = gy0 - R + rr; \
    int my = yy >= 0 && yy < height ? yy : map_index (yy, height, border); \
    __global const uchar *row = sbase + max (my, 0) * sstride

/* float3 @v[0..3] into columns @c .. @c + 3 (@c a multiple of 4) of local
 * row @rr of the three planes @a: one 16-byte store per plane (@V4) or four
 * 4-byte stores, which the compiler pairs into 8-byte ones. The 2-D fill
 * takes the 16-byte stores, its work-items on consecutive 16-byte words
 * (H200, 4K RGBA motion blur 57.0 -> 52.7 us against main's four 4-way
 * conflicting 4-byte stores); the separable row pass the pairs unless
 * -D PXL_SEP16=1 (tuning, see docs/performance.md: with the old widening
 * 16-byte stores were 2 us slower at 4 pixels per step and 1 us faster
 * at 8) */
#ifndef PXL_SEP16
#define PXL_SEP16 0
#endif
#define PXL_PUT4(a, c, rr, v, V4) do { \
    if (V4) { \
      *(__local float4 *) &(a)[0][rr][c] = \
          (float4) ((v)[0].x, (v)[1].x, (v)[2].x, (v)[3].x); \
      *(__local float4 *) &(a)[1][rr][c] = \
          (float4) ((v)[0].y, (v)[1].y, (v)[2].y, (v)[3].y); \
      *(__local float4 *) &(a)[2][rr][c] = \
          (float4) ((v)[0].z, (v)[1].z, (v)[2].z, (v)[3].z); \
    } else { \
PX_UNROLL \
      for (int i_ = 0; i_ < 4; i_++) { \
        (a)[0][rr][(c) + i_] = (v)[i_].x; \
        (a)[1][rr][(c) + i_] = (v)[i_].y; \
        (a)[2][rr][(c) + i_] = (v)[i_].z; \
      } \
    } \
  } while (0)

/* the colour samples of a 32-bit pixel as float3, no border test: as
 * uchar conversions NVIDIA's compiler widens most bytes with one
 * byte-selecting I2F.U8 (the row pass's 14 pixels: 112 instructions where
 * sample_to_float's shift, mask, OR and subtract took 168; H200, 4K RGBA
 * gaussian 56.5 -> 52.1 us, motion blur 52.8 -> 51.8) */
#define PXL_RAW(p) ((float3) (convert_float (as_uchar4 (p).s0), \
    convert_float (as_uchar4 (p).s1), convert_float (as_uchar4 (p).s2)))

/* -D PXL_WID=1 on NVIDIA: the colour samples of pixel @p, alpha or x byte
 * where ashift says, as floats through their bits: a byte permute makes
 * 0x4b0000bb (2^23 + b) of byte b, a subtract leaves b (exact, the same
 * floats), no conversion and no shift (@psel = 0x7540 + the first colour
 * byte selects it): the row pass's 14 pixels in 84 instructions instead
 * of 114 (H200, 4K RGBA gaussian 49.2 -> 48.9 us with PXL_FIN=3, 52.1 ->
 * 50.6 without) */
#ifndef PXL_WID
#define PXL_WID 0
#endif
#if PXL_WID && defined (cl_nv_pragma_unroll)
inline float
pxl_byte (uint p, uint sel)
{
  uint r;

  asm ("prmt.b32 %0, %1, 0x4b000000, %2;" : "=r" (r) : "r" (p), "r" (sel));
  return as_float (r) - 8388608.0f;
}

#define PXL_RAWA(p) ((float3) (pxl_byte ((p), psel), \
    pxl_byte ((p), psel + 1), pxl_byte ((p), psel + 2)))
#else
#define PXL_RAWA(p) PXL_RAW ((p) >> ashift)
#endif

/* the row pass's pixels per step (8; 4 for tuning): 8 widen 8 + 2R input
 * pixels for 8 outputs instead of 4 + 2R for 4 (H200, 4K RGBA gaussian
 * 59.5 -> 55.4 us) */
#ifndef PXL_HU
#define PXL_HU 8
#endif

#define PXL_SEP_BODY(R) \
  __local float hl[3][PXL_TH + 2 * R][PXL_WX] __attribute__ ((aligned (16))); \
 \
  /* the row pass: PXL_HU pixels of one input row per step; a border row \
   * (my < 0) is the constant hb, whatever its pixels */ \
  for (int it = lid; it < (PXL_TH + 2 * R) * (PXL_WX / PXL_HU); \
      it += PXL_LX * PXL_WY) { \
    int rr = it / (PXL_WX / PXL_HU), q = PXL_HU * (it % (PXL_WX / PXL_HU)); \
    int x = gx0 + q; \
    PXL_ROW_START (R); \
    float3 v[PXL_HU + 2 * R], h[PXL_HU]; \
 \
    if (R <= 4 && a16 && x >= 4 && x + PXL_HU + 4 <= width) { \
      uint u[PXL_HU + 8];       /* pixels x - 4 .. x + PXL_HU + 3 */ \
 \
PX_UNROLL \
      for (int n = 0; n < PXL_HU / 4 + 2; n++) { \
        uint4 t = ((__global const uint4 *) row)[x / 4 - 1 + n]; \
 \
        u[4 * n] = t.s0; \
        u[4 * n + 1] = t.s1; \
        u[4 * n + 2] = t.s2; \
        u[4 * n + 3] = t.s3; \
      } \
PX_UNROLL \
      for (int k = 0; k < PXL_HU + 2 * R; k++) \
        v[k] = PXL_RAWA (u[4 - R + k]); \
    } else { \
PX_UNROLL \
      for (int k = 0; k < PXL_HU + 2 * R; k++) \
        v[k] = px_pixel4 (row, map_index (x - R + k, width, border), my, \
            ashift, fbval); \
    } \
PX_UNROLL \
    for (int i = 0; i < PXL_HU; i++) { \
      h[i] = 0; \
PX_UNROLL \
      for (int dx = 0; dx < K; dx++) \
        if (PX_TAP (0, dx, K)) \
          PX_FMA (h[i], coef.c[dx], v[i + dx]); \
      if (my < 0) \
        h[i] = (float3) hb; \
    } \
PX_UNROLL \
    for (int g = 0; g < PXL_HU; g += 4) \
      PXL_PUT4 (hl, q + g, rr, h + g, PXL_SEP16); \
  } \
  barrier (CLK_LOCAL_MEM_FENCE); \
  /* the column pass */ \
PX_UNROLL \
  for (int r = 0; r < PXL_ROWS + 2 * R; r++) { \
    float3 hv[PXL_NX]; \
 \
    PXL_READ (hl, j0 + r, hv, 1) \
PX_UNROLL \
    for (int j = 0; j < PXL_ROWS; j++) \
      if (r - j >= 0 && r - j < K && PX_TAP (1, r - j, K)) { \
PX_UNROLL \
        for (int i = 0; i < PXL_NX; i++) \
          PX_FMA (acc[j][i], coef.c[K + r - j], hv[i]); \
      } \
  }

/* the tile's input pixels, apron included: column c of a local row is
 * pixel gx0 - R + c, filled in groups of 4 columns stored with PXL_PUT4;
 * a group starts O = -R mod 4 words into a 16-byte unit, so away from the
 * edges it takes words O .. O + 3 of two units (one if O = 0) */
#define PXL_LW4(R) ((PXL_WX + 2 * (R) + 3) / 4 * 4)
#define PXL_O(R) ((4 - (R) % 4) % 4)
/* pixels xx .. xx + 3 of row my into @v, border-mapped */
#define PXL_FILL_EDGE(v) \
PX_UNROLL \
      for (int i = 0; i < 4; i++) { \
        int mx = xx + i >= 0 && xx + i < width ? xx + i : \
            map_index (xx + i, width, border); \
 \
        (v)[i] = px_pixel4 (row, mx, my, ashift, fbval); \
      }
/* group @g of local row @rr: whether its words lie whole in the frame's
 * 16-byte units (@ok), and those 4 words (@u, when @ok) */
#define PXL_FILL_LOAD(R, RR, G, ok, u) do { \
    int rr = (RR), x4 = gx0 - R + 4 * (G) - PXL_O (R); \
    PXL_ROW_START (R); \
 \
    ok = my >= 0 && a16 && x4 >= 0 && x4 + (PXL_O (R) ? 8 : 4) <= width; \
    if (ok) { \
      __global const uint4 *row4 = (__global const uint4 *) row; \
      uint4 t0 = row4[x4 / 4], t1 = PXL_O (R) ? row4[x4 / 4 + 1] : t0; \
      uint w_[8] = { t0.s0, t0.s1, t0.s2, t0.s3, t1.s0, t1.s1, t1.s2, \
        t1.s3 }; \
 \
PX_UNROLL \
      for (int i_ = 0; i_ < 4; i_++) \
        (u)[i_] = w_[PXL_O (R) + i_]; \
    } \
  } while (0)

/* the same group widened into @v and stored: from @u when @ok, else pixel
 * by pixel, border-mapped */
#define PXL_FILL_PUT(R, RR, G, ok, u) do { \
    int rr = (RR), g = (G), xx = gx0 - R + 4 * g; \
    float3 v[4]; \
 \
    if (ok) { \
PX_UNROLL \
      for (int i = 0; i < 4; i++) \
        v[i] = PXL_RAWA ((u)[i]); \
    } else { \
      PXL_ROW_START (R); \
 \
      PXL_FILL_EDGE (v) \
    } \
    PXL_PUT4 (pl, 4 * (g), rr, v, 1); \
  } while (0)

#define PXL_FILL_N(R) ((PXL_TH + 2 * (R)) * (PXL_LW4 (R) / 4))
#define PXL_FILL4(R) \
  for (int it = lid; it < PXL_FILL_N (R); it += PXL_LX * PXL_WY) { \
    int rr = it / (PXL_LW4 (R) / 4), g = it % (PXL_LW4 (R) / 4); \
    int xx = gx0 - R + 4 * g, x4 = xx - PXL_O (R); \
    PXL_ROW_START (R); \
    float3 v[4]; \
 \
    if (my >= 0 && a16 && x4 >= 0 && x4 + (PXL_O (R) ? 8 : 4) <= width) { \
      uint u[8]; \
      uint4 t = ((__global const uint4 *) row)[x4 / 4]; \
 \
      u[0] = t.s0; \
      u[1] = t.s1; \
      u[2] = t.s2; \
      u[3] = t.s3; \
      if (PXL_O (R)) { \
        t = ((__global const uint4 *) row)[x4 / 4 + 1]; \
        u[4] = t.s0; \
        u[5] = t.s1; \
        u[6] = t.s2; \
        u[7] = t.s3; \
      } \
PX_UNROLL \
      for (int i = 0; i < 4; i++) \
        v[i] = PXL_RAWA (u[PXL_O (R) + i]); \
    } else { \
      PXL_FILL_EDGE (v) \
    } \
    PXL_PUT4 (pl, 4 * g, rr, v, 1); \
  }

#ifndef PXL_FP
#define PXL_FP 0
#endif
/* -D PXL_FP=1: the fill's PXL_FN steps unrolled (a fixed count, no
 * break, so the words stay in registers), the loads of all of them issued
 * before any is widened: a work-item waits for one load latency, not one a
 * step (H200, 4K RGBA motion blur 50.0 -> 48.2 us at the same 56
 * registers; the integer 49-tap custom matrix 29.3 -> 31.4 us at 1080p,
 * so the host asks for it for float matrices only) */
#define PXL_FN(R) ((PXL_FILL_N (R) + PXL_LX * PXL_WY - 1) / \
    (PXL_LX * PXL_WY))
#define PXL_FILL4P(R) \
  uint fu[PXL_FN (R)][4]; \
  int fok[PXL_FN (R)]; \
 \
PX_UNROLL \
  for (int k = 0; k < PXL_FN (R); k++) { \
    int it = lid + k * PXL_LX * PXL_WY; \
 \
    fok[k] = 0; \
    if (it < PXL_FILL_N (R)) \
      PXL_FILL_LOAD (R, it / (PXL_LW4 (R) / 4), it % (PXL_LW4 (R) / 4), \
          fok[k], fu[k]); \
  } \
PX_UNROLL \
  for (int k = 0; k < PXL_FN (R); k++) { \
    int it = lid + k * PXL_LX * PXL_WY; \
 \
    if (it < PXL_FILL_N (R)) \
      PXL_FILL_PUT (R, it / (PXL_LW4 (R) / 4), it % (PXL_LW4 (R) / 4), \
          fok[k], fu[k]); \
  }

#define PXL_2D_BODY(R) \
  __local float pl[3][PXL_TH + 2 * R][PXL_LW4 (R)] \
      __attribute__ ((aligned (16))); \
 \
  /* the tile's input pixels, apron included, widened once */ \
  if (PXL_FP) { \
    PXL_FILL4P (R) \
  } else { \
    PXL_FILL4 (R) \
  } \
  barrier (CLK_LOCAL_MEM_FENCE); \
  /* each input row's taps into the outputs it touches */ \
PX_UNROLL \
  for (int r = 0; r < PXL_ROWS + 2 * R; r++) { \
    float3 v[PXL_NV (R) * PXL_NX]; \
 \
    PXL_READ (pl, j0 + r, v, PXL_NV (R)) \
PX_UNROLL \
    for (int j = 0; j < PXL_ROWS; j++) { \
      if (r - j >= 0 && r - j < K) { \
PX_UNROLL \
        for (int dx = 0; dx < K; dx++) \
          if (PX_TAP (r - j, dx, K)) { \
PX_UNROLL \
            for (int i = 0; i < PXL_NX; i++) \
              PX_FMA (acc[j][i], coef.c[(r - j) * K + dx], v[i + dx]); \
          } \
      } \
    } \
  }

#if PX_SEP
#define PXL_BODY PXL_SEP_BODY
#else
#define PXL_BODY PXL_2D_BODY
#endif

/* the work-item's outputs */
#define PXL_STORES \
PX_UNROLL \
  for (int j = 0; j < PXL_ROWS; j++) { \
    int y = gy0 + j0 + j; \
 \
    if (y >= height) \
      break; \
    if (vst) \
      PXL_STOREV (sbase + y * sstride, dst + doff + y * dstride, acc[j]); \
    else { \
PX_UNROLL \
      for (int i = 0; i < PXL_NX; i++) \
        if (x0 + i < width) \
          px_store4 (sbase + y * sstride, dst + doff + y * dstride, \
              x0 + i, alpha_pos, ashift, acc[j][i], PARAM_ARGS); \
    } \
  }

/* -D PXL_FIN=3: the stores written twice, `absolute' a constant in each
 * (one uniform branch instead of an |.| per sample; H200, 4K RGBA motion
 * blur 51.8 -> 50.5 us; not for integer separable sums: box 1080p 22.4 ->
 * 23.2) */
#if (PXL_FIN & 2) && !(INTEGER && PX_SEP)
#define PXL_STORES_ABS \
  if (absolute) { \
    const int absolute = 1; \
 \
    PXL_STORES \
  } else { \
    const int absolute = 0; \
 \
    PXL_STORES \
  }
#else
#define PXL_STORES_ABS PXL_STORES
#endif

/* (NVIDIA's compiler makes the required work-group size a launch bound,
 * under which -cl-nv-maxrregcount is ignored; without it, register limits
 * spilled and were slower: see docs/performance.md) */
#define CONV2D_PXL(R) \
__kernel __attribute__ ((reqd_work_group_size (PXL_LX, PXL_WY, 1))) void \
conv2d_pxl##R##_4 (__global const uchar * src, uint soff, int sstride, \
    __global uchar * dst, uint doff, int dstride, int width, int height, \
    int ch, int alpha_pos, int aligned8, px_coef_t coef, int bval, \
    int border, int border_row, PARAMS) \
{ \
  const int K = 2 * R + 1, LANES = 3; \
  int tx = get_local_id (0), ty = get_local_id (1), j0 = ty * PXL_ROWS; \
  int lid = ty * PXL_LX + tx; \
  int gx0 = get_group_id (0) * PXL_WX, gy0 = get_group_id (1) * PXL_TH; \
  int x0 = gx0 + PXL_NX * tx; \
  int ashift = alpha_pos == 0 ? 8 : 0; \
  uint psel = 0x7540 + (ashift >> 3); \
  int a16 = ((soff | (uint) sstride) & 15) == 0; \
  __global const uchar *sbase = src + soff; \
  float fbval = bval; \
  float hb = INTEGER ? (float) border_row : as_float (border_row); \
  float3 acc[PXL_ROWS][PXL_NX]; \
  /* a work-item's NX pixels in one NX-word load and store */ \
  int vst = PXL_NX > 1 && x0 + PXL_NX <= width && ((soff | doff | \
          (uint) sstride | (uint) dstride) & (4 * PXL_NX - 1)) == 0; \
 \
PX_UNROLL \
  for (int j = 0; j < PXL_ROWS; j++) \
PX_UNROLL \
    for (int i = 0; i < PXL_NX; i++) \
      acc[j][i] = 0; \
  PXL_BODY (R) \
  PXL_STORES_ABS \
}

/* 4-sample pixels are 8-bit only (RGBA and its orders) */
#if DEPTH16
#define CONV2D_PX_BOTH(R) CONV2D_PX (R, 1)
#else
#define CONV2D_PX_BOTH(R) CONV2D_PX (R, 1) CONV2D_PX (R, 4)
#endif

#if PX_ONLY
/* through a second macro, so that PX_R and PX_CH expand before ## */
#define CONV2D_PX_ONE(R, CH) CONV2D_PX (R, CH)
#if PX_LOCAL && PX_CH == 4 && !DEPTH16
#define CONV2D_PXL_ONE(R) CONV2D_PXL (R)
CONV2D_PXL_ONE (PX_R)
#else
CONV2D_PX_ONE (PX_R, PX_CH)
#endif
#else
#if PX_MAX_R >= 1
CONV2D_PX_BOTH (1)
#endif
#if PX_MAX_R >= 2
CONV2D_PX_BOTH (2)
#endif
#if PX_MAX_R >= 3
CONV2D_PX_BOTH (3)
#endif
#if PX_MAX_R >= 4
CONV2D_PX_BOTH (4)
#endif
#if PX_MAX_R >= 5
CONV2D_PX_BOTH (5)
#endif
#endif /* PX_ONLY */

#endif /* !CPU_ONLY */
