//! What a video's manifest says: the C2PA manifest definition (the JSON the `c2pa` crate's
//! builder takes) for each kind of video Studio writes.

use serde_json::{json, Value};

/// IPTC's digital source type of media a trained model made.
pub const TRAINED: &str = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";
/// IPTC's digital source type of a composite that holds such media.
pub const COMPOSITE: &str =
    "http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia";

/// The label tying a parent ingredient to the action that used it.
pub const PARENT_LABEL: &str = "parent";

/// How a video Studio writes was made.
#[derive(Debug, Clone, PartialEq)]
pub enum Made {
    /// A take made from a prompt (and pictures) by `model` of `provider`.
    Generated { provider: String, model: String },
    /// A take that extends or remixes another (its parent ingredient).
    Edited { provider: String, model: String },
    /// A take a hosted provider made and signed itself: its file, with the provider's
    /// manifest, is the parent ingredient. (A provider's take that arrived unsigned is
    /// `Generated`.)
    Copied { provider: String, model: String },
    /// A sequence's export: its shots' takes are its components.
    Cut,
}

/// The facts of one video: how it was made, its job, when, and its prompt when the operator
/// records prompts.
#[derive(Debug, Clone)]
pub struct Facts {
    pub made: Made,
    pub job: String,
    pub title: String,
    /// RFC 3339.
    pub when: String,
    pub prompt: Option<String>,
}

/// The manifest definition of `facts`, with `generator`'s name and version.
pub fn definition(facts: &Facts, version: &str) -> Value {
    let mut parameters = json!({ "org.studio.job": facts.job });
    if let Some(prompt) = &facts.prompt {
        parameters["org.studio.prompt"] = prompt.clone().into();
    }
    let agent = |name: String| json!({ "name": name });
    let mut actions = match &facts.made {
        Made::Generated { provider, model } => vec![json!({
            "action": "c2pa.created",
            "digitalSourceType": TRAINED,
            "softwareAgent": agent(format!("{provider}/{model}")),
        })],
        // C2PA's first action is created or opened: the source take is opened, then edited.
        Made::Edited { provider, model } => vec![
            json!({
                "action": "c2pa.opened",
                "softwareAgent": agent(format!("Studio/{version}")),
                "parameters": { "ingredientIds": [PARENT_LABEL] },
            }),
            json!({
                "action": "c2pa.edited",
                "digitalSourceType": TRAINED,
                "softwareAgent": agent(format!("{provider}/{model}")),
            }),
        ],
        // The provider's file as it arrived is opened; what it says of itself stays in its own
        // manifest, kept as the parent ingredient's.
        Made::Copied { provider, model } => vec![json!({
            "action": "c2pa.opened",
            "digitalSourceType": TRAINED,
            "softwareAgent": agent(format!("{provider}/{model}")),
            "parameters": { "ingredientIds": [PARENT_LABEL] },
        })],
        Made::Cut => vec![json!({
            "action": "c2pa.created",
            "digitalSourceType": COMPOSITE,
            "softwareAgent": agent(format!("Studio/{version}")),
        })],
    };
    for action in &mut actions {
        action["when"] = facts.when.clone().into();
    }
    if let Some(last) = actions.last_mut() {
        match last.get_mut("parameters") {
            Some(own) => {
                for (name, value) in parameters.as_object().into_iter().flatten() {
                    own[name] = value.clone();
                }
            }
            None => last["parameters"] = parameters,
        }
    }
    json!({
        "title": facts.title,
        "format": "video/mp4",
        "claim_generator_info": [{ "name": "Studio", "version": version }],
        "assertions": [{ "label": "c2pa.actions", "data": { "actions": actions } }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(made: Made, prompt: Option<&str>) -> Facts {
        Facts {
            made,
            job: "job_1".into(),
            title: "job_1.mp4".into(),
            when: "2026-11-27T10:00:00Z".into(),
            prompt: prompt.map(str::to_owned),
        }
    }

    #[test]
    fn each_kind_says_how_it_was_made() {
        let generated = Made::Generated {
            provider: "kling".into(),
            model: "kling-v3".into(),
        };
        let d = definition(&facts(generated, None), "0.1.0");
        let action = &d["assertions"][0]["data"]["actions"][0];
        assert_eq!(action["action"], "c2pa.created");
        assert_eq!(action["digitalSourceType"], TRAINED);
        assert_eq!(action["softwareAgent"]["name"], "kling/kling-v3");
        assert_eq!(action["parameters"], json!({ "org.studio.job": "job_1" }));
        assert_eq!(d["claim_generator_info"][0]["name"], "Studio");

        let edited = Made::Edited {
            provider: "local".into(),
            model: "studio-engine-1".into(),
        };
        let d = definition(&facts(edited, Some("a gull")), "0.1.0");
        let actions = &d["assertions"][0]["data"]["actions"];
        assert_eq!(actions[0]["action"], "c2pa.opened", "C2PA's first action");
        assert_eq!(
            actions[0]["parameters"]["ingredientIds"],
            json!([PARENT_LABEL])
        );
        assert_eq!(actions[1]["action"], "c2pa.edited");
        assert_eq!(actions[1]["digitalSourceType"], TRAINED);
        assert_eq!(actions[1]["parameters"]["org.studio.prompt"], "a gull");

        let d = definition(&facts(Made::Cut, None), "0.1.0");
        let action = &d["assertions"][0]["data"]["actions"][0];
        assert_eq!(action["digitalSourceType"], COMPOSITE);
        assert_eq!(action["softwareAgent"]["name"], "Studio/0.1.0");
        assert_eq!(action["when"], "2026-11-27T10:00:00Z");
    }
}
