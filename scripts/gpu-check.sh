#!/usr/bin/env bash
# On the GPU machine (see shared/guide/GPU.md), from the project root, with
# .gpu (gpu-bundle) and build-gpu (meson release build) carried along:
#   scripts/gpu-check.sh OUTDIR
# Runs every test binary on the GPU (device auto = first GPU), then the
# benchmark: all sizes end to end, 1080p beside the C references, and
# kernel-only device time. Logs and CSVs go to OUTDIR.
set -uo pipefail
out=${1:?usage: gpu-check.sh OUTDIR}
mkdir -p "$out"
source .gpu/env.sh
export GST_PLUGIN_PATH=$PWD/build-gpu/gst GST_PLUGIN_PATH_1_0=$PWD/build-gpu/gst
export GST_CL_CACHE_DIR=/tmp/gst-cl-cache CK_DEFAULT_TIMEOUT=600
bench=build-gpu/tests/bench/clbench

{ clinfo -l; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } \
  > "$out/device.txt" 2>&1
gst-inspect-1.0 clfilters > "$out/inspect.txt" 2>&1

for t in clcontext clhistogram clconvolve clintegral; do
  start=$(date +%s)
  timeout 90 build-gpu/tests/test-$t > "$out/test-$t.log" 2>&1
  echo "test $t rc=$? ($(( $(date +%s) - start )) s): $(grep -h 'Checks' "$out/test-$t.log")"
done

run() { local name=$1; shift; local start=$(date +%s)
  timeout 90 "$bench" --device gpu "$@" --csv "$out/$name.csv" > "$out/$name.txt" 2>&1
  echo "bench $name rc=$? ($(( $(date +%s) - start )) s)"; }
run gpu-1080p --sizes 1920x1080 --formats RGBA,GRAY8
run gpu-sizes --no-yardsticks --no-fixed --kernel-sizes 7
run gpu-kernel --kernel-time --no-yardsticks --no-fixed --sizes 1920x1080,3840x2160 --kernel-sizes 7
