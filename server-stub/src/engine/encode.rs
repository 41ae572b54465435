//! Encodes frames to H.264 with OpenH264, on two threads: one draws each frame (the scene's
//! renderer, or a cut's source pictures), the other encodes it and hands the bitstream to the
//! muxer. Renders are muxed into a fast-start MP4 (moov before mdat) with muxide.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::sync_channel;

use muxide::api::{MuxerBuilder, VideoCodec};
use openh264::encoder::{
    Encoder, EncoderConfig, FrameRate, FrameType, IntraFramePeriod, RateControlMode, UsageType,
};
use openh264::formats::YUVSlices;
use openh264::OpenH264API;

use super::render::{Frame, Renderer};
use super::{EngineError, VideoSpec};

/// Frames in flight between the drawing thread and the encoder.
const PIPELINE_DEPTH: usize = 4;

/// What an encode makes: its size, rate and number of frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub frames: u32,
}

/// Constant quality: with rate control off OpenH264 encodes every frame at its fixed QP, so
/// no frame is skipped (each has a timestamp) and there is no bitrate target to warn about.
fn encoder_for(output: &Output) -> Result<Encoder, EngineError> {
    let config = EncoderConfig::new()
        .max_frame_rate(FrameRate::from_hz(output.fps as f32))
        .rate_control_mode(RateControlMode::Off)
        .skip_frames(false)
        .usage_type(UsageType::CameraVideoRealTime)
        .intra_frame_period(IntraFramePeriod::from_num_frames(output.fps * 2))
        .num_threads(1);
    Encoder::with_api_config(OpenH264API::from_source(), config)
        .map_err(|e| EngineError::Encode(e.to_string()))
}

/// Encodes `output.frames` frames, each drawn by `draw(index, frame)` on a thread of its own,
/// handing each frame's Annex B bitstream to `write(index, bitstream, keyframe)` and reporting
/// encoded frames to `progress`. Returns early with `Cancelled` when `cancel` is set, and with
/// the first error `draw` or `write` gives.
pub fn encode_frames(
    output: &Output,
    mut draw: impl FnMut(u32, &mut Frame) -> Result<(), EngineError> + Send,
    mut write: impl FnMut(u32, &[u8], bool) -> Result<(), EngineError>,
    cancel: &AtomicBool,
    mut progress: impl FnMut(u32, u32),
) -> Result<(), EngineError> {
    let total = output.frames;
    let (width, height) = (output.width as usize, output.height as usize);
    let mut encoder = encoder_for(output)?;
    std::thread::scope(|scope| -> Result<(), EngineError> {
        let (full_tx, full_rx) = sync_channel::<Result<Frame, EngineError>>(PIPELINE_DEPTH);
        let (empty_tx, empty_rx) = sync_channel::<Frame>(PIPELINE_DEPTH + 1);
        for _ in 0..=PIPELINE_DEPTH {
            let _ = empty_tx.send(Frame::new(width, height));
        }
        scope.spawn(move || {
            for i in 0..total {
                let Ok(mut frame) = empty_rx.recv() else {
                    return;
                };
                let drawn = draw(i, &mut frame).map(|()| frame);
                let failed = drawn.is_err();
                if full_tx.send(drawn).is_err() || failed {
                    return;
                }
            }
        });
        let mut annexb = Vec::with_capacity(256 * 1024);
        for i in 0..total {
            if cancel.load(Ordering::Relaxed) {
                return Err(EngineError::Cancelled);
            }
            let frame = full_rx
                .recv()
                .map_err(|_| EngineError::Encode("the frames stopped".into()))??;
            let (y, u, v) = frame.planes();
            let source = YUVSlices::new((y, u, v), (width, height), (width, width / 2, width / 2));
            let bitstream = encoder
                .encode(&source)
                .map_err(|e| EngineError::Encode(e.to_string()))?;
            annexb.clear();
            bitstream.write_vec(&mut annexb);
            let key = matches!(bitstream.frame_type(), FrameType::IDR | FrameType::I);
            write(i, &annexb, key)?;
            let _ = empty_tx.send(frame);
            progress(i + 1, total);
        }
        Ok(())
    })
}

/// Renders and encodes the whole clip to `out`, reporting encoded frames as it goes.
/// Returns early with `Cancelled` when `cancel` is set.
pub fn encode(
    renderer: &Renderer,
    spec: &VideoSpec,
    out: &Path,
    cancel: &AtomicBool,
    progress: impl FnMut(u32, u32),
) -> Result<(), EngineError> {
    let file = BufWriter::new(File::create(out)?);
    let mut muxer = MuxerBuilder::new(file)
        .video(
            VideoCodec::H264,
            spec.width,
            spec.height,
            f64::from(spec.fps),
        )
        .build()
        .map_err(|e| EngineError::Mux(e.to_string()))?;
    let output = Output {
        width: spec.width,
        height: spec.height,
        fps: spec.fps,
        frames: spec.frames(),
    };
    encode_frames(
        &output,
        |i, frame| {
            renderer.draw(i as f32 / spec.fps as f32, frame);
            Ok(())
        },
        |i, annexb, key| {
            muxer
                .write_video(f64::from(i) / f64::from(spec.fps), annexb, key)
                .map_err(|e| EngineError::Mux(e.to_string()))
        },
        cancel,
        progress,
    )?;
    muxer.finish().map_err(|e| EngineError::Mux(e.to_string()))
}
