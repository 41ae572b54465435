"""Reads a caption file as players and editors' tools would: with pysubs2 (SubRip or WebVTT)
and, for WebVTT, with webvtt-py too. Prints JSON: each reader's cues as start and end in
milliseconds, text, and (webvtt-py) the cue's voice."""

import json
import sys

import pysubs2
import webvtt


def millis(stamp):
    hours, minutes, seconds = stamp.split(":")
    return round((int(hours) * 3600 + int(minutes) * 60 + float(seconds)) * 1000)


def main(path):
    read = {
        "pysubs2": [
            {"start": e.start, "end": e.end, "text": e.plaintext}
            for e in pysubs2.load(path, encoding="utf-8")
        ]
    }
    if path.endswith(".vtt"):
        read["webvtt"] = [
            {
                "start": millis(c.start),
                "end": millis(c.end),
                "text": c.text,
                "voice": c.voice,
            }
            for c in webvtt.read(path)
        ]
    print(json.dumps(read))


if __name__ == "__main__":
    main(sys.argv[1])
