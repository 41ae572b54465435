//! Encodes rendered frames to H.264 with OpenH264 and muxes them into a fast-start MP4
//! (moov before mdat) with muxide. Rendering and encoding run on two threads.

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

/// Frames in flight between the render thread and the encoder.
const PIPELINE_DEPTH: usize = 4;

/// Constant quality: with rate control off OpenH264 encodes every frame at its fixed QP, so
/// no frame is skipped (each has a timestamp) and there is no bitrate target to warn about.
fn encoder_for(spec: &VideoSpec) -> Result<Encoder, EngineError> {
    let config = EncoderConfig::new()
        .max_frame_rate(FrameRate::from_hz(spec.fps as f32))
        .rate_control_mode(RateControlMode::Off)
        .skip_frames(false)
        .usage_type(UsageType::CameraVideoRealTime)
        .intra_frame_period(IntraFramePeriod::from_num_frames(spec.fps * 2))
        .num_threads(1);
    Encoder::with_api_config(OpenH264API::from_source(), config)
        .map_err(|e| EngineError::Encode(e.to_string()))
}

/// Renders and encodes the whole clip to `out`, reporting encoded frames as it goes.
/// Returns early with `Cancelled` when `cancel` is set.
pub fn encode(
    renderer: &Renderer,
    spec: &VideoSpec,
    out: &Path,
    cancel: &AtomicBool,
    mut progress: impl FnMut(u32, u32),
) -> Result<(), EngineError> {
    let total = spec.frames();
    let (width, height) = (spec.width as usize, spec.height as usize);
    let mut encoder = encoder_for(spec)?;
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

    std::thread::scope(|scope| -> Result<(), EngineError> {
        let (full_tx, full_rx) = sync_channel::<Frame>(PIPELINE_DEPTH);
        let (empty_tx, empty_rx) = sync_channel::<Frame>(PIPELINE_DEPTH + 1);
        for _ in 0..=PIPELINE_DEPTH {
            let _ = empty_tx.send(Frame::new(width, height));
        }
        scope.spawn(move || {
            for i in 0..total {
                let Ok(mut frame) = empty_rx.recv() else {
                    return;
                };
                renderer.draw(i as f32 / spec.fps as f32, &mut frame);
                if full_tx.send(frame).is_err() {
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
                .map_err(|_| EngineError::Encode("renderer stopped".into()))?;
            let (y, u, v) = frame.planes();
            let source = YUVSlices::new((y, u, v), (width, height), (width, width / 2, width / 2));
            let bitstream = encoder
                .encode(&source)
                .map_err(|e| EngineError::Encode(e.to_string()))?;
            annexb.clear();
            bitstream.write_vec(&mut annexb);
            let key = matches!(bitstream.frame_type(), FrameType::IDR | FrameType::I);
            muxer
                .write_video(f64::from(i) / f64::from(spec.fps), &annexb, key)
                .map_err(|e| EngineError::Mux(e.to_string()))?;
            let _ = empty_tx.send(frame);
            progress(i + 1, total);
        }
        Ok(())
    })?;
    muxer.finish().map_err(|e| EngineError::Mux(e.to_string()))
}
