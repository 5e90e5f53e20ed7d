/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Convolution matrices for clconvolve (see the header). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <float.h>
#include <math.h>
#include <string.h>

#include "gstclconvolvekernel.h"

/* integer path bound: |sum c*x| + |bias*divisor| for 16-bit x, so that the
 * rounding 2|n| + d stays inside a signed 32-bit int */
#define INTEGER_LIMIT (1 << 29)

/* The float path works in single precision: every coefficient must be a
 * normal float (denormals flush to zero on many devices), the largest
 * accumulation sum|c| * 65535 must stay finite, and so must 1/divisor. */
#define MAX_SAMPLE 65535.0
#define MAX_DIVISOR (1.0 / FLT_MIN)

GType
gst_cl_convolve_preset_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_CONVOLVE_PRESET_CUSTOM, "The kernel property's matrix", "custom"},
    {GST_CL_CONVOLVE_PRESET_IDENTITY, "Identity (passthrough)", "identity"},
    {GST_CL_CONVOLVE_PRESET_BOX, "Box blur of the radius property", "box"},
    {GST_CL_CONVOLVE_PRESET_GAUSSIAN, "Gaussian blur of sigma (and radius)",
        "gaussian"},
    {GST_CL_CONVOLVE_PRESET_SHARPEN, "Sharpen 3x3", "sharpen"},
    {GST_CL_CONVOLVE_PRESET_LAPLACIAN, "Laplacian 3x3", "laplacian"},
    {GST_CL_CONVOLVE_PRESET_SOBEL_X, "Sobel horizontal gradient 3x3",
        "sobel-x"},
    {GST_CL_CONVOLVE_PRESET_SOBEL_Y, "Sobel vertical gradient 3x3", "sobel-y"},
    {GST_CL_CONVOLVE_PRESET_EMBOSS, "Emboss 3x3", "emboss"},
    {GST_CL_CONVOLVE_PRESET_EDGE, "Edge detect 3x3", "edge"},
    {GST_CL_CONVOLVE_PRESET_MOTION_BLUR, "45-degree motion blur 7x7",
        "motion-blur"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClConvolvePreset", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_cl_convolve_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_CONVOLVE_BORDER_CLAMP, "Repeat the edge pixel (aaa|abcd|ddd)",
        "clamp"},
    {GST_CL_CONVOLVE_BORDER_MIRROR, "Reflect without repeating the edge "
          "(reflect-101: dcb|abcd|cba)", "mirror"},
    {GST_CL_CONVOLVE_BORDER_WRAP, "Wrap around (bcd|abcd|abc)", "wrap"},
    {GST_CL_CONVOLVE_BORDER_CONSTANT, "The border-value property",
        "constant"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClConvolveBorder", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_cl_convolve_chroma_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_CONVOLVE_CHROMA_COPY, "Filter luma only, copy chroma", "copy"},
    {GST_CL_CONVOLVE_CHROMA_FILTER, "Filter chroma planes too", "filter"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClConvolveChroma", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static const gdouble motion_blur[49] = {
  0, 0, 0, 0, 0, 0.0145, 0,
  0, 0, 0, 0, 0.0376, 0.1283, 0.0145,
  0, 0, 0, 0.0376, 0.1283, 0.0376, 0,
  0, 0, 0.0376, 0.1283, 0.0376, 0, 0,
  0, 0.0376, 0.1283, 0.0376, 0, 0, 0,
  0.0145, 0.1283, 0.0376, 0, 0, 0, 0,
  0, 0.0145, 0, 0, 0, 0, 0,
};

static const gdouble small[][9] = {
  [GST_CL_CONVOLVE_PRESET_SHARPEN] = {0, -1, 0, -1, 5, -1, 0, -1, 0},
  [GST_CL_CONVOLVE_PRESET_LAPLACIAN] = {0, 1, 0, 1, -4, 1, 0, 1, 0},
  [GST_CL_CONVOLVE_PRESET_SOBEL_X] = {-1, 0, 1, -2, 0, 2, -1, 0, 1},
  [GST_CL_CONVOLVE_PRESET_SOBEL_Y] = {-1, -2, -1, 0, 0, 0, 1, 2, 1},
  [GST_CL_CONVOLVE_PRESET_EMBOSS] = {-2, -1, 0, -1, 1, 1, 0, 1, 2},
  [GST_CL_CONVOLVE_PRESET_EDGE] = {-1, -1, -1, -1, 8, -1, -1, -1, -1},
};

gboolean
gst_cl_convolve_preset_matrix (GstClConvolvePreset preset, gdouble sigma,
    gint radius, gdouble * coef, gint * width, gint * height)
{
  gint i, j, n;

  switch (preset) {
    case GST_CL_CONVOLVE_PRESET_CUSTOM:
      return FALSE;
    case GST_CL_CONVOLVE_PRESET_IDENTITY:
      *width = *height = 1;
      coef[0] = 1;
      return TRUE;
    case GST_CL_CONVOLVE_PRESET_BOX:
      n = 2 * CLAMP (radius ? radius : 1, 1, 15) + 1;
      *width = *height = n;
      for (i = 0; i < n * n; i++)
        coef[i] = 1;
      return TRUE;
    case GST_CL_CONVOLVE_PRESET_GAUSSIAN:{
      gdouble g[GST_CL_CONVOLVE_MAX_SIZE], sum = 0;
      gint r = radius ? radius : (gint) ceil (3 * sigma);

      r = CLAMP (r, 1, 15);
      n = 2 * r + 1;
      for (i = 0; i < n; i++)
        sum += g[i] = exp (-(i - r) * (i - r) / (2 * sigma * sigma));
      for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
          coef[i * n + j] = (g[i] / sum) * (g[j] / sum);
      *width = *height = n;
      return TRUE;
    }
    case GST_CL_CONVOLVE_PRESET_MOTION_BLUR:
      memcpy (coef, motion_blur, sizeof (motion_blur));
      *width = *height = 7;
      return TRUE;
    default:
      memcpy (coef, small[preset], sizeof (small[preset]));
      *width = *height = 3;
      return TRUE;
  }
}

gboolean
gst_cl_convolve_kernel_set_matrix (GstClConvolveKernel * k,
    const gdouble * coef, guint n, gint width, gint height, gchar ** why)
{
  guint i;

  if (n == 0) {
    *why = g_strdup ("the kernel is empty: give width x height coefficients "
        "in row order, e.g. kernel=\"<0,-1,0,-1,5,-1,0,-1,0>\"");
    return FALSE;
  }
  if (width == 0 && height == 0) {
    width = height = (gint) (sqrt ((gdouble) n) + 0.5);
    if ((guint) (width * height) != n) {
      *why = g_strdup_printf ("%u coefficients are not a square: set "
          "kernel-width and kernel-height (odd, 1..%d)", n,
          GST_CL_CONVOLVE_MAX_SIZE);
      return FALSE;
    }
  } else if (width == 0) {
    width = n / height;
  } else if (height == 0) {
    height = n / width;
  }
  if (width < 1 || width > GST_CL_CONVOLVE_MAX_SIZE || height < 1 ||
      height > GST_CL_CONVOLVE_MAX_SIZE || !(width & 1) || !(height & 1)) {
    *why = g_strdup_printf ("a %dx%d kernel is not allowed: width and height "
        "must be odd, 1..%d", width, height, GST_CL_CONVOLVE_MAX_SIZE);
    return FALSE;
  }
  if ((guint) (width * height) != n) {
    *why = g_strdup_printf ("%u coefficients do not fill a %dx%d kernel: "
        "give exactly %d", n, width, height, width * height);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    if (!isfinite (coef[i])) {
      *why = g_strdup_printf ("coefficient %u is not a finite number", i);
      return FALSE;
    }
    if (fabs (coef[i]) > FLT_MAX || (coef[i] != 0 &&
            fabs (coef[i]) < FLT_MIN)) {
      *why = g_strdup_printf ("coefficient %u (%g) does not fit single "
          "precision: valid are 0 and magnitudes from %g to %g", i, coef[i],
          FLT_MIN, FLT_MAX);
      return FALSE;
    }
  }
  k->width = width;
  k->height = height;
  memcpy (k->coef, coef, n * sizeof (gdouble));
  return TRUE;
}

static gboolean
shape_allowed (guint n, gint width, gint height)
{
  return width >= 1 && width <= GST_CL_CONVOLVE_MAX_SIZE && height >= 1 &&
      height <= GST_CL_CONVOLVE_MAX_SIZE && (width & 1) && (height & 1) &&
      (guint) (width * height) == n;
}

gboolean
gst_cl_convolve_kernel_awaits_shape (guint n, gint width, gint height)
{
  gboolean fits;
  gint w;

  if (width == 0 && height == 0) {
    w = (gint) (sqrt ((gdouble) n) + 0.5);
    fits = shape_allowed (n, w, w);
  } else if (width == 0) {
    fits = shape_allowed (n, n / height, height);
  } else if (height == 0) {
    fits = shape_allowed (n, width, n / width);
  } else {
    fits = shape_allowed (n, width, height);
  }
  if (fits)
    return FALSE;
  for (w = 1; w <= GST_CL_CONVOLVE_MAX_SIZE; w += 2)
    if (n % w == 0 && shape_allowed (n, w, n / w))
      return TRUE;
  return FALSE;
}

static gboolean
is_int (gdouble v)
{
  return v == floor (v) && fabs (v) < INTEGER_LIMIT;
}

static gint64
gcd64 (gint64 a, gint64 b)
{
  while (b) {
    gint64 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static gboolean
factor_integer (GstClConvolveKernel * k)
{
  gint w = k->width, h = k->height, i, j, r0 = -1, c0 = -1;
  gint64 g = 0;

  for (i = 0; i < h && r0 < 0; i++)
    for (j = 0; j < w; j++)
      if (k->coef[i * w + j] != 0)
        r0 = i;
  if (r0 < 0)
    return FALSE;
  for (j = 0; j < w; j++)
    g = gcd64 (g, (gint64) fabs (k->coef[r0 * w + j]));
  for (j = 0; j < w; j++) {
    k->row[j] = k->coef[r0 * w + j] / g;
    if (c0 < 0 && k->row[j] != 0)
      c0 = j;
  }
  for (i = 0; i < h; i++) {
    gint64 v = (gint64) k->coef[i * w + c0], d = (gint64) k->row[c0];
    if (v % d)
      return FALSE;
    k->col[i] = (gdouble) (v / d);
  }
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++)
      if (k->col[i] * k->row[j] != k->coef[i * w + j])
        return FALSE;
  return TRUE;
}

static gboolean
factor_float (GstClConvolveKernel * k)
{
  gint w = k->width, h = k->height, i, j, r0 = 0, c0 = 0;
  gdouble max = 0;

  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++)
      if (fabs (k->coef[i * w + j]) > max) {
        max = fabs (k->coef[i * w + j]);
        r0 = i;
        c0 = j;
      }
  if (max == 0)
    return FALSE;
  for (j = 0; j < w; j++)
    k->row[j] = k->coef[r0 * w + j];
  for (i = 0; i < h; i++)
    k->col[i] = k->coef[i * w + c0] / k->coef[r0 * w + c0];
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++)
      if (fabs (k->col[i] * k->row[j] - k->coef[i * w + j]) > 1e-9 * max)
        return FALSE;
  return TRUE;
}

/* Q16 values of @n coefficients @c scaled by @scale into @q; FALSE if one
 * is negative or does not fit, or if a sum of Q8 samples (255 << 8) times
 * them, plus the kernel's rounding offset of n/2, could pass 65535 */
static gboolean
to_q16 (const gdouble * c, gint n, gdouble scale, guint16 * q)
{
  gint64 sum = 0;
  gint i;

  for (i = 0; i < n; i++) {
    gdouble v = round (c[i] * scale * 65536);

    if (!(v >= 0 && v <= 65535))
      return FALSE;
    q[i] = (guint16) v;
    sum += q[i];
  }
  return sum * 65280 / 65536 + (n + 1) / 2 <= 65535;
}

static gboolean
derive_fixed (GstClConvolveKernel * k)
{
  gint n = k->width * k->height, i;
  gdouble rowsum = 0;

  if (k->integer || k->divisor <= 0 || k->bias != 0)
    return FALSE;
  for (i = 0; i < n; i++)
    if (k->coef[i] < 0)
      return FALSE;
  if (!to_q16 (k->coef, n, 1 / k->divisor, k->qcoef))
    return FALSE;
  if (!k->separable)
    return TRUE;
  for (i = 0; i < k->width; i++)
    rowsum += k->row[i];
  return rowsum != 0 && to_q16 (k->row, k->width, 1 / rowsum, k->qrow) &&
      to_q16 (k->col, k->height, rowsum / k->divisor, k->qcol);
}

/* (see the field) */
static gboolean
derive_box (const GstClConvolveKernel * k)
{
  gint i;

  if (!k->integer || !k->separable || k->row[0] == 0 || k->col[0] == 0)
    return FALSE;
  for (i = 1; i < k->width; i++)
    if (k->row[i] != k->row[0])
      return FALSE;
  for (i = 1; i < k->height; i++)
    if (k->col[i] != k->col[0])
      return FALSE;
  return TRUE;
}

static gboolean
derive_exact16 (GstClConvolveKernel * k)
{
  gint64 rowsum = 0, colsum = 0;
  gint i;

  if (!k->integer || !k->separable || k->ibias != 0 ||
      k->idivisor < GST_CL_CONVOLVE_EXACT16_MIN_DIVISOR ||
      k->idivisor > GST_CL_CONVOLVE_EXACT16_MAX_DIVISOR)
    return FALSE;
  for (i = 0; i < k->width; i++) {
    if (k->row[i] < 0 || k->row[i] > 255)
      return FALSE;
    rowsum += (gint64) k->row[i];
  }
  for (i = 0; i < k->height; i++) {
    if (k->col[i] < 0 || k->col[i] > 255)
      return FALSE;
    colsum += (gint64) k->col[i];
  }
  /* a mirrored column pair's two rows add up to at most this too */
  if (rowsum * colsum * 255 + k->idivisor / 2 > 65535)
    return FALSE;
  for (i = 0; i < k->width; i++)
    k->qrow[i] = (guint16) ((gint) k->row[i] << 8);
  for (i = 0; i < k->height; i++)
    k->qcol[i] = (guint16) k->col[i];
  return TRUE;
}

static gboolean
derive_exact2d16 (const GstClConvolveKernel * k)
{
  gint64 abssum = 0;
  gint i;

  if (!k->integer)
    return FALSE;
  for (i = 0; i < k->width * k->height; i++)
    abssum += (gint64) fabs (k->coef[i]);
  return abssum * 255 <= 65535;
}

gboolean
gst_cl_convolve_kernel_derive (GstClConvolveKernel * k, gdouble divisor,
    gdouble bias, gboolean absolute, gchar ** why)
{
  gint n = k->width * k->height, i, center = n / 2;
  gdouble sum = 0, abssum = 0;
  gboolean int_coef = TRUE, automatic = divisor == 0;

  if (!isfinite (divisor) || !isfinite (bias) || fabs (bias) > FLT_MAX) {
    *why = g_strdup_printf ("divisor and bias must be finite numbers (bias "
        "at most %g in magnitude; divisor 0 = the sum of the coefficients, "
        "or 1 when it is 0)", FLT_MAX);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    sum += k->coef[i];
    abssum += fabs (k->coef[i]);
    int_coef = int_coef && is_int (k->coef[i]);
  }
  if (!(abssum * MAX_SAMPLE <= FLT_MAX)) {
    *why = g_strdup_printf ("the coefficients' magnitudes sum to %g: times "
        "the largest sample value (%g) that overflows single precision; "
        "valid is a sum of |coefficients| up to %g", abssum, MAX_SAMPLE,
        FLT_MAX / MAX_SAMPLE);
    return FALSE;
  }
  if (automatic) {
    /* a sum that is 0 up to rounding (0.1 + 0.2 - 0.3) counts as 0 */
    divisor = (fabs (sum) <= 1e-9 * abssum) ? 1 : sum;
  }
  if (fabs (divisor) < FLT_MIN || fabs (divisor) > MAX_DIVISOR) {
    *why = g_strdup_printf ("the divisor (%g%s) is out of single-precision "
        "range: valid magnitudes are %g to %g (so that 1/divisor is a normal "
        "float)", divisor, automatic ? ", the coefficients' sum" : "",
        FLT_MIN, MAX_DIVISOR);
    return FALSE;
  }
  k->divisor = divisor;
  k->bias = bias;
  k->absolute = absolute;

  k->integer = int_coef && is_int (divisor) && is_int (bias) &&
      abssum * 65535 + fabs (bias * divisor) < INTEGER_LIMIT;
  k->idivisor = k->integer ? (gint) divisor : 1;
  k->ibias = k->integer ? (gint) bias : 0;

  k->separable = k->width > 1 && k->height > 1 &&
      (k->integer ? factor_integer (k) : factor_float (k));

  k->fixed = derive_fixed (k);
  k->exact16 = derive_exact16 (k);
  k->exact2d16 = derive_exact2d16 (k);
  k->box = derive_box (k);

  k->identity = bias == 0 && k->coef[center] / divisor == 1.0;
  for (i = 0; i < n && k->identity; i++)
    k->identity = i == center || k->coef[i] == 0;
  return TRUE;
}
