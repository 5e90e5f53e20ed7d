/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral-common.cl: the integral program's options and pixel loads.
 *
 * The integral program computes integral images (summed-area tables) and
 * box means. It is built from one source, these files joined in this
 * order (kernels/meson.build): integral-common.cl; integral-cpu.cl (the
 * CPU variant's chunks and claims of rows), integral-cpu-scan.cl and
 * integral-cpu-bands.cl (its integral image), integral-cpu-box.cl (its box
 * mean); integral-gpu.cl (the GPU integral image in three launches),
 * integral-gpu-lookback.cl (in one), integral-gpu-box.cl (the GPU box
 * means). Each part holds only what its options (CPU_ONLY, GPU_ONLY, BOX,
 * ONEPASS) select.
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
