/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames made visible to the device, for GstClBaseFilter: one direction
 * (input or output) of one element, with the device buffer it reuses frame
 * after frame. Below the base filter and above GstClMemory and the context:
 * it knows neither the base filter nor the elements, and posts its errors
 * on the element it was made for. */
#pragma once

#include <gst/video/video.h>
#include "gstclcontext.h"
#include "gstclmemory.h"
#include "gstclwait.h"

G_BEGIN_DECLS

/* Highest byte offset kernels can address in a frame's device buffer: they
 * take plane offsets as uint and compute row offsets in int, so every plane
 * must end below 2^31 (caps and buffers beyond are refused, not truncated) */
#define GST_CL_MAX_FRAME_BYTES ((guint64) G_MAXINT32)

typedef struct _GstClTransfer GstClTransfer;

/* A frame or buffer made visible to the device: plane p of the image is at
 * byte @offset[p] of @mem with row pitch @stride[p] (bytes). Offsets are
 * checked below GST_CL_MAX_FRAME_BYTES, so they are kernel arguments as
 * they are (uint, int). */
typedef struct
{
  cl_mem mem;                   /* borrowed: valid until the frame is unmapped */
  guint n_planes;
  cl_uint offset[GST_VIDEO_MAX_PLANES];
  cl_int stride[GST_VIDEO_MAX_PLANES];
  gsize size;                   /* bytes of @mem in use, from byte 0 */

  /*< private >*/
  gboolean is_video;
  gboolean on_device;           /* @mem is the buffer's own GstClMemory */
  GstVideoFrame vframe;         /* host-mapped video frame */
  GstMapInfo map;               /* host-mapped raw buffer */
  GstBuffer *buffer;
  gboolean is_output;
  gboolean wrapped;             /* @mem wraps host memory (CPU devices) */
  gboolean packed;              /* planes written one by one (multi-memory buffer) */
  gsize plane_size[GST_VIDEO_MAX_PLANES]; /* bytes from a plane's first to its last pixel */
  GstClTransfer *transfer;
  gboolean queue_idle;          /* everything enqueued for it has run */
} GstClFrame;

struct _GstClTransfer
{
  GstElement *element;          /* errors are posted on it; not a reference */
  GstClContext *ctx;            /* borrowed from the element while mapped */
  gboolean output;
  cl_mem_flags flags;           /* CL_MEM_READ_ONLY (input) or CL_MEM_READ_WRITE
                                 * (output: some kernels read what an earlier
                                 * pass wrote there) */
  cl_mem staging;               /* device buffer, grown to the largest frame */
  gsize staging_size;
  gboolean in_place;            /* the frame being mapped is changed on the device */
  GstClWaiter waiter;           /* the output's waits for its results */
};

GstClTransfer *gst_cl_transfer_new (GstElement * element, gboolean output);
/* drops the device buffer (new caps or new context) */
void gst_cl_transfer_reset (GstClTransfer * transfer);
void gst_cl_transfer_free (GstClTransfer * transfer);

/* Makes @buffer's pixels visible to @ctx's device as @frame: a GstClMemory
 * of @ctx is used as it is (no map, no copy); anything else is mapped and
 * wrapped in place on CPU devices when aligned, else copied into (input) or
 * later out of (output) the transfer's device buffer. Every plane's offset,
 * stride and extent is checked against the memory that holds it first:
 * what cannot be read safely (negative or too small strides, planes past
 * their memory or past GST_CL_MAX_FRAME_BYTES) is refused with a
 * STREAM/FORMAT error. @info NULL: a raw (non-video) buffer of one plane.
 * On failure an element error is posted and nothing is left mapped. */
gboolean gst_cl_frame_map (GstClTransfer * transfer, GstClContext * ctx,
    GstBuffer * buffer, const GstVideoInfo * info, GstClFrame * frame);
/* An input @buffer (writable) that kernels change in place: like
 * gst_cl_frame_map(), but host memory is mapped for reading and writing and
 * always copied to the device, never wrapped (kernels change the device
 * copy; gst_cl_frame_read_rect() brings their changes back). The
 * transfer's device buffer becomes writable for good (made once). */
gboolean gst_cl_frame_map_in_place (GstClTransfer * transfer,
    GstClContext * ctx, GstBuffer * buffer, const GstVideoInfo * info,
    GstClFrame * frame);
/* Where plane @plane's samples of the pixel rectangle @rect (x, y, w, h;
 * inside the frame) lie: bytes [x0, x1) of rows [y0, y1) of the plane */
typedef struct
{
  gsize x0, x1, y0, y1;
} GstClPlaneBox;

/* FALSE when plane @plane holds no sample of @rect */
gboolean gst_cl_plane_box (const GstVideoInfo * info, guint plane,
    const gint rect[4], GstClPlaneBox * box);

/* A frame mapped in place, the pixel rectangle @rect (x, y, w, h; inside
 * the frame) of it changed on the device: gst_cl_frame_read_rect()
 * enqueues reads of every plane's samples of it (rectangle reads, or with
 * @rows one linear read of whole rows) into @staging (host memory of
 * gst_cl_frame_rect_size() bytes; pinned memory makes them DMA); once the
 * queue has run them, gst_cl_frame_put_rect() copies them into the host
 * frame. @staging NULL: the reads go straight into the host frame (worth
 * it for pinned memory only; nothing to put then). Nothing to do for device
 * memory (the kernels changed the buffer's own memory): size 0. */
gsize gst_cl_frame_rect_size (const GstClFrame * frame,
    const GstVideoInfo * info, const gint rect[4], gboolean rows);
gboolean gst_cl_frame_read_rect (GstClFrame * frame,
    const GstVideoInfo * info, const gint rect[4], gboolean rows,
    guint8 * staging);
void gst_cl_frame_put_rect (GstClFrame * frame, const GstVideoInfo * info,
    const gint rect[4], gboolean rows, const guint8 * staging);
/* Output: makes what kernels wrote land in the buffer (nothing to do for
 * device memory: the next user's work or map goes on the same in-order
 * queue) */
gboolean gst_cl_frame_finish (GstClFrame * frame);
/* The queue has run everything enqueued so far (another frame's blocking
 * finish, or a blocking read): unmapping @frame need not wait again */
static inline void
gst_cl_frame_set_queue_idle (GstClFrame * frame)
{
  frame->queue_idle = TRUE;
}

/* Harmless on a frame that failed to map or was unmapped already */
void gst_cl_frame_unmap (GstClFrame * frame);

/* Posts an OpenCL failure on @element as GST_ELEMENT_ERROR (RESOURCE,
 * FAILED) naming @what, the CL code and the call. Returns FALSE when @err is
 * not CL_SUCCESS. */
gboolean gst_cl_post_cl_error (GstElement * element, GstClContext * ctx,
    cl_int err, const gchar * call, const gchar * what);

/* *@mem (may be NULL, *@mem_size bytes) grown to at least @size bytes
 * with @flags: replaced by a new buffer when smaller (contents not kept),
 * never shrunk, so steady state allocates nothing. FALSE with an error
 * posted on @element (and *@mem NULL) when the device refuses. */
gboolean gst_cl_buffer_ensure (GstElement * element, GstClContext * ctx,
    cl_mem_flags flags, gsize size, cl_mem * mem, gsize * mem_size);

/* Bytes kernels touch in one row of plane @plane of @info (the widest
 * component's samples; YUY2's chroma pairs round odd widths up) */
gsize gst_cl_plane_row_bytes (const GstVideoInfo * info, guint plane);
/* Bytes from the first pixel of a plane of @rows rows of @row_bytes to the
 * last pixel of its last row with pitch @stride (the last row needs no
 * padding). FALSE on overflow. */
gboolean gst_cl_plane_extent (gsize rows, gsize stride, gsize row_bytes,
    gsize * extent);

G_END_DECLS
