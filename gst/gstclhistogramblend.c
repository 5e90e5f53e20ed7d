/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's overlay blended on the device (see the header and
 * kernels/overlay.cl). Per frame: the boxes' colour tables written into a
 * device buffer when they differ from the last ones sent (the graph's bar
 * heights too when the host computed them), from pinned host memory, no
 * wait; one launch per box (the graph's computes its heights from the
 * histogram's result itself); for host frames the boxes read back:
 * straight into the frame when it is pinned (our pool's), planes of one
 * pitch together in one 3-D rectangle read, else one rectangle per plane
 * into the pinned memory and the rows copied into the frame after the
 * caller's next wait (the histogram's read, or
 * gst_cl_histogram_blend_finish ()), which covers them all. Both buffers
 * grow to the largest need (no allocation in steady state). Nothing waits
 * for the upload: the frame's own wait has completed it before the next
 * frame rewrites the pinned memory. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclhistogramblend.h"
#include "gstclpool.h"

#define GST_CAT_DEFAULT gst_cl_debug

/* overlay.cl's table: a count, 8 uints per component, 128 bar values per
 * component, then the graph; rounded up so that each table starts 16-byte
 * aligned */
#define TAB_COMP 8
#define TAB_BARS 33
#define TAB_GRAPH (TAB_BARS + GST_VIDEO_MAX_COMPONENTS * \
    GST_CL_HISTOGRAM_OVERLAY_CLASSES)
#define TAB_UINTS 560
G_STATIC_ASSERT (TAB_BARS == 1 + TAB_COMP * GST_VIDEO_MAX_COMPONENTS);
G_STATIC_ASSERT (TAB_GRAPH + 9 <= TAB_UINTS);
/* the graph and the ROI outline's four edges */
#define MAX_BOXES 5
#define TABLES_BYTES (MAX_BOXES * TAB_UINTS * 4)
/* the graph's heights follow the tables in the device buffer */
#define HEIGHTS_AT (TABLES_BYTES / 2)

#define BLEND_WHAT "Could not draw the histogram overlay on the OpenCL device"
/* "rows": read the boxes back as whole rows (one linear read per plane)
 * instead of rectangles; "planes": one rectangle per plane, never planes
 * together (benchmarks compare these); "direct": into the frame whatever
 * its memory (tests take the pinned pool's path on PoCL this way) */
#define READBACK_ENV "GST_CL_HISTOGRAM_OVERLAY_READBACK"
/* "host": the host computes the bar heights after the histogram's read
 * (a second wait per frame), as without doubles (benchmarks and tests) */
#define HEIGHTS_ENV "GST_CL_HISTOGRAM_OVERLAY_HEIGHTS"
/* overlay.cl's overlay_graph: columns per work-group, most channels */
#define GRAPH_GROUP_W 16
#define GRAPH_MAX_CHANNELS 7

struct _GstClHistogramBlend
{
  GstClBaseFilter *filter;
  GstClContext *ctx;            /* a reference: the pinned memory's */
  cl_kernel kernel;
  cl_kernel graph;              /* heights from the counts and blend in
                                 * one; NULL without doubles */
  gsize local[2], graph_local[2];
  gboolean rows;
  gboolean per_plane;           /* never planes together in one read */
  gboolean always_direct;       /* reads into any host frame (tests) */
  /* the tables last written to params (none after params was replaced) */
  guint32 *tables, *sent;
  guint n_sent;
  cl_mem params;                /* tables, then the graph's heights */
  gsize params_size;
  cl_mem pinned;                /* CL_MEM_ALLOC_HOST_PTR, mapped for good at */
  guint8 *host;                 /* the upload, then the read-back boxes */
  gsize host_size;
  /* boxes read back into host + back_at, for gst_cl_histogram_blend_finish */
  gint rect[MAX_BOXES][4];
  guint n_rects;
  gsize back_at;
  gboolean direct;              /* the boxes were read into the frame */
};

static gboolean
has_doubles (GstClContext * ctx)
{
  cl_device_fp_config fp = 0;

  return clGetDeviceInfo (ctx->device, CL_DEVICE_DOUBLE_FP_CONFIG,
      sizeof (fp), &fp, NULL) == CL_SUCCESS && fp != 0;
}

/* The largest power of two work-group @kernel takes, at most @most */
static gsize
pow2_group (GstClContext * ctx, cl_kernel kernel, gsize most)
{
  gsize wg = 0, p = 1;

  if (clGetKernelWorkGroupInfo (kernel, ctx->device,
          CL_KERNEL_WORK_GROUP_SIZE, sizeof (wg), &wg, NULL) != CL_SUCCESS)
    wg = 1;
  wg = MIN (MIN (wg, ctx->max_work_group_size), most);
  while (p * 2 <= wg)
    p *= 2;
  return p;
}

GstClHistogramBlend *
gst_cl_histogram_blend_new (GstClBaseFilter * filter)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  gboolean fp64 = has_doubles (ctx) &&
      g_strcmp0 (g_getenv (HEIGHTS_ENV), "host");
  GstClHistogramBlend *blend;
  cl_program program;
  gsize wg = 0;
  const gchar *readback = g_getenv (READBACK_ENV);

  program = gst_cl_base_filter_get_program (filter, "overlay.cl",
      fp64 ? "-DOVERLAY_FP64=1" : "");
  if (!program)
    return NULL;
  blend = g_new0 (GstClHistogramBlend, 1);
  blend->filter = filter;
  blend->ctx = gst_object_ref (ctx);
  blend->rows = !g_strcmp0 (readback, "rows");
  blend->per_plane = !g_strcmp0 (readback, "planes");
  blend->always_direct = !g_strcmp0 (readback, "direct");
  blend->kernel = gst_cl_base_filter_create_kernel (filter, program,
      "overlay_blend");
  if (blend->kernel && fp64)
    blend->graph = gst_cl_base_filter_create_kernel (filter, program,
        "overlay_graph");
  clReleaseProgram (program);
  if (!blend->kernel || (fp64 && !blend->graph)) {
    gst_cl_histogram_blend_free (blend);
    return NULL;
  }
  /* 16-wide rows of work-items, up to 16 rows, as the kernel allows */
  if (clGetKernelWorkGroupInfo (blend->kernel, ctx->device,
          CL_KERNEL_WORK_GROUP_SIZE, sizeof (wg), &wg, NULL) != CL_SUCCESS)
    wg = 1;
  wg = MIN (wg, ctx->max_work_group_size);
  blend->local[0] = MIN (MAX (wg, 1), 16);
  blend->local[1] = CLAMP (wg / blend->local[0], 1, 16);
  /* overlay_graph: GRAPH_GROUP_W columns, a power of two rows (its
   * reduction halves the group); a device that cannot run that many gets
   * the heights from the host */
  if (blend->graph && pow2_group (ctx, blend->graph, 256) < GRAPH_GROUP_W)
    g_clear_pointer (&blend->graph, clReleaseKernel);
  if (blend->graph) {
    blend->graph_local[0] = GRAPH_GROUP_W;
    blend->graph_local[1] = MIN (pow2_group (ctx, blend->graph, 256) /
        GRAPH_GROUP_W, 16);
  }
  blend->tables = g_new (guint32, MAX_BOXES * TAB_UINTS);
  blend->sent = g_new (guint32, MAX_BOXES * TAB_UINTS);
  return blend;
}

gboolean
gst_cl_histogram_blend_counts_heights (GstClHistogramBlend * blend)
{
  return blend->graph != NULL;
}

static void
drop_host (GstClHistogramBlend * blend)
{
  if (blend->pinned) {
    /* transfers from or into it may still run */
    clFinish (blend->ctx->queue);
    if (blend->host)
      clEnqueueUnmapMemObject (blend->ctx->queue, blend->pinned, blend->host,
          0, NULL, NULL);
    clFinish (blend->ctx->queue);
    clReleaseMemObject (blend->pinned);
  }
  blend->pinned = NULL;
  blend->host = NULL;
  blend->host_size = 0;
}

void
gst_cl_histogram_blend_free (GstClHistogramBlend * blend)
{
  if (!blend)
    return;
  drop_host (blend);
  if (blend->kernel)
    clReleaseKernel (blend->kernel);
  if (blend->graph)
    clReleaseKernel (blend->graph);
  g_free (blend->tables);
  g_free (blend->sent);
  if (blend->params)
    clReleaseMemObject (blend->params);
  gst_object_unref (blend->ctx);
  g_free (blend);
}

/* The graph part of a table: where the graph lies and its heights */
static void
fill_graph (guint32 * g, const GstClHistogramOverlayGraph * graph)
{
  g[0] = 1;
  g[1] = (guint32) graph->left;
  g[2] = (guint32) graph->bottom;
  g[3] = graph->gw;
  g[4] = graph->pw;
  g[5] = graph->gap;
  g[6] = graph->n;
  g[7] = graph->parade;
  g[8] = HEIGHTS_AT;
}

/* The table of @box for a frame of @info into @tab (overlay.cl's layout) */
static void
fill_table (guint32 * tab, const GstVideoInfo * info,
    const GstClHistogramOverlayBox * box)
{
  const GstVideoFormatInfo *fi = info->finfo;
  guint n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi), c, m;

  memset (tab, 0, TAB_UINTS * sizeof (guint32));
  tab[0] = n;
  for (c = 0; c < n; c++) {
    guint32 *d = tab + 1 + TAB_COMP * c;

    d[0] = GST_VIDEO_FORMAT_INFO_PLANE (fi, c);
    d[1] = GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, c);
    d[2] = GST_VIDEO_FORMAT_INFO_POFFSET (fi, c);
    d[3] = GST_VIDEO_FORMAT_INFO_W_SUB (fi, c);
    d[4] = GST_VIDEO_FORMAT_INFO_H_SUB (fi, c);
    d[5] = GST_VIDEO_FORMAT_INFO_DEPTH (fi, c) > 8;
    d[6] = box->comp[c].bg;
    d[7] = box->comp[c].a;
    for (m = 0; m < GST_CL_HISTOGRAM_OVERLAY_CLASSES; m++)
      tab[TAB_BARS + GST_CL_HISTOGRAM_OVERLAY_CLASSES * c + m] =
          box->comp[c].bar[m];
  }
  if (box->graph)
    fill_graph (tab + TAB_GRAPH, box->graph);
}

/* The pinned host memory grown to @size bytes (never shrunk) */
static gboolean
ensure_host (GstClHistogramBlend * blend, gsize size)
{
  GstClBaseFilter *filter = blend->filter;
  cl_int err;

  if (blend->host && blend->host_size >= size)
    return TRUE;
  drop_host (blend);
  blend->pinned = clCreateBuffer (blend->ctx->context, CL_MEM_READ_WRITE |
      CL_MEM_ALLOC_HOST_PTR, size, NULL, &err);
  if (!gst_cl_base_filter_check (filter, err, "clCreateBuffer", BLEND_WHAT)) {
    blend->pinned = NULL;
    return FALSE;
  }
  blend->host = clEnqueueMapBuffer (blend->ctx->queue, blend->pinned, CL_TRUE,
      CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL, &err);
  if (!gst_cl_base_filter_check (filter, err, "clEnqueueMapBuffer",
          BLEND_WHAT)) {
    blend->host = NULL;
    drop_host (blend);
    return FALSE;
  }
  blend->host_size = size;
  return TRUE;
}

/* The graph among @boxes (at most one), or NULL */
static const GstClHistogramOverlayGraph *
find_graph (const GstClHistogramOverlayBox * boxes, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    if (boxes[i].graph && boxes[i].w > 0 && boxes[i].h > 0)
      return boxes[i].graph;
  return NULL;
}

/* Writes the tables of @boxes into blend->params unless they are there
 * already, and the host's heights of @graph (if any) after them: through
 * the pinned memory, no wait */
static gboolean
upload (GstClHistogramBlend * blend, const GstVideoInfo * info,
    const GstClHistogramOverlayBox * boxes, guint n,
    const GstClHistogramOverlayGraph * graph)
{
  gsize tables_size = (gsize) n * TAB_UINTS * sizeof (guint32);
  gboolean host_heights = graph && graph->n && graph->heights;
  gsize heights_size = host_heights ?
      (gsize) graph->n * graph->pw * sizeof (guint16) : 0;
  gsize from, to;
  cl_int err;
  guint i;

  for (i = 0; i < n; i++)
    fill_table (blend->tables + i * TAB_UINTS, info, &boxes[i]);
  /* the common case: the same box as last frame, heights on the device */
  from = n == blend->n_sent &&
      !memcmp (blend->tables, blend->sent, tables_size) ? TABLES_BYTES : 0;
  to = heights_size ? TABLES_BYTES + heights_size : from ? 0 : tables_size;
  if (to <= from)
    return TRUE;
  if (from == 0) {
    memcpy (blend->host, blend->tables, tables_size);
    memcpy (blend->sent, blend->tables, tables_size);
    blend->n_sent = n;
  }
  if (heights_size)
    memcpy (blend->host + TABLES_BYTES, graph->heights, heights_size);
  err = clEnqueueWriteBuffer (blend->ctx->queue, blend->params, CL_FALSE,
      from, to - from, blend->host + from, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    blend->n_sent = 0;
  return gst_cl_base_filter_check (blend->filter, err, "clEnqueueWriteBuffer",
      BLEND_WHAT);
}

/* The graph's box @i with its heights from @counts: one launch of
 * overlay_graph, a work-item per pixel */
static gboolean
launch_graph (GstClHistogramBlend * blend, GstClFrame * frame,
    const GstClHistogramOverlayBox * box, guint i, cl_mem counts,
    cl_uint counts_at)
{
  const GstClHistogramOverlayGraph *graph = box->graph;
  cl_uint off[3] = { 0, 0, 0 };
  cl_int stride[3] = { 0, 0, 0 };
  cl_uint tab_at = i * TAB_UINTS;
  cl_int rx = box->x, ry = box->y, rw = box->w, rh = box->h;
  cl_uint range = graph->range, bins = graph->bins, gh = graph->gh;
  cl_int log_scale = graph->log;
  gsize nl = blend->graph_local[0] * blend->graph_local[1];
  gsize global[2] = { gst_cl_global_size (rw, GRAPH_GROUP_W),
    gst_cl_global_size (rh, blend->graph_local[1])
  };
  guint p;

  for (p = 0; p < MIN (frame->n_planes, 3); p++) {
    off[p] = frame->offset[p];
    stride[p] = frame->stride[p];
  }
  GST_CL_LAUNCH (blend->filter, blend->graph, 2, global, blend->graph_local,
      BLEND_WHAT, GST_CL_ARG (frame->mem), GST_CL_ARG (off[0]),
      GST_CL_ARG (stride[0]), GST_CL_ARG (off[1]), GST_CL_ARG (stride[1]),
      GST_CL_ARG (off[2]), GST_CL_ARG (stride[2]),
      GST_CL_ARG (blend->params), GST_CL_ARG (tab_at), GST_CL_ARG (rx),
      GST_CL_ARG (ry), GST_CL_ARG (rw), GST_CL_ARG (rh), GST_CL_ARG (counts),
      GST_CL_ARG (counts_at), GST_CL_ARG (range), GST_CL_ARG (bins),
      GST_CL_ARG (gh), GST_CL_ARG (log_scale),
      GST_CL_ARG_LOCAL (MIN (graph->n, GRAPH_MAX_CHANNELS) * nl *
          sizeof (cl_ulong)));
  return TRUE;
fail:
  return FALSE;
}

static gboolean
launch_box (GstClHistogramBlend * blend, GstClFrame * frame,
    const GstClHistogramOverlayBox * box, guint i)
{
  /* planes the format lacks: never read (the table names no such plane) */
  cl_uint off[3] = { 0, 0, 0 };
  cl_int stride[3] = { 0, 0, 0 };
  cl_uint tab_at = i * TAB_UINTS;
  cl_int rx = box->x, ry = box->y, rw = box->w, rh = box->h;
  gsize global[2];
  guint p;

  for (p = 0; p < MIN (frame->n_planes, 3); p++) {
    off[p] = frame->offset[p];
    stride[p] = frame->stride[p];
  }
  global[0] = gst_cl_global_size (rw, blend->local[0]);
  global[1] = gst_cl_global_size (rh, blend->local[1]);
  GST_CL_LAUNCH (blend->filter, blend->kernel, 2, global, blend->local,
      BLEND_WHAT, GST_CL_ARG (frame->mem), GST_CL_ARG (off[0]),
      GST_CL_ARG (stride[0]), GST_CL_ARG (off[1]), GST_CL_ARG (stride[1]),
      GST_CL_ARG (off[2]), GST_CL_ARG (stride[2]),
      GST_CL_ARG (blend->params), GST_CL_ARG (tab_at), GST_CL_ARG (rx),
      GST_CL_ARG (ry), GST_CL_ARG (rw), GST_CL_ARG (rh));
  return TRUE;
fail:
  return FALSE;
}

/* One rectangle read for planes [first, first + n) of a box: rows of the
 * same pitch, bytes [x0, x1) of @rows rows from row start[k] (rows of the
 * device buffer counted from its byte 0) for plane first + k */
typedef struct
{
  guint first, n;
  gsize x0, x1, rows, start[3];
} ReadGroup;

/* Whether planes [g->first, g->first + n) can come back in one read, with
 * g's geometry for them: the frame's device copy is the host frame byte for
 * byte outside the boxes (one region, uploaded whole), so the read may span
 * more rows than a plane's box (NV12: its chroma slice as tall as the luma
 * one) as long as they lie inside the frame; the slices must be equally
 * far apart, each at least @rows rows after the last (OpenCL's slice
 * pitch), and n slice pitches must fit in the buffer: NVIDIA's driver
 * refuses a read whose slices, counted whole from the buffer's start, pass
 * its end (an NV12 box in the top half of the frame: two reads there) */
static gboolean
group_planes (GstClFrame * frame, const GstClPlaneBox * b,
    guint8 * const *host, guint n, ReadGroup * g)
{
  gsize stride = frame->stride[g->first], total, k;

  if (stride == 0 || (total = frame->size / stride) == 0)
    return FALSE;
  g->x0 = G_MAXSIZE;
  g->x1 = g->rows = 0;
  for (k = g->first; k < g->first + n; k++) {
    if ((gsize) frame->stride[k] != stride || frame->offset[k] % stride ||
        host[k] - host[g->first] != (gssize) frame->offset[k] -
        (gssize) frame->offset[g->first])
      return FALSE;
    g->x0 = MIN (g->x0, b[k].x0);
    g->x1 = MAX (g->x1, b[k].x1);
    g->rows = MAX (g->rows, b[k].y1 - b[k].y0);
  }
  if (g->rows > total || g->x1 > stride)
    return FALSE;
  for (k = 0; k < n; k++) {
    const GstClPlaneBox *pb = &b[g->first + k];
    gsize row0 = frame->offset[g->first + k] / stride;

    /* the box's first row, or as late as the frame's end allows */
    g->start[k] = MIN (row0 + pb->y0, total - g->rows);
    if (g->start[k] + g->rows < row0 + pb->y1)
      return FALSE;
    if (k > 0 && g->start[k] < g->start[k - 1] + g->rows)
      return FALSE;
    if (k > 1 && g->start[k] - g->start[k - 1] !=
        g->start[k - 1] - g->start[k - 2])
      return FALSE;
  }
  if (n > 1 && (g->start[1] - g->start[0]) * stride > frame->size / n)
    return FALSE;
  g->n = n;
  return TRUE;
}

/* The reads of box @rect of @frame (mapped in place) straight into the
 * host frame, as few rectangle reads as its layout allows: planes of one
 * pitch in one region together (Y444: one read; I420: Y, then U and V;
 * NV12: one), others alone. Returns the number of reads in @g, 0 when a
 * plane takes no rectangle read (gst_cl_frame_read_rect () reads it as
 * rows). */
static guint
plan_direct (GstClHistogramBlend * blend, GstClFrame * frame,
    const GstVideoInfo * info, const gint rect[4], guint8 * host[3],
    ReadGroup g[3])
{
  guint n_planes = MIN (frame->n_planes, 3), p, n, n_groups = 0;
  GstClPlaneBox b[3];

  for (p = 0; p < n_planes; p++) {
    if (!gst_cl_plane_box (info, p, rect, &b[p]))
      return 0;
    host[p] = GST_VIDEO_FRAME_PLANE_DATA (&frame->vframe, p);
  }
  for (p = 0; p < n_planes; p += g[n_groups++].n) {
    g[n_groups].first = p;
    for (n = blend->per_plane ? 1 : n_planes - p; n > 0; n--)
      if (group_planes (frame, b, host, n, &g[n_groups]))
        break;
    if (n == 0)
      return 0;
  }
  return n_groups;
}

/* Enqueues the reads planned by plan_direct (); the OpenCL error of the
 * first one refused, and none after it */
static cl_int
read_direct (GstClHistogramBlend * blend, GstClFrame * frame,
    guint8 * host[3], const ReadGroup * g, guint n_groups)
{
  cl_int err = CL_SUCCESS;
  guint i;

  frame->queue_idle = FALSE;
  for (i = 0; i < n_groups && err == CL_SUCCESS; i++) {
    gsize stride = frame->stride[g[i].first];
    gsize row0 = frame->offset[g[i].first] / stride;
    gsize slice = g[i].n > 1 ? (g[i].start[1] - g[i].start[0]) * stride : 0;
    gsize origin[3] = { g[i].x0, g[i].start[0], 0 };
    gsize host_origin[3] = { g[i].x0, 0, 0 };
    gsize region[3] = { g[i].x1 - g[i].x0, g[i].rows, g[i].n };
    /* the host row of the first slice's first row (one region: it may lie
     * before the first plane's start, inside the frame's memory) */
    guint8 *dst = host[g[i].first] +
        ((gssize) g[i].start[0] - (gssize) row0) * (gssize) stride;

    GST_LOG_OBJECT (blend->filter, "planes %u-%u in one read: %"
        G_GSIZE_FORMAT " bytes of %" G_GSIZE_FORMAT " rows from row %"
        G_GSIZE_FORMAT ", slices %" G_GSIZE_FORMAT " bytes apart",
        g[i].first, g[i].first + g[i].n - 1, region[0], region[1],
        origin[1], slice);
    err = clEnqueueReadBufferRect (blend->ctx->queue, frame->mem, CL_FALSE,
        origin, host_origin, region, stride, slice, stride, slice, dst, 0,
        NULL, NULL);
    if (err != CL_SUCCESS)
      GST_WARNING_OBJECT (blend->filter, "clEnqueueReadBufferRect of planes "
          "%u-%u refused (%s): origin %" G_GSIZE_FORMAT ",%" G_GSIZE_FORMAT
          " region %" G_GSIZE_FORMAT "x%" G_GSIZE_FORMAT "x%u pitch %"
          G_GSIZE_FORMAT " slice %" G_GSIZE_FORMAT " in %" G_GSIZE_FORMAT
          " bytes", g[i].first, g[i].first + g[i].n - 1,
          gst_cl_error_name (err), origin[0], origin[1], region[0],
          region[1], g[i].n, stride, slice, frame->size);
  }
  return err;
}

/* Whether the boxes can be read straight into the host frame: its memory
 * is pinned (DMA); pageable memory goes through the pinned staging memory
 * (NVIDIA copies rectangles into pageable memory row by row) */
static gboolean
reads_into_frame (GstClHistogramBlend * blend, GstClFrame * frame)
{
  guint i, n = gst_buffer_n_memory (frame->buffer);

  for (i = 0; i < n; i++)
    if (!gst_cl_memory_is_pinned (gst_buffer_peek_memory (frame->buffer, i)))
      return FALSE;
  return n > 0;
}

gboolean
gst_cl_histogram_blend_boxes (GstClHistogramBlend * blend,
    GstClFrame * frame, const GstVideoInfo * info,
    const GstClHistogramOverlayBox * boxes, guint n_boxes, cl_mem counts,
    guint counts_at)
{
  const GstClHistogramOverlayGraph *graph = find_graph (boxes, n_boxes);
  gboolean device_heights = graph && graph->n && !graph->heights;
  /* at most 7 channels of 16384 columns (the box's pspec limit) */
  gsize heights_bytes = graph ? (gsize) graph->n * graph->pw * 2 : 0;
  gsize up_size, back_size = 0, at, params_size = blend->params_size;
  gboolean direct = !frame->on_device && (blend->always_direct ||
      reads_into_frame (blend, frame));
  guint i;

  g_return_val_if_fail (n_boxes <= MAX_BOXES, FALSE);
  g_return_val_if_fail (GST_VIDEO_INFO_N_PLANES (info) <= 3, FALSE);
  g_return_val_if_fail (!device_heights || (blend->graph && counts),
      FALSE);
  GST_LOG_OBJECT (blend->filter, "%u boxes blended on the device, %s, "
      "heights from the %s", n_boxes, frame->on_device ? "in device memory" :
      direct ? "read into the frame" : "read back", device_heights ?
      "device" : "host");
  blend->n_rects = 0;
  up_size = TABLES_BYTES + (device_heights ? 0 : heights_bytes);
  for (i = 0; i < n_boxes; i++) {
    blend->rect[i][0] = boxes[i].x;
    blend->rect[i][1] = boxes[i].y;
    blend->rect[i][2] = boxes[i].w;
    blend->rect[i][3] = boxes[i].h;
    if (!direct)
      back_size += gst_cl_frame_rect_size (frame, info, blend->rect[i],
          blend->rows);
  }
  blend->back_at = gst_cl_round_up (up_size, 64);
  if (!gst_cl_base_filter_check_alloc_size (blend->filter,
          TABLES_BYTES + heights_bytes, "the histogram overlay's heights",
          "make overlay-width smaller") ||
      !gst_cl_buffer_ensure (GST_ELEMENT (blend->filter), blend->ctx,
          CL_MEM_READ_WRITE, TABLES_BYTES + heights_bytes, &blend->params,
          &blend->params_size))
    return FALSE;
  /* a new params buffer holds no tables */
  if (blend->params_size != params_size)
    blend->n_sent = 0;
  if (!ensure_host (blend, blend->back_at + back_size) ||
      !upload (blend, info, boxes, n_boxes, graph))
    return FALSE;
  for (i = 0; i < n_boxes; i++) {
    if (boxes[i].w <= 0 || boxes[i].h <= 0)
      continue;
    if (device_heights && boxes[i].graph) {
      if (!launch_graph (blend, frame, &boxes[i], i, counts, counts_at))
        return FALSE;
    } else if (!launch_box (blend, frame, &boxes[i], i)) {
      return FALSE;
    }
  }
  if (frame->on_device)
    return TRUE;                /* device memory: nothing moves */

  /* after every launch: edges may cover the graph's box */
  for (i = 0, at = blend->back_at; i < n_boxes; i++) {
    guint8 *host[3];
    ReadGroup g[3];
    guint n_reads = direct && !blend->rows && boxes[i].w > 0 &&
        boxes[i].h > 0 ? plan_direct (blend, frame, info, blend->rect[i],
        host, g) : 0;

    /* a driver that refuses some other read of planes together: one read
     * per plane from then on, this box's through gst_cl_frame_read_rect ()
     * (a plane read twice comes back the same) */
    if (n_reads && read_direct (blend, frame, host, g, n_reads) != CL_SUCCESS) {
      blend->per_plane = TRUE;
      n_reads = 0;
    }
    if (!n_reads && !gst_cl_frame_read_rect (frame, info, blend->rect[i],
            blend->rows, direct ? NULL : blend->host + at))
      return FALSE;
    if (!direct)
      at += gst_cl_frame_rect_size (frame, info, blend->rect[i], blend->rows);
  }
  blend->n_rects = n_boxes;
  blend->direct = direct;
  return TRUE;
}

gboolean
gst_cl_histogram_blend_finish (GstClHistogramBlend * blend,
    GstClFrame * frame, const GstVideoInfo * info, gboolean waited)
{
  gsize at;
  guint i;

  if (!blend->n_rects)
    return TRUE;
  if (!waited && !gst_cl_base_filter_check (blend->filter,
          clFinish (blend->ctx->queue), "clFinish", BLEND_WHAT))
    return FALSE;
  gst_cl_frame_set_queue_idle (frame);
  for (i = 0, at = blend->back_at; i < blend->n_rects && !blend->direct; i++) {
    gst_cl_frame_put_rect (frame, info, blend->rect[i], blend->rows,
        blend->host + at);
    at += gst_cl_frame_rect_size (frame, info, blend->rect[i], blend->rows);
  }
  blend->n_rects = 0;
  return TRUE;
}
