/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClBufferPool: video buffers of one GstClMemory each (one cl_mem per
 * buffer, made once and reused frame after frame), with a GstVideoMeta that
 * says where the planes are. A GstVideoBufferPool (handing out the buffer
 * released last: GstClLifoVideoPool) whose allocator is always a
 * GstClMemoryAllocator of the pool's context: it honours the video-meta and
 * video-alignment options as any video pool does. */
#pragma once

#include <gst/video/video.h>
#include <gst/video/gstvideopool.h>
#include "gstclcontext.h"
#include "gstcllifopool.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_BUFFER_POOL (gst_cl_buffer_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstClBufferPool, gst_cl_buffer_pool, GST,
    CL_BUFFER_POOL, GstClLifoVideoPool);

/* An unconfigured pool of @ctx's memory */
GstBufferPool *gst_cl_buffer_pool_new (GstClContext * ctx);
GstClContext *gst_cl_buffer_pool_get_context (GstBufferPool * pool);

/* A pool for video @caps (video meta on), configured with @min..@max
 * buffers; NULL when @caps are not fixed raw video */
GstBufferPool *gst_cl_buffer_pool_new_for_caps (GstClContext * ctx,
    GstCaps * caps, guint min, guint max);

/* Answers an ALLOCATION query for video caps with a GstClBufferPool of @ctx
 * (first, so upstream takes it) and GstVideoMeta. FALSE when the caps are
 * not video. */
gboolean gst_cl_buffer_pool_propose (GstClContext * ctx, GstQuery * query);

G_END_DECLS
