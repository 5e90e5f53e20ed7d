#!/usr/bin/env bash
# Quick start (2): install, build, run the test suite (all on PoCL, the
# OpenCL CPU device), then the runtime and histogram tests under valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
clinfo -l || true
meson test -C build --print-errorlogs
meson test -C build --setup valgrind --print-errorlogs clcontext clhistogram
