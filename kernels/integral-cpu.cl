/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral-cpu.cl: the CPU variant's chunks and its
 * claims of blocks of rows, shared by the integral image and the box mean
 * (part of the integral program: integral-common.cl lists the parts). */

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

#endif /* !GPU_ONLY */
