//! The pictures of a cut, frame by frame of the sequence's rate: each shot's take decoded in
//! display order from the sync sample before its in point (nothing earlier is read), the
//! picture nearest each frame's time taken as the decoder's I420 planes, fitted to the
//! sequence's size in those planes once however many frames show it (a take of the sequence's
//! size goes untouched); pictures passed over are decoded only. One take is held at a time.

use std::io::{Seek, SeekFrom};

use super::scale::Fitter;
use super::take_reader::TakeReader;
use super::{audio, ExportShot};
use crate::engine::{EngineError, Fit, Frame};
use crate::frames::{nearest_picture, FrameError, FrameReader, Picture};

/// The take of the shot being exported, read so far.
struct Take {
    reader: FrameReader<'static>,
    pictures: u32,
    seconds: f64,
    /// The last picture decoded, and its index.
    decoded: Option<(u32, Picture)>,
    /// The index of the next picture the reader gives.
    position: u32,
    /// The take has no more pictures.
    ended: bool,
    /// How its pictures are fitted to the cut's size (none: they are that size).
    fitter: Option<Fitter>,
    /// The picture last drawn, by index, fitted to the output.
    fitted: Option<(u32, Vec<u8>)>,
}

/// Draws a cut's frames in order.
pub struct CutPictures<'a, F> {
    shots: &'a [ExportShot],
    fps: u32,
    size: (u32, u32),
    fit: Fit,
    open: F,
    /// The shot being drawn, and the frame of it.
    shot: usize,
    frame: u64,
    take: Option<Take>,
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
            shot: 0,
            frame: 0,
            take: None,
            sounds: Vec::with_capacity(shots.len()),
        }
    }

    /// Draws the next frame of the cut into `frame`.
    pub fn draw_next(&mut self, frame: &mut Frame) -> Result<(), EngineError> {
        while self
            .shots
            .get(self.shot)
            .is_some_and(|s| self.frame >= s.out_frame - s.in_frame)
        {
            self.shot += 1;
            self.frame = 0;
            self.take = None;
        }
        let Some(shot) = self.shots.get(self.shot) else {
            return Err(EngineError::Inputs("the cut has no more frames".into()));
        };
        let number = self.shot + 1;
        let failed = |e: FrameError| {
            EngineError::Inputs(format!(
                "Shot {number} ({}): its take {} cannot be read: {e}",
                shot.label, shot.file_name
            ))
        };
        if self.take.is_none() {
            let mut take = (self.open)(shot)?;
            self.sounds.push(audio::shape_of(&mut take));
            take.seek(SeekFrom::Start(0))
                .map_err(|e| failed(FrameError::Unsupported(e.to_string())))?;
            let size = take.size();
            let mut reader = FrameReader::new(take, size).map_err(failed)?.with_planes();
            // A take of the cut's size needs no fitting: its planes go to the encoder as they are.
            let fitter = (reader.size() != self.size)
                .then(|| Fitter::new(reader.size(), self.size, self.fit));
            let (pictures, seconds) = (reader.samples(), reader.seconds());
            let first = nearest_picture(
                shot.in_frame as f64 / f64::from(self.fps),
                seconds,
                pictures,
            );
            let position = reader.seek_before(first);
            self.take = Some(Take {
                pictures,
                seconds,
                reader,
                decoded: None,
                position,
                ended: false,
                fitter,
                fitted: None,
            });
        }
        let take = self.take.as_mut().expect("opened above");
        let at = (shot.in_frame + self.frame) as f64 / f64::from(self.fps);
        let wanted = nearest_picture(at, take.seconds, take.pictures);
        // Pictures before the one before the wanted one are only decoded; that one is kept,
        // so that past the take's last picture (a damaged tail), the last one stays.
        while !take.ended && take.position + 1 < wanted {
            if take.reader.skip_picture().map_err(failed)? {
                take.position += 1;
            } else {
                take.ended = true;
            }
        }
        while !take.ended && take.decoded.as_ref().is_none_or(|(i, _)| *i < wanted) {
            match take.reader.next_picture().map_err(failed)? {
                Some(picture) => {
                    take.decoded = Some((take.position, picture));
                    take.position += 1;
                }
                None => take.ended = true,
            }
        }
        let Some((index, picture)) = &take.decoded else {
            return Err(failed(FrameError::Decode("no picture in the video".into())));
        };
        let Picture::Planes(data) = picture else {
            return Err(failed(FrameError::Decode("a picture not in planes".into())));
        };
        match &take.fitter {
            None => frame.data.copy_from_slice(data),
            Some(fitter) => {
                if take.fitted.as_ref().is_none_or(|(i, _)| i != index) {
                    let mut fitted = take.fitted.take().map(|(_, d)| d).unwrap_or_default();
                    fitted.resize(frame.data.len(), 0);
                    fitter.fit(data, &mut fitted);
                    take.fitted = Some((*index, fitted));
                }
                let (_, data) = take.fitted.as_ref().expect("fitted above");
                frame.data.copy_from_slice(data);
            }
        }
        self.frame += 1;
        Ok(())
    }
}
