/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer
 * clconvolve: 2-D convolution of video frames on OpenCL.
 */
/**
 * SECTION:element-clconvolve
 * @title: clconvolve
 *
 * Convolves video frames with a matrix of up to 31x31 coefficients on an
 * OpenCL device: a user matrix (#GstClConvolve:kernel) or a preset (box,
 * gaussian, sharpen, laplacian, sobel, emboss, edge, motion blur). Output
 * frames have the input caps. Alpha (and x padding) passes through; on YUV
 * formats luma is filtered and chroma copied unless #GstClConvolve:chroma
 * is `filter`. Separable matrices run as two 1-D passes. The identity
 * matrix makes the element passthrough.
 *
 * Results are rounded half away from zero and saturated; integer matrices
 * are exact, float matrices may differ by 1 from the exact result where it
 * lies within a small window of a .5 boundary (see docs/clconvolve.md).
 * Matrices the single-precision path cannot carry are refused with a
 * warning naming the valid range, keeping the previous matrix: coefficients
 * outside 1.2e-38..3.4e38 in magnitude (other than 0), a sum of
 * |coefficients| above about 5.2e33 (times 65535 it would overflow), and an
 * effective divisor outside 1.2e-38..8.5e37.
 *
 * Every property may change while PLAYING: a change applies from the next
 * buffer, and none builds a program or otherwise holds up the stream (the
 * programs a caps can need are built when the caps are set).
 *
 * The matrix may be given as integers or doubles, from gst-launch
 * (`kernel="<0,-1,0,-1,5,-1,0,-1,0>"`) or from bindings
 * (`Gst.ValueArray([0, -1, 0, ...])`); #GstClConvolve:kernel,
 * #GstClConvolve:kernel-width and #GstClConvolve:kernel-height may come in
 * any order (a square count needs no dimensions), and a matrix whose
 * dimensions never came is an error at caps time. QoS is on, as in
 * GStreamer's video filters: late frames are dropped.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! clconvolve preset=gaussian sigma=2 ! videoconvert ! autovideosink
 * ]| A blurred camera view.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8 ! clconvolve preset=sobel-x absolute=true ! pngenc ! filesink location=edges.png
 * ]| A sobel edge image written to a PNG.
 * |[
 * gst-launch-1.0 videotestsrc ! clconvolve kernel="<0,-1,0,-1,5,-1,0,-1,0>" border=mirror ! autovideosink
 * ]| A custom sharpening matrix.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstclconvolvepriv.h"
#include "gstclelements.h"

GST_DEBUG_CATEGORY (gst_cl_convolve_debug);

#define DEFAULT_PROP_PRESET GST_CL_CONVOLVE_PRESET_IDENTITY
/* see set_info: smallest separable matrix that takes two passes on a GPU */
#define GPU_SEPARABLE_MIN_SIZE 13
#define DEFAULT_PROP_KERNEL_WIDTH 0
#define DEFAULT_PROP_KERNEL_HEIGHT 0
#define DEFAULT_PROP_DIVISOR 0.0
#define DEFAULT_PROP_BIAS 0.0
#define DEFAULT_PROP_SIGMA 1.0
#define DEFAULT_PROP_RADIUS 0
#define DEFAULT_PROP_ABSOLUTE FALSE
#define DEFAULT_PROP_BORDER GST_CL_CONVOLVE_BORDER_CLAMP
#define DEFAULT_PROP_BORDER_VALUE 0
#define DEFAULT_PROP_CHROMA GST_CL_CONVOLVE_CHROMA_COPY

enum
{
  PROP_0,
  PROP_KERNEL,
  PROP_KERNEL_WIDTH,
  PROP_KERNEL_HEIGHT,
  PROP_DIVISOR,
  PROP_BIAS,
  PROP_PRESET,
  PROP_SIGMA,
  PROP_RADIUS,
  PROP_ABSOLUTE,
  PROP_BORDER,
  PROP_BORDER_VALUE,
  PROP_CHROMA,
};

G_DEFINE_TYPE (GstClConvolve, gst_cl_convolve, GST_TYPE_CL_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (clconvolve, "clconvolve", GST_RANK_NONE,
    GST_TYPE_CL_CONVOLVE);

#define FORMATS "{ GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, ARGB, ABGR, " \
    "RGBx, BGRx, xRGB, xBGR, I420, YV12, NV12, NV21, Y42B, Y444 }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_FILTER_CAPS (FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_FILTER_CAPS (FORMATS)));

static void gst_cl_convolve_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cl_convolve_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cl_convolve_finalize (GObject * object);
static gboolean gst_cl_convolve_set_info (GstClBaseFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);
static gboolean gst_cl_convolve_process (GstClBaseFilter * filter,
    GstClFrame * in, GstClFrame * out);
static gboolean gst_cl_convolve_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize);

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_CONTROLLABLE)
/* the matrix and its shape: an array is not interpolatable, and a shape
 * alone waits for coefficients */
#define MATRIX_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)

static void
gst_cl_convolve_class_init (GstClConvolveClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClBaseFilterClass *filter_class = GST_CL_BASE_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cl_convolve_set_property;
  gobject_class->get_property = gst_cl_convolve_get_property;
  gobject_class->finalize = gst_cl_convolve_finalize;

  g_object_class_install_property (gobject_class, PROP_KERNEL,
      gst_param_spec_array ("kernel", "Kernel",
          "Convolution matrix in row order, e.g. \"<0,-1,0,-1,5,-1,0,-1,0>\" "
          "(odd width and height 1..31; a square unless kernel-width/height "
          "say otherwise). Setting it selects preset=custom; reading it "
          "gives the matrix in effect (doubles). Any numbers are accepted, "
          "integers included; kernel, kernel-width and kernel-height may be "
          "set in any order",
          /* no element spec: one of doubles would reject the integers that
           * bindings and gst-launch produce for "<0,-1,0>" */
          NULL, MATRIX_FLAGS));
  g_object_class_install_property (gobject_class, PROP_KERNEL_WIDTH,
      g_param_spec_int ("kernel-width", "Kernel width",
          "Columns of the custom kernel (odd; 0 = from the coefficient count)",
          0, GST_CL_CONVOLVE_MAX_SIZE, DEFAULT_PROP_KERNEL_WIDTH,
          MATRIX_FLAGS));
  g_object_class_install_property (gobject_class, PROP_KERNEL_HEIGHT,
      g_param_spec_int ("kernel-height", "Kernel height",
          "Rows of the custom kernel (odd; 0 = from the coefficient count)",
          0, GST_CL_CONVOLVE_MAX_SIZE, DEFAULT_PROP_KERNEL_HEIGHT,
          MATRIX_FLAGS));
  g_object_class_install_property (gobject_class, PROP_DIVISOR,
      g_param_spec_double ("divisor", "Divisor",
          "The sum is divided by this (0 = the sum of the coefficients, or 1 "
          "when that sum is 0)", -G_MAXDOUBLE, G_MAXDOUBLE,
          DEFAULT_PROP_DIVISOR, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BIAS,
      g_param_spec_double ("bias", "Bias",
          "Added after the division (in sample units, e.g. 128 to show "
          "signed 8-bit results)", -G_MAXDOUBLE, G_MAXDOUBLE,
          DEFAULT_PROP_BIAS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset", "Matrix to use",
          gst_cl_convolve_preset_get_type (), DEFAULT_PROP_PRESET,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of the gaussian preset (pixels)", 0.1, 30.0,
          DEFAULT_PROP_SIGMA, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Radius of the box and gaussian presets (0 = 1 for box, "
          "ceil(3 sigma) for gaussian; at most 15)", 0, 15,
          DEFAULT_PROP_RADIUS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_ABSOLUTE,
      g_param_spec_boolean ("absolute", "Absolute",
          "Take the magnitude of the filtered value before adding the bias "
          "(edge magnitudes from sobel/laplacian)", DEFAULT_PROP_ABSOLUTE,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "How pixels outside the frame are made up",
          gst_cl_convolve_border_get_type (), DEFAULT_PROP_BORDER,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BORDER_VALUE,
      g_param_spec_uint ("border-value", "Border value",
          "Sample value outside the frame with border=constant (saturated "
          "to the format's range)", 0, 65535, DEFAULT_PROP_BORDER_VALUE,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CHROMA,
      g_param_spec_enum ("chroma", "Chroma",
          "YUV formats: copy chroma (filter luma only) or filter it too",
          gst_cl_convolve_chroma_get_type (), DEFAULT_PROP_CHROMA,
          PARAM_FLAGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "OpenCL convolve",
      "Filter/Effect/Video",
      "Convolves video frames with a matrix or preset on an OpenCL device",
      GST_CL_ELEMENT_AUTHOR);

  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cl_convolve_transform_size);
  trans_class->passthrough_on_same_caps = FALSE;
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cl_convolve_set_info);
  filter_class->reset = GST_DEBUG_FUNCPTR (gst_cl_convolve_reset);
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cl_convolve_process);

  gst_type_mark_as_plugin_api (gst_cl_convolve_preset_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_cl_convolve_border_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_cl_convolve_chroma_get_type (), 0);

  GST_DEBUG_CATEGORY_INIT (gst_cl_convolve_debug, "clconvolve", 0,
      "OpenCL convolution");
}

/* Recomputes the matrix in effect from the properties (object lock held).
 * On failure nothing changes and *@why says what is valid. */
static gboolean
rebuild_kernel (GstClConvolve * self, gchar ** why)
{
  GstClConvolveKernel *k = g_new0 (GstClConvolveKernel, 1);
  gboolean ok;

  if (self->preset == GST_CL_CONVOLVE_PRESET_CUSTOM) {
    ok = gst_cl_convolve_kernel_set_matrix (k,
        (const gdouble *) self->user_kernel->data, self->user_kernel->len,
        self->kernel_width, self->kernel_height, why);
  } else {
    ok = gst_cl_convolve_preset_matrix (self->preset, self->sigma,
        self->radius, k->coef, &k->width, &k->height);
  }
  ok = ok && gst_cl_convolve_kernel_derive (k, self->divisor, self->bias,
      self->absolute, why);
  if (ok) {
    g_free (self->kernel);
    self->kernel = k;
    self->generation++;
  } else {
    g_free (k);
  }
  return ok;
}

static void
gst_cl_convolve_init (GstClConvolve * self)
{
  gchar *why = NULL;

  self->preset = DEFAULT_PROP_PRESET;
  self->user_kernel = g_array_new (FALSE, FALSE, sizeof (gdouble));
  self->kernel_width = DEFAULT_PROP_KERNEL_WIDTH;
  self->kernel_height = DEFAULT_PROP_KERNEL_HEIGHT;
  self->divisor = DEFAULT_PROP_DIVISOR;
  self->bias = DEFAULT_PROP_BIAS;
  self->sigma = DEFAULT_PROP_SIGMA;
  self->radius = DEFAULT_PROP_RADIUS;
  self->absolute = DEFAULT_PROP_ABSOLUTE;
  self->border = DEFAULT_PROP_BORDER;
  self->border_value = DEFAULT_PROP_BORDER_VALUE;
  self->chroma = DEFAULT_PROP_CHROMA;
  self->frame_kernel = g_new0 (GstClConvolveKernel, 1);
  rebuild_kernel (self, &why);
  g_free (why);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
  /* like GstVideoFilter: late frames are dropped, not filtered */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cl_convolve_finalize (GObject * object)
{
  GstClConvolve *self = GST_CL_CONVOLVE (object);

  g_array_unref (self->user_kernel);
  g_free (self->kernel);
  g_free (self->frame_kernel);
  G_OBJECT_CLASS (gst_cl_convolve_parent_class)->finalize (object);
}

/* GstValueArray of numbers -> doubles; FALSE if an entry is not a number */
static gboolean
array_to_doubles (const GValue * value, GArray * out, gchar ** why)
{
  guint i, n = gst_value_array_get_size (value);

  g_array_set_size (out, 0);
  for (i = 0; i < n; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    GValue d = G_VALUE_INIT;
    gdouble c;

    g_value_init (&d, G_TYPE_DOUBLE);
    if (!g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE) ||
        !g_value_transform (v, &d)) {
      *why = g_strdup_printf ("coefficient %u is a %s, not a number", i,
          G_VALUE_TYPE_NAME (v));
      return FALSE;
    }
    c = g_value_get_double (&d);
    g_array_append_val (out, c);
  }
  return TRUE;
}

static void
gst_cl_convolve_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClConvolve *self = GST_CL_CONVOLVE (object);
  GArray *old_kernel = NULL;
  GstClConvolvePreset old_preset;
  gdouble old_double = 0;
  gboolean changed, identity, deferred = FALSE;
  gchar *why = NULL;

  GST_OBJECT_LOCK (self);
  old_preset = self->preset;
  switch (prop_id) {
    case PROP_KERNEL:
      old_kernel = self->user_kernel;
      self->user_kernel = g_array_new (FALSE, FALSE, sizeof (gdouble));
      if (!array_to_doubles (value, self->user_kernel, &why)) {
        changed = FALSE;
        goto done;
      }
      self->preset = GST_CL_CONVOLVE_PRESET_CUSTOM;
      /* kernel before kernel-width/height (any order works): a count that
       * some allowed shape holds waits for its dimensions */
      deferred = gst_cl_convolve_kernel_awaits_shape (self->user_kernel->len,
          self->kernel_width, self->kernel_height);
      break;
    case PROP_KERNEL_WIDTH:
      self->kernel_width = g_value_get_int (value);
      deferred = TRUE;
      break;
    case PROP_KERNEL_HEIGHT:
      self->kernel_height = g_value_get_int (value);
      deferred = TRUE;
      break;
    case PROP_DIVISOR:
      old_double = self->divisor;
      self->divisor = g_value_get_double (value);
      break;
    case PROP_BIAS:
      old_double = self->bias;
      self->bias = g_value_get_double (value);
      break;
    case PROP_PRESET:
      self->preset = g_value_get_enum (value);
      /* preset=custom before kernel=... (gst-launch sets them in order):
       * the matrix in effect stays until the coefficients come */
      deferred = self->preset == GST_CL_CONVOLVE_PRESET_CUSTOM &&
          self->user_kernel->len == 0;
      break;
    case PROP_SIGMA:
      self->sigma = g_value_get_double (value);
      break;
    case PROP_RADIUS:
      self->radius = g_value_get_int (value);
      break;
    case PROP_ABSOLUTE:
      self->absolute = g_value_get_boolean (value);
      break;
    case PROP_BORDER:
      self->border = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_BORDER_VALUE:
      self->border_value = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_CHROMA:
      self->chroma = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      return;
    default:
      GST_OBJECT_UNLOCK (self);
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
  }

  /* a matrix waiting for its dimensions cannot be rebuilt yet: other
   * values are kept for when it can (and checked then) */
  if (self->shape_pending && prop_id != PROP_KERNEL &&
      prop_id != PROP_KERNEL_WIDTH && prop_id != PROP_KERNEL_HEIGHT &&
      self->preset == GST_CL_CONVOLVE_PRESET_CUSTOM)
    deferred = TRUE;

  changed = rebuild_kernel (self, &why);
  if (prop_id == PROP_KERNEL || prop_id == PROP_KERNEL_WIDTH ||
      prop_id == PROP_KERNEL_HEIGHT)
    self->shape_pending = !changed && deferred &&
        self->preset == GST_CL_CONVOLVE_PRESET_CUSTOM;
  else if (changed)
    self->shape_pending = FALSE;
  if (!changed && !deferred) {
    /* keep the previous value of what was set */
    self->preset = old_preset;
    if (prop_id == PROP_KERNEL) {
      g_array_unref (self->user_kernel);
      self->user_kernel = old_kernel;
      old_kernel = NULL;
    } else if (prop_id == PROP_DIVISOR) {
      self->divisor = old_double;
    } else if (prop_id == PROP_BIAS) {
      self->bias = old_double;
    }
  }

done:
  if (!changed && !deferred && prop_id == PROP_KERNEL && old_kernel) {
    g_array_unref (self->user_kernel);
    self->user_kernel = old_kernel;
    self->preset = old_preset;
    old_kernel = NULL;
  }
  identity = self->kernel->identity;
  GST_OBJECT_UNLOCK (self);

  if (old_kernel)
    g_array_unref (old_kernel);
  if (!changed && deferred) {
    /* kernel, width and height may come in any order */
    GST_INFO_OBJECT (self, "%s set; the kernel in effect is kept until the "
        "coefficients match: %s", pspec->name, why);
  } else if (!changed) {
    g_warning ("clconvolve %s: invalid %s, keeping the previous kernel: %s",
        GST_OBJECT_NAME (self), pspec->name, why);
  }
  g_free (why);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), identity);
}

static void
gst_cl_convolve_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClConvolve *self = GST_CL_CONVOLVE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:{
      gint i, n = self->kernel->width * self->kernel->height;
      GValue v = G_VALUE_INIT;

      g_value_init (&v, G_TYPE_DOUBLE);
      for (i = 0; i < n; i++) {
        g_value_set_double (&v, self->kernel->coef[i]);
        gst_value_array_append_value (value, &v);
      }
      g_value_unset (&v);
      break;
    }
    case PROP_KERNEL_WIDTH:
      g_value_set_int (value, self->kernel_width);
      break;
    case PROP_KERNEL_HEIGHT:
      g_value_set_int (value, self->kernel_height);
      break;
    case PROP_DIVISOR:
      g_value_set_double (value, self->divisor);
      break;
    case PROP_BIAS:
      g_value_set_double (value, self->bias);
      break;
    case PROP_PRESET:
      g_value_set_enum (value, self->preset);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, self->sigma);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, self->radius);
      break;
    case PROP_ABSOLUTE:
      g_value_set_boolean (value, self->absolute);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, self->border);
      break;
    case PROP_BORDER_VALUE:
      g_value_set_uint (value, self->border_value);
      break;
    case PROP_CHROMA:
      g_value_set_enum (value, self->chroma);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- streaming ---- */

/* Output buffers made without a pool hold a frame of the output caps'
 * default layout, whatever the input's strides (the default would copy the
 * input's size, too small when its rows are padded differently) */
static gboolean
gst_cl_convolve_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = info.size;
  return TRUE;
}

/* also on a failed kernel creation (gst_cl_convolve_get_kernels) */
void
gst_cl_convolve_reset (GstClBaseFilter * filter)
{
  GstClConvolve *self = GST_CL_CONVOLVE (filter);
  cl_kernel *kernels = (cl_kernel *) self->kernels;
  const guint n_kernels = G_N_ELEMENTS (self->kernels) *
      (sizeof (ConvKernels) / sizeof (cl_kernel));
  cl_mem *mems[] = { &self->taps2d, &self->taps_row, &self->taps_col,
    &self->coef_sq, &self->tmp
  };
  guint i;

  /* (the base class joined a warm-up in progress and dropped the rest
   * before this) */
  self->warmup = NULL;
  memset (self->warm_job, 0, sizeof (self->warm_job));
  g_clear_pointer (&self->px_variants, g_ptr_array_unref);
  self->frame_px[0] = self->frame_px[1] = NULL;
  if (self->first)
    clReleaseKernel (self->first);
  self->first = NULL;
  self->first_frames = 0;
  for (i = 0; i < n_kernels; i++)
    if (kernels[i])
      clReleaseKernel (kernels[i]);
  memset (self->kernels, 0, sizeof (self->kernels));
  for (i = 0; i < G_N_ELEMENTS (mems); i++) {
    if (*mems[i])
      clReleaseMemObject (*mems[i]);
    *mems[i] = NULL;
  }
  self->tmp_size = 0;
  self->frame_generation = 0;
}

static cl_mem
new_taps (GstClConvolve * self, GstClContext * ctx, gsize n)
{
  cl_int err;
  cl_mem mem = clCreateBuffer (ctx->context, CL_MEM_READ_ONLY,
      n * sizeof (cl_int4), NULL, &err);

  if (!gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
          "clCreateBuffer", "Could not allocate the convolution matrix"))
    return NULL;
  return mem;
}

/* sep_fixed's colour path (FIXED_COLOUR in
 * kernels/convolve-cpu-fixed-colour.cl) for the host CPU, which PoCL's and
 * other CPU devices run on: 1 where it has AVX-512 VBMI (byte permutes across
 * the vector; a function attribute in the kernel, since PoCL's LLVM may name an
 * older CPU model), 2 where it has AVX2 (shuffles within 16-byte lanes: 1080p
 * RGBA gaussian 3x3 18%, 7x7 5% less time than filtering the pass-through byte
 * too), else 0 */
static gint
host_colour_path (void)
{
#if defined (__GNUC__) && (defined (__x86_64__) || defined (__i386__))
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx512vbmi"))
    return 1;
  if (__builtin_cpu_supports ("avx2"))
    return 2;
#endif
  return 0;
}

/* A kernel whose kernel-width/height never came (or disagree with it) is an
 * error once frames are to flow, not a silent passthrough */
static gboolean
check_shape_complete (GstClConvolve * self)
{
  gchar *why = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  if (self->shape_pending) {
    ok = rebuild_kernel (self, &why);
    self->shape_pending = !ok;
  }
  GST_OBJECT_UNLOCK (self);
  if (!ok) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("The kernel property does "
            "not match kernel-width and kernel-height: %s", why), (NULL));
    g_free (why);
  }
  return ok;
}

static gboolean
gst_cl_convolve_set_info (GstClBaseFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstClConvolve *self = GST_CL_CONVOLVE (filter);
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  const GstVideoFormatInfo *f = in_info->finfo;
  const gchar *env;
  gboolean separable, passthrough, live, first, box_start;
  gint arith;
  guint p;

  if (!check_shape_complete (self))
    return FALSE;

  self->depth16 = GST_VIDEO_FORMAT_INFO_DEPTH (f, 0) > 8;
  self->n_planes = GST_VIDEO_INFO_N_PLANES (in_info);
  for (p = 0; p < self->n_planes; p++) {
    ConvPlane *pl = &self->planes[p];
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (f, p, comp);
    pl->width = GST_VIDEO_INFO_COMP_WIDTH (in_info, comp[0]);
    pl->height = GST_VIDEO_INFO_COMP_HEIGHT (in_info, comp[0]);
    pl->ch = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, comp[0]) /
        (self->depth16 ? 2 : 1);
    pl->chroma = GST_VIDEO_FORMAT_INFO_IS_YUV (f) && comp[0] != 0;
    pl->alpha_pos = -1;
    if (GST_VIDEO_FORMAT_INFO_IS_RGB (f) && pl->ch == 4) {
      /* the alpha byte, or the x byte: the one R, G and B leave */
      pl->alpha_pos = GST_VIDEO_FORMAT_INFO_HAS_ALPHA (f) ?
          GST_VIDEO_FORMAT_INFO_POFFSET (f, GST_VIDEO_COMP_A) :
          6 - GST_VIDEO_FORMAT_INFO_POFFSET (f, 0) -
          GST_VIDEO_FORMAT_INFO_POFFSET (f, 1) -
          GST_VIDEO_FORMAT_INFO_POFFSET (f, 2);
    }
  }

  /* local-memory tiles where local memory is real; a CPU device gets the
   * strip kernels */
  env = g_getenv (GST_CL_CONVOLVE_VARIANT_ENV);
  self->use_tile = ctx->local_mem_is_dedicated && gst_cl_context_is_gpu (ctx);
  if (env && g_str_equal (env, "gpu"))
    self->use_tile = TRUE;
  else if (env && g_str_equal (env, "cpu"))
    self->use_tile = FALSE;
  self->use_tile = self->use_tile && ctx->max_work_group_size >= 256;
  gst_cl_convolve_px_config (self);
  self->fixed_ok = (ctx->device_type & CL_DEVICE_TYPE_CPU) != 0;
  self->fixed_colour = self->fixed_ok ? host_colour_path () : 0;
  /* On GPUs the one-pass 2-D kernels beat two passes through global memory
   * up to 11x11, where the register kernel stops (H200, 1080p RGBA, end to
   * end: 9x9 0.46 ms against 0.98 ms, 11x11 0.48 against 1.11); from 13x13
   * the two passes win (1.21 against 1.28 ms). On CPU devices the fused
   * separable kernel always wins. */
  env = g_getenv (GST_CL_CONVOLVE_SEPARABLE_ENV);
  if (env && g_str_equal (env, "0"))
    self->separable_min = G_MAXINT;
  else if ((env && g_str_equal (env, "1")) || !self->use_tile)
    self->separable_min = 1;
  else
    self->separable_min = GPU_SEPARABLE_MIN_SIZE;
  GST_INFO_OBJECT (self, "%s kernels, separable path from size %d",
      self->use_tile ? "local-memory tile" : "strip", self->separable_min);

  self->taps2d = new_taps (self, ctx, GST_CL_CONVOLVE_MAX_TAPS);
  self->taps_row = new_taps (self, ctx, GST_CL_CONVOLVE_MAX_SIZE);
  self->taps_col = new_taps (self, ctx, GST_CL_CONVOLVE_MAX_SIZE);
  /* (2 * REG_MAX_R + 1)^2 = 121 floats or ints, in units of cl_int4 */
  self->coef_sq = new_taps (self, ctx, 31);
  self->frame_generation = 0;
  if (!self->taps2d || !self->taps_row || !self->taps_col || !self->coef_sq)
    return FALSE;

  /* The first frame waits only for what the current settings use (one
   * program; on PoCL one kernel's first-launch compile, none while
   * passthrough). A change of matrix, divisor or bias on a running stream
   * may switch arithmetic or kernel, and a program build or compile (0.3-1
   * s on PoCL) must never hold up a frame: the other paths are prepared on
   * a worker thread meanwhile. The border mode is a kernel argument. */
  GST_OBJECT_LOCK (self);
  arith = gst_cl_convolve_path_arith (self, self->kernel);
  separable = gst_cl_convolve_takes_separable_path (self, self->kernel);
  self->exact16_start = !gst_cl_convolve_fits_exact16 (self, self->kernel)
      || self->kernel->identity ? 0 : separable ? EXACT16_SEP : EXACT16_2D;
  box_start = self->kernel->box;
  self->exact16_ready = 0;
  self->exact16_job = self->exact16_all_job = 0;
  GST_OBJECT_UNLOCK (self);
  passthrough = gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (self));
  live = gst_cl_base_filter_upstream_is_live (filter);
  self->integer_fixed = self->exact16_start || !live;
  self->integer_box = box_start || !live;
  /* A non-live stream starts on conv2d_first, whose program and compile
   * are cheaper than the current path's (PoCL: 0.25-0.35 s less in all;
   * a GPU builds the whole program of the path: seconds), which the
   * worker prepares meanwhile */
  env = g_getenv (FIRST_ENV);
  self->first_only = env && g_str_equal (env, "only") && !self->use_tile;
  GST_OBJECT_LOCK (self);
  first = !passthrough && (self->first_only || (!live &&
          !(env && g_str_equal (env, "off")) &&
          gst_cl_convolve_first_pays_off (self, self->kernel)));
  GST_OBJECT_UNLOCK (self);
  if (first && !gst_cl_convolve_ensure_first (self, arith == ARITH_INTEGER))
    return FALSE;
  if (!first && !gst_cl_convolve_get_kernels (self, arith == ARITH_INTEGER))
    return FALSE;
  if (!first && !self->use_tile && !passthrough &&
      !gst_cl_convolve_warm_up_now (self, arith, separable))
    return FALSE;
  if (!first && !passthrough)
    self->exact16_ready = self->exact16_start;
  if (self->exact16_ready)
    GST_INFO_OBJECT (self, "%s for exact sums ready", separable ?
        "sep_fixed" : "conv2d_fixed");
  /* the worker starts after the first frame (the base class starts it), so
   * that a one-frame pipeline has stopped before it would begin a build;
   * with conv2d_first the current path comes first */
  if (!self->first_only)
    gst_cl_convolve_warm_up_in_background (self, arith,
        passthrough ? -1 : separable, first);
  if (self->warmup && first && self->exact16_start)
    self->exact16_job = self->warm_job[ARITH_INTEGER][separable ? 1 : 0];
  if (self->warmup && !live && self->exact16_ready != EXACT16_BOTH &&
      gst_cl_convolve_program_has_fixed (self, TRUE))
    self->exact16_all_job = gst_cl_convolve_add_warm_job (self,
        ARITH_INTEGER, EXACT16_JOB);
  GST_DEBUG_OBJECT (self, "exact sums: from the start %u, ready %u, jobs %u "
      "%u", self->exact16_start, self->exact16_ready, self->exact16_job,
      self->exact16_all_job);
  /* PoCL holds every kernel launch of the process while any thread
   * compiles, so on a live stream the background work would stall frames
   * early on, and a change made before it ends would wait for it. A live
   * stream therefore pays it all before its first frame and never stalls
   * afterwards; other streams get their first frame as soon as possible. */
  if (self->warmup && live)
    gst_cl_warmup_wait_all (self->warmup);
  return TRUE;
}

static gboolean
gst_cl_convolve_process (GstClBaseFilter * filter, GstClFrame * in,
    GstClFrame * out)
{
  GstClConvolve *self = GST_CL_CONVOLVE (filter);
  GstClConvolveBorder border;
  GstClConvolveChroma chroma;
  ConvKernels *ks;
  gboolean changed = FALSE, ok = TRUE;
  cl_int bval;
  guint p;

  /* the matrix in effect for this whole frame */
  GST_OBJECT_LOCK (self);
  if (self->frame_generation != self->generation) {
    *self->frame_kernel = *self->kernel;
    self->frame_generation = self->generation;
    changed = TRUE;
  }
  border = self->border;
  bval = MIN (self->border_value, self->depth16 ? 65535 : 255);
  chroma = self->chroma;
  GST_OBJECT_UNLOCK (self);

  /* the 16-bit kernels of exact sums, once their jobs are done */
  gst_cl_convolve_exact16_jobs_done (self);
  if (changed && !gst_cl_convolve_upload_taps (self))
    return FALSE;
  if (changed && self->first)
    self->first_fits = gst_cl_convolve_first_pays_off (self,
        self->frame_kernel);
  if (gst_cl_convolve_first_serves_frame (self))
    return gst_cl_convolve_filter_frame_first (self, in, out, bval, border,
        chroma);
  gst_cl_convolve_wait_for_path (self, self->frame_kernel);
  ks = gst_cl_convolve_get_kernels (self, self->frame_kernel->integer);
  if (!ks)
    return FALSE;
  gst_cl_convolve_px_select (self, chroma);

  for (p = 0; p < self->n_planes && ok; p++) {
    const ConvPlane *pl = &self->planes[p];

    if (pl->chroma && chroma == GST_CL_CONVOLVE_CHROMA_COPY)
      ok = gst_cl_base_filter_copy_plane (filter, in, out, p);
    else
      ok = gst_cl_convolve_filter_plane (self, ks, pl, p, in, out, bval,
          border);
  }
  return ok;
}
