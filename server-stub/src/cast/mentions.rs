//! A prompt's `@Name` mentions resolved against the project's cast: each member's pictures join
//! the job's inputs as reference images, in the order the members are mentioned, each input
//! naming the member it came from. Unknown names and more pictures than the model takes are
//! refused before anything is sent or spent. A model that keeps cast members as elements of
//! their own (`ModelInputs::cast_elements`) gets every picture of each member, counted by
//! member (`providers::inputs::check`) rather than as reference images.

use super::Member;
use crate::providers::inputs::{ImageInput, ImageRole, Input, ModelInputs};
use studio_core::cast::{mentioned, same_name};

/// Why a prompt's mentions cannot be resolved (422).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MentionError {
    #[error("@{0} is not in the project's cast: add it first, or write the name without @")]
    Unknown(String),
    #[error(
        "the model {model} takes at most {most} reference images, and the cast this prompt \
         mentions brings {given} with the inputs given"
    )]
    TooMany {
        model: String,
        most: u32,
        given: usize,
    },
    #[error("an input's cast is set by the server from the prompt's @mentions, not given")]
    Given,
}

/// `inputs` with the pictures of the members `prompt` mentions after them, for `model`, which
/// takes `takes`. A picture already among the references is not sent twice (for a model that
/// keeps elements: not twice for one member).
pub fn resolve(
    prompt: &str,
    cast: &[Member],
    mut inputs: Vec<Input>,
    model: &str,
    takes: &ModelInputs,
) -> Result<Vec<Input>, MentionError> {
    if inputs
        .iter()
        .any(|i| matches!(i, Input::Image(image) if image.cast.is_some()))
    {
        return Err(MentionError::Given);
    }
    let names = mentioned(prompt);
    if names.is_empty() {
        return Ok(inputs);
    }
    let elements = takes.cast_elements.is_some();
    let is_sent = |inputs: &[Input], id: &str, member: &str| {
        inputs.iter().any(|i| {
            matches!(i, Input::Image(image) if image.role == ImageRole::Reference
                && image.reference == id
                && (!elements || image.cast.as_deref() == Some(member)))
        })
    };
    for name in names {
        let member = cast
            .iter()
            .find(|m| same_name(&m.name, name))
            .ok_or_else(|| MentionError::Unknown(name.to_owned()))?;
        for reference in &member.references {
            if !is_sent(&inputs, reference, &member.name) {
                inputs.push(Input::Image(ImageInput {
                    reference: reference.clone(),
                    role: ImageRole::Reference,
                    cast: Some(member.name.clone()),
                }));
            }
        }
    }
    let given = inputs
        .iter()
        .filter(|i| matches!(i, Input::Image(image) if image.role == ImageRole::Reference))
        .count();
    if !elements && given > takes.references as usize {
        return Err(MentionError::TooMany {
            model: model.to_owned(),
            most: takes.references,
            given,
        });
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cast::Kind;
    use crate::providers::inputs::CastElements;

    fn takes(references: u32) -> ModelInputs {
        ModelInputs {
            references,
            ..ModelInputs::default()
        }
    }

    fn member(name: &str, references: &[&str]) -> Member {
        Member {
            id: format!("cast_{name}"),
            name: name.into(),
            kind: Kind::Character,
            description: None,
            references: references.iter().map(|r| r.to_string()).collect(),
            created_at: String::new(),
            updated_at: String::new(),
        }
    }

    fn image(reference: &str, cast: Option<&str>) -> Input {
        Input::Image(ImageInput {
            reference: reference.into(),
            role: ImageRole::Reference,
            cast: cast.map(str::to_owned),
        })
    }

    #[test]
    fn mentioned_members_bring_their_pictures_in_the_order_mentioned() {
        let cast = [
            member("Mara", &["ref_a", "ref_b"]),
            member("Leo", &["ref_c"]),
        ];
        let inputs = resolve(
            "@leo meets @Mara; @Mara waves",
            &cast,
            vec![image("ref_b", None)],
            "m",
            &takes(4),
        );
        assert_eq!(
            inputs.unwrap(),
            [
                image("ref_b", None),
                image("ref_c", Some("Leo")),
                image("ref_a", Some("Mara")),
            ]
        );
        assert_eq!(
            resolve("no one", &cast, Vec::new(), "m", &takes(0)).unwrap(),
            []
        );
    }

    #[test]
    fn unknown_names_too_many_pictures_and_a_given_cast_are_refused() {
        let cast = [member("Mara", &["ref_a", "ref_b"])];
        assert_eq!(
            resolve("@Mara and @Zed", &cast, Vec::new(), "m", &takes(4)),
            Err(MentionError::Unknown("Zed".into()))
        );
        let too_many = resolve(
            "@Mara",
            &cast,
            vec![image("ref_x", None)],
            "veo-3",
            &takes(2),
        )
        .unwrap_err();
        assert_eq!(
            too_many.to_string(),
            "the model veo-3 takes at most 2 reference images, and the cast this prompt mentions brings 3 with the inputs given"
        );
        assert_eq!(
            resolve(
                "x",
                &cast,
                vec![image("ref_a", Some("Mara"))],
                "m",
                &takes(4)
            ),
            Err(MentionError::Given)
        );
    }

    #[test]
    fn a_model_keeping_elements_gets_every_picture_of_each_member() {
        let cast = [
            member("Mara", &["ref_a", "ref_b"]),
            member("Leo", &["ref_b", "ref_c"]),
        ];
        let elements = ModelInputs {
            cast_elements: Some(CastElements {
                most_members: 3,
                least_pictures: 2,
                most_pictures: 4,
                needs_frame: true,
            }),
            ..ModelInputs::default()
        };
        let inputs = resolve("@Mara and @Leo", &cast, Vec::new(), "kling-v3", &elements);
        assert_eq!(
            inputs.unwrap(),
            [
                image("ref_a", Some("Mara")),
                image("ref_b", Some("Mara")),
                image("ref_b", Some("Leo")),
                image("ref_c", Some("Leo")),
            ]
        );
    }
}
