/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to GstClBaseFilter: the device buffers a filter reuses frame after
 * frame for one direction (input or output). */
#pragma once

#include "gstclcontext.h"

G_BEGIN_DECLS

struct _GstClTransfer
{
  GstClContext *ctx;            /* borrowed from the filter */
  cl_mem_flags flags;           /* CL_MEM_READ_ONLY or CL_MEM_WRITE_ONLY */
  cl_mem staging;               /* device buffer, grown to the largest frame */
  gsize staging_size;
};

GstClTransfer *gst_cl_transfer_new (cl_mem_flags flags);
/* drops the device buffer (new caps or new context) */
void gst_cl_transfer_reset (GstClTransfer * transfer);
void gst_cl_transfer_free (GstClTransfer * transfer);

G_END_DECLS
