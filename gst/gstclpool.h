/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Buffer pools offered upstream (and used downstream when nobody offers one):
 * on GPUs, video buffers in pinned host memory (CL_MEM_ALLOC_HOST_PTR,
 * mapped once for their lifetime) so transfers are DMA at full speed; on CPU
 * devices, buffers aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN so kernels can use
 * them in place. */
#pragma once

#include <gst/video/video.h>
#include "gstclcontext.h"

G_BEGIN_DECLS

#define GST_CL_PINNED_MEMORY_TYPE "GstClPinnedMemory"

/* A configured pool for @caps on @ctx's device (inactive) */
GstBufferPool *gst_cl_pool_new (GstClContext * ctx, GstCaps * caps, gsize size,
    guint min_buffers);

/* TRUE when @mem is pinned memory made by one of our pools */
gboolean gst_cl_memory_is_pinned (GstMemory * mem);

G_END_DECLS
