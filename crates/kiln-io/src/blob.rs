//! Blobs: values stored by content in a folder beside a graph file, `<graph stem>.blobs/`,
//! one file per distinct value, and the references a graph file makes to them,
//! `{"type": "image", "blob": "baked.blobs/<32 hex digits>.kv"}` (see
//! [baking](mod@crate::bake), which writes them).
//!
//! A blob file has the entry format of the persistent cache ([`crate::cache`]): header
//! (magic, length, XXH3-128 checksum, key) and the value in the binary codec of
//! [`encode_value`](crate::encode_value); its key, and so its name, is the XXH3-128 of that
//! payload. Reading a reference checks the blob against its name and its
//! type against the reference; only a regular file (or a link to one) is opened, and no more
//! than its header declares is read.

use crate::cache::check_entry;
use crate::entry_file::{EntryReadError, Links, read_entry_file};
use crate::json::Json;
use crate::load_error::LoadError;
use crate::value_codec::decode_value;
use kiln_core::key::Key;
use kiln_core::registry::Registry;
use kiln_core::value::Value;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// What the blob folder's name adds to the graph file's stem (`baked.json` →
/// `baked.blobs`).
pub const BLOB_DIR_SUFFIX: &str = ".blobs";

/// The extension of blob files.
pub const BLOB_EXT: &str = "kv";

/// The blob folder of a baked graph at `path`: `<stem>.blobs` beside it.
pub fn blob_dir_for(path: &Path) -> Option<PathBuf> {
    let stem = path.file_stem()?.to_str()?;
    Some(path.with_file_name(format!("{stem}{BLOB_DIR_SUFFIX}")))
}

/// The file name of the blob whose payload has key `key`.
pub fn blob_file_name(key: Key) -> String {
    format!("{}.{BLOB_EXT}", key.to_hex())
}

/// The JSON of a blob reference: `{"type": <value's type>, "blob": reference}`.
pub fn blob_json(v: &Value, reference: String) -> Json {
    Json::Object(vec![
        ("type".into(), Json::Str(v.type_name().to_string())),
        ("blob".into(), Json::Str(reference)),
    ])
}

/// Resolves the blob references of one graph file, each blob read once.
pub struct BlobReader<'a> {
    dir: Option<&'a Path>,
    registry: &'a Registry,
    read: HashMap<String, Value>,
}

impl<'a> BlobReader<'a> {
    /// A reader for references relative to `dir` (`None`: a graph not read from a file,
    /// where a reference is an error), decoding heavy values with the codecs of `registry`.
    pub fn new(dir: Option<&'a Path>, registry: &'a Registry) -> Self {
        BlobReader {
            dir,
            registry,
            read: HashMap::new(),
        }
    }

    /// The value of `j` if it is a blob reference (an object with a `blob` key), `None` for
    /// any other JSON. `path` is its location in the file, for errors.
    pub fn read(&mut self, j: &Json, path: &str) -> Result<Option<Value>, LoadError> {
        let Json::Object(entries) = j else {
            return Ok(None);
        };
        let Some((_, blob)) = entries.iter().find(|(k, _)| k == "blob") else {
            return Ok(None);
        };
        let (reference, ty) = reference_of(entries, blob, path)?;
        let err = |message: String, hint: Option<&str>| LoadError::Blob {
            path: path.to_string(),
            blob: reference.to_string(),
            message,
            hint: hint.map(str::to_string),
        };
        let Some(dir) = self.dir else {
            return Err(err(
                "cannot be resolved: the graph was not read from a file".into(),
                Some("load baked graphs with read_graph, which finds blobs beside the file"),
            ));
        };
        let (components, key) = parse_reference(reference).map_err(|m| {
            err(
                m,
                Some("a blob reference is `<graph>.blobs/<32 hex digits>.kv`, relative to the graph file"),
            )
        })?;
        let value = match self.read.get(reference) {
            Some(v) => v.clone(),
            None => {
                let mut file = dir.to_path_buf();
                file.extend(components);
                let value =
                    read_blob(&file, key, self.registry).map_err(|(m, hint)| err(m, hint))?;
                self.read.insert(reference.to_string(), value.clone());
                value
            }
        };
        if value.type_name() != ty {
            return Err(err(
                format!(
                    "holds a {} value, but the reference says {ty}",
                    value.type_name()
                ),
                None,
            ));
        }
        Ok(Some(value))
    }
}

/// The reference and type of a blob reference object (`blob` its `blob` entry), checking
/// its shape: exactly one `blob` string, one `type` string, nothing else.
fn reference_of<'a>(
    entries: &'a [(String, Json)],
    blob: &'a Json,
    path: &str,
) -> Result<(&'a str, &'a str), LoadError> {
    let shape = |message: String| {
        LoadError::format(
            path,
            message,
            Some(r#"a blob reference is {"type": "image", "blob": "<graph>.blobs/<32 hex digits>.kv"}"#.into()),
        )
    };
    let Json::Str(reference) = blob else {
        return Err(shape(format!(
            "`blob` must be a string, found {}",
            blob.kind()
        )));
    };
    let mut ty = None;
    for (k, v) in entries {
        match (k.as_str(), v) {
            ("blob", _) => {}
            ("type", Json::Str(t)) if ty.is_none() => ty = Some(t.as_str()),
            ("type", Json::Str(_)) => return Err(shape("key `type` appears twice".into())),
            ("type", other) => {
                return Err(shape(format!(
                    "`type` must be a string, found {}",
                    other.kind()
                )));
            }
            (other, _) => {
                return Err(shape(format!(
                    "unexpected key `{other}` in a blob reference"
                )));
            }
        }
    }
    if entries.iter().filter(|(k, _)| k == "blob").count() > 1 {
        return Err(shape("key `blob` appears twice".into()));
    }
    let Some(ty) = ty else {
        return Err(shape("a blob reference needs a `type` key".into()));
    };
    Ok((reference, ty))
}

/// The value in the blob file `file`, checked against its key `key`; else what is wrong
/// with it and a hint.
fn read_blob(
    file: &Path,
    key: Key,
    registry: &Registry,
) -> Result<Value, (String, Option<&'static str>)> {
    let rebake = Some("the blob folder must stay beside the graph file; bake the graph again");
    let bytes = read_entry_file(file, Links::Follow).map_err(|e| match e {
        EntryReadError::Missing => (format!("is missing ({} not found)", file.display()), rebake),
        EntryReadError::NotAFile(_) => {
            (format!("cannot be read ({}): {e}", file.display()), rebake)
        }
        EntryReadError::Damaged(m) => (format!("is damaged ({}): {m}", file.display()), rebake),
        EntryReadError::Io(e) => (format!("cannot be read ({}): {e}", file.display()), None),
    })?;
    let payload = check_entry(key, &bytes)
        .map_err(|m| (format!("is damaged ({}): {m}", file.display()), rebake))?;
    decode_value(payload, registry)
        .map_err(|m| (format!("is damaged ({}): {m}", file.display()), rebake))
}

/// The path components and key of a reference `dir/…/<32 hex>.kv`: relative, without `.` or
/// `..`, and its file name a key.
fn parse_reference(reference: &str) -> Result<(Vec<String>, Key), String> {
    if reference.contains('\\') {
        return Err("the reference must use `/` between folders".into());
    }
    let mut parts = vec![];
    for segment in reference.split('/') {
        // Each segment a plain name: no root, drive, `.` or `..`, nothing empty.
        let plain = matches!(
            Path::new(segment).components().collect::<Vec<_>>().as_slice(),
            [Component::Normal(s)] if *s == std::ffi::OsStr::new(segment)
        );
        if !plain || segment.contains(':') {
            return Err("the reference must be a relative path inside the graph's folder".into());
        }
        parts.push(segment.to_string());
    }
    let name = parts.last().map(String::as_str).unwrap_or_default();
    let hex = name
        .strip_suffix(&format!(".{BLOB_EXT}"))
        .filter(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| format!("the file name `{name}` is not <32 hex digits>.{BLOB_EXT}"))?;
    let key = u128::from_str_radix(hex, 16).map_err(|e| format!("bad key `{hex}`: {e}"))?;
    Ok((parts, Key(key)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_relative_paths_to_keys() {
        let hex = "0123456789abcdef0123456789abcdef";
        let (parts, key) = parse_reference(&format!("b.blobs/{hex}.kv")).expect("valid");
        assert_eq!(parts, vec!["b.blobs".to_string(), format!("{hex}.kv")]);
        assert_eq!(key.to_hex(), hex);
        for bad in [
            format!("/abs/{hex}.kv"),
            format!("../b.blobs/{hex}.kv"),
            format!("b.blobs/./{hex}.kv"),
            format!("b.blobs\\{hex}.kv"),
            format!("b.blobs//{hex}.kv"),
            format!("c:/{hex}.kv"),
            "b.blobs/xyz.kv".to_string(),
            format!("b.blobs/{hex}.png"),
            String::new(),
        ] {
            assert!(parse_reference(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn blob_dirs_sit_beside_the_graph() {
        assert_eq!(
            blob_dir_for(Path::new("t/b.json")),
            Some(PathBuf::from("t/b.blobs"))
        );
        assert_eq!(blob_dir_for(Path::new("b")), Some(PathBuf::from("b.blobs")));
        assert_eq!(blob_dir_for(Path::new("/")), None);
    }
}
