//! The Recent Projects slice: the list kept under `recent-projects`, and opening a project.

use super::{Core, Failure};
use crate::constants::RECENT_KEY;
use crate::platform::{LogLevel, Platform};
use crate::{project_id, recent, store};

impl<P: Platform> Core<P> {
    pub(super) fn load_recent(&self) {
        let loaded = store::load(&self.platform, RECENT_KEY, "recent projects", |id| {
            id.as_str()
                .filter(|id| project_id::is_valid(id))
                .map(str::to_owned)
        });
        if let Some(problem) = &loaded.problem {
            self.log(LogLevel::Warn, problem);
        }
        self.write(&self.recent, |r| *r = loaded.items);
        if let Some(problem) = loaded.problem {
            self.fail(Failure::Storage(problem));
        }
    }

    pub fn recent_view(&self) -> Vec<String> {
        self.recent.read(Vec::clone)
    }

    fn remember(&self, project: &str) {
        let list = recent::push(&self.recent_view(), project);
        let problem = store::save(&self.platform, RECENT_KEY, &list).err();
        self.write(&self.recent, |r| *r = list);
        if let Some(e) = problem {
            self.fail(Failure::Storage(e.to_string()));
        }
    }

    /// Cleans the typed id, puts it at the front of the recent list and returns it; `None`
    /// when the text makes no valid id.
    pub fn open_project(&self, raw: &str) -> Option<String> {
        let id = project_id::clean(raw)?;
        self.remember(&id);
        Some(id)
    }

    /// Opens a recent project as it is (no cleaning); `None` when it is not a valid id.
    pub fn open_recent(&self, id: &str) -> Option<String> {
        project_id::is_valid(id).then(|| {
            self.remember(id);
            id.to_owned()
        })
    }
}
