//! The job calls: create (one or several takes), status, save, list, cancel, remove; the
//! models offered and the spend.

use serde_json::{json, Value};

use super::*;
use crate::inputs::{Fit, Input};
use crate::platform::{LogLevel, Platform};

/// What a new job is made of; `None` leaves the choice to the server.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewJob {
    pub prompt: String,
    pub model: Option<String>,
    pub seconds: Option<Value>,
    pub size: Option<String>,
    /// Reference images in roles and a video to extend or remix (none: a prompt alone).
    pub inputs: Vec<Input>,
    pub fit: Option<Fit>,
}

impl<'a, P: Platform> Api<'a, P> {
    /// Creates a job from the prompt, and the model, seconds and size when given.
    /// Creates `job`, or with `takes` above 1 that many takes of it (`POST .../takes`): the
    /// jobs as answered, at least one.
    pub async fn create_jobs(
        &self,
        project_id: &str,
        job: &NewJob,
        takes: u32,
    ) -> Result<Vec<Value>, ApiError> {
        let mut body = json!({ "prompt": job.prompt });
        if let Some(model) = &job.model {
            body["model"] = json!(model);
        }
        if let Some(seconds) = &job.seconds {
            body["seconds"] = seconds.clone();
        }
        if let Some(size) = &job.size {
            body["size"] = json!(size);
        }
        if !job.inputs.is_empty() {
            body["inputs"] = json!(job.inputs);
        }
        if let Some(fit) = job.fit {
            body["fit"] = json!(fit);
        }
        let route = if takes > 1 {
            body["count"] = json!(takes);
            "takes"
        } else {
            "jobs"
        };
        let answer = self
            .call(
                "POST",
                self.url(&["projects", project_id, route]),
                Some(body),
            )
            .await
            .map_err(create_failure)?;
        let jobs = match answer.get("takes") {
            Some(Value::Array(takes)) if route == "takes" => takes.clone(),
            _ => vec![answer],
        };
        let named = |job: &Value| matches!(job.get("sora_job_id"), Some(Value::String(id)) if !id.is_empty());
        if jobs.is_empty() || !jobs.iter().all(named) {
            return Err(ApiError::CreateJob("Response has no sora_job_id".into()));
        }
        Ok(jobs)
    }

    /// A call on one job that answers the job as an object.
    async fn job_call(
        &self,
        method: &'static str,
        segments: &[&str],
        failed: fn(String) -> ApiError,
    ) -> Result<Value, ApiError> {
        let answer = self
            .call(method, self.url(segments), None)
            .await
            .map_err(|(text, _)| failed(text))?;
        answer
            .is_object()
            .then_some(answer)
            .ok_or_else(|| failed("Response is not an object".into()))
    }

    pub async fn get_job_status(&self, job_id: &str) -> Result<Value, ApiError> {
        self.job_call("GET", &["jobs", "sora", job_id], ApiError::GetJobStatus)
            .await
    }

    /// Saves a finished job to the project library and returns its `r2_key`.
    pub async fn save_job(
        &self,
        job_id: &str,
        project_id: &str,
        prompt: &str,
    ) -> Result<String, ApiError> {
        let body = json!({ "project_id": project_id, "prompt": prompt });
        let answer = self
            .call(
                "POST",
                self.url(&["jobs", "sora", job_id, "save"]),
                Some(body),
            )
            .await
            .map_err(|(text, body)| {
                self.platform.log(
                    LogLevel::Error,
                    &format!("Save failed for {job_id}: {body}"),
                );
                ApiError::SaveJob(text)
            })?;
        match answer.get("r2_key") {
            Some(Value::String(key)) if !key.is_empty() => Ok(key.clone()),
            _ => Err(ApiError::SaveJob("Response has no r2_key".into())),
        }
    }

    /// The jobs the server keeps for a project (each as a status answer), newest first.
    pub async fn list_jobs(&self, project_id: &str) -> Result<Vec<Value>, ApiError> {
        let answer = self
            .call("GET", self.url(&["projects", project_id, "jobs"]), None)
            .await
            .map_err(|(text, _)| ApiError::ListJobs(text))?;
        match answer.get("jobs") {
            Some(Value::Array(jobs)) => Ok(jobs.clone()),
            _ => Err(ApiError::ListJobs("Response has no jobs array".into())),
        }
    }

    /// Cancels a queued or running job; answers the job as it now is.
    pub async fn cancel_job(&self, job_id: &str) -> Result<Value, ApiError> {
        self.job_call(
            "POST",
            &["jobs", "sora", job_id, "cancel"],
            ApiError::CancelJob,
        )
        .await
    }

    /// Removes the server's record of a job (a saved video stays). A job the server does not
    /// know is already removed there.
    pub async fn remove_job(&self, job_id: &str) -> Result<(), ApiError> {
        self.delete(self.url(&["jobs", "sora", job_id]))
            .await
            .map_err(ApiError::RemoveJob)
    }

    /// The models the server offers, each with the inputs it takes.
    pub async fn get_models(&self) -> Result<Value, ApiError> {
        self.call("GET", self.url(&["models"]), None)
            .await
            .map_err(|(text, _)| ApiError::GetModels(text))
    }

    /// The project's review links with their notes, newest first.
    /// What the project spent in the last 30 days, by day and by model.
    pub async fn get_spend(&self, project_id: &str) -> Result<Value, ApiError> {
        self.call("GET", self.url(&["projects", project_id, "spend"]), None)
            .await
            .map_err(|(text, _)| ApiError::GetSpend(text))
    }
}
