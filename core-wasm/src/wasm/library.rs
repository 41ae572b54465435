//! The library's commands: loading, searching, sorting and filtering it, the card window,
//! favourites and decisions, deletion, metadata, the selection and compare.

use wasm_bindgen::prelude::*;

use super::{js_error, promise, Studio};
use crate::asset::Decision;
use crate::error::CoreError;
use crate::snapshot::PickFilter;

#[wasm_bindgen]
impl Studio {
    /// Reloads the Asset Library; resolves with the number of videos.
    #[wasm_bindgen(js_name = loadAssets)]
    pub fn load_assets(&self) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.load_assets().await })
    }

    /// Shows only the library videos whose title, file name or prompt contains `query`.
    #[wasm_bindgen(js_name = searchLibrary)]
    pub fn search_library(&self, query: &str) {
        self.core.search_library(query);
    }

    /// Holds the matching library videos at positions `first` to `end` (not included) in
    /// `view("cards")`: the grid asks for the rows it shows as it scrolls.
    #[wasm_bindgen(js_name = showLibraryCards)]
    pub fn show_library_cards(&self, first: u32, end: u32) {
        self.core.show_library_cards(first as usize, end as usize);
    }

    /// Orders the library: `"newest"`, `"oldest"` or `"largest"`.
    #[wasm_bindgen(js_name = sortLibrary)]
    pub fn sort_library(&self, sort: &str) -> Result<(), JsValue> {
        let sort = sort
            .parse()
            .map_err(|()| CoreError::UnknownSort(sort.to_owned()))
            .map_err(js_error)?;
        self.core.sort_library(sort);
        Ok(())
    }

    /// Shows every library video (`"all"`) or only the `"favourites"`, `"approved"` or
    /// `"rejected"` ones.
    #[wasm_bindgen(js_name = filterLibrary)]
    pub fn filter_library(&self, filter: String) -> Result<(), JsValue> {
        let filter = PickFilter::from_name(&filter)
            .ok_or(CoreError::UnknownName {
                kind: "filter",
                name: filter,
            })
            .map_err(js_error)?;
        self.core.filter_library(filter);
        Ok(())
    }

    /// Stars (`true`) or un-stars a saved video by its key.
    #[wasm_bindgen(js_name = setFavourite)]
    pub fn set_favourite(&self, key: String, favourite: bool) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            core.pick_asset(&key, Some(favourite), None).await
        })
    }

    /// Approves (`"approved"`), rejects (`"rejected"`) or clears (`null`) a saved video.
    #[wasm_bindgen(js_name = setDecision)]
    pub fn set_decision(&self, key: String, decision: Option<String>) -> js_sys::Promise {
        let decision = match decision {
            None => Ok(None),
            Some(name) => Decision::from_name(&name)
                .map(Some)
                .ok_or(CoreError::UnknownName {
                    kind: "decision",
                    name,
                }),
        };
        promise(&self.core, |core| async move {
            core.pick_asset(&key, None, Some(decision?)).await
        })
    }

    /// Deletes a saved video (its metadata and poster too) by its key.
    #[wasm_bindgen(js_name = deleteAsset)]
    pub fn delete_asset(&self, key: String) -> js_sys::Promise {
        promise(
            &self.core,
            |core| async move { core.delete_asset(&key).await },
        )
    }

    /// Opens the Video Metadata modal for an asset key.
    #[wasm_bindgen(js_name = openMetadata)]
    pub fn open_metadata(&self, key: String) -> js_sys::Promise {
        promise(
            &self.core,
            |core| async move { core.open_metadata(&key).await },
        )
    }

    #[wasm_bindgen(js_name = closeMetadata)]
    pub fn close_metadata(&self) {
        self.core.close_metadata();
    }

    /// Selects a saved video (by key) to share, or takes it out of the selection.
    #[wasm_bindgen(js_name = toggleSelect)]
    pub fn toggle_select(&self, key: &str) -> Result<(), JsValue> {
        self.core.toggle_select(key).map_err(js_error)
    }

    #[wasm_bindgen(js_name = clearSelection)]
    pub fn clear_selection(&self) {
        self.core.clear_selection();
    }

    /// Adds a video to Compare, or takes it out: a saved video's key or a finished job's id
    /// (2 to 4 are compared; `view("compare")`).
    #[wasm_bindgen(js_name = toggleCompare)]
    pub fn toggle_compare(&self, id: &str) -> Result<(), JsValue> {
        self.core.toggle_compare(id).map_err(js_error)
    }

    /// Shows the chosen videos side by side.
    #[wasm_bindgen(js_name = openCompare)]
    pub fn open_compare(&self) -> Result<(), JsValue> {
        self.core.open_compare().map_err(js_error)
    }

    /// Closes Compare; with `clear`, the chosen videos are forgotten too.
    #[wasm_bindgen(js_name = closeCompare)]
    pub fn close_compare(&self, clear: bool) {
        self.core.close_compare(clear);
    }
}
