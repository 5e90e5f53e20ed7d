/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's live overlay: the histogram drawn as an ARGB
 * GstVideoOverlayRectangle, attached as GstVideoOverlayCompositionMeta when
 * downstream supports it, blended into the frame otherwise. Also owns the
 * overlay-* properties so the element only forwards them. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef enum
{
  GST_CL_HISTOGRAM_OVERLAY_LINEAR,
  GST_CL_HISTOGRAM_OVERLAY_LOG,
} GstClHistogramOverlayScale;

typedef enum
{
  GST_CL_HISTOGRAM_OVERLAY_TOP_LEFT,
  GST_CL_HISTOGRAM_OVERLAY_TOP_RIGHT,
  GST_CL_HISTOGRAM_OVERLAY_BOTTOM_LEFT,
  GST_CL_HISTOGRAM_OVERLAY_BOTTOM_RIGHT,
} GstClHistogramOverlayPosition;

typedef enum
{
  GST_CL_HISTOGRAM_OVERLAY_OVERLAID,
  GST_CL_HISTOGRAM_OVERLAY_PARADE,
} GstClHistogramOverlayMode;

/* property values, kept by the element under its object lock */
typedef struct
{
  gboolean enabled;
  GstClHistogramOverlayScale scale;
  GstClHistogramOverlayPosition position;
  gint width, height;           /* 0 = automatic */
  gdouble alpha;                /* opacity of the box behind the graph */
  GstClHistogramOverlayMode mode;
  gboolean roi_outline;         /* outline the region counted */
} GstClHistogramOverlaySettings;

/* number of properties installed by gst_cl_histogram_overlay_install () */
#define GST_CL_HISTOGRAM_OVERLAY_N_PROPS 8

void gst_cl_histogram_overlay_settings_init (GstClHistogramOverlaySettings * s);
/* Installs overlay, overlay-scale, overlay-position, overlay-width,
 * overlay-height, overlay-alpha, overlay-mode, overlay-roi with ids
 * @first_id.. */
void gst_cl_histogram_overlay_install (GObjectClass * klass, guint first_id);
/* @id relative to @first_id; FALSE when it is not an overlay property */
gboolean gst_cl_histogram_overlay_set_property (GstClHistogramOverlaySettings *
    s, guint id, const GValue * value);
gboolean gst_cl_histogram_overlay_get_property (const
    GstClHistogramOverlaySettings * s, guint id, GValue * value);

/* What to draw: @n_channels histograms of @range full-resolution counts
 * each, shown in @bins bars (value v in bar v * bins / range), counted
 * over the region @roi (x, y, width, height in frame pixels, clipped) */
typedef struct
{
  guint n_channels;
  const gchar *const *names;
  const guint64 *counts;
  guint range, bins;
  gint roi[4];
} GstClHistogramOverlayData;

typedef struct _GstClHistogramOverlay GstClHistogramOverlay;

GstClHistogramOverlay *gst_cl_histogram_overlay_new (void);
void gst_cl_histogram_overlay_free (GstClHistogramOverlay * ov);

/* Draws @data onto @buf (writable, of @info): with @attach as a
 * GstVideoOverlayCompositionMeta (pixels untouched), else blended into the
 * pixels. FALSE when the frame could not be mapped for writing. */
gboolean gst_cl_histogram_overlay_draw (GstClHistogramOverlay * ov,
    const GstClHistogramOverlaySettings * s, const GstVideoInfo * info,
    GstBuffer * buf, gboolean attach, const GstClHistogramOverlayData * data);

/* Which blender draws into the pixels, from $GST_CL_HISTOGRAM_OVERLAY_BLEND
 * ("host", "device", "gstreamer"; unset: AUTO, the element chooses by
 * device) */
typedef enum
{
  GST_CL_HISTOGRAM_OVERLAY_BLENDER_AUTO,
  GST_CL_HISTOGRAM_OVERLAY_BLENDER_HOST,
  GST_CL_HISTOGRAM_OVERLAY_BLENDER_DEVICE,
  GST_CL_HISTOGRAM_OVERLAY_BLENDER_GSTREAMER,
} GstClHistogramOverlayBlender;

GstClHistogramOverlayBlender
gst_cl_histogram_overlay_get_blender (GstClHistogramOverlay * ov);

#define GST_CL_HISTOGRAM_OVERLAY_CLASSES 128

/* One component's colours in a box: every bar class's sample (8-bit, or
 * 16-bit for 16-bit samples) and the background's value @bg (0..255) at
 * alpha @a (0..255) */
typedef struct
{
  guint bg, a;
  guint16 bar[GST_CL_HISTOGRAM_OVERLAY_CLASSES];
} GstClHistogramOverlayColours;

/* The graph of a box for another blender, which classifies its pixels
 * itself: column x (0..@gw - 1) of the graph is frame column @left + x,
 * row r above its bottom row frame row @bottom - r; with @parade channel k
 * has panel k of @pw columns (@gap apart), else all share one of @pw.
 * Pixel (x, r) of panel k shows channel k when its bar in that column is
 * taller than r. @heights: @n * @pw bar heights (channel-major), or NULL
 * when the blender computes them from the frame's counts (@bins bars of
 * @range values, linear or @log, @gh rows, as the host does). @n is 0 when
 * the graph has no room (nothing but background). */
typedef struct
{
  gint left, bottom, gw, pw, gap;
  guint gh, n;
  gboolean parade, log;
  guint bins, range;
  const guint16 *heights;
} GstClHistogramOverlayGraph;

/* A box for another blender (the OpenCL device): the visible rectangle in
 * frame pixels, its graph (NULL: class 1 everywhere, an outline edge) and
 * the colours of each of the format's components, in component order.
 * Blending the boxes in order gives the bytes
 * gst_cl_histogram_overlay_draw () gives. */
typedef struct
{
  gint x, y, w, h;
  const GstClHistogramOverlayGraph *graph;
  GstClHistogramOverlayColours comp[GST_VIDEO_MAX_COMPONENTS];
} GstClHistogramOverlayBox;

typedef gboolean (*GstClHistogramOverlayBoxFunc) (gpointer user_data,
    const GstClHistogramOverlayBox * boxes, guint n_boxes);

/* Whether gst_cl_histogram_overlay_draw_boxes () takes @info's format (the
 * formats of plain 8- and 16-bit samples, unless $..._BLEND=gstreamer) */
gboolean gst_cl_histogram_overlay_takes_boxes (GstClHistogramOverlay * ov,
    const GstVideoInfo * info);
/* Computes what gst_cl_histogram_overlay_draw () would blend into a frame
 * of @info and hands it to @func as boxes (the graph, then the ROI
 * outline's edges); the pixels are @func's business. @data->counts NULL:
 * the graph's heights are left to @func (they are the only part that needs
 * the counts). TRUE when there is nothing to draw, else what @func
 * returns. The boxes are valid during the call only. */
gboolean gst_cl_histogram_overlay_draw_boxes (GstClHistogramOverlay * ov,
    const GstClHistogramOverlaySettings * s, const GstVideoInfo * info,
    const GstClHistogramOverlayData * data, GstClHistogramOverlayBoxFunc func,
    gpointer user_data);

G_END_DECLS
