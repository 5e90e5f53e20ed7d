#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pull integral images from clintegral through appsink and read box sums.

The source frame is taken from the same pipeline through a tee, so the box
sum read from 4 elements of the integral image is checked against numpy's
direct sum of the same box. Exits 0 when every check matches.

    GST_PLUGIN_PATH=build/gst /usr/bin/python3 examples/integral.py
"""
import sys

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402
import numpy as np  # noqa: E402

W, H = 641, 479
PIPELINE = (
    f"videotestsrc pattern=smpte num-buffers=3 ! "
    f"video/x-raw,format=RGBA,width={W},height={H} ! tee name=t "
    f"t. ! queue ! appsink name=frames sync=false "
    f"t. ! queue ! clintegral planes=sum+sqsum ! "
    f"video/x-integral-image,format=U64 ! appsink name=integrals sync=false")

DTYPES = {"U32": np.uint32, "U64": np.uint64, "F32": np.float32,
          "F64": np.float64}


def integral_planes(sample):
    """numpy views of the planes of one video/x-integral-image sample"""
    s = sample.get_caps().get_structure(0)
    w, h = s.get_value("width"), s.get_value("height")
    ch = s.get_value("channels")
    fmt = s.get_value("format")
    names = s.get_value("planes").split(",")
    ok, info = sample.get_buffer().map(Gst.MapFlags.READ)
    data = bytes(info.data)
    sample.get_buffer().unmap(info)
    planes, offset = {}, 0
    for name in names:
        dt = DTYPES[fmt] if name != "sqsum" else (
            np.float64 if fmt.startswith("F") else np.uint64)
        offset = (offset + 7) // 8 * 8      # each plane at a multiple of 8
        n = (w + 1) * (h + 1) * ch
        planes[name] = np.frombuffer(data, dt, n, offset).reshape(
            h + 1, w + 1, ch)
        offset += n * np.dtype(dt).itemsize
    return planes


def box(ii, x0, y0, x1, y1):
    """sum over columns x0..x1-1, rows y0..y1-1: 4 reads"""
    return ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]


def main():
    Gst.init(None)
    pipe = Gst.parse_launch(PIPELINE)
    frames = pipe.get_by_name("frames")
    integrals = pipe.get_by_name("integrals")
    pipe.set_state(Gst.State.PLAYING)
    ok, n = True, 0
    while True:
        fs = frames.emit("pull-sample")
        isample = integrals.emit("pull-sample")
        if fs is None or isample is None:
            break
        okm, info = fs.get_buffer().map(Gst.MapFlags.READ)
        rgba = np.frombuffer(bytes(info.data), np.uint8, W * H * 4).reshape(
            H, W, 4).astype(np.uint64)
        fs.get_buffer().unmap(info)
        p = integral_planes(isample)
        x0, y0, x1, y1 = 13, 7, 500, 400
        rgb = rgba[y0:y1, x0:x1, :3]       # channels R, G, B; alpha excluded
        want = rgb.sum(axis=(0, 1))
        want_sq = (rgb * rgb).sum(axis=(0, 1))
        got = box(p["sum"], x0, y0, x1, y1)
        got_sq = box(p["sqsum"], x0, y0, x1, y1)
        match = np.array_equal(got, want) and np.array_equal(got_sq, want_sq)
        print(f"frame {n}: box ({x0},{y0})-({x1},{y1}) sum R,G,B = "
              f"{got.tolist()} numpy {want.tolist()}, sqsum "
              f"{'matches' if np.array_equal(got_sq, want_sq) else 'DIFFERS'}"
              f" -> {'OK' if match else 'MISMATCH'}")
        ok = ok and match
        n += 1
    pipe.set_state(Gst.State.NULL)
    if n == 0:
        print("no frames")
        return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
