//! Models their providers have shut down. Configuring one stops the server at start, and a job
//! stored with one ends with the same words, never with the provider's bare 404.

/// Why the provider's model `remote` can no longer be used, and what replaces it; `None` for
/// a model still served.
pub fn retired(remote: &str) -> Option<String> {
    let veo_preview = remote.starts_with("veo-3.1-") && remote.ends_with("-preview");
    veo_preview.then(|| {
        format!(
            "{remote} was shut down by Google on 2026-10-22 with the Gemini API's other Veo 3.1 \
             previews; their replacements are gemini-omni-1.1-flash on the Gemini API and \
             veo-3.1-generate-001 or veo-3.1-fast-generate-001 on Vertex AI"
        )
    })
}

/// Why a job of `model` cannot run on this server: the model was retired by its provider, or
/// this server no longer offers it.
pub fn unavailable(model: &str) -> String {
    retired(model)
        .unwrap_or_else(|| format!("The model {model} is no longer offered by this server"))
}

#[cfg(test)]
mod tests {
    use super::retired;

    #[test]
    fn the_gemini_apis_veo_previews_are_retired_and_named_with_their_replacements() {
        for model in [
            "veo-3.1-generate-preview",
            "veo-3.1-fast-generate-preview",
            "veo-3.1-lite-generate-preview",
        ] {
            let why = retired(model).unwrap();
            assert!(why.starts_with(model), "{why}");
            assert!(why.contains("2026-10-22"), "{why}");
            assert!(why.contains("veo-3.1-generate-001"), "{why}");
            assert!(why.contains("gemini-omni-1.1-flash"), "{why}");
        }
        for model in [
            "veo-3.1-generate-001",
            "veo3.1",
            "google/veo-3.1",
            "ray-3.2",
        ] {
            assert_eq!(retired(model), None, "{model}");
        }
    }
}
