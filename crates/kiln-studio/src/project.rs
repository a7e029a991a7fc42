//! The graph file being edited: its JSON, the undo and redo history, and the text on disk.
//!
//! Every edit is applied to the JSON ([`crate::edit`]), written in the house style
//! ([`crate::format`]), checked to load, and written to the file atomically; the file on
//! disk is then read again on every poll, and a change made by another program replaces
//! the studio's copy (and can be undone like an edit).

use crate::edit::{self, Edit};
use crate::error::StudioError;
use crate::format::file_text;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// The most states kept for undo.
pub const MAX_UNDO: usize = 256;

/// A graph file under edit.
pub struct Project {
    path: PathBuf,
    doc: Json,
    /// The text last read from or written to the file.
    text: String,
    /// Why the file on disk does not load, when it does not (edits wait for a fix).
    broken: Option<String>,
    undo: Vec<Json>,
    redo: Vec<Json>,
    /// Bumped by every change of the graph (edit, undo, redo, reload).
    version: u64,
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

/// The text the studio writes for `doc`: the canonical form of [`kiln_io::save_graph_with_meta`]
/// when the file holds nothing it cannot write (inline graphs, scopes, curves, blobs: it
/// reads the canonical text back and compares), the house style of [`file_text`] otherwise.
pub fn text_for(doc: &Json, registry: &kiln_core::registry::Registry) -> String {
    let house = file_text(doc);
    let Ok(file) = kiln_io::load_graph(&house, registry) else {
        return house;
    };
    if file.structure != Default::default() {
        return house;
    }
    let canonical = file.to_json(registry);
    match kiln_io::load_graph(&canonical, registry) {
        Ok(back) if back == file => canonical,
        _ => house,
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
            doc,
            text,
            broken: None,
            undo: vec![],
            redo: vec![],
            version: 1,
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
        &self.doc
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
        self.version
    }

    /// Why the file on disk does not load, if it does not.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// Whether an undo, and a redo, can be made.
    pub fn history(&self) -> (bool, bool) {
        (!self.undo.is_empty(), !self.redo.is_empty())
    }

    /// Apply `edit`, check the result loads, and save it.
    pub fn edit(&mut self, edit: &Edit, check: Check<'_>) -> Result<(), StudioError> {
        if let Some(why) = &self.broken {
            return Err(StudioError::Refused(format!(
                "the file on disk does not load ({why}); fix it or undo first"
            )));
        }
        let mut next = self.doc.clone();
        edit::apply(&mut next, edit)?;
        let before = std::mem::replace(&mut self.doc, next.clone());
        match self.save(check) {
            Ok(()) => {
                self.push_undo(before);
                self.redo.clear();
                Ok(())
            }
            Err(e) => {
                self.doc = before;
                Err(e)
            }
        }
    }

    fn push_undo(&mut self, doc: Json) {
        self.undo.push(doc);
        if self.undo.len() > MAX_UNDO {
            self.undo.remove(0);
        }
    }

    /// Go back one state (`redo: false`) or forward one, and save it.
    pub fn step(&mut self, redo: bool, check: Check<'_>) -> Result<(), StudioError> {
        let (from, name) = if redo {
            (&mut self.redo, "redo")
        } else {
            (&mut self.undo, "undo")
        };
        let Some(target) = from.pop() else {
            return Err(StudioError::NoHistory(name));
        };
        let current = std::mem::replace(&mut self.doc, target);
        if let Err(e) = self.save(check) {
            let target = std::mem::replace(&mut self.doc, current);
            if redo {
                self.redo.push(target);
            } else {
                self.undo.push(target);
            }
            return Err(e);
        }
        if redo {
            self.push_undo(current);
        } else {
            self.redo.push(current);
        }
        self.broken = None;
        Ok(())
    }

    /// Write the JSON to the file (atomically) once it loads.
    fn save(&mut self, check: Check<'_>) -> Result<(), StudioError> {
        let text = match &self.registry {
            Some(r) => text_for(&self.doc, r),
            None => file_text(&self.doc),
        };
        check(&text).map_err(StudioError::Refused)?;
        kiln_io::write_atomic(&self.path, text.as_bytes())?;
        self.text = text;
        self.version += 1;
        Ok(())
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
                let before = std::mem::replace(&mut self.doc, doc);
                self.push_undo(before);
                self.redo.clear();
                self.text = text;
                self.broken = None;
                self.version += 1;
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
