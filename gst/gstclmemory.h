/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemory: a GstMemory that owns one cl_mem of one GstClContext, so frames
 * can stay on the device between elements. Negotiated with the caps feature
 * "memory:OpenCL". Any element can still read or write it as system memory:
 * gst_memory_map() maps the cl_mem to the host through the context's queue.
 *
 * Where the planes are: a buffer holds one GstClMemory and a GstVideoMeta,
 * as any video buffer; gst_cl_buffer_get_planes() turns both into validated
 * device offsets and pitches. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include "gstclcontext.h"

G_BEGIN_DECLS

/* the memory type (GstMemory.allocator->mem_type) and allocator name */
#define GST_CL_MEMORY_TYPE "OpenCLMemory"
/* the caps feature; the same name Intel DL Streamer uses for cl_mem frames */
#define GST_CAPS_FEATURE_MEMORY_CL_MEMORY "memory:OpenCL"

typedef struct _GstClMemory GstClMemory;

struct _GstClMemory
{
  GstMemory mem;

  /*< private >*/
  GstClContext *ctx;            /* the root memory holds a reference */
  cl_mem buffer;                /* owned by the root memory */
  GMutex lock;                  /* guards the host mapping below */
  gpointer mapped;
  guint map_count;
  cl_map_flags map_flags;
};

#define GST_TYPE_CL_MEMORY_ALLOCATOR (gst_cl_memory_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstClMemoryAllocator, gst_cl_memory_allocator, GST,
    CL_MEMORY_ALLOCATOR, GstAllocator);

/* An allocator of GstClMemory on @ctx's device: CL_MEM_ALLOC_HOST_PTR on CPU
 * devices (mapping is free), device memory on GPUs. */
GstAllocator *gst_cl_memory_allocator_new (GstClContext * ctx);
GstClContext *gst_cl_memory_allocator_get_context (GstAllocator * allocator);

gboolean gst_is_cl_memory (GstMemory * mem);
/* borrowed; the buffer of the whole allocation (add mem->offset) */
cl_mem gst_cl_memory_get_mem (GstMemory * mem);
/* borrowed */
GstClContext *gst_cl_memory_get_context (GstMemory * mem);

/* TRUE when every memory of @buffer is a GstClMemory of @ctx */
gboolean gst_cl_buffer_is_on_context (GstBuffer * buffer, GstClContext * ctx);

/* Where plane p of a frame lies in its cl_mem. Byte values; @row_bytes and
 * @rows are the visible part of the plane. */
typedef struct
{
  cl_mem mem;                   /* borrowed from the buffer */
  guint n_planes;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gsize stride[GST_VIDEO_MAX_PLANES];
  gsize row_bytes[GST_VIDEO_MAX_PLANES];
  gsize rows[GST_VIDEO_MAX_PLANES];
} GstClPlanes;

/* Fills @planes for @buffer (one GstClMemory of @ctx) laid out as its
 * GstVideoMeta says (else as @info says). Nothing is trusted: the meta must
 * match @info's format and size and every plane must fit in the memory.
 * FALSE otherwise (the caller then goes through the host). */
gboolean gst_cl_buffer_get_planes (GstBuffer * buffer, GstClContext * ctx,
    const GstVideoInfo * info, GstClPlanes * planes);

/* Blocking copies between a mapped host frame and device planes of the same
 * format and size (clEnqueue{Write,Read}BufferRect, strides on both sides).
 * FALSE when the host frame's layout cannot be described to OpenCL or does
 * not fit in its buffer (the caller copies through a map instead, which
 * validates again); *@err holds a CL failure. */
gboolean gst_cl_planes_write (GstClContext * ctx, const GstClPlanes * dst,
    const GstVideoFrame * src, cl_int * err);
gboolean gst_cl_planes_read (GstClContext * ctx, const GstClPlanes * src,
    GstVideoFrame * dst, cl_int * err);

/* Copies the visible pixels of every plane between two mapped frames of the
 * same format and size, row by row (strides may differ). FALSE, copying
 * nothing, when the frames differ or a plane does not fit in its buffer. */
gboolean gst_cl_video_frame_copy (GstVideoFrame * dst,
    const GstVideoFrame * src);

/* @caps with every structure's features set to @feature (NULL: system
 * memory) */
GstCaps *gst_cl_caps_set_memory_feature (GstCaps * caps, const gchar * feature);
/* TRUE when the first structure of @caps carries memory:OpenCL */
gboolean gst_cl_caps_has_cl_memory (GstCaps * caps);

G_END_DECLS
