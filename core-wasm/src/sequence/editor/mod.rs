//! The sequence editor's state: the version the server last confirmed, the edits made on it
//! and not saved yet, the undo and redo history, and after a refused save (409: someone else
//! changed it first) the local edits kept aside until the editor applies them again on top of
//! the other change or lets them go.
//!
//! A save sends the whole sequence as it now stands, from the confirmed version. Edits made
//! while it is on its way stay unsaved on top of the answer.

use serde::Serialize;

use super::edit::{apply, Edit, EditError};
use super::{Sequence, Shot};

/// The most edits undone.
const HISTORY: usize = 200;

/// What the page shows of the editor.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EditorView {
    /// The sequence as edited.
    pub sequence: Sequence,
    #[cfg_attr(test, ts(type = "number"))]
    pub frames: u64,
    pub can_undo: bool,
    pub can_redo: bool,
    /// Edits not confirmed by the server yet.
    pub unsaved: bool,
    /// A save was refused because the sequence changed elsewhere: how many local edits wait
    /// to be applied again on top of that change.
    pub kept_aside: usize,
}

/// What the Sequence panel shows: the project's sequences, the one open, whether a save is on
/// its way, the last failure, and the export last started.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PanelView {
    pub sequences: Vec<super::client::Summary>,
    pub editor: Option<EditorView>,
    pub saving: bool,
    pub error: Option<String>,
    /// What the last export or continue started, in words.
    pub notice: Option<String>,
    /// The shots' takes found in the library so far, by file name.
    pub videos: std::collections::BTreeMap<String, super::client::Video>,
    /// The name of the sequence open here that was removed elsewhere: its edits may be kept as
    /// a new sequence.
    pub removed: Option<String>,
    /// The last move, removal, undo or redo, in words (one polite live region says it).
    pub announcement: Option<String>,
    /// The project's cast, once asked for, and the pictures it may be given.
    pub cast: Vec<super::board::CastMember>,
    pub pictures: Vec<super::board::Picture>,
    /// What Generate all would make and cost, asked for and not started yet.
    pub estimate: Option<super::board::Estimate>,
    /// The models Generate all may use, read when it is first asked for.
    pub models: Vec<super::board::GenerateModel>,
    /// The takes being made for the open sequence's shots, by shot id.
    pub making: std::collections::BTreeMap<String, Vec<super::making::ShotJob>>,
    /// The project's sounds, once asked for (newest first).
    pub sounds: Vec<super::sounds::Sound>,
}

/// What a continued shot's take is made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continued {
    /// The library video it continues.
    pub from: String,
    pub prompt: String,
}

#[derive(Debug, Clone)]
pub struct Editor {
    saved: Sequence,
    current: Sequence,
    /// Applied on `saved`, these make `current`.
    unsaved: Vec<Edit>,
    /// How many of `unsaved` the save on its way holds.
    sending: usize,
    /// Each edit done, as the edit that undoes it (and what the edit left).
    done: Vec<Step>,
    /// Each edit undone, as the edit that makes it again (and what the undo left).
    undone: Vec<Step>,
    /// What the last undo or redo did not do, because someone changed what it would change.
    dropped: Option<String>,
    /// Another editor's change that arrived while a save was on its way: taken once it has
    /// settled, unless the save's answer is newer.
    waiting: Option<Sequence>,
    /// The local edits a refused save kept aside.
    aside: Vec<Edit>,
    /// The last save was refused (a 4xx), or did not arrive and waits to be tried again:
    /// nothing is sent until the next edit or `resume`, so a save is never sent twice in a
    /// row without a new edit or a wait.
    stalled: bool,
}

/// An entry of the undo (or redo) history: the edit to make, and what the edit it reverses
/// left of its shot (the shot, where it stood, or that it was gone), which must still hold
/// for the entry to apply: an undo never overwrites a change someone else made since.
#[derive(Debug, Clone)]
struct Step {
    edit: Edit,
    target: String,
    left: Option<(usize, Shot)>,
    /// The shot's label, to name it.
    label: String,
}

impl Step {
    fn new(edit: Edit, sequence: &Sequence, target: String) -> Step {
        let left = trace(sequence, &target);
        let label = match &left {
            Some((_, shot)) => shot.label.clone(),
            // An edit of the sequence's own settings.
            None if target.is_empty() => edit.setting().to_owned(),
            None => target.clone(),
        };
        Step {
            edit,
            target,
            left,
            label,
        }
    }

    fn holds(&self, sequence: &Sequence) -> bool {
        trace(sequence, &self.target) == self.left
    }
}

/// Shot `id` of `sequence` and where it stands, or `None` when it is not there.
fn trace(sequence: &Sequence, id: &str) -> Option<(usize, Shot)> {
    let at = sequence.position(id)?;
    Some((at, sequence.shots[at].clone()))
}

impl Editor {
    pub fn new(sequence: Sequence) -> Editor {
        Editor {
            current: sequence.clone(),
            saved: sequence,
            unsaved: Vec::new(),
            sending: 0,
            done: Vec::new(),
            undone: Vec::new(),
            dropped: None,
            waiting: None,
            aside: Vec::new(),
            stalled: false,
        }
    }

    pub fn current(&self) -> &Sequence {
        &self.current
    }

    pub fn view(&self) -> EditorView {
        EditorView {
            sequence: self.current.clone(),
            frames: self.current.frames(),
            can_undo: !self.done.is_empty(),
            can_redo: !self.undone.is_empty(),
            unsaved: !self.unsaved.is_empty(),
            kept_aside: self.aside.len(),
        }
    }

    fn record(&mut self, edit: Edit) -> Result<Edit, EditError> {
        let undo = apply(&mut self.current, &edit)?;
        self.unsaved.push(edit);
        self.stalled = false;
        Ok(undo)
    }

    /// Makes `edit`; a new edit clears what was undone. An edit that changes nothing (Tab
    /// through In and Out) is no edit: no undo entry, nothing to save.
    pub fn edit(&mut self, edit: Edit) -> Result<(), EditError> {
        let mut after = self.current.clone();
        let undo = apply(&mut after, &edit)?;
        if after == self.current {
            return Ok(());
        }
        let target = edit.shot_id().to_owned();
        self.current = after;
        self.unsaved.push(edit);
        self.stalled = false;
        self.done.push(Step::new(undo, &self.current, target));
        if self.done.len() > HISTORY {
            self.done.remove(0);
        }
        self.undone.clear();
        Ok(())
    }

    /// "Continue" on shot `after`: a new shot `id` right after it, with no take yet, as long
    /// and with the same prompt, made (and undone) like any edit. What the new shot's take is
    /// made from: the video `after` shows and the prompt.
    pub fn continue_after(&mut self, after: &str, id: String) -> Result<Continued, EditError> {
        let sequence = &self.current;
        let at = sequence
            .position(after)
            .ok_or_else(|| EditError::NoShot(after.to_owned()))?;
        let before = &sequence.shots[at];
        let from = before
            .take
            .clone()
            .ok_or_else(|| EditError::NoTake(before.label.clone()))?;
        let prompt = before
            .prompt
            .clone()
            .unwrap_or_else(|| before.label.clone());
        let label = format!("Shot {}", sequence.shots.len() + 1);
        let shot = Shot::new(
            id,
            label,
            Some(prompt.clone()),
            None,
            before.frames().max(1),
        );
        self.edit(Edit::Insert {
            index: at + 1,
            shot,
        })?;
        Ok(Continued { from, prompt })
    }

    /// Undoes the last edit (an edit of its own, saved like any): the label of the shot it
    /// changed; `None` when there is none, when it no longer applies (its shot was removed
    /// elsewhere), or when someone else changed what it would change back since (their change
    /// is kept; `take_dropped` says which).
    pub fn undo(&mut self) -> Option<String> {
        let step = self.done.pop()?;
        let redo = self.step(step)?;
        let label = redo.label.clone();
        self.undone.push(redo);
        Some(label)
    }

    /// Makes again the last edit undone, on the same terms as `undo`.
    pub fn redo(&mut self) -> Option<String> {
        let step = self.undone.pop()?;
        let undo = self.step(step)?;
        let label = undo.label.clone();
        self.done.push(undo);
        Some(label)
    }

    /// Applies `step`'s edit while what its edit left still holds: the step that reverses it.
    fn step(&mut self, step: Step) -> Option<Step> {
        if !step.holds(&self.current) {
            self.dropped = Some(format!(
                "{} was changed elsewhere since: that step was not undone or redone, and their change stays.",
                step.label
            ));
            return None;
        }
        let reverse = self.record(step.edit).ok()?;
        let mut reverse = Step::new(reverse, &self.current, step.target);
        // A shot the step removed is named as it was.
        if reverse.left.is_none() {
            reverse.label = step.label;
        }
        Some(reverse)
    }

    /// What the last undo or redo did not do, once.
    pub fn take_dropped(&mut self) -> Option<String> {
        self.dropped.take()
    }

    /// The PUT body to send now: the whole sequence from the confirmed version, when there
    /// are unsaved edits and no save on its way or refused.
    pub fn to_save(&mut self) -> Option<serde_json::Value> {
        if self.unsaved.is_empty() || self.sending > 0 || !self.aside.is_empty() || self.stalled {
            return None;
        }
        self.sending = self.unsaved.len();
        let mut change = self.current.clone();
        change.version = self.saved.version;
        Some(change.to_change())
    }

    /// The save was taken: `answer` is the sequence at its new version. Edits made meanwhile
    /// stay unsaved on top of it.
    pub fn saved(&mut self, answer: Sequence) {
        self.unsaved.drain(..self.sending.min(self.unsaved.len()));
        self.sending = 0;
        self.rebase(answer);
        self.take_waiting();
    }

    /// The save did not arrive (network, server error) or was refused for what it holds (a
    /// 4xx: an Out past the take's end): the edits stay unsaved, and nothing is sent again
    /// until the next edit or `resume`.
    pub fn not_sent(&mut self) {
        self.sending = 0;
        self.stalled = true;
        self.take_waiting();
    }

    /// The wait after a save that did not arrive is over: the unsaved edits may be sent.
    pub fn resume(&mut self) {
        self.stalled = false;
    }

    /// The save was refused: the sequence changed elsewhere, to `theirs`. It is shown as it is
    /// now, and every local edit not saved is kept aside.
    pub fn refused(&mut self, theirs: Sequence) {
        self.aside = std::mem::take(&mut self.unsaved);
        self.sending = 0;
        self.saved = theirs.clone();
        self.current = theirs;
        self.take_waiting();
    }

    /// Applies the edits kept aside on top of the other change, each that still applies (a
    /// shot removed elsewhere takes none): how many did.
    pub fn apply_again(&mut self) -> usize {
        let mut applied = 0;
        for edit in std::mem::take(&mut self.aside) {
            if self.record(edit).is_ok() {
                applied += 1;
            }
        }
        applied
    }

    /// Lets the edits kept aside go.
    pub fn let_go(&mut self) {
        self.aside.clear();
    }

    /// Another editor's change arrived (`sequence` at a newer version): taken, with the
    /// unsaved local edits applied again on top (none that no longer applies).
    /// While a save is on its way, the change waits for it to settle (the newest kept).
    pub fn changed_elsewhere(&mut self, sequence: Sequence) {
        if sequence.version <= self.saved.version {
            return;
        }
        if self.sending > 0 {
            if self
                .waiting
                .as_ref()
                .is_none_or(|w| w.version < sequence.version)
            {
                self.waiting = Some(sequence);
            }
            return;
        }
        self.rebase(sequence);
    }

    /// The library video `file_name` was saved (`true`) or deleted (`false`) elsewhere: the
    /// shots whose take it is say whether it is missing, at once.
    pub fn library_changed(&mut self, file_name: &str, saved: bool) {
        for sequence in [&mut self.saved, &mut self.current] {
            for shot in &mut sequence.shots {
                if shot.take.as_deref() == Some(file_name) {
                    shot.take_missing = !saved;
                }
            }
        }
    }

    /// Takes the change that waited for a save to settle, when it is newer than what is known.
    fn take_waiting(&mut self) {
        if let Some(theirs) = self.waiting.take() {
            self.changed_elsewhere(theirs);
        }
    }

    fn rebase(&mut self, saved: Sequence) {
        self.current = saved.clone();
        self.saved = saved;
        let unsaved = std::mem::take(&mut self.unsaved);
        for edit in unsaved {
            let _ = self.record(edit);
        }
    }
}

#[cfg(test)]
mod tests;
