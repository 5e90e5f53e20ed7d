/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's overlay blended on the device (see the header and
 * kernels/overlay.cl). Per frame: the boxes' colour tables and classes
 * written into pinned host memory and from there, in one DMA, into a device
 * buffer; one launch per box; for host frames one rectangle read per plane
 * and box into the pinned memory, one wait, and the rows copied into the
 * frame. Both buffers grow to the largest need (no allocation in steady
 * state). Nothing waits for the upload: the next frame's histogram read
 * (blocking, on the same in-order queue) has completed it before the host
 * rewrites the pinned memory. */
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
/* "rows": read the boxes back as whole rows (one linear read per plane)
 * instead of rectangles (benchmarks compare the two) */
#define READBACK_ENV "GST_CL_HISTOGRAM_OVERLAY_READBACK"

struct _GstClHistogramBlend
{
  GstClBaseFilter *filter;
  GstClContext *ctx;            /* a reference: the pinned memory's */
  cl_kernel kernel;
  gsize local[2];
  gboolean rows;
  cl_mem params;                /* tables, then the classes */
  gsize params_size;
  cl_mem pinned;                /* CL_MEM_ALLOC_HOST_PTR, mapped for good at */
  guint8 *host;                 /* the upload, then the read-back boxes */
  gsize host_size;
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
  blend->ctx = gst_object_ref (ctx);
  blend->rows = !g_strcmp0 (g_getenv (READBACK_ENV), "rows");
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
  if (blend->params)
    clReleaseMemObject (blend->params);
  gst_object_unref (blend->ctx);
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

/* Bytes of the upload (tables, then each box's classes, @cls_at[i] the
 * offset of box i's; 0 for none) */
static gboolean
upload_layout (GstClHistogramBlend * blend,
    const GstClHistogramOverlayBox * boxes, guint n, guint32 * cls_at,
    gsize * size)
{
  guint i;

  *size = TABLES_BYTES;
  for (i = 0; i < n; i++) {
    /* boxes lie in the frame: at most 2^31 bytes each (the frame's own
     * limit), and no more than MAX_BOXES of them */
    gsize bytes = (gsize) boxes[i].w * boxes[i].h;

    cls_at[i] = 0;
    if (!boxes[i].classes)
      continue;
    if (*size > G_MAXUINT32 - bytes - 64) {
      GST_ELEMENT_ERROR (blend->filter, RESOURCE, NO_SPACE_LEFT, (BLEND_WHAT),
          ("the overlay's classes take more than 4 GiB"));
      return FALSE;
    }
    cls_at[i] = *size;
    *size = gst_cl_round_up (*size + bytes, 64);
  }
  return TRUE;
}

/* Fills the pinned memory with the tables and classes of @boxes and
 * enqueues one write of it into blend->params */
static gboolean
upload (GstClHistogramBlend * blend, const GstVideoInfo * info,
    const GstClHistogramOverlayBox * boxes, guint n, const guint32 * cls_at,
    gsize size)
{
  cl_int err;
  guint i;

  for (i = 0; i < n; i++) {
    fill_table ((guint32 *) blend->host + i * TAB_UINTS, info, &boxes[i]);
    if (boxes[i].classes)
      memcpy (blend->host + cls_at[i], boxes[i].classes,
          (gsize) boxes[i].w * boxes[i].h);
  }
  err = clEnqueueWriteBuffer (blend->ctx->queue, blend->params, CL_FALSE, 0,
      size, blend->host, 0, NULL, NULL);
  return gst_cl_base_filter_check (blend->filter, err, "clEnqueueWriteBuffer",
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
  gint rect[MAX_BOXES][4];
  gsize up_size, back_size = 0, at;
  guint i;

  g_return_val_if_fail (n_boxes <= MAX_BOXES, FALSE);
  g_return_val_if_fail (GST_VIDEO_INFO_N_PLANES (info) <= 3, FALSE);
  GST_LOG_OBJECT (blend->filter, "%u boxes blended on the device, %s",
      n_boxes, frame->on_device ? "in device memory" : "read back");
  if (!upload_layout (blend, boxes, n_boxes, cls_at, &up_size))
    return FALSE;
  for (i = 0; i < n_boxes; i++) {
    rect[i][0] = boxes[i].x;
    rect[i][1] = boxes[i].y;
    rect[i][2] = boxes[i].w;
    rect[i][3] = boxes[i].h;
    back_size += gst_cl_frame_rect_size (frame, info, rect[i], blend->rows);
  }
  if (!ensure_params (blend, up_size) ||
      !ensure_host (blend, up_size + back_size) ||
      !upload (blend, info, boxes, n_boxes, cls_at, up_size))
    return FALSE;
  for (i = 0; i < n_boxes; i++)
    if (boxes[i].w > 0 && boxes[i].h > 0 &&
        !launch_box (blend, frame, &boxes[i], i, cls_at[i]))
      return FALSE;
  if (!back_size)
    return TRUE;                /* device memory: nothing moves */

  /* after every launch: edges may cover the graph's box */
  for (i = 0, at = up_size; i < n_boxes; i++) {
    if (!gst_cl_frame_read_rect (frame, info, rect[i], blend->rows,
            blend->host + at))
      return FALSE;
    at += gst_cl_frame_rect_size (frame, info, rect[i], blend->rows);
  }
  if (!gst_cl_base_filter_check (blend->filter, clFinish (blend->ctx->queue),
          "clFinish", BLEND_WHAT))
    return FALSE;
  gst_cl_frame_set_queue_idle (frame);
  for (i = 0, at = up_size; i < n_boxes; i++) {
    gst_cl_frame_put_rect (frame, info, rect[i], blend->rows,
        blend->host + at);
    at += gst_cl_frame_rect_size (frame, info, rect[i], blend->rows);
  }
  return TRUE;
}
