#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# first-frame.sh [RUNS]: one 1080p frame through each element with default
# settings, from gst-launch-1.0 start to exit, each run a fresh process.
# Cold: empty program caches (ours, PoCL's, NVIDIA's); warm: the same command
# again with the caches the cold run left. Prints wall and CPU seconds.
# Needs the plugin on GST_PLUGIN_PATH (e.g. GST_PLUGIN_PATH=$PWD/build/gst).
set -uo pipefail
runs=${1:-3}
elements=(
  "clhistogram"
  "clconvolve preset=gaussian"
  "clconvolve preset=box"
  "clconvolve preset=sharpen"
  "clconvolve preset=sobel-x"
  "clconvolve preset=motion-blur"
  "clintegral"
  "clintegral output=box-mean"
)
TIMEFORMAT='%R %U %S'
one() { # one ELEMENT... -> "wall cpu"
  local t
  t=$( { time gst-launch-1.0 -q videotestsrc num-buffers=1 ! \
      video/x-raw,width=1920,height=1080 ! "$@" ! fakesink > /dev/null 2>&1; } 2>&1 ) || return 1
  set -- $t
  awk -v r="$1" -v u="$2" -v s="$3" 'BEGIN { printf "%.2f %.2f", r, u + s }'
}
echo "| element | cold wall / CPU (s) | warm wall / CPU (s) |"
echo "|---|---|---|"
for e in "${elements[@]}"; do
  cold="" warm=""
  for ((i = 0; i < runs; i++)); do
    tmp=$(mktemp -d)
    export GST_CL_CACHE_DIR=$tmp/cl POCL_CACHE_DIR=$tmp/pocl CUDA_CACHE_PATH=$tmp/cuda
    c=$(one $e) || c="failed"
    w=$(one $e) || w="failed"
    cold+="${cold:+, }${c/ / / }"
    warm+="${warm:+, }${w/ / / }"
    rm -rf "$tmp"
  done
  echo "| $e | $cold | $warm |"
done
