//! The client's state machine, in slices: recent projects, the banner, the console (project,
//! prompt, model), jobs, the asset library and the metadata modal. Each slice has its own
//! state, commands (in its own module), view and version; a command changes only the slices
//! it must, and the host is told which part changed after each change, with no borrow held,
//! so a subscriber may call straight back in.

mod banner;
mod changes;
mod compare;
mod console;
mod jobs;
mod library;
mod mentions;
mod metadata;
mod recent;
mod shares;
mod shot;
mod slice;
mod spend;
mod turns;

use std::cell::{Cell, RefCell};

pub use crate::part::Part;
pub use banner::*;
pub use shares::MAX_SHARED;
pub use shot::JOB_SIZE;

use crate::api::{Api, ApiConfig};
use crate::error::CoreError;
use crate::platform::{HttpRequest, LogLevel, Platform};
use crate::snapshot::Snapshot;
use crate::time::TimeStyle;
use slice::Slice;

/// The platform's time in Unix milliseconds.
fn now_millis(platform: &impl Platform) -> i64 {
    crate::time::parse_iso_millis(&platform.now_iso()).unwrap_or(0)
}

/// One visit of a project's dashboard. An answer that arrives after the visit ended (the
/// user left, or came back since) changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visit {
    pub project: String,
    epoch: u64,
}

pub struct Core<P: Platform> {
    platform: P,
    config: RefCell<ApiConfig>,
    /// Grows with every change of any part.
    version: Cell<u64>,
    /// Grows with every entered or left project.
    epoch: Cell<u64>,
    /// Above this estimate (USD) Generate asks first.
    confirm_above: Cell<f64>,
    recent: Slice<Vec<String>>,
    banner: Slice<Option<Failure>>,
    console: Slice<console::Console>,
    jobs: Slice<jobs::Jobs>,
    library: Slice<library::Library>,
    cards: Slice<library::Cards>,
    metadata: Slice<metadata::Metadata>,
    shot: Slice<shot::Shot>,
    compare: Slice<compare::Compare>,
    shares: Slice<shares::Shares>,
    spend: Slice<spend::Spend>,
    /// Reference images are added one at a time, in the order asked.
    reference_turns: turns::Turns,
}

impl<P: Platform> Core<P> {
    /// Creates the core and reads the recent projects list.
    pub fn new(platform: P) -> Self {
        let core = Core {
            platform,
            config: RefCell::default(),
            version: Cell::new(0),
            epoch: Cell::new(0),
            confirm_above: Cell::new(console::CONFIRM_ABOVE_USD),
            recent: Slice::new(Part::Recent),
            banner: Slice::new(Part::Banner),
            console: Slice::new(Part::Console),
            jobs: Slice::new(Part::Jobs),
            library: Slice::new(Part::Library),
            cards: Slice::new(Part::Cards),
            metadata: Slice::new(Part::Metadata),
            shot: Slice::new(Part::Shot),
            compare: Slice::new(Part::Compare),
            shares: Slice::new(Part::Shares),
            spend: Slice::new(Part::Spend),
            reference_turns: turns::Turns::default(),
        };
        core.load_recent();
        core
    }

    pub fn platform(&self) -> &P {
        &self.platform
    }

    /// Grows by one with every change.
    pub fn version(&self) -> u64 {
        self.version.get()
    }

    /// Grows by one with every change of `part`.
    pub fn part_version(&self, part: Part) -> u64 {
        match part {
            Part::Recent => self.recent.version(),
            Part::Banner => self.banner.version(),
            Part::Console => self.console.version(),
            Part::Jobs => self.jobs.version(),
            Part::Library => self.library.version(),
            Part::Cards => self.library.version() + self.cards.version(),
            Part::Metadata => self.metadata.version(),
            Part::Shot => self.shot.version(),
            Part::Compare => self.compare.version(),
            Part::Shares => self.shares.version(),
            Part::Spend => self.spend.version(),
        }
    }

    /// Changes one slice, then tells the host (the borrow is released first).
    fn write<S, R>(&self, slice: &Slice<S>, change: impl FnOnce(&mut S) -> R) -> R {
        let result = slice.write(change);
        self.changed(slice.part);
        result
    }

    /// Counts a change and tells the host; out of line, so that each of the many `write`s
    /// (one copy per closure) carries only its change.
    #[inline(never)]
    fn changed(&self, part: Part) {
        self.version.set(self.version.get() + 1);
        self.platform.notify(part);
    }

    fn api(&self) -> Api<'_, P> {
        Api::new(&self.platform, self.config())
    }

    fn log(&self, level: LogLevel, message: &str) {
        self.platform.log(level, message);
    }

    pub fn config(&self) -> ApiConfig {
        self.config.borrow().clone()
    }

    pub fn configure(&self, config: ApiConfig) {
        *self.config.borrow_mut() = config;
        // The console view shows the configured models, the shot view the chosen one's inputs.
        self.write(&self.console, |_| ());
        self.write(&self.shot, |_| ());
    }

    /// Loads the runtime configuration (`{apiBase, token}`) that the page is served with.
    pub async fn load_config(&self, url: &str) -> Result<ApiConfig, CoreError> {
        let failed = |reason: String| CoreError::Config {
            url: url.to_owned(),
            reason,
        };
        let response = self
            .platform
            .fetch(HttpRequest::get(url))
            .await
            .map_err(failed)?;
        if !response.ok() {
            return Err(failed(response.status.to_string()));
        }
        let config: ApiConfig = crate::json::parse(&response.body)
            .ok_or_else(|| failed("Invalid JSON in response".to_owned()))
            .and_then(|value| ApiConfig::from_value(&value).map_err(failed))?;
        self.configure(config.clone());
        Ok(config)
    }

    // ----- the banner -----

    /// Shows a failure in the banner (it replaces what was shown).
    fn fail(&self, failure: Failure) {
        self.write(&self.banner, |b| *b = Some(failure));
    }

    /// Clears the banner when it shows a failure `matches` picks.
    fn clear_banner(&self, matches: impl Fn(&Failure) -> bool) {
        if self.banner.read(|b| b.as_ref().is_some_and(&matches)) {
            self.write(&self.banner, |b| *b = None);
        }
    }

    pub fn dismiss_banner(&self) {
        self.clear_banner(|_| true);
    }

    // ----- visits -----

    /// The visit of the project shown now.
    fn visit(&self) -> Result<Visit, CoreError> {
        let project = self
            .console
            .read(|c| c.project.clone())
            .ok_or(CoreError::NoProject)?;
        Ok(Visit {
            project,
            epoch: self.epoch.get(),
        })
    }

    /// Whether the dashboard still shows this visit.
    fn still(&self, visit: &Visit) -> bool {
        self.epoch.get() == visit.epoch
    }

    /// Shows a project's dashboard: reads its jobs; the caller then loads its assets.
    pub fn enter_project(&self, project: &str) {
        self.epoch.set(self.epoch.get() + 1);
        let problem = self.reset_jobs(Some(project));
        self.write(&self.banner, |b| *b = problem.map(Failure::Storage));
        self.reset_library();
        self.write(&self.metadata, |m| *m = metadata::Metadata::default());
        self.write(&self.shot, |s| *s = shot::Shot::default());
        self.reset_compare();
        self.reset_shares();
        self.reset_spend();
        self.write(&self.console, |c| *c = console::Console::new(project));
    }

    pub fn leave_project(&self) {
        self.epoch.set(self.epoch.get() + 1);
        self.reset_jobs(None);
        self.write(&self.banner, |b| *b = None);
        self.reset_library();
        self.write(&self.metadata, |m| *m = metadata::Metadata::default());
        self.write(&self.shot, |s| *s = shot::Shot::default());
        self.reset_compare();
        self.reset_shares();
        self.reset_spend();
        self.write(&self.console, |c| *c = console::Console::default());
    }

    // ----- views -----

    /// A moment as the viewer reads it. Intl formatting calls into JS under a slice's borrow;
    /// it cannot call back into the core, so the borrow is safe.
    fn format(&self) -> impl Fn(i64, TimeStyle) -> String + '_ {
        |millis, style| self.platform.format_time(millis, style)
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            version: self.version(),
            recent: self.recent_view(),
            banner: self.banner_view(),
            console: self.console_view(),
            jobs: self.jobs_view(),
            library: self.library_view(),
            cards: self.cards_view(),
            metadata: self.metadata_view(),
            shot: self.shot_view(),
            compare: self.compare_view(),
            shares: self.shares_view(),
            spend: self.spend_view(),
        }
    }

    pub fn banner_view(&self) -> Option<crate::snapshot::Banner> {
        self.banner.read(|b| b.as_ref().map(Failure::banner))
    }

    /// One part's view as plain data (for hosts that hand views on by part).
    pub fn view_value(&self, part: Part) -> serde_json::Value {
        let value = match part {
            Part::Recent => serde_json::to_value(self.recent_view()),
            Part::Banner => serde_json::to_value(self.banner_view()),
            Part::Console => serde_json::to_value(self.console_view()),
            Part::Jobs => serde_json::to_value(self.jobs_view()),
            Part::Library => serde_json::to_value(self.library_view()),
            Part::Cards => serde_json::to_value(self.cards_view()),
            Part::Metadata => serde_json::to_value(self.metadata_view()),
            Part::Shot => serde_json::to_value(self.shot_view()),
            Part::Compare => serde_json::to_value(self.compare_view()),
            Part::Shares => serde_json::to_value(self.shares_view()),
            Part::Spend => serde_json::to_value(self.spend_view()),
        };
        value.unwrap_or_default()
    }
}
