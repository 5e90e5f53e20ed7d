/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClBaseFilter: abstract GstBaseTransform for OpenCL elements.
 *
 * It owns the `device` and `device-name` properties, the GstClContext (found
 * or created in start(), shared through GstContext), caps -> GstVideoInfo,
 * allocation (an aligned pool on CPU devices, a pinned pool on GPUs, a
 * GstClBufferPool for memory:OpenCL caps) and the frames: its transform()
 * and transform_ip() make the input (and output) visible to the device
 * (GstClFrame), call the subclass's process(), then finish, unmap and post
 * errors. Subclasses build their kernels in set_info() and only choose and
 * launch them in process() (gst_cl_base_filter_launch()). */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "gstclcontext.h"
#include "gstcltransfer.h"
#include "gstclutils.h"
#include "gstclwarmup.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_BASE_FILTER (gst_cl_base_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstClBaseFilter, gst_cl_base_filter, GST,
    CL_BASE_FILTER, GstBaseTransform);

struct _GstClBaseFilterClass
{
  GstBaseTransformClass parent_class;

  /* caps are set: in_info always, out_info when the output is video (else
   * NULL). Build or fetch kernels here (gst_cl_base_filter_get_program). */
  gboolean (*set_info) (GstClBaseFilter * self, GstCaps * incaps,
      GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info);
  /* release what set_info made; called from stop() and before a new set_info */
  void (*reset) (GstClBaseFilter * self);
  /* One frame: enqueue the kernels that read @in and write @out (NULL from
   * transform_ip: an element that only reads the frame). Both are on the
   * device, wherever the buffers' memory is; the base class finishes and
   * unmaps them. Post an error (launch helpers do) and return FALSE on
   * failure. */
  gboolean (*process) (GstClBaseFilter * self, GstClFrame * in,
      GstClFrame * out);
};

/* Pad template caps of a filter: @formats in system memory and in
 * memory:OpenCL */
#define GST_CL_FILTER_CAPS(formats) GST_VIDEO_CAPS_MAKE (formats) "; " \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CL_MEMORY, \
        formats)

/* For transform_caps: @caps (taken) with each structure offered in
 * memory:OpenCL first, then in system memory (a filter reads and writes
 * either). The default transform_caps is this on the unchanged caps. */
GstCaps *gst_cl_base_filter_any_memory (GstCaps * caps);
/* For fixate_caps, first: keeps the structures of one memory in
 * @othercaps (taken): memory:OpenCL when the peer on that side names it in
 * its caps (another OpenCL element, cldownload), system memory otherwise
 * (ANY-caps sinks too: what they did before). */
GstCaps *gst_cl_base_filter_fixate_memory (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * othercaps);

/* Whether upstream is a live source (LATENCY query on the sink pad's peer);
 * FALSE when nobody answers */
gboolean gst_cl_base_filter_upstream_is_live (GstClBaseFilter * self);

/* valid between start() and stop() */
GstClContext *gst_cl_base_filter_get_context (GstClBaseFilter * self);
/* The stream's warm-up worker (gstclwarmup.h), for what no frame waits
 * for yet: made at the first call after new caps (from set_info or
 * process), started once the first frame after the caps is done (its
 * kernels finished), at once if that frame is done already or if frames
 * do not reach process() (passthrough). Each element only queues its
 * jobs. NULL (logged) when none can be made. The base
 * class frees it (dropping the jobs not begun, joining the one in
 * progress) before reset(), so jobs may use what set_info made. */
GstClWarmup *gst_cl_base_filter_get_warmup (GstClBaseFilter * self);
const GstVideoInfo *gst_cl_base_filter_get_in_info (GstClBaseFilter * self);
/* The output caps' video info; NULL when the output is not video */
const GstVideoInfo *gst_cl_base_filter_get_out_info (GstClBaseFilter * self);

/* Builds (or takes from the cache) a program and posts
 * GST_ELEMENT_ERROR (LIBRARY, INIT) with the build log on failure. */
cl_program gst_cl_base_filter_get_program (GstClBaseFilter * self,
    const gchar * file, const gchar * options);
/* clCreateKernel with the error posted on failure */
cl_kernel gst_cl_base_filter_create_kernel (GstClBaseFilter * self,
    cl_program program, const gchar * name);

/* Posts an OpenCL failure as GST_ELEMENT_ERROR (RESOURCE, FAILED) naming
 * @what, the CL code and the call. Returns FALSE when err != CL_SUCCESS so it
 * can be used as `if (!gst_cl_base_filter_check (self, err, "clX", "doing Y")) ...` */
gboolean gst_cl_base_filter_check (GstClBaseFilter * self, cl_int err,
    const gchar * call, const gchar * what);

/* Posts GST_ELEMENT_ERROR (RESOURCE, NO_SPACE_LEFT) naming @what, @size
 * and CL_DEVICE_MAX_MEM_ALLOC_SIZE, with @hint in the debug string, when
 * @size bytes exceed what the device allocates at once. */
gboolean gst_cl_base_filter_check_alloc_size (GstClBaseFilter * self,
    guint64 size, const gchar * what, const gchar * hint);

/* For elements that only read frames, from their transform_ip(): @buf's
 * frame made visible to the device, process (self, in, NULL), unmapped.
 * The base class sets only transform() (process (self, in, out)). */
GstFlowReturn gst_cl_base_filter_transform_ip (GstClBaseFilter * self,
    GstBuffer * buf);

/* For elements that change their input on the device in transform_ip
 * (clhistogram's overlay): @buf (writable) made visible to the device for
 * reading and writing, as gst_cl_frame_map_in_place(); the caller runs
 * gst_cl_base_filter_process() itself, reads back what it changed
 * (gst_cl_frame_read_rect()) and unmaps (gst_cl_frame_unmap()). FALSE
 * with the error posted and nothing mapped on failure. */
gboolean gst_cl_base_filter_map_in_place (GstClBaseFilter * self,
    GstBuffer * buf, GstClFrame * frame);
/* process (self, @in, @out) on frames mapped by the caller, as transform()
 * runs it: the first frame after new caps counts as compile work and
 * starts the warm-up worker */
gboolean gst_cl_base_filter_process (GstClBaseFilter * self, GstClFrame * in,
    GstClFrame * out);

/* One kernel argument: @size bytes at @value (NULL: local memory) */
typedef struct
{
  gsize size;
  gconstpointer value;
} GstClArg;

#define GST_CL_ARG(v) { sizeof (v), &(v) }
#define GST_CL_ARG_LOCAL(bytes) { (bytes), NULL }
/* plane @p of a GstClFrame *: buffer, byte offset (uint), pitch (int) */
#define GST_CL_ARG_PLANE(frame, p) GST_CL_ARG ((frame)->mem), \
    GST_CL_ARG ((frame)->offset[p]), GST_CL_ARG ((frame)->stride[p])

/* Sets @kernel's arguments 0..@n_args-1 from @args; the CL error (for
 * code that launches elsewhere, e.g. a warm-up queue) */
cl_int gst_cl_kernel_set_args (cl_kernel kernel, const GstClArg * args,
    guint n_args);
/* Sets @kernel's arguments 0..@n_args-1 from @args and enqueues it (as
 * gst_cl_base_filter_run_kernel). Posts the error (@what) and returns FALSE
 * on failure. */
gboolean gst_cl_base_filter_launch (GstClBaseFilter * self, cl_kernel kernel,
    cl_uint dims, const gsize * global, const gsize * local,
    const GstClArg * args, guint n_args, const gchar * what);

/* The launch idiom: an argument list in place, one `fail:` label per
 * function for every error (already posted):
 *   GST_CL_LAUNCH (self, k, 2, global, local, "Could not ...",
 *       GST_CL_ARG_PLANE (in, 0), GST_CL_ARG (width), GST_CL_ARG (mem));
 *   ...
 *   return TRUE;
 * fail:
 *   return FALSE; */
#define GST_CL_LAUNCH(self, kernel, dims, global, local, what, ...) \
  G_STMT_START { \
    const GstClArg gst_cl_args_[] = { __VA_ARGS__ }; \
    if (!gst_cl_base_filter_launch (GST_CL_BASE_FILTER (self), kernel, dims, \
            global, local, gst_cl_args_, G_N_ELEMENTS (gst_cl_args_), what)) \
      goto fail; \
  } G_STMT_END

/* Copies plane @p of the input caps' layout from @in to @out on the device
 * (chroma planes a filter leaves as they are); posts the error */
gboolean gst_cl_base_filter_copy_plane (GstClBaseFilter * self,
    GstClFrame * in, GstClFrame * out, guint p);

/* clEnqueueNDRangeKernel with the error posted on failure (@what names the
 * step for the user). With $GST_CL_PROFILE=1 the queue records events and
 * the kernel's device time is added to the element's "kernel-time"
 * (read-only property, ns, summed since start). */
gboolean gst_cl_base_filter_run_kernel (GstClBaseFilter * self,
    cl_kernel kernel, cl_uint dims, const gsize * global, const gsize * local,
    const gchar * what);

/* Global work size rounded up to the local size (NVIDIA has no non-uniform
 * work-groups); kernels check bounds. */
static inline gsize
gst_cl_global_size (gsize n, gsize local)
{
  return gst_cl_round_up (MAX (n, 1), local);
}

G_END_DECLS
