//! The shot's inputs: reference pictures (uploaded, grabbed from a video, removed, their
//! roles), the video a job extends or remixes, and how pictures are fitted.

use wasm_bindgen::prelude::*;

use super::{js_error, json, promise, Studio};
use crate::error::CoreError;
use crate::inputs::{Fit, ImageRole, VideoRole, MAX_REFERENCE_BYTES};

#[wasm_bindgen]
impl Studio {
    /// Adds a picture (a `File` or `Blob`: PNG, JPEG or WebP, at most 20 MB) to the project's
    /// reference images; resolves with its id.
    #[wasm_bindgen(js_name = uploadReference)]
    pub fn upload_reference(&self, file: web_sys::Blob) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            if file.size() > MAX_REFERENCE_BYTES {
                return Err(CoreError::Refused(
                    "The image is larger than 20 MB".to_owned(),
                ));
            }
            let content_type = file.type_();
            core.upload_reference(file, &content_type).await
        })
    }

    /// Grabs a frame of a library video (its file name) or a finished job (its id) as a
    /// reference image: `at` is `"first"`, `"last"` or seconds; resolves with its id.
    #[wasm_bindgen(js_name = grabFrame)]
    pub fn grab_frame(&self, video: String, at: JsValue) -> js_sys::Promise {
        let at = json::from_js(&at);
        promise(&self.core, |core| async move {
            core.grab_frame(&video, at).await
        })
    }

    /// Removes a reference image from the project.
    #[wasm_bindgen(js_name = removeReference)]
    pub fn remove_reference(&self, id: String) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            core.remove_reference(&id).await
        })
    }

    /// Gives a reference image a role in the next job: `"first_frame"`, `"last_frame"`,
    /// `"reference"`, or `null` to detach it (`view("shot").roles` are those the model takes).
    #[wasm_bindgen(js_name = setRole)]
    pub fn set_role(&self, id: &str, role: Option<String>) -> Result<(), JsValue> {
        let role = role
            .map(|name| {
                ImageRole::from_name(&name).ok_or(CoreError::UnknownName { kind: "role", name })
            })
            .transpose()
            .map_err(js_error)?;
        self.core.set_role(id, role).map_err(js_error)
    }

    /// Extend: the next job continues from the last frame of a library video (file name) or
    /// finished job (id), at its size.
    #[wasm_bindgen(js_name = extendVideo)]
    pub fn extend_video(&self, video: &str) -> Result<(), JsValue> {
        self.core
            .use_video(video, VideoRole::Extend)
            .map_err(js_error)
    }

    /// Remix: the next job re-makes a library video or finished job with the new prompt.
    #[wasm_bindgen(js_name = remixVideo)]
    pub fn remix_video(&self, video: &str) -> Result<(), JsValue> {
        self.core
            .use_video(video, VideoRole::Remix)
            .map_err(js_error)
    }

    /// The next job no longer extends or remixes a video.
    #[wasm_bindgen(js_name = clearVideo)]
    pub fn clear_video(&self) {
        self.core.clear_video();
    }

    /// How images of another shape are fitted: `"crop"` (centre crop) or `"pad"`.
    #[wasm_bindgen(js_name = setFit)]
    pub fn set_fit(&self, fit: String) -> Result<(), JsValue> {
        let fit = Fit::from_name(&fit)
            .ok_or(CoreError::UnknownName {
                kind: "fit",
                name: fit,
            })
            .map_err(js_error)?;
        self.core.set_fit(fit);
        Ok(())
    }
}
