/* The histogram overlay's own cost per 1080p frame, one implementation of
 * gst/gstclhistogramoverlay*.c against another in the same process (and
 * whether their output is bit-identical), as thread CPU time: best of N
 * batches of 20 frames. Not built by meson (it links two copies of the
 * same files); from the repository root, with REV the version to compare
 * against (REV's overlay files are linked into one object whose
 * gst_cl_histogram_overlay_* symbols become old_*):
 *
 *   rm -rf /tmp/ovb && mkdir -p /tmp/ovb
 *   for f in overlay overlayprops overlayblend overlaypriv; do
 *     x=c; [ $f = overlaypriv ] && x=h
 *     git show REV:gst/gstclhistogram$f.$x > /tmp/ovb/gstclhistogram$f.$x ||
 *       rm /tmp/ovb/gstclhistogram$f.$x; done
 *   CF="-O2 -Igst $(pkg-config --cflags gstreamer-video-1.0)"
 *   for c in /tmp/ovb/*.c; do gcc $CF -c $c -o ${c%.c}.o; done
 *   ld -r /tmp/ovb/*.o -o /tmp/ovb/all.o
 *   nm -g --defined-only /tmp/ovb/all.o | awk '$3 ~ /^gst_cl_histogram_overlay_/
 *       { print $3, "old_" substr ($3, 26) }' > /tmp/ovb/syms
 *   objcopy --redefine-syms=/tmp/ovb/syms /tmp/ovb/all.o /tmp/ovb/old.o
 *   gcc $CF tests/bench/overlay-blend.c gst/gstclhistogramoverlay*.c \
 *       gst/gstclhistogramrows.c /tmp/ovb/old.o -o /tmp/ovb/overlay-blend \
 *       $(pkg-config --libs gstreamer-video-1.0) -lm
 *   /tmp/ovb/overlay-blend 15
 *
 * Both copies call the working tree's gst/gstclhistogramrows.c where REV
 * has it (to compare that file too, compile REV's with
 * -Dgst_cl_histogram_rows_blend=old_rows_blend and the same for the old
 * overlay files). The counts are a smooth hump plus noise (log scale:
 * mostly lit bars, noisy tops), red+green+blue on RGB formats, luma on the
 * others; the frame is random. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstclhistogramoverlay.h"

GstClHistogramOverlay *old_new (void);
void old_free (GstClHistogramOverlay * ov);
gboolean old_draw (GstClHistogramOverlay * ov,
    const GstClHistogramOverlaySettings * s, const GstVideoInfo * info,
    GstBuffer * buf, gboolean attach, const GstClHistogramOverlayData * data);

#define PER_BATCH 20

static gdouble
thread_seconds (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static gboolean
same_pixels (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gboolean same;

  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  same = ma.size == mb.size && !memcmp (ma.data, mb.data, ma.size);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return same;
}

/* One draw; on the meta path the meta is taken off again so that
 * compositions do not pile up */
static void
draw_once (gboolean old, GstClHistogramOverlay * ov,
    const GstClHistogramOverlaySettings * s, const GstVideoInfo * info,
    GstBuffer * buf, gboolean attach, const GstClHistogramOverlayData * d)
{
  GstVideoOverlayCompositionMeta *meta;

  if (old)
    old_draw (ov, s, info, buf, attach, d);
  else
    gst_cl_histogram_overlay_draw (ov, s, info, buf, attach, d);
  if (attach && (meta = gst_buffer_get_video_overlay_composition_meta (buf)))
    gst_buffer_remove_video_overlay_composition_meta (buf, meta);
}

/* Old and new blend every geometry alike: corners, odd sizes and
 * positions (boxes clipped by small frames), both modes, linear and log */
static gboolean
identical_everywhere (GstVideoFormat format, const GstClHistogramOverlayData *
    d, GRand * rand)
{
  static const gint sizes[][2] = { {1920, 1080}, {641, 363}, {37, 19} };
  static const gint boxes[][2] = { {0, 0}, {263, 131}, {45, 33}, {7, 5} };
  GstClHistogramOverlay *ov[2] = { old_new (), gst_cl_histogram_overlay_new ()
  };
  gboolean ok = TRUE;
  guint z, bx, pos, mode;

  for (z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (bx = 0; bx < G_N_ELEMENTS (boxes); bx++)
      for (pos = 0; pos < 4; pos++)
        for (mode = 0; mode < 2; mode++) {
          GstClHistogramOverlaySettings s;
          GstVideoInfo info;
          GstBuffer *a, *b;
          GstMapInfo map;
          gsize k;

          gst_cl_histogram_overlay_settings_init (&s);
          s.enabled = TRUE;
          s.position = pos;
          s.mode = mode;
          s.scale = (z + bx) % 2;
          s.width = boxes[bx][0];
          s.height = boxes[bx][1];
          s.alpha = mode ? 0.5 : 0.3;
          gst_video_info_set_format (&info, format, sizes[z][0], sizes[z][1]);
          a = gst_buffer_new_allocate (NULL, info.size, NULL);
          gst_buffer_map (a, &map, GST_MAP_WRITE);
          for (k = 0; k < map.size; k++)
            map.data[k] = g_rand_int (rand);
          gst_buffer_unmap (a, &map);
          b = gst_buffer_copy_deep (a);
          old_draw (ov[0], &s, &info, a, FALSE, d);
          gst_cl_histogram_overlay_draw (ov[1], &s, &info, b, FALSE, d);
          ok = ok && same_pixels (a, b);
          gst_buffer_unref (a);
          gst_buffer_unref (b);
        }
  old_free (ov[0]);
  gst_cl_histogram_overlay_free (ov[1]);
  return ok;
}

int
main (int argc, char **argv)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_AYUV, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_NV24,
    GST_VIDEO_FORMAT_Y41B, GST_VIDEO_FORMAT_A420, GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE,
    GST_VIDEO_FORMAT_Y444,
  };
  static const gchar *rgb_names[] = { "red", "green", "blue" };
  static const gchar *luma_names[] = { "luma" };
  static guint64 counts[3 * 256];
  gint batches = argc > 1 ? atoi (argv[1]) : 15;
  GRand *rand = g_rand_new_with_seed (7);
  guint f, c, v;

  gst_init (NULL, NULL);
  for (c = 0; c < 3; c++)
    for (v = 0; v < 256; v++)
      counts[c * 256 + v] = (guint64) (20000 * exp (-pow ((v - 80.0 - 40 * c)
                  / 50.0, 2))) + g_rand_int_range (rand, 0, 3000);

  g_print ("1920x1080, us per frame, best of %d batches of %d "
      "(thread CPU time)\n%-10s %9s %9s %9s %9s  %s\n", batches, PER_BATCH,
      "format", "old blend", "new blend", "old meta", "new meta", "output");
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstClHistogramOverlay *ov[2] = { old_new (),
      gst_cl_histogram_overlay_new ()
    };
    GstClHistogramOverlaySettings s;
    GstClHistogramOverlayData d = { 0, };
    GstVideoInfo info;
    GstBuffer *buf[2];
    GstMapInfo map;
    gdouble best[2][2] = { {1e9, 1e9}, {1e9, 1e9} };
    gboolean identical;
    gint it, i, impl, attach;
    gsize k;

    gst_video_info_set_format (&info, formats[f], 1920, 1080);
    gst_cl_histogram_overlay_settings_init (&s);
    s.enabled = TRUE;
    d.n_channels = GST_VIDEO_INFO_IS_RGB (&info) ? 3 : 1;
    d.names = d.n_channels == 3 ? rgb_names : luma_names;
    d.counts = counts;
    d.range = d.bins = 256;

    buf[0] = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_map (buf[0], &map, GST_MAP_WRITE);
    for (k = 0; k < map.size; k++)
      map.data[k] = g_rand_int (rand);
    gst_buffer_unmap (buf[0], &map);
    buf[1] = gst_buffer_copy_deep (buf[0]);
    for (impl = 0; impl < 2; impl++)
      draw_once (impl == 0, ov[impl], &s, &info, buf[impl], FALSE, &d);
    identical = same_pixels (buf[0], buf[1]) &&
        identical_everywhere (formats[f], &d, rand);

    for (it = 0; it < batches; it++)
      for (attach = 0; attach < 2; attach++)
        for (impl = 0; impl < 2; impl++) {
          gdouble t0 = thread_seconds ();

          for (i = 0; i < PER_BATCH; i++)
            draw_once (impl == 0, ov[impl], &s, &info, buf[impl], attach, &d);
          best[attach][impl] = MIN (best[attach][impl],
              (thread_seconds () - t0) / PER_BATCH);
        }
    g_print ("%-10s %9.1f %9.1f %9.1f %9.1f  %s\n",
        gst_video_format_to_string (formats[f]), best[0][0] * 1e6,
        best[0][1] * 1e6, best[1][0] * 1e6, best[1][1] * 1e6,
        identical ? "identical" : "DIFFERENT");
    for (impl = 0; impl < 2; impl++)
      gst_buffer_unref (buf[impl]);
    old_free (ov[0]);
    gst_cl_histogram_overlay_free (ov[1]);
  }
  g_rand_free (rand);
  return 0;
}
