//! A take of another size fitted to the cut's in its own I420 planes: each plane resampled on
//! its own with a Catmull-Rom kernel widened by the reduction (as `image`'s resize does in RGB,
//! so a downscale averages every source pixel instead of skipping some), placed by centre crop
//! or on black bars, the rows shared among the machine's cores. No conversion to RGB and back:
//! that road (a 1080p take in a 720p cut) cost more than the encoder.

use std::ops::Range;

use crate::engine::Fit;
use crate::sequences::Reframe;

/// Weights are fixed point with this many fraction bits.
const BITS: u32 = 14;
const ONE: i32 = 1 << BITS;
/// Limited-range black.
const BLACK_LUMA: u8 = 16;
const BLACK_CHROMA: u8 = 128;

/// The Catmull-Rom kernel (cubic, a = -0.5).
fn catmull_rom(x: f64) -> f64 {
    let x = x.abs();
    if x < 1.0 {
        1.5 * x * x * x - 2.5 * x * x + 1.0
    } else if x < 2.0 {
        -0.5 * x * x * x + 2.5 * x * x - 4.0 * x + 2.0
    } else {
        0.0
    }
}

/// One axis of a plane's resampling: the output positions the picture covers, and for each the
/// source indices and weights of its taps.
struct Axis {
    covered: Range<usize>,
    taps: usize,
    indices: Vec<usize>,
    weights: Vec<i32>,
}

impl Axis {
    /// `len` source positions scaled to `scaled`, placed at `offset` (negative: cropped) in an
    /// output `out` long.
    fn new(len: usize, scaled: usize, offset: i64, out: usize) -> Axis {
        let start = offset.clamp(0, out as i64) as usize;
        let end = (offset + scaled as i64).clamp(0, out as i64) as usize;
        let ratio = len as f64 / scaled as f64;
        let widen = ratio.max(1.0);
        let support = 2.0 * widen;
        let taps = (2.0 * support).ceil() as usize + 1;
        let mut indices = Vec::with_capacity((end - start) * taps);
        let mut weights = Vec::with_capacity((end - start) * taps);
        let mut raw = vec![0.0; taps];
        for o in start..end {
            let centre = ((o as i64 - offset) as f64 + 0.5) * ratio - 0.5;
            let first = (centre - support).ceil() as i64;
            let mut total = 0.0;
            for (k, w) in raw.iter_mut().enumerate() {
                *w = catmull_rom((first + k as i64) as f64 - centre) / widen;
                total += *w;
            }
            // Normalised in fixed point, the rounding's remainder on the nearest tap.
            let mut sum = 0;
            let mut nearest = (0, f64::MAX);
            for (k, w) in raw.iter().enumerate() {
                let fixed = (w / total * f64::from(ONE)).round() as i32;
                weights.push(fixed);
                sum += fixed;
                let distance = ((first + k as i64) as f64 - centre).abs();
                if distance < nearest.1 {
                    nearest = (k, distance);
                }
                indices.push((first + k as i64).clamp(0, len as i64 - 1) as usize);
            }
            let base = weights.len() - taps;
            weights[base + nearest.0] += ONE - sum;
        }
        Axis {
            covered: start..end,
            taps,
            indices,
            weights,
        }
    }

    /// The taps of the `n`th covered position: source indices and weights.
    fn taps(&self, n: usize) -> (&[usize], &[i32]) {
        let at = n * self.taps;
        (
            &self.indices[at..at + self.taps],
            &self.weights[at..at + self.taps],
        )
    }

    /// The source indices any covered position reads.
    fn read(&self) -> Range<usize> {
        let low = self.indices.iter().min().copied().unwrap_or(0);
        let high = self.indices.iter().max().map_or(0, |&i| i + 1);
        low..high
    }
}

fn clamp(sum: i32) -> u8 {
    ((sum + (ONE >> 1)) >> BITS).clamp(0, 255) as u8
}

/// One plane's resampling.
struct PlaneFit {
    source: (usize, usize),
    out: (usize, usize),
    across: Axis,
    down: Axis,
    black: u8,
}

impl PlaneFit {
    /// Resamples `source` into `out`, the rows split among `threads`.
    fn run(&self, source: &[u8], out: &mut [u8], threads: usize) {
        let (sw, _) = self.source;
        let (ow, _) = self.out;
        let rows = self.down.read();
        let width = self.across.covered.len();
        // Across first, for the source rows read: `rows.len()` rows of the covered width.
        let mut across = vec![0u8; rows.len() * width];
        let chunk = rows.len().div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            for (n, part) in across.chunks_mut(chunk * width.max(1)).enumerate() {
                let first = rows.start + n * chunk;
                scope.spawn(move || {
                    for (r, row) in part.chunks_mut(width.max(1)).enumerate() {
                        let line = &source[(first + r) * sw..(first + r + 1) * sw];
                        for (x, value) in row.iter_mut().enumerate() {
                            let (indices, weights) = self.across.taps(x);
                            let sum = indices
                                .iter()
                                .zip(weights)
                                .map(|(&i, &w)| i32::from(line[i]) * w)
                                .sum();
                            *value = clamp(sum);
                        }
                    }
                });
            }
        });
        // Then down, into the output's rows; black where the picture does not cover it.
        let chunk = self.out.1.div_ceil(threads).max(1);
        let across = &across;
        std::thread::scope(|scope| {
            for (n, part) in out.chunks_mut(chunk * ow).enumerate() {
                scope.spawn(move || {
                    for (r, row) in part.chunks_mut(ow).enumerate() {
                        let y = n * chunk + r;
                        row.fill(self.black);
                        if !self.down.covered.contains(&y) {
                            continue;
                        }
                        let (indices, weights) = self.down.taps(y - self.down.covered.start);
                        let covered = &mut row[self.across.covered.clone()];
                        for (x, value) in covered.iter_mut().enumerate() {
                            let sum = indices
                                .iter()
                                .zip(weights)
                                .map(|(&i, &w)| i32::from(across[(i - rows.start) * width + x]) * w)
                                .sum();
                            *value = clamp(sum);
                        }
                    }
                });
            }
        });
    }
}

/// Fits I420 pictures of one size to another, as `fit` says.
pub struct Fitter {
    planes: [PlaneFit; 3],
    threads: usize,
}

impl Fitter {
    /// Pictures of `from` fitted to `to` (each side even); cropped, the window's centre at
    /// `centre` of the picture (as far as the window stays inside it).
    pub fn new(from: (u32, u32), to: (u32, u32), fit: Fit, centre: Reframe) -> Fitter {
        let (w, h) = (f64::from(from.0), f64::from(from.1));
        let (sx, sy) = (f64::from(to.0) / w, f64::from(to.1) / h);
        let scale = match fit {
            Fit::Crop => sx.max(sy),
            Fit::Pad => sx.min(sy),
        };
        // As `fit_image` places the picture: whole luma pixels, centred; chroma at half.
        let scaled = (
            ((w * scale).round() as i64).max(2),
            ((h * scale).round() as i64).max(2),
        );
        // Even, so that chroma (at half) starts on a whole pixel too.
        let place = |out: u32, scaled: i64, at: f64| -> i64 {
            let out = i64::from(out);
            if scaled <= out {
                return (out - scaled) / 2;
            }
            let wanted = (out as f64 / 2.0 - at.clamp(0.0, 1.0) * scaled as f64).round() as i64;
            wanted.clamp(out - scaled, 0) & !1
        };
        let offset = (
            place(to.0, scaled.0, centre.x),
            place(to.1, scaled.1, centre.y),
        );
        let plane = |divide: i64, black: u8| {
            let source = (
                from.0 as usize / divide as usize,
                from.1 as usize / divide as usize,
            );
            let out = (
                to.0 as usize / divide as usize,
                to.1 as usize / divide as usize,
            );
            PlaneFit {
                source,
                out,
                across: Axis::new(
                    source.0,
                    (scaled.0 / divide) as usize,
                    offset.0 / divide,
                    out.0,
                ),
                down: Axis::new(
                    source.1,
                    (scaled.1 / divide) as usize,
                    offset.1 / divide,
                    out.1,
                ),
                black,
            }
        };
        Fitter {
            planes: [
                plane(1, BLACK_LUMA),
                plane(2, BLACK_CHROMA),
                plane(2, BLACK_CHROMA),
            ],
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// `source` (I420 of the size given) fitted into `out` (I420 of the size wanted).
    pub fn fit(&self, source: &[u8], out: &mut [u8]) {
        let (mut source, mut out) = (source, out);
        for plane in &self.planes {
            let (from, rest) = source.split_at(plane.source.0 * plane.source.1);
            let (to, rest_out) = out.split_at_mut(plane.out.0 * plane.out.1);
            plane.run(from, to, self.threads);
            (source, out) = (rest, rest_out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An I420 picture `w` x `h` whose luma is `luma(x, y)` and chroma flat.
    fn picture(w: usize, h: usize, luma: impl Fn(usize, usize) -> u8) -> Vec<u8> {
        let mut data: Vec<u8> = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| luma(x, y))
            .collect();
        data.resize(w * h * 3 / 2, 128);
        data
    }

    #[test]
    fn a_flat_picture_stays_flat_and_the_bars_are_black() {
        let source = picture(1920, 1080, |_, _| 200);
        let mut out = vec![0; 1280 * 720 * 3 / 2];
        Fitter::new((1920, 1080), (1280, 720), Fit::Crop, Reframe::CENTRE).fit(&source, &mut out);
        assert!(out[..1280 * 720].iter().all(|&v| v == 200));
        assert!(out[1280 * 720..].iter().all(|&v| v == 128));

        // A square picture on a wide frame: bars left and right.
        let source = picture(720, 720, |_, _| 200);
        let mut out = vec![0; 1280 * 720 * 3 / 2];
        Fitter::new((720, 720), (1280, 720), Fit::Pad, Reframe::CENTRE).fit(&source, &mut out);
        let row = &out[360 * 1280..361 * 1280];
        assert!(row[..280].iter().all(|&v| v == BLACK_LUMA), "left bar");
        assert!(row[280..1000].iter().all(|&v| v == 200), "the picture");
        assert!(row[1000..].iter().all(|&v| v == BLACK_LUMA), "right bar");
    }

    /// Fails when the crop window stays centred whatever the shot asks: a 16:9 gradient in
    /// a 9:16 frame shows its left edge when framed at x = 0 and its right edge at x = 1.
    #[test]
    fn a_reframed_crop_keeps_the_column_asked_for() {
        let (w, h) = (640usize, 360usize);
        let mut source = vec![128u8; w * h * 3 / 2];
        for y in 0..h {
            for x in 0..w {
                source[y * w + x] = (x * 255 / (w - 1)) as u8;
            }
        }
        let luma_at = |x: f64| {
            let mut out = vec![0u8; 90 * 160 * 3 / 2];
            Fitter::new((640, 360), (90, 160), Fit::Crop, Reframe { x, y: 0.5 })
                .fit(&source, &mut out);
            let row = &out[80 * 90..81 * 90];
            (row[0], row[89])
        };
        let (left, _) = luma_at(0.0);
        let (_, right) = luma_at(1.0);
        let (middle_left, middle_right) = luma_at(0.5);
        assert!(left < 10, "the left edge ({left})");
        assert!(right > 245, "the right edge ({right})");
        // Centred, the window is the middle of the scaled picture (97 to 187 of 284 columns).
        assert!(
            (80..100).contains(&middle_left) && (155..175).contains(&middle_right),
            "the centre ({middle_left}..{middle_right})"
        );
    }

    #[test]
    fn a_gradient_keeps_its_place_and_crop_cuts_the_overflow() {
        // A 4:3 picture cropped into 16:9 loses an eighth at the top and at the bottom.
        let source = picture(640, 480, |_, y| (y * 255 / 479) as u8);
        let mut out = vec![0; 320 * 180 * 3 / 2];
        Fitter::new((640, 480), (320, 180), Fit::Crop, Reframe::CENTRE).fit(&source, &mut out);
        let column: Vec<u8> = (0..180).map(|y| out[y * 320 + 160]).collect();
        assert!((i32::from(column[0]) - 32).abs() <= 3, "{}", column[0]);
        assert!((i32::from(column[90]) - 128).abs() <= 3, "{}", column[90]);
        assert!((i32::from(column[179]) - 223).abs() <= 3, "{}", column[179]);
        assert!(column.windows(2).all(|p| p[0] <= p[1]), "still a ramp");
        // Across, nothing is cut: the first column shows the first source column.
        let source = picture(640, 480, |x, _| (x * 255 / 639) as u8);
        Fitter::new((640, 480), (320, 180), Fit::Crop, Reframe::CENTRE).fit(&source, &mut out);
        let row = &out[90 * 320..91 * 320];
        assert!(row[0] <= 2 && row[319] >= 253, "{} {}", row[0], row[319]);
    }

    #[test]
    fn a_downscale_averages_rather_than_skips() {
        // One-pixel stripes, black and white: halved, every pixel is grey, not black or white.
        let source = picture(400, 200, |x, _| if x % 2 == 0 { 0 } else { 255 });
        let mut out = vec![0; 200 * 100 * 3 / 2];
        Fitter::new((400, 200), (200, 100), Fit::Crop, Reframe::CENTRE).fit(&source, &mut out);
        let row = &out[50 * 200..51 * 200];
        assert!(
            row[4..196].iter().all(|&v| (100..=155).contains(&v)),
            "{:?}",
            &row[..16]
        );
    }
}
