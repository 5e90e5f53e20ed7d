#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Live pipelines started together in one process: how long until each
delivers its first buffer, and the largest gap between two buffers at each
sink after that (a stall while another pipeline compiles shows here).

    GST_PLUGIN_PATH=build/gst /usr/bin/python3 tests/bench/live-start.py [--warm] [--seconds 8]

By default the program caches (ours and PoCL's) are fresh empty folders, so
every kernel compiles; --warm runs once to fill a cache folder first and
then measures with it. At 30 fps buffers are 33.3 ms apart."""
import argparse
import os
import sys
import tempfile
import threading
import time

PIPELINES = [
    "videotestsrc is-live=true pattern=ball ! "
    "video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! "
    "clconvolve preset=gaussian ! clhistogram overlay=true ! "
    "fakesink name=sink signal-handoffs=true",
    "videotestsrc is-live=true pattern=ball ! "
    "video/x-raw,format=GRAY8,width=320,height=240,framerate=30/1 ! "
    "clupload ! clintegral output=box-mean radius=3 ! cldownload ! "
    "fakesink name=sink signal-handoffs=true",
]


def measure(seconds):
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    runs = []
    for desc in PIPELINES:
        p = Gst.parse_launch(desc)
        times = []
        p.get_by_name("sink").connect(
            "handoff", lambda s, b, pad, t=times: t.append(time.monotonic()))
        runs.append((p, times))
    barrier = threading.Barrier(len(runs))

    def start(p):
        barrier.wait()
        p.set_state(Gst.State.PLAYING)

    t0 = time.monotonic()
    threads = [threading.Thread(target=start, args=(p,)) for p, _ in runs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(seconds)
    errors = []
    for p, _ in runs:
        msg = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
        errors.append(msg.parse_error()[0].message if msg else None)
        p.set_state(Gst.State.NULL)
    all_started = max((t[0] for _, t in runs if t), default=None)
    for i, ((_, t), err) in enumerate(zip(runs, errors)):
        if not t:
            print(f"pipeline {i}: no buffer in {seconds} s, error {err}")
            continue
        gaps = [b - a for a, b in zip(t, t[1:])]
        later = [b - a for a, b in zip(t, t[1:]) if a >= all_started]
        print(f"pipeline {i}: first buffer {(t[0] - t0) * 1000:.0f} ms after "
              f"PLAYING, {len(t)} buffers, max gap after its first "
              f"{max(gaps, default=0) * 1000:.1f} ms, after both started "
              f"{max(later, default=0) * 1000:.1f} ms, error {err}")
        print(f"    {PIPELINES[i]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--seconds", type=float, default=8.0)
    args = ap.parse_args()
    if args.warm and not os.environ.get("LIVE_START_CHILD"):
        cache = tempfile.mkdtemp(prefix="live-start-")
        env = dict(os.environ, GST_CL_CACHE_DIR=cache + "/gst",
                   POCL_CACHE_DIR=cache + "/pocl", LIVE_START_CHILD="1")
        os.makedirs(cache + "/gst")
        os.makedirs(cache + "/pocl")
        import subprocess
        for label in ("filling the caches", "measured"):
            print(f"-- {label}", flush=True)
            subprocess.run([sys.executable, __file__, "--seconds",
                            str(args.seconds), "--warm"], env=env, check=True)
        return
    if not args.warm:
        os.environ["GST_CL_CACHE_DIR"] = tempfile.mkdtemp(prefix="live-start-")
        os.environ["POCL_CACHE_DIR"] = tempfile.mkdtemp(prefix="live-start-")
    measure(args.seconds)


if __name__ == "__main__":
    main()
