#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole GPU correctness and benchmark run, in one command, on a machine
# with a GPU OpenCL driver. Prepare on the build machine, from the project root:
#   scripts/gpu-bundle.sh .gpu     # only where the GPU machine lacks GStreamer
#   meson setup build-gpu --buildtype=release && meson compile -C build-gpu
# then, on the GPU machine, from the project root with .gpu and build-gpu:
#   scripts/gpu-check.sh OUTDIR [TEST_TIMEOUT_S] [PARTS]
# PARTS (default "tests bench chain overlay multi"): any of them; "tests"
# alone or "bench" alone fits one 10-minute slot better. chain: clupload !
# ... ! cldownload chains beside the same elements on system memory;
# overlay: clhistogram with overlay=true switched off and on in blocks of one
# pipeline (--overlay-ab), on every format;
# multi: one pipeline per GPU, alone and all at once (needs 2+ GPUs). Runs every test binary on the GPU (device auto = first GPU), the first-frame
# timings, then the benchmark: end to end with kernel-only times, and 1080p
# beside the C references. OUTDIR gets the CSVs and logs.tgz. Exits non-zero
# when any step failed.
set -uo pipefail
out=${1:?usage: gpu-check.sh OUTDIR [TEST_TIMEOUT_S]}
tmo=${2:-200}
parts=${3:-tests bench chain overlay multi}
logs=$(mktemp -d)
mkdir -p "$out"
failed=0
if [ -f .gpu/env.sh ]; then source .gpu/env.sh; fi
export GST_PLUGIN_PATH=$PWD/build-gpu/gst GST_PLUGIN_PATH_1_0=$PWD/build-gpu/gst
export GST_CL_CACHE_DIR=/tmp/gst-cl-cache CK_DEFAULT_TIMEOUT=600
# the kernels' part files, which a test copies (the build's path is this
# checkout's on the build machine)
export GST_CL_TEST_KERNELS_DIR=$PWD/kernels
# NVIDIA's OpenCL does not survive fork() once the parent has used it (the
# suites probe for a device before gst-check forks): run tests in-process
export CK_FORK=no
bench=build-gpu/tests/bench/clbench

step() { # step NAME TIMEOUT CMD...: runs CMD, logs it, counts a failure
  local name=$1 t=$2 start rc; shift 2
  start=$(date +%s)
  timeout "$t" "$@" > "$logs/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc ($(( $(date +%s) - start )) s)"
  if [ $rc -ne 0 ]; then failed=$((failed + 1)); tail -n 5 "$logs/$name.log"; fi
}

step device 60 sh -c 'clinfo -l && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv'
step inspect 60 gst-inspect-1.0 clfilters
# GPU_TESTS overrides the list (the whole list takes more than 10 minutes
# on NVIDIA, where clhistogram and cllifecycle are slow)
tests=${GPU_TESTS:-clcontext clhistogram clconvolve clintegral clupload clchain cloverlay \
  cloverlay-host cloverlay-hostheights cllifecycle clhostile clallocation cllive}
# cllifecycle makes an OpenCL context per cycle, over a thousand in all:
# with its full counts it did not finish in 150 s on NVIDIA, so it runs its
# quick counts there (GST_CL_TEST_QUICK: 5 cycles per element)
[[ $parts == *tests* ]] && for t in $tests; do
  quick=; [ "$t" = cllifecycle ] && quick=1
  # GPUs blend the overlay on the device: cloverlay-host forces the host's
  # blend, cloverlay-hostheights the device blend from bar heights the host
  # computed (the path of intervals and devices without doubles)
  blend=; [ "$t" = cloverlay-host ] && blend=host
  heights=; [ "$t" = cloverlay-hostheights ] && heights=host
  step "test-$t" "$tmo" env ${quick:+GST_CL_TEST_QUICK=1} \
    ${blend:+GST_CL_HISTOGRAM_OVERLAY_BLEND=$blend} \
    ${heights:+GST_CL_HISTOGRAM_OVERLAY_HEIGHTS=$heights} "build-gpu/tests/test-${t%%-*}"
  grep -h 'Checks\|:F:\|:E:' "$logs/test-$t.log" | head -6
done
if [[ $parts == *bench* ]]; then
step first-frame 300 scripts/first-frame.sh 2
cat "$logs/first-frame.log"
step live-change 120 "$bench" --device gpu --live-change --no-yardsticks
grep -i "gap\|change" "$logs/live-change.log" | head -8
step gpu-e2e 120 "$bench" --device gpu --memory pool --sizes 1920x1080,3840x2160,7680x4320 \
  --formats RGBA,GRAY8 --kernel-sizes 3,7,15,31 --no-yardsticks --csv "$out/gpu-e2e.csv"
step gpu-kernel 120 "$bench" --device gpu --memory pool --kernel-time --no-yardsticks --no-fixed \
  --sizes 1920x1080,3840x2160,7680x4320 --formats RGBA,GRAY8 --kernel-sizes 7 \
  --csv "$out/gpu-kernel.csv"
step gpu-cref 120 "$bench" --device gpu --memory pool --sizes 1920x1080 --formats RGBA,GRAY8 \
  --elements integral,histogram --no-fixed --csv "$out/gpu-cref.csv"
fi
if [[ $parts == *chain* ]]; then
step chain 240 "$bench" --device gpu --elements chain --formats RGBA \
  --sizes 1920x1080,3840x2160 --no-fixed --csv "$out/gpu-chain.csv"
cat "$logs/chain.log"
fi
if [[ $parts == *overlay* ]]; then
step overlay 240 "$bench" --device gpu --elements histogram --memory pool \
  --formats RGBA,I420,NV12,YUY2,GRAY8 --sizes 1920x1080 --no-yardsticks --no-fixed \
  --repeat 50 --overlay-ab 10 --csv "$out/gpu-overlay.csv"
cat "$logs/overlay.log"
fi
if [[ $parts == *multi* ]]; then
  # every device of the first platform that has GPUs, as P:D
  gpus=$(clinfo -l | awk '
    /^Platform #/ { p = $2; gsub(/[#:]/, "", p); if (found) exit }
    /Device #/ && /NVIDIA|AMD|Radeon|Graphics/ {
      d = $0; sub(/.*Device #/, "", d); sub(/:.*/, "", d)
      list = list (list ? "," : "") p ":" d; found = 1 }
    END { print list }')
  echo "GPUs: $gpus"
  if [[ $gpus == *,* ]]; then
    step multi-1080p 200 "$bench" --multi-device "$gpus" --sizes 1920x1080 \
      --formats RGBA --seconds 5 --csv "$out/gpu-multi-1080p.csv"
    cat "$logs/multi-1080p.log"
    step multi-4k 200 "$bench" --multi-device "$gpus" --sizes 3840x2160 \
      --formats RGBA --seconds 5 --csv "$out/gpu-multi-4k.csv"
    cat "$logs/multi-4k.log"
  else
    echo "multi: one GPU only, skipped"
  fi
fi
tar czf "$out/logs.tgz" -C "$logs" .
echo "gpu-check: $failed step(s) failed"
[ $failed -eq 0 ]
