//! Why a graph file could not be loaded ([`LoadError`]), and the pieces of its messages
//! that the other text formats share (locations, hints, version mismatches, JSON syntax
//! errors). Graph files are read by `kiln-doc`; value text, blobs and snapshots here report
//! through the same error, so a message reads the same wherever the value was written.

use crate::json::{self, Json};
use std::fmt;
use std::path::PathBuf;

/// The graph file version this build reads and writes.
pub const GRAPH_FILE_VERSION: i64 = 1;
const VERSION: i64 = GRAPH_FILE_VERSION;

/// Why a graph file could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a regular file, or is too large to be a graph file.
    #[error(transparent)]
    Input(crate::input_file::InputFileError),
    /// The file is empty (or only whitespace).
    #[error(
        "the file is empty (hint: a graph file is a JSON object such as {{\"kiln\": 1, \"nodes\": {{}}}})"
    )]
    Empty,
    /// The file is not UTF-8 text.
    #[error(
        "the file is not UTF-8 text: invalid byte at line {line}, column {column} (hint: graph files are JSON text)"
    )]
    NotUtf8 {
        /// Line of the first invalid byte (1-based).
        line: usize,
        /// Column of the first invalid byte (1-based, in characters).
        column: usize,
    },
    /// The text is not valid JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        /// Line (1-based).
        line: usize,
        /// Column (1-based; 0 when the error is at the start of a line).
        column: usize,
        /// What the JSON parser reported.
        message: String,
    },
    /// The file has no `kiln` version key.
    #[error(
        "the file has no version (hint: add \"kiln\": {VERSION} as the first key of the top-level object)"
    )]
    MissingVersion,
    /// The file's version is not one this build reads.
    #[error(
        "unsupported graph file version {found}: this build of kiln reads version {VERSION} (hint: {hint})"
    )]
    UnsupportedVersion {
        /// The version found, as written.
        found: String,
        /// How to fix it.
        hint: String,
    },
    /// The JSON does not have the shape of a graph file.
    #[error("{}: {message}{}", FmtPath(path), FmtHint(hint))]
    Format {
        /// Where, as a path of keys such as `nodes.noise.inputs.scale` (empty: the top level).
        path: String,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
    /// A blob reference (a value stored beside a baked graph, see [blobs](mod@crate::blob))
    /// could not be resolved: the blob is missing, damaged, or the graph was not read from a
    /// file.
    #[error("{}: blob `{blob}` {message}{}", FmtPath(path), FmtHint(hint))]
    Blob {
        /// Where the reference is, as a path of keys such as `nodes.sky.params.value`.
        path: String,
        /// The reference as written (`baked.blobs/<hex>.kv`).
        blob: String,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
}

/// Displays a JSON location (`at nodes.a.op`, or `at the top level`).
pub struct FmtPath<'a>(pub &'a str);
impl fmt::Display for FmtPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("at the top level")
        } else {
            write!(f, "at {}", self.0)
        }
    }
}

/// Displays an optional hint as ` (hint: ...)`.
pub struct FmtHint<'a>(pub &'a Option<String>);
impl fmt::Display for FmtHint<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(h) => write!(f, " (hint: {h})"),
            None => Ok(()),
        }
    }
}

impl LoadError {
    /// A [`LoadError::Format`] at JSON location `path`.
    pub fn format(path: &str, message: String, hint: Option<String>) -> LoadError {
        LoadError::Format {
            path: path.to_string(),
            message,
            hint,
        }
    }

    /// The JSON location of a format or blob error (`nodes.noise.inputs.scale`), if it is one.
    pub fn location(&self) -> Option<&str> {
        match self {
            LoadError::Format { path, .. } | LoadError::Blob { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// A JSON syntax error as a [`LoadError::Json`].
pub fn from_json_error(e: serde_json::Error) -> LoadError {
    let (line, column, message) = json_error_parts(&e);
    LoadError::Json {
        line,
        column,
        message,
    }
}

/// An unsupported format version, as (what was found, a hint): upgrade kiln when `found`
/// is newer than `current`, else write `"key": current`. `what` names the document.
pub fn version_mismatch(found: &Json, current: i64, what: &str, key: &str) -> (String, String) {
    let mut text = String::new();
    json::compact(found, &mut text);
    let newer = match found {
        Json::Int(n) => *n > current,
        Json::UInt(_) => true,
        _ => false,
    };
    let hint = if newer {
        format!("the {what} was written by a newer kiln; upgrade kiln to read version {text}")
    } else {
        format!("write \"{key}\": {current}")
    };
    (text, hint)
}

/// A JSON syntax error as (line, column, message without the position).
pub fn json_error_parts(e: &serde_json::Error) -> (usize, usize, String) {
    let (line, column) = (e.line(), e.column());
    let full = e.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    (line, column, message)
}
