#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gpu-bundle.sh DIR [extra Debian package...]
#
# Prepares DIR to be carried to a GPU machine that has an OpenCL driver but no
# GStreamer (no network, no apt there): GStreamer 1.22 and the OpenCL ICD
# loader from this Debian machine's packages, unpacked into DIR/root, and
# DIR/env.sh which, sourced on the GPU machine, points GStreamer at them and
# registers the NVIDIA OpenCL driver with the ICD loader when it is installed
# but not registered.
#
# From the project root:
#   scripts/gpu-bundle.sh .gpu              # ~16 MB; .gpu/ is git-ignored
#   meson setup build-gpu --buildtype=release && meson compile -C build-gpu
# then on the GPU machine, with .gpu and build-gpu copied along:
#   scripts/gpu-check.sh OUTDIR
# For the OpenCV yardsticks of the benchmark add their runtime libraries:
#   scripts/gpu-bundle.sh .gpu libopencv-core406 libopencv-imgproc406 libtbb12 \
#     liblapack3 libblas3 libgfortran5 libquadmath0
set -euo pipefail
dir=${1:?usage: gpu-bundle.sh DIR [extra-debian-package...]}
shift
pkgs=(libgstreamer1.0-0 gstreamer1.0-tools libgstreamer-plugins-base1.0-0
  gstreamer1.0-plugins-base ocl-icd-libopencl1 clinfo liborc-0.4-0 libunwind8
  libdw1 libelf1 libglib2.0-0 libcap2 "$@")

mkdir -p "$dir/debs"
dir=$(cd "$dir" && pwd)
(cd "$dir/debs" && apt-get download "${pkgs[@]}")
rm -rf "$dir/root"
mkdir -p "$dir/root"
for f in "$dir"/debs/*.deb; do dpkg -x "$f" "$dir/root"; done
rm -rf "$dir/debs"    # the unpacked tree is what travels

# keep only the plugins whose libraries travel too (the others only warn)
plugins=$dir/root/usr/lib/x86_64-linux-gnu/gstreamer-1.0
for so in "$plugins"/*.so; do
  case ${so##*/} in
    libgstcoreelements.so | libgstcoretracers.so | libgstapp.so | \
    libgstvideotestsrc.so | libgstvideoconvertscale.so | libgstvideorate.so | \
    libgstrawparse.so | libgstpbtypes.so) ;;
    *) rm -f "$so" ;;
  esac
done

cat > "$dir/env.sh" <<'ENV'
# Source on the GPU machine: GStreamer and the ICD loader from this bundle.
B=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/root
export LD_LIBRARY_PATH=$B/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$B/usr/bin:$PATH
export GST_PLUGIN_SYSTEM_PATH=$B/usr/lib/x86_64-linux-gnu/gstreamer-1.0
export GST_PLUGIN_SCANNER=$B/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner
export GST_REGISTRY=/tmp/gst-registry-$$.bin
# NVIDIA's driver ships libnvidia-opencl.so.1 but may not register it
if [ ! -e /etc/OpenCL/vendors/nvidia.icd ]; then
  mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
ENV
du -sh "$dir/root" | sed 's/^/bundle size: /'
