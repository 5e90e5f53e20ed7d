/* GStreamer OpenCL integral images
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-clintegral
 * @title: clintegral
 *
 * Computes the integral image (summed-area table) of every frame on an
 * OpenCL device. With `output=integral` (default) the source pad carries
 * `video/x-integral-image` buffers: (W+1) x (H+1) elements per plane, zero
 * first row and column, channels interleaved, a sum plane optionally
 * followed by a sum-of-squares and a non-zero-count plane (see
 * docs/clintegral.md for the exact layout). With `output=box-mean` it emits
 * frames of the input format where each pixel is the mean of the
 * (2r+1) x (2r+1) window around it, at a cost independent of the radius.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! clintegral ! \
 *     video/x-integral-image,format=U64 ! fakesink
 * gst-launch-1.0 videotestsrc ! clintegral planes=sum+sqsum format=u64 ! \
 *     fakesink
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! \
 *     clintegral output=box-mean radius=7 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclintegral.h"
#include "gstclintegralcaps.h"
#include "gstclelements.h"
#include "gstclpool.h"
#include "gstclwarmup.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_integral_debug);
#define GST_CAT_DEFAULT gst_cl_integral_debug

#define DEFAULT_PROP_OUTPUT GST_CL_INTEGRAL_OUTPUT_INTEGRAL
#define DEFAULT_PROP_FORMAT GST_CL_INTEGRAL_FORMAT_U32
#define DEFAULT_PROP_PLANES GST_CL_INTEGRAL_PLANES_SUM
#define DEFAULT_PROP_RADIUS 1
#define MAX_RADIUS 65535

/* "cpu" or "gpu": forces a kernel variant (tests run the GPU one on PoCL);
 * "cpu" also waits for the warm-up, as a live stream does, so every frame
 * runs the fast CPU kernels; "cpu-first": only the first-frame ones;
 * "wait": the device's variant, waiting for the warm-up (benchmarks) */
#define VARIANT_ENV "GST_CL_INTEGRAL_VARIANT"
/* CPU scratch: bytes of cpu_integral's region words (one 64-byte line per
 * band), zeroed once, before its rows (integral.cl) */
#define CPU_HEAD 1024
/* GPU: gpu_strip_scan's bands of strips; the strip kernels' work-group
 * size; rows per strip (also for 3-channel 64-bit sums: 16 beat 8 at 4K
 * on an H200, docs/performance.md) */
#define GPU_SCAN_BANDS 8
#define GPU_STRIP_WG 64
#define GPU_STRIP_ROWS 16
#define GPU_STRIP_PIXELS (GPU_STRIP_WG * 4)     /* TW = WG * K in integral.cl */
/* benchmarks only: rows per strip, 2 .. GPU_STRIP_WG; "N,M": M for
 * 3-channel 64-bit sums and 3-channel sum + squares programs (at most
 * GPU_STRIP_WG / 2) */
#define STRIP_ROWS_ENV "GST_CL_INTEGRAL_STRIP_ROWS"
/* "lookback": the one-launch GPU kernel (gpu_lookback_integral) instead
 * of the three strip kernels; measured slower on an H200 (see
 * docs/performance.md), so for benchmarks and its tests only */
#define GPU_PASSES_ENV "GST_CL_INTEGRAL_GPU"
/* benchmarks only, wrong results: the strip kernels' launches to leave out
 * (bit 0: gpu_strip_sums, 1: gpu_strip_scan, 2: gpu_strip_integral), to
 * time each launch alone */
#define SKIP_ENV "GST_CL_INTEGRAL_SKIP"
/* benchmarks and tests: the cost of a row added up above a CPU band, as a
 * share of a scanned row, that the bands are planned with (below 1;
 * ADD_ROW_COST; 0 for the box mean): skews the split where the groups of
 * cpu_integral and cpu_box_mean start */
#define ROW_COST_ENV "GST_CL_INTEGRAL_ROW_COST"
/* tests: "reverse" gives the bands of cpu_integral (8-bit gray) and
 * cpu_box_mean to their work-groups bottom-up, so that a group that runs
 * alone (PoCL's threads often run them one after the other) scans most of
 * the frame upwards */
#define CPU_ORDER_ENV "GST_CL_INTEGRAL_CPU_ORDER"
/* "0": the GPU kernels' local partial sums as 16-byte V (ACC) values, as
 * before they were packed (for comparisons) */
#define PACKED_ENV "GST_CL_INTEGRAL_PACKED"
/* rows per tile of the one-pass kernel (at most GPU_STRIP_WG: one work-item
 * per row looks back), walked GPU_STRIP_ROWS at a time: the fastest of 8,
 * 16, 32, 64 on an H200; TILE_ROWS_ENV overrides it (1 .. GPU_STRIP_WG) */
#define GPU_TILE_ROWS 32
#define TILE_ROWS_ENV "GST_CL_INTEGRAL_TILE_ROWS"
/* GPU box mean: box_mean_tile (one launch, no integral image) for radii up
 * to BOX_TILE_MAX_RADIUS (BT_R in integral.cl): work-groups of as many
 * columns (apron included) as the kernel's reqd_work_group_size (BT_WG,
 * read from the compiled kernel) by BOX_TILE_H rows (BT_H); larger radii,
 * a device short of the kernel's work-items or local memory, 4-byte pixels
 * not 4-byte aligned, or BOX_ENV "integral" (tests, comparisons) take the
 * integral image and box_mean */
#define BOX_TILE_MAX_RADIUS 32
#define BOX_TILE_H 16
#define BOX_ENV "GST_CL_INTEGRAL_BOX"
/* GPU strip kernels: sum and squares planes come from one program (PAIR in
 * integral.cl: three launches and one frame read each, not six); "0" builds
 * one program per plane instead (for comparisons) */
#define PAIR_ENV "GST_CL_INTEGRAL_PAIR"

enum
{
  PROP_0,
  PROP_OUTPUT,
  PROP_FORMAT,
  PROP_PLANES,
  PROP_RADIUS,
};

typedef struct
{
  cl_program program;
  cl_kernel k1;                 /* gpu_lookback_integral or gpu_strip_sums,
                                 * or the CPU's first-frame kernel */
  cl_kernel k2;                 /* gpu_strip_scan (CPU: NULL) */
  cl_kernel k3;                 /* gpu_strip_integral (CPU: NULL) */
  cl_kernel fast;               /* CPU: its kernel once the warm-up compiled it */
  cl_mem accrow;                /* scratch: CPU bands' rows, GPU strip sums
                                 * or look-back status words */
  gint strip_rows;              /* GPU: SH */
  gint tile_rows;               /* GPU one-pass: TH */
  gboolean pair;                /* GPU strips: also the squares plane */
  guint64 offset2;              /* bytes, the squares plane's with pair */
  guint epoch;                  /* the last frame's: GPU one-pass 1..2^30-1,
                                 * CPU 1..255 (the CPU kernels' claims) */
  guint64 offset;               /* bytes, in the output */
} IntegralPlane;

struct _GstClIntegral
{
  GstClBaseFilter parent;

  /* properties, under the object lock */
  GstClIntegralOutput output;
  GstClIntegralFormat format;
  guint planes;
  guint radius;

  /* set_info .. reset, streaming thread */
  gboolean gpu;
  gboolean one_pass;            /* GPU: gpu_lookback_integral */
  gboolean reverse;             /* CPU_ORDER_ENV */
  guint skip;                   /* SKIP_ENV */
  gint width, height, channels;
  guint n_planes;
  IntegralPlane plane[GST_CL_INTEGRAL_MAX_PLANES];
  gsize out_size;
  guint n_bands;
  cl_int16 band_start;          /* CPU: first row of band b, then height */
  gint fast_ready;              /* atomic: every plane's fast kernel compiled */
  gboolean box_mean;
  cl_kernel box_kernel;
  cl_kernel box_tile;           /* GPU: box_mean_tile, NULL: not used */
  gsize box_tile_wg;            /* its work-group: columns of a tile */
  cl_mem box_ii;
  gint box_pstride;             /* bytes per pixel of plane 0 */
};

#define SINK_FORMATS "{ GRAY8, GRAY16_LE, I420, YV12, NV12, NV21, Y42B, " \
    "Y444, RGB, BGR, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR }"
#define INTEGRAL_FIELDS "format = (string) { U32, U64, F32, F64 }, " \
    "width = " GST_VIDEO_SIZE_RANGE ", height = " GST_VIDEO_SIZE_RANGE ", " \
    "framerate = " GST_VIDEO_FPS_RANGE ", channels = (int) { 1, 3 }, " \
    "planes = (string) { sum, \"sum,sqsum\", \"sum,count\", " \
    "\"sum,sqsum,count\" }"
#define INTEGRAL_CAPS GST_CL_INTEGRAL_MEDIA_TYPE ", " INTEGRAL_FIELDS
#define INTEGRAL_CL_CAPS GST_CL_INTEGRAL_MEDIA_TYPE "(" \
    GST_CAPS_FEATURE_MEMORY_CL_MEMORY "), " INTEGRAL_FIELDS

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CL_FILTER_CAPS (SINK_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (INTEGRAL_CAPS "; " INTEGRAL_CL_CAPS "; "
        GST_CL_FILTER_CAPS (SINK_FORMATS)));

#define GST_TYPE_CL_INTEGRAL_OUTPUT (gst_cl_integral_output_get_type ())
static GType
gst_cl_integral_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_INTEGRAL_OUTPUT_INTEGRAL, "Integral image (" GST_CL_INTEGRAL_MEDIA_TYPE
          ")", "integral"},
    {GST_CL_INTEGRAL_OUTPUT_BOX_MEAN, "Box-filtered frames (input format)",
        "box-mean"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClIntegralOutput",
            values));
  return type;
}

#define GST_TYPE_CL_INTEGRAL_FORMAT (gst_cl_integral_format_get_type ())
static GType
gst_cl_integral_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_INTEGRAL_FORMAT_U32, "32-bit unsigned, wraps modulo 2^32", "u32"},
    {GST_CL_INTEGRAL_FORMAT_U64, "64-bit unsigned", "u64"},
    {GST_CL_INTEGRAL_FORMAT_F32, "32-bit float (exact up to 2^24)", "f32"},
    {GST_CL_INTEGRAL_FORMAT_F64, "64-bit float (exact up to 2^53)", "f64"},
    /* the upper-case nicks of earlier releases (and of the caps' format
     * field) stay accepted; values resolve to the lower-case nick first */
    {GST_CL_INTEGRAL_FORMAT_U32, "Alias of u32", "U32"},
    {GST_CL_INTEGRAL_FORMAT_U64, "Alias of u64", "U64"},
    {GST_CL_INTEGRAL_FORMAT_F32, "Alias of f32", "F32"},
    {GST_CL_INTEGRAL_FORMAT_F64, "Alias of f64", "F64"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClIntegralFormat",
            values));
  return type;
}

#define GST_TYPE_CL_INTEGRAL_PLANES (gst_cl_integral_planes_get_type ())
static GType
gst_cl_integral_planes_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {GST_CL_INTEGRAL_PLANES_SUM, "Sum (always present)", "sum"},
    {GST_CL_INTEGRAL_PLANES_SQSUM, "Sum of squares (U64 or F64)", "sqsum"},
    {GST_CL_INTEGRAL_PLANES_COUNT, "Count of non-zero samples", "count"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_flags_register_static ("GstClIntegralPlanes",
            values));
  return type;
}

#define gst_cl_integral_parent_class parent_class
G_DEFINE_TYPE (GstClIntegral, gst_cl_integral, GST_TYPE_CL_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (clintegral, "clintegral", GST_RANK_NONE,
    GST_TYPE_CL_INTEGRAL);

static void gst_cl_integral_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cl_integral_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstCaps *gst_cl_integral_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static GstCaps *gst_cl_integral_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
static gboolean gst_cl_integral_get_unit_size (GstBaseTransform * trans,
    GstCaps * caps, gsize * size);
static gboolean gst_cl_integral_process (GstClBaseFilter * base,
    GstClFrame * in, GstClFrame * out);
static gboolean gst_cl_integral_set_info (GstClBaseFilter * base,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);
static void gst_cl_integral_reset (GstClBaseFilter * base);

static void
gst_cl_integral_class_init (GstClIntegralClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClBaseFilterClass *filter_class = GST_CL_BASE_FILTER_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_cl_integral_debug, "clintegral", 0,
      "OpenCL integral images");

  gobject_class->set_property = gst_cl_integral_set_property;
  gobject_class->get_property = gst_cl_integral_get_property;

  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output",
          "What the source pad carries: the integral image ("
          GST_CL_INTEGRAL_MEDIA_TYPE ") or box-mean filtered frames",
          GST_TYPE_CL_INTEGRAL_OUTPUT, DEFAULT_PROP_OUTPUT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format",
          "Preferred element type of the sum and count planes when downstream "
          "accepts several (caps decide otherwise)",
          GST_TYPE_CL_INTEGRAL_FORMAT, DEFAULT_PROP_FORMAT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PLANES,
      g_param_spec_flags ("planes", "Planes",
          "Preferred planes of the integral image, in buffer order sum, "
          "sqsum, count; must include sum (caps decide when downstream "
          "restricts them)", GST_TYPE_CL_INTEGRAL_PLANES, DEFAULT_PROP_PLANES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Box-mean window radius r: windows are (2r+1) x (2r+1), clipped at "
          "the frame borders", 0, MAX_RADIUS, DEFAULT_PROP_RADIUS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_CONTROLLABLE));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "OpenCL integral image", "Filter/Analyzer/Video",
      "Integral images (summed-area tables) and box means on OpenCL",
      GST_CL_ELEMENT_AUTHOR);

  trans_class->transform_caps = gst_cl_integral_transform_caps;
  trans_class->fixate_caps = gst_cl_integral_fixate_caps;
  trans_class->get_unit_size = gst_cl_integral_get_unit_size;
  trans_class->passthrough_on_same_caps = FALSE;

  filter_class->set_info = gst_cl_integral_set_info;
  filter_class->reset = gst_cl_integral_reset;
  filter_class->process = gst_cl_integral_process;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_INTEGRAL_OUTPUT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_INTEGRAL_FORMAT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_INTEGRAL_PLANES, 0);
}

static void
gst_cl_integral_init (GstClIntegral * self)
{
  self->output = DEFAULT_PROP_OUTPUT;
  self->format = DEFAULT_PROP_FORMAT;
  self->planes = DEFAULT_PROP_PLANES;
  self->radius = DEFAULT_PROP_RADIUS;
  /* like GstVideoFilter: late frames are dropped, not filtered */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cl_integral_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClIntegral *self = GST_CL_INTEGRAL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_OUTPUT:
      self->output = g_value_get_enum (value);
      break;
    case PROP_FORMAT:
      self->format = g_value_get_enum (value);
      break;
    case PROP_PLANES:{
      guint planes = g_value_get_flags (value);
      if (!(planes & GST_CL_INTEGRAL_PLANES_SUM)) {
        g_warning ("clintegral: planes must include \"sum\" (valid: sum, "
            "sum+sqsum, sum+count, sum+sqsum+count); keeping the previous "
            "value");
        break;
      }
      self->planes = planes;
      break;
    }
    case PROP_RADIUS:
      self->radius = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_integral_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClIntegral *self = GST_CL_INTEGRAL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_OUTPUT:
      g_value_set_enum (value, self->output);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_PLANES:
      g_value_set_flags (value, self->planes);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, self->radius);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GstCaps *
gst_cl_integral_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstClIntegral *self = GST_CL_INTEGRAL (trans);
  GstCaps *ret, *tmpl;
  GstClIntegralFormat format;
  gboolean integral;
  guint planes;

  GST_OBJECT_LOCK (self);
  integral = self->output == GST_CL_INTEGRAL_OUTPUT_INTEGRAL;
  format = self->format;
  planes = self->planes;
  GST_OBJECT_UNLOCK (self);

  ret = gst_cl_integral_caps_transform (direction, caps, integral, format,
      planes);

  /* in system memory and in memory:OpenCL; then only what our templates
   * can carry */
  ret = gst_cl_base_filter_any_memory (ret);
  tmpl = gst_pad_get_pad_template_caps (direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans));
  {
    GstCaps *tmp = gst_caps_intersect_full (ret, tmpl,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  gst_caps_unref (tmpl);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
  return ret;
}

static GstCaps *
gst_cl_integral_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstClIntegral *self = GST_CL_INTEGRAL (trans);
  GstStructure *s;
  GstClIntegralFormat format;
  guint planes;

  othercaps = gst_cl_base_filter_fixate_memory (trans, direction, othercaps);
  othercaps = gst_caps_truncate (othercaps);
  othercaps = gst_caps_make_writable (othercaps);
  s = gst_caps_get_structure (othercaps, 0);
  if (gst_structure_has_name (s, GST_CL_INTEGRAL_MEDIA_TYPE)) {
    GST_OBJECT_LOCK (self);
    format = self->format;
    planes = self->planes;
    GST_OBJECT_UNLOCK (self);
    /* the properties are preferences: fall back to what downstream allows */
    gst_structure_fixate_field_string (s, "format",
        gst_cl_integral_format_name (format));
    gst_structure_fixate_field_string (s, "planes",
        gst_cl_integral_planes_name (planes));
  } else if (direction == GST_PAD_SINK) {
    /* box-mean: same frames as the input */
    GstStructure *in = gst_caps_get_structure (caps, 0);
    const gchar *f = gst_structure_get_string (in, "format");
    gint w, h;

    if (f)
      gst_structure_fixate_field_string (s, "format", f);
    if (gst_structure_get_int (in, "width", &w))
      gst_structure_fixate_field_nearest_int (s, "width", w);
    if (gst_structure_get_int (in, "height", &h))
      gst_structure_fixate_field_nearest_int (s, "height", h);
  }
  return gst_caps_fixate (othercaps);
}

static gboolean
gst_cl_integral_get_unit_size (GstBaseTransform * trans, GstCaps * caps,
    gsize * size)
{
  GstVideoInfo info;
  gint w, h, ch;
  GstClIntegralFormat f;
  guint planes;

  if (gst_cl_integral_parse_caps (caps, &w, &h, &ch, &f, &planes)) {
    guint64 total;
    if (!gst_cl_integral_layout (w, h, ch, f, planes, NULL, &total) ||
        total > G_MAXSIZE)
      return FALSE;
    *size = total;
    return TRUE;
  }
  if (gst_video_info_from_caps (&info, caps)) {
    *size = GST_VIDEO_INFO_SIZE (&info);
    return TRUE;
  }
  GST_WARNING_OBJECT (trans, "cannot size buffers of %" GST_PTR_FORMAT, caps);
  return FALSE;
}


/* ---- kernels ---- */

typedef struct
{
  gint channels;
  const gchar *src_t;
  guint max_value;
  gint pstride, roff, goff, boff;
} SourceDesc;

static gboolean
describe_source (const GstVideoInfo * info, SourceDesc * d)
{
  const gchar *name = gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info));

  memset (d, 0, sizeof (*d));
  if (gst_cl_integral_is_rgb_format (name)) {
    d->channels = 3;
    d->src_t = "uchar";
    d->max_value = 255;
    d->pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
    d->roff = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R);
    d->goff = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G);
    d->boff = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B);
    return TRUE;
  }
  if (!gst_cl_integral_is_gray_format (name))
    return FALSE;
  d->channels = 1;
  d->pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  d->src_t = d->pstride == 2 ? "ushort" : "uchar";
  d->max_value = d->pstride == 2 ? 65535 : 255;
  return TRUE;
}

/* CPU bands: one per core (PoCL runs each work-group on one of its threads),
 * at most 15. In cpu_integral band b first adds up the rows above it, each
 * costing @add_row_cost (c) of a scanned row, so its own share is smaller
 * (8-bit gray sums and counts: where the work-groups start, the split then
 * follows the groups' progress, integral.cl):
 * with band b scanning T - c * start(b) rows, start(b) = T (1 - (1 - c)^b) / c
 * and start(n) = height. c = 0: equal bands (cpu_box_mean). Starts are
 * multiples of 4 (cpu_integral's row block). */
#define ADD_ROW_COST 0.25
static void
plan_cpu_bands (GstClIntegral * self, guint compute_units,
    gdouble add_row_cost)
{
  gint *start = (gint *) & self->band_start;
  guint n = MIN (CLAMP (compute_units, 1u, 15u),
      (guint) MAX (self->height / 4, 1)), b;
  gdouble keep = 1.0 - add_row_cost, keep_n = 1.0, t, keep_b = 1.0;

  for (b = 0; b < n; b++)
    keep_n *= keep;
  t = add_row_cost != 0 ? self->height * add_row_cost / (1.0 - keep_n) : 0;
  start[0] = 0;
  for (b = 1; b < 16; b++) {
    gdouble at;

    keep_b *= keep;
    at = add_row_cost != 0 ? t * (1.0 - keep_b) / add_row_cost :
        (gdouble) self->height * b / n;
    start[b] = b < n ? MIN ((gint) at & ~3, self->height) : self->height;
  }
  self->n_bands = n;
}

/* The GPU kernels' rows loaded a row ahead, across a barrier: on GPU
 * devices only (on PoCL, where tests run the GPU kernels, see
 * write_tile_rows in integral.cl) */
static gboolean
row_ahead (GstClIntegral * self)
{
  return gst_cl_context_is_gpu (gst_cl_base_filter_get_context
      (GST_CL_BASE_FILTER (self)));
}

/* -D options of one plane program. @acc/@out are OpenCL type names;
 * @out2 non-NULL: the squares plane's output type of a PAIR program.
 * SEL: the swizzle that packs R, G, B of 4 pixels (16 loaded bytes) into
 * lanes 0-11 of a 16-vector for the CPU kernels. */
static gchar *
plane_options (GstClIntegral * self, const SourceDesc * d, const gchar * acc,
    const gchar * out, const gchar * out2, gint value, gint strip_rows,
    gint tile_rows)
{
  gchar sel[18] = "s";
  gint i, c;

  for (i = 0; i < 16; i++) {
    gint px = MIN (i / 3, 3), comp = i < 12 ? i % 3 : 2;
    gint off[3] = { d->roff, d->goff, d->boff };

    c = d->channels == 3 ? px * d->pstride + off[comp] : i;
    sel[1 + i] = "0123456789abcdef"[MIN (c, 15)];
  }
  sel[17] = 0;
  return g_strdup_printf ("-D CH=%d -D SRC_T=%s -D PSTRIDE=%d -D ROFF=%d "
      "-D GOFF=%d -D BOFF=%d -D SEL=%s -D ACC=%s -D OUT=%s "
      "-D VALUE=%d -D WG=%d -D SH=%d -D CB=%d -D CPU_ONLY=%d "
      "-D GPU_ONLY=%d -D BOX=%d -D ONEPASS=%d -D TH=%d -D PACKED=%d "
      "-D PAIR=%d -D OUT2=%s -D CPU_HEAD=%d -D ROW_AHEAD=%d",
      d->channels, d->src_t, d->pstride, d->roff, d->goff, d->boff, sel, acc,
      out, value, GPU_STRIP_WG, strip_rows, GPU_SCAN_BANDS, !self->gpu,
      self->gpu, self->box_mean, self->one_pass, tile_rows,
      g_strcmp0 (g_getenv (PACKED_ENV), "0") != 0, out2 != NULL,
      out2 ? out2 : "ulong", CPU_HEAD, row_ahead (self));
}

static cl_mem
create_scratch (GstClIntegral * self, gsize size)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  cl_int err;
  cl_mem mem = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, MAX (size, 1),
      NULL, &err);

  if (!gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
          "clCreateBuffer", "Could not allocate OpenCL scratch memory"))
    return NULL;
  return mem;
}

static gboolean check_size (GstClIntegral * self, gboolean computed,
    guint64 size, const gchar * what);

/* Local memory of a PAIR program's gpu_strip_integral (its largest
 * kernel, integral.cl) with @rows rows per strip: both planes' partial
 * sums (the squares' 4 bytes for 8-bit sources, @narrow), left sums,
 * staging rows (@out_size + 8 bytes per element) and the squares' sums
 * above the tile per work-item and per 8 */
static guint64
pair_local_bytes (GstClIntegral * self, gsize acc_size, gsize out_size,
    gboolean narrow, gint rows)
{
  guint64 lanes = self->channels == 3 ? 4 : 1;  /* of a V (ACC) */
  guint64 packed = g_strcmp0 (g_getenv (PACKED_ENV), "0") != 0 ?
      (guint64) self->channels : lanes;
  guint64 part = (guint64) rows * (GPU_STRIP_WG + 1) * packed *
      (acc_size + (narrow ? 4 : 8));
  guint64 left = (guint64) rows * lanes * (acc_size + 2 * 8);
  guint64 above = (guint64) (GPU_STRIP_WG + GPU_STRIP_WG / 8) *
      self->channels * 8;
  guint64 row = (guint64) GPU_STRIP_PIXELS * self->channels;

  return part + left + above + (row + row / 32 + 1) * (out_size + 8);
}

/* Rows per strip of the GPU kernels for @acc_size-byte sums; @out_size > 0:
 * a PAIR program (@out_size-byte sums out, squares 8 bytes) of a source of
 * samples up to @max_value, whose squares' rows run on the second half of
 * the work-group and whose rows are cut until its local memory fits the
 * device's */
static gint
gpu_strip_rows (GstClIntegral * self, gsize acc_size, gsize out_size,
    guint max_value)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  const gchar *env = g_getenv (STRIP_ROWS_ENV);
  gboolean pair = out_size > 0;
  gboolean wide = self->channels == 3 && (acc_size == 8 || pair);
  gint max = pair ? GPU_STRIP_WG / 2 : GPU_STRIP_WG, rows;

  if (env && wide && strchr (env, ','))
    env = strchr (env, ',') + 1;
  rows = env ? CLAMP (atoi (env), 2, max) : GPU_STRIP_ROWS;
  /* (a margin for the compiler's alignment of the arrays; 8-bit sources
   * sum their squares within a tile in 32 bits, SQT in integral.cl) */
  while (pair && rows > 2 && pair_local_bytes (self, acc_size, out_size,
          max_value <= 255, rows) + 512 > ctx->local_mem_size)
    rows--;
  return rows;
}

/* Rows per tile of the one-pass GPU kernel */
static gint
gpu_tile_rows (void)
{
  const gchar *env = g_getenv (TILE_ROWS_ENV);

  return env ? CLAMP (atoi (env), 1, GPU_STRIP_WG) : GPU_TILE_ROWS;
}

/* Tiles of the one-pass GPU kernel */
static void
gpu_tiles (GstClIntegral * self, gint tile_rows, guint64 * strips,
    guint64 * blocks)
{
  *strips = ((guint64) self->height + tile_rows - 1) / tile_rows;
  *blocks = ((guint64) self->width + GPU_STRIP_PIXELS - 1) /
      GPU_STRIP_PIXELS;
}

/* The one-pass GPU kernel's status words (integral.cl): 2 ticket counters
 * in one 64-bit word, then per tile (GPU_STRIP_PIXELS + 1) vertical and
 * tile_rows horizontal values of channels sums, one 64-bit word per 32 bits
 * of sum. Zeroed once here: the kernel tells frames apart by an epoch in
 * each word and resets its own counters. */
static cl_mem
create_gpu_status (GstClIntegral * self, gint tile_rows, gsize acc_size)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  guint64 strips, blocks, tiles = 0, per_tile, size = 0;
  const cl_ulong zero = 0;
  gboolean ok;
  cl_mem mem;
  cl_int err;

  gpu_tiles (self, tile_rows, &strips, &blocks);
  per_tile = (GPU_STRIP_PIXELS + 1 + tile_rows) * self->channels *
      (acc_size / 4);
  ok = g_uint64_checked_mul (&tiles, strips, blocks) && tiles <= G_MAXINT &&
      g_uint64_checked_mul (&size, tiles, per_tile) &&
      g_uint64_checked_add (&size, size, 1) &&
      g_uint64_checked_mul (&size, size, 8);
  if (!check_size (self, ok, size, "GPU integral status"))
    return NULL;
  mem = create_scratch (self, size);
  if (!mem)
    return NULL;
  err = clEnqueueFillBuffer (ctx->queue, mem, &zero, sizeof (zero), 0, size,
      0, NULL, NULL);
  if (!gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
          "clEnqueueFillBuffer", "Could not clear OpenCL scratch memory")) {
    clReleaseMemObject (mem);
    return NULL;
  }
  return mem;
}

/* The GPU strip kernels' scratch: per strip its column sums and tile
 * totals, then SH row sums per tile (integral.cl), ACC each; @pair: both
 * planes', 8 bytes each */
static cl_mem
create_gpu_scratch (GstClIntegral * self, gint strip_rows, gsize acc_size,
    gboolean pair)
{
  guint64 strips = (self->height + strip_rows - 1) / strip_rows;
  guint64 blocks = (self->width + GPU_STRIP_PIXELS - 1) / GPU_STRIP_PIXELS;
  guint64 row = 0, tiles = 0, size = 0;
  gboolean ok = g_uint64_checked_mul (&row, self->width + blocks,
      self->channels * (pair ? 2 : 1)) && g_uint64_checked_mul (&tiles,
      strips * blocks, strip_rows * self->channels * (pair ? 2 : 1)) &&
      g_uint64_checked_mul (&size, strips, row) &&
      g_uint64_checked_add (&size, size, tiles) &&
      g_uint64_checked_mul (&size, size, pair ? 8 : acc_size);

  if (!check_size (self, ok, size, "GPU integral scratch"))
    return NULL;
  return create_scratch (self, size);
}

/* The CPU kernels' scratch: the region words, zeroed here once (the
 * kernel tells frames apart by an epoch in each), then @band_bytes per
 * band */
static cl_mem
create_cpu_scratch (GstClIntegral * self, gsize band_bytes)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  gsize n = CPU_HEAD + (gsize) self->n_bands * band_bytes;
  const cl_uint zero = 0;
  cl_mem mem = create_scratch (self, n);
  cl_int err;

  if (!mem)
    return NULL;
  err = clEnqueueFillBuffer (ctx->queue, mem, &zero, sizeof (zero), 0,
      CPU_HEAD, 0, NULL, NULL);
  if (!gst_cl_base_filter_check (GST_CL_BASE_FILTER (self), err,
          "clEnqueueFillBuffer", "Could not clear OpenCL scratch memory")) {
    clReleaseMemObject (mem);
    return NULL;
  }
  return mem;
}

/* Builds plane @i's program and kernels (and scratch); @out2 non-NULL:
 * the GPU strips' PAIR program, which writes the squares plane too */
static gboolean
setup_plane (GstClIntegral * self, guint i, const SourceDesc * d,
    const gchar * acc, const gchar * out, const gchar * out2, gint value,
    gsize acc_size)
{
  GstClBaseFilter *base = GST_CL_BASE_FILTER (self);
  IntegralPlane *p = &self->plane[i];
  gchar *opts;

  p->pair = out2 != NULL;
  /* (a pair's sums out: 4-byte uint or float, else 8 bytes) */
  p->strip_rows = self->gpu ? gpu_strip_rows (self, acc_size, !p->pair ? 0 :
          g_str_equal (out, "uint") || g_str_equal (out, "float") ? 4 : 8,
      d->max_value) : GPU_STRIP_ROWS;
  p->tile_rows = gpu_tile_rows ();
  opts = plane_options (self, d, acc, out, out2, value, p->strip_rows,
      p->tile_rows);

  GST_DEBUG_OBJECT (self, "plane %u: %s (%s variant)", i, opts,
      self->gpu ? "GPU" : "CPU");
  p->program = gst_cl_base_filter_get_program (base, "integral.cl", opts);
  g_free (opts);
  if (!p->program)
    return FALSE;
  p->k1 = gst_cl_base_filter_create_kernel (base, p->program,
      !self->gpu ? "cpu_integral_first" : self->one_pass ?
      "gpu_lookback_integral" : "gpu_strip_sums");
  if (self->gpu && self->one_pass) {
    if (!p->k1)
      return FALSE;
    p->accrow = create_gpu_status (self, p->tile_rows, acc_size);
    return p->accrow != NULL;
  }
  if (self->gpu) {
    p->k2 = gst_cl_base_filter_create_kernel (base, p->program,
        "gpu_strip_scan");
    p->k3 = gst_cl_base_filter_create_kernel (base, p->program,
        "gpu_strip_integral");
  } else {
    p->fast = gst_cl_base_filter_create_kernel (base, p->program,
        "cpu_integral");
  }
  if (!p->k1 || !(self->gpu ? p->k2 && p->k3 : p->fast != NULL))
    return FALSE;
  if (self->gpu) {
    p->accrow = create_gpu_scratch (self, p->strip_rows, acc_size,
        p->pair);
    if (!p->accrow)
      return FALSE;
  } else {
    /* 3 rows of sums per band; no overflow: n_bands <= max (height / 4,
     * 1), so the rows are at most 3 times the plane's size, which
     * check_size() bounded */
    p->accrow = create_cpu_scratch (self, 3 * (gsize) self->width *
        self->channels * acc_size);
    if (!p->accrow)
      return FALSE;
  }
  return TRUE;
}

/* the warm-up jobs' argument setter: sets argument j++ of `kernel` to @v
 * while `err` is CL_SUCCESS */
#define WARM_ARG(v) (err == CL_SUCCESS ? \
    (err = clSetKernelArg (kernel, j++, sizeof (v), &(v))) : err)

/* On the warm-up worker: PoCL compiles a kernel at its first launch (about
 * 0.4-0.5 s for cpu_integral or cpu_box_mean on 2 cores, against about a
 * third of that for their pixel-by-pixel _first variants, which the frames
 * use until then). Launches every plane's fast kernel once, with the
 * stream's band count, on a 4x4 frame of scratch memory; nothing touches
 * those kernel objects before fast_ready is set. */
static void
warm_job_run (GstClContext * ctx, cl_command_queue queue, gpointer data)
{
  GstClIntegral *self = data;
  cl_int err, w = 4, h = 4, r = 1, bands[16];
  cl_uint zero = 0, stride = 16, img_off = 2048, epoch = 1;
  cl_ulong out_off = img_off;
  gsize one = 1, nb = self->n_bands;
  cl_mem mem, scratch;
  gpointer zeros;
  guint i, j, k;

  bands[0] = 0;
  for (k = 1; k < 16; k++)
    bands[k] = h;
  /* zeroed: the kernels compute on these samples (an uninitialised frame
   * made float conversions branch on garbage under valgrind) */
  zeros = g_malloc0 (16 * 4096);
  mem = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE |
      CL_MEM_COPY_HOST_PTR, 4096, zeros, &err);
  /* (zeroed too: cpu_integral's region words) */
  scratch = err == CL_SUCCESS ? clCreateBuffer (ctx->context,
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 16 * 4096, zeros, &err) :
      NULL;
  g_free (zeros);
  for (i = 0; i < self->n_planes && err == CL_SUCCESS; i++) {
    cl_kernel kernel = self->plane[i].fast;

    j = 0;
    WARM_ARG (mem);
    WARM_ARG (zero);
    WARM_ARG (stride);
    if (self->box_mean) {
      WARM_ARG (mem);
      WARM_ARG (img_off);
      WARM_ARG (stride);
      WARM_ARG (w);
      WARM_ARG (h);
      WARM_ARG (r);
      WARM_ARG (bands);
      WARM_ARG (scratch);
      WARM_ARG (epoch);
    } else {
      WARM_ARG (w);
      WARM_ARG (h);
      WARM_ARG (bands);
      WARM_ARG (scratch);
      WARM_ARG (mem);
      WARM_ARG (out_off);
      WARM_ARG (epoch);
    }
    if (err == CL_SUCCESS)
      err = gst_cl_warmup_launch (queue, kernel, 1, &nb, &one);
  }
  if (scratch)
    clReleaseMemObject (scratch);
  if (mem)
    clReleaseMemObject (mem);
  if (err == CL_SUCCESS) {
    g_atomic_int_set (&self->fast_ready, 1);
    /* (after the flag: tests take this line as the switch) */
    GST_INFO_OBJECT (self, "fast CPU kernels compiled");
  } else
    GST_WARNING_OBJECT (self, "background compile of the CPU kernels "
        "failed (%s): frames keep the first-frame kernels",
        gst_cl_error_name (err));
}

/* CPU, at caps: the fast kernels compile on the warm-up worker, which
 * starts after the first frame (a one-frame pipeline never pays for it);
 * live streams (and GST_CL_INTEGRAL_VARIANT=cpu or wait) wait for it now,
 * so they never stall on it later. Always TRUE: without a worker the frames
 * keep the first-frame kernels. */
static gboolean
start_warm_up (GstClIntegral * self, GstClWarmupFunc job)
{
  const gchar *variant = g_getenv (VARIANT_ENV);
  GstClWarmup *warmup;

  if (variant && g_str_equal (variant, "cpu-first"))
    return TRUE;
  warmup = gst_cl_base_filter_get_warmup (GST_CL_BASE_FILTER (self));
  if (!warmup)
    return TRUE;
  gst_cl_warmup_add (warmup, job, self, NULL);
  if ((variant && (g_str_equal (variant, "cpu") ||
              g_str_equal (variant, "wait"))) ||
      gst_cl_base_filter_upstream_is_live (GST_CL_BASE_FILTER (self)))
    gst_cl_warmup_wait_all (warmup);
  return TRUE;
}

/* CPU box mean: one kernel and no integral image (see cpu_box_mean) */
static gboolean
setup_cpu_box_mean (GstClIntegral * self, const SourceDesc * d,
    const gchar * acc, const gchar * out, gsize acc_size)
{
  GstClBaseFilter *base = GST_CL_BASE_FILTER (self);
  IntegralPlane *p = &self->plane[0];
  gchar *opts = plane_options (self, d, acc, out, NULL, 0, GPU_STRIP_ROWS,
      GPU_TILE_ROWS);
  gsize n;

  GST_DEBUG_OBJECT (self, "box mean: %s (CPU variant)", opts);
  p->program = gst_cl_base_filter_get_program (base, "integral.cl", opts);
  g_free (opts);
  if (!p->program)
    return FALSE;
  self->n_planes = 1;
  p->k1 = gst_cl_base_filter_create_kernel (base, p->program,
      "cpu_box_mean_first");
  p->fast = gst_cl_base_filter_create_kernel (base, p->program,
      "cpu_box_mean");
  /* per band: column sums (W) and their prefix (W + 1) of the kernel's
   * lanes per pixel (4-byte RGB pixels: 4); no overflow: at most the
   * integral image check_size() bounded (bands <= height / 4) */
  n = (2 * (gsize) self->width + 1) * (d->channels == 3 && d->pstride == 4 ?
      4 : self->channels) * acc_size;
  p->accrow = create_cpu_scratch (self, n);
  return p->k1 && p->fast && p->accrow && start_warm_up (self, warm_job_run);
}

/* On the warm-up worker, GPU box mean: a radius set while playing moves
 * the frames between box_mean_tile and the integral path (above 32), and a
 * device that compiles a kernel at its first launch (PoCL, where the tests
 * force the GPU variant) would hold that frame for it. Launches each of
 * the five kernels once on a 4x4 frame of scratch memory, through kernel
 * objects of its own (the streaming thread sets the element's). */
static void
warm_box_job_run (GstClContext * ctx, cl_command_queue queue, gpointer data)
{
  GstClIntegral *self = data;
  IntegralPlane *p = &self->plane[0];
  static const gchar *names[] = { "gpu_strip_sums", "gpu_strip_scan",
    "gpu_strip_integral", "box_mean", "box_mean_tile"
  };
  cl_int err, w = 4, h = 4, r = 1, stride = 16, strips = 1;
  cl_uint zero = 0, m = (cl_uint) ((w + 1) * self->channels);
  cl_ulong off = 0;
  cl_float inv = 1.0f / 9;
  gsize g_strip[2] = { GPU_STRIP_WG, 1 }, l_strip[2] = { GPU_STRIP_WG, 1 };
  gsize g_scan[2] = { 32, GPU_SCAN_BANDS }, l_scan[2] = { 32, GPU_SCAN_BANDS };
  gsize g_box[2] = { 16, 16 }, l_box[2] = { 16, 16 };
  gsize g_tile[2] = { self->box_tile_wg, 1 };
  gsize l_tile[2] = { self->box_tile_wg, 1 };
  /* (in the order of names) */
  const gsize *global[] = { g_strip, g_scan, g_strip, g_box, g_tile };
  const gsize *local[] = { l_strip, l_scan, l_strip, l_box, l_tile };
  gpointer zeros = g_malloc0 (65536);
  cl_mem frame, scratch, ii;
  guint i, j;

  /* (zeroed: the kernels read every byte they are given) */
  frame = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE |
      CL_MEM_COPY_HOST_PTR, 4096, zeros, &err);
  scratch = err == CL_SUCCESS ? clCreateBuffer (ctx->context,
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 65536, zeros, &err) : NULL;
  ii = err == CL_SUCCESS ? clCreateBuffer (ctx->context, CL_MEM_READ_WRITE |
      CL_MEM_COPY_HOST_PTR, 4096, zeros, &err) : NULL;
  g_free (zeros);
  for (i = 0; i < G_N_ELEMENTS (names) && err == CL_SUCCESS; i++) {
    cl_kernel kernel;

    if (i == 4 && !self->box_tile)
      break;
    kernel = clCreateKernel (p->program, names[i], &err);
    j = 0;
    if (i != 1) {
      WARM_ARG (frame);
      WARM_ARG (zero);
      WARM_ARG (stride);
    }
    if (i == 0 || i == 2) {
      WARM_ARG (w);
      WARM_ARG (h);
      WARM_ARG (scratch);
      if (i == 2) {
        WARM_ARG (ii);
        WARM_ARG (off);
      }
    } else if (i == 1) {
      WARM_ARG (m);
      WARM_ARG (strips);
      WARM_ARG (scratch);
    } else {
      /* box means into the frame's second kilobyte */
      cl_uint dst_off = 1024;

      WARM_ARG (frame);
      WARM_ARG (dst_off);
      WARM_ARG (stride);
      if (i == 3)
        WARM_ARG (ii);
      WARM_ARG (w);
      WARM_ARG (h);
      WARM_ARG (r);
      if (i == 4)
        WARM_ARG (inv);
    }
    if (err == CL_SUCCESS)
      err = gst_cl_warmup_launch (queue, kernel, 2, global[i], local[i]);
    if (kernel)
      clReleaseKernel (kernel);
  }
  if (ii)
    clReleaseMemObject (ii);
  if (scratch)
    clReleaseMemObject (scratch);
  if (frame)
    clReleaseMemObject (frame);
  if (err == CL_SUCCESS)
    /* (tests take this line as the job done) */
    GST_INFO_OBJECT (self, "box-mean kernels launched once");
  else
    GST_WARNING_OBJECT (self, "background launch of the box-mean kernels "
        "failed (%s): a radius change may wait for a first launch",
        gst_cl_error_name (err));
}

/* GPU box mean: box_mean_tile where the device takes its work-group and
 * local memory (else every radius goes through the integral image); FALSE
 * only when the kernel could not be made (error posted) */
static gboolean
setup_box_tile (GstClIntegral * self, const SourceDesc * d,
    cl_program program)
{
  GstClContext *ctx = gst_cl_base_filter_get_context (GST_CL_BASE_FILTER
      (self));
  gsize wg = 0, tile[3] = { 0, 0, 0 };
  cl_ulong local = G_MAXUINT64;

  self->box_pstride = d->pstride;
  if (g_strcmp0 (g_getenv (BOX_ENV), "integral") == 0)
    return TRUE;
  self->box_tile = gst_cl_base_filter_create_kernel (GST_CL_BASE_FILTER
      (self), program, "box_mean_tile");
  if (!self->box_tile)
    return FALSE;
  /* the tile's width is the kernel's fixed work-group, which the compiled
   * kernel, the device and its local memory must all take */
  if (clGetKernelWorkGroupInfo (self->box_tile, ctx->device,
          CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof (tile), tile,
          NULL) != CL_SUCCESS || clGetKernelWorkGroupInfo (self->box_tile,
          ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof (wg), &wg,
          NULL) != CL_SUCCESS || clGetKernelWorkGroupInfo (self->box_tile,
          ctx->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof (local), &local,
          NULL) != CL_SUCCESS || tile[0] <= 2 * BOX_TILE_MAX_RADIUS ||
      wg < tile[0] || local > ctx->local_mem_size) {
    GST_INFO_OBJECT (self, "box_mean_tile (work-group %" G_GSIZE_FORMAT
        ", %" G_GUINT64_FORMAT " bytes of local memory) does not fit the "
        "device (%" G_GSIZE_FORMAT " work-items, %" G_GUINT64_FORMAT
        " bytes): box means through the integral image", tile[0], local, wg,
        ctx->local_mem_size);
    clReleaseKernel (self->box_tile);
    self->box_tile = NULL;
    return TRUE;
  }
  self->box_tile_wg = tile[0];
  return TRUE;
}

/* ACC and OUT type names of a sum or count plane (@sq FALSE) or a sqsum
 * plane */
static void
plane_types (GstClIntegralFormat f, gboolean sq, const gchar ** acc,
    const gchar ** out, gsize * acc_size)
{
  static const gchar *outs[] = { "uint", "ulong", "float", "double" };

  if (sq) {
    *acc = "ulong";
    *out = gst_cl_integral_format_is_float (f) ? "double" : "ulong";
  } else {
    *acc = f == GST_CL_INTEGRAL_FORMAT_U32 ? "uint" : "ulong";
    *out = outs[f];
  }
  *acc_size = g_str_equal (*acc, "uint") ? 4 : 8;
}

/* @computed FALSE: the layout overflowed 64 bits (no device holds that;
 * unreachable once the base filter accepted the input frames) */
static gboolean
check_size (GstClIntegral * self, gboolean computed, guint64 size,
    const gchar * what)
{
  gchar *desc;
  gboolean ok;

  if (!computed)
    size = G_MAXUINT64;
  desc = g_strdup_printf ("%s of a %dx%d frame", what, self->width,
      self->height);
  ok = gst_cl_base_filter_check_alloc_size (GST_CL_BASE_FILTER (self), size,
      desc, "ask for fewer planes, a 32-bit format or a smaller frame");
  g_free (desc);
  return ok;
}

static gboolean
gst_cl_integral_set_info (GstClBaseFilter * base, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstClIntegral *self = GST_CL_INTEGRAL (base);
  GstClContext *ctx = gst_cl_base_filter_get_context (base);
  const gchar *variant = g_getenv (VARIANT_ENV);
  const gchar *acc, *out;
  guint64 offsets[GST_CL_INTEGRAL_MAX_PLANES];
  GstClIntegralFormat format;
  SourceDesc d;
  gsize acc_size;
  guint planes, bit, n = 0, k = 0;
  gboolean pair;

  if (!describe_source (in_info, &d)) {
    GST_ERROR_OBJECT (self, "unsupported input %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  self->width = GST_VIDEO_INFO_WIDTH (in_info);
  self->height = GST_VIDEO_INFO_HEIGHT (in_info);
  self->channels = d.channels;
  self->gpu = gst_cl_context_is_gpu (ctx);
  if (variant && g_str_equal (variant, "gpu"))
    self->gpu = TRUE;
  else if (variant && g_str_has_prefix (variant, "cpu"))
    self->gpu = FALSE;
  self->one_pass = g_strcmp0 (g_getenv (GPU_PASSES_ENV), "lookback") == 0;
  self->reverse = g_strcmp0 (g_getenv (CPU_ORDER_ENV), "reverse") == 0;
  self->skip = g_getenv (SKIP_ENV) ? atoi (g_getenv (SKIP_ENV)) : 0;
  if (self->skip && self->gpu && !self->one_pass)
    GST_WARNING_OBJECT (self, SKIP_ENV "=%u: GPU launches left out, the "
        "output is wrong (for timing launches alone only)", self->skip);
  self->box_mean = out_info != NULL;
  plan_cpu_bands (self, ctx->compute_units, g_getenv (ROW_COST_ENV) ?
      MIN (g_ascii_strtod (g_getenv (ROW_COST_ENV), NULL), 0.99) :
      self->box_mean ? 0 : ADD_ROW_COST);
  if (self->gpu && ctx->max_work_group_size < 32 * GPU_SCAN_BANDS) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (NULL),
        ("device work-group size %" G_GSIZE_FORMAT " < %d",
            ctx->max_work_group_size, 32 * GPU_SCAN_BANDS));
    return FALSE;
  }

  if (self->box_mean) {
    /* U32 while a whole-frame box cannot reach 2^32 (exact modulo 2^32) */
    guint64 pixels, box_max;
    gboolean wide = !g_uint64_checked_mul (&pixels, self->width,
        self->height) || !g_uint64_checked_mul (&box_max, pixels,
        d.max_value) || box_max >= G_GUINT64_CONSTANT (1) << 32;
    guint64 size = 0;
    gboolean computed;

    format = wide ? GST_CL_INTEGRAL_FORMAT_U64 : GST_CL_INTEGRAL_FORMAT_U32;
    computed = gst_cl_integral_layout (self->width, self->height,
        d.channels, format, GST_CL_INTEGRAL_PLANES_SUM, NULL, &size);
    if (!check_size (self, computed, size, "box-mean integral image"))
      return FALSE;
    plane_types (format, FALSE, &acc, &out, &acc_size);
    if (!self->gpu)
      return setup_cpu_box_mean (self, &d, acc, out, acc_size);
    if (!setup_plane (self, 0, &d, acc, out, NULL, 0, acc_size))
      return FALSE;
    self->plane[0].offset = 0;
    self->n_planes = 1;
    self->box_kernel = gst_cl_base_filter_create_kernel (base,
        self->plane[0].program, "box_mean");
    self->box_ii = create_scratch (self, size);
    return self->box_kernel && self->box_ii &&
        setup_box_tile (self, &d, self->plane[0].program) &&
        (self->one_pass || start_warm_up (self, warm_box_job_run));
  }

  {
    gint w, h, ch;
    if (!gst_cl_integral_parse_caps (outcaps, &w, &h, &ch, &format, &planes) ||
        w != self->width || h != self->height || ch != d.channels) {
      GST_ERROR_OBJECT (self, "output caps %" GST_PTR_FORMAT " do not match "
          "the input %" GST_PTR_FORMAT, outcaps, incaps);
      return FALSE;
    }
  }
  {
    guint64 size = 0;
    gboolean computed = gst_cl_integral_layout (self->width, self->height,
        d.channels, format, planes, offsets, &size);

    if (!check_size (self, computed, size, "integral image"))
      return FALSE;
    self->out_size = size;
  }
  /* GPU strips: the sum program writes the squares plane too (while both
   * planes' scratch columns, 2 x (width + blocks) x channels, stay far
   * from the kernels' 32-bit counts) */
  pair = self->gpu && !self->one_pass &&
      (planes & GST_CL_INTEGRAL_PLANES_SQSUM) &&
      (guint64) self->width * d.channels < G_MAXINT / 4 &&
      g_strcmp0 (g_getenv (PAIR_ENV), "0") != 0;
  for (bit = 1; bit <= GST_CL_INTEGRAL_PLANES_COUNT; bit <<= 1) {
    const gchar *out2 = NULL, *acc2;
    gsize acc2_size;

    if (!(planes & bit))
      continue;
    if (pair && bit == GST_CL_INTEGRAL_PLANES_SQSUM) {
      k++;
      continue;
    }
    plane_types (format, bit == GST_CL_INTEGRAL_PLANES_SQSUM, &acc, &out,
        &acc_size);
    if (pair && bit == GST_CL_INTEGRAL_PLANES_SUM)
      plane_types (format, TRUE, &acc2, &out2, &acc2_size);
    if (!setup_plane (self, n, &d, acc, out, out2,
            bit == GST_CL_INTEGRAL_PLANES_SUM ? 0 :
            bit == GST_CL_INTEGRAL_PLANES_SQSUM ? 1 : 2, acc_size))
      return FALSE;
    self->plane[n].offset = offsets[k];
    /* (the squares plane follows the sum plane) */
    if (out2)
      self->plane[n].offset2 = offsets[k + 1];
    n++;
    k++;
  }
  self->n_planes = n;
  if (!self->gpu)
    start_warm_up (self, warm_job_run);
  GST_INFO_OBJECT (self, "%dx%d x%d -> %s %s, %" G_GSIZE_FORMAT " bytes, %s "
      "variant", self->width, self->height, d.channels,
      gst_cl_integral_format_name (format),
      gst_cl_integral_planes_name (planes), self->out_size,
      self->gpu ? "GPU" : "CPU");
  return TRUE;
}

static void
gst_cl_integral_reset (GstClBaseFilter * base)
{
  GstClIntegral *self = GST_CL_INTEGRAL (base);
  guint i;

  /* (the base class joined a compile in progress, which uses the planes'
   * fast kernels, before this) */
  self->fast_ready = 0;
  for (i = 0; i < GST_CL_INTEGRAL_MAX_PLANES; i++) {
    IntegralPlane *p = &self->plane[i];
    if (p->k1)
      clReleaseKernel (p->k1);
    if (p->fast)
      clReleaseKernel (p->fast);
    if (p->k2)
      clReleaseKernel (p->k2);
    if (p->k3)
      clReleaseKernel (p->k3);
    if (p->program)
      clReleaseProgram (p->program);
    if (p->accrow)
      clReleaseMemObject (p->accrow);
    memset (p, 0, sizeof (*p));
  }
  if (self->box_kernel)
    clReleaseKernel (self->box_kernel);
  self->box_kernel = NULL;
  if (self->box_tile)
    clReleaseKernel (self->box_tile);
  self->box_tile = NULL;
  if (self->box_ii)
    clReleaseMemObject (self->box_ii);
  self->box_ii = NULL;
  self->n_planes = 0;
}

/* ---- per frame ---- */

#define INTEGRAL_WHAT "Could not compute the integral image"

/* the CPU kernels' epoch argument for this frame: a new epoch for their
 * claims (1..255, never the last frame's), bit 8 the tests' reversed order
 * of the groups */
static cl_uint
next_cpu_epoch (GstClIntegral * self, IntegralPlane * p)
{
  p->epoch = p->epoch % 255 + 1;
  return p->epoch | (self->reverse ? 0x100 : 0);
}

/* Enqueues the kernels of plane @p: @in's plane 0 -> @out at p->offset */
static gboolean
enqueue_plane (GstClIntegral * self, IntegralPlane * p, GstClFrame * in,
    cl_mem out)
{
  cl_int w = self->width, h = self->height;
  cl_ulong off = p->offset;
  /* CPU: the first-frame kernel until the warm-up compiled the fast one */
  cl_kernel k1 = !self->gpu && g_atomic_int_get (&self->fast_ready) ?
      p->fast : p->k1;

  if (self->gpu && self->one_pass) {
    /* tiles of tile_rows x GPU_STRIP_PIXELS, taken in order by ticket; a
     * new epoch per frame, kept only once the kernel is queued (the ticket
     * counters follow it); counts fit: create_gpu_status() checked them */
    guint64 strips, blocks;
    cl_uint epoch = p->epoch % 0x3fffffffu + 1;
    cl_int nb;
    gsize gsz, lsz = GPU_STRIP_WG;

    gpu_tiles (self, p->tile_rows, &strips, &blocks);
    nb = (cl_int) blocks;
    gsz = (gsize) (strips * blocks) * GPU_STRIP_WG;
    GST_CL_LAUNCH (self, p->k1, 1, &gsz, &lsz, INTEGRAL_WHAT,
        GST_CL_ARG_PLANE (in, 0), GST_CL_ARG (w), GST_CL_ARG (h),
        GST_CL_ARG (nb), GST_CL_ARG (epoch), GST_CL_ARG (p->accrow),
        GST_CL_ARG (out), GST_CL_ARG (off));
    p->epoch = epoch;
  } else if (self->gpu) {
    /* tiles of strip_rows x GPU_STRIP_PIXELS; scratch rows of m sums (no
     * overflow: create_gpu_scratch() sized them) */
    cl_int strips = (h + p->strip_rows - 1) / p->strip_rows;
    gsize blocks = (w + GPU_STRIP_PIXELS - 1) / GPU_STRIP_PIXELS;
    cl_uint m = (cl_uint) ((w + blocks) * self->channels * (p->pair ? 2 : 1));
    cl_ulong off2 = p->offset2;
    gsize tsz[2] = { blocks * GPU_STRIP_WG, strips };
    gsize tlsz[2] = { GPU_STRIP_WG, 1 };
    gsize ssz[2] = { gst_cl_global_size (m, 32), GPU_SCAN_BANDS };
    gsize slsz[2] = { 32, GPU_SCAN_BANDS };

    if (!(self->skip & 1))
      GST_CL_LAUNCH (self, p->k1, 2, tsz, tlsz, INTEGRAL_WHAT,
          GST_CL_ARG_PLANE (in, 0), GST_CL_ARG (w), GST_CL_ARG (h),
          GST_CL_ARG (p->accrow));
    if (!(self->skip & 2))
      GST_CL_LAUNCH (self, p->k2, 2, ssz, slsz, INTEGRAL_WHAT,
          GST_CL_ARG (m), GST_CL_ARG (strips), GST_CL_ARG (p->accrow));
    if (!(self->skip & 4) && p->pair)
      GST_CL_LAUNCH (self, p->k3, 2, tsz, tlsz, INTEGRAL_WHAT,
          GST_CL_ARG_PLANE (in, 0), GST_CL_ARG (w), GST_CL_ARG (h),
          GST_CL_ARG (p->accrow), GST_CL_ARG (out), GST_CL_ARG (off),
          GST_CL_ARG (off2));
    else if (!(self->skip & 4))
      GST_CL_LAUNCH (self, p->k3, 2, tsz, tlsz, INTEGRAL_WHAT,
          GST_CL_ARG_PLANE (in, 0), GST_CL_ARG (w), GST_CL_ARG (h),
          GST_CL_ARG (p->accrow), GST_CL_ARG (out), GST_CL_ARG (off));
  } else {
    /* one work-item per work-group: PoCL runs work-groups on its threads;
     * a new epoch for cpu_integral's claims every frame (bit 8: the
     * groups' order) */
    gsize one = 1, nb = self->n_bands;
    cl_uint arg = next_cpu_epoch (self, p);

    GST_CL_LAUNCH (self, k1, 1, &nb, &one, INTEGRAL_WHAT,
        GST_CL_ARG_PLANE (in, 0), GST_CL_ARG (w), GST_CL_ARG (h),
        GST_CL_ARG (self->band_start), GST_CL_ARG (p->accrow),
        GST_CL_ARG (out), GST_CL_ARG (off), GST_CL_ARG (arg));
  }
  return TRUE;
fail:
  return FALSE;
}

static gboolean
enqueue_box_mean (GstClIntegral * self, GstClFrame * in, GstClFrame * out)
{
  cl_int w = self->width, h = self->height, r;
  gsize lsz[2] = { 16, 16 };
  gsize gsz[2] = { gst_cl_global_size (w, 16), gst_cl_global_size (h, 16) };
  cl_uint p;

  GST_OBJECT_LOCK (self);
  r = self->radius;
  GST_OBJECT_UNLOCK (self);

  if (!self->gpu) {
    /* one pass, one work-item per band; rows claimed while running */
    gsize one = 1, nb = self->n_bands;
    cl_kernel k = g_atomic_int_get (&self->fast_ready) ?
        self->plane[0].fast : self->plane[0].k1;
    cl_uint arg = next_cpu_epoch (self, &self->plane[0]);

    GST_CL_LAUNCH (self, k, 1, &nb, &one, INTEGRAL_WHAT,
        GST_CL_ARG_PLANE (in, 0), GST_CL_ARG_PLANE (out, 0), GST_CL_ARG (w),
        GST_CL_ARG (h), GST_CL_ARG (r), GST_CL_ARG (self->band_start),
        GST_CL_ARG (self->plane[0].accrow), GST_CL_ARG (arg));
  } else if (self->box_tile && r <= BOX_TILE_MAX_RADIUS &&
      (self->box_pstride != 4 || (in->offset[0] % 4 == 0 &&
              in->stride[0] % 4 == 0 && out->offset[0] % 4 == 0 &&
              out->stride[0] % 4 == 0))) {
    /* one launch; tiles of box_tile_wg - 2r means by BOX_TILE_H rows;
     * whole windows divide by inv (integral.cl) */
    gsize tlsz[2] = { self->box_tile_wg, 1 };
    gsize means = self->box_tile_wg - 2 * r;
    gsize tgsz[2] = { ((gsize) w + means - 1) / means * self->box_tile_wg,
      ((gsize) h + BOX_TILE_H - 1) / BOX_TILE_H
    };
    cl_float inv = (cl_float) (1.0 / ((double) (2 * r + 1) * (2 * r + 1)));

    GST_CL_LAUNCH (self, self->box_tile, 2, tgsz, tlsz, INTEGRAL_WHAT,
        GST_CL_ARG_PLANE (in, 0), GST_CL_ARG_PLANE (out, 0), GST_CL_ARG (w),
        GST_CL_ARG (h), GST_CL_ARG (r), GST_CL_ARG (inv));
  } else {
    if (!enqueue_plane (self, &self->plane[0], in, self->box_ii))
      return FALSE;
    GST_CL_LAUNCH (self, self->box_kernel, 2, gsz, lsz, INTEGRAL_WHAT,
        GST_CL_ARG_PLANE (in, 0), GST_CL_ARG_PLANE (out, 0),
        GST_CL_ARG (self->box_ii), GST_CL_ARG (w), GST_CL_ARG (h),
        GST_CL_ARG (r));
  }

  /* chroma planes are copied unchanged */
  for (p = 1; p < in->n_planes; p++)
    if (!gst_cl_base_filter_copy_plane (GST_CL_BASE_FILTER (self), in, out, p))
      return FALSE;
  return TRUE;
fail:
  return FALSE;
}

static gboolean
gst_cl_integral_process (GstClBaseFilter * base, GstClFrame * in,
    GstClFrame * out)
{
  GstClIntegral *self = GST_CL_INTEGRAL (base);
  guint i;

  if (!self->n_planes) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no caps set before the first buffer"));
    return FALSE;
  }
  if (self->box_mean) {
    if (!enqueue_box_mean (self, in, out))
      return FALSE;
  } else {
    if (out->size < self->out_size) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
          ("output buffer of %" G_GSIZE_FORMAT " bytes, need %"
              G_GSIZE_FORMAT, out->size, self->out_size));
      return FALSE;
    }
    for (i = 0; i < self->n_planes; i++)
      if (!enqueue_plane (self, &self->plane[i], in, out->mem))
        return FALSE;
  }
  return TRUE;
}
