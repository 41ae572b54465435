//! The shot slice: the project's reference images (uploaded or grabbed from its videos), the
//! roles they play in the next job, the video it extends or remixes, and how pictures of
//! another shape are fitted. The roles offered follow the chosen model's inputs.

use serde_json::{json, Value};

use super::{Core, Failure};
use crate::error::CoreError;
use crate::inputs::{self, Fit, ImageRole, Input, ModelInputs, Reference, VideoRole};
use crate::platform::{Body, LogLevel, Platform};
use crate::snapshot::{
    LineageImage, LineageView, ReferenceView, RoleChoice, ShotView, SourceVideoView,
};

/// The size the console's jobs are made at (the server's default size).
pub const JOB_SIZE: (u32, u32) = (1280, 720);

#[derive(Debug, Default)]
pub struct Shot {
    references: Vec<Reference>,
    /// Each offered model with the inputs it takes.
    models: Vec<(String, ModelInputs)>,
    /// Reference ids in roles for the next job.
    attached: Vec<(String, ImageRole)>,
    video: Option<(String, VideoRole)>,
    fit: Fit,
    /// Reference images being added, or waiting for their turn.
    adding: u64,
}

impl Shot {
    /// The next job's inputs, as its body writes them.
    fn inputs(&self) -> Vec<Input> {
        let images = self.attached.iter().map(|(id, role)| Input::Image {
            reference: id.clone(),
            role: *role,
        });
        let video = self.video.iter().map(|(name, role)| Input::Video {
            video: name.clone(),
            role: *role,
        });
        images.chain(video).collect()
    }
}

impl<P: Platform> Core<P> {
    /// The model new jobs use and the inputs it takes.
    fn chosen_inputs(&self) -> (String, ModelInputs) {
        let model = self.chosen_model();
        let takes = self.shot.read(|s| {
            s.models
                .iter()
                .find(|(id, _)| *id == model)
                .map(|(_, takes)| *takes)
                .unwrap_or_default()
        });
        (model, takes)
    }

    pub fn shot_view(&self) -> ShotView {
        let (_, takes) = self.chosen_inputs();
        self.shot.read(|s| {
            let role_of = |id: &str| s.attached.iter().find(|(a, _)| a == id).map(|(_, r)| *r);
            let sizes: Vec<(u32, u32)> = s
                .references
                .iter()
                .filter(|r| role_of(&r.id).is_some())
                .map(|r| (r.width, r.height))
                .collect();
            ShotView {
                references: s
                    .references
                    .iter()
                    .map(|r| ReferenceView {
                        id: r.id.clone(),
                        url: r.url.clone(),
                        width: r.width,
                        height: r.height,
                        origin: r.origin(),
                        role: role_of(&r.id),
                    })
                    .collect(),
                roles: ImageRole::ALL
                    .into_iter()
                    .filter(|role| takes.takes(*role))
                    .map(|role| RoleChoice {
                        role,
                        label: role.label().to_owned(),
                        most: takes.most(role),
                    })
                    .collect(),
                can_extend: takes.extend,
                can_remix: takes.remix,
                video: s.video.as_ref().map(|(name, role)| SourceVideoView {
                    name: name.clone(),
                    role: *role,
                    label: role.label().to_owned(),
                }),
                fit: s.fit,
                fit_note: inputs::fit_note(&sizes, JOB_SIZE.0, JOB_SIZE.1, s.fit),
                adding: s.adding > 0,
            }
        })
    }

    /// Reads what the project's shots can be made from: the models' inputs, the project's
    /// reference images, and its cast's names (the prompt offers them as `@Name` is typed).
    /// A failure leaves the strip empty and is logged.
    pub async fn load_shot(&self) -> Result<usize, CoreError> {
        let visit = self.visit()?;
        let models = self.api().get_models().await;
        let references = self.api().list_references(&visit.project).await;
        let cast = self.api().cast_names(&visit.project).await;
        if !self.still(&visit) {
            return Ok(0);
        }
        self.keep_cast(cast);
        if let Ok(answer) = &models {
            self.set_offers(answer);
            let models = inputs::parse_models(answer);
            self.write(&self.shot, |s| s.models = models);
        }
        let loaded = models.map(|_| ()).and(references).map_err(CoreError::from);
        match loaded {
            Ok(references) => {
                let count = references.len();
                self.write(&self.shot, |s| s.references = references);
                Ok(count)
            }
            Err(e) => {
                self.log(LogLevel::Warn, &e.to_string());
                Err(e)
            }
        }
    }

    /// Adds an uploaded picture (the file and its content type) to the project's references.
    pub async fn upload_reference(
        &self,
        bytes: crate::platform::FileBytes,
        content_type: &str,
    ) -> Result<String, CoreError> {
        let body = Body::File {
            bytes,
            content_type: content_type.to_owned(),
        };
        self.add_reference(body).await
    }

    /// Grabs a frame of a library video (its file name) or a finished job (its id): `at` is
    /// `"first"`, `"last"` or seconds from the start.
    pub async fn grab_frame(&self, video: &str, at: Value) -> Result<String, CoreError> {
        let at = match at {
            Value::String(named) if named == "first" || named == "last" => json!(named),
            Value::Number(seconds) if seconds.as_f64().is_some_and(|s| s >= 0.0) => {
                json!(seconds)
            }
            other => return Err(CoreError::BadMoment(crate::json::text(&other))),
        };
        let body = Body::Json(crate::json::text(&json!({ "from_video": video, "at": at })));
        self.add_reference(body).await
    }

    /// Adds a reference image once those asked for before it are added.
    async fn add_reference(&self, body: Body) -> Result<String, CoreError> {
        let visit = self.visit()?;
        self.write(&self.shot, |s| s.adding += 1);
        let turn = self.reference_turns.take().await;
        let added = self.api().add_reference(&visit.project, body).await;
        drop(turn);
        self.write(&self.shot, |s| s.adding -= 1);
        if !self.still(&visit) {
            return added.map(|r| r.id).map_err(CoreError::from);
        }
        match added {
            Ok(reference) => {
                let id = reference.id.clone();
                self.clear_banner(|f| matches!(f, Failure::Reference(_)));
                self.write(&self.shot, |s| s.references.insert(0, reference));
                Ok(id)
            }
            Err(e) => {
                let e = CoreError::from(e);
                self.fail(Failure::Reference(e.clone()));
                self.log(LogLevel::Error, &e.to_string());
                Err(e)
            }
        }
    }

    /// Removes a reference image from the project (jobs made from it keep what they made).
    pub async fn remove_reference(&self, id: &str) -> Result<(), CoreError> {
        let visit = self.visit()?;
        if !self.shot.read(|s| s.references.iter().any(|r| r.id == id)) {
            return Err(CoreError::UnknownReference(id.to_owned()));
        }
        let removed = self.api().remove_reference(&visit.project, id).await;
        if !self.still(&visit) {
            return removed.map_err(CoreError::from);
        }
        match removed {
            Ok(()) => {
                self.write(&self.shot, |s| {
                    s.references.retain(|r| r.id != id);
                    s.attached.retain(|(a, _)| a != id);
                });
                Ok(())
            }
            Err(e) => {
                let e = CoreError::from(e);
                self.fail(Failure::Reference(e.clone()));
                Err(e)
            }
        }
    }

    /// Gives a reference image a role in the next job (`None` detaches it). A first or last
    /// frame replaces the one before; a role the model does not take is refused.
    pub fn set_role(&self, id: &str, role: Option<ImageRole>) -> Result<(), CoreError> {
        if !self.shot.read(|s| s.references.iter().any(|r| r.id == id)) {
            return Err(CoreError::UnknownReference(id.to_owned()));
        }
        let (model, takes) = self.chosen_inputs();
        let mut attached = self.shot.read(|s| s.attached.clone());
        inputs::attach(&mut attached, &takes, &model, id, role).map_err(CoreError::Refused)?;
        self.write(&self.shot, |s| s.attached = attached);
        Ok(())
    }

    /// Makes the next job extend or remix a library video (file name) or finished job (id).
    pub fn use_video(&self, name: &str, role: VideoRole) -> Result<(), CoreError> {
        let (model, takes) = self.chosen_inputs();
        if !takes.takes_video(role) {
            return Err(CoreError::Refused(format!(
                "{model} does not {}",
                role.words()
            )));
        }
        self.write(&self.shot, |s| s.video = Some((name.to_owned(), role)));
        Ok(())
    }

    /// The next job is made from the prompt and images alone again.
    pub fn clear_video(&self) {
        if self.shot.read(|s| s.video.is_some()) {
            self.write(&self.shot, |s| s.video = None);
        }
    }

    pub fn set_fit(&self, fit: Fit) {
        self.write(&self.shot, |s| s.fit = fit);
    }

    /// What the next job is made from, and how images are fitted (sent only when chosen).
    pub(super) fn shot_inputs(&self) -> (Vec<Input>, Option<Fit>) {
        self.shot.read(|s| {
            let inputs = s.inputs();
            let fit = (s.fit != Fit::default()).then_some(s.fit);
            (inputs, fit)
        })
    }

    /// After a job was made from them, the roles and the video are cleared; the project's
    /// references stay in the strip.
    pub(super) fn shot_used(&self) {
        if self
            .shot
            .read(|s| !s.attached.is_empty() || s.video.is_some())
        {
            self.write(&self.shot, |s| {
                s.attached.clear();
                s.video = None;
            });
        }
    }

    /// After the model changed: roles it does not take are dropped.
    pub(super) fn shot_model_changed(&self) {
        let (model, takes) = self.chosen_inputs();
        let kept = self.shot.read(|s| {
            let mut kept = Vec::new();
            for (id, role) in &s.attached {
                let _ = inputs::attach(&mut kept, &takes, &model, id, Some(*role));
            }
            kept
        });
        self.write(&self.shot, |s| {
            s.attached = kept;
            if s.video
                .as_ref()
                .is_some_and(|(_, role)| !takes.takes_video(*role))
            {
                s.video = None;
            }
        });
    }

    /// What a saved video was made from, from its metadata.
    pub(super) fn lineage(&self, metadata: &Value) -> Option<LineageView> {
        let inputs = Input::list(metadata.get("inputs"));
        if inputs.is_empty() {
            return None;
        }
        let url_of = |id: &str| {
            self.shot.read(|s| {
                s.references
                    .iter()
                    .find(|r| r.id == id)
                    .map(|r| r.url.clone())
            })
        };
        let mut view = LineageView {
            parent: None,
            parent_role: None,
            images: Vec::new(),
            fit: metadata
                .get("fit")
                .and_then(Value::as_str)
                .and_then(Fit::from_name),
        };
        for input in inputs {
            match input {
                Input::Image { reference, role } => view.images.push(LineageImage {
                    url: url_of(&reference),
                    reference,
                    role: role.label().to_owned(),
                }),
                Input::Video { video, role } => {
                    view.parent = Some(video);
                    view.parent_role = Some(role.label().to_owned());
                }
            }
        }
        Some(view)
    }
}
