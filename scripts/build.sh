#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Configures (once) and builds into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  # --prefix=/usr: `meson install` puts the plugin where Debian and
  # Ubuntu's GStreamer look (/usr/lib/<triplet>/gstreamer-1.0)
  meson setup build --buildtype=debugoptimized --prefix=/usr
fi
meson compile -C build
