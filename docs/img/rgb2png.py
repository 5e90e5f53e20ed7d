#!/usr/bin/python3
"""Writes a raw RGB frame (GStreamer's RGB layout: rows padded to 4 bytes)
as a PNG with the standard library only, for machines without pngenc:

    rgb2png.py WIDTH HEIGHT frame.rgb out.png
"""
import struct
import sys
import zlib


def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data)))


def main():
    w, h, src, dst = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    raw = open(src, "rb").read()
    stride = (w * 3 + 3) & ~3
    rows = b"".join(b"\0" + raw[y * stride:y * stride + w * 3]
                    for y in range(h))
    with open(dst, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" +
                chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
