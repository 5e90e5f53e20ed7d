#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what gst-opencl-filters needs to build, test and run its demo on
# Debian 12 or Ubuntu 24.04: GStreamer, the OpenCL ICD loader and PoCL (the
# OpenCL CPU device every test runs on), meson, valgrind, PyGObject.
set -euo pipefail

sudo_cmd=()
if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi

packages=(
  gcc pkg-config meson ninja-build python3
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
  python3-gi python3-gst-1.0 gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  python3-numpy valgrind
)

export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
