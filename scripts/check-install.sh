#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the build into a scratch DESTDIR and checks that GStreamer finds
# the plugin there with nothing but that folder on its plugin path: the
# install layout (prefix, libdir/gstreamer-1.0) is right.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C build --destdir "$dest" --no-rebuild --quiet
prefix=$(meson introspect build --buildoptions |
  /usr/bin/python3 -c 'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o["prefix"] + "/" + o["libdir"])')
plugin_dir=$dest$prefix/gstreamer-1.0
test -f "$plugin_dir/libgstclfilters.so" || {
  echo "check-install: libgstclfilters.so is not in $prefix/gstreamer-1.0" >&2; exit 1; }
# (output captured first: `grep -q` closing the pipe early would fail
# gst-inspect-1.0 with SIGPIPE under pipefail)
inspect=$(GST_REGISTRY_1_0=$dest/registry.bin GST_PLUGIN_PATH_1_0= GST_PLUGIN_PATH= \
  GST_PLUGIN_SYSTEM_PATH_1_0=$plugin_dir gst-inspect-1.0 clfilters 2>&1) || true
grep -q clhistogram <<< "$inspect" || {
  echo "check-install: gst-inspect-1.0 does not find clfilters in $plugin_dir" >&2; exit 1; }
echo "check-install: clfilters installs to $prefix/gstreamer-1.0 and loads from there"
