//! Writing a baked graph: its blobs first, then the graph file.

use super::BakeError;
use super::storage::needs_blob;
use crate::graph_file::{GraphFile, save_graph_with};
use kiln_core::graph::Graph;
use kiln_core::key::{Key, KeyHasher};
use kiln_core::registry::Registry;
use kiln_core::value::Value;
use kiln_io::blob::{BLOB_DIR_SUFFIX, blob_dir_for, blob_file_name};
use kiln_io::cache::{check_entry, encode_entry};
use kiln_io::entry_file::{Links, read_entry_file};
use kiln_io::value_codec::encode_value;
use kiln_io::values::{WriteError, write_atomic};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// What [`write_baked`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// The graph file.
    pub graph: PathBuf,
    /// The blob folder, when the graph has blobs.
    pub blob_dir: Option<PathBuf>,
    /// Blob files written.
    pub blobs_written: usize,
    /// Blob files that were already there, intact (not rewritten).
    pub blobs_present: usize,
    /// Bytes of the blobs the graph references.
    pub blob_bytes: u64,
}

impl fmt::Display for WriteReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.blob_dir {
            Some(d) => write!(
                f,
                "blobs written: {} ({} already there, {} bytes in {})",
                self.blobs_written,
                self.blobs_present,
                self.blob_bytes,
                d.display()
            ),
            None => write!(f, "blobs written: 0"),
        }
    }
}

/// The content key of a value, which identifies it among the graph's blob values.
fn value_key(v: &Value) -> Key {
    let mut h = KeyHasher::new();
    v.hash_into(&mut h);
    h.finish_key()
}

/// Write a baked graph to `path` with its blobs in [`blob_dir_for`]`(path)`: every param or
/// constant that [`needs_blob`] (and has a binary form) goes into a blob. Blobs are written
/// first, each atomically (an intact one already there is kept), then the graph file,
/// atomically. The graph's folder must exist.
pub fn write_baked(
    path: &Path,
    file: &GraphFile,
    registry: &Registry,
) -> Result<WriteReport, BakeError> {
    let (dir, dir_name) = blob_folder(path)?;
    check_codecs(&file.graph, registry)?;
    let blobs = Blobs::of(&file.graph, &dir_name, registry);
    let mut report = WriteReport {
        graph: path.to_path_buf(),
        ..WriteReport::default()
    };
    if !blobs.payloads.is_empty() {
        blobs.write(&dir, &mut report)?;
        report.blob_dir = Some(dir);
    }
    let text = save_graph_with(&file.graph, &file.meta, registry, &|v| blobs.reference(v));
    write_atomic(path, text.as_bytes())?;
    Ok(report)
}

/// Refuse a graph holding a value that would need a blob but has no binary form: it would be
/// written as nothing, and the baked graph would not run.
fn check_codecs(graph: &kiln_core::graph::Graph, registry: &Registry) -> Result<(), BakeError> {
    for n in graph.nodes() {
        let values = n
            .params
            .iter()
            .map(|(k, v)| ("param", k, v))
            .chain(n.consts.iter().map(|(k, v)| ("input", k, v)));
        for (what, name, v) in values {
            if needs_blob(v) && encode_value(v, registry).is_none() {
                return Err(BakeError::NoCodec {
                    node: n.id.to_string(),
                    what,
                    name: name.clone(),
                    type_name: v.type_name().to_string(),
                });
            }
        }
    }
    Ok(())
}

/// The blob folder of a baked graph at `path`, with its name (for references).
fn blob_folder(path: &Path) -> Result<(PathBuf, String), BakeError> {
    let bad = |message: &str| BakeError::Destination {
        path: path.to_path_buf(),
        message: message.to_string(),
    };
    let dir = blob_dir_for(path).ok_or_else(|| bad("the path has no file name"))?;
    if dir == path {
        return Err(bad(&format!(
            "it would be its own blob folder (name the graph file with an extension other than `{BLOB_DIR_SUFFIX}`)"
        )));
    }
    let dir_name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| bad("the blob folder's name is not UTF-8"))?
        .to_string();
    Ok((dir, dir_name))
}

/// Every distinct value of a graph that goes into a blob, with its reference and payload.
struct Blobs {
    /// By the value's content key: the reference and the payload.
    payloads: HashMap<Key, (String, Vec<u8>)>,
    /// The value keys in the order the graph holds them.
    order: Vec<Key>,
}

impl Blobs {
    /// The blob values among the params and constants of `graph`, referenced inside the
    /// folder named `dir_name`, encoded with the codecs of `registry`.
    fn of(graph: &Graph, dir_name: &str, registry: &Registry) -> Blobs {
        let mut payloads: HashMap<Key, (String, Vec<u8>)> = HashMap::new();
        let mut order: Vec<Key> = vec![];
        for node in graph.nodes() {
            for v in node.params.values().chain(node.consts.values()) {
                if !needs_blob(v) {
                    continue;
                }
                let vk = value_key(v);
                if payloads.contains_key(&vk) {
                    continue;
                }
                let Some(payload) = encode_value(v, registry) else {
                    continue;
                };
                let key = Key(xxhash_rust::xxh3::xxh3_128(&payload));
                let reference = format!("{dir_name}/{}", blob_file_name(key));
                payloads.insert(vk, (reference, payload));
                order.push(vk);
            }
        }
        Blobs { payloads, order }
    }

    /// The reference `v` is written as, if it goes into a blob.
    fn reference(&self, v: &Value) -> Option<String> {
        if !needs_blob(v) {
            return None;
        }
        self.payloads.get(&value_key(v)).map(|(r, _)| r.clone())
    }

    /// Write each blob file into `dir` (created if missing), atomically, keeping one already
    /// there intact; counts go into `report`.
    fn write(&self, dir: &Path, report: &mut WriteReport) -> Result<(), WriteError> {
        std::fs::create_dir_all(dir).map_err(|source| WriteError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut done: HashSet<&str> = HashSet::new();
        for vk in &self.order {
            let (reference, payload) = &self.payloads[vk];
            if !done.insert(reference) {
                continue;
            }
            let key = Key(xxhash_rust::xxh3::xxh3_128(payload));
            let blob_path = dir.join(blob_file_name(key));
            report.blob_bytes += payload.len() as u64;
            let intact = read_entry_file(&blob_path, Links::Follow)
                .ok()
                .is_some_and(|b| check_entry(key, &b).is_ok());
            if intact {
                report.blobs_present += 1;
            } else {
                write_atomic(&blob_path, &encode_entry(key, payload))?;
                report.blobs_written += 1;
            }
        }
        Ok(())
    }
}
