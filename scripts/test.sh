#!/usr/bin/env bash
# Quick start (2): install, build, run the test suite (all on PoCL, the
# OpenCL CPU device), then the runtime and histogram tests under valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
clinfo -l || true
meson test -C build --print-errorlogs
scripts/check-install.sh
# memcheck (fails on errors and definite leaks; see tests/valgrind.supp):
# the runtime's context and allocation cases, and clhistogram's messages,
# intervals, luma and error paths (its format sweeps take tens of minutes
# under memcheck; they run in the normal pass above)
# clcontext's context-sharing and allocation cases (the device-selector
# sweeps are many pipelines, each tens of seconds under memcheck)
GST_CHECKS=test_context_shared_in_pipeline,test_application_context,\
test_held_context_not_replaced,test_allocation_proposed \
  meson test -C build --setup valgrind --print-errorlogs clcontext
GST_CHECKS=test_message_types,test_invalid_properties,test_missing_channel,\
test_interval_and_eos,test_interval_flush,test_luma_601_709_differ \
  meson test -C build --setup valgrind --print-errorlogs clhistogram
