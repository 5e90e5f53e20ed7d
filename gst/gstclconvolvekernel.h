/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Convolution matrices for clconvolve: presets, validation, the derived
 * arithmetic (integer or float path) and the separable factorisation. No
 * OpenCL here: the element uploads what this computes. */
#pragma once

#include <glib.h>
#include <glib-object.h>

G_BEGIN_DECLS

#define GST_CL_CONVOLVE_MAX_SIZE 31
#define GST_CL_CONVOLVE_MAX_TAPS \
  (GST_CL_CONVOLVE_MAX_SIZE * GST_CL_CONVOLVE_MAX_SIZE)

typedef enum
{
  GST_CL_CONVOLVE_PRESET_CUSTOM,
  GST_CL_CONVOLVE_PRESET_IDENTITY,
  GST_CL_CONVOLVE_PRESET_BOX,
  GST_CL_CONVOLVE_PRESET_GAUSSIAN,
  GST_CL_CONVOLVE_PRESET_SHARPEN,
  GST_CL_CONVOLVE_PRESET_LAPLACIAN,
  GST_CL_CONVOLVE_PRESET_SOBEL_X,
  GST_CL_CONVOLVE_PRESET_SOBEL_Y,
  GST_CL_CONVOLVE_PRESET_EMBOSS,
  GST_CL_CONVOLVE_PRESET_EDGE,
  GST_CL_CONVOLVE_PRESET_MOTION_BLUR,
} GstClConvolvePreset;

typedef enum
{
  GST_CL_CONVOLVE_BORDER_CLAMP,
  GST_CL_CONVOLVE_BORDER_MIRROR,        /* reflect-101: dcb|abcd|cba */
  GST_CL_CONVOLVE_BORDER_WRAP,
  GST_CL_CONVOLVE_BORDER_CONSTANT,
} GstClConvolveBorder;

typedef enum
{
  GST_CL_CONVOLVE_CHROMA_COPY,
  GST_CL_CONVOLVE_CHROMA_FILTER,
} GstClConvolveChroma;

GType gst_cl_convolve_preset_get_type (void);
GType gst_cl_convolve_border_get_type (void);
GType gst_cl_convolve_chroma_get_type (void);

/* The matrix in effect and everything derived from it */
typedef struct
{
  gint width, height;           /* odd, 1..31 */
  gdouble coef[GST_CL_CONVOLVE_MAX_TAPS];       /* row order */
  gdouble divisor;              /* effective: never 0 */
  gdouble bias;
  gboolean absolute;

  /* Integer path: integer coefficients, divisor and bias whose sums fit in
   * 30 bits for 16-bit samples; results are then exact. */
  gboolean integer;
  gint idivisor, ibias;

  /* rank 1: coef[y][x] == col[y] * row[x] (integers on the integer path) */
  gboolean separable;
  gdouble row[GST_CL_CONVOLVE_MAX_SIZE], col[GST_CL_CONVOLVE_MAX_SIZE];

  gboolean identity;            /* output == input */

  /* Fixed point (CPU devices, 8-bit samples): a float matrix of
   * non-negative coefficients, a positive divisor and no bias, whose
   * coefficients divided by the divisor (and the separable factors,
   * normalised so that the row sums to 1) fit Q16 and whose Q8 sums fit
   * 16 bits. q* are those Q16 values. */
  gboolean fixed;
  guint16 qcoef[GST_CL_CONVOLVE_MAX_TAPS];
  guint16 qrow[GST_CL_CONVOLVE_MAX_SIZE], qcol[GST_CL_CONVOLVE_MAX_SIZE];

  /* Exact sums in fixed point's 16-bit lanes (CPU devices, 8-bit samples):
   * an integer separable matrix of non-negative factors (row factors up
   * to 255), no bias and a divisor of 3 to 1024 (the kernels' division), whose
   * sums of 8-bit samples plus half the divisor fit 16 bits (box blurs up
   * to 15x15). qrow then holds c << 8 and qcol c; results are exact. */
  gboolean exact16;
  /* Exact 2-D sums in those lanes (CPU devices, 8-bit samples): an integer
   * matrix of any sign, divisor and bias whose sums of 8-bit samples span
   * at most 2^16 values (255 * sum|c| <= 65535: sharpen, the edge
   * detectors, emboss); the 2-D path then sums in 16-bit lanes, exactly. */
  gboolean exact2d16;
  /* A box: an integer separable matrix with one non-zero value in every row
   * factor and one in every column factor. CPU devices' sep_strips slides
   * its sums instead of taking every tap (kernels/convolve-cpu-sep.cl). */
  gboolean box;
} GstClConvolveKernel;

#define GST_CL_CONVOLVE_EXACT16_MIN_DIVISOR 3
#define GST_CL_CONVOLVE_EXACT16_MAX_DIVISOR 1024

/* Fills @coef (row order), @width and @height with a preset's matrix.
 * @sigma/@radius are used by gaussian (radius 0: ceil(3 sigma)) and box
 * (radius 0: 1). Returns FALSE for CUSTOM. */
gboolean gst_cl_convolve_preset_matrix (GstClConvolvePreset preset,
    gdouble sigma, gint radius, gdouble * coef, gint * width, gint * height);

/* Checks a user matrix: @n coefficients, @width x @height requested (0:
 * infer a square from @n). On success fills @k's matrix (not the derived
 * fields); else returns FALSE with *@why saying what is valid. */
gboolean gst_cl_convolve_kernel_set_matrix (GstClConvolveKernel * k,
    const gdouble * coef, guint n, gint width, gint height, gchar ** why);

/* Whether @n coefficients do not fill the @width x @height shape (0: from
 * @n) but do fill some allowed one, so that kernel-width/height set later
 * can complete them */
gboolean gst_cl_convolve_kernel_awaits_shape (guint n, gint width,
    gint height);

/* Derives divisor (0 = sum, or 1 when the sum is 0), the integer path, the
 * separable factors, the fixed-point values and identity. FALSE with *@why for an unusable divisor
 * or bias. */
gboolean gst_cl_convolve_kernel_derive (GstClConvolveKernel * k,
    gdouble divisor, gdouble bias, gboolean absolute, gchar ** why);

G_END_DECLS
