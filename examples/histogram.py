#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Live histograms from clhistogram, read from the bus with plain PyGObject.

    examples/histogram.py                     # videotestsrc ! clhistogram ! fakesink
    examples/histogram.py --num-buffers 10
    examples/histogram.py "v4l2src ! videoconvert ! clhistogram bins=64 ! fakesink"

Prints, for every "histogram" element message, one line per channel: a
16-column bar chart of the counts (bins summed into 16 columns) and the
channel's mean, standard deviation, min, max and clipping. With
attach-meta=true (the default pipeline sets it) every buffer also carries its
histogram as a GstClHistogramMeta; a pad probe reads it with
buf.get_custom_meta("GstClHistogramMeta") and prints one "meta" line per
frame, checking that it equals the frame's message. The plugin must be
findable (GST_PLUGIN_PATH=build/gst, or `meson devenv -C build`).
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

BARS = " ▁▂▃▄▅▆▇█"
COLUMNS = 16


def chart(counts):
    """16 columns: each the sum of its bins, scaled to the tallest column."""
    n = len(counts)
    cols = [0] * min(COLUMNS, n)
    for i, c in enumerate(counts):
        cols[i * len(cols) // n] += c
    top = max(cols) or 1
    return "".join(BARS[(c * (len(BARS) - 1) + top - 1) // top] for c in cols)


def show(s):
    """Prints one histogram message (a Gst.Structure)."""
    ts = s.get_value("timestamp")
    when = "%.3fs" % (ts / Gst.SECOND) if ts != Gst.CLOCK_TIME_NONE else "-"
    print("t=%s frames=%d pixels=%d %dx%d bins=%d" % (
        when, s.get_value("frames"), s.get_value("pixels"),
        s.get_value("width"), s.get_value("height"), s.get_value("bins")))
    names = s.get_value("channels")
    counts = s.get_value("counts")
    for i, name in enumerate(names):
        print("  %-5s |%s| mean %6.1f std %5.1f min %5d max %5d "
              "clip %4.1f%%/%4.1f%%" % (
                  name, chart(list(counts[i])), s.get_value("mean")[i],
                  s.get_value("stddev")[i], s.get_value("min")[i],
                  s.get_value("max")[i], 100 * s.get_value("clip-low")[i],
                  100 * s.get_value("clip-high")[i]))
    sys.stdout.flush()


META = "GstClHistogramMeta"


def watch_meta(pipeline, state):
    """Pad probes on every clhistogram's source pad reading the meta.

    The probe runs in the streaming thread, after the element posted the
    frame's message; the structure is copied for the main loop, which pairs
    it with the message of the same timestamp (see match_metas)."""
    def on_buffer(pad, info):
        meta = info.get_buffer().get_custom_meta(META)
        if meta is not None:
            state["metas"].append(meta.get_structure().copy())
        return Gst.PadProbeReturn.OK

    it = pipeline.iterate_recurse()
    while True:
        ok, el = it.next()
        if ok != Gst.IteratorResult.OK:
            break
        factory = el.get_factory()
        if factory and factory.get_name() == "clhistogram":
            el.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER,
                                               on_buffer)


def match_metas(state):
    """Pairs the metas taken so far with their messages and shows them"""
    keep = []
    for meta in state["metas"]:
        msg = state["messages"].pop(meta.get_value("timestamp"), None)
        if msg is None:
            keep.append(meta)
            continue
        state["metas_seen"] += 1
        if not show_meta(meta, msg):
            state["rc"] = 1
    state["metas"][:] = keep


def show_meta(meta, message):
    """One line for the meta of a frame; FALSE when it differs from the
    message of that frame"""
    ts = meta.get_value("timestamp")
    names = meta.get_value("channels")
    same = meta.is_equal(message)
    print("  meta  t=%s %s (%s)" % (
        "%.3fs" % (ts / Gst.SECOND) if ts != Gst.CLOCK_TIME_NONE else "-",
        " ".join("%s mean %.1f" % (n, meta.get_value("mean")[i])
                 for i, n in enumerate(names)),
        "same as the message" if same else "DIFFERS from the message"))
    return same


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pipeline", nargs="?",
                    help="gst-launch style pipeline containing clhistogram "
                    "(default: videotestsrc ! clhistogram ! fakesink)")
    ap.add_argument("--num-buffers", type=int, default=30,
                    help="frames of the default source (default 30)")
    ap.add_argument("--frames", type=int, default=0,
                    help="stop after this many messages (0 = at EOS)")
    args = ap.parse_args()

    Gst.init(None)
    desc = args.pipeline or (
        "videotestsrc num-buffers=%d pattern=smpte ! "
        "video/x-raw,width=320,height=240 ! clhistogram attach-meta=true ! "
        "fakesink"
        % args.num_buffers)
    try:
        pipeline = Gst.parse_launch(desc)
    except GLib.Error as e:
        print("Could not build the pipeline: %s" % e.message, file=sys.stderr)
        print("Is the plugin found? Try GST_PLUGIN_PATH=build/gst.",
              file=sys.stderr)
        return 1

    loop = GLib.MainLoop()
    state = {"seen": 0, "rc": 0, "metas": [], "messages": {},
             "metas_seen": 0}
    watch_meta(pipeline, state)

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s is not None and s.get_name() == "histogram":
                show(s)
                state["messages"][s.get_value("timestamp")] = s.copy()
                match_metas(state)
                state["seen"] += 1
                if args.frames and state["seen"] >= args.frames:
                    loop.quit()
        elif msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print("Error: %s\n%s" % (err.message, dbg or ""), file=sys.stderr)
            state["rc"] = 1
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        # the error message, if any, says why
        msg = bus.timed_pop_filtered(Gst.SECOND, Gst.MessageType.ERROR)
        if msg:
            err, dbg = msg.parse_error()
            print("Error: %s\n%s" % (err.message, dbg or ""), file=sys.stderr)
        pipeline.set_state(Gst.State.NULL)
        return 1
    try:
        loop.run()
    except KeyboardInterrupt:
        pass
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    match_metas(state)
    if state["rc"] == 0 and state["seen"] == 0:
        print("No histogram message seen (is clhistogram in the pipeline?)",
              file=sys.stderr)
        return 1
    if state["rc"] == 0 and not args.pipeline and state["metas_seen"] == 0:
        print("No %s seen on the buffers" % META, file=sys.stderr)
        return 1
    return state["rc"]


if __name__ == "__main__":
    sys.exit(main())
