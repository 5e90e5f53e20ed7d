/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClHistogramMeta (see the header and docs/clhistogram.md). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclhistogrammeta.h"

void
gst_cl_histogram_meta_register (void)
{
  /* no tags: elements that copy untagged metas (most do) keep it */
  static const gchar *tags[] = { NULL };
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    gst_meta_register_custom (GST_CL_HISTOGRAM_META_NAME, tags, NULL, NULL,
        NULL);
    g_once_init_leave (&done, 1);
  }
}

static gboolean
copy_field (GQuark field, const GValue * value, gpointer dest)
{
  gst_structure_id_set_value (dest, field, value);
  return TRUE;
}

void
gst_cl_histogram_meta_attach (GstBuffer * buf, const GstStructure * s)
{
  GstCustomMeta *meta = gst_buffer_get_custom_meta (buf,
      GST_CL_HISTOGRAM_META_NAME);
  GstStructure *dest;

  if (meta)
    gst_buffer_remove_meta (buf, (GstMeta *) meta);
  meta = gst_buffer_add_custom_meta (buf, GST_CL_HISTOGRAM_META_NAME);
  dest = gst_custom_meta_get_structure (meta);
  /* the same name as the message: gst_structure_is_equal () holds */
  gst_structure_set_name (dest, gst_structure_get_name (s));
  gst_structure_foreach (s, copy_field, dest);
}
