#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "testframes.h"

GST_START_TEST (test_placeholder)
{
  GstHarness *h = gst_harness_new ("clhistogram");
  gst_harness_teardown (h);
}
GST_END_TEST;

static Suite *
clhistogram_suite (void)
{
  Suite *s = suite_create ("clhistogram");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_placeholder);
  return s;
}

GST_CHECK_MAIN (clhistogram);
