//! Captions burnt into the picture (`captions: "burn"`): each cue set in the bundled DejaVu
//! Sans (`assets/fonts/`, Bitstream Vera licence), sized for the frame (a twentieth of its
//! shorter side, so a 9:16 frame's lines are as tall as a 16:9 frame's and wrap sooner), its
//! lines wrapped at word boundaries to fit the title-safe width (the middle 90 %), white on a
//! dark box, centred, its foot on the foot of the title-safe area (EBU R 95: 5 % in from each
//! edge). A cue whose lines would fill more than two fifths of the safe height is set smaller
//! until they fit. Each cue is set once, when its first frame comes, into a table of what it
//! does to each pixel; the frames it covers are then blended in their own I420 planes.

use ab_glyph::{point, Font, FontRef, GlyphId, PxScale, ScaleFont};

use crate::engine::{EngineError, Frame};

static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// The title-safe area's inset from each edge, as a share of the frame's side.
const SAFE_INSET: f32 = 0.05;
/// A line's type size, as a share of the frame's shorter side.
const TYPE_SIZE: f32 = 0.05;
/// The most of the safe height a cue's lines may fill before they are set smaller.
const MOST_HEIGHT: f32 = 0.4;
/// How much of the picture the box behind the lines keeps (0.4: 60 % dark).
const BOX_KEEPS: f32 = 0.4;
/// Luma of the box and of the type (video range).
const BLACK: f32 = 16.0;
const WHITE: f32 = 235.0;

/// A cue, set: where its box is on the frame, and for each pixel of it how much of the
/// picture it keeps and what it adds (luma), and for each 2x2 block how much of the chroma's
/// distance from grey it keeps.
struct Set {
    left: usize,
    top: usize,
    width: usize,
    height: usize,
    keep: Vec<f32>,
    add: Vec<f32>,
    chroma_keep: Vec<f32>,
}

/// The cues of an export, burnt into each frame they cover, in order.
pub struct Burn {
    font: FontRef<'static>,
    /// First frame, the frame after the last, and text, in order of start.
    cues: Vec<(u64, u64, String)>,
    /// The cue drawn last, set.
    set: Option<(usize, Set)>,
    frame: (usize, usize),
}

impl Burn {
    pub fn new(cues: &[(u64, u64, String)], width: u32, height: u32) -> Result<Burn, EngineError> {
        let font = FontRef::try_from_slice(DEJAVU_SANS)
            .map_err(|e| EngineError::Inputs(format!("the caption font: {e}")))?;
        let mut cues = cues.to_vec();
        cues.sort_by_key(|c| c.0);
        Ok(Burn {
            font,
            cues,
            set: None,
            frame: (width as usize, height as usize),
        })
    }

    /// Burns the cue that covers frame `index` (of the cut) into `frame`, if one does.
    pub fn draw(&mut self, index: u32, frame: &mut Frame) {
        let index = u64::from(index);
        let Some(at) = self
            .cues
            .iter()
            .position(|(start, end, _)| (*start..*end).contains(&index))
        else {
            return;
        };
        if self.set.as_ref().is_none_or(|(set_at, _)| *set_at != at) {
            let set = set_cue(&self.font, &self.cues[at].2, self.frame);
            self.set = Some((at, set));
        }
        if let Some((_, set)) = &self.set {
            blend(set, frame);
        }
    }
}

/// The width of `text` set at `scale`, kerned.
fn width_of<F: Font>(font: &impl ScaleFont<F>, text: &str) -> f32 {
    let mut width = 0.0;
    let mut before: Option<GlyphId> = None;
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(before) = before {
            width += font.kern(before, id);
        }
        width += font.h_advance(id);
        before = Some(id);
    }
    width
}

/// `text`'s lines wrapped at spaces to at most `most` wide; a word wider than that alone is
/// broken between characters.
pub fn wrap<F: Font>(font: &impl ScaleFont<F>, text: &str, most: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for given in text.lines() {
        let mut line = String::new();
        for word in given.split_whitespace() {
            let joined = if line.is_empty() {
                word.to_owned()
            } else {
                format!("{line} {word}")
            };
            if width_of(font, &joined) <= most {
                line = joined;
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            for c in word.chars() {
                line.push(c);
                if width_of(font, &line) > most && line.chars().count() > 1 {
                    line.pop();
                    lines.push(std::mem::replace(&mut line, c.to_string()));
                }
            }
        }
        if !line.is_empty() {
            lines.push(line);
        }
    }
    lines
}

/// The size `text` is set at in a `width` x `height` frame, and its lines.
fn layout(
    font: &FontRef<'static>,
    text: &str,
    (width, height): (usize, usize),
) -> (f32, Vec<String>) {
    let safe_width = width as f32 * (1.0 - 2.0 * SAFE_INSET);
    let most_height = height as f32 * (1.0 - 2.0 * SAFE_INSET) * MOST_HEIGHT;
    let mut px = (width.min(height) as f32 * TYPE_SIZE).max(12.0);
    loop {
        let scaled = font.as_scaled(PxScale::from(px));
        let pad = px * 0.25;
        let lines = wrap(&scaled, text, safe_width - 2.0 * pad);
        let tall = lines.len() as f32 * scaled.height() + 2.0 * pad;
        if tall <= most_height || px <= 12.0 {
            return (px, lines);
        }
        px = (px * 0.9).max(12.0);
    }
}

fn set_cue(font: &FontRef<'static>, text: &str, (width, height): (usize, usize)) -> Set {
    let (px, lines) = layout(font, text, (width, height));
    let scaled = font.as_scaled(PxScale::from(px));
    let pad = (px * 0.25).ceil() as usize;
    let line_height = scaled.height().ceil() as usize;
    let widths: Vec<f32> = lines.iter().map(|l| width_of(&scaled, l)).collect();
    let widest = widths.iter().copied().fold(0.0, f32::max).ceil() as usize;
    // Even sizes and places, so the box covers whole 2x2 chroma blocks.
    let even = |n: usize| n.div_ceil(2) * 2;
    let box_width = even(widest + 2 * pad).min(width - width % 2);
    let box_height = even(lines.len() * line_height + 2 * pad).min(height - height % 2);
    let bottom = ((height as f32 * (1.0 - SAFE_INSET)) as usize).min(height) & !1;
    let top = bottom.saturating_sub(box_height) & !1;
    let left = ((width - box_width) / 2) & !1;
    let mut cover = vec![0f32; box_width * box_height];
    for (row, (line, line_width)) in lines.iter().zip(&widths).enumerate() {
        let mut x = (box_width as f32 - line_width) / 2.0;
        let baseline = (pad + row * line_height) as f32 + scaled.ascent();
        let mut before: Option<GlyphId> = None;
        for c in line.chars() {
            let id = scaled.glyph_id(c);
            if let Some(before) = before {
                x += scaled.kern(before, id);
            }
            let glyph = id.with_scale_and_position(px, point(x, baseline));
            x += scaled.h_advance(id);
            before = Some(id);
            let Some(outlined) = font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outlined.px_bounds();
            outlined.draw(|gx, gy, c| {
                let (px, py) = (
                    bounds.min.x as i64 + i64::from(gx),
                    bounds.min.y as i64 + i64::from(gy),
                );
                if (0..box_width as i64).contains(&px) && (0..box_height as i64).contains(&py) {
                    let at = py as usize * box_width + px as usize;
                    cover[at] = cover[at].max(c.clamp(0.0, 1.0));
                }
            });
        }
    }
    let keep: Vec<f32> = cover.iter().map(|c| BOX_KEEPS * (1.0 - c)).collect();
    let add: Vec<f32> = cover
        .iter()
        .map(|c| BLACK * (1.0 - BOX_KEEPS) * (1.0 - c) + WHITE * c)
        .collect();
    let chroma_keep = (0..box_height / 2)
        .flat_map(|cy| (0..box_width / 2).map(move |cx| (cx, cy)))
        .map(|(cx, cy)| {
            let at = |dx: usize, dy: usize| cover[(cy * 2 + dy) * box_width + cx * 2 + dx];
            let mean = (at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1)) / 4.0;
            BOX_KEEPS * (1.0 - mean)
        })
        .collect();
    Set {
        left,
        top,
        width: box_width,
        height: box_height,
        keep,
        add,
        chroma_keep,
    }
}

fn blend(set: &Set, frame: &mut Frame) {
    let width = frame.width;
    let (y_plane, u_plane, v_plane) = frame.planes_mut();
    for row in 0..set.height {
        let line = (set.top + row) * width + set.left;
        for col in 0..set.width {
            let at = row * set.width + col;
            let luma = &mut y_plane[line + col];
            *luma = (f32::from(*luma) * set.keep[at] + set.add[at]).round() as u8;
        }
    }
    for row in 0..set.height / 2 {
        let line = (set.top / 2 + row) * (width / 2) + set.left / 2;
        for col in 0..set.width / 2 {
            let keep = set.chroma_keep[row * (set.width / 2) + col];
            for plane in [&mut *u_plane, &mut *v_plane] {
                let value = &mut plane[line + col];
                *value = (128.0 + (f32::from(*value) - 128.0) * keep).round() as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn font() -> FontRef<'static> {
        FontRef::try_from_slice(DEJAVU_SANS).unwrap()
    }

    /// A frame of mid grey with colour, `width` x `height`.
    fn grey(width: usize, height: usize) -> Frame {
        let mut frame = Frame::new(width, height);
        let (y, u, v) = frame.planes_mut();
        y.fill(120);
        u.fill(100);
        v.fill(160);
        frame
    }

    /// The columns and rows of `frame` whose luma is not the grey's.
    fn touched(frame: &Frame) -> (usize, usize, usize, usize) {
        let (y, _, _) = frame.planes();
        let (mut left, mut right, mut top, mut bottom) = (usize::MAX, 0, usize::MAX, 0);
        for (at, luma) in y.iter().enumerate() {
            if *luma != 120 {
                let (x, row) = (at % frame.width, at / frame.width);
                (left, right) = (left.min(x), right.max(x));
                (top, bottom) = (top.min(row), bottom.max(row));
            }
        }
        (left, right, top, bottom)
    }

    #[test]
    fn lines_wrap_at_words_and_a_long_word_between_characters() {
        let font = font();
        let scaled = font.as_scaled(PxScale::from(40.0));
        let most = width_of(&scaled, "the boats are back");
        let lines = wrap(
            &scaled,
            "MARA: the boats are back in the harbour at dawn",
            most,
        );
        assert!(lines.len() >= 3, "{lines:?}");
        assert!(
            lines.iter().all(|l| width_of(&scaled, l) <= most),
            "{lines:?}"
        );
        assert_eq!(
            lines.join(" "),
            "MARA: the boats are back in the harbour at dawn"
        );
        let long = wrap(&scaled, &"W".repeat(40), most);
        assert!(long.len() > 1 && long.iter().all(|l| width_of(&scaled, l) <= most));
        assert_eq!(wrap(&scaled, "one\ntwo", most), ["one", "two"]);
    }

    #[test]
    fn a_cue_is_drawn_inside_the_title_safe_area_on_its_frames_only() {
        let cue = "MARA: The boats are back, all of them, before the storm comes in over the \
                   harbour wall and the lights go out along the quay";
        for (width, height) in [(1280, 720), (720, 1280)] {
            let mut burn = Burn::new(&[(10, 20, cue.to_owned())], width, height).unwrap();
            let mut before = grey(width as usize, height as usize);
            burn.draw(9, &mut before);
            assert_eq!(
                touched(&before),
                (usize::MAX, 0, usize::MAX, 0),
                "not before its start"
            );
            let mut frame = grey(width as usize, height as usize);
            burn.draw(10, &mut frame);
            let (left, right, top, bottom) = touched(&frame);
            let (w, h) = (width as usize, height as usize);
            assert!(
                left >= w / 20 && right < w - w / 20,
                "{width}x{height}: {left}..{right}"
            );
            assert!(bottom < h - h / 20, "{width}x{height}: foot at {bottom}");
            assert!(top > h / 2, "{width}x{height}: the lines stay low: {top}");
            let (y, u, v) = frame.planes();
            assert!(y.iter().any(|l| *l > 200), "white type");
            assert!(y.iter().any(|l| *l < 70), "a dark box");
            let block = (bottom / 2) * (w / 2) + w / 4;
            assert!(
                u[block] > 100 && v[block] < 160,
                "the box greys the colour under it"
            );
            let mut after = grey(w, h);
            burn.draw(20, &mut after);
            assert_eq!(
                touched(&after),
                (usize::MAX, 0, usize::MAX, 0),
                "not from its end"
            );
        }
    }
}
