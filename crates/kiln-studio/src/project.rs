//! The graph file being edited on disk: its [`EditedFile`] (JSON, undo and redo, version,
//! from kiln-doc's edit model), the text on disk, and whether that text loads.
//!
//! Every edit is applied by the edit model, written in the house style or the canonical form
//! ([`text_for`]), checked to load, and written to the file atomically; the file on disk is
//! then read again on every poll, and a change made by another program replaces the
//! studio's copy (and can be undone like an edit). Each change says what it was
//! ([`Change`]), so the cook follows an edit as an edit.

use crate::error::StudioError;
use kiln_doc::edit::{Change, EditedFile, FileEdit, file_text, text_for};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// A graph file under edit.
pub struct Project {
    path: PathBuf,
    file: EditedFile,
    /// The text last read from or written to the file.
    text: String,
    /// Why the file on disk does not load, when it does not (edits wait for a fix).
    broken: Option<String>,
    /// The ops, to write files in the canonical form (house style without).
    registry: Option<kiln_core::registry::Registry>,
}

fn read_text(path: &Path) -> Result<String, StudioError> {
    let bytes = kiln_io::input_file::read_input_file(path, kiln_io::input_file::MAX_INPUT_BYTES)
        .map_err(|e| StudioError::Read {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    String::from_utf8(bytes).map_err(|_| StudioError::Read {
        path: path.to_path_buf(),
        message: "the file is not UTF-8".into(),
    })
}

/// Whether `text` loads as a graph file, by `check`.
pub type Check<'a> = &'a dyn Fn(&str) -> Result<(), String>;

/// The text written for `doc`: the canonical form where it can be (see [`text_for`]).
fn text_of(registry: Option<&kiln_core::registry::Registry>, doc: &Json) -> String {
    match registry {
        Some(r) => text_for(doc, r),
        None => file_text(doc),
    }
}

/// What keeps a new state of the file: its text (kept in `written`) checked to load, then
/// written to the file at `path` atomically.
fn writer<'a>(
    path: &'a Path,
    registry: Option<&'a kiln_core::registry::Registry>,
    check: Check<'a>,
    written: &'a mut String,
) -> impl FnOnce(&Json) -> Result<(), StudioError> + 'a {
    move |doc: &Json| {
        *written = text_of(registry, doc);
        check(written).map_err(StudioError::Refused)?;
        kiln_io::write_atomic(path, written.as_bytes())?;
        Ok(())
    }
}

impl Project {
    /// Open the graph file at `path`; `check` says whether a text loads.
    pub fn open(path: &Path, check: Check<'_>) -> Result<Project, StudioError> {
        let text = read_text(path)?;
        let doc: Json = serde_json::from_str(&text).map_err(|e| StudioError::Load {
            path: path.to_path_buf(),
            message: format!("invalid JSON: {e}"),
        })?;
        check(&text).map_err(|message| StudioError::Load {
            path: path.to_path_buf(),
            message,
        })?;
        Ok(Project {
            path: path.to_path_buf(),
            file: EditedFile::new(doc),
            text,
            broken: None,
            registry: None,
        })
    }

    /// Write the file in the canonical form where it can be (see [`text_for`]).
    pub fn with_registry(mut self, registry: kiln_core::registry::Registry) -> Project {
        self.registry = Some(registry);
        self
    }

    /// The file's JSON.
    pub fn doc(&self) -> &Json {
        self.file.doc()
    }

    /// The text of the file as the studio last saw it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The graph's version (bumped by every change).
    pub fn version(&self) -> u64 {
        self.file.version()
    }

    /// Why the file on disk does not load, if it does not.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// Whether an undo, and a redo, can be made.
    pub fn history(&self) -> (bool, bool) {
        self.file.history()
    }

    /// Apply `edit`, check the result loads, and save it; the change made, and the JSON
    /// before it (for [`FileEdit::doc_edits`]).
    pub fn edit(
        &mut self,
        edit: &FileEdit,
        check: Check<'_>,
    ) -> Result<(Change, Json), StudioError> {
        if let Some(why) = &self.broken {
            return Err(StudioError::Refused(format!(
                "the file on disk does not load ({why}); fix it or undo first"
            )));
        }
        let before = self.file.doc().clone();
        let mut written = String::new();
        let keep = writer(&self.path, self.registry.as_ref(), check, &mut written);
        let change = self.file.edit(edit, keep)?;
        self.text = written;
        Ok((change, before))
    }

    /// Go back one state (`redo: false`) or forward one, and save it.
    pub fn step(&mut self, redo: bool, check: Check<'_>) -> Result<Change, StudioError> {
        let mut written = String::new();
        let keep = writer(&self.path, self.registry.as_ref(), check, &mut written);
        let change = self.file.step(redo, keep)?;
        let Some(change) = change else {
            return Err(StudioError::NoHistory(if redo { "redo" } else { "undo" }));
        };
        self.text = written;
        self.broken = None;
        Ok(change)
    }

    /// Read the file again: `Ok(true)` when another program changed it and the studio took
    /// the change (a text that does not load marks the project broken, and is reported once
    /// as `Err`).
    pub fn reload(&mut self, check: Check<'_>) -> Result<bool, String> {
        let text = match read_text(&self.path) {
            Ok(t) => t,
            Err(e) => return self.mark_broken(e.to_string()),
        };
        if text == self.text {
            return Ok(false);
        }
        let parsed: Result<Json, String> =
            serde_json::from_str(&text).map_err(|e| format!("invalid JSON: {e}"));
        let loaded = parsed.and_then(|doc| check(&text).map(|()| doc));
        match loaded {
            Ok(doc) => {
                self.file.replace(doc);
                self.text = text;
                self.broken = None;
                Ok(true)
            }
            Err(e) => {
                self.text = text;
                self.mark_broken(e)
            }
        }
    }

    fn mark_broken(&mut self, why: String) -> Result<bool, String> {
        if self.broken.as_deref() == Some(why.as_str()) {
            return Ok(false);
        }
        self.broken = Some(why.clone());
        Err(why)
    }
}
