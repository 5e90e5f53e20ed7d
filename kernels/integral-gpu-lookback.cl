/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* integral-gpu-lookback.cl: the GPU integral image in one
 * launch, opt-in (part of the integral program). */

#if !CPU_ONLY && ONEPASS

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

#endif /* !CPU_ONLY && ONEPASS */
