/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Buffer pools that hand out the buffer released last (last in, first out).
 *
 * GstBufferPool hands buffers out in the order they came back, so a
 * pipeline that frees each frame before the next one is made still writes
 * every frame into a different buffer, cold in the caches. The one released
 * last was written a frame ago and is the likeliest to be in the CPU's
 * caches still: a 1080p U32 integral image (8.3 MB) fits a 32 MB L3. On
 * PoCL, where kernels write frames in place, that is the difference
 * between writing into the cache and reading every line from memory first
 * (docs/design.md, "Pools hand out the buffer released last").
 *
 * GstClLifoPool is a GstBufferPool, GstClLifoVideoPool a GstVideoBufferPool
 * (video meta and alignment options as any video pool); both keep released
 * buffers on a stack of their own while the pool has no upper bound on its
 * buffers. A bounded pool (max > 0) hands them out in GstBufferPool's
 * order: its waiting for a free buffer is GstBufferPool's own, which a
 * buffer on our stack would not wake. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideopool.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_LIFO_POOL (gst_cl_lifo_pool_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstClLifoPool, gst_cl_lifo_pool, GST, CL_LIFO_POOL,
    GstBufferPool);

struct _GstClLifoPoolClass
{
  GstBufferPoolClass parent_class;
};

#define GST_TYPE_CL_LIFO_VIDEO_POOL (gst_cl_lifo_video_pool_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstClLifoVideoPool, gst_cl_lifo_video_pool, GST,
    CL_LIFO_VIDEO_POOL, GstVideoBufferPool);

struct _GstClLifoVideoPoolClass
{
  GstVideoBufferPoolClass parent_class;
};

/* An unconfigured pool (floating reference sunk: the caller owns it) */
GstBufferPool *gst_cl_lifo_pool_new (void);
GstBufferPool *gst_cl_lifo_video_pool_new (void);

G_END_DECLS
