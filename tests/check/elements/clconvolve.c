/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvolve tests: every format, layout, border mode and preset, kernel
 * sizes 1x1..31x31 (also larger than the frame), the separable and 2-D
 * paths, both kernel variants (GST_CL_CONVOLVE_VARIANT=gpu runs the
 * local-memory tile kernel on PoCL), kernel changes while playing and
 * invalid kernels, all against tests/reference/convolve.c. Integer matrices
 * must match exactly; float matrices may differ by 1 only where the exact
 * value lies within the window of a .5 boundary that convolve.h derives. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>
#include <math.h>
#include <string.h>

#include "testframes.h"
#include "convolve.h"
#include "gstclconvolvekernel.h"

#define VARIANT_ENV "GST_CL_CONVOLVE_VARIANT"
#define SEPARABLE_ENV "GST_CL_CONVOLVE_SEPARABLE"
#define PX_WAIT_ENV "GST_CL_CONVOLVE_PX_WAIT"
#define PX_ENV "GST_CL_CONVOLVE_PX"
#define PXL_ENV "GST_CL_CONVOLVE_PX_LOCAL"
/* unset: conv2d_first until the current path is ready; "only", "off" */
#define FIRST_ENV "GST_CL_CONVOLVE_FIRST"

static const GstVideoFormat formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
};

static const gchar *border_names[] = { "clamp", "mirror", "wrap", "constant" };

typedef struct
{
  gdouble coef[31 * 31];
  gint width, height;
  gdouble divisor;              /* property value: 0 = auto */
  gdouble bias;
  gboolean absolute;
  gint border;
  guint border_value;
  gboolean chroma_filter;
  gint preset;                  /* 0: custom coef, else REF_PRESET_* */
  gdouble sigma;
  gint radius;
} Params;

static guint n_cases;

static void
params_init (Params * p)
{
  memset (p, 0, sizeof (*p));
  p->sigma = 1.0;
}

static void
params_preset (Params * p, gint preset, gdouble sigma, gint radius)
{
  p->preset = preset;
  p->sigma = sigma;
  p->radius = radius;
  ref_convolve_preset (preset, sigma, radius, p->coef, &p->width, &p->height);
}

static void
params_random (Params * p, gint w, gint h, gboolean integer, guint32 seed)
{
  guint32 state = seed * 747796405u + 1;
  gint i;

  p->preset = 0;
  p->width = w;
  p->height = h;
  for (i = 0; i < w * h; i++) {
    gint r = (gint) (test_rand (&state) % 9) - 3;
    p->coef[i] = integer ? r : r + (test_rand (&state) % 1000) / 1000.0;
  }
}

/* element properties from @p */
static void
apply_params (GstElement * e, const Params * p)
{
  static const gchar *presets[] = { "custom", "identity", "box", "gaussian",
    "sharpen", "laplacian", "sobel-x", "sobel-y", "emboss", "edge",
    "motion-blur"
  };

  g_object_set (e, "divisor", p->divisor, "bias", p->bias, "absolute",
      p->absolute, "border-value", p->border_value, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "border", border_names[p->border]);
  gst_util_set_object_arg (G_OBJECT (e), "chroma",
      p->chroma_filter ? "filter" : "copy");
  if (p->preset) {
    g_object_set (e, "sigma", p->sigma, "radius", p->radius, NULL);
    gst_util_set_object_arg (G_OBJECT (e), "preset", presets[p->preset]);
  } else {
    GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
    gint i;

    g_object_set (e, "kernel-width", p->width, "kernel-height", p->height,
        NULL);
    gst_value_array_init (&arr, p->width * p->height);
    g_value_init (&v, G_TYPE_DOUBLE);
    for (i = 0; i < p->width * p->height; i++) {
      g_value_set_double (&v, p->coef[i]);
      gst_value_array_append_value (&arr, &v);
    }
    g_object_set_property (G_OBJECT (e), "kernel", &arr);
    g_value_unset (&v);
    g_value_unset (&arr);
  }
}

static GstHarness *
harness_new (GstVideoFormat format, gint width, gint height)
{
  GstHarness *h = gst_harness_new ("clconvolve");
  GstCaps *caps = test_caps_new (format, width, height);

  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  return h;
}

static void
info_of (GstBuffer * buf, GstVideoFormat format, gint width, gint height,
    GstVideoInfo * info)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  guint p;

  gst_video_info_set_format (info, format, width, height);
  if (meta) {
    for (p = 0; p < meta->n_planes; p++) {
      info->offset[p] = meta->offset[p];
      info->stride[p] = meta->stride[p];
    }
  }
}

/* Checks @out (the element's output for @in) against the reference */
static void
check_output (GstBuffer * in, const GstVideoInfo * in_info, GstBuffer * out,
    const Params * p, const gchar * what)
{
  GstVideoInfo out_info;
  GstBuffer *expected = gst_buffer_copy_deep (in);
  gint maxv = GST_VIDEO_FORMAT_INFO_DEPTH (in_info->finfo, 0) > 8 ?
      65535 : 255;
  RefConvolve r = { p->width, p->height, p->coef, p->divisor, p->bias,
    p->absolute, p->border, MIN ((gint) p->border_value, maxv)
  };
  guint8 *tol;
  gsize bad;

  if (r.divisor == 0)
    r.divisor = ref_convolve_auto_divisor (p->coef, p->width * p->height);
  info_of (out, GST_VIDEO_INFO_FORMAT (in_info), GST_VIDEO_INFO_WIDTH (in_info),
      GST_VIDEO_INFO_HEIGHT (in_info), &out_info);
  tol = ref_convolve_frame (&r, in, in_info, expected, p->chroma_filter);
  bad = ref_convolve_compare (out, &out_info, expected, in_info, tol, what);
  if (bad)
    fail ("%s: %" G_GSIZE_FORMAT " samples differ from the reference", what,
        bad);
  n_cases++;
  g_free (tol);
  gst_buffer_unref (expected);
}

/* Frame @in (@info, @layout: its name in messages) through a fresh element
 * with @p, against the reference */
static void
run_frame (GstBuffer * in, const GstVideoInfo * info, gint layout,
    const Params * p)
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  gint width = GST_VIDEO_INFO_WIDTH (info), height =
      GST_VIDEO_INFO_HEIGHT (info);
  GstHarness *h = harness_new (format, width, height);
  GstBuffer *out;
  gchar *what;

  apply_params (h->element, p);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  what = g_strdup_printf ("%s %dx%d layout %d kernel %dx%d preset %d border "
      "%s%s%s", gst_video_format_to_string (format), width, height, layout,
      p->width, p->height, p->preset, border_names[p->border],
      g_getenv (VARIANT_ENV) ? " variant " : "",
      g_getenv (VARIANT_ENV) ? g_getenv (VARIANT_ENV) : "");
  check_output (in, info, out, p, what);
  g_free (what);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* One frame through a fresh element with @p */
static void
run_case (GstVideoFormat format, gint width, gint height, TestLayout layout,
    const Params * p, guint32 seed)
{
  GstVideoInfo info;
  GstBuffer *in = test_frame_new (format, width, height, layout, seed, &info);

  run_frame (in, &info, layout, p);
  gst_buffer_unref (in);
}

/* The same for a frame of 4-byte pixels whose rows are padded by @pad
 * bytes, a multiple of 4 (whole pixels: what conv2d_px and conv2d_pxl
 * take; the test layouts pad by odd amounts) */
static void
run_case_word_padded (GstVideoFormat format, gint width, gint height,
    gint pad, const Params * p, guint32 seed)
{
  GstVideoInfo info;
  /* a frame pad / 4 pixels wider, described as @width pixels */
  GstBuffer *in = test_frame_new (format, width + pad / 4, height,
      TEST_LAYOUT_PACKED, seed, &info);
  GstVideoMeta *meta = gst_buffer_get_video_meta (in);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { info.stride[0] };

  fail_unless (meta != NULL && pad % 4 == 0);
  gst_buffer_remove_meta (in, (GstMeta *) meta);
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE, format,
      width, height, 1, offset, stride);
  gst_video_info_set_format (&info, format, width, height);
  info.stride[0] = stride[0];
  info.size = (gsize) stride[0] * height;
  run_frame (in, &info, 100 + pad, p);
  gst_buffer_unref (in);
}

GST_START_TEST (test_formats_layouts)
{
  guint f, l, s;

  /* every format x layout x size up to 641x479; the matrix and border
   * rotate so each format meets integer and float paths and every border */
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (l = 0; l < 4; l++) {
      for (s = 0; s < 3; s++) {
        guint k = f + l + s;
        Params p;

        params_init (&p);
        if (k % 3 == 0)
          params_preset (&p, REF_PRESET_SHARPEN, 1, 0);
        else if (k % 3 == 1)
          params_preset (&p, REF_PRESET_GAUSSIAN, 1.0, 0);
        else
          params_random (&p, 5, 3, (k & 4) == 0, k);
        p.border = (f + l + s) % 4;
        p.border_value = 37 * (k + 1);
        p.chroma_filter = (f + l) % 2;
        run_case (formats[f], test_sizes[s].width, test_sizes[s].height, l,
            &p, 1000 * f + 10 * l + s);
      }
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_large_frames)
{
  static const GstVideoFormat big[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGB
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (big); i++) {
    Params p;

    params_init (&p);
    params_preset (&p, i % 2 ? REF_PRESET_MOTION_BLUR : REF_PRESET_GAUSSIAN,
        1.0, 0);
    p.border = i;
    p.border_value = 200;
    p.chroma_filter = TRUE;
    run_case (big[i], 1921, 1081, i % 4, &p, 77 + i);
  }
}

GST_END_TEST;

GST_START_TEST (test_borders)
{
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_NV21
  };
  static const TestSize sizes[] = { {1, 1}, {3, 5}, {2, 9}, {150, 37} };
  static const gint ksize[][2] = { {5, 5}, {3, 7}, {9, 9}, {31, 31} };
  guint f, b, s, k;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (b = 0; b < 4; b++)
      for (s = 0; s < G_N_ELEMENTS (sizes); s++)
        for (k = 0; k < G_N_ELEMENTS (ksize); k++) {
          Params p;

          params_init (&p);
          params_random (&p, ksize[k][0], ksize[k][1], (s + k) % 2, f + b + k);
          p.border = b;
          p.border_value = 1000 + 55 * s;
          p.bias = (k == 1) ? 100 : 0;
          p.chroma_filter = TRUE;
          if (k == 3 && s == 3 && f > 1)
            continue;           /* 31x31 on 150x37: two formats are enough */
          run_case (fmts[f], sizes[s].width, sizes[s].height,
              TEST_LAYOUT_PADDED, &p, 31 * b + s);
        }
}

GST_END_TEST;

GST_START_TEST (test_presets)
{
  gint preset;

  for (preset = REF_PRESET_IDENTITY; preset <= REF_PRESET_MOTION_BLUR;
      preset++) {
    guint v;

    for (v = 0; v < 3; v++) {
      Params p;

      params_init (&p);
      params_preset (&p, preset, v == 1 ? 2.0 : 1.0, v == 2 ? 2 : 0);
      p.absolute = v == 1;
      p.bias = v == 2 ? 128 : 0;
      p.border = (preset + v) % 4;
      p.border_value = 90;
      run_case (v == 2 ? GST_VIDEO_FORMAT_GRAY16_LE : GST_VIDEO_FORMAT_RGBA,
          v == 0 ? 641 : 67, v == 0 ? 479 : 5, TEST_LAYOUT_PADDED, &p,
          preset * 3 + v);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_kernel_sizes)
{
  gint size;

  for (size = 1; size <= 31; size += 2) {
    guint i;

    for (i = 0; i < 4; i++) {
      Params p;

      params_init (&p);
      /* square, wide and tall; integer and float */
      params_random (&p, i == 2 ? 1 : size, i == 3 ? 1 : size, i % 2,
          size * 4 + i);
      p.border = (size / 2 + i) % 4;
      p.border_value = 3 * size;
      /* a negative divisor on the integer path; a fractional bias and
       * magnitudes on the float path */
      if (i == 3) {
        p.divisor = -size;
        p.bias = 200;
      } else if (i == 2) {
        p.bias = 10.5;
        p.absolute = TRUE;
      }
      run_case (i % 2 ? GST_VIDEO_FORMAT_RGB : GST_VIDEO_FORMAT_GRAY8,
          size < 9 ? 97 : 3 * size + 2, i == 0 ? 61 : 7,
          TEST_LAYOUT_MISALIGNED, &p, size + i);
    }
  }
}

GST_END_TEST;

/* the same frame through the separable path (CPU fused kernel), the forced
 * 2-D path and the GPU variant's two-pass separable path */
GST_START_TEST (test_separable)
{
  static const gdouble int_sep[15] = { 1, 0, -1, 2, 0, -2, 3, 0, -3, 2, 0,
    -2, 1, 0, -1
  };
  guint c;

  for (c = 0; c < 5; c++) {
    GstVideoFormat format = c % 2 ? GST_VIDEO_FORMAT_RGBA :
        GST_VIDEO_FORMAT_GRAY16_LE;
    GstBuffer *in, *out[3];
    GstVideoInfo info, oinfo;
    GstBuffer *expected;
    guint8 *tol;
    Params p;
    RefConvolve r;
    guint pass;

    params_init (&p);
    if (c == 0)
      params_preset (&p, REF_PRESET_GAUSSIAN, 2.5, 0);
    else if (c == 1)
      params_preset (&p, REF_PRESET_BOX, 1, 4);
    else if (c == 2) {
      memcpy (p.coef, int_sep, sizeof (int_sep));
      p.width = 3;
      p.height = 5;
      p.absolute = TRUE;
    } else if (c == 3) {
      params_preset (&p, REF_PRESET_GAUSSIAN, 0.8, 15);
    } else {
      params_preset (&p, REF_PRESET_GAUSSIAN, 1.0, 0);
      p.border = REF_BORDER_CONSTANT;
      p.border_value = 250;
    }
    if (c < 4)
      p.border = c;

    in = test_frame_new (format, 203, 117, TEST_LAYOUT_PADDED, c, &info);
    for (pass = 0; pass < 3; pass++) {
      static const gchar *names[] = { "separable", "2-D", "gpu separable" };
      GstHarness *h;

      g_setenv (SEPARABLE_ENV, pass == 1 ? "0" : "1", TRUE);
      g_setenv (VARIANT_ENV, pass == 2 ? "gpu" : "cpu", TRUE);
      h = harness_new (format, 203, 117);
      apply_params (h->element, &p);
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_OK);
      out[pass] = gst_harness_pull (h);
      check_output (in, &info, out[pass], &p, names[pass]);
      gst_harness_teardown (h);
    }
    g_unsetenv (SEPARABLE_ENV);
    g_unsetenv (VARIANT_ENV);

    /* and with each other: equal but where +-1 is allowed */
    r = (RefConvolve) {
    p.width, p.height, p.coef, ref_convolve_auto_divisor (p.coef,
          p.width * p.height), p.bias, p.absolute, p.border,
          p.border_value};
    expected = gst_buffer_copy_deep (in);
    tol = ref_convolve_frame (&r, in, &info, expected, FALSE);
    info_of (out[0], format, 203, 117, &oinfo);
    for (pass = 1; pass < 3; pass++) {
      GstVideoInfo oinfo1;
      info_of (out[pass], format, 203, 117, &oinfo1);
      fail_unless_equals_int (ref_convolve_compare (out[0], &oinfo, out[pass],
              &oinfo1, tol, "separable vs 2-D"), 0);
      if (ref_convolve_is_integer (&r))
        fail_unless (test_frames_equal (out[0], out[pass], &oinfo));
    }
    g_free (tol);
    gst_buffer_unref (expected);
    for (pass = 0; pass < 3; pass++)
      gst_buffer_unref (out[pass]);
    gst_buffer_unref (in);
  }
}

GST_END_TEST;

/* Fixed point (CPU devices, 8-bit samples, float matrices of non-negative
 * coefficients): every 8-bit format and layout, odd and tiny sizes, every
 * border, the 2-D and separable kernels, against the reference's
 * fixed-point window; a bias or a negative coefficient (float path) and
 * 16-bit samples beside them */
GST_START_TEST (test_fixed_point)
{
  static const TestSize sizes[] = { {1, 1}, {3, 5}, {2, 9}, {67, 5},
  {641, 479}
  };
  /* 641x479 only where test_sizes has it (not under memcheck) */
  guint n_sizes = n_test_sizes > 2 ? 5 : 4;
  guint f, m, n = 0;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (m = 0; m < 8; m++, n++) {
      const TestSize *size = &sizes[(f + m) % n_sizes];
      guint32 state = 7 * n + 1;
      Params p;
      gint i, j;

      params_init (&p);
      switch (m) {
        case 0:                /* separable: the fused kernel */
          params_preset (&p, REF_PRESET_GAUSSIAN, 1.4, 3);
          break;
        case 1:                /* sparse 2-D */
          params_preset (&p, REF_PRESET_MOTION_BLUR, 1, 0);
          break;
        case 2:                /* dense 2-D, divisor not the sum */
          params_random (&p, 5, 3, FALSE, n);
          for (i = 0; i < 15; i++)
            p.coef[i] = fabs (p.coef[i]) + 0.25;
          p.divisor = 40;
          break;
        case 3:                /* separable, rows of another scale */
          p.width = 3;
          p.height = 7;
          for (i = 0; i < 7; i++)
            for (j = 0; j < 3; j++)
              p.coef[i * 3 + j] = (1 + i % 3) * (0.5 + j) * 1.5;
          break;
        case 4:                /* 31x31: many taps, sums at the limit */
          params_preset (&p, REF_PRESET_GAUSSIAN, 6, 15);
          break;
        case 5:                /* float path beside it: a bias */
          params_preset (&p, REF_PRESET_GAUSSIAN, 1, 2);
          p.bias = 0.5;
          break;
        case 7:                /* separable, mirrored taps of 1/2: each
                                 * pass's pair too big to take at once */
          p.width = p.height = 3;
          for (i = 0; i < 9; i++)
            p.coef[i] = (i % 2 == 0 && i != 4) ? 0.25 : 0;
          break;
        default:               /* float path: a negative coefficient */
          params_random (&p, 3, 3, FALSE, n);
          for (i = 0; i < 9; i++)
            p.coef[i] = (test_rand (&state) % 1000) / 100.0;
          p.coef[4] = -1;
          break;
      }
      p.border = (f + m) % 4;
      p.border_value = m % 2 ? 255 : 17;
      p.chroma_filter = (f + m) % 2;
      run_case (formats[f], size->width, size->height, (f + m) % 4, &p, n);
    }
  }
  /* a 2-D float matrix whose first, middle and last rows and a column are
   * zero: its taps span 5 rows, not 7, with a zero row between (the edge
   * work-items fill only the rows from the first tap's to the last's) */
  for (f = 0; f < G_N_ELEMENTS (formats); f++, n++) {
    const TestSize *size = &sizes[f % n_sizes];
    Params p;
    gint i, j;

    params_init (&p);
    p.width = p.height = 7;
    for (i = 0; i < 7; i++)
      for (j = 0; j < 7; j++)
        p.coef[i * 7 + j] = (i % 3 == 0 || j == 1) ? 0 :
            0.35 * (1 + (i * 3 + j * j) % 5);
    p.border = f % 4;
    p.border_value = 200;
    p.chroma_filter = f % 2;
    run_case (formats[f], size->width, size->height, f % 4, &p, n);
  }
}

GST_END_TEST;

/* Exact sums in 16-bit lanes (CPU devices, 8-bit samples: integer separable
 * matrices of non-negative factors, kernels/convolve-cpu-fixed.cl's EXACT): the
 * division by an invariant that rounds them (fix_div_new, fix_round), the same
 * steps in 16-bit arithmetic, for every sum and every divisor the element
 * allows */
static guint
exact_divide (guint n, guint d)
{
  guint l = 32 - __builtin_clz (d - 1);
  guint m = ((((1u << l) - d) << 16) / d + 1) & 0xffff;
  guint t = (n * m) >> 16;

  return ((t + ((n - t) >> 1)) * (1u << (17 - l))) >> 16;
}

GST_START_TEST (test_exact_division)
{
  guint d, n, wrong = 0;

  for (d = GST_CL_CONVOLVE_EXACT16_MIN_DIVISOR;
      d <= GST_CL_CONVOLVE_EXACT16_MAX_DIVISOR; d++)
    for (n = 0; n <= 65535; n++)
      if (exact_divide (n, d) != n / d && wrong++ < 5)
        GST_ERROR ("%u / %u: %u", n, d, exact_divide (n, d));
  fail_unless_equals_int (wrong, 0);
}

GST_END_TEST;

/* Random frames whose samples are remapped: BRIGHT to 250..255 (sums near
 * the top of the 16-bit lanes, with every rounding), BINARY to 0 or 255 (a
 * small matrix's sums reach both ends of their range) */
typedef enum
{
  SAMPLES_BRIGHT,
  SAMPLES_BINARY,
} Samples;

static GstBuffer *
remapped_frame_new (GstVideoFormat format, gint width, gint height,
    TestLayout layout, guint32 seed, Samples samples, GstVideoInfo * info)
{
  GstBuffer *buf = test_frame_new (format, width, height, layout, seed, info);
  guint i;
  gsize j;

  for (i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    GstMapInfo map;

    fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
    for (j = 0; j < map.size; j++)
      map.data[j] = samples == SAMPLES_BRIGHT ? 250 + map.data[j] % 6 :
          (map.data[j] & 1) ? 255 : 0;
    gst_memory_unmap (mem, &map);
  }
  return buf;
}

/* @in through a fresh element given @p before its caps, as gst-launch
 * does: a stream that starts on a matrix of exact sums takes sep_fixed
 * from its first frame (the suite turns conv2d_first off) */
static void
run_frame_set_first (GstBuffer * in, const GstVideoInfo * info,
    const Params * p)
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  gint width = GST_VIDEO_INFO_WIDTH (info), height =
      GST_VIDEO_INFO_HEIGHT (info);
  GstHarness *h = gst_harness_new ("clconvolve");
  GstCaps *caps = test_caps_new (format, width, height);
  GstBuffer *out;
  gchar *what;

  apply_params (h->element, p);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  what = g_strdup_printf ("%s %dx%d kernel %dx%d preset %d divisor %g "
      "border %s", gst_video_format_to_string (format), width, height,
      p->width, p->height, p->preset, p->divisor, border_names[p->border]);
  check_output (in, info, out, p, what);
  g_free (what);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* The same on frames: every format and layout, odd and tiny sizes, every
 * border, random and bright frames, bit-exact against the reference: box
 * blurs at both ends of the range (3x3; 15x15, sums up to 57375), a
 * binomial blur whose sums reach 65408 with half its divisor (256), a
 * divisor that is not the sum, row coefficients too large to take in
 * mirrored pairs, and box 17x17, whose sums do not fit (sep_strips) */
GST_START_TEST (test_exact_sums)
{
  static const TestSize sizes[] = { {1, 1}, {3, 5}, {2, 9}, {67, 5},
  {641, 479}
  };
  static const gdouble binomial[5] = { 1, 4, 6, 4, 1 };
  guint n_sizes = n_test_sizes > 2 ? 5 : 4;
  guint f, m, n = 0;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    if (GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info (formats[f]),
            0) > 8)
      continue;
    for (m = 0; m < 6; m++, n++) {
      const TestSize *size = &sizes[(f + m) % n_sizes];
      GstVideoInfo info;
      GstBuffer *in;
      Params p;
      gint i, j;

      params_init (&p);
      switch (m) {
        case 0:
          params_preset (&p, REF_PRESET_BOX, 1, 1);
          break;
        case 1:
          params_preset (&p, REF_PRESET_BOX, 1, 7);
          break;
        case 2:
          p.width = p.height = 5;
          for (i = 0; i < 5; i++)
            for (j = 0; j < 5; j++)
              p.coef[i * 5 + j] = binomial[i] * binomial[j];
          break;
        case 3:
          p.width = p.height = 3;
          for (i = 0; i < 9; i++)
            p.coef[i] = (1 + i / 3 % 2) * (1 + i % 3 % 2);
          p.divisor = 1000;
          break;
        case 4:
          p.width = p.height = 3;
          p.coef[3] = p.coef[5] = 128;
          break;
        default:
          params_preset (&p, REF_PRESET_BOX, 1, 8);
          break;
      }
      p.border = (f + m) % 4;
      p.border_value = m % 2 ? 255 : 17;
      p.chroma_filter = (f + m) % 2;
      in = (m + f) % 2 ? remapped_frame_new (formats[f], size->width,
          size->height, (f + m) % 4, n, SAMPLES_BRIGHT, &info) :
          test_frame_new (formats[f], size->width, size->height, (f + m) % 4,
          n, &info);
      run_frame_set_first (in, &info, &p);
      gst_buffer_unref (in);
    }
  }
}

GST_END_TEST;

/* Integer 2-D matrices of any sign whose sums span at most 2^16 values
 * (conv2d_fixed's exact 16-bit lanes on CPU devices, from the first frame
 * of a stream that starts on them), on every 8-bit format, odd and tiny
 * sizes, every layout and border, random, bright and 0/255 frames,
 * bit-exact against the reference: the presets (with magnitude, bias, a
 * negative divisor; sobel, separable, takes this path too), 1x3 matrices whose magnitudes sum to 257 (the lanes'
 * whole range: 255 * 257 = 65535) and 258 (past it: the 32-bit kernel), a
 * 5x5 whose magnitudes sum to 257, a 9x9, 1-row and 1-column matrices,
 * and each way the kernel finishes a sum (see fix_div_2d_new): divisors
 * 1, 2, 3 to 255 and above (32-bit finishing), of either sign, biases that
 * move the sums either way and past 65535, with and without magnitude */
typedef struct
{
  gdouble coef[9];
  gint width, height;
  gdouble divisor, bias;
  gboolean absolute;
} Finish2d;

static const Finish2d finish_2d[] = {
  /* value + K */
  {{0, -1, 0, -1, 5, -1, 0, -1, 0}, 3, 3, 1, 1100, FALSE},
  {{0, -1, 0, -1, 5, -1, 0, -1, 0}, 3, 3, 2, 0, FALSE},
  /* K - value */
  {{0, -1, 0, -1, 5, -1, 0, -1, 0}, 3, 3, -2, 300, FALSE},
  /* K past 65535: (65535 - u) - (65535 - K) */
  {{-127, 3, -127}, 3, 1, -1, 1000, FALSE},
  /* magnitude + K */
  {{-2, -1, 0, -1, 1, 1, 0, 1, 2}, 3, 3, 3, 50, TRUE},
  /* divisors above 255: 32-bit finishing */
  {{0, 30, 0, 30, -120, 30, 0, 30, 0}, 3, 3, 300, 10, FALSE},
  {{0, 30, 0, 30, -120, 30, 0, 30, 0}, 3, 3, -1000, 20, TRUE},
};

GST_START_TEST (test_exact_sums_2d)
{
  static const TestSize sizes[] = { {1, 1}, {3, 5}, {2, 9}, {67, 5},
  {641, 479}
  };
  static const gint presets[] = { REF_PRESET_SHARPEN, REF_PRESET_EDGE,
    REF_PRESET_EMBOSS, REF_PRESET_LAPLACIAN, REF_PRESET_SOBEL_X,
    REF_PRESET_SOBEL_Y
  };
  guint n_sizes = n_test_sizes > 2 ? 5 : 4;
  guint n_cases_2d = 12 + G_N_ELEMENTS (finish_2d);
  guint f, m, n = 0;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    if (GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info (formats[f]),
            0) > 8)
      continue;
    for (m = 0; m < n_cases_2d; m++, n++) {
      const TestSize *size = &sizes[(f + m) % n_sizes];
      guint32 state = 7919 * n + 1;
      gboolean binary = m == 6 || m == 10 || (m + f) % 3 == 1;
      gint i, abssum = 0;
      GstVideoInfo info;
      GstBuffer *in;
      Params p;

      params_init (&p);
      if (m < G_N_ELEMENTS (presets)) {
        params_preset (&p, presets[m], 1, 0);
        p.absolute = m == 1 || m == 4;
        p.bias = m == 2 ? 128 : m == 5 ? 64 : 0;
        p.divisor = m == 3 ? -3 : 0;
      } else if (m == 6 || m == 10) {
        /* the lanes' whole range (255 * 257 = 65535) and one past it
         * (258: the 32-bit kernel), reached by 0 255 0 on 0/255 frames */
        p.width = 3;
        p.height = 1;
        p.coef[0] = p.coef[2] = m == 6 ? -127 : -128;
        p.coef[1] = m == 6 ? 3 : 2;
        p.divisor = 1;
        p.bias = m == 6 ? -600 : -300;
      } else if (m == 11) {
        /* a 5x5 whose magnitudes sum to 257 */
        p.width = p.height = 5;
        for (i = 0; i < 25; i++) {
          p.coef[i] = (gint) (test_rand (&state) % 25) - 12;
          abssum += i == 12 ? 0 : (gint) fabs (p.coef[i]);
        }
        fail_unless (abssum <= 257);
        p.coef[12] = 257 - abssum;
      } else if (m == 7) {
        params_random (&p, 9, 9, TRUE, n);
        p.divisor = 7;
        p.absolute = TRUE;
        p.bias = -5;
      } else if (m < 10) {
        params_random (&p, m == 8 ? 7 : 1, m == 8 ? 1 : 7, TRUE, n);
        p.bias = 20;
      } else {
        const Finish2d *c = &finish_2d[m - 12];

        p.width = c->width;
        p.height = c->height;
        memcpy (p.coef, c->coef, sizeof (c->coef));
        p.divisor = c->divisor;
        p.bias = c->bias;
        p.absolute = c->absolute;
      }
      p.border = (f + m) % 4;
      p.border_value = m % 2 ? 255 : 17;
      p.chroma_filter = (f + m) % 2;
      if (binary || (m + f) % 3 == 0)
        in = remapped_frame_new (formats[f], size->width, size->height,
            (f + m) % 4, n, binary ? SAMPLES_BINARY : SAMPLES_BRIGHT, &info);
      else
        in = test_frame_new (formats[f], size->width, size->height,
            (f + m) % 4, n, &info);
      run_frame_set_first (in, &info, &p);
      gst_buffer_unref (in);
    }
  }
}

GST_END_TEST;

/* A non-live stream that starts on another matrix: box blurs run
 * sep_strips (exact as well) until a job of the warm-up worker has
 * prepared sep_fixed (and conv2d_fixed), then
 * sep_fixed, its taps uploaded again; a matrix with a negative factor
 * (sep_strips), the box again and sharpen (conv2d_fixed) after it; every
 * frame bit-exact. (Only
 * CPU devices' strip kernels have sep_fixed: elsewhere the frames are
 * checked all the same.) */
GST_START_TEST (test_exact_sums_while_playing)
{
  static const gdouble sobel[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  GstHarness *h = gst_harness_new ("clconvolve");
  GstCaps *caps = test_caps_new (GST_VIDEO_FORMAT_RGBA, 133, 61);
  GstVideoInfo info;
  GstBuffer *in = test_frame_new (GST_VIDEO_FORMAT_RGBA, 133, 61,
      TEST_LAYOUT_PADDED, 5, &info);
  /* static: the watch outlives the test */
  static gint ready;
  /* GST_CL_CONVOLVE_FIRST=only (CI's second pass): every frame through
   * conv2d_first, nothing prepared */
  gboolean first_only = !g_strcmp0 (g_getenv (FIRST_ENV), "only");
  gboolean expect_fixed = FALSE;
  gint frames_after = 0, i;
  Params p;

  g_atomic_int_set (&ready, 0);
  test_log_watch ("clconvolve", "sep_fixed for exact sums ready", &ready);
  /* not live: a live stream prepares only what it starts on */
  gst_harness_set_live (h, FALSE);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  params_init (&p);
  params_preset (&p, REF_PRESET_GAUSSIAN, 1.2, 2);
  apply_params (h->element, &p);
  for (i = 0; i < (expect_fixed ? 400 : 3) && frames_after < 3; i++) {
    GstBuffer *out;

    if (i == 1) {
      params_init (&p);
      params_preset (&p, REF_PRESET_BOX, 1, 3);
      apply_params (h->element, &p);
    }
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    check_output (in, &info, out, &p, i == 0 ? "gaussian" : ready ?
        "box, sep_fixed" : "box, before sep_fixed");
    gst_buffer_unref (out);
    if (i == 0)
      expect_fixed = !first_only && test_element_on_cpu_device (h->element)
          && g_strcmp0 (g_getenv (VARIANT_ENV), "gpu") != 0;
    frames_after += g_atomic_int_get (&ready) != 0;
    if (!g_atomic_int_get (&ready) && expect_fixed)
      g_usleep (20000);
  }
  fail_unless (!expect_fixed || g_atomic_int_get (&ready),
      "sep_fixed never became ready");
  for (i = 0; i < 3; i++) {
    static const gchar *what[] = { "sobel after", "box after",
      "sharpen after"
    };
    GstBuffer *out;

    params_init (&p);
    if (i == 0) {
      memcpy (p.coef, sobel, sizeof (sobel));
      p.width = p.height = 3;
      p.absolute = TRUE;
    } else if (i == 1) {
      params_preset (&p, REF_PRESET_BOX, 1, 7);
    } else {
      params_preset (&p, REF_PRESET_SHARPEN, 1, 0);
      p.bias = -10;
    }
    apply_params (h->element, &p);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    check_output (in, &info, out, &p, what[i]);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* One element renegotiated between formats with and without a pass-through
 * byte: each caps builds the program its planes need (on CPU devices the
 * colour path only where a plane takes it), against the reference */
GST_START_TEST (test_caps_change_format)
{
  static const GstVideoFormat order[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_ARGB,
    GST_VIDEO_FORMAT_RGBA
  };
  GstHarness *h = gst_harness_new ("clconvolve");
  Params p;
  guint i;

  params_init (&p);
  params_preset (&p, REF_PRESET_GAUSSIAN, 1.4, 3);
  apply_params (h->element, &p);
  for (i = 0; i < G_N_ELEMENTS (order); i++) {
    GstVideoInfo info;
    GstCaps *caps = test_caps_new (order[i], 203, 37);
    GstBuffer *in = test_frame_new (order[i], 203, 37, TEST_LAYOUT_PACKED,
        90 + i, &info), *out;

    gst_harness_set_caps (h, gst_caps_ref (caps), caps);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    check_output (in, &info, out, &p, gst_video_format_to_string (order[i]));
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The local-memory tile kernel, run on whatever device is here */
GST_START_TEST (test_gpu_variant)
{
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_I420
  };
  guint f, b;

  g_setenv (VARIANT_ENV, "gpu", TRUE);
  g_setenv (SEPARABLE_ENV, "0", TRUE);
  /* each one-frame element through its conv2d_px kernel where one applies */
  g_setenv (PX_WAIT_ENV, "1", TRUE);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    for (b = 0; b < 4; b++) {
      Params p;

      params_init (&p);
      if (b == 3)
        params_preset (&p, REF_PRESET_MOTION_BLUR, 1, 0);
      else
        params_random (&p, b == 1 ? 31 : 3, b == 2 ? 31 : 5, (f + b) % 2,
            f + b);
      p.border = (f + b) % 4;
      p.border_value = 11 * f;
      p.chroma_filter = b % 2;
      run_case (fmts[f], b == 0 ? 641 : 70, b == 0 ? 479 : 3 + 2 * b,
          (f + b) % 4, &p, f * 4 + b);
    }
  }
  {
    Params p;

    params_init (&p);
    params_random (&p, 31, 31, TRUE, 5);
    run_case (GST_VIDEO_FORMAT_GRAY8, 1, 1, TEST_LAYOUT_PACKED, &p, 1);
  }
  /* 16-bit samples, an integer matrix whose sums pass 2^24: exact in
   * integers only, so not through conv2d_px's float sums */
  {
    Params p;
    gint i;

    params_init (&p);
    params_random (&p, 5, 5, TRUE, 9);
    for (i = 0; i < 25; i++)
      p.coef[i] *= 60;
    run_case (GST_VIDEO_FORMAT_GRAY16_LE, 67, 41, TEST_LAYOUT_PADDED, &p, 9);
  }
  /* conv2d_reg1..5 (matrices up to 11x11, padded to squares): every
   * radius, rectangles, several 32-row tiles with a partial last one */
  {
    static const gint ks[][2] = { {1, 1}, {3, 3}, {5, 1}, {7, 7}, {9, 5},
    {1, 9}, {11, 11}, {11, 3}
    };
    guint k;

    for (k = 0; k < G_N_ELEMENTS (ks); k++) {
      Params p;

      params_init (&p);
      params_random (&p, ks[k][0], ks[k][1], k % 2, 40 + k);
      p.border = k % 4;
      p.border_value = 7 * k;
      p.chroma_filter = k % 2;
      run_case (fmts[k % G_N_ELEMENTS (fmts)], 97 + 2 * k, 37 + 17 * k,
          k % 4, &p, 50 + k);
    }
  }
  g_unsetenv (PX_WAIT_ENV);
  g_unsetenv (SEPARABLE_ENV);
  g_unsetenv (VARIANT_ENV);
}

GST_END_TEST;

/* conv2d_px launches logged by clconvolve ("conv2d_px<R>_<CH>, taps
 * 0x<mask>"), and conv2d_first's frames ("conv2d_first (frame <n>)") */
static GMutex px_log_lock;
static GString *px_log;

static void
collect_px_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);

  if (level != GST_LEVEL_LOG || !strstr (text, "conv2d_"))
    return;
  g_mutex_lock (&px_log_lock);
  if (px_log) {
    g_string_append (px_log, text);
    g_string_append_c (px_log, '\n');
  }
  g_mutex_unlock (&px_log_lock);
}

static void
px_log_start (void)
{
  static gboolean added = FALSE;

  g_mutex_lock (&px_log_lock);
  px_log = g_string_new (NULL);
  g_mutex_unlock (&px_log_lock);
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("clconvolve", GST_LEVEL_LOG);
  /* added once and never removed: GStreamer leaks a removed entry */
  if (!added)
    gst_debug_add_log_function (collect_px_log, NULL, NULL);
  added = TRUE;
}

/* whether the log since the last call holds @line; clears it */
static gboolean
px_log_take (const gchar * line)
{
  gboolean found;

  g_mutex_lock (&px_log_lock);
  found = strstr (px_log->str, line) != NULL;
  g_string_truncate (px_log, 0);
  g_mutex_unlock (&px_log_lock);
  return found;
}

/* whether the log since the last px_log_take holds @line */
static gboolean
px_log_holds (const gchar * line)
{
  gboolean found;

  g_mutex_lock (&px_log_lock);
  found = strstr (px_log->str, line) != NULL;
  g_mutex_unlock (&px_log_lock);
  return found;
}

static void
px_log_stop (void)
{
  gst_debug_unset_threshold_for_name ("clconvolve");
  g_mutex_lock (&px_log_lock);
  g_string_free (px_log, TRUE);
  px_log = NULL;
  g_mutex_unlock (&px_log_lock);
}

/* The log line of conv2d_px for matrix @p on @ch-sample planes: with
 * @sparse the zero pattern within the (2R+1)^2 square, computed here
 * independently (for the fused kernel of a @separable matrix, the non-zero
 * columns, i.e. the row factor, then the non-zero rows), else every tap */
static gchar *
px_line (const Params * p, gint ch, gboolean separable, gboolean sparse)
{
  gint rx = p->width / 2, ry = p->height / 2, r = MAX (MAX (rx, ry), 1);
  gint side = 2 * r + 1, i, j;
  guint64 mask = 0;

  for (i = 0; i < p->height; i++)
    for (j = 0; j < p->width; j++)
      if (!sparse)
        mask = (G_GUINT64_CONSTANT (1) << (separable ? 2 * side :
                side * side)) - 1;
      else if (p->coef[i * p->width + j] != 0 && separable)
        mask |= G_GUINT64_CONSTANT (1) << (j - rx + r) |
            G_GUINT64_CONSTANT (1) << (side + i - ry + r);
      else if (p->coef[i * p->width + j] != 0)
        mask |= G_GUINT64_CONSTANT (1) << ((i - ry + r) * side + j - rx + r);
  return g_strdup_printf ("conv2d_px%d_%d%s, taps 0x%" G_GINT64_MODIFIER "x",
      r, ch, separable ? " separable" : "", mask);
}

/* Whether clconvolve's default leaves @p's zero taps out of its conv2d_px
 * kernel: 2-D matrices with at most half the taps of their square */
static gboolean
px_default_sparse (const Params * p, gboolean separable)
{
  gint r = MAX (MAX (p->width / 2, p->height / 2), 1), i, n = 0;

  for (i = 0; i < p->width * p->height; i++)
    n += p->coef[i] != 0;
  return !separable && 2 * n <= (2 * r + 1) * (2 * r + 1);
}

/* A random matrix with about half its taps zero, never a whole row */
static void
params_sparse (Params * p, gint w, gint h, gboolean integer, guint32 seed)
{
  guint32 state = seed * 2891336453u + 7;
  gint i;

  params_random (p, w, h, integer, seed);
  for (i = 0; i < w * h; i++)
    if (i % w != (gint) (test_rand (&state) % w) && test_rand (&state) % 2)
      p->coef[i] = 0;
}

/* One frame of @in through a fresh element with @p and conv2d_px off: the
 * generic kernels (conv2d_reg, or with @separable the two passes) */
static GstBuffer *
generic_output (GstBuffer * in, const Params * p, gboolean separable)
{
  gchar *px = g_strdup (g_getenv (PX_ENV));
  GstHarness *h;
  GstBuffer *out;

  g_setenv (PX_ENV, "off", TRUE);
  if (separable)
    g_setenv (SEPARABLE_ENV, "1", TRUE);
  h = harness_new (GST_VIDEO_FORMAT_RGBA, 160, 90);
  apply_params (h->element, p);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  gst_harness_teardown (h);
  if (px)
    g_setenv (PX_ENV, px, TRUE);
  else
    g_unsetenv (PX_ENV);
  g_unsetenv (SEPARABLE_ENV);
  g_free (px);
  return out;
}

/* A stream whose frames run the generic kernels until its conv2d_px
 * variant is built, then that: every frame checked, and bit for bit the
 * generic kernels' output */
static void
check_px_switch (const Params * p, gboolean separable)
{
  GstHarness *h;
  GstVideoInfo info;
  GstBuffer *in = test_frame_new (GST_VIDEO_FORMAT_RGBA, 160, 90,
      TEST_LAYOUT_PACKED, 9, &info), *generic;
  const gchar *env = g_getenv (PX_ENV);
  gchar *line = px_line (p, 4, separable, env ? !g_str_equal (env, "full") :
      px_default_sparse (p, separable));
  gboolean px = FALSE;
  gint64 end = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

  generic = generic_output (in, p, separable);
  check_output (in, &info, generic, p, "generic kernel");
  px_log_take ("");
  h = harness_new (GST_VIDEO_FORMAT_RGBA, 160, 90);
  apply_params (h->element, p);
  while (!px && g_get_monotonic_time () < end) {
    GstBuffer *out;

    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    px = px_log_take (line);
    fail_unless (test_frames_equal (generic, out, &info),
        "%s: not the generic kernel's output (%s)", px ? line :
        "generic kernel", separable ? "separable" : "2-D");
    gst_buffer_unref (out);
    g_usleep (20 * 1000);
  }
  fail_unless (px, "never switched to %s", line);
  gst_buffer_unref (generic);
  gst_buffer_unref (in);
  g_free (line);
  gst_harness_teardown (h);
}

/* Matrices with zero taps, and separable ones, through the conv2d_px
 * kernel specialised to them (GST_CL_CONVOLVE_PX=sparse; forced onto this
 * device), against the reference, then the default kernels (zero taps
 * left out of mostly-zero 2-D matrices only, the fused separable one); and
 * streams switching to them */
GST_START_TEST (test_px_sparse)
{
  static const gdouble int_sep[15] = { 1, 0, -1, 2, 0, -2, 3, 0, -3, 2, 0,
    -2, 1, 0, -1
  };
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_GRAY16_LE,
    GST_VIDEO_FORMAT_I420
  };
  static const gint ks[][2] = { {7, 7}, {5, 5}, {7, 3}, {3, 5}, {7, 7} };
  guint c;

  g_setenv (VARIANT_ENV, "gpu", TRUE);
  g_setenv (PX_WAIT_ENV, "1", TRUE);
  g_setenv (PX_ENV, "sparse", TRUE);
  px_log_start ();
  for (c = 0; c < 4 * G_N_ELEMENTS (fmts); c++) {
    GstVideoFormat format = fmts[c % G_N_ELEMENTS (fmts)];
    gint ch = GST_VIDEO_FORMAT_INFO_PSTRIDE (gst_video_format_get_info
        (format), 0) == 4 ? 4 : 1;
    gboolean separable = c % 15 >= 2 * G_N_ELEMENTS (fmts);
    gchar *line;
    Params p;

    /* the last five: default kernels */
    if (c == 15)
      g_unsetenv (PX_ENV);
    params_init (&p);
    if (c == 0 || c == 6 || c == 15)
      params_preset (&p, REF_PRESET_MOTION_BLUR, 1, 0);
    else if (c == 16)
      params_sparse (&p, 5, 5, TRUE, c);
    else if (c == 17 || c == 19)
      params_preset (&p, REF_PRESET_GAUSSIAN, c == 17 ? 1.0 : 0.6, 0);
    else if (c == 18)
      params_preset (&p, REF_PRESET_SOBEL_Y, 1, 0);
    else if (c == 10 || c == 14)
      params_preset (&p, REF_PRESET_GAUSSIAN, c == 10 ? 1.0 : 0.6, 0);
    else if (c == 11) {
      memcpy (p.coef, int_sep, sizeof (int_sep));
      p.width = 3;
      p.height = 5;
      p.absolute = TRUE;
    } else if (c == 13) {
      /* zeros in both factors, a whole row of them */
      static const gdouble row[5] = { 1, 0, 3, 0, -1 }, col[3] = { 2, 0, -1 };
      gint i;

      p.width = 5;
      p.height = 3;
      for (i = 0; i < 15; i++)
        p.coef[i] = col[i / 5] * row[i % 5];
    } else if (c == 12)
      params_preset (&p, REF_PRESET_BOX, 1, 2);
    else
      params_sparse (&p, ks[c % 5][0], ks[c % 5][1], c % 2, c);
    p.border = c % 4;
    p.border_value = 23 * c;
    /* 4-sample pixels take conv2d_px on rows of whole 32-bit words */
    run_case (format, 131 + c, 45 + 3 * c, ch == 4 ? TEST_LAYOUT_PACKED :
        c % 4, &p, 300 + c);
    separable = separable || c >= 17;
    line = px_line (&p, ch, separable, c < 15 ||
        px_default_sparse (&p, separable));
    fail_unless (px_log_take (line), "case %u: no %s", c, line);
    g_free (line);
  }
  g_unsetenv (PX_WAIT_ENV);

  /* not waiting: a sparse matrix, and a gaussian with the constant border
   * (rows outside the frame from the border row) */
  {
    Params p;

    params_init (&p);
    params_sparse (&p, 7, 7, FALSE, 99);
    g_setenv (PX_ENV, "sparse", TRUE);
    check_px_switch (&p, FALSE);
    g_unsetenv (PX_ENV);
    check_px_switch (&p, FALSE);
    g_setenv (PX_ENV, "full", TRUE);
    check_px_switch (&p, FALSE);
    g_unsetenv (PX_ENV);
    params_init (&p);
    params_preset (&p, REF_PRESET_GAUSSIAN, 1.0, 0);
    p.border = REF_BORDER_CONSTANT;
    p.border_value = 200;
    check_px_switch (&p, TRUE);
  }
  px_log_stop ();
  g_unsetenv (VARIANT_ENV);
}

GST_END_TEST;

/* The px tests' matrices, kind @m of 4: motion blur (2-D), gaussian
 * (separable), a random 7x7 integer matrix and a random 5x3 float one
 * (seed @n) */
static void
params_of_kind (Params * p, guint m, guint n)
{
  params_init (p);
  if (m == 0)
    params_preset (p, REF_PRESET_MOTION_BLUR, 1, 0);
  else if (m == 1)
    params_preset (p, REF_PRESET_GAUSSIAN, 1.0, 0);
  else if (m == 2)
    params_random (p, 7, 7, TRUE, n);
  else
    params_random (p, 5, 3, FALSE, n);
}

/* conv2d_pxl with 3 rows per work-item and for separable matrices only
 * (its default, 4 rows for every matrix, runs in the cases above), and
 * conv2d_px alone (GST_CL_CONVOLVE_PX_LOCAL=0),
 * forced onto this device: 4-sample planes whose rows are whole 16-byte
 * units (the vector loads) and ones whose rows are not, alpha first and
 * last, 1-sample planes of both depths; 2-D, zero-pattern and separable
 * matrices, float and integer, every border; frames shorter than one
 * conv2d_pxl tile */
GST_START_TEST (test_px_local)
{
  /* GST_CL_CONVOLVE_PX_LOCAL ("px": 0) */
  static const gchar *shapes[] = { "3", "sep", "px" };
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_xBGR,
    GST_VIDEO_FORMAT_GRAY16_LE
  };
  guint s, c;

  g_setenv (VARIANT_ENV, "gpu", TRUE);
  g_setenv (PX_WAIT_ENV, "1", TRUE);
  px_log_start ();
  for (s = 0; s < G_N_ELEMENTS (shapes); s++) {
    g_setenv (PXL_ENV, g_str_equal (shapes[s], "px") ? "0" : shapes[s],
        TRUE);
    for (c = 0; c < G_N_ELEMENTS (fmts); c++) {
      guint n = s * G_N_ELEMENTS (fmts) + c, m = (2 * s + c) % 4;
      GstVideoFormat format = fmts[c];
      gint ch = GST_VIDEO_FORMAT_INFO_PSTRIDE (gst_video_format_get_info
          (format), 0) == 4 ? 4 : 1;
      /* 132 RGBA pixels: 528-byte rows, whole 16-byte units */
      gint width = (n % 2 ? 133 : 132) + 8 * s, height = 23 + 17 * s + c;
      gboolean local;
      Params p;

      params_of_kind (&p, m, n);
      p.border = n % 4;
      p.border_value = 31 * c;
      run_case (format, width, height, ch == 4 ? TEST_LAYOUT_PACKED :
          n % 4, &p, 500 + n);
      local = !g_str_equal (shapes[s], "px") && ch == 4 &&
          (m == 1 || !g_str_equal (shapes[s], "sep"));
      fail_unless (px_log_holds (local ? ", local (conv2d_pxl)" : ", taps"),
          "case %u (%s): not its kernel", n, shapes[s]);
      fail_if (!local && px_log_holds (", local"), "case %u (%s): not "
          "conv2d_px", n, shapes[s]);
      px_log_take ("");
    }
  }
  g_unsetenv (PXL_ENV);
  px_log_stop ();
  g_unsetenv (PX_WAIT_ENV);
  g_unsetenv (VARIANT_ENV);
}

GST_END_TEST;

/* conv2d_pxl's shapes (GST_CL_CONVOLVE_PX_LOCAL=ROWS,NX,HU,SEP16,FIN,WID,FP;
 * its default, 4 rows of 2 pixels, 8-pixel row-pass steps, saturating
 * finish, widening through byte permutes, the 2-D fill's loads ahead for
 * float matrices, is the empty string), forced
 * onto this device:
 * frames of 1x1, 3x5, 641x479 and 1921x1081 pixels and two of whole
 * 16-byte rows, packed rows and rows padded by 4 and 16 bytes, alpha first and
 * last; 2-D (every tap and zero-pattern), separable, float and integer
 * matrices, every border */
GST_START_TEST (test_px_local_nx)
{
  static const gchar *shapes[] = { "", "8,1", "8,2", "3,1", "1,2", "4,2,4",
    "4,2,8,1", "3,1,4,1", "2,2,8,0,0,0", "4,2,8,0,1,0", "4,2,8,0,3,1,1",
    "3,1,4,0,3,1,1", "4,2,8,0,3,1,0"
  };
  /* width, height, row padding (bytes); the last two: rows of whole
   * 16-byte units (the vector loads) */
  static const gint sizes[][3] = { {1, 1, 4}, {3, 5, 0}, {641, 479, 16},
  {1921, 1081, 4}, {130, 37, 8}, {640, 61, 16}
  };
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_BGRx
  };
  guint s, c;

  g_setenv (VARIANT_ENV, "gpu", TRUE);
  g_setenv (PX_WAIT_ENV, "1", TRUE);
  px_log_start ();
  for (s = 0; s < G_N_ELEMENTS (shapes); s++) {
    if (shapes[s][0])
      g_setenv (PXL_ENV, shapes[s], TRUE);
    else
      g_unsetenv (PXL_ENV);
    for (c = 0; c < G_N_ELEMENTS (sizes); c++) {
      guint n = s * G_N_ELEMENTS (sizes) + c, m = (s + c) % 4;
      Params p;

      params_of_kind (&p, m, n);
      p.border = n % 4;
      p.border_value = 37 * n % 256;
      run_case_word_padded (fmts[n % G_N_ELEMENTS (fmts)], sizes[c][0],
          sizes[c][1], sizes[c][2], &p, 700 + n);
      fail_unless (px_log_holds (", local (conv2d_pxl)"),
          "case %u (%s): not conv2d_pxl", n, shapes[s]);
      px_log_take ("");
    }
  }
  g_unsetenv (PXL_ENV);
  px_log_stop ();
  g_unsetenv (PX_WAIT_ENV);
  g_unsetenv (VARIANT_ENV);
}

GST_END_TEST;

/* A non-live stream: its first frames through conv2d_first while the
 * worker prepares the current path, then that path; every frame against
 * the reference, and for integer matrices the frames on either side of the
 * switch bit for bit alike. @tile: the local-memory tile path on the
 * default device (forced on a CPU device), else the strip path on the CPU
 * device. */
static void
check_first_switch (GstVideoFormat format, const Params * p, guint32 seed,
    gboolean tile)
{
  GstElement *element = gst_element_factory_make ("clconvolve", NULL);
  GstHarness *h;
  GstCaps *caps = test_caps_new (format, 161, 91);
  GstVideoInfo info;
  GstBuffer *in = test_frame_new (format, 161, 91, TEST_LAYOUT_PADDED, seed,
      &info);
  GstBuffer *before = NULL;
  /* (valgrind: the worker's build and compile take minutes) */
  gint64 end = g_get_monotonic_time () + 600 * G_TIME_SPAN_SECOND;
  guint n_first = 0, n_after = 0;
  gboolean integer = TRUE;
  gint i;
  gchar *what;

  for (i = 0; i < p->width * p->height; i++)
    integer = integer && p->coef[i] == (gint) p->coef[i];
  integer = integer && p->bias == (gint) p->bias && (p->divisor == 0 ||
      p->divisor == (gint) p->divisor);
  /* (the device is chosen at start: set before the harness starts it) */
  if (!tile)
    g_object_set (element, "device", "cpu", NULL);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  /* (a harness answers the latency query as live by default) */
  gst_harness_set_live (h, FALSE);
  apply_params (h->element, p);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  px_log_take ("");
  /* two frames after the switch (the worker compiles in about 1-3 s) */
  while (n_after < 2 && g_get_monotonic_time () < end) {
    GstBuffer *out;
    gboolean on_first;

    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    on_first = px_log_take ("conv2d_first");
    if (!tile && !on_first && n_first == 0 &&
        !test_element_on_cpu_device (h->element)) {
      /* not on a CPU device: nothing to test */
      GST_WARNING ("clconvolve is not on a CPU device: conv2d_first not "
          "tested");
      gst_buffer_unref (out);
      break;
    }
    fail_unless (on_first || n_first > 0, "the first frame did not run "
        "conv2d_first");
    fail_if (on_first && n_after > 0, "conv2d_first again after the switch");
    what = g_strdup_printf ("%s %s frame %u, preset %d%s", on_first ?
        "conv2d_first" : "after the switch",
        gst_video_format_to_string (format), n_first + n_after, p->preset,
        tile ? ", tile path" : "");
    check_output (in, &info, out, p, what);
    if (integer && before)
      fail_unless (test_frames_equal (before, out, &info), "%s: not "
          "conv2d_first's output", what);
    g_free (what);
    if (on_first)
      n_first++;
    else
      n_after++;
    gst_buffer_replace (&before, out);
    gst_buffer_unref (out);
    g_usleep (20 * 1000);
  }
  fail_unless (n_after == 2 || n_first == 0, "never switched from "
      "conv2d_first (%u frames)", n_first);
  GST_INFO ("%s preset %d: %u frames through conv2d_first",
      gst_video_format_to_string (format), p->preset, n_first);
  gst_clear_buffer (&before);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

/* conv2d_first (see check_first_switch) on the tile path: float and
 * integer 2-D matrices, 8- and 16-bit, planar chroma */
static void
check_first_switch_tile (void)
{
  gchar *variant = g_strdup (g_getenv (VARIANT_ENV));
  Params p;

  g_setenv (VARIANT_ENV, "gpu", TRUE);
  params_init (&p);
  params_preset (&p, REF_PRESET_SHARPEN, 1.0, 0);
  p.border = REF_BORDER_CONSTANT;
  p.border_value = 77;
  check_first_switch (GST_VIDEO_FORMAT_RGBA, &p, 11, TRUE);
  if (!g_getenv ("GST_CL_TEST_QUICK")) {
    params_init (&p);
    params_preset (&p, REF_PRESET_GAUSSIAN, 1.0, 0);
    p.border = REF_BORDER_MIRROR;
    check_first_switch (GST_VIDEO_FORMAT_GRAY16_LE, &p, 12, TRUE);
    params_init (&p);
    params_preset (&p, REF_PRESET_BOX, 1.0, 2);
    p.chroma_filter = TRUE;
    check_first_switch (GST_VIDEO_FORMAT_I420, &p, 13, TRUE);
    params_init (&p);
    params_random (&p, 5, 3, FALSE, 14);
    p.bias = 10.5;
    p.absolute = TRUE;
    p.border = REF_BORDER_WRAP;
    check_first_switch (GST_VIDEO_FORMAT_BGRx, &p, 14, TRUE);
  }
  if (variant)
    g_setenv (VARIANT_ENV, variant, TRUE);
  else
    g_unsetenv (VARIANT_ENV);
  g_free (variant);
}

/* conv2d_first (see check_first_switch) for the fixed-point, float,
 * integer 2-D and integer separable paths, 8- and 16-bit, planar chroma,
 * then on the tile path */
GST_START_TEST (test_first_frame_switch)
{
  gchar *env = g_strdup (g_getenv (FIRST_ENV));
  Params p;

  g_unsetenv (FIRST_ENV);
  px_log_start ();
  check_first_switch_tile ();
  if (!test_have_cl_cpu_device ()) {
    GST_INFO ("no OpenCL CPU device: the strip path not tested");
    goto done;
  }
  params_init (&p);
  params_preset (&p, REF_PRESET_GAUSSIAN, 1.0, 0);
  check_first_switch (GST_VIDEO_FORMAT_RGBA, &p, 1, FALSE);
  if (!g_getenv ("GST_CL_TEST_QUICK")) {
    p.border = REF_BORDER_MIRROR;
    check_first_switch (GST_VIDEO_FORMAT_GRAY16_LE, &p, 2, FALSE);
    params_init (&p);
    params_preset (&p, REF_PRESET_MOTION_BLUR, 1.0, 0);
    p.border = REF_BORDER_WRAP;
    check_first_switch (GST_VIDEO_FORMAT_BGRx, &p, 3, FALSE);
    params_init (&p);
    params_preset (&p, REF_PRESET_SHARPEN, 1.0, 0);
    p.border = REF_BORDER_CONSTANT;
    p.border_value = 77;
    check_first_switch (GST_VIDEO_FORMAT_RGB, &p, 4, FALSE);
    params_init (&p);
    params_preset (&p, REF_PRESET_BOX, 1.0, 2);
    p.chroma_filter = TRUE;
    check_first_switch (GST_VIDEO_FORMAT_I420, &p, 5, FALSE);
    params_init (&p);
    params_random (&p, 5, 3, FALSE, 6);
    p.bias = 10.5;
    p.absolute = TRUE;
    check_first_switch (GST_VIDEO_FORMAT_NV12, &p, 6, FALSE);
  }
done:
  px_log_stop ();
  if (env)
    g_setenv (FIRST_ENV, env, TRUE);
  g_free (env);
}

GST_END_TEST;

static GstBuffer *
push_check (GstHarness * h, GstVideoFormat format, gint w, gint hgt,
    const Params * p, guint32 seed)
{
  GstVideoInfo info;
  GstBuffer *in = test_frame_new (format, w, hgt, TEST_LAYOUT_PADDED, seed,
      &info);
  GstBuffer *out;

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_output (in, &info, out, p, "while playing");
  gst_buffer_unref (out);
  return in;
}

GST_START_TEST (test_change_while_playing)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_BGRA;
  GstHarness *h = harness_new (format, 160, 90);
  GstVideoInfo info;
  GstBuffer *in, *out;
  Params p;

  params_init (&p);
  params_preset (&p, REF_PRESET_SHARPEN, 1, 0);
  apply_params (h->element, &p);
  gst_buffer_unref (push_check (h, format, 160, 90, &p, 1));

  /* another size, float arithmetic, another border: next frame */
  params_init (&p);
  params_random (&p, 7, 3, FALSE, 9);
  p.border = REF_BORDER_MIRROR;
  apply_params (h->element, &p);
  gst_buffer_unref (push_check (h, format, 160, 90, &p, 2));

  /* a single property: the divisor */
  p.divisor = 3.5;
  g_object_set (h->element, "divisor", 3.5, NULL);
  gst_buffer_unref (push_check (h, format, 160, 90, &p, 3));

  /* a separable preset */
  params_init (&p);
  params_preset (&p, REF_PRESET_GAUSSIAN, 1.5, 0);
  p.border = REF_BORDER_MIRROR;
  g_object_set (h->element, "divisor", 0.0, NULL);
  apply_params (h->element, &p);
  gst_buffer_unref (push_check (h, format, 160, 90, &p, 4));

  /* identity: passthrough, the buffer itself comes out */
  gst_util_set_object_arg (G_OBJECT (h->element), "preset", "identity");
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (h->element)));
  in = test_frame_new (format, 160, 90, TEST_LAYOUT_PADDED, 5, &info);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  /* and back */
  params_init (&p);
  params_preset (&p, REF_PRESET_SOBEL_Y, 1, 0);
  p.absolute = TRUE;
  apply_params (h->element, &p);
  fail_if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (h->element)));
  gst_buffer_unref (push_check (h, format, 160, 90, &p, 6));
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
get_kernel (GstElement * e, gdouble * coef, guint * n)
{
  GValue arr = G_VALUE_INIT;
  guint i;

  g_value_init (&arr, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "kernel", &arr);
  *n = gst_value_array_get_size (&arr);
  for (i = 0; i < *n; i++)
    coef[i] = g_value_get_double (gst_value_array_get_value (&arr, i));
  g_value_unset (&arr);
}

static void
set_kernel_values (GstElement * e, const gdouble * coef, guint n)
{
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&arr, n);
  g_value_init (&v, G_TYPE_DOUBLE);
  for (i = 0; i < n; i++) {
    g_value_set_double (&v, coef[i]);
    gst_value_array_append_value (&arr, &v);
  }
  g_object_set_property (G_OBJECT (e), "kernel", &arr);
  g_value_unset (&v);
  g_value_unset (&arr);
}

GST_START_TEST (test_invalid_kernels)
{
  static const gdouble good[9] = { 0, -1, 0, -1, 5, -1, 0, -1, 0 };
  GstHarness *h = harness_new (GST_VIDEO_FORMAT_GRAY8, 64, 48);
  GstElement *e = h->element;
  gdouble big[33 * 33], got[33 * 33];
  gdouble bad[9];
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  guint n, i;
  gint preset;
  Params p;

  set_kernel_values (e, good, 9);
  for (i = 0; i < 33 * 33; i++)
    big[i] = 1;

  /* each rejected with a warning; the 3x3 kernel stays */
  ASSERT_WARNING (set_kernel_values (e, good, 8));      /* not a square */
  ASSERT_WARNING (set_kernel_values (e, big, 4));       /* 2x2: even */
  ASSERT_WARNING (set_kernel_values (e, big, 33 * 33)); /* 33x33: too big */
  ASSERT_WARNING (set_kernel_values (e, big, 0));       /* empty */
  memcpy (bad, good, sizeof (bad));
  bad[4] = NAN;
  ASSERT_WARNING (set_kernel_values (e, bad, 9));
  bad[4] = INFINITY;
  ASSERT_WARNING (set_kernel_values (e, bad, 9));
  ASSERT_PARAM_REFUSED (g_object_set (e, "divisor", NAN, NULL));
  /* not numbers */
  gst_value_array_init (&arr, 1);
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "one");
  gst_value_array_append_value (&arr, &v);
  ASSERT_WARNING (g_object_set_property (G_OBJECT (e), "kernel", &arr));
  g_value_unset (&v);
  g_value_unset (&arr);
  /* 10 coefficients with a declared 5x5 size: no odd shape holds 10 */
  g_object_set (e, "kernel-width", 5, "kernel-height", 5, NULL);
  ASSERT_WARNING (set_kernel_values (e, big, 10));

  get_kernel (e, got, &n);
  fail_unless_equals_int (n, 9);
  for (i = 0; i < 9; i++)
    fail_unless_equals_float (got[i], good[i]);
  g_object_get (e, "preset", &preset, NULL);
  fail_unless_equals_int (preset, 0);

  /* still filtering with it */
  params_init (&p);
  memcpy (p.coef, good, sizeof (good));
  p.width = p.height = 3;
  gst_buffer_unref (push_check (h, GST_VIDEO_FORMAT_GRAY8, 64, 48, &p, 8));

  /* width/height first, then a matching 5x3 kernel: accepted */
  g_object_set (e, "kernel-width", 5, "kernel-height", 3, NULL);
  set_kernel_values (e, big, 15);
  get_kernel (e, got, &n);
  fail_unless_equals_int (n, 15);

  /* zero-sum kernel with divisor 0: divides by 1 */
  g_object_set (e, "kernel-width", 0, "kernel-height", 0, NULL);
  params_init (&p);
  params_preset (&p, REF_PRESET_LAPLACIAN, 1, 0);
  p.bias = 128;
  set_kernel_values (e, p.coef, 9);
  g_object_set (e, "bias", 128.0, NULL);
  gst_buffer_unref (push_check (h, GST_VIDEO_FORMAT_GRAY8, 64, 48, &p, 9));
  gst_harness_teardown (h);
}

GST_END_TEST;

/* gst-launch syntax for the kernel */
GST_START_TEST (test_parse_launch)
{
  GstElement *e = gst_parse_bin_from_description
      ("clconvolve name=c kernel=\"<0,-1,0,-1,5,-1,0,-1,0>\"", FALSE, NULL);
  GstElement *c;
  gdouble got[9];
  guint n;

  fail_unless (e != NULL);
  c = gst_bin_get_by_name (GST_BIN (e), "c");
  get_kernel (c, got, &n);
  fail_unless_equals_int (n, 9);
  fail_unless_equals_float (got[4], 5.0);
  fail_unless_equals_float (got[1], -1.0);
  gst_object_unref (c);
  gst_object_unref (e);
}

GST_END_TEST;

static gchar *conv_warning;

static gboolean
catch_conv_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  g_free (conv_warning);
  conv_warning = g_strdup (message);
  return TRUE;
}

/* Expects the last action to have been refused with a clconvolve warning
 * containing @valid, leaving the identity matrix in effect */
static void
expect_refused (GstElement * e, const gchar * what, const gchar * valid)
{
  gdouble got[31 * 31];
  guint n;

  fail_unless (conv_warning != NULL, "%s: no warning", what);
  fail_unless (strstr (conv_warning, valid) != NULL, "%s: warning \"%s\" "
      "lacks \"%s\"", what, conv_warning, valid);
  g_clear_pointer (&conv_warning, g_free);
  get_kernel (e, got, &n);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_float (got[0], 1.0);
}

/* Pushes a flat frame of @value and expects every sample to be @expect */
static void
push_flat (GstHarness * h, gint w, gint hgt, guint8 value, guint8 expect,
    const gchar * what)
{
  GstVideoInfo info;
  GstBuffer *out;
  GstMapInfo map;
  gint x, y;

  fail_unless_equals_int (gst_harness_push (h, test_frame_new_filled
          (GST_VIDEO_FORMAT_GRAY8, w, hgt, TEST_LAYOUT_PACKED, value, NULL)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  info_of (out, GST_VIDEO_FORMAT_GRAY8, w, hgt, &info);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (y = 0; y < hgt; y++)
    for (x = 0; x < w; x++) {
      guint8 v = map.data[info.offset[0] + y * info.stride[0] + x];
      fail_unless (v == expect, "%s: sample %d,%d is %u, expected %u", what,
          x, y, v, expect);
    }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
}

/* Coefficients, sums and divisors that single precision cannot carry are
 * refused, with the range that is valid; the previous matrix stays. Those
 * at the edge of the range filter exactly. */
GST_START_TEST (test_float_range)
{
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("clconvolve", 0, 0, NULL),
      catch_conv_warning, NULL, NULL);
  GstHarness *h = harness_new (GST_VIDEO_FORMAT_GRAY8, 17, 9);
  GstElement *e = h->element;
  gdouble c[9];
  guint i;

  for (i = 0; i < 9; i++)
    c[i] = 1e36;
  set_kernel_values (e, c, 9);
  expect_refused (e, "nine 1e36", "sum of |coefficients| up to");
  for (i = 0; i < 9; i++)
    c[i] = 1e-45;
  set_kernel_values (e, c, 9);
  expect_refused (e, "nine 1e-45", "valid are 0 and magnitudes from");
  for (i = 0; i < 9; i++)
    c[i] = i < 3 ? 1e308 : 1;
  set_kernel_values (e, c, 9);
  expect_refused (e, "1e308 x3", "valid are 0 and magnitudes from");
  c[0] = -1e39;
  set_kernel_values (e, c, 9);
  expect_refused (e, "-1e39", "does not fit single precision");
  g_object_set (e, "divisor", 1e-40, NULL);
  expect_refused (e, "divisor 1e-40", "valid magnitudes are");
  g_object_set (e, "divisor", -1e39, NULL);
  expect_refused (e, "divisor -1e39", "valid magnitudes are");
  g_object_set (e, "bias", 1e39, NULL);
  expect_refused (e, "bias 1e39", "bias at most");
  {
    gdouble d, b;
    g_object_get (e, "divisor", &d, "bias", &b, NULL);
    fail_unless_equals_float (d, 0.0);
    fail_unless_equals_float (b, 0.0);
  }
  /* still the identity: passthrough, the flat frame unchanged */
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (e)));
  push_flat (h, 17, 9, 102, 102, "identity kept");

  /* at the edges of the range: normalised by the sum, exact */
  for (i = 0; i < 9; i++)
    c[i] = 5e32;
  set_kernel_values (e, c, 9);
  fail_unless (conv_warning == NULL, "%s", conv_warning);
  push_flat (h, 17, 9, 102, 102, "nine 5e32");
  for (i = 0; i < 9; i++)
    c[i] = 3e-38;
  set_kernel_values (e, c, 9);
  fail_unless (conv_warning == NULL, "%s", conv_warning);
  push_flat (h, 17, 9, 102, 102, "nine 3e-38");
  gst_harness_teardown (h);
  gst_check_remove_log_filter (filter);
}

GST_END_TEST;

/* gst-launch order: preset=custom before kernel=... is not an error */
GST_START_TEST (test_preset_custom_then_kernel)
{
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("clconvolve", 0, 0, NULL),
      catch_conv_warning, NULL, NULL);
  GstElement *bin = gst_parse_bin_from_description ("clconvolve name=c "
      "preset=custom kernel=\"<0,-1,0,-1,5,-1,0,-1,0>\"", FALSE, NULL);
  GstElement *c;
  gdouble got[9];
  guint n;
  gint preset;

  fail_unless (bin != NULL);
  fail_unless (conv_warning == NULL, "warned: %s", conv_warning);
  c = gst_bin_get_by_name (GST_BIN (bin), "c");
  get_kernel (c, got, &n);
  fail_unless_equals_int (n, 9);
  fail_unless_equals_float (got[4], 5.0);
  g_object_get (c, "preset", &preset, NULL);
  fail_unless_equals_int (preset, 0);
  gst_object_unref (c);
  gst_object_unref (bin);

  /* preset=custom alone keeps the matrix in effect until one comes */
  c = gst_element_factory_make ("clconvolve", NULL);
  gst_util_set_object_arg (G_OBJECT (c), "preset", "custom");
  fail_unless (conv_warning == NULL, "warned: %s", conv_warning);
  get_kernel (c, got, &n);
  fail_unless_equals_int (n, 1);
  gst_object_unref (c);
  gst_check_remove_log_filter (filter);
}

GST_END_TEST;

/* A GstController binding on bias: the value changes at the buffer whose
 * stream time reaches the control point, also switching passthrough off
 * and on again; the matrix properties are not controllable */
GST_START_TEST (test_controlled_bias)
{
  const GstClockTime dur = 40 * GST_MSECOND;
  static const guint8 expect[] = { 102, 102, 102, 152, 152, 102, 102 };
  GstHarness *h = harness_new (GST_VIDEO_FORMAT_GRAY8, 17, 9);
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tv = GST_TIMED_VALUE_CONTROL_SOURCE (cs);
  const gchar *fixed[] = { "kernel", "kernel-width", "kernel-height" };
  const gchar *live[] = { "divisor", "bias", "preset", "sigma", "radius",
    "absolute", "border", "border-value", "chroma"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (fixed); i++)
    fail_if (g_object_class_find_property (G_OBJECT_GET_CLASS (h->element),
            fixed[i])->flags & GST_PARAM_CONTROLLABLE, "%s", fixed[i]);
  for (i = 0; i < G_N_ELEMENTS (live); i++)
    fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS
            (h->element), live[i])->flags & GST_PARAM_CONTROLLABLE, "%s",
        live[i]);

  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  gst_timed_value_control_source_set (tv, 0, 0.0);
  gst_timed_value_control_source_set (tv, 3 * dur, 50.0);
  gst_timed_value_control_source_set (tv, 5 * dur, 0.0);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "bias", cs)));
  for (i = 0; i < G_N_ELEMENTS (expect); i++) {
    GstBuffer *in = test_frame_new_filled (GST_VIDEO_FORMAT_GRAY8, 17, 9,
        TEST_LAYOUT_PACKED, 102, NULL);
    GstBuffer *out;
    GstMapInfo map;
    gsize j;

    GST_BUFFER_PTS (in) = i * dur;
    GST_BUFFER_DURATION (in) = dur;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    /* bias 0: the identity passes the buffer itself through */
    fail_unless ((out == in) == (expect[i] == 102), "frame %u", i);
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    for (j = 0; j < 17; j++)
      fail_unless_equals_int (map.data[j], expect[i]);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_object_unref (cs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Integer GValues (what bindings and "<0,-1,0>" produce) are coefficients */
GST_START_TEST (test_kernel_integer_values)
{
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("clconvolve", 0, 0, NULL),
      catch_conv_warning, NULL, NULL);
  static const gint sharpen[9] = { 0, -1, 0, -1, 5, -1, 0, -1, 0 };
  GstElement *e = gst_element_factory_make ("clconvolve", NULL);
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  GType types[] = { G_TYPE_INT, G_TYPE_INT64 };
  gdouble got[9];
  guint i, t, n;

  for (t = 0; t < G_N_ELEMENTS (types); t++) {
    gst_value_array_init (&arr, 9);
    g_value_init (&v, types[t]);
    for (i = 0; i < 9; i++) {
      if (types[t] == G_TYPE_INT)
        g_value_set_int (&v, sharpen[i] * (gint) (t + 1));
      else
        g_value_set_int64 (&v, sharpen[i] * (gint) (t + 1));
      gst_value_array_append_value (&arr, &v);
    }
    g_object_set_property (G_OBJECT (e), "kernel", &arr);
    g_value_unset (&v);
    g_value_unset (&arr);
    fail_unless (conv_warning == NULL, "%s: warned: %s",
        g_type_name (types[t]), conv_warning);
    get_kernel (e, got, &n);
    fail_unless_equals_int (n, 9);
    for (i = 0; i < 9; i++)
      fail_unless_equals_float (got[i], sharpen[i] * (t + 1.0));
  }
  gst_object_unref (e);
  gst_check_remove_log_filter (filter);
}

GST_END_TEST;

/* kernel, kernel-width and kernel-height in any order; a square count needs
 * no dimensions */
GST_START_TEST (test_kernel_property_order)
{
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("clconvolve", 0, 0, NULL),
      catch_conv_warning, NULL, NULL);
  static const gchar *orders[] = {
    "kernel=<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15> kernel-width=5 "
        "kernel-height=3",
    "kernel-width=5 kernel=<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15> "
        "kernel-height=3",
    "kernel-height=3 kernel-width=5 "
        "kernel=<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15>",
    "kernel=<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15> kernel-height=3",
  };
  gdouble got[25];
  guint i, j, n;
  gint w, h;

  for (i = 0; i < G_N_ELEMENTS (orders); i++) {
    gchar *desc = g_strdup_printf ("clconvolve name=c %s", orders[i]);
    GstElement *bin = gst_parse_bin_from_description (desc, FALSE, NULL);
    GstElement *c = gst_bin_get_by_name (GST_BIN (bin), "c");

    fail_unless (conv_warning == NULL, "%s: warned: %s", desc, conv_warning);
    get_kernel (c, got, &n);
    fail_unless_equals_int (n, 15);
    for (j = 0; j < n; j++)
      fail_unless_equals_float (got[j], j + 1.0);
    g_object_get (c, "kernel-height", &h, NULL);
    fail_unless_equals_int (h, 3);
    gst_object_unref (c);
    gst_object_unref (bin);
    g_free (desc);
  }

  /* 25 coefficients alone: 5x5 */
  for (j = 0; j < 25; j++)
    got[j] = j;
  {
    GstElement *c = gst_element_factory_make ("clconvolve", NULL);
    set_kernel_values (c, got, 25);
    fail_unless (conv_warning == NULL, "warned: %s", conv_warning);
    get_kernel (c, got, &n);
    fail_unless_equals_int (n, 25);
    g_object_get (c, "kernel-width", &w, NULL);
    fail_unless_equals_int (w, 0);
    gst_object_unref (c);
  }
  gst_check_remove_log_filter (filter);
}

GST_END_TEST;

/* A kernel whose dimensions never came is an error at caps time, not a
 * pipeline that runs unfiltered */
GST_START_TEST (test_kernel_without_shape_errors)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=GRAY8,width=32,height=16 ! clconvolve "
      "kernel=<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15> ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  GError *err = NULL;

  fail_unless (pipe != NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS), "%s", err->message);
  fail_unless (strstr (err->message, "kernel-width") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* QoS like GStreamer's video filters; clhistogram keeps it off (a dropped
 * frame would be a missing histogram) */
GST_START_TEST (test_qos_defaults)
{
  static const struct
  {
    const gchar *name;
    gboolean qos;
  } expect[] = { {"clconvolve", TRUE}, {"clintegral", TRUE},
  {"clhistogram", FALSE}
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (expect); i++) {
    GstElement *e = gst_element_factory_make (expect[i].name, NULL);
    gboolean qos;

    fail_unless (e != NULL, "%s", expect[i].name);
    g_object_get (e, "qos", &qos, NULL);
    fail_unless_equals_int (qos, expect[i].qos);
    gst_object_unref (e);
  }
}

GST_END_TEST;

static Suite *
clconvolve_suite (void)
{
  Suite *s = suite_create ("clconvolve");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_parse_launch);
  tcase_add_test (tc, test_kernel_integer_values);
  tcase_add_test (tc, test_kernel_property_order);
  tcase_add_test (tc, test_qos_defaults);
  if (!test_have_cl_device ())
    return s;
  tcase_add_test (tc, test_invalid_kernels);
  tcase_add_test (tc, test_change_while_playing);
  tcase_add_test (tc, test_presets);
  tcase_add_test (tc, test_borders);
  tcase_add_test (tc, test_kernel_sizes);
  tcase_add_test (tc, test_separable);
  tcase_add_test (tc, test_fixed_point);
  tcase_add_test (tc, test_exact_division);
  tcase_add_test (tc, test_exact_sums);
  tcase_add_test (tc, test_exact_sums_2d);
  tcase_add_test (tc, test_exact_sums_while_playing);
  tcase_add_test (tc, test_caps_change_format);
  tcase_add_test (tc, test_gpu_variant);
  tcase_add_test (tc, test_px_sparse);
  tcase_add_test (tc, test_px_local);
  tcase_add_test (tc, test_px_local_nx);
  tcase_add_test (tc, test_first_frame_switch);
  tcase_add_test (tc, test_formats_layouts);
  tcase_add_test (tc, test_large_frames);
  tcase_add_test (tc, test_float_range);
  tcase_add_test (tc, test_preset_custom_then_kernel);
  tcase_add_test (tc, test_controlled_bias);
  tcase_add_test (tc, test_kernel_without_shape_errors);
  return s;
}

/* One process for every case (no fork): programs stay cached in the shared
 * context, which a started element keeps alive. */
int
main (int argc, char **argv)
{
  GstHarness *keeper = NULL;
  SRunner *sr;
  gint failed;

  gst_check_init (&argc, &argv);
  test_skip_without_cl_device ("clconvolve");
  /* every case runs the path's own kernels (test_first_frame_switch lets
   * conv2d_first run first); GST_CL_CONVOLVE_FIRST=only runs every case
   * through conv2d_first instead */
  g_setenv (FIRST_ENV, "off", FALSE);
  if (test_have_cl_device ())
    keeper = harness_new (GST_VIDEO_FORMAT_GRAY8, 16, 16);
  sr = srunner_create (clconvolve_suite ());
  srunner_set_fork_status (sr, CK_NOFORK);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  g_print ("clconvolve: %u frames compared with the reference\n", n_cases);
  if (keeper)
    gst_harness_teardown (keeper);
  return failed != 0;
}
