/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clintegral per frame: the launches of a frame's integral planes or box
 * means */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclintegralpriv.h"

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

    gst_cl_integral_gpu_tiles (self, p->tile_rows, &strips, &blocks);
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
    /* one pass, one work-item per band; rows claimed while running; sums
     * in 64 bits (plane 1) only where this radius needs them */
    IntegralPlane *sums = &self->plane[self->n_planes > 1 &&
        !gst_cl_integral_box_fits_32 (self, r) ? 1 : 0];
    gsize one = 1, nb = self->n_bands;
    cl_kernel k = g_atomic_int_get (&self->fast_ready) ? sums->fast :
        sums->k1;
    cl_uint arg = next_cpu_epoch (self, sums);

    GST_CL_LAUNCH (self, k, 1, &nb, &one, INTEGRAL_WHAT,
        GST_CL_ARG_PLANE (in, 0), GST_CL_ARG_PLANE (out, 0), GST_CL_ARG (w),
        GST_CL_ARG (h), GST_CL_ARG (r), GST_CL_ARG (self->band_start),
        GST_CL_ARG (sums->accrow), GST_CL_ARG (arg));
  } else if (self->box_tile && r <= BOX_TILE_MAX_RADIUS &&
      (self->box_pstride != 4 || (in->offset[0] % 4 == 0 &&
              in->stride[0] % 4 == 0 && out->offset[0] % 4 == 0 &&
              out->stride[0] % 4 == 0))) {
    /* one launch; tiles of box_tile_wg - 2r means by BOX_TILE_H rows;
     * whole windows divide by inv (integral-gpu-box.cl) */
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

gboolean
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
