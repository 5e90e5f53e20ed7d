#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Quick start (1): install, build, then on the default OpenCL device
#  - print live histograms of a test video computed by clhistogram, and
#  - show the histogram overlay: in a window when there is a display, else
#    written as PNG frames (their folder is printed).
# Options: --source "GST SOURCE" (default: a test pattern), --headless.
set -euo pipefail
cd "$(dirname "$0")/.."
source="videotestsrc pattern=smpte"
headless=
while [ $# -gt 0 ]; do
  case $1 in
    --source) source=$2; shift 2 ;;
    --headless) headless=1; shift ;;
    *) echo "usage: scripts/demo.sh [--source 'v4l2src'] [--headless]" >&2; exit 2 ;;
  esac
done
scripts/install-deps.sh
scripts/build.sh
clinfo -l || true
export GST_PLUGIN_PATH="$PWD/build/gst"

# Debian's PyGObject belongs to /usr/bin/python3, whatever python3 is first on PATH
/usr/bin/python3 examples/histogram.py --num-buffers 10 \
  "$source num-buffers=10 ! videoconvert ! clhistogram attach-meta=true ! fakesink"

overlay="$source ! video/x-raw,width=1280,height=720 ! videoconvert ! clhistogram overlay=true ! videoconvert"
if [ -z "$headless" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  echo "Histogram overlay in a window (close it or press Ctrl-C to stop)"
  gst-launch-1.0 -q $overlay ! autovideosink
else
  out=$PWD/demo-out
  mkdir -p "$out"
  rm -f "$out"/overlay-*.png
  gst-launch-1.0 -q $source num-buffers=5 ! video/x-raw,width=1280,height=720 ! \
    videoconvert ! clhistogram overlay=true ! videoconvert ! pngenc ! \
    multifilesink location="$out/overlay-%02d.png"
  echo "No display: histogram overlay frames written to $out/overlay-*.png"
  ls "$out"/overlay-*.png
fi
