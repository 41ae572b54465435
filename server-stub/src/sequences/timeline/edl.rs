//! The cut as a CMX 3600 EDL: one cut event per shot, non-drop timecodes, the source side at
//! its file's own rate (its whole timebase: 24 for 23.976) and the record side at the
//! sequence's, with the shot's label and its source file as comments.

use std::fmt::Write;

use super::{timecode, Cut};

/// The reel every event names: the source file is in its `FROM CLIP` comment.
const REEL: &str = "AX";

/// The cut as `.edl` text.
pub fn write(cut: &Cut) -> String {
    let fps = cut.fps;
    let start = cut.record_start();
    let mut edl = format!("TITLE: {}\nFCM: NON-DROP FRAME\n\n", cut.name);
    for (n, clip) in cut.clips.iter().enumerate() {
        let _ = write!(
            edl,
            "{number:03}  {REEL:<8} V     C        {source_in} {source_out} {record_in} {record_out}\n\
             * FROM CLIP NAME: {label}\n* FROM CLIP: {path}\n\n",
            number = n + 1,
            source_in = timecode(clip.source_in(), clip.source.rate.timebase()),
            source_out = timecode(clip.source_out(), clip.source.rate.timebase()),
            record_in = timecode(start + clip.record_in, fps),
            record_out = timecode(start + clip.record_out(), fps),
            label = clip.label,
            path = clip.path(),
        );
    }
    edl
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_carry_source_and_record_timecodes() {
        let edl = write(&super::super::tests::cut());
        let lines: Vec<&str> = edl.lines().collect();
        assert_eq!(lines[0], "TITLE: Reel <1> & \"2\"");
        assert_eq!(
            lines[7],
            "002  AX       V     C        00:00:01:00 00:00:04:00 01:00:02:00 01:00:05:00"
        );
        assert_eq!(lines[8], "* FROM CLIP NAME: Shot 2: close-up");
        assert_eq!(lines[9], "* FROM CLIP: media/b.mp4");
    }
}
