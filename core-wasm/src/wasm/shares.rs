//! What leaves the studio: review links to the selection (made, listed, revoked) and the
//! selection's ZIP download.

use wasm_bindgen::prelude::*;

use super::{promise, Studio};

#[wasm_bindgen]
impl Studio {
    /// Makes a review link to the selected videos, with the title its page shows when one is
    /// given: `{id, url, expiresLabel}`; the url (with its token) is shown only this once.
    #[wasm_bindgen(js_name = shareSelected)]
    pub fn share_selected(
        &self,
        expires_in_hours: u32,
        comments: bool,
        title: Option<String>,
    ) -> js_sys::Promise {
        promise(&self.core, |core| async move {
            core.share_selected(expires_in_hours, comments, title.as_deref())
                .await
        })
    }

    /// Downloads the selected videos with their metadata as one ZIP.
    #[wasm_bindgen(js_name = downloadSelected)]
    pub fn download_selected(&self) -> js_sys::Promise {
        promise(
            &self.core,
            |core| async move { core.download_selected().await },
        )
    }

    /// Loads the project's review links with their comments and decisions.
    #[wasm_bindgen(js_name = loadShares)]
    pub fn load_shares(&self) -> js_sys::Promise {
        promise(&self.core, |core| async move { core.load_shares().await })
    }

    /// Revokes a review link by its id.
    #[wasm_bindgen(js_name = revokeShare)]
    pub fn revoke_share(&self, id: String) -> js_sys::Promise {
        promise(
            &self.core,
            |core| async move { core.revoke_share(&id).await },
        )
    }
}
