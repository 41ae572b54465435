//! The review page a link opens (`/review/<token>`): the shared videos with what reviewers
//! said, and the reviewer's comments and decisions. It asks no bearer token and knows nothing
//! else of the studio: it is the whole of the review page's own small wasm (built with the
//! `review-page` feature), so a client opening a link never downloads the studio.

use std::cell::{Cell, RefCell};

use serde_json::Value;

use crate::api::review::{comment_body, decision_body};
use crate::api::{Api, ApiConfig, ApiError};
use crate::asset;
use crate::error::CoreError;
use crate::platform::{LogLevel, Platform};
use crate::review::{ReviewPage, Verdict};
use crate::snapshot::{CredentialsView, NotesView, ReviewState, ReviewVideoView, ReviewView};
use crate::time::{label, TimeStyle};

#[derive(Debug, Default)]
struct Review {
    token: Option<String>,
    page: Option<ReviewPage>,
    gone: bool,
    /// The name the reviewer gave last.
    name: String,
    sending: bool,
    error: Option<String>,
    /// The last post not known to be kept: what it said, and the client id it went with. The
    /// same post sent again (its answer was lost) goes with the same id, so the server keeps
    /// it once.
    attempt: Option<(String, String)>,
}

/// One review page: its link's token, what the server answered, and what is being sent.
pub struct ReviewSession<P: Platform> {
    platform: P,
    config: ApiConfig,
    state: RefCell<Review>,
    version: Cell<u64>,
    /// Told after each change.
    changed: Box<dyn Fn()>,
}

impl<P: Platform> ReviewSession<P> {
    /// A page whose API is at `api_base`; `changed` is called after each change.
    pub fn new(platform: P, api_base: &str, changed: Box<dyn Fn()>) -> Self {
        ReviewSession {
            platform,
            config: ApiConfig {
                api_base: api_base.to_owned(),
                token: String::new(),
                models: Vec::new(),
            },
            state: RefCell::default(),
            version: Cell::new(0),
            changed,
        }
    }

    pub fn platform(&self) -> &P {
        &self.platform
    }

    /// Grows by one with every change.
    pub fn version(&self) -> u64 {
        self.version.get()
    }

    /// Changes the state, then tells the host (never while the state is borrowed).
    fn write<R>(&self, change: impl FnOnce(&mut Review) -> R) -> R {
        let result = change(&mut self.state.borrow_mut());
        self.version.set(self.version.get() + 1);
        (self.changed)();
        result
    }

    fn read<R>(&self, look: impl FnOnce(&Review) -> R) -> R {
        look(&self.state.borrow())
    }

    fn api(&self) -> Api<'_, P> {
        Api::new(&self.platform, self.config.clone())
    }

    pub fn view(&self) -> ReviewView {
        let format = |millis, style| self.platform.format_time(millis, style);
        self.read(|r| ReviewView {
            state: match (&r.token, &r.page, r.gone) {
                (None, _, _) => ReviewState::Closed,
                (_, _, true) => ReviewState::Gone,
                (_, None, _) if r.error.is_some() => ReviewState::Failed,
                (_, None, _) => ReviewState::Loading,
                (_, Some(_), _) => ReviewState::Ready,
            },
            title: r.page.as_ref().and_then(|p| p.title.clone()),
            videos: r
                .page
                .iter()
                .flat_map(|p| &p.videos)
                .map(|v| ReviewVideoView {
                    file_name: v.file_name.clone(),
                    title: v
                        .title
                        .clone()
                        .unwrap_or_else(|| asset::title(&v.file_name)),
                    id: asset::title(&v.file_name),
                    url: v.public_url.clone(),
                    poster_url: v.poster_url.clone(),
                    notes: NotesView::new(&v.comments, &v.decisions, None, format),
                })
                .collect(),
            expires_label: r
                .page
                .as_ref()
                .map(|p| label(&p.expires_at, TimeStyle::DateTime, format))
                .unwrap_or_default(),
            comments_enabled: r.page.as_ref().is_some_and(|p| p.comments_enabled),
            name: r.name.clone(),
            sending: r.sending,
            error: r.error.clone(),
        })
    }

    /// Opens the review link with `token` (or reads it again); answers how many videos it
    /// shows.
    pub async fn open(&self, token: &str) -> Result<usize, CoreError> {
        if self.read(|r| r.token.as_deref() != Some(token)) {
            self.write(|r| {
                *r = Review {
                    token: Some(token.to_owned()),
                    name: std::mem::take(&mut r.name),
                    ..Review::default()
                }
            });
        } else {
            self.write(|r| r.error = None);
        }
        let outcome = self.api().open_review(token).await;
        if self.read(|r| r.token.as_deref() != Some(token)) {
            return Err(CoreError::Refused("Another review link was opened".into()));
        }
        match outcome {
            Ok(page) => {
                let count = page.videos.len();
                self.write(|r| {
                    r.page = Some(page);
                    r.gone = false;
                });
                Ok(count)
            }
            Err(e) => {
                let gone = matches!(e, ApiError::ReviewGone(_));
                self.platform.log(LogLevel::Warn, &e.to_string());
                self.write(|r| {
                    r.gone = gone;
                    r.error = Some(e.to_string());
                });
                Err(e.into())
            }
        }
    }

    /// A shared video's Content Credentials, as the server reads them.
    pub async fn read_credentials(&self, video: &str) -> Result<CredentialsView, CoreError> {
        let token = self.token()?;
        let report = self.api().review_credentials(&token, video).await?;
        Ok(CredentialsView::from_report(&report))
    }

    fn token(&self) -> Result<String, CoreError> {
        self.read(|r| r.token.clone())
            .ok_or_else(|| CoreError::Refused("No review link is open".into()))
    }

    /// Leaves a comment at `at_seconds` of a shared video, then shows the page again.
    pub async fn post_comment(
        &self,
        video: &str,
        at_seconds: f64,
        name: &str,
        text: &str,
    ) -> Result<(), CoreError> {
        let name = name.trim();
        let client = self.client_id(format!("comment\n{video}\n{name}\n{text}"));
        let body = comment_body(video, at_seconds, name, text, &client);
        self.send_note(name, "comments", body).await
    }

    /// The client id of a post saying `what`: the last one's when it said the same and is not
    /// known to be kept, else a new one.
    fn client_id(&self, what: String) -> String {
        if let Some((said, id)) = self.read(|r| r.attempt.clone()) {
            if said == what {
                return id;
            }
        }
        let id = self.platform.random_id();
        self.write(|r| r.attempt = Some((what, id.clone())));
        id
    }

    /// Approves a shared video or asks for changes, then shows the page again.
    pub async fn post_decision(
        &self,
        video: &str,
        verdict: Verdict,
        name: &str,
    ) -> Result<(), CoreError> {
        let name = name.trim();
        let client = self.client_id(format!("decision\n{video}\n{name}\n{}", verdict.name()));
        let body = decision_body(video, verdict, name, &client);
        self.send_note(name, "decisions", body).await
    }

    /// Sends a note once: `sending` stays on until the post and the page's reload have both
    /// settled, so a second click cannot post it again. A post that was kept is `Ok` even when
    /// the reload then fails (the page says "Posted; could not refresh"), so the text it sent
    /// is not offered for sending again.
    async fn send_note(&self, name: &str, kind: &str, body: Value) -> Result<(), CoreError> {
        let token = self.token()?;
        if self.read(|r| r.sending) {
            return Err(CoreError::Busy("Sending".into()));
        }
        self.write(|r| {
            r.sending = true;
            r.error = None;
            r.name = name.trim().to_owned();
        });
        if let Err(e) = self.api().post_note(&token, kind, body).await {
            // A link revoked or expired meanwhile: the page says so, and offers no form.
            let gone = matches!(e, ApiError::ReviewGone(_));
            self.write(|r| {
                r.sending = false;
                r.gone |= gone;
                r.error = Some(e.to_string());
            });
            return Err(e.into());
        }
        self.write(|r| r.attempt = None);
        let reloaded = match self.token() {
            Ok(token) => self.open(&token).await.map(drop),
            Err(e) => Err(e),
        };
        self.write(|r| {
            r.sending = false;
            if reloaded.is_err() && !r.gone {
                r.error = Some("Posted; could not refresh".into());
            }
        });
        Ok(())
    }
}
