//! Snapshot files: the state of a recurrent run ([`Snapshot`]) as versioned JSON.
//!
//! ```json
//! {
//!   "kiln_snapshot": 1,
//!   "tick": 12,
//!   "latches": {
//!     "acc": {"type": "float", "value": 1.5},
//!     "pos": {"type": "vec2", "value": [0.25, "-inf"]}
//!   }
//! }
//! ```
//!
//! * `kiln_snapshot` is the format version ([`VERSION`]); `tick` is the tick the next
//!   [`Recurrent::tick`](kiln_core::recurrence::Recurrent::tick) runs; `latches` maps each
//!   latch's node id to its value in the typed form of the graph format
//!   (`{"type": ..., "value": ...}`, colours as arrays of channels), or `null` for an empty
//!   value.
//! * Values read back bit for bit: floats (`-0.0`, infinities written `"inf"` / `"-inf"`,
//!   subnormals), ints, bools, vectors, colours, strings and lists. A NaN is written `"nan"`
//!   and reads back as the canonical NaN ([`f64::NAN`]), so a NaN's sign and payload are not
//!   kept.
//! * Only plain values can be saved: a latch holding a heavy value (an image, ...) or the
//!   error of a failed node, directly or inside a list, is refused with
//!   [`SnapshotError::Unsaveable`] naming the latch, and nothing is written. Such a run is
//!   resumed by replaying from tick 0 instead.
//! * Files are written atomically ([`write_atomic`]): a failed write leaves any existing file
//!   untouched.
//!
//! ```
//! use kiln_core::recurrence::Snapshot;
//! use kiln_core::value::Value;
//! use kiln_io::snapshot::{parse_snapshot, snapshot_json};
//!
//! let mut s = Snapshot { tick: 3, ..Snapshot::default() };
//! s.values.insert("acc".into(), Value::Float(-0.0));
//! let text = snapshot_json(&s).unwrap();
//! let back = parse_snapshot(&text).unwrap();
//! assert_eq!(back.tick, 3);
//! assert!(matches!(back.values["acc"], Value::Float(f) if f.to_bits() == (-0.0f64).to_bits()));
//! ```

use crate::convert::{self, ColorStyle};
use crate::json::{self, Doc, Json};
use crate::load_error::LoadError;
use crate::load_error::{FmtHint, FmtPath};
use crate::values::{WriteError, write_atomic};
use kiln_core::recurrence::Snapshot;
use kiln_core::value::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The snapshot file version this build reads and writes.
pub const VERSION: i64 = 1;

/// The version key (the first key of a snapshot file).
pub const VERSION_KEY: &str = "kiln_snapshot";

/// The keys allowed at the top level of a snapshot file.
pub const TOP_LEVEL_KEYS: [&str; 3] = [VERSION_KEY, "tick", "latches"];

const SHAPE_HINT: &str =
    r#"a snapshot file looks like {"kiln_snapshot": 1, "tick": 0, "latches": {...}}"#;

/// Why a snapshot could not be saved or loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// A latch holds a value that has no file form: a heavy value (an image, ...) or the
    /// error of a failed node, directly or as an item of a list. Nothing was written.
    #[error(
        "latch `{latch}` holds {}, which cannot be saved in a snapshot; replay from tick 0 instead",
        Held { item, type_name, detail }
    )]
    Unsaveable {
        /// The latch's node id.
        latch: String,
        /// Where in the value, for an item of a list (such as `[2]` or `[0][1]`).
        item: Option<String>,
        /// The type of the value that cannot be saved (`image`, `error`, ...).
        type_name: String,
        /// More about it: for an error value, the error.
        detail: Option<String>,
    },
    /// The snapshot file could not be read.
    #[error("cannot read snapshot `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The snapshot file could not be written (an existing file is untouched).
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The file is empty (or only whitespace), as a truncated write may leave it.
    #[error("the snapshot file is empty (hint: {SHAPE_HINT})")]
    Empty,
    /// The file is not UTF-8 text.
    #[error(
        "the snapshot file is not UTF-8 text: invalid byte at line {line}, column {column} (hint: snapshot files are JSON text)"
    )]
    NotUtf8 {
        /// Line of the first invalid byte (1-based).
        line: usize,
        /// Column of the first invalid byte (1-based, in characters).
        column: usize,
    },
    /// The text is not valid JSON (a truncated or corrupted file).
    #[error("invalid JSON in the snapshot at line {line}, column {column}: {message}")]
    Json {
        /// Line (1-based).
        line: usize,
        /// Column (1-based; 0 when the error is at the start of a line).
        column: usize,
        /// What the JSON parser reported.
        message: String,
    },
    /// The file has no `kiln_snapshot` version key.
    #[error("the file has no snapshot version (hint: {hint})")]
    MissingVersion {
        /// How to fix it.
        hint: String,
    },
    /// The file's version is not one this build reads.
    #[error(
        "unsupported snapshot version {found}: this build of kiln reads version {VERSION} (hint: {hint})"
    )]
    UnsupportedVersion {
        /// The version found, as written.
        found: String,
        /// How to fix it.
        hint: String,
    },
    /// The JSON does not have the shape of a snapshot file.
    #[error("{}: {message}{}", FmtPath(location), FmtHint(hint))]
    Shape {
        /// Where, as a path of keys such as `latches` (empty: the top level).
        location: String,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
    /// A latch's saved value is malformed.
    #[error("latch `{latch}`: {}: {message}{}", FmtPath(location), FmtHint(hint))]
    BadValue {
        /// The latch's node id.
        latch: String,
        /// Where, as a path of keys such as `latches.acc.value`.
        location: String,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
}

impl SnapshotError {
    /// The latch (node id) the error is about, if it is about one.
    pub fn latch(&self) -> Option<&str> {
        match self {
            SnapshotError::Unsaveable { latch, .. } | SnapshotError::BadValue { latch, .. } => {
                Some(latch)
            }
            _ => None,
        }
    }

    fn shape(location: &str, message: String, hint: Option<String>) -> SnapshotError {
        SnapshotError::Shape {
            location: location.to_string(),
            message,
            hint,
        }
    }
}

/// "an image", "a list whose item [2] is an error (...)".
struct Held<'a> {
    item: &'a Option<String>,
    type_name: &'a str,
    detail: &'a Option<String>,
}
impl fmt::Display for Held<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(item) = self.item {
            write!(f, "a list whose item {item} is ")?;
        }
        let article = if self
            .type_name
            .starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U'])
        {
            "an"
        } else {
            "a"
        };
        write!(f, "{article} {}", self.type_name)?;
        if let Some(d) = self.detail {
            write!(f, " ({d})")?;
        }
        Ok(())
    }
}

/// The first part of `v` that has no file form: (item path, type name, detail).
fn unsaveable(v: &Value, item: &str) -> Option<(String, String, Option<String>)> {
    match v {
        Value::Heavy(h) => Some((item.to_string(), h.type_name().to_string(), None)),
        Value::Error(e) => Some((item.to_string(), "error".to_string(), Some(e.to_string()))),
        Value::List(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, x)| unsaveable(x, &format!("{item}[{i}]"))),
        Value::Record(r) => r
            .fields()
            .iter()
            .find_map(|(k, x)| unsaveable(x, &format!("{item}.{k}"))),
        _ => None,
    }
}

/// The JSON text of a snapshot (see the module docs), ending with a newline.
///
/// Fails with [`SnapshotError::Unsaveable`] if a latch holds a heavy value or an error.
pub fn snapshot_json(s: &Snapshot) -> Result<String, SnapshotError> {
    let mut latches = Vec::with_capacity(s.values.len());
    for (id, v) in &s.values {
        if let Some((item, type_name, detail)) = unsaveable(v, "") {
            return Err(SnapshotError::Unsaveable {
                latch: id.clone(),
                item: (!item.is_empty()).then_some(item),
                type_name,
                detail,
            });
        }
        latches.push((
            id.clone(),
            Doc::Value(convert::typed_form(v, ColorStyle::Array)),
        ));
    }
    let tick = match i64::try_from(s.tick) {
        Ok(t) => Json::Int(t),
        Err(_) => Json::UInt(s.tick),
    };
    let doc = Doc::Block(vec![
        (VERSION_KEY.to_string(), Doc::Value(Json::Int(VERSION))),
        ("tick".to_string(), Doc::Value(tick)),
        ("latches".to_string(), Doc::Block(latches)),
    ]);
    let mut out = String::new();
    json::write_doc(&doc, 0, &mut out);
    out.push('\n');
    Ok(out)
}

/// Write a snapshot file atomically. On error nothing is written (and an existing file at
/// `path` is untouched).
pub fn write_snapshot(path: &Path, s: &Snapshot) -> Result<(), SnapshotError> {
    let text = snapshot_json(s)?;
    write_atomic(path, text.as_bytes())?;
    Ok(())
}

/// Read a snapshot file (UTF-8; a leading byte-order mark is skipped).
pub fn read_snapshot(path: &Path) -> Result<Snapshot, SnapshotError> {
    let bytes = std::fs::read(path).map_err(|source| SnapshotError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    match std::str::from_utf8(&bytes) {
        Ok(text) => parse_snapshot(text),
        Err(e) => {
            let valid = bytes.get(..e.valid_up_to()).unwrap_or_default();
            let prefix = std::str::from_utf8(valid).unwrap_or_default();
            let line = prefix.matches('\n').count() + 1;
            let last_line = prefix.rsplit('\n').next().unwrap_or_default();
            Err(SnapshotError::NotUtf8 {
                line,
                column: last_line.chars().count() + 1,
            })
        }
    }
}

fn from_json_error(e: serde_json::Error) -> SnapshotError {
    let (line, column, message) = crate::load_error::json_error_parts(&e);
    SnapshotError::Json {
        line,
        column,
        message,
    }
}

/// The entries of an object with no key repeated.
fn unique_entries<'a>(
    j: &'a Json,
    location: &str,
    what: &str,
) -> Result<&'a [(String, Json)], SnapshotError> {
    let Json::Object(entries) = j else {
        return Err(SnapshotError::shape(
            location,
            format!("{what} must be a JSON object, found {}", j.kind()),
            Some(SHAPE_HINT.to_string()),
        ));
    };
    for (i, (k, _)) in entries.iter().enumerate() {
        if entries[..i].iter().any(|(p, _)| p == k) {
            return Err(SnapshotError::shape(
                location,
                format!("key `{k}` appears twice"),
                Some("keep one".to_string()),
            ));
        }
    }
    Ok(entries)
}

fn get<'a>(entries: &'a [(String, Json)], key: &str) -> Option<&'a Json> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Parse the text of a snapshot file (see the module docs).
pub fn parse_snapshot(text: &str) -> Result<Snapshot, SnapshotError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return Err(SnapshotError::Empty);
    }
    let doc = json::parse(text).map_err(from_json_error)?;
    let top = unique_entries(&doc, "", "a snapshot file")?;

    // The version comes first: a newer file may use keys this build does not know.
    match get(top, VERSION_KEY) {
        None => {
            let hint = if get(top, "kiln").is_some() {
                "this looks like a graph file, not a snapshot".to_string()
            } else {
                format!("add \"{VERSION_KEY}\": {VERSION} as the first key of the top-level object")
            };
            return Err(SnapshotError::MissingVersion { hint });
        }
        Some(Json::Int(VERSION)) => {}
        Some(other) => {
            let (found, hint) =
                crate::load_error::version_mismatch(other, VERSION, "snapshot", VERSION_KEY);
            return Err(SnapshotError::UnsupportedVersion { found, hint });
        }
    }
    if let Some((k, _)) = top
        .iter()
        .find(|(k, _)| !TOP_LEVEL_KEYS.contains(&k.as_str()))
    {
        return Err(SnapshotError::shape(
            "",
            format!("unexpected key `{k}`"),
            Some(format!("the keys are {}", TOP_LEVEL_KEYS.join(", "))),
        ));
    }

    let tick = match get(top, "tick") {
        Some(Json::Int(t)) if *t >= 0 => *t as u64,
        Some(Json::UInt(t)) => *t,
        Some(other) => {
            return Err(SnapshotError::shape(
                "tick",
                format!(
                    "`tick` must be a non-negative integer, found {}",
                    match other {
                        Json::Int(_) => "a negative number",
                        other => other.kind(),
                    }
                ),
                Some("write the tick to run next, such as \"tick\": 0".to_string()),
            ));
        }
        None => {
            return Err(SnapshotError::shape(
                "",
                "the snapshot has no `tick`".to_string(),
                Some(SHAPE_HINT.to_string()),
            ));
        }
    };

    let Some(latches) = get(top, "latches") else {
        return Err(SnapshotError::shape(
            "",
            "the snapshot has no `latches`".to_string(),
            Some(SHAPE_HINT.to_string()),
        ));
    };
    let latches = unique_entries(latches, "latches", "`latches`")?;
    let mut values = BTreeMap::new();
    for (id, j) in latches {
        let location = convert::child("latches", id);
        let value = match j {
            Json::Null | Json::Object(_) => convert::decode_value(j, None, &location),
            other => {
                return Err(SnapshotError::BadValue {
                    latch: id.clone(),
                    location,
                    message: format!(
                        "a latch value must be a typed value, found {}",
                        other.kind()
                    ),
                    hint: Some(
                        r#"write a typed value like {"type": "float", "value": 1.5}, or null"#
                            .to_string(),
                    ),
                });
            }
        };
        let value = value.map_err(|e| bad_value(id, &location, e))?;
        values.insert(id.clone(), value);
    }
    Ok(Snapshot { tick, values })
}

fn bad_value(latch: &str, location: &str, e: LoadError) -> SnapshotError {
    match e {
        LoadError::Format {
            path,
            message,
            hint,
        } => SnapshotError::BadValue {
            latch: latch.to_string(),
            location: path,
            message,
            hint,
        },
        other => SnapshotError::BadValue {
            latch: latch.to_string(),
            location: location.to_string(),
            message: other.to_string(),
            hint: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        let mut s = Snapshot {
            tick: 7,
            ..Snapshot::default()
        };
        s.values.insert("acc".into(), Value::Float(1.5));
        s.values.insert("none".into(), Value::Empty);
        assert_eq!(
            snapshot_json(&s).unwrap(),
            "{\n  \"kiln_snapshot\": 1,\n  \"tick\": 7,\n  \"latches\": {\n    \
             \"acc\": {\"type\": \"float\", \"value\": 1.5},\n    \"none\": null\n  }\n}\n"
        );
        let empty = Snapshot::default();
        assert_eq!(
            snapshot_json(&empty).unwrap(),
            "{\n  \"kiln_snapshot\": 1,\n  \"tick\": 0,\n  \"latches\": {}\n}\n"
        );
    }

    #[test]
    fn held_reads_well() {
        let e = SnapshotError::Unsaveable {
            latch: "grid".into(),
            item: None,
            type_name: "image".into(),
            detail: None,
        };
        assert_eq!(
            e.to_string(),
            "latch `grid` holds an image, which cannot be saved in a snapshot; replay from tick 0 instead"
        );
        let e = SnapshotError::Unsaveable {
            latch: "l".into(),
            item: Some("[1]".into()),
            type_name: "mesh".into(),
            detail: None,
        };
        assert!(
            e.to_string()
                .contains("holds a list whose item [1] is a mesh,")
        );
    }
}
