/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plain-C reference for clhistogram: the same counts, computed the obvious
 * way from a mapped GstVideoFrame, and the statistics the message carries. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* the element's channel flags, same bits */
typedef enum
{
  REF_CH_RED = 1 << 0,
  REF_CH_GREEN = 1 << 1,
  REF_CH_BLUE = 1 << 2,
  REF_CH_LUMA = 1 << 3,
  REF_CH_U = 1 << 4,
  REF_CH_V = 1 << 5,
  REF_CH_ALPHA = 1 << 6,
} RefChannel;

/* Adds the full-resolution counts (one per value, 256 or 65536 entries) of
 * channel @ch of @buf to @counts. The region (x, y, w, h) is in luma pixels
 * and already clipped to the frame; chroma covers every sample touched by
 * the region. @bt709 picks the luma-from-RGB weights. Returns the number of
 * samples counted. */
guint64 ref_histogram_add (GstBuffer * buf, const GstVideoInfo * info,
    RefChannel ch, gboolean bt709, gint x, gint y, gint w, gint h,
    guint64 * counts);

/* 256, or 65536 for 16-bit formats */
guint ref_histogram_range (const GstVideoInfo * info);

typedef struct
{
  guint64 total;
  gdouble mean, stddev;
  guint min, max;
  gdouble clip_low, clip_high;
} RefStats;

/* Bins @counts (@range entries) into @binned (@bins entries: value v goes to
 * bin v * bins / range) and fills @stats (mean/stddev over samples,
 * population stddev; clip = fraction in the first/last bin). */
void ref_histogram_finish (const guint64 * counts, guint range, guint bins,
    guint64 * binned, RefStats * stats);

/* A straightforward single-threaded C histogram of the R, G and B bytes of a
 * packed 4-byte-per-pixel frame (3 x 256 bins), for timing comparisons. */
void ref_histogram_rgba_fast (const guint8 * data, gint width, gint height,
    gint stride, guint32 * counts);

G_END_DECLS
