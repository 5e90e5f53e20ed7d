/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClBaseFilter's state, shared by its files: gstclbasefilter.c (kernels,
 * context, start/stop, caps setup, frames, properties) and
 * gstclbasefilternegotiate.c (caps features and allocation queries). Not
 * for subclasses: they use gstclbasefilter.h. */
#pragma once

#include "gstclbasefilter.h"

G_BEGIN_DECLS

typedef struct
{
  gchar *device;                /* selector, under the object lock */
  /* read and replaced under the object lock; the streaming thread uses it
   * unlocked between start() and stop(), when only they replace it */
  GstClContext *context;
  GstVideoInfo in_info, out_info;
  gboolean out_is_video;
  GstClTransfer *in, *out;
  GstBufferPool *pool;          /* offered upstream / used downstream */
  GstCaps *pool_caps;
  guint64 kernel_time;          /* ns, with GST_CL_PROFILE=1; under object lock */
  GstCaps *failed_incaps, *failed_outcaps;      /* set_caps refused them */
  gboolean live;                /* upstream is live, asked at caps time */
  gboolean first_done;          /* a frame processed since the caps */
  GstClWarmup *warmup;          /* per caps, freed before reset() */
} GstClBaseFilterPrivate;

GstClBaseFilterPrivate *gst_cl_base_filter_get_priv (GstClBaseFilter * self);
#define PRIV(self) gst_cl_base_filter_get_priv (GST_CL_BASE_FILTER (self))

/* GstBaseTransform's class, which the base class chains up to */
GstBaseTransformClass *gst_cl_base_filter_parent_class_get (void);

/* gstclbasefilternegotiate.c: installs the caps (transform_caps,
 * fixate_caps) and allocation (propose_allocation, decide_allocation)
 * vfuncs */
void gst_cl_base_filter_negotiate_init (GstBaseTransformClass * klass);

/* releases the pool offered upstream, and its caps */
void gst_cl_base_filter_drop_pool (GstClBaseFilterPrivate * priv);

G_END_DECLS
