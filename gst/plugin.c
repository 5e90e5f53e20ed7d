/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-opencl-filters: video analysis and filtering on OpenCL devices.
 *
 * The plugin registers its elements even when no OpenCL platform is
 * installed, so gst-inspect-1.0 lists them; the failure comes at the state
 * change, with advice on what to install. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclelements.h"
#include "gstclutils.h"

GST_DEBUG_CATEGORY (gst_cl_debug);

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;
  cl_uint n_platforms = 0;

  GST_DEBUG_CATEGORY_INIT (gst_cl_debug, "clfilters", 0,
      "OpenCL filters runtime");

  if (clGetPlatformIDs (0, NULL, &n_platforms) != CL_SUCCESS
      || n_platforms == 0) {
    static const gchar why[] = "No OpenCL platform found: install "
        "pocl-opencl-icd (CPU) or a GPU driver's OpenCL ICD, and check with "
        "clinfo. The elements will fail to start.";

    /* shown by gst-inspect-1.0 since GStreamer 1.24; logged on any */
#if GST_CHECK_VERSION (1, 24, 0)
    gst_plugin_add_status_warning (plugin, why);
#endif
    GST_WARNING ("%s", why);
  }

  ret |= GST_ELEMENT_REGISTER (clhistogram, plugin);
  ret |= GST_ELEMENT_REGISTER (clconvolve, plugin);
  ret |= GST_ELEMENT_REGISTER (clintegral, plugin);
  ret |= GST_ELEMENT_REGISTER (clupload, plugin);
  ret |= GST_ELEMENT_REGISTER (cldownload, plugin);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, clfilters,
    "Video analysis and filtering on OpenCL devices",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
