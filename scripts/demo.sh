#!/usr/bin/env bash
# Quick start (1): install, build, and print live histograms of a test video
# computed by clhistogram on the default OpenCL device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
clinfo -l || true
# Debian's PyGObject belongs to /usr/bin/python3, whatever python3 is first on PATH
GST_PLUGIN_PATH="$PWD/build/gst" /usr/bin/python3 examples/histogram.py "$@"
