#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (clhistogram);
GST_ELEMENT_REGISTER_DECLARE (clconvolve);
GST_ELEMENT_REGISTER_DECLARE (clintegral);

G_END_DECLS
