/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to GstClBaseFilter: the device buffers a filter reuses frame after
 * frame for one direction (input or output). */
#pragma once

#include <gst/video/video.h>
#include "gstclcontext.h"

G_BEGIN_DECLS

/* Highest byte offset kernels can address in a frame's device buffer: they
 * take plane offsets as uint and compute row offsets in int, so every plane
 * must end below 2^31 (caps and buffers beyond are refused, not truncated) */
#define GST_CL_MAX_FRAME_BYTES ((guint64) G_MAXINT32)

struct _GstClTransfer
{
  GstClContext *ctx;            /* borrowed from the filter */
  cl_mem_flags flags;           /* CL_MEM_READ_ONLY (input) or CL_MEM_READ_WRITE
                                 * (output: some kernels read what an earlier
                                 * pass wrote there) */
  cl_mem staging;               /* device buffer, grown to the largest frame */
  gsize staging_size;
};

GstClTransfer *gst_cl_transfer_new (cl_mem_flags flags);
/* drops the device buffer (new caps or new context) */
void gst_cl_transfer_reset (GstClTransfer * transfer);
void gst_cl_transfer_free (GstClTransfer * transfer);

/* Bytes kernels touch in one row of plane @plane of @info (the widest
 * component's samples; YUY2's chroma pairs round odd widths up) */
gsize gst_cl_plane_row_bytes (const GstVideoInfo * info, guint plane);
/* Bytes from the first pixel of a plane of @rows rows of @row_bytes to the
 * last pixel of its last row with pitch @stride (the last row needs no
 * padding). FALSE on overflow. */
gboolean gst_cl_plane_extent (gsize rows, gsize stride, gsize row_bytes,
    gsize * extent);

G_END_DECLS
