//! Draws scene frames straight into I420 (YUV 4:2:0) planes: a vertical gradient (or the
//! shot's first and last frames), moving shapes and the caption band. Rendering in YUV avoids
//! a colour conversion per pixel.

use font8x8::UnicodeFonts;
use image::RgbImage;

use super::scene::{Motion, Rgb, Scene};

/// BT.601 limited-range conversion.
fn yuv(c: Rgb) -> (u8, u8, u8) {
    let [r, g, b] = c.map(f32::from);
    let y = 16.0 + 0.257 * r + 0.504 * g + 0.098 * b;
    let u = 128.0 - 0.148 * r - 0.291 * g + 0.439 * b;
    let v = 128.0 + 0.439 * r - 0.368 * g - 0.071 * b;
    (y as u8, u as u8, v as u8)
}

fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    [0, 1, 2].map(|i| (f32::from(a[i]) * (1.0 - t) + f32::from(b[i]) * t) as u8)
}

/// One I420 frame.
pub struct Frame {
    pub width: usize,
    pub height: usize,
    pub data: Vec<u8>,
}

impl Frame {
    pub fn new(width: usize, height: usize) -> Frame {
        Frame {
            width,
            height,
            data: vec![0; width * height * 3 / 2],
        }
    }

    pub fn planes_mut(&mut self) -> (&mut [u8], &mut [u8], &mut [u8]) {
        let luma = self.width * self.height;
        let (y, chroma) = self.data.split_at_mut(luma);
        let (u, v) = chroma.split_at_mut(luma / 4);
        (y, u, v)
    }

    /// Writes `image` (of the frame's size) into the planes, chroma the mean of each 2x2 block.
    pub fn fill_from(&mut self, image: &RgbImage) {
        let (w, h) = (self.width, self.height);
        let (yp, up, vp) = self.planes_mut();
        for (i, p) in image.pixels().enumerate() {
            yp[i] = yuv(p.0).0;
        }
        for cy in 0..h / 2 {
            for cx in 0..w / 2 {
                let mut sum = [0u32; 3];
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let p = image
                        .get_pixel((cx * 2 + dx) as u32, (cy * 2 + dy) as u32)
                        .0;
                    for (s, v) in sum.iter_mut().zip(p) {
                        *s += u32::from(v);
                    }
                }
                let (_, u, v) = yuv(sum.map(|s| ((s + 2) / 4) as u8));
                up[cy * w / 2 + cx] = u;
                vp[cy * w / 2 + cx] = v;
            }
        }
    }

    pub fn planes(&self) -> (&[u8], &[u8], &[u8]) {
        let luma = self.width * self.height;
        let (y, chroma) = self.data.split_at(luma);
        let (u, v) = chroma.split_at(luma / 4);
        (y, u, v)
    }
}

/// An RGB image as the bytes of an I420 frame of its size.
fn i420(image: &RgbImage) -> Vec<u8> {
    let mut frame = Frame::new(image.width() as usize, image.height() as usize);
    frame.fill_from(image);
    frame.data
}

/// The first and last frames a shot must show, as I420, and when the last one is shown.
struct Stills {
    first: Option<Vec<u8>>,
    last: Option<Vec<u8>>,
    end: f32,
}

/// How long the scene's shapes and caption take to fade in after a first frame, or out
/// before a last frame.
const FADE_SECONDS: f32 = 1.0;

fn blend(under: u8, over: u8, alpha: f32) -> u8 {
    (f32::from(under) + (f32::from(over) - f32::from(under)) * alpha).round() as u8
}

struct Shape {
    x: f32,
    y: f32,
    speed: f32,
    radius: f32,
    phase: f32,
}

/// Renders the frames of one scene.
pub struct Renderer {
    width: usize,
    height: usize,
    rows: Vec<(u8, u8, u8)>,
    accent: (u8, u8, u8),
    shapes: Vec<Shape>,
    motion: Motion,
    caption: Vec<bool>,
    caption_size: (usize, usize),
    band_top: usize,
    stills: Option<Stills>,
}

const CAPTION_SCALE: usize = 3;
const CAPTION_MAX_CHARS: usize = 60;

impl Renderer {
    pub fn new(scene: &Scene, width: usize, height: usize) -> Renderer {
        let rows = (0..height)
            .map(|y| yuv(mix(scene.top, scene.bottom, y as f32 / height as f32)))
            .collect();
        let mut state = scene.seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 10_000) as f32 / 10_000.0
        };
        let shapes = (0..14)
            .map(|_| Shape {
                x: next(),
                y: next(),
                speed: 0.05 + next() * 0.15,
                radius: (0.02 + next() * 0.05) * height as f32,
                phase: next() * std::f32::consts::TAU,
            })
            .collect();
        let text: String = scene.caption.chars().take(CAPTION_MAX_CHARS).collect();
        let (caption, caption_size) = rasterise(&text);
        let band_height = caption_size.1 + 24;
        Renderer {
            width,
            height,
            rows,
            accent: yuv(scene.accent),
            shapes,
            motion: scene.motion,
            caption,
            caption_size,
            band_top: height.saturating_sub(band_height),
            stills: None,
        }
    }

    /// Starts the clip on `first` and ends it (at `end` seconds, the last frame's time) on
    /// `last`, each already of the frame's size: those frames show the image alone, and the
    /// scene fades in after the first and out before the last.
    pub fn with_stills(
        mut self,
        first: Option<&RgbImage>,
        last: Option<&RgbImage>,
        end: f32,
    ) -> Self {
        if first.is_some() || last.is_some() {
            self.stills = Some(Stills {
                first: first.map(i420),
                last: last.map(i420),
                end,
            });
        }
        self
    }

    /// How much of the scene's shapes and caption shows at `t`: 0 on a still, 1 in between.
    fn overlay(&self, t: f32) -> f32 {
        let Some(stills) = &self.stills else {
            return 1.0;
        };
        let fade = FADE_SECONDS.min(stills.end / 2.0).max(f32::EPSILON);
        let mut alpha: f32 = 1.0;
        if stills.first.is_some() {
            alpha = alpha.min(t / fade);
        }
        if stills.last.is_some() {
            alpha = alpha.min((stills.end - t) / fade);
        }
        alpha.clamp(0.0, 1.0)
    }

    /// Draws the frame at time `t` seconds.
    pub fn draw(&self, t: f32, frame: &mut Frame) {
        self.background(t, frame);
        let alpha = self.overlay(t);
        if alpha <= 0.0 {
            return;
        }
        let (yp, up, vp) = frame.planes_mut();
        for shape in &self.shapes {
            let (cx, cy, r) = self.place(shape, t);
            self.disc(yp, up, vp, (cx, cy, r), alpha);
        }
        self.caption_band(yp, up, vp, alpha);
    }

    /// The still (or the blend from the first still to the last), else the gradient.
    fn background(&self, t: f32, frame: &mut Frame) {
        match self.stills.as_ref().map(|s| (&s.first, &s.last, s.end)) {
            Some((Some(first), Some(last), end)) => {
                let mix = (t / end.max(f32::EPSILON)).clamp(0.0, 1.0);
                for ((out, a), b) in frame.data.iter_mut().zip(first).zip(last) {
                    *out = blend(*a, *b, mix);
                }
            }
            Some((Some(still), None, _) | (None, Some(still), _)) => {
                frame.data.copy_from_slice(still);
            }
            _ => {
                let w = self.width;
                let (yp, up, vp) = frame.planes_mut();
                for (row, &(y, _, _)) in self.rows.iter().enumerate() {
                    yp[row * w..(row + 1) * w].fill(y);
                }
                for row in 0..self.height / 2 {
                    let (_, u, v) = self.rows[row * 2];
                    up[row * w / 2..(row + 1) * w / 2].fill(u);
                    vp[row * w / 2..(row + 1) * w / 2].fill(v);
                }
            }
        }
    }

    fn place(&self, s: &Shape, t: f32) -> (f32, f32, f32) {
        let (w, h) = (self.width as f32, self.height as f32);
        let wrap = |v: f32| v.rem_euclid(1.0);
        let (x, y, r) = match self.motion {
            Motion::Drift => (
                wrap(s.x + s.speed * t),
                s.y + 0.03 * (t + s.phase).sin(),
                s.radius,
            ),
            Motion::Fall => (s.x, wrap(s.y + s.speed * 2.0 * t), s.radius * 0.6),
            Motion::Rise => (
                s.x + 0.02 * (t * 2.0 + s.phase).sin(),
                wrap(s.y - s.speed * 1.5 * t),
                s.radius,
            ),
            Motion::Orbit => {
                let a = s.phase + t * (0.4 + s.speed * 3.0);
                let d = 0.1 + s.y * 0.3;
                (0.5 + d * a.cos() * h / w, 0.45 + d * a.sin(), s.radius)
            }
            Motion::Bounce => (
                wrap(s.x + s.speed * t),
                0.8 - 0.6 * ((t * 2.0 + s.phase).sin().abs()) * s.y,
                s.radius,
            ),
            Motion::Pulse => (s.x, s.y, s.radius * (1.0 + 0.6 * (t * 3.0 + s.phase).sin())),
        };
        (x * w, y * h, r.max(2.0))
    }

    fn disc(
        &self,
        yp: &mut [u8],
        up: &mut [u8],
        vp: &mut [u8],
        (cx, cy, r): (f32, f32, f32),
        alpha: f32,
    ) {
        let (w, h) = (self.width as i64, self.band_top as i64);
        let y0 = ((cy - r) as i64).max(0);
        let y1 = ((cy + r) as i64).min(h - 1);
        let (ay, au, av) = self.accent;
        for y in y0..=y1 {
            let dy = y as f32 + 0.5 - cy;
            let half = (r * r - dy * dy).max(0.0).sqrt();
            let x0 = ((cx - half) as i64).max(0);
            let x1 = ((cx + half) as i64).min(w - 1);
            if x0 > x1 {
                continue;
            }
            let row = (y * w) as usize;
            paint(&mut yp[row + x0 as usize..=row + x1 as usize], ay, alpha);
            if y % 2 == 0 {
                let crow = (y / 2 * w / 2) as usize;
                let (c0, c1) = ((x0 / 2) as usize, (x1 / 2) as usize);
                paint(&mut up[crow + c0..=crow + c1], au, alpha);
                paint(&mut vp[crow + c0..=crow + c1], av, alpha);
            }
        }
    }

    fn caption_band(&self, yp: &mut [u8], up: &mut [u8], vp: &mut [u8], alpha: f32) {
        let w = self.width;
        paint(&mut yp[self.band_top * w..], 24, alpha);
        paint(&mut up[self.band_top / 2 * w / 2..], 128, alpha);
        paint(&mut vp[self.band_top / 2 * w / 2..], 128, alpha);
        let (cw, ch) = self.caption_size;
        let left = w.saturating_sub(cw) / 2;
        let top = self.band_top + 12;
        for row in 0..ch.min(self.height - top) {
            let line = &mut yp[(top + row) * w..(top + row + 1) * w];
            for col in 0..cw.min(w - left) {
                if self.caption[row * cw + col] {
                    line[left + col] = blend(line[left + col], 235, alpha);
                }
            }
        }
    }
}

/// Fills `samples` with `value`, or blends it over them at `alpha`.
fn paint(samples: &mut [u8], value: u8, alpha: f32) {
    if alpha >= 1.0 {
        samples.fill(value);
    } else {
        for s in samples {
            *s = blend(*s, value, alpha);
        }
    }
}

/// Renders text with the 8x8 font, scaled up, into a mask.
fn rasterise(text: &str) -> (Vec<bool>, (usize, usize)) {
    let glyphs: Vec<[u8; 8]> = text
        .chars()
        .map(|c| {
            font8x8::BASIC_FONTS
                .get(c)
                .unwrap_or_else(|| font8x8::BASIC_FONTS.get('?').unwrap_or([0; 8]))
        })
        .collect();
    let (cw, ch) = (glyphs.len() * 8 * CAPTION_SCALE, 8 * CAPTION_SCALE);
    let mut mask = vec![false; cw * ch];
    for (i, glyph) in glyphs.iter().enumerate() {
        for (gy, bits) in glyph.iter().enumerate() {
            for gx in 0..8 {
                if bits & (1 << gx) != 0 {
                    for sy in 0..CAPTION_SCALE {
                        for sx in 0..CAPTION_SCALE {
                            let x = (i * 8 + gx) * CAPTION_SCALE + sx;
                            mask[(gy * CAPTION_SCALE + sy) * cw + x] = true;
                        }
                    }
                }
            }
        }
    }
    (mask, (cw, ch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_deterministic_and_move() {
        let scene = Scene::from_prompt("a red ball bouncing");
        let renderer = Renderer::new(&scene, 320, 180);
        let (mut a, mut b, mut c) = (
            Frame::new(320, 180),
            Frame::new(320, 180),
            Frame::new(320, 180),
        );
        renderer.draw(1.0, &mut a);
        renderer.draw(1.0, &mut b);
        renderer.draw(2.0, &mut c);
        assert_eq!(a.data, b.data);
        assert_ne!(a.data, c.data);
    }

    #[test]
    fn the_caption_is_drawn_in_the_band() {
        let scene = Scene::from_prompt("HELLO");
        let renderer = Renderer::new(&scene, 320, 180);
        let mut f = Frame::new(320, 180);
        renderer.draw(0.0, &mut f);
        let (y, _, _) = f.planes();
        let band = &y[renderer.band_top * 320..];
        assert!(band.contains(&235) && band.contains(&24));
    }
}
