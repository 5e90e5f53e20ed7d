/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clupload: copies raw video from system memory into OpenCL device memory
 * (memory:OpenCL). */
#pragma once

#include "gstclmemorycopy.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_UPLOAD (gst_cl_upload_get_type ())
G_DECLARE_FINAL_TYPE (GstClUpload, gst_cl_upload, GST, CL_UPLOAD,
    GstClMemoryCopy);

G_END_DECLS
