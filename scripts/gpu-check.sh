#!/usr/bin/env bash
# On the GPU machine (see shared/guide/GPU.md), from the project root, with
# .gpu (gpu-bundle) and build-gpu (meson release build) carried along:
#   scripts/gpu-check.sh OUTDIR [TEST_TIMEOUT_S]
# Runs every test binary on the GPU (device auto = first GPU), then the
# benchmark: end to end with kernel-only times, and 1080p beside the C
# references. OUTDIR gets the CSVs and logs.tgz (test logs, tables).
set -uo pipefail
out=${1:?usage: gpu-check.sh OUTDIR [TEST_TIMEOUT_S]}
tmo=${2:-200}
logs=$(mktemp -d)
mkdir -p "$out"
source .gpu/env.sh
export GST_PLUGIN_PATH=$PWD/build-gpu/gst GST_PLUGIN_PATH_1_0=$PWD/build-gpu/gst
export GST_CL_CACHE_DIR=/tmp/gst-cl-cache CK_DEFAULT_TIMEOUT=600
# NVIDIA's OpenCL does not survive fork() once the parent has used it (the
# suites probe for a device before gst-check forks): run tests in-process
export CK_FORK=no
bench=build-gpu/tests/bench/clbench

{ clinfo -l; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } \
  > "$logs/device.txt" 2>&1
gst-inspect-1.0 clfilters > "$logs/inspect.txt" 2>&1

for t in clcontext clhistogram clconvolve clintegral; do
  start=$(date +%s)
  timeout "$tmo" build-gpu/tests/test-$t > "$logs/test-$t.log" 2>&1
  echo "test $t rc=$? ($(( $(date +%s) - start )) s): $(grep -h 'Checks' "$logs/test-$t.log")"
  grep -h ':F:\|:E:' "$logs/test-$t.log" | head -5
done

run() { local name=$1; shift; local start=$(date +%s)
  timeout 120 "$bench" --device gpu "$@" --csv "$out/$name.csv" > "$logs/$name.txt" 2>&1
  echo "bench $name rc=$? ($(( $(date +%s) - start )) s)"; }
run gpu-e2e --sizes 1920x1080,3840x2160,7680x4320 --formats RGBA,GRAY8 --kernel-sizes 3,7,15,31 --no-yardsticks
run gpu-kernel --kernel-time --no-yardsticks --no-fixed --sizes 1920x1080,3840x2160,7680x4320 --formats RGBA,GRAY8 --kernel-sizes 7
run gpu-cref --sizes 1920x1080 --formats RGBA,GRAY8 --elements integral,histogram --no-fixed
tar czf "$out/logs.tgz" -C "$logs" .
