//! What a job is made from besides its prompt: reference images in roles, and at most one
//! video to extend or remix. The rules of which model takes which, decided before anything
//! is sent or spent.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The role of a reference image in a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ImageRole {
    /// The clip starts on this picture.
    FirstFrame,
    /// The clip ends on this picture.
    LastFrame,
    /// Style and subject.
    Reference,
}

/// What a job does with a video.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum VideoRole {
    /// Continues from its last frame.
    Extend,
    /// Re-makes it with a new prompt.
    Remix,
}

/// A reference image of the project, in a role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImageInput {
    /// The id `POST /references` answered.
    #[schema(pattern = "^ref_[a-z0-9]{26}$")]
    pub reference: String,
    pub role: ImageRole,
    /// The cast member whose picture this is, when a prompt's `@Name` brought it (set by the
    /// server, never given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(read_only)]
    pub cast: Option<String>,
}

/// A video of the project (a library file name or a job id), extended or remixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VideoInput {
    #[schema(pattern = "^[A-Za-z0-9._:-]{1,200}$")]
    pub video: String,
    pub role: VideoRole,
}

/// One thing a job is made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum Input {
    Image(ImageInput),
    Video(VideoInput),
}

/// Which inputs a model takes: the client's own type, so the two read `GET /models` alike.
pub use studio_core::inputs::{CastElements, ModelInputs};

/// At most this many inputs in one job.
pub const MAX_INPUTS: usize = 8;

/// The first video input, if any.
pub fn video(inputs: &[Input]) -> Option<&VideoInput> {
    inputs.iter().find_map(|i| match i {
        Input::Video(v) => Some(v),
        Input::Image(_) => None,
    })
}

/// The images in `role`, in order.
pub fn images(inputs: &[Input], role: ImageRole) -> impl Iterator<Item = &ImageInput> {
    inputs.iter().filter_map(move |i| match i {
        Input::Image(image) if image.role == role => Some(image),
        _ => None,
    })
}

/// Whether there are few enough inputs to look each one up. The pictures a prompt's cast
/// brings are not counted: the model's own limits bound them (`check`).
pub fn check_count(inputs: &[Input]) -> Result<(), String> {
    let given = inputs
        .iter()
        .filter(|i| !matches!(i, Input::Image(image) if image.cast.is_some()))
        .count();
    if given > MAX_INPUTS {
        return Err(format!("a job takes at most {MAX_INPUTS} inputs"));
    }
    Ok(())
}

/// Whether `model`, taking `takes`, accepts `inputs`; the error names the model and the role.
pub fn check(model: &str, takes: &ModelInputs, inputs: &[Input]) -> Result<(), String> {
    check_count(inputs)?;
    let count = |role| images(inputs, role).count();
    // Cast members kept as the model's elements are not reference images to it.
    let references = match takes.cast_elements {
        Some(limits) => {
            check_elements(model, limits, inputs)?;
            images(inputs, ImageRole::Reference)
                .filter(|image| image.cast.is_none())
                .count()
        }
        None => count(ImageRole::Reference),
    };
    let (first, last) = (count(ImageRole::FirstFrame), count(ImageRole::LastFrame));
    let refuse = |role: &str| Err(format!("the model {model} does not take a {role}"));
    if first > 0 && !takes.first_frame {
        return refuse("first_frame");
    }
    if last > 0 && !takes.last_frame {
        return refuse("last_frame");
    }
    if references > 0 && takes.references == 0 {
        return refuse("reference");
    }
    if first > 1 || last > 1 {
        return Err("a job has at most one first_frame and one last_frame".into());
    }
    if references > takes.references as usize {
        return Err(format!(
            "the model {model} takes at most {} reference images ({references} given)",
            takes.references
        ));
    }
    let videos: Vec<&VideoInput> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Video(v) => Some(v),
            Input::Image(_) => None,
        })
        .collect();
    match videos.as_slice() {
        [] => Ok(()),
        [_, _, ..] => Err("a job takes at most one video to extend or remix".into()),
        [v] => match v.role {
            VideoRole::Extend if !takes.extend => refuse("extend"),
            VideoRole::Remix if !takes.remix => refuse("remix"),
            // Both would decide the clip's opening picture.
            VideoRole::Extend if first > 0 => Err(format!(
                "the model {model} does not take extend with a first_frame: an extended clip \
                 starts on the source's last frame"
            )),
            VideoRole::Remix if first + last + references > 0 => Err(format!(
                "the model {model} does not take images with remix: a remix re-makes the \
                 source video"
            )),
            _ => Ok(()),
        },
    }
}

/// Whether the cast pictures among `inputs` make elements `model` takes: few enough members,
/// each with as many pictures as an element is made of.
fn check_elements(model: &str, limits: CastElements, inputs: &[Input]) -> Result<(), String> {
    let mut members: Vec<(&str, u32)> = Vec::new();
    for name in images(inputs, ImageRole::Reference).filter_map(|image| image.cast.as_deref()) {
        match members.iter_mut().find(|(n, _)| *n == name) {
            Some((_, pictures)) => *pictures += 1,
            None => members.push((name, 1)),
        }
    }
    if members.len() > limits.most_members as usize {
        return Err(format!(
            "the model {model} takes at most {} cast members in one prompt ({} mentioned)",
            limits.most_members,
            members.len()
        ));
    }
    let framed = inputs
        .iter()
        .any(|i| matches!(i, Input::Image(image) if image.role != ImageRole::Reference));
    if limits.needs_frame && !members.is_empty() && !framed {
        return Err(format!(
            "the model {model} takes cast members only in a job with a first_frame or \
             last_frame (its elements go with a picture to start or end on)"
        ));
    }
    let range = limits.least_pictures..=limits.most_pictures;
    match members
        .iter()
        .find(|(_, pictures)| !range.contains(pictures))
    {
        Some((name, pictures)) => Err(format!(
            "the model {model} makes each cast member an element of {} to {} pictures: @{name} \
             has {pictures}",
            limits.least_pictures, limits.most_pictures
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Vec<Input> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn inputs_read_as_the_api_writes_them() {
        let inputs = parse(
            r#"[{"reference":"ref_1","role":"first_frame"},{"video":"v.mp4","role":"extend"}]"#,
        );
        assert_eq!(
            inputs[0],
            Input::Image(ImageInput {
                reference: "ref_1".into(),
                role: ImageRole::FirstFrame,
                cast: None,
            })
        );
        assert_eq!(video(&inputs).map(|v| v.role), Some(VideoRole::Extend));
        for bad in [
            r#"[{"reference":"r","role":"extend"}]"#,
            r#"[{"video":"v","role":"first_frame"}]"#,
            r#"[{"reference":"r","role":"reference","x":1}]"#,
        ] {
            assert!(serde_json::from_str::<Vec<Input>>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn roles_a_model_does_not_take_are_refused_by_name() {
        let none = ModelInputs::default();
        let first = parse(r#"[{"reference":"r","role":"first_frame"}]"#);
        let err = check("sora-2", &none, &first).unwrap_err();
        assert!(
            err.contains("sora-2") && err.contains("first_frame"),
            "{err}"
        );
        assert!(check("local-1", &ModelInputs::ALL, &first).is_ok());
        let remix = parse(r#"[{"video":"v.mp4","role":"remix"}]"#);
        assert!(check("x", &none, &remix).unwrap_err().contains("remix"));
    }

    #[test]
    fn counts_and_combinations_are_checked() {
        let all = ModelInputs::ALL;
        let five = parse(&format!(
            "[{}]",
            [r#"{"reference":"r","role":"reference"}"#; 5].join(",")
        ));
        assert!(check("local-1", &all, &five)
            .unwrap_err()
            .contains("at most 4"));
        let two_first = parse(
            r#"[{"reference":"a","role":"first_frame"},{"reference":"b","role":"first_frame"}]"#,
        );
        assert!(check("local-1", &all, &two_first).is_err());
        let extend_and_first =
            parse(r#"[{"reference":"a","role":"first_frame"},{"video":"v.mp4","role":"extend"}]"#);
        let err = check("local-1", &all, &extend_and_first).unwrap_err();
        assert!(err.contains("local-1") && err.contains("extend"), "{err}");
        let extend_to_last =
            parse(r#"[{"reference":"a","role":"last_frame"},{"video":"v.mp4","role":"extend"}]"#);
        assert!(check("local-1", &all, &extend_to_last).is_ok());
        let two_videos =
            parse(r#"[{"video":"a.mp4","role":"extend"},{"video":"b.mp4","role":"remix"}]"#);
        assert!(check("local-1", &all, &two_videos).is_err());
    }

    #[test]
    fn cast_kept_as_elements_is_counted_by_member() {
        let takes = ModelInputs {
            first_frame: true,
            cast_elements: Some(CastElements {
                most_members: 2,
                least_pictures: 2,
                most_pictures: 3,
                needs_frame: true,
            }),
            ..ModelInputs::default()
        };
        let frame = r#"{"reference":"ref_f","role":"first_frame"}"#;
        let pictures = |names: &[&str]| -> Vec<Input> {
            let mut inputs = parse(&format!("[{frame}]"));
            inputs.extend(names.iter().enumerate().map(|(at, name)| {
                Input::Image(ImageInput {
                    reference: format!("ref_{at}"),
                    role: ImageRole::Reference,
                    cast: Some((*name).to_owned()),
                })
            }));
            inputs
        };
        assert!(check(
            "kling-v3",
            &takes,
            &pictures(&["Ana", "Ana", "Bo", "Bo", "Bo"])
        )
        .is_ok());
        let err = check("kling-v3", &takes, &pictures(&["Ana", "Bo", "Bo"])).unwrap_err();
        assert!(
            err.contains("@Ana has 1") && err.contains("2 to 3"),
            "{err}"
        );
        let err = check("kling-v3", &takes, &pictures(&["Ana"; 4])).unwrap_err();
        assert!(err.contains("@Ana has 4"), "{err}");
        let three = pictures(&["Ana", "Ana", "Bo", "Bo", "Cy", "Cy"]);
        let err = check("kling-v3", &takes, &three).unwrap_err();
        assert!(
            err.contains("at most 2 cast members in one prompt (3 mentioned)"),
            "{err}"
        );
        // Nine cast pictures pass the count of given inputs; a plain reference is still refused.
        assert!(check_count(&pictures(&["Ana"; 9])).is_ok());
        let unframed = pictures(&["Ana", "Ana"])[1..].to_vec();
        let err = check("kling-v3", &takes, &unframed).unwrap_err();
        assert!(err.contains("only in a job with a first_frame"), "{err}");
        let plain = parse(r#"[{"reference":"r","role":"reference"}]"#);
        assert!(check("kling-v3", &takes, &plain)
            .unwrap_err()
            .contains("reference"));
    }
}
