//! The cut as Final Cut Pro 7 XML (xmeml version 4), the interchange Premiere Pro and DaVinci
//! Resolve import: one sequence, one video track, a clip item per shot, and an audio track per
//! lane with clips. A source file is
//! written in full once (`<file id>` with its path, its own rate and its length in its own
//! frames) and named by id after. A clip item's `<start>`/`<end>` are on the sequence, in its
//! frames; its `<rate>`, `<duration>` and `<in>`/`<out>` are its file's.

use std::collections::HashSet;
use std::fmt::Write;

use super::{timecode, Cut, Rate};

/// `text` with XML's five special characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

fn rate(rate: Rate) -> String {
    let ntsc = if rate.is_ntsc() { "TRUE" } else { "FALSE" };
    format!(
        "<rate><timebase>{}</timebase><ntsc>{ntsc}</ntsc></rate>",
        rate.timebase()
    )
}

/// The cut as `.xml` text.
pub fn write(cut: &Cut) -> String {
    let fps = cut.fps;
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE xmeml>\n");
    let _ = write!(
        xml,
        "<xmeml version=\"4\">\n<sequence id=\"sequence-1\">\n<name>{name}</name>\n\
         <duration>{frames}</duration>\n{rate}\n<timecode>{rate}<string>{start_tc}</string>\
         <frame>{start}</frame><displayformat>NDF</displayformat></timecode>\n<media>\n<video>\n\
         <format><samplecharacteristics>{rate}<width>{width}</width><height>{height}</height>\
         <pixelaspectratio>square</pixelaspectratio></samplecharacteristics></format>\n<track>\n",
        name = escape(&cut.name),
        frames = cut.frames(),
        rate = rate(Rate::whole(fps)),
        start_tc = timecode(cut.record_start(), fps),
        start = cut.record_start(),
        width = cut.width,
        height = cut.height,
    );
    let mut files: Vec<&str> = Vec::new();
    let mut written = HashSet::new();
    for (n, clip) in cut.clips.iter().enumerate() {
        let file_number = match files.iter().position(|f| *f == clip.file_name) {
            Some(at) => at + 1,
            None => {
                files.push(&clip.file_name);
                files.len()
            }
        };
        let file = if written.insert(file_number) {
            let duration = clip
                .source
                .frames
                .map(|frames| format!("<duration>{frames}</duration>"))
                .unwrap_or_default();
            format!(
                "<file id=\"file-{file_number}\"><name>{name}</name><pathurl>{path}</pathurl>\
                 {rate}{duration}<media><video><samplecharacteristics>{rate}</samplecharacteristics>\
                 </video></media></file>",
                name = escape(&clip.file_name),
                path = escape(&clip.path()),
                rate = rate(clip.source.rate),
            )
        } else {
            format!("<file id=\"file-{file_number}\"/>")
        };
        let _ = writeln!(
            xml,
            "<clipitem id=\"clipitem-{id}\"><name>{label}</name><enabled>TRUE</enabled>\
             <duration>{duration}</duration>{rate}<start>{start}</start><end>{end}</end>\
             <in>{source_in}</in><out>{source_out}</out>{file}</clipitem>",
            id = n + 1,
            label = escape(&clip.label),
            duration = clip.source.frames.unwrap_or(clip.source_out()),
            rate = rate(clip.source.rate),
            start = clip.record_in,
            end = clip.record_out(),
            source_in = clip.source_in(),
            source_out = clip.source_out(),
        );
    }
    xml.push_str("</track>\n</video>\n");
    if !cut.audio.is_empty() {
        audio(&mut xml, cut, files.len(), cut.clips.len());
    }
    xml.push_str("</media>\n</sequence>\n</xmeml>\n");
    xml
}

/// The lanes as audio tracks, their files numbered after the `video_files` and their clip
/// items after the `video_items`; each clip's gain as an Audio Levels filter.
fn audio(xml: &mut String, cut: &Cut, video_files: usize, video_items: usize) {
    let sequence_rate = rate(Rate::whole(cut.fps));
    xml.push_str(
        "<audio>\n<format><samplecharacteristics><depth>16</depth><samplerate>48000</samplerate>\
         </samplecharacteristics></format>\n",
    );
    let mut files: Vec<&str> = Vec::new();
    let mut item = video_items;
    for lane in ["Music", "Voice"] {
        let clips: Vec<_> = cut.audio.iter().filter(|c| c.lane == lane).collect();
        if clips.is_empty() {
            continue;
        }
        xml.push_str("<track>\n");
        for clip in clips {
            item += 1;
            let file = match files.iter().position(|f| *f == clip.media_name) {
                Some(at) => format!("<file id=\"file-{}\"/>", video_files + at + 1),
                None => {
                    files.push(&clip.media_name);
                    format!(
                        "<file id=\"file-{id}\"><name>{name}</name><pathurl>{path}</pathurl>\
                         {sequence_rate}<duration>{frames}</duration><media><audio>\
                         <samplecharacteristics><depth>16</depth><samplerate>{sample_rate}\
                         </samplerate></samplecharacteristics><channelcount>{channels}\
                         </channelcount></audio></media></file>",
                        id = video_files + files.len(),
                        name = escape(&clip.media_name),
                        path = escape(&clip.path()),
                        frames = clip.frames_available,
                        sample_rate = clip.sample_rate,
                        channels = clip.channels,
                    )
                }
            };
            let _ = writeln!(
                xml,
                "<clipitem id=\"clipitem-{item}\"><name>{name}</name><enabled>TRUE</enabled>\
                 <duration>{duration}</duration>{sequence_rate}<start>{start}</start>\
                 <end>{end}</end><in>{source_in}</in><out>{source_out}</out>{file}<sourcetrack>\
                 <mediatype>audio</mediatype><trackindex>1</trackindex></sourcetrack><filter>\
                 <effect><name>Audio Levels</name><effectid>audiolevels</effectid>\
                 <effectcategory>audiolevels</effectcategory><effecttype>audiolevels</effecttype>\
                 <mediatype>audio</mediatype><parameter><parameterid>level</parameterid>\
                 <name>Level</name><valuemin>0</valuemin><valuemax>3.98109</valuemax>\
                 <value>{level}</value></parameter></effect></filter></clipitem>",
                name = escape(&clip.name),
                duration = clip.frames_available,
                start = clip.record_in,
                end = clip.record_out(),
                source_in = clip.in_frame,
                source_out = clip.out_frame,
                level = 10f64.powf(clip.gain_db / 20.0),
            );
        }
        xml.push_str("</track>\n");
    }
    xml.push_str("</audio>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_is_written_once_and_named_after() {
        let xml = write(&super::super::tests::cut());
        assert_eq!(xml.matches("<pathurl>media/a.mp4</pathurl>").count(), 1);
        assert_eq!(xml.matches("<file id=\"file-1\"/>").count(), 1);
        assert!(xml.contains("<name>Reel &lt;1&gt; &amp; &quot;2&quot;</name>"));
        assert!(xml.contains("<start>50</start><end>125</end><in>25</in><out>100</out>"));
        assert!(xml.contains("<string>01:00:00:00</string><frame>90000</frame>"));
    }

    /// Fails on telling Premiere every file runs at the sequence's rate.
    #[test]
    fn a_file_keeps_its_own_rate_and_ntsc_is_said() {
        let mut cut = super::super::tests::cut();
        cut.clips[1].source.rate = Rate::of_track(24000, 1001).unwrap();
        cut.clips[1].source.frames = Some(240);
        let xml = write(&cut);
        let b = xml.lines().find(|l| l.contains("media/b.mp4")).unwrap();
        assert!(
            b.contains(
                "<rate><timebase>24</timebase><ntsc>TRUE</ntsc></rate><duration>240</duration>"
            ),
            "{b}"
        );
        // 1 s to 4 s of the 25 fps cut: frames 24 and 96 of 23.976 (23.98 and 95.9).
        assert!(
            b.contains("<start>50</start><end>125</end><in>24</in><out>96</out>"),
            "{b}"
        );
        assert!(xml.contains("<sequence id=\"sequence-1\">"));
        assert!(xml.contains("<timebase>25</timebase><ntsc>FALSE</ntsc>"));
    }
}
