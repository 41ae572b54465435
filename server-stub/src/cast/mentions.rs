//! A prompt's `@Name` mentions resolved against the project's cast: each member's pictures join
//! the job's inputs as reference images, in the order the members are mentioned, each input
//! naming the member it came from. Unknown names and more pictures than the model takes are
//! refused before anything is sent or spent.

use super::Member;
use crate::providers::inputs::{ImageInput, ImageRole, Input};
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
/// takes at most `most` reference images. A picture already among the references is not sent
/// twice.
pub fn resolve(
    prompt: &str,
    cast: &[Member],
    mut inputs: Vec<Input>,
    model: &str,
    most: u32,
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
    let is_reference = |inputs: &[Input], id: &str| {
        inputs.iter().any(|i| {
            matches!(i, Input::Image(image) if image.role == ImageRole::Reference && image.reference == id)
        })
    };
    for name in names {
        let member = cast
            .iter()
            .find(|m| same_name(&m.name, name))
            .ok_or_else(|| MentionError::Unknown(name.to_owned()))?;
        for reference in &member.references {
            if !is_reference(&inputs, reference) {
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
    if given > most as usize {
        return Err(MentionError::TooMany {
            model: model.to_owned(),
            most,
            given,
        });
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cast::Kind;

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
            4,
        );
        assert_eq!(
            inputs.unwrap(),
            [
                image("ref_b", None),
                image("ref_c", Some("Leo")),
                image("ref_a", Some("Mara")),
            ]
        );
        assert_eq!(resolve("no one", &cast, Vec::new(), "m", 0).unwrap(), []);
    }

    #[test]
    fn unknown_names_too_many_pictures_and_a_given_cast_are_refused() {
        let cast = [member("Mara", &["ref_a", "ref_b"])];
        assert_eq!(
            resolve("@Mara and @Zed", &cast, Vec::new(), "m", 4),
            Err(MentionError::Unknown("Zed".into()))
        );
        let too_many = resolve("@Mara", &cast, vec![image("ref_x", None)], "veo-3", 2).unwrap_err();
        assert_eq!(
            too_many.to_string(),
            "the model veo-3 takes at most 2 reference images, and the cast this prompt mentions brings 3 with the inputs given"
        );
        assert_eq!(
            resolve("x", &cast, vec![image("ref_a", Some("Mara"))], "m", 4),
            Err(MentionError::Given)
        );
    }
}
