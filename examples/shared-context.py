#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Choose the OpenCL device from Python and share its context between two
pipelines, with plain PyGObject.

Python cannot fill a "gst.cl.context" GstContext itself: in gst-python 1.22
Gst.Context.writable_structure() returns a copy, so a field set on it never
reaches the context. What works instead:

  1. choose the device with the element's `device` property (or the
     GST_CL_DEVICE environment variable for device=auto elements);
  2. the first element that opens the device posts a HAVE_CONTEXT message
     whose context Python can pass on as it is: set it on the other
     pipeline (pipeline.set_context), or answer NEED_CONTEXT messages with it.

An empty context set from Python is refused with a warning printed on
stderr, which this example also checks. Exits 0 when the second pipeline used
the first one's OpenCL context.

    GST_PLUGIN_PATH=build/gst /usr/bin/python3 examples/shared-context.py
"""
import subprocess
import sys

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

CONTEXT_TYPE = "gst.cl.context"
SOURCE = ("videotestsrc num-buffers=2 ! "
          "video/x-raw,format=GRAY8,width=64,height=48 ! ")


def run(pipe):
    """Plays @pipe to EOS; returns the OpenCL context it posted, or exits"""
    posted = None
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    while True:
        msg = bus.timed_pop_filtered(
            60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR |
            Gst.MessageType.HAVE_CONTEXT)
        if msg is None or msg.type == Gst.MessageType.ERROR:
            err = msg.parse_error()[0].message if msg else "timeout"
            print("pipeline failed:", err, file=sys.stderr)
            sys.exit(1)
        if msg.type == Gst.MessageType.HAVE_CONTEXT:
            ctx = msg.parse_have_context()
            if ctx.get_context_type() == CONTEXT_TYPE:
                posted = ctx
        elif msg.type == Gst.MessageType.EOS:
            break
    pipe.set_state(Gst.State.NULL)
    return posted


def empty_context():
    """An empty context (all Python can make): refused, the pipeline runs on
    the device of its own choosing"""
    Gst.init(None)
    empty = Gst.Context.new(CONTEXT_TYPE, True)
    empty.writable_structure().set_value("device", "cpu")   # a copy: lost
    pipe = Gst.parse_launch(SOURCE + "clhistogram ! fakesink")
    pipe.set_context(empty)
    run(pipe)
    return 0


def main():
    if "--empty-context" in sys.argv:
        return empty_context()
    Gst.init(None)

    # 1) the device is chosen by the element's property
    first = Gst.parse_launch(SOURCE + "clhistogram name=h device=cpu ! "
                             "fakesink")
    context = run(first)
    if context is None:
        print("the first pipeline posted no OpenCL context", file=sys.stderr)
        return 1
    handle = context.get_structure().get_value("cl-context")
    print("device:", context.get_structure().get_value("device-name"))

    # 2) the second pipeline takes that context instead of opening its own
    second = Gst.parse_launch(SOURCE + "clconvolve preset=box radius=1 ! "
                              "fakesink")
    second.set_context(context)
    posted = run(second)
    if posted is not None:
        print("the second pipeline made a context of its own",
              file=sys.stderr)
        return 1
    conv = second.get_by_name("clconvolve0")
    used = conv.get_context(CONTEXT_TYPE)
    if used is None or used.get_structure().get_value("cl-context") != handle:
        print("clconvolve does not use the shared context", file=sys.stderr)
        return 1

    # 3) what does not work from Python, and says so (a GLib warning on
    # stderr, read here from a child process)
    child = subprocess.run([sys.executable, __file__, "--empty-context"],
                           capture_output=True, text=True, timeout=120)
    if child.returncode != 0 or "unusable \"%s\"" % CONTEXT_TYPE \
            not in child.stderr:
        print("no warning about the unusable context:", child.stderr,
              file=sys.stderr)
        return 1
    print("shared context used; empty context refused with a warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
