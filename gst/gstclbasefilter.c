/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClBaseFilter: what every OpenCL element shares (see the header). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclbasefilterpriv.h"
#include "gstclcompilegate.h"

#define GST_CAT_DEFAULT gst_cl_debug

#define DEFAULT_DEVICE "auto"

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_KERNEL_TIME,
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstClBaseFilter, gst_cl_base_filter,
    GST_TYPE_BASE_TRANSFORM);

GstClBaseFilterPrivate *
gst_cl_base_filter_get_priv (GstClBaseFilter * self)
{
  return gst_cl_base_filter_get_instance_private (self);
}

GstBaseTransformClass *
gst_cl_base_filter_parent_class_get (void)
{
  return GST_BASE_TRANSFORM_CLASS (gst_cl_base_filter_parent_class);
}

static void
post_gerror (GstClBaseFilter * self, const GError * error, const gchar * debug,
    const gchar * func, gint line)
{
  gst_element_message_full (GST_ELEMENT_CAST (self), GST_MESSAGE_ERROR,
      error->domain, error->code, g_strdup (error->message), g_strdup (debug),
      __FILE__, func, line);
}

GstClContext *
gst_cl_base_filter_get_context (GstClBaseFilter * self)
{
  return PRIV (self)->context;
}

/* Whether process() sees frames now: not in passthrough, unless the
 * element reads them there (transform_ip_on_passthrough, clhistogram) */
static gboolean
processes_frames (GstClBaseFilter * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);

  return !gst_base_transform_is_passthrough (trans) ||
      GST_BASE_TRANSFORM_GET_CLASS (trans)->transform_ip_on_passthrough;
}

GstClWarmup *
gst_cl_base_filter_get_warmup (GstClBaseFilter * self)
{
  GstClBaseFilterPrivate *priv = PRIV (self);

  /* deferred to the first frame, if one is to come through process() */
  if (!priv->warmup)
    priv->warmup = gst_cl_warmup_new (priv->context, !priv->first_done &&
        processes_frames (self));
  return priv->warmup;
}

/* before reset(): the jobs use what set_info made */
static void
free_warmup (GstClBaseFilterPrivate * priv)
{
  g_clear_pointer (&priv->warmup, gst_cl_warmup_free);
}

const GstVideoInfo *
gst_cl_base_filter_get_in_info (GstClBaseFilter * self)
{
  return &PRIV (self)->in_info;
}

const GstVideoInfo *
gst_cl_base_filter_get_out_info (GstClBaseFilter * self)
{
  return PRIV (self)->out_is_video ? &PRIV (self)->out_info : NULL;
}

gboolean
gst_cl_base_filter_upstream_is_live (GstClBaseFilter * self)
{
  GstQuery *query = gst_query_new_latency ();
  gboolean live = FALSE;

  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query))
    gst_query_parse_latency (query, &live, NULL, NULL);
  gst_query_unref (query);
  return live;
}

gboolean
gst_cl_base_filter_check (GstClBaseFilter * self, cl_int err,
    const gchar * call, const gchar * what)
{
  return gst_cl_post_cl_error (GST_ELEMENT_CAST (self), PRIV (self)->context,
      err, call, what);
}

gboolean
gst_cl_base_filter_check_alloc_size (GstClBaseFilter * self, guint64 size,
    const gchar * what, const gchar * hint)
{
  GstClContext *ctx = PRIV (self)->context;

  if (size <= ctx->max_mem_alloc_size)
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("The %s needs %" G_GUINT64_FORMAT " bytes, more than the OpenCL device "
          "\"%s\" can allocate at once (%" G_GUINT64_FORMAT " bytes).", what,
          size, ctx->device_name, (guint64) ctx->max_mem_alloc_size),
      ("CL_DEVICE_MAX_MEM_ALLOC_SIZE = %" G_GUINT64_FORMAT "; %s",
          (guint64) ctx->max_mem_alloc_size, hint));
  return FALSE;
}

cl_program
gst_cl_base_filter_get_program (GstClBaseFilter * self, const gchar * file,
    const gchar * options)
{
  GError *error = NULL;
  gchar *log = NULL;
  cl_program program;

  program = gst_cl_context_get_program (PRIV (self)->context, file, options,
      &log, &error);
  if (!program) {
    gchar *debug = g_strdup_printf ("build options: %s\nbuild log:\n%s",
        options ? options : "", log ? log : "(empty)");
    post_gerror (self, error, debug, G_STRFUNC, __LINE__);
    g_free (debug);
    g_clear_error (&error);
  }
  g_free (log);
  return program;
}

cl_kernel
gst_cl_base_filter_create_kernel (GstClBaseFilter * self, cl_program program,
    const gchar * name)
{
  cl_int err;
  cl_kernel kernel = clCreateKernel (program, name, &err);

  if (!gst_cl_base_filter_check (self, err, "clCreateKernel",
          "Could not create an OpenCL kernel"))
    return NULL;
  return kernel;
}

gboolean
gst_cl_base_filter_run_kernel (GstClBaseFilter * self, cl_kernel kernel,
    cl_uint dims, const gsize * global, const gsize * local, const gchar * what)
{
  GstClBaseFilterPrivate *priv = PRIV (self);
  cl_event event = NULL;
  cl_ulong t0 = 0, t1 = 0;
  cl_int err;

  err = clEnqueueNDRangeKernel (priv->context->queue, kernel, dims, NULL,
      global, local, 0, NULL, priv->context->profiling ? &event : NULL);
  if (!gst_cl_base_filter_check (self, err, "clEnqueueNDRangeKernel", what))
    return FALSE;
  if (event) {
    /* waiting here serialises the queue: only when profiling was asked for */
    clWaitForEvents (1, &event);
    clGetEventProfilingInfo (event, CL_PROFILING_COMMAND_START, sizeof (t0),
        &t0, NULL);
    clGetEventProfilingInfo (event, CL_PROFILING_COMMAND_END, sizeof (t1),
        &t1, NULL);
    clReleaseEvent (event);
    GST_OBJECT_LOCK (self);
    priv->kernel_time += t1 - t0;
    GST_OBJECT_UNLOCK (self);
  }
  return TRUE;
}

cl_int
gst_cl_kernel_set_args (cl_kernel kernel, const GstClArg * args,
    guint n_args)
{
  cl_int err = CL_SUCCESS;
  guint i;

  for (i = 0; i < n_args && err == CL_SUCCESS; i++)
    err = clSetKernelArg (kernel, i, args[i].size, args[i].value);
  return err;
}

gboolean
gst_cl_base_filter_launch (GstClBaseFilter * self, cl_kernel kernel,
    cl_uint dims, const gsize * global, const gsize * local,
    const GstClArg * args, guint n_args, const gchar * what)
{
  cl_int err = gst_cl_kernel_set_args (kernel, args, n_args);

  if (!gst_cl_base_filter_check (self, err, "clSetKernelArg", what))
    return FALSE;
  return gst_cl_base_filter_run_kernel (self, kernel, dims, global, local,
      what);
}

/* ---- GstElement ---- */

/* A new reference to the context held, or NULL (GstClHeldContextFunc) */
static GstClContext *
held_context (GstElement * element)
{
  GstClBaseFilterPrivate *priv = PRIV (element);
  GstClContext *ctx;

  GST_OBJECT_LOCK (element);
  ctx = priv->context ? gst_object_ref (priv->context) : NULL;
  GST_OBJECT_UNLOCK (element);
  return ctx;
}

static void
gst_cl_base_filter_set_context (GstElement * element, GstContext * context)
{
  GstClBaseFilterPrivate *priv = PRIV (element);
  GstClContext *other = NULL;
  gchar *device;
  gboolean held;

  GST_OBJECT_LOCK (element);
  device = g_strdup (priv->device);
  held = priv->context != NULL;
  GST_OBJECT_UNLOCK (element);

  /* made outside the lock: it may open a device */
  if (!held)
    other = gst_cl_handle_set_context (element, context, device);
  g_free (device);
  if (other) {
    GST_OBJECT_LOCK (element);
    if (!priv->context) {       /* never replace a context already held */
      priv->context = other;
      other = NULL;
    }
    GST_OBJECT_UNLOCK (element);
    if (other)
      gst_object_unref (other);
    else
      GST_DEBUG_OBJECT (element, "Using shared OpenCL context");
  }

  GST_ELEMENT_CLASS (gst_cl_base_filter_parent_class)->set_context (element,
      context);
}

/* ---- GstBaseTransform ---- */

static gboolean
gst_cl_base_filter_start (GstBaseTransform * trans)
{
  GstClBaseFilterPrivate *priv = PRIV (trans);
  GstClContext *ctx;
  GError *error = NULL;
  gchar *device;

  GST_OBJECT_LOCK (trans);
  device = g_strdup (priv->device);
  GST_OBJECT_UNLOCK (trans);

  /* no lock held: the neighbours and the application answer through
   * set_context */
  ctx = gst_cl_ensure_element_context (GST_ELEMENT_CAST (trans), device,
      held_context, &error);
  g_free (device);
  if (!ctx) {
    post_gerror (GST_CL_BASE_FILTER (trans), error,
        "See `clinfo -l`; set the element's device property or "
        GST_CL_DEVICE_ENV " to choose another device.", G_STRFUNC, __LINE__);
    g_clear_error (&error);
    return FALSE;
  }
  GST_OBJECT_LOCK (trans);
  priv->kernel_time = 0;
  GST_OBJECT_UNLOCK (trans);
  GST_INFO_OBJECT (trans, "using OpenCL device \"%s\"", ctx->device_name);
  gst_object_unref (ctx);
  g_object_notify (G_OBJECT (trans), "device-name");
  return TRUE;
}

static gboolean
gst_cl_base_filter_stop (GstBaseTransform * trans)
{
  GstClBaseFilterClass *klass = GST_CL_BASE_FILTER_GET_CLASS (trans);
  GstClBaseFilterPrivate *priv = PRIV (trans);
  GstClContext *ctx = held_context (GST_ELEMENT_CAST (trans));

  if (ctx)
    clFinish (ctx->queue);
  free_warmup (priv);
  if (klass->reset)
    klass->reset (GST_CL_BASE_FILTER (trans));
  gst_cl_transfer_reset (priv->in);
  gst_cl_transfer_reset (priv->out);
  gst_cl_base_filter_drop_pool (priv);
  GST_OBJECT_LOCK (trans);
  gst_clear_object (&priv->context);
  GST_OBJECT_UNLOCK (trans);
  gst_clear_object (&ctx);
  gst_clear_caps (&priv->failed_incaps);
  gst_clear_caps (&priv->failed_outcaps);
  return TRUE;
}

/* Refuses caps whose frames kernels cannot address (GST_CL_MAX_FRAME_BYTES)
 * or the device cannot hold, with the real byte counts */
static gboolean
check_frame_size (GstClBaseFilter * self, const GstVideoInfo * info,
    const gchar * what)
{
  guint64 need = 0;
  gboolean addressable = TRUE, sane = TRUE;
  gchar *desc;
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize row = gst_cl_plane_row_bytes (info, p), rows, end, extent;
    gint stride = GST_VIDEO_INFO_PLANE_STRIDE (info, p);

    gst_video_format_info_component (info->finfo, p, comp);
    rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    /* GstVideoInfo's int strides overflow for huge widths: then count the
     * rows' own bytes */
    if (stride < 0 || (gsize) stride < row) {
      stride = 0;
      sane = FALSE;
    }
    if (stride == 0 || !gst_cl_plane_extent (rows, stride, row, &extent) ||
        !g_size_checked_add (&end, GST_VIDEO_INFO_PLANE_OFFSET (info, p),
            extent) || end > GST_CL_MAX_FRAME_BYTES)
      addressable = FALSE;
    /* 64 bits: rows and row bytes come from int sizes */
    need += (guint64) rows * MAX ((guint64) stride, row);
  }
  /* the size is as wrong as the strides when those overflowed */
  if (sane)
    need = MAX (need, GST_VIDEO_INFO_SIZE (info));
  desc = g_strdup_printf ("%s frame of %dx%d %s", what,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      GST_VIDEO_INFO_NAME (info));
  if (!addressable) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The %s needs %" G_GUINT64_FORMAT " bytes; OpenCL kernels here "
            "address frames of at most %" G_GUINT64_FORMAT " bytes (32-bit "
            "offsets).", desc, need, GST_CL_MAX_FRAME_BYTES),
        ("every plane must end below byte %" G_GUINT64_FORMAT "; use a "
            "smaller frame", GST_CL_MAX_FRAME_BYTES));
  } else {
    addressable = gst_cl_base_filter_check_alloc_size (self, need, desc,
        "use a smaller frame or a device that allocates more");
  }
  g_free (desc);
  return addressable;
}

static gboolean
gst_cl_base_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstClBaseFilter *self = GST_CL_BASE_FILTER (trans);
  GstClBaseFilterClass *klass = GST_CL_BASE_FILTER_GET_CLASS (self);
  GstClBaseFilterPrivate *priv = PRIV (self);
  GstVideoInfo out_info;
  gboolean out_is_video, ok;

  if (!priv->context) {
    GST_ELEMENT_ERROR (self, CORE, STATE_CHANGE, (NULL),
        ("caps set before the element started"));
    return FALSE;
  }
  if (!gst_video_info_from_caps (&priv->in_info, incaps)) {
    GST_ERROR_OBJECT (self, "invalid input caps %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  out_is_video = gst_structure_has_name (gst_caps_get_structure (outcaps, 0),
      "video/x-raw") && gst_video_info_from_caps (&out_info, outcaps);
  priv->out_is_video = out_is_video;
  if (out_is_video)
    priv->out_info = out_info;
  /* GstBaseTransform retries refused caps on every buffer (it marks the
   * source pad for reconfiguration) and GStreamer resends sticky caps with
   * every later event: the error was posted the first time */
  if (priv->failed_incaps && gst_caps_is_equal (priv->failed_incaps, incaps)
      && gst_caps_is_equal (priv->failed_outcaps, outcaps)) {
    GST_DEBUG_OBJECT (self, "caps refused before, not trying again");
    return FALSE;
  }
  gst_clear_caps (&priv->failed_incaps);
  gst_clear_caps (&priv->failed_outcaps);
  if (!check_frame_size (self, &priv->in_info, "input") ||
      (out_is_video && !check_frame_size (self, &out_info, "output")))
    goto refused;

  clFinish (priv->context->queue);
  free_warmup (priv);
  if (klass->reset)
    klass->reset (self);
  priv->live = gst_cl_base_filter_upstream_is_live (self);
  priv->first_done = FALSE;
  if (!klass->set_info)
    return TRUE;
  gst_cl_compile_gate_enter ();
  ok = klass->set_info (self, incaps, &priv->in_info, outcaps,
      out_is_video ? &out_info : NULL);
  gst_cl_compile_gate_leave ();
  if (!ok)
    goto refused;
  return TRUE;

refused:
  priv->failed_incaps = gst_caps_ref (incaps);
  priv->failed_outcaps = gst_caps_ref (outcaps);
  return FALSE;
}

/* Controlled properties (GstController bindings) take the value for the
 * buffer's stream time before the element looks at them; also before the
 * passthrough decision, which a controlled value may change. */
static void
gst_cl_base_filter_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstClockTime stream_time;

  if (trans->segment.format != GST_FORMAT_TIME)
    return;
  stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buffer));
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

/* ---- frames ---- */

/* for the log: how a frame reached the device */
static const gchar *
frame_path (const GstClFrame * frame)
{
  if (frame->on_device)
    return "OpenCL memory in place";
  if (frame->wrapped)
    return "host memory wrapped in place";
  return frame->is_output ? "device buffer read back" : "device buffer written";
}

/* Longest a live stream holds its first frame for other elements' compiles;
 * beyond it, stalls in mid-stream are the lesser evil. */
#define COMPILE_GATE_MAX_WAIT (30 * G_TIME_SPAN_SECOND)

/* Runs the element's hook on one frame (and @finish on @out, when given).
 * The first frame after new caps counts as compile work (first launches
 * compile on PoCL) and then starts the warm-up worker, once the frame's
 * kernels are done (its start delay counts from there: a one-frame
 * pipeline has stopped before a job begins); on a live stream on a CPU
 * device it then waits until nothing in the process compiles any more (see
 * gstclcompilegate.h), so that its later frames do not stall behind
 * another pipeline's start-up. GPU drivers compile without holding up
 * other launches: no wait there. */
static gboolean
process_frame (GstClBaseFilter * self, GstClFrame * in, GstClFrame * out,
    gboolean finish)
{
  GstClBaseFilterPrivate *priv = PRIV (self);
  gboolean first = !priv->first_done, ok;

  if (first)
    gst_cl_compile_gate_enter ();
  ok = GST_CL_BASE_FILTER_GET_CLASS (self)->process (self, in, out) &&
      (!finish || gst_cl_frame_finish (out));
  if (!first)
    return ok;
  gst_cl_compile_gate_leave ();
  priv->first_done = TRUE;
  if (priv->warmup) {
    clFinish (priv->context->queue);
    gst_cl_warmup_start (priv->warmup);
  }
  if (ok && priv->live && !gst_cl_context_is_gpu (priv->context))
    gst_cl_compile_gate_wait (GST_BASE_TRANSFORM_SINK_PAD (self),
        COMPILE_GATE_MAX_WAIT);
  return ok;
}

static GstFlowReturn
gst_cl_base_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClBaseFilter *self = GST_CL_BASE_FILTER (trans);
  GstClBaseFilterPrivate *priv = PRIV (self);
  GstClFrame in, out;
  gboolean ok;

  if (!gst_cl_frame_map (priv->in, priv->context, inbuf, &priv->in_info, &in))
    return GST_FLOW_ERROR;
  if (!gst_cl_frame_map (priv->out, priv->context, outbuf,
          priv->out_is_video ? &priv->out_info : NULL, &out)) {
    gst_cl_frame_unmap (&in);
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (self, "input %s, output %s", frame_path (&in),
      frame_path (&out));
  ok = process_frame (self, &in, &out, TRUE);
  /* device output: start the work now; nobody waits for it here. Host
   * output: finishing it drained the queue, the input is free too. */
  if (ok && out.on_device)
    clFlush (priv->context->queue);
  else if (ok)
    gst_cl_frame_set_queue_idle (&in);
  gst_cl_frame_unmap (&out);
  gst_cl_frame_unmap (&in);
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

GstFlowReturn
gst_cl_base_filter_transform_ip (GstClBaseFilter * self, GstBuffer * buf)
{
  GstClBaseFilterPrivate *priv = PRIV (self);
  GstClFrame in;
  gboolean ok;

  if (!gst_cl_frame_map (priv->in, priv->context, buf, &priv->in_info, &in))
    return GST_FLOW_ERROR;
  ok = process_frame (self, &in, NULL, FALSE);
  gst_cl_frame_unmap (&in);
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

gboolean
gst_cl_base_filter_process (GstClBaseFilter * self, GstClFrame * in,
    GstClFrame * out)
{
  return process_frame (self, in, out, FALSE);
}

gboolean
gst_cl_base_filter_map_in_place (GstClBaseFilter * self, GstBuffer * buf,
    GstClFrame * frame)
{
  GstClBaseFilterPrivate *priv = PRIV (self);

  return gst_cl_frame_map_in_place (priv->in, priv->context, buf,
      &priv->in_info, frame);
}

gboolean
gst_cl_base_filter_copy_plane (GstClBaseFilter * self, GstClFrame * in,
    GstClFrame * out, guint p)
{
  GstClBaseFilterPrivate *priv = PRIV (self);
  const GstVideoInfo *info = &priv->in_info;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gsize src_origin[3] = { in->offset[p], 0, 0 };
  gsize dst_origin[3] = { out->offset[p], 0, 0 };
  gsize region[3] = { gst_cl_plane_row_bytes (info, p), 0, 1 };
  cl_int err;

  gst_video_format_info_component (info->finfo, p, comp);
  region[1] = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
  err = clEnqueueCopyBufferRect (priv->context->queue, in->mem, out->mem,
      src_origin, dst_origin, region, in->stride[p], 0, out->stride[p], 0, 0,
      NULL, NULL);
  return gst_cl_base_filter_check (self, err, "clEnqueueCopyBufferRect",
      "Could not copy a plane on the OpenCL device");
}

static gboolean
gst_cl_base_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    /* answered with a reference taken under the lock, not while holding it */
    GstClContext *ctx = held_context (GST_ELEMENT_CAST (trans));
    gboolean answered = ctx && gst_cl_handle_context_query (GST_ELEMENT_CAST
        (trans), query, ctx);

    gst_clear_object (&ctx);
    if (answered)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_base_filter_parent_class)->query
      (trans, direction, query);
}

/* ---- GObject ---- */

static void
gst_cl_base_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClBaseFilterPrivate *priv = PRIV (object);

  switch (prop_id) {
    case PROP_DEVICE:{
      const gchar *device = g_value_get_string (value);
      GST_OBJECT_LOCK (object);
      g_free (priv->device);
      priv->device = g_strdup (device && *device ? device : DEFAULT_DEVICE);
      GST_OBJECT_UNLOCK (object);
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cl_base_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClBaseFilterPrivate *priv = PRIV (object);

  switch (prop_id) {
    case PROP_DEVICE:
      GST_OBJECT_LOCK (object);
      g_value_set_string (value, priv->device);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_DEVICE_NAME:
      GST_OBJECT_LOCK (object);
      g_value_set_string (value, priv->context ?
          priv->context->device_name : NULL);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_KERNEL_TIME:
      GST_OBJECT_LOCK (object);
      g_value_set_uint64 (value, priv->kernel_time);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cl_base_filter_finalize (GObject * object)
{
  GstClBaseFilterPrivate *priv = PRIV (object);

  g_free (priv->device);
  gst_cl_transfer_free (priv->in);
  gst_cl_transfer_free (priv->out);
  gst_cl_base_filter_drop_pool (priv);
  gst_clear_object (&priv->context);
  gst_clear_caps (&priv->failed_incaps);
  gst_clear_caps (&priv->failed_outcaps);
  G_OBJECT_CLASS (gst_cl_base_filter_parent_class)->finalize (object);
}

static void
gst_cl_base_filter_class_init (GstClBaseFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cl_base_filter_set_property;
  gobject_class->get_property = gst_cl_base_filter_get_property;
  gobject_class->finalize = gst_cl_base_filter_finalize;

  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "OpenCL device: \"auto\" (first GPU, else accelerator, else CPU; "
          "$" GST_CL_DEVICE_ENV " overrides it), \"gpu\", \"cpu\", "
          "\"accelerator\", \"PLATFORM:DEVICE\" indices as in `clinfo -l`, "
          "or part of a device name; alternatives separated by commas, the "
          "first that matches wins (\"gpu,cpu\")", DEFAULT_DEVICE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "Name of the OpenCL device in use (NULL until the element starts)",
          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_property (gobject_class, PROP_KERNEL_TIME,
      g_param_spec_uint64 ("kernel-time", "Kernel time",
          "Device time spent in kernels since start, in ns; counted only when "
          "GST_CL_PROFILE=1 is set (for benchmarks), else 0",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  element_class->set_context = gst_cl_base_filter_set_context;

  trans_class->start = gst_cl_base_filter_start;
  trans_class->stop = gst_cl_base_filter_stop;
  trans_class->set_caps = gst_cl_base_filter_set_caps;
  trans_class->before_transform = gst_cl_base_filter_before_transform;
  trans_class->query = gst_cl_base_filter_query;
  trans_class->transform = gst_cl_base_filter_transform;
  gst_cl_base_filter_negotiate_init (trans_class);

  gst_type_mark_as_plugin_api (GST_TYPE_CL_BASE_FILTER, 0);
}

static void
gst_cl_base_filter_init (GstClBaseFilter * self)
{
  GstClBaseFilterPrivate *priv = PRIV (self);

  priv->device = g_strdup (DEFAULT_DEVICE);
  priv->in = gst_cl_transfer_new (GST_ELEMENT_CAST (self), FALSE);
  /* READ_WRITE output: some kernels read back what an earlier pass wrote
   * to the output (clintegral's GPU column pass); reading WRITE_ONLY memory
   * is undefined in OpenCL 1.2 */
  priv->out = gst_cl_transfer_new (GST_ELEMENT_CAST (self), TRUE);
}
