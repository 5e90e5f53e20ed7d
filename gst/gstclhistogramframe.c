/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clhistogram's per-frame work: a frame counted (its passes enqueued, the
 * counts read back), the counts added up over an interval and posted as
 * "histogram" messages, the meta attached and the overlay drawn (on the
 * host, or on the device in the same queue run as the counting). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclhistogrampriv.h"
#include "gstclhistogrammeta.h"

/* The playing-time properties one frame is counted and drawn with, read
 * together under the object lock once per frame */
typedef struct
{
  gboolean post, attach_meta;
  guint64 interval;
  guint bins;
  gint roi_x, roi_y, roi_width, roi_height;
  GstClHistogramOverlaySettings overlay;
} FrameSettings;

static gboolean draw_from_counts (GstClHistogram * self, guint counts_at);

/* The counts of self->frame_roi, read back into self->host */
gboolean
gst_cl_histogram_process (GstClBaseFilter * filter, GstClFrame * frame,
    GstClFrame * out)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (filter);
  GstClContext *ctx = gst_cl_base_filter_get_context (filter);
  gsize n = (gsize) self->n_channels * self->range, i;
  cl_event read = NULL;
  cl_int err = CL_SUCCESS;

  /* GPU: the kernels keep the next frame's half zeroed; only the first
   * frame and one after a failure need both halves cleared here */
  if (self->gpu && self->result_dirty) {
    cl_uint zero = 0;

    err = clEnqueueFillBuffer (ctx->queue, self->result, &zero, sizeof (zero),
        0, 2 * n * 4, 0, NULL, NULL);
    if (!gst_cl_base_filter_check (filter, err, "clEnqueueFillBuffer",
            HIST_WHAT))
      return FALSE;
    self->result_dirty = FALSE;
  }
  for (i = 0; i < self->n_passes; i++)
    if (!gst_cl_histogram_enqueue_pass (self, &self->passes[i], frame,
            self->frame_roi))
      goto fail;
  /* the overlay from the counts where they are: the read below waits for
   * the histogram and the drawing together */
  if (self->draw_with && !draw_from_counts (self,
          self->gpu ? self->half * n : 0))
    goto fail;
  /* GPUs: a blocking read, which NVIDIA's OpenCL copies into our pageable
   * memory in this thread; made non-blocking, its helper thread does, 40-60
   * us later per 1080p frame (H100). CPU devices: gst_cl_wait, which polls
   * a small frame's read instead of sleeping through a wake-up. */
  if (self->host_merge)
    err = clEnqueueReadBuffer (ctx->queue, self->partial, self->gpu, 0,
        gst_cl_histogram_used_partial_bytes (self), self->host, 0, NULL,
        self->gpu ? NULL : &read);
  else
    err = clEnqueueReadBuffer (ctx->queue, self->result, self->gpu,
        (self->gpu ? self->half * n * 4 : 0), n * 4, self->host, 0, NULL,
        self->gpu ? NULL : &read);
  if (err == CL_SUCCESS && read) {
    err = gst_cl_wait (&self->waiter, ctx->queue, read, frame->size);
    clReleaseEvent (read);
  }
  /* the read is done: the frame is no longer in use */
  if (err == CL_SUCCESS)
    gst_cl_frame_set_queue_idle (frame);
  if (!gst_cl_base_filter_check (filter, err, "clEnqueueReadBuffer",
          HIST_WHAT))
    goto fail;
  if (self->draw_with) {
    if (!gst_cl_histogram_blend_finish (self->blend, frame,
            gst_cl_base_filter_get_in_info (filter), TRUE))
      goto fail;
    self->drawn = TRUE;
  }
  self->half ^= 1;
  return TRUE;
fail:
  self->result_dirty = TRUE;
  return FALSE;
}

/* Frames summed in @counts, covering [@start, @end) (GST_CLOCK_TIME_NONE
 * when unstamped) */
typedef struct
{
  const guint64 *counts;
  guint64 frames, pixels;
  GstClockTime start, end;
} Tally;

/* The "histogram" structure of @t */
static GstStructure *
tally_structure (GstClHistogram * self, const Tally * t)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClHistogramResult r = { 0, };
  const GstVideoInfo *info =
      gst_cl_base_filter_get_in_info (GST_CL_BASE_FILTER (self));
  guint bins = MIN (self->last_bins, self->range);

  GST_OBJECT_LOCK (self);
  r.counts_mode = self->message_counts;
  GST_OBJECT_UNLOCK (self);

  r.timestamp = t->start;
  /* only a TIME segment maps timestamps (appsrc's default is BYTES) */
  r.stream_time = r.running_time = GST_CLOCK_TIME_NONE;
  if (trans->segment.format == GST_FORMAT_TIME) {
    r.stream_time = gst_segment_to_stream_time (&trans->segment,
        GST_FORMAT_TIME, t->start);
    r.running_time = gst_segment_to_running_time (&trans->segment,
        GST_FORMAT_TIME, t->start);
  }
  r.duration = GST_CLOCK_TIME_IS_VALID (t->start) &&
      GST_CLOCK_TIME_IS_VALID (t->end) && t->end >= t->start ?
      t->end - t->start : GST_CLOCK_TIME_NONE;
  r.width = GST_VIDEO_INFO_WIDTH (info);
  r.height = GST_VIDEO_INFO_HEIGHT (info);
  r.roi_x = self->last_roi[0];
  r.roi_y = self->last_roi[1];
  r.roi_width = self->last_roi[2];
  r.roi_height = self->last_roi[3];
  r.frames = t->frames;
  r.pixels = t->pixels;
  r.bins = bins;
  r.range = self->range;
  r.n_channels = self->n_channels;
  r.names = self->names;
  r.counts = t->counts;
  return gst_cl_histogram_make_structure (&r);
}

/* The interval so far */
static void
interval_tally (GstClHistogram * self, Tally * t)
{
  t->counts = self->accum;
  t->frames = self->frames;
  t->pixels = self->pixels;
  t->start = self->start_ts;
  t->end = self->end_ts;
}

static void
post_structure (GstClHistogram * self, GstStructure * s)
{
  /* posted without the object lock held: handlers may read properties */
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Posts the interval accumulated so far (if any) and starts a new one */
void
gst_cl_histogram_post_message (GstClHistogram * self)
{
  GstStructure *s;
  gboolean post;
  Tally t;

  if (!self->frames || !self->accum)
    return;
  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  /* overlay or meta alone still count: the interval ends all the same */
  interval_tally (self, &t);
  s = post ? tally_structure (self, &t) : NULL;

  memset (self->accum, 0, (gsize) self->n_channels * self->range *
      sizeof (guint64));
  self->frames = self->pixels = 0;
  self->start_ts = self->end_ts = GST_CLOCK_TIME_NONE;
  if (s)
    post_structure (self, s);
}

/* Adds the counts just read back (self->host) to @dst */
static void
add_frame_counts (GstClHistogram * self, guint64 * dst)
{
  gsize i, n = (gsize) self->n_channels * self->range;

  if (self->host_merge) {
    guint p;

    for (p = 0; p < self->n_passes; p++) {
      const Pass *pass = &self->passes[p];
      const guint32 *part = self->host + (gsize) pass->first *
          self->max_bands * self->range;
      guint64 *acc = dst + (gsize) pass->first * self->range;
      gsize m = (gsize) pass->n_out * self->range;
      gint b;

      for (b = 0; b < pass->nbands; b++)
        for (i = 0; i < m; i++)
          acc[i] += part[b * m + i];
    }
  } else {
    for (i = 0; i < n; i++)
      dst[i] += self->host[i];
  }
}

static void
get_frame_settings (GstClHistogram * self, FrameSettings * fs)
{
  GST_OBJECT_LOCK (self);
  fs->post = self->post_messages;
  fs->attach_meta = self->attach_meta;
  fs->interval = self->interval;
  fs->bins = self->bins;
  fs->roi_x = self->roi_x;
  fs->roi_y = self->roi_y;
  fs->roi_width = self->roi_width;
  fs->roi_height = self->roi_height;
  fs->overlay = self->overlay_set;
  GST_OBJECT_UNLOCK (self);
}

/* The frame's region in luma pixels, clipped to the frame */
static void
get_roi (GstClHistogram * self, const GstVideoInfo * info,
    const FrameSettings * fs, gint * roi)
{
  gint fw = GST_VIDEO_INFO_WIDTH (info), fh = GST_VIDEO_INFO_HEIGHT (info);
  gint x = fs->roi_x, y = fs->roi_y, w = fs->roi_width, h = fs->roi_height;

  if (x >= fw || y >= fh) {
    /* set before the caps were known: fall back to the whole frame */
    if (!self->roi_warned)
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("Region of interest origin %d,%d lies outside the %dx%d frame; "
              "using the whole frame", x, y, fw, fh),
          ("roi-x must be < %d and roi-y < %d", fw, fh));
    self->roi_warned = TRUE;
    x = y = w = h = 0;
  }
  roi[0] = x;
  roi[1] = y;
  roi[2] = (w == 0 || w > fw - x) ? fw - x : w;
  roi[3] = (h == 0 || h > fh - y) ? fh - y : h;
}

/* The boxes with the heights the host computed: a wait of their own */
static gboolean
blend_boxes (gpointer user_data, const GstClHistogramOverlayBox * boxes,
    guint n_boxes)
{
  GstClHistogram *self = user_data;
  const GstVideoInfo *info =
      gst_cl_base_filter_get_in_info (GST_CL_BASE_FILTER (self));

  return gst_cl_histogram_blend_boxes (self->blend, &self->draw_frame, info,
      boxes, n_boxes, NULL, 0) &&
      gst_cl_histogram_blend_finish (self->blend, &self->draw_frame, info,
      FALSE);
}

/* The boxes with heights from the counts in self->result */
static gboolean
enqueue_boxes (gpointer user_data, const GstClHistogramOverlayBox * boxes,
    guint n_boxes)
{
  GstClHistogram *self = user_data;

  return gst_cl_histogram_blend_boxes (self->blend, &self->draw_frame,
      gst_cl_base_filter_get_in_info (GST_CL_BASE_FILTER (self)), boxes,
      n_boxes, self->result, self->draw_counts_at);
}

/* Enqueues the overlay of self->draw_with into self->draw_frame over the
 * counts the histogram just enqueued into self->result, from uint
 * @counts_at */
static gboolean
draw_from_counts (GstClHistogram * self, guint counts_at)
{
  GstClHistogramOverlayData d = { self->n_channels, self->names, NULL,
    self->range, MIN (self->draw_bins, self->range)
  };

  memcpy (d.roi, self->frame_roi, sizeof (d.roi));
  self->draw_counts_at = counts_at;
  return gst_cl_histogram_overlay_draw_boxes (self->overlay, self->draw_with,
      gst_cl_base_filter_get_in_info (GST_CL_BASE_FILTER (self)), &d,
      enqueue_boxes, self);
}

/* Counts @buf's pixels. When the overlay is to be blended into them on the
 * device, the frame stays mapped in place (self->draw_frame) for
 * decorate (); gst_cl_histogram_transform_ip () unmaps it. */
static gboolean
count_frame (GstClHistogram * self, GstBuffer * buf, const FrameSettings * fs)
{
  GstClBaseFilter *filter = GST_CL_BASE_FILTER (self);
  const GstClHistogramOverlaySettings *ov = &fs->overlay;
  gboolean ok;

  /* device memory shared with another buffer is not ours to change: the
   * host path maps it for writing, which copies it (host memory mapped in
   * place is copied the same way) */
  if (!self->blend || !ov->enabled ||
      g_atomic_int_get (&self->downstream_composition) ||
      !gst_buffer_is_writable (buf) ||
      (gst_is_cl_memory (gst_buffer_peek_memory (buf, 0)) &&
          !gst_buffer_is_all_memory_writable (buf)) ||
      !gst_cl_histogram_overlay_takes_boxes (self->overlay,
          gst_cl_base_filter_get_in_info (filter)))
    return gst_cl_base_filter_transform_ip (filter, buf) == GST_FLOW_OK;
  if (!gst_cl_base_filter_map_in_place (filter, buf, &self->draw_frame))
    return FALSE;
  self->draw_mapped = TRUE;
  /* one frame's graph (no interval) from counts the device holds whole (not
   * in bands): drawn in the histogram's queue run */
  if (fs->interval == 0 && !self->host_merge &&
      gst_cl_histogram_blend_counts_heights (self->blend)) {
    self->draw_with = ov;
    self->draw_bins = fs->bins;
  }
  ok = gst_cl_base_filter_process (filter, &self->draw_frame, NULL);
  self->draw_with = NULL;
  return ok;
}

/* The overlay and the meta of @buf: the interval so far (this frame when
 * interval is 0) */
static gboolean
decorate (GstClHistogram * self, GstBuffer * buf, gboolean attach_meta,
    const GstClHistogramOverlaySettings * ov, const Tally * t)
{
  const GstVideoInfo *info =
      gst_cl_base_filter_get_in_info (GST_CL_BASE_FILTER (self));
  GstClHistogramOverlayData d = { self->n_channels, self->names,
    t->counts, self->range, 0
  };

  if (!gst_buffer_is_writable (buf)) {
    /* overlay or attach-meta was just switched on: passthrough ends with
     * the next buffer */
    GST_DEBUG_OBJECT (self, "buffer not writable, not decorated");
    return TRUE;
  }
  if (attach_meta) {
    GstStructure *s = tally_structure (self, t);
    gst_cl_histogram_meta_attach (buf, s);
    gst_structure_free (s);
  }
  if (!ov->enabled || self->drawn)
    return TRUE;
  d.bins = MIN (self->last_bins, self->range);
  memcpy (d.roi, self->last_roi, sizeof (d.roi));
  if (self->draw_mapped)
    /* the frame's device copy, mapped in place by count_frame () */
    return gst_cl_histogram_overlay_draw_boxes (self->overlay, ov, info, &d,
        blend_boxes, self);
  if (!gst_cl_histogram_overlay_draw (self->overlay, ov, info, buf,
          g_atomic_int_get (&self->downstream_composition), &d)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not draw the histogram overlay"),
        ("could not map the %s frame for writing or allocate the overlay",
            GST_VIDEO_INFO_NAME (info)));
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
count_and_decorate (GstClHistogram * self, GstBuffer * buf)
{
  GstClBaseFilter *filter = GST_CL_BASE_FILTER (self);
  const GstVideoInfo *info = gst_cl_base_filter_get_in_info (filter);
  GstClockTime ts = GST_BUFFER_PTS (buf), dur = GST_BUFFER_DURATION (buf);
  FrameSettings fs;
  const GstClHistogramOverlaySettings *ov = &fs.overlay;
  gboolean post, attach_meta, complete;
  guint64 interval, pixels;
  Tally t;
  gsize n;
  gint *roi = self->frame_roi;

  get_frame_settings (self, &fs);
  post = fs.post;
  interval = fs.interval;
  attach_meta = fs.attach_meta;
  if (!post && !attach_meta && !ov->enabled)
    return GST_FLOW_OK;
  if (!self->configured) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no caps before the first buffer"));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  get_roi (self, info, &fs, roi);
  /* counts the frame where it is (device memory read in place) */
  if (!count_frame (self, buf, &fs))
    return GST_FLOW_ERROR;
  n = (gsize) self->n_channels * self->range;

  memcpy (self->last_roi, roi, sizeof (self->last_roi));
  self->last_bins = fs.bins;
  pixels = (guint64) roi[2] * roi[3];

  if (interval > 0 && !GST_CLOCK_TIME_IS_VALID (ts)) {
    /* an unstamped frame belongs to no interval: a message (and meta) of
     * its own, the interval in progress goes on */
    Tally lone = { self->single, 1, pixels, GST_CLOCK_TIME_NONE,
      GST_CLOCK_TIME_NONE
    };

    memset (self->single, 0, n * sizeof (guint64));
    add_frame_counts (self, self->single);
    if ((attach_meta || ov->enabled) && !decorate (self, buf, attach_meta,
            ov, &lone))
      return GST_FLOW_ERROR;
    if (post)
      post_structure (self, tally_structure (self, &lone));
    return GST_FLOW_OK;
  }
  if (GST_CLOCK_TIME_IS_VALID (ts) && GST_CLOCK_TIME_IS_VALID (self->prev_ts)
      && ts < self->prev_ts) {
    /* time went backwards: the interval so far closes, this frame starts
     * the next one */
    GST_DEBUG_OBJECT (self, "PTS %" GST_TIME_FORMAT " before %"
        GST_TIME_FORMAT ": new interval", GST_TIME_ARGS (ts),
        GST_TIME_ARGS (self->prev_ts));
    gst_cl_histogram_post_message (self);
  }

  add_frame_counts (self, self->accum);
  self->frames++;
  self->pixels += pixels;

  /* like level: the message covers [first frame's start, last frame's end) */
  if (GST_CLOCK_TIME_IS_VALID (ts)) {
    GstClockTime end = ts;

    if (GST_CLOCK_TIME_IS_VALID (dur) && dur <= G_MAXUINT64 - 1 - ts)
      end = ts + dur;
    if (!GST_CLOCK_TIME_IS_VALID (self->start_ts))
      self->start_ts = ts;
    if (!GST_CLOCK_TIME_IS_VALID (self->end_ts) || end > self->end_ts)
      self->end_ts = end;
    self->prev_ts = ts;
  }
  complete = interval == 0 || !GST_CLOCK_TIME_IS_VALID (self->start_ts) ||
      self->end_ts - self->start_ts >= interval;
  interval_tally (self, &t);
  if ((attach_meta || ov->enabled) && !decorate (self, buf, attach_meta, ov,
          &t))
    return GST_FLOW_ERROR;
  if (complete)
    gst_cl_histogram_post_message (self);
  return GST_FLOW_OK;
}

GstFlowReturn
gst_cl_histogram_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (trans);
  GstFlowReturn ret = count_and_decorate (self, buf);

  if (self->draw_mapped) {
    gst_cl_frame_unmap (&self->draw_frame);
    self->draw_mapped = FALSE;
  }
  self->drawn = FALSE;
  return ret;
}
