//! A take of another size fitted to the cut's in its own I420 planes: each plane resampled on
//! its own with a Catmull-Rom kernel widened by the reduction (as `image`'s resize does in RGB,
//! so a downscale averages every source pixel instead of skipping some), placed by centre crop
//! or on black bars. No conversion to RGB and back: that road (a 1080p take in a 720p cut) cost
//! more than the encoder. A picture is fitted on the thread of the shot it belongs to (shots are
//! made as many at once as the machine has cores), a row at a time, in 16-bit multiplies the
//! compiler turns into vector instructions.

use std::ops::Range;

use crate::engine::Fit;
use crate::sequences::Reframe;
use studio_core::sequence::reframe::{placed, scaled};

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
/// first source position its taps read (before the source's start or past its end at the
/// edges, where the edge pixel stands in) and their weights.
struct Axis {
    covered: Range<usize>,
    taps: usize,
    firsts: Vec<i64>,
    /// At most `ONE` and never below `-ONE`: they fit 16 bits, so that a pixel times a weight
    /// is one of the multiplies processors do eight or sixteen at a time.
    weights: Vec<i16>,
    /// The source's length.
    len: usize,
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
        // Whole groups of eight (the last weights 0), which the compiler sums without a loop.
        let taps = ((2.0 * support).ceil() as usize + 1).next_multiple_of(8);
        let mut firsts = Vec::with_capacity(end - start);
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
            let mut fixed = Vec::with_capacity(taps);
            for (k, w) in raw.iter().enumerate() {
                let weight = (w / total * f64::from(ONE)).round() as i32;
                fixed.push(weight);
                sum += weight;
                let distance = ((first + k as i64) as f64 - centre).abs();
                if distance < nearest.1 {
                    nearest = (k, distance);
                }
            }
            fixed[nearest.0] += ONE - sum;
            weights.extend(fixed.into_iter().map(|w| w.clamp(-ONE, ONE) as i16));
            firsts.push(first);
        }
        Axis {
            covered: start..end,
            taps,
            firsts,
            weights,
            len,
        }
    }

    /// The weights of the `n`th covered position's taps.
    fn weights(&self, n: usize) -> &[i16] {
        &self.weights[n * self.taps..(n + 1) * self.taps]
    }

    /// The source index of the `n`th covered position's `k`th tap, the edge's where it falls
    /// outside.
    fn source(&self, n: usize, k: usize) -> usize {
        (self.firsts[n] + k as i64).clamp(0, self.len as i64 - 1) as usize
    }

    /// The source positions any covered position's taps reach, edges included: from the least
    /// first tap to past the greatest last one.
    fn reach(&self) -> Range<i64> {
        let low = self.firsts.iter().min().copied().unwrap_or(0);
        let high = self
            .firsts
            .iter()
            .max()
            .map_or(0, |&f| f + self.taps as i64);
        low..high
    }
}

/// Two pixels times their two weights (`weights[at]` and the next), summed: written so, of
/// 16-bit values, the compiler makes one instruction (SSE2's `pmaddwd`) of eight such.
#[inline(always)]
fn pair(a: i16, b: i16, weights: &[i16], at: usize) -> i32 {
    i32::from(a) * i32::from(weights[at]) + i32::from(b) * i32::from(weights[at + 1])
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
    /// Resamples `source` into `out` row by row: down first, a whole source row at a time (the
    /// columns any output reads, summed in one pass the compiler makes vector code of), then
    /// across that one row, its edges repeated so that every tap reads inside it.
    fn run(&self, source: &[u8], out: &mut [u8]) {
        let (sw, _) = self.source;
        let (ow, _) = self.out;
        let reach = self.across.reach();
        let (low, high) = (
            reach.start.max(0) as usize,
            reach.end.min(sw as i64) as usize,
        );
        let before = (low as i64 - reach.start) as usize;
        let mut sums = vec![0i32; high.saturating_sub(low)];
        let mut row = vec![0u8; (reach.end - reach.start).max(0) as usize];
        for (y, line) in out.chunks_mut(ow).enumerate() {
            line.fill(self.black);
            if !self.down.covered.contains(&y) || sums.is_empty() {
                continue;
            }
            let n = y - self.down.covered.start;
            sums.fill(0);
            for (k, w) in self.down.weights(n).chunks_exact(2).enumerate() {
                if w == [0, 0] {
                    continue;
                }
                let rows = [2 * k, 2 * k + 1].map(|k| self.down.source(n, k) * sw);
                let [a, b] = rows.map(|at| &source[at + low..at + high]);
                for ((sum, &a), &b) in sums.iter_mut().zip(a).zip(b) {
                    *sum += pair(i16::from(a), i16::from(b), w, 0);
                }
            }
            let (edge_low, rest) = row.split_at_mut(before);
            let (middle, edge_high) = rest.split_at_mut(sums.len());
            for (value, &sum) in middle.iter_mut().zip(&sums) {
                *value = clamp(sum);
            }
            edge_low.fill(middle[0]);
            edge_high.fill(middle[middle.len() - 1]);
            let taps = self.across.taps;
            for (x, value) in line[self.across.covered.clone()].iter_mut().enumerate() {
                let at = (self.across.firsts[x] - reach.start) as usize;
                let sum = row[at..at + taps]
                    .chunks_exact(8)
                    .zip(self.across.weights(x).chunks_exact(8))
                    .map(|(p, w)| {
                        let p: [i16; 8] = std::array::from_fn(|i| i16::from(p[i]));
                        std::array::from_fn::<i32, 4, _>(|i| pair(p[2 * i], p[2 * i + 1], w, 2 * i))
                            .iter()
                            .sum::<i32>()
                    })
                    .sum();
                *value = clamp(sum);
            }
        }
    }
}

/// Fits I420 pictures of one size to another, as `fit` says.
pub struct Fitter {
    planes: [PlaneFit; 3],
}

impl Fitter {
    /// Pictures of `from` fitted to `to` (each side even); cropped, the window's centre at
    /// `centre` of the picture (as far as the window stays inside it).
    pub fn new(from: (u32, u32), to: (u32, u32), fit: Fit, centre: Reframe) -> Fitter {
        // As `fit_image` places the picture: whole luma pixels, centred; chroma at half.
        let scaled = scaled(from, to, fit == Fit::Crop);
        let offset = (
            placed(i64::from(to.0), scaled.0, centre.x),
            placed(i64::from(to.1), scaled.1, centre.y),
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
        }
    }

    /// `source` (I420 of the size given) fitted into `out` (I420 of the size wanted).
    pub fn fit(&self, source: &[u8], out: &mut [u8]) {
        let (mut source, mut out) = (source, out);
        for plane in &self.planes {
            let (from, rest) = source.split_at(plane.source.0 * plane.source.1);
            let (to, rest_out) = out.split_at_mut(plane.out.0 * plane.out.1);
            plane.run(from, to);
            (source, out) = (rest, rest_out);
        }
    }
}

#[cfg(test)]
mod tests;
