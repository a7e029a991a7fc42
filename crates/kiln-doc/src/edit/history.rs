//! A graph file under edit, in memory ([`EditedFile`]): its JSON, the undo and redo
//! history, and a version bumped by every change. Each change says what it was
//! ([`Change`]): the edit itself, or a whole new state (an undo, a redo, a change made by
//! another program), so whoever keeps a plan of the file knows which edits to follow.
//! Reading and writing the file on disk are the caller's.

use super::{FileEdit, FileEditError, apply};
use serde_json::Value as Json;

/// The most states kept for undo.
pub const MAX_UNDO: usize = 256;

/// What a change of an [`EditedFile`] was.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// One edit, applied to the previous state.
    Edit(FileEdit),
    /// A whole new state (undo, redo, a file changed by another program).
    Whole,
}

/// A graph file's JSON with its undo and redo history.
#[derive(Clone, Debug)]
pub struct EditedFile {
    doc: Json,
    undo: Vec<Json>,
    redo: Vec<Json>,
    version: u64,
}

impl EditedFile {
    /// A file whose JSON is `doc`, at version 1 with no history.
    pub fn new(doc: Json) -> EditedFile {
        EditedFile {
            doc,
            undo: vec![],
            redo: vec![],
            version: 1,
        }
    }

    /// The file's JSON.
    pub fn doc(&self) -> &Json {
        &self.doc
    }

    /// The version (bumped by every change).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Whether an undo, and a redo, can be made.
    pub fn history(&self) -> (bool, bool) {
        (!self.undo.is_empty(), !self.redo.is_empty())
    }

    /// Apply `edit`, then `keep` the new JSON (say, write it to disk): when `keep` refuses,
    /// nothing changes and its error is returned. The redo history is dropped.
    pub fn edit<E: From<FileEditError>>(
        &mut self,
        edit: &FileEdit,
        keep: impl FnOnce(&Json) -> Result<(), E>,
    ) -> Result<Change, E> {
        let mut next = self.doc.clone();
        apply(&mut next, edit)?;
        keep(&next)?;
        let before = std::mem::replace(&mut self.doc, next);
        self.push_undo(before);
        self.redo.clear();
        self.version += 1;
        Ok(Change::Edit(edit.clone()))
    }

    /// Go back one state (`redo: false`) or forward one, if `keep` takes it. `Ok(None)`
    /// when there is no state to go to.
    pub fn step<E>(
        &mut self,
        redo: bool,
        keep: impl FnOnce(&Json) -> Result<(), E>,
    ) -> Result<Option<Change>, E> {
        let target = match if redo {
            self.redo.last()
        } else {
            self.undo.last()
        } {
            Some(t) => t,
            None => return Ok(None),
        };
        keep(target)?;
        let target = if redo {
            self.redo.pop()
        } else {
            self.undo.pop()
        };
        let Some(target) = target else {
            return Ok(None);
        };
        let current = std::mem::replace(&mut self.doc, target);
        if redo {
            self.push_undo(current);
        } else {
            self.redo.push(current);
        }
        self.version += 1;
        Ok(Some(Change::Whole))
    }

    /// Take `doc` as the new state (the file changed on disk); it can be undone like an
    /// edit.
    pub fn replace(&mut self, doc: Json) -> Change {
        let before = std::mem::replace(&mut self.doc, doc);
        self.push_undo(before);
        self.redo.clear();
        self.version += 1;
        Change::Whole
    }

    fn push_undo(&mut self, doc: Json) {
        self.undo.push(doc);
        if self.undo.len() > MAX_UNDO {
            self.undo.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file() -> EditedFile {
        EditedFile::new(json!({"kiln": 1, "nodes": {"a": {"op": "math.add"}}}))
    }

    fn move_a(x: i64) -> FileEdit {
        FileEdit::Move {
            node: "a".into(),
            at: [x, 0],
        }
    }

    #[test]
    fn an_edit_is_undone_and_redone_and_a_refused_keep_changes_nothing() {
        let mut f = file();
        let start = f.doc().clone();
        let c = f.edit(&move_a(5), |_| Ok::<(), FileEditError>(())).unwrap();
        assert_eq!(c, Change::Edit(move_a(5)));
        let edited = f.doc().clone();
        assert_ne!(edited, start);
        assert_eq!((f.version(), f.history()), (2, (true, false)));
        // A keep that refuses leaves the state and the history alone.
        let refused = f.edit(&move_a(9), |_| Err(FileEditError::NotAGraph));
        assert!(refused.is_err());
        assert_eq!((f.doc(), f.version()), (&edited, 2));
        assert_eq!(f.step(false, |_| Ok::<(), ()>(())), Ok(Some(Change::Whole)));
        assert_eq!(f.doc(), &start);
        assert_eq!(f.step(true, |_| Ok::<(), ()>(())), Ok(Some(Change::Whole)));
        assert_eq!(f.doc(), &edited);
        assert_eq!(f.step(true, |_| Ok::<(), ()>(())), Ok(None));
        // A refused undo keeps the undo to be tried again.
        assert_eq!(f.step(false, |_| Err("disk full")), Err("disk full"));
        assert_eq!((f.doc(), f.history()), (&edited, (true, false)));
    }

    #[test]
    fn the_history_keeps_the_last_states_only() {
        let mut f = file();
        for x in 0..(MAX_UNDO as i64 + 10) {
            f.edit(&move_a(x), |_| Ok::<(), FileEditError>(())).unwrap();
        }
        let mut undone = 0;
        while f.step(false, |_| Ok::<(), ()>(())).unwrap().is_some() {
            undone += 1;
        }
        assert_eq!(undone, MAX_UNDO);
    }
}
