/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's overlay insides, shared by gstclhistogramoverlay.c (the
 * boxes, bar heights and classes, the composition, the draw entry points)
 * and gstclhistogramoverlayblend.c (the blending into frames on the host).
 * gstclhistogramoverlayprops.c (the overlay-* properties) needs none of
 * this. Not installed. */
#pragma once

#include "gstclhistogramoverlay.h"
#include "gstclhistogramrows.h"

G_BEGIN_DECLS

/* the ROI's outline: opaque white */
#define OUTLINE_ARGB 0xffffffffu

/* channels drawn (the element has 7 kinds); a pixel's class is the mask of
 * the channels whose bars reach it, 0 for the background */
#define MAX_CHANNELS 7
#define N_CLASSES (1 << MAX_CHANNELS)
G_STATIC_ASSERT (N_CLASSES == GST_CL_HISTOGRAM_OVERLAY_CLASSES);

/* the box in frame coordinates and its visible (clipped) part */
typedef struct
{
  gint x, y, w, h;              /* whole box, may reach outside the frame */
  gint vx, vy, vw, vh;          /* visible part */
  gint pad;
} Box;

struct _GstClHistogramOverlay
{
  gboolean gst_blend;           /* always gst_video_overlay_composition_blend */
  GstClHistogramOverlayBlender blender;
  GstBufferPool *pool;          /* ARGB pixels of the visible box */
  GstVideoInfo argb;
  GstBuffer *aligned;           /* scratch frame for odd layouts */
  GstVideoInfo aligned_info;
  guint64 *bars;                /* bins */
  guint64 *cols;                /* one panel's columns */
  guint16 *heights;             /* n_channels * graph width */
  guint8 *classes;              /* visible box, one byte per pixel */
  guint8 *row;                  /* classes of one row */
  guint64 *raw_ends;            /* (height, column, channel) of each bar */
  guint32 *ends;                /* the same sorted by height */
  guint *ends_at;               /* gh + 1 */
  guint8 *ones;                 /* class 1 for an outline edge */
  gsize bars_len, cols_len, heights_len, classes_len, row_len, raw_ends_len,
      ends_len, ends_at_len, ones_len;
  /* the ROI outline's edges as rectangles, kept while the edges stay (no
   * allocation per frame) */
  GstVideoOverlayRectangle *edge_rects[4];
  Box edge_boxes[4];
  guint n_edge_rects;
};

/* Per-frame tables of one component: the background (alpha a) over any
 * sample value, and each bar class's (opaque) sample */
typedef GstClHistogramComp CompTables;

/* Grows *@p to @n elements of @size bytes; steady state never reallocates */
static inline gpointer
ensure (gpointer * p, gsize * len, gsize n, gsize size)
{
  if (*len < n) {
    g_free (*p);
    *p = g_malloc0_n (n, size);
    *len = n;
  }
  return *p;
}

/* gstclhistogramoverlayblend.c */
gboolean gst_cl_histogram_overlay_can_blend_fast (const GstVideoFormatInfo *
    fi);
void gst_cl_histogram_overlay_comp_tables (CompTables * t,
    const guint32 colours[N_CLASSES], guint n_cls, gboolean yuv, guint c,
    gboolean deep);
void gst_cl_histogram_overlay_blend_classes (GstVideoFrame * f,
    const Box * b, const guint8 * cls, const guint32 colours[N_CLASSES],
    guint n_cls);
gboolean gst_cl_histogram_overlay_blend (GstClHistogramOverlay * ov,
    GstVideoOverlayComposition * comp, const Box * b, guint n,
    GstVideoFrame * frame);
void gst_cl_histogram_overlay_blend_edges (GstClHistogramOverlay * ov,
    GstVideoFrame * f, const Box * e, guint n);

G_END_DECLS
