"""Reads a timeline file with OpenTimelineIO and its adapters (otio_json, fcp_xml, cmx_3600) and
prints what an editor's import would find, as JSON: the timeline's length and start, and each
clip's name, media reference (and whether that file is there, beside the timeline) and source
range, in frames at the given rate, and in seconds at the rate the file gives it; and each audio
track's clips."""

import json
import os
import sys

import opentimelineio as otio

ADAPTERS = {".otio": "otio_json", ".xml": "fcp_xml", ".edl": "cmx_3600"}


def frames(time, rate):
    return round(time.rescaled_to(rate).value)


def main(path, rate):
    adapter = next(a for suffix, a in ADAPTERS.items() if path.endswith(suffix))
    options = {"rate": rate} if adapter == "cmx_3600" else {}
    timeline = otio.adapters.read_from_file(path, adapter_name=adapter, **options)
    clips = []
    for clip in timeline.video_tracks()[0].find_clips():
        url = getattr(clip.media_reference, "target_url", None)
        clips.append(
            {
                "name": clip.name,
                "target_url": url,
                "found": url is not None
                and os.path.isfile(os.path.join(os.path.dirname(path), url)),
                "source_in": frames(clip.source_range.start_time, rate),
                "source_rate": clip.source_range.start_time.rate,
                "source_in_s": clip.source_range.start_time.to_seconds(),
                "source_out_s": clip.source_range.end_time_exclusive().to_seconds(),
                "frames": frames(clip.source_range.duration, rate),
                "record_in": frames(clip.range_in_parent().start_time, rate),
            }
        )
    audio = [
        [
            {
                "name": clip.name,
                "target_url": clip.media_reference.target_url,
                "found": os.path.isfile(
                    os.path.join(os.path.dirname(path), clip.media_reference.target_url)
                ),
                "source_in": frames(clip.source_range.start_time, rate),
                "frames": frames(clip.source_range.duration, rate),
                "record_in": frames(clip.range_in_parent().start_time, rate),
            }
            for clip in track.find_clips()
        ]
        for track in timeline.audio_tracks()
    ]
    start = timeline.global_start_time
    print(
        json.dumps(
            {
                "frames": frames(timeline.duration(), rate),
                "start": None if start is None else frames(start, rate),
                "clips": clips,
                "audio": audio,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
