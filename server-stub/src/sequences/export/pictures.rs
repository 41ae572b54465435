//! The pictures of a cut, frame by frame of the sequence's rate: each shot's take decoded in
//! display order from the sync sample before its in point (nothing earlier is read), the
//! picture nearest each frame's time taken as the decoder's I420 planes, fitted to the
//! sequence's size in those planes once however many frames show it (a take of the sequence's
//! size goes untouched); pictures passed over are decoded only.
//!
//! Shots are made ahead on threads of their own, as many at once as the machine has cores (the
//! one drawn now and the next ones, each decoding up to its in point meanwhile): a shot from
//! late in its take costs its decoding before the in point, and decoding runs on one core per
//! take. Each made shot hands over a few frames at a time, so memory holds a decoder and a few
//! frames per shot in flight, whatever the shots' lengths.

use std::collections::VecDeque;
use std::io::{Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use super::scale::Fitter;
use super::take_reader::TakeReader;
use super::{audio, ExportShot};
use crate::engine::{EngineError, Fit, Frame};
use crate::frames::{nearest_picture, FrameError, FrameReader, Picture};
use crate::sequences::Reframe;

/// Frames a shot made ahead holds ready.
const READY: usize = 2;

/// A shot being made on its own thread.
struct Making {
    frames: Receiver<Result<Vec<u8>, EngineError>>,
    /// Frames still to come.
    remaining: u64,
    number: usize,
    /// Told when the shot is no longer wanted (the export failed or stopped).
    stop: Arc<AtomicBool>,
}

impl Drop for Making {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// What a shot is made from and into.
struct ShotWork {
    shot: ExportShot,
    number: usize,
    fps: u32,
    size: (u32, u32),
    fit: Fit,
}

/// Draws a cut's frames in order.
pub struct CutPictures<'a, F> {
    shots: &'a [ExportShot],
    fps: u32,
    size: (u32, u32),
    fit: Fit,
    open: F,
    /// The shots being made, in order: the first is the one drawn now.
    making: VecDeque<Making>,
    /// The next shot to start.
    next: usize,
    /// Shots made at once.
    at_once: usize,
    /// The shape of each shot's take's sound, once opened (`None`: none that can be copied).
    pub sounds: Vec<Option<audio::Shape>>,
}

impl<'a, F> CutPictures<'a, F>
where
    F: FnMut(&ExportShot) -> Result<TakeReader, EngineError>,
{
    pub fn new(shots: &'a [ExportShot], fps: u32, size: (u32, u32), fit: Fit, open: F) -> Self {
        CutPictures {
            shots,
            fps,
            size,
            fit,
            open,
            making: VecDeque::new(),
            next: 0,
            at_once: std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4)),
            sounds: Vec::with_capacity(shots.len()),
        }
    }

    /// Starts shots until as many as the machine has cores are being made.
    fn start_shots(&mut self) -> Result<(), EngineError> {
        while self.making.len() < self.at_once && self.next < self.shots.len() {
            let shot = &self.shots[self.next];
            let number = self.next + 1;
            let mut take = (self.open)(shot)?;
            self.sounds.push(audio::shape_of(&mut take));
            take.seek(SeekFrom::Start(0))
                .map_err(|e| unreadable(number, shot, FrameError::Unsupported(e.to_string())))?;
            let (sender, frames) = sync_channel(READY);
            let stop = Arc::new(AtomicBool::new(false));
            let work = ShotWork {
                shot: shot.clone(),
                number,
                fps: self.fps,
                size: self.size,
                fit: self.fit,
            };
            let stopped = Arc::clone(&stop);
            std::thread::Builder::new()
                .name(format!("export-shot-{number}"))
                .spawn(move || work.make(take, &sender, &stopped))
                .map_err(|e| EngineError::Encode(format!("a shot could not be started: {e}")))?;
            self.making.push_back(Making {
                frames,
                remaining: shot.out_frame - shot.in_frame,
                number,
                stop,
            });
            self.next += 1;
        }
        Ok(())
    }

    /// Draws the next frame of the cut into `frame`.
    pub fn draw_next(&mut self, frame: &mut Frame) -> Result<(), EngineError> {
        loop {
            self.start_shots()?;
            let Some(shot) = self.making.front_mut() else {
                return Err(EngineError::Inputs("the cut has no more frames".into()));
            };
            if shot.remaining == 0 {
                self.making.pop_front();
                continue;
            }
            return match shot.frames.recv() {
                Ok(Ok(data)) => {
                    shot.remaining -= 1;
                    frame.data.copy_from_slice(&data);
                    Ok(())
                }
                Ok(Err(e)) => Err(e),
                Err(_) => Err(EngineError::Encode(format!(
                    "Shot {}: its pictures stopped before its end",
                    shot.number
                ))),
            };
        }
    }
}

fn unreadable(number: usize, shot: &ExportShot, e: FrameError) -> EngineError {
    EngineError::Inputs(format!(
        "Shot {number} ({}): its take {} cannot be read: {e}",
        shot.label, shot.file_name
    ))
}

impl ShotWork {
    /// Makes the shot's frames from `take` and hands them to `frames`, until they are all made,
    /// one fails (handed over as the error), or the shot is no longer wanted.
    fn make(
        self,
        take: TakeReader,
        frames: &SyncSender<Result<Vec<u8>, EngineError>>,
        stop: &AtomicBool,
    ) {
        if let Err(e) = self.frames(take, frames, stop) {
            let _ = frames.send(Err(e));
        }
    }

    fn frames(
        &self,
        take: TakeReader,
        frames: &SyncSender<Result<Vec<u8>, EngineError>>,
        stop: &AtomicBool,
    ) -> Result<(), EngineError> {
        let shot = &self.shot;
        let failed = |e: FrameError| unreadable(self.number, shot, e);
        let size = take.size();
        let mut reader = FrameReader::new(take, size).map_err(failed)?.with_planes();
        // A take of the cut's size needs no fitting: its planes go to the encoder as they are.
        let fitter = (reader.size() != self.size).then(|| {
            let centre = shot.reframe.unwrap_or(Reframe::CENTRE);
            Fitter::new(reader.size(), self.size, self.fit, centre)
        });
        let (pictures, seconds) = (reader.samples(), reader.seconds());
        let fps = f64::from(self.fps);
        let first = nearest_picture(shot.in_frame as f64 / fps, seconds, pictures);
        reader.seek_before(first);
        // The last picture decoded, with its place in display order; the take has no more.
        let mut decoded: Option<(u32, Vec<u8>)> = None;
        let mut ended = false;
        // The picture last handed over, by place, fitted to the cut's size.
        let mut fitted: Option<(u32, Vec<u8>)> = None;
        for frame in shot.in_frame..shot.out_frame {
            let wanted = nearest_picture(frame as f64 / fps, seconds, pictures);
            // Pictures before the one before the wanted one are passed over (decoded only when
            // others refer to them); that one is kept, so that past the take's last picture (a
            // damaged tail), the last one stays.
            if !ended && decoded.as_ref().is_none_or(|(i, _)| *i + 1 < wanted) {
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                reader
                    .pass_before(wanted.saturating_sub(1))
                    .map_err(failed)?;
            }
            while !ended && decoded.as_ref().is_none_or(|(i, _)| *i < wanted) {
                match reader.next_indexed().map_err(failed)? {
                    Some((place, Picture::Planes(data))) => decoded = Some((place, data)),
                    Some((_, Picture::Rgb(_))) => {
                        return Err(failed(FrameError::Decode("a picture not in planes".into())))
                    }
                    None => ended = true,
                }
            }
            let Some((index, data)) = &decoded else {
                return Err(failed(FrameError::Decode("no picture in the video".into())));
            };
            let out = match &fitter {
                None => data.clone(),
                Some(fitter) => {
                    if fitted.as_ref().is_none_or(|(i, _)| i != index) {
                        let (w, h) = (self.size.0 as usize, self.size.1 as usize);
                        let mut out = fitted.take().map(|(_, d)| d).unwrap_or_default();
                        out.resize(w * h * 3 / 2, 0);
                        fitter.fit(data, &mut out);
                        fitted = Some((*index, out));
                    }
                    fitted.as_ref().map(|(_, d)| d.clone()).unwrap_or_default()
                }
            };
            if frames.send(Ok(out)).is_err() {
                return Ok(());
            }
        }
        Ok(())
    }
}
