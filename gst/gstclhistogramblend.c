/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's overlay blended on the device (see the header and
 * kernels/overlay.cl). Per frame: one write of the boxes' colour tables
 * and classes into a device buffer grown to the largest need (no
 * allocation in steady state), one launch per box, and for host frames one
 * rectangle read per plane and box. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclhistogramblend.h"

#define GST_CAT_DEFAULT gst_cl_debug

/* overlay.cl's table: a count, 8 uints per component, then 128 bar values
 * per component; rounded up so that each table starts 16-byte aligned */
#define TAB_COMP 8
#define TAB_BARS 33
#define TAB_UINTS 560
G_STATIC_ASSERT (TAB_BARS == 1 + TAB_COMP * GST_VIDEO_MAX_COMPONENTS);
G_STATIC_ASSERT (TAB_BARS + GST_VIDEO_MAX_COMPONENTS *
    GST_CL_HISTOGRAM_OVERLAY_CLASSES <= TAB_UINTS);
/* the graph and the ROI outline's four edges */
#define MAX_BOXES 5
#define TABLES_BYTES (MAX_BOXES * TAB_UINTS * 4)

#define BLEND_WHAT "Could not draw the histogram overlay on the OpenCL device"

struct _GstClHistogramBlend
{
  GstClBaseFilter *filter;
  cl_kernel kernel;
  gsize local[2];
  cl_mem params;                /* tables, then the classes */
  gsize params_size;
  guint32 tables[MAX_BOXES * TAB_UINTS];
};

GstClHistogramBlend *
gst_cl_histogram_blend_new (GstClBaseFilter * filter)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  GstClHistogramBlend *blend;
  cl_program program;
  gsize wg = 0;

  program = gst_cl_base_filter_get_program (filter, "overlay.cl", "");
  if (!program)
    return NULL;
  blend = g_new0 (GstClHistogramBlend, 1);
  blend->filter = filter;
  blend->kernel = gst_cl_base_filter_create_kernel (filter, program,
      "overlay_blend");
  clReleaseProgram (program);
  if (!blend->kernel) {
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
  return blend;
}

void
gst_cl_histogram_blend_free (GstClHistogramBlend * blend)
{
  if (!blend)
    return;
  if (blend->kernel)
    clReleaseKernel (blend->kernel);
  if (blend->params)
    clReleaseMemObject (blend->params);
  g_free (blend);
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
}

/* The device buffer grown to @size bytes (never shrunk) */
static gboolean
ensure_params (GstClHistogramBlend * blend, gsize size)
{
  GstClBaseFilter *filter = blend->filter;
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  cl_int err;

  if (blend->params && blend->params_size >= size)
    return TRUE;
  if (!gst_cl_base_filter_check_alloc_size (filter, size,
          "the histogram overlay's classes", "make overlay-width and "
          "overlay-height smaller"))
    return FALSE;
  if (blend->params)
    clReleaseMemObject (blend->params);
  blend->params_size = 0;
  blend->params = clCreateBuffer (ctx->context, CL_MEM_READ_ONLY, size, NULL,
      &err);
  if (!gst_cl_base_filter_check (filter, err, "clCreateBuffer", BLEND_WHAT)) {
    blend->params = NULL;
    return FALSE;
  }
  blend->params_size = size;
  return TRUE;
}

/* Writes the tables and classes of @boxes into blend->params; @cls_at gets
 * each box's classes offset. The last write waits: the host arrays are
 * rewritten next frame, and device frames wait for nothing else. */
static gboolean
upload (GstClHistogramBlend * blend, const GstVideoInfo * info,
    const GstClHistogramOverlayBox * boxes, guint n, guint32 * cls_at)
{
  GstClBaseFilter *filter = blend->filter;
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  gsize size = TABLES_BYTES;
  cl_int err;
  guint i, last = n;

  for (i = 0; i < n; i++) {
    /* boxes lie in the frame: at most 2^31 bytes each (the frame's own
     * limit), and no more than MAX_BOXES of them */
    gsize bytes = (gsize) boxes[i].w * boxes[i].h;

    fill_table (blend->tables + i * TAB_UINTS, info, &boxes[i]);
    cls_at[i] = 0;
    if (!boxes[i].classes)
      continue;
    if (size > G_MAXUINT32 - bytes) {
      GST_ELEMENT_ERROR (filter, RESOURCE, NO_SPACE_LEFT, (BLEND_WHAT),
          ("the overlay's classes take more than 4 GiB"));
      return FALSE;
    }
    cls_at[i] = size;
    size = gst_cl_round_up (size + bytes, 16);
    last = i;
  }
  if (!ensure_params (blend, size))
    return FALSE;
  err = clEnqueueWriteBuffer (ctx->queue, blend->params, last == n, 0,
      (gsize) n * TAB_UINTS * 4, blend->tables, 0, NULL, NULL);
  for (i = 0; i < n && err == CL_SUCCESS; i++)
    if (boxes[i].classes)
      err = clEnqueueWriteBuffer (ctx->queue, blend->params, i == last,
          cls_at[i], (gsize) boxes[i].w * boxes[i].h, boxes[i].classes, 0,
          NULL, NULL);
  return gst_cl_base_filter_check (filter, err, "clEnqueueWriteBuffer",
      BLEND_WHAT);
}

static gboolean
launch_box (GstClHistogramBlend * blend, GstClFrame * frame,
    const GstClHistogramOverlayBox * box, guint i, guint32 cls_at)
{
  /* planes the format lacks: never read (the table names no such plane) */
  cl_uint off[3] = { 0, 0, 0 };
  cl_int stride[3] = { 0, 0, 0 }, all_one = box->classes == NULL;
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
      GST_CL_ARG (blend->params), GST_CL_ARG (tab_at), GST_CL_ARG (cls_at),
      GST_CL_ARG (all_one), GST_CL_ARG (rx), GST_CL_ARG (ry), GST_CL_ARG (rw),
      GST_CL_ARG (rh));
  return TRUE;
fail:
  return FALSE;
}

gboolean
gst_cl_histogram_blend_boxes (GstClHistogramBlend * blend,
    GstClFrame * frame, const GstVideoInfo * info,
    const GstClHistogramOverlayBox * boxes, guint n_boxes)
{
  guint32 cls_at[MAX_BOXES];
  guint i;

  g_return_val_if_fail (n_boxes <= MAX_BOXES, FALSE);
  g_return_val_if_fail (GST_VIDEO_INFO_N_PLANES (info) <= 3, FALSE);
  GST_LOG_OBJECT (blend->filter, "%u boxes blended on the device, %s",
      n_boxes, frame->on_device ? "in device memory" : "read back");
  /* more work on the frame: unmapping it waits again, unless the reads
   * below do */
  frame->queue_idle = FALSE;
  if (!upload (blend, info, boxes, n_boxes, cls_at))
    return FALSE;
  for (i = 0; i < n_boxes; i++)
    if (boxes[i].w > 0 && boxes[i].h > 0 &&
        !launch_box (blend, frame, &boxes[i], i, cls_at[i]))
      return FALSE;
  /* after every launch: edges may cover the graph's box */
  for (i = 0; i < n_boxes; i++)
    if (!gst_cl_frame_read_back_rect (frame, info, boxes[i].x, boxes[i].y,
            boxes[i].w, boxes[i].h, i + 1 == n_boxes))
      return FALSE;
  return TRUE;
}
