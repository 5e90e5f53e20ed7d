/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The author line of every element's metadata */
#define GST_CL_ELEMENT_AUTHOR \
    "gst-opencl-filters developers <gst-opencl-filters@lists.freedesktop.org>"

GST_ELEMENT_REGISTER_DECLARE (clhistogram);
GST_ELEMENT_REGISTER_DECLARE (clconvolve);
GST_ELEMENT_REGISTER_DECLARE (clintegral);
GST_ELEMENT_REGISTER_DECLARE (clupload);
GST_ELEMENT_REGISTER_DECLARE (cldownload);

G_END_DECLS
