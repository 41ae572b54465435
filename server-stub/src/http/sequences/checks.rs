//! What a sequence's create and change must hold: a name, a rate and size offered, and shots
//! whose takes are in the library and whose points are in order and inside their takes (as
//! long as each take's own header says). Each refusal names what it refuses (422).

use std::collections::{HashMap, HashSet};

use super::ShotChange;
use crate::http::assets::valid_file_name;
use crate::http::error::ApiError;
use crate::project::ProjectFolder;
use crate::sequences::captions::{self, Caption};
use crate::sequences::lanes::{MAX_CUT_DB, MAX_GAIN_DB};
use crate::sequences::{
    frames, new_id, probe, valid_id, Sequence, Shot, FPS_OFFERED, MAX_LABEL, MAX_SHOTS,
    MAX_SHOT_TAKES,
};
use crate::storage::{Storage, StorageError};

/// The longest shot planned, in seconds (the longest job).
const MAX_PLANNED_S: f64 = 20.0;

/// The file names of the project's library videos.
pub(in crate::http) async fn library(
    storage: &dyn Storage,
    folder: &ProjectFolder,
) -> Result<HashSet<String>, StorageError> {
    Ok(storage
        .list(&folder.library())
        .await?
        .iter()
        .map(|o| crate::storage::file_name(&o.key))
        .filter(|name| name.ends_with(".mp4"))
        .map(str::to_owned)
        .collect())
}

pub(super) fn check_name(name: &str) -> Result<String, ApiError> {
    if name.trim().is_empty() || name.chars().count() > MAX_LABEL {
        return Err(ApiError::Unprocessable(format!(
            "name must be 1 to {MAX_LABEL} characters"
        )));
    }
    Ok(name.trim().to_owned())
}

/// The frame rate `fps` names, when it is one offered; and `size`, checked.
pub(super) fn check_format(fps: f64, size: &str) -> Result<u32, ApiError> {
    let Some(&fps) = FPS_OFFERED.iter().find(|&&f| f64::from(f) == fps) else {
        return Err(ApiError::Unprocessable(format!(
            "fps must be 24, 25 or 30, not {fps}"
        )));
    };
    if studio_core::video_size::parse(size).is_none() {
        return Err(ApiError::Unprocessable(format!(
            "size must be WxH, each side even and 128 to 1920, not {size}"
        )));
    }
    Ok(fps)
}

/// A shot's caption, its points in frames of the take.
fn checked_caption(
    text: Option<&str>,
    in_s: Option<f64>,
    out_s: Option<f64>,
    fps: u32,
) -> Result<Option<Caption>, String> {
    let point = |seconds: Option<f64>, name: &str| match seconds {
        None => Ok(None),
        Some(s) => frames::of_seconds(s, fps)
            .map(Some)
            .ok_or_else(|| format!("{name} must be seconds from 0")),
    };
    let in_frame = point(in_s, "caption_in_s")?;
    let out_frame = point(out_s, "caption_out_s")?;
    captions::caption(text.unwrap_or(""), in_frame, out_frame).map_err(|e| e.to_string())
}

/// The shots of a change, checked: each refusal names the shot. Takes and ends already in
/// `current` are not checked again (a take deleted since stays, and says it is missing).
pub(super) async fn checked_shots(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    saved: &HashSet<String>,
    fps: u32,
    shots: Vec<ShotChange>,
    current: &Sequence,
) -> Result<Vec<Shot>, ApiError> {
    if shots.len() > MAX_SHOTS {
        return Err(ApiError::Unprocessable(format!(
            "a sequence holds at most {MAX_SHOTS} shots, not {}",
            shots.len()
        )));
    }
    let mut ids = HashSet::new();
    let mut checked = Vec::with_capacity(shots.len());
    // Each take's length, as its header says, read once for all its shots.
    let mut lengths: HashMap<String, Option<f64>> = HashMap::new();
    for (at, shot) in shots.into_iter().enumerate() {
        let named = format!("Shot {} (\"{}\")", at + 1, shot.label);
        let refuse = |why: String| Err(ApiError::Unprocessable(format!("{named}: {why}")));
        if shot.label.chars().count() > MAX_LABEL {
            return refuse(format!("the label is over {MAX_LABEL} characters"));
        }
        let id = match shot.id {
            Some(id) if !valid_id(&id) => return refuse(format!("{id} is not a shot id")),
            Some(id) => id,
            None => new_id("shot"),
        };
        if !ids.insert(id.clone()) {
            return refuse(format!("the id {id} is given twice"));
        }
        let caption = checked_caption(
            shot.caption.as_deref(),
            shot.caption_in_s,
            shot.caption_out_s,
            fps,
        )
        .map_err(|why| ApiError::Unprocessable(format!("{named}: {why}")))?;
        let before = current.shots.iter().find(|s| s.id == id);
        // Left out, the take's sound stays as it was.
        let gain_db = shot.gain_db.or(before.map(|b| b.gain_db)).unwrap_or(0.0);
        if !(-MAX_CUT_DB..=MAX_GAIN_DB).contains(&gain_db) {
            return refuse(format!("gain_db must be -{MAX_CUT_DB} to {MAX_GAIN_DB}"));
        }
        // Left out, the framing stays as it was; `null` centres it.
        let reframe = match shot.reframe {
            Some(reframe) => reframe,
            None => before.and_then(|b| b.reframe),
        };
        if reframe.is_some_and(|r| !r.is_valid()) {
            return refuse("reframe's x and y must be 0 to 1".into());
        }
        // Left out, the plan stays as it was; `null` takes it away.
        let planned_frames = match shot.planned_s {
            Some(Some(seconds)) => match frames::of_seconds(seconds, fps) {
                Some(planned) if planned > 0 && seconds <= MAX_PLANNED_S => Some(planned),
                _ => return refuse(format!("planned_s must be a frame to {MAX_PLANNED_S} s")),
            },
            Some(None) => None,
            None => before
                .and_then(|b| b.planned_frames)
                .and_then(|f| frames::of_seconds(frames::seconds(f, current.fps), fps)),
        };
        // Each take once, in the order given; the chosen one joins them when it is not there.
        let mut seen = HashSet::new();
        let takes: Vec<String> = shot
            .takes
            .into_iter()
            .chain(shot.take.clone())
            .filter(|t| seen.insert(t.clone()))
            .collect();
        if takes.len() > MAX_SHOT_TAKES {
            return refuse(format!(
                "a shot holds at most {MAX_SHOT_TAKES} takes, not {}",
                takes.len()
            ));
        }
        for take in &takes {
            let kept = before.is_some_and(|b| b.takes.contains(take));
            let saved_now = valid_file_name(take) && saved.contains(take);
            if !(kept || saved_now) {
                return refuse(format!("the take {take} is not in the project's library"));
            }
        }
        let (Some(in_frame), Some(out_frame)) = (
            frames::of_seconds(shot.in_s, fps),
            frames::of_seconds(shot.out_s, fps),
        ) else {
            return refuse("in_s and out_s must be seconds from 0".into());
        };
        if in_frame >= out_frame {
            return refuse("in_s must come before out_s by a frame or more".into());
        }
        let unchanged = before.is_some_and(|b| b.take == shot.take && b.out_frame == out_frame);
        if let (Some(take), false) = (&shot.take, unchanged) {
            if !lengths.contains_key(take) {
                let file = probe::take_file(storage, folder, take, fps).await;
                lengths.insert(take.clone(), file.and_then(|f| f.seconds()));
            }
            if let Some(length) = lengths[take] {
                if frames::seconds(out_frame, fps) > length + 0.5 / f64::from(fps) {
                    let length = (length * 1000.0).round() / 1000.0;
                    return refuse(format!("out_s is past the end of {take} ({length} s)"));
                }
            }
        }
        checked.push(Shot {
            id,
            label: shot.label,
            prompt: shot.prompt,
            takes,
            take: shot.take,
            in_frame,
            out_frame,
            caption,
            gain_db,
            mute: shot.mute.or(before.map(|b| b.mute)).unwrap_or(false),
            reframe,
            planned_frames,
        });
    }
    Ok(checked)
}
