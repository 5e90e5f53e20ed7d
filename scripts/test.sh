#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Quick start (2): install, build, run the test suite (all on PoCL, the
# OpenCL CPU device), check the install layout, then the runtime, element
# error paths and hostile-input cases under valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
clinfo -l || true
meson test -C build --print-errorlogs
# every clconvolve and clhistogram case again on the small first-frame kernels
# that run a non-live stream's first frames on CPU devices
GST_CL_CONVOLVE_FIRST=only meson test -C build --print-errorlogs clconvolve
GST_CL_HISTOGRAM_FIRST=only meson test -C build --print-errorlogs clhistogram
scripts/check-install.sh

# memcheck (fails on errors and definite leaks; see tests/valgrind.supp).
# After the normal pass, which fills the program caches; format sweeps and
# many-pipeline cases stay out (tens of minutes under memcheck).
memcheck() { # memcheck TEST CASE,CASE,...
  GST_CHECKS=$2 meson test -C build --setup valgrind --print-errorlogs "$1"
}
memcheck clcontext test_context_shared_in_pipeline,test_application_context,\
test_held_context_not_replaced,test_allocation_proposed,\
test_context_reads_while_starting,test_bad_cache_files_rebuilt,\
test_device_error_lists_devices
memcheck clhistogram test_message_types,test_invalid_properties,\
test_missing_channel,test_interval_and_eos,test_interval_flush,\
test_luma_601_709_differ,test_bytes_segment,test_missing_channel_once,\
test_interval_backwards,test_interval_unstamped,test_controlled_bins,\
test_channels_caps,test_message_counts_modes,test_many_bins,\
test_first_frame_switch,test_luma_from_rgb
memcheck clconvolve test_kernel_property_order,test_kernel_integer_values,\
test_fixed_point,test_first_frame_switch,test_exact_sums_2d
memcheck clchain test_chain_small,test_renegotiate_mid_stream,\
test_overlay_in_device_memory
memcheck clhostile test_hostile_strides,test_hostile_separate_planes,\
test_hostile_16bit,test_unaddressable_caps
memcheck clallocation test_passthrough_forwards_downstream_pool,\
test_transform_uses_downstream_pool,test_separate_output_planes,\
test_hostile_output_buffers,test_lifo_pool_order,test_output_buffer_reused
memcheck cllifecycle test_create_destroy,test_refused_caps_pipeline
memcheck cllive test_histogram_live_changes,test_integral_live_changes,\
test_convolve_live_changes,test_live_pipelines_start_together
memcheck cloverlay test_property_specs,test_meta_equals_message,\
test_property_changes_while_playing,test_meta_path_keeps_upstream_composition,\
test_meta_path_reuses_pixels,test_readonly_frame_copied,test_interval
memcheck cloverlay-device test_property_changes_while_playing
memcheck clintegral test_solid_8bit,test_box_mean_float_limit,test_streamed_rows,\
  test_first_frame_switch,test_kernel_parts_from_dir,test_box_mean_sum_width
meson test -C build --setup valgrind --print-errorlogs clupload \
  example-histogram-meta
