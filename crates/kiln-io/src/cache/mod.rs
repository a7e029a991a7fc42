//! The persistent result cache: a directory of content-addressed entry files, one per key, as
//! a [`Backing`] under a [`Store`](kiln_core::cache::Store).
//!
//! ```text
//! <dir>/v1/<first 2 hex digits of the key>/<remaining 30 hex digits>.kv
//! ```
//!
//! An entry file is a 48-byte header, then the payload:
//!
//! | offset | bytes | content |
//! | ---: | ---: | --- |
//! | 0 | 8 | magic `KILNCV01` ([`MAGIC`]) |
//! | 8 | 8 | payload length, u64 little-endian |
//! | 16 | 16 | XXH3-128 of the payload (seed 0), u128 little-endian |
//! | 32 | 16 | the entry's key, u128 little-endian |
//! | 48 | length | the payload: the value in the binary codec of [`encode_value`] (see [`crate::value_codec`]) |
//!
//! An entry is read back only if it is intact: it is a regular file (not a link, FIFO or
//! device: these are refused before anything opens them), the magic, the length (equal to
//! the file's size less the header; no more than that is ever read), the checksum and the
//! key (equal to the key asked for, so a file copied or renamed to another key's path is
//! refused) all match, and the payload decodes. A damaged entry reads as absent, is counted
//! ([`DiskStats::corrupt`]) and removed (a link or FIFO itself, never what it points to), so
//! the caller recomputes and rewrites it.
//!
//! Entries are written atomically: into a temporary file (`.kiln-*.tmp`) in the shard folder,
//! then renamed over the final name, so a reader never sees a partly written entry, and two
//! processes writing the same entry at once both succeed (they write the same bytes). A save
//! is skipped when an intact entry is already there.
//!
//! Heavy values are written by the codecs of the registry the cache is opened with
//! ([`DiskCache::open`]), so the cache keeps every heavy type whose crate registered a codec.
//! Programs with other codecs may share a directory: an intact entry holding a heavy type
//! this cache has no codec for reads as absent, is counted ([`DiskStats::unknown_type`]) and
//! left in place for the programs that can read it.
//!
//! The directory grows until it is trimmed: [`budget`] measures it and removes the oldest
//! entries until it fits a size.
//!
//! Nothing here panics or fails an evaluation: I/O failures are counted
//! ([`DiskStats::errors`]), values without a binary form are counted and not kept
//! ([`DiskStats::unsupported`]).
//!
//! ```
//! use kiln_core::cache::{Backing, KeepAll, Store};
//! use kiln_core::key::Key;
//! use kiln_core::value::Value;
//! use kiln_io::cache::DiskCache;
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let registry = kiln_image::registry();
//! let open = || Arc::new(DiskCache::open(dir.path(), &registry).unwrap());
//! let store = Store::new(KeepAll).with_backing(open());
//! store.insert(Key(7), Value::Float(1.5), Duration::ZERO);
//!
//! // Another process (here: another store) finds it on disk.
//! let again = Store::new(KeepAll).with_backing(open());
//! assert_eq!(again.get(Key(7)), Some(Value::Float(1.5)));
//! assert_eq!(again.stats().backing_hits, 1);
//! ```

pub mod budget;

use crate::entry_file::{EntryReadError, Links, read_entry_file};
use crate::value_codec::{decode_with, encode_with};
use kiln_core::cache::Backing;
use kiln_core::codec::Codecs;
use kiln_core::key::Key;
use kiln_core::registry::Registry;
use kiln_core::value::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::value_codec::{MAX_DEPTH, decode_value, encode_value};

pub use crate::entry_file::{HEADER_LEN, MAGIC};

/// The folder under the cache directory that holds entries of this format version: this
/// entry format ([`MAGIC`]) and keys of
/// [`KEY_FORMAT_VERSION`](kiln_core::key::KEY_FORMAT_VERSION). A new key format gets a new
/// folder, so entries filed under keys of another derivation are never looked up.
pub const VERSION_DIR: &str = "v1";

// A change of key derivation must name a new folder: this stops the build until it does.
const _: () = assert!(
    kiln_core::key::KEY_FORMAT_VERSION == 1,
    "the key format changed: name a new VERSION_DIR and update this check"
);

/// Why a cache directory could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// Creating the cache directory failed.
    #[error("cannot open cache directory `{}`: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Counters of a [`DiskCache`] (see [`DiskCache::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskStats {
    /// Calls to [`Backing::load`].
    pub loads: u64,
    /// Loads that returned an intact entry.
    pub hits: u64,
    /// Damaged entries found (not a regular file, or a bad magic, length, checksum, key or
    /// payload) and removed: by a load, or by a save before replacing one.
    pub corrupt: u64,
    /// Entries written.
    pub saves: u64,
    /// Saves skipped because an intact entry was already there.
    pub skipped: u64,
    /// Saves of values that have no binary form (see [`encode_value`]).
    pub unsupported: u64,
    /// Loads of intact entries that hold a heavy type without a codec in this cache's
    /// registry (written by a program that has one): read as absent and left in place.
    pub unknown_type: u64,
    /// I/O failures (reading, writing, renaming or removing an entry), other than a missing
    /// entry on load.
    pub errors: u64,
}

#[derive(Debug, Default)]
struct Counters {
    loads: AtomicU64,
    hits: AtomicU64,
    corrupt: AtomicU64,
    saves: AtomicU64,
    skipped: AtomicU64,
    unsupported: AtomicU64,
    unknown_type: AtomicU64,
    errors: AtomicU64,
}

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// A persistent result cache in a directory (see the module docs). Several `DiskCache`s, in
/// one process or many, may share a directory.
#[derive(Debug)]
pub struct DiskCache {
    dir: PathBuf,
    root: PathBuf,
    sync: bool,
    codecs: Codecs,
    counters: Counters,
}

impl DiskCache {
    /// Open (creating it if needed) the cache directory `dir`, writing and reading heavy
    /// values with the codecs of `registry`. Only `dir` and what is inside it are ever
    /// written.
    pub fn open(dir: impl AsRef<Path>, registry: &Registry) -> Result<DiskCache, CacheError> {
        let dir = dir.as_ref().to_path_buf();
        let root = dir.join(VERSION_DIR);
        std::fs::create_dir_all(&root).map_err(|source| CacheError::Io {
            path: dir.clone(),
            source,
        })?;
        Ok(DiskCache {
            dir,
            root,
            sync: false,
            codecs: registry.codecs().clone(),
            counters: Counters::default(),
        })
    }

    /// Flush each entry to the disk (`fsync`) before it is renamed into place. Off by
    /// default: an entry a crash leaves damaged is found by its checksum and recomputed.
    pub fn with_sync(mut self, sync: bool) -> DiskCache {
        self.sync = sync;
        self
    }

    /// The cache directory, as given to [`open`](Self::open).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds (or would hold) the entry of `key`.
    pub fn entry_path(&self, key: Key) -> PathBuf {
        let hex = key.to_hex();
        let (shard, rest) = hex.split_at(2);
        self.root.join(shard).join(format!("{rest}.kv"))
    }

    /// The counters so far.
    pub fn stats(&self) -> DiskStats {
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        DiskStats {
            loads: get(&c.loads),
            hits: get(&c.hits),
            corrupt: get(&c.corrupt),
            saves: get(&c.saves),
            skipped: get(&c.skipped),
            unsupported: get(&c.unsupported),
            unknown_type: get(&c.unknown_type),
            errors: get(&c.errors),
        }
    }

    /// The number of entry files in the directory (found by walking it; unreadable folders
    /// count as empty, and entries are not checked). See [`budget::disk_usage`] for their
    /// bytes too.
    pub fn entry_count(&self) -> usize {
        budget::disk_usage(&self.dir).map_or(0, |u| u.entries as usize)
    }

    /// Remove a damaged entry file (best effort: a failure is counted as an error).
    fn discard(&self, path: &Path) {
        bump(&self.counters.corrupt);
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => bump(&self.counters.errors),
        }
    }

    /// Write `bytes` to `path` through a temporary file in the same folder.
    fn write_entry(&self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let dir = path
            .parent()
            .ok_or_else(|| std::io::Error::other("entry path has no folder"))?;
        std::fs::create_dir_all(dir)?;
        // The cache's own folder: a FIFO, device or link found at an entry's path is damage
        // (refused when read); its name is removed (never written through), then the entry
        // written, as for any other damaged entry.
        if crate::files::check_destination(path).is_err() {
            std::fs::remove_file(path)?;
        }
        let tmp = crate::files::stage(path, bytes, self.sync)?;
        // On failure the temporary file is removed when the returned handle drops.
        crate::files::persist(tmp, path)
    }
}

/// The entry file for `payload` under `key`: header, then payload.
pub fn encode_entry(key: Key, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_128(payload).to_le_bytes());
    out.extend_from_slice(&key.0.to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of the entry file `bytes`, if the file is an intact entry for `key` (magic,
/// length, checksum and key match; the payload is not decoded).
pub fn check_entry(key: Key, bytes: &[u8]) -> Result<&[u8], String> {
    let Some((header, payload)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        return Err(format!(
            "the file is {} bytes, shorter than the {HEADER_LEN}-byte header",
            bytes.len()
        ));
    };
    let (magic, rest) = header.split_at(8);
    let (len, rest) = rest.split_at(8);
    let (sum, stored_key) = rest.split_at(16);
    if magic != MAGIC {
        return Err("not a kiln cache entry (bad magic)".into());
    }
    let len = u64::from_le_bytes(len.try_into().map_err(|_| "bad header")?);
    if u64::try_from(payload.len()).ok() != Some(len) {
        return Err(format!(
            "the header says {len} payload bytes, the file has {}",
            payload.len()
        ));
    }
    let sum = u128::from_le_bytes(sum.try_into().map_err(|_| "bad header")?);
    if xxhash_rust::xxh3::xxh3_128(payload) != sum {
        return Err("the checksum does not match the payload".into());
    }
    let stored = Key(u128::from_le_bytes(
        stored_key.try_into().map_err(|_| "bad header")?,
    ));
    if stored != key {
        return Err(format!("the entry is for key {stored}, not {key}"));
    }
    Ok(payload)
}

impl Backing for DiskCache {
    fn load(&self, key: Key) -> Option<Value> {
        bump(&self.counters.loads);
        let path = self.entry_path(key);
        let bytes = match read_entry_file(&path, Links::Refuse) {
            Ok(b) => b,
            Err(EntryReadError::Missing) => return None,
            Err(EntryReadError::Io(_)) => {
                bump(&self.counters.errors);
                return None;
            }
            // Not a regular file, or not the size its header says: damaged.
            Err(EntryReadError::NotAFile(_) | EntryReadError::Damaged(_)) => {
                self.discard(&path);
                return None;
            }
        };
        let payload = match check_entry(key, &bytes) {
            Ok(p) => p,
            Err(_) => {
                self.discard(&path);
                return None;
            }
        };
        match decode_with(payload, &self.codecs) {
            Ok(v) => {
                bump(&self.counters.hits);
                Some(v)
            }
            // An intact entry of a heavy type this cache has no codec for: another program's
            // result, left in place for it.
            Err(e) if e.is_unknown_heavy_type() => {
                bump(&self.counters.unknown_type);
                None
            }
            Err(_) => {
                self.discard(&path);
                None
            }
        }
    }

    fn save(&self, key: Key, value: &Value) {
        let Some(payload) = encode_with(value, &self.codecs) else {
            bump(&self.counters.unsupported);
            return;
        };
        let path = self.entry_path(key);
        match read_entry_file(&path, Links::Refuse) {
            Ok(existing) => {
                if check_entry(key, &existing).is_ok() {
                    bump(&self.counters.skipped);
                    return;
                }
                // Damaged: replaced below (the rename overwrites it).
                bump(&self.counters.corrupt);
            }
            // Not a regular file (the rename replaces a link or a FIFO, not what it points
            // to), or the wrong size: replaced below.
            Err(EntryReadError::NotAFile(_) | EntryReadError::Damaged(_)) => {
                bump(&self.counters.corrupt);
            }
            Err(EntryReadError::Missing) => {}
            Err(EntryReadError::Io(_)) => {
                // Unreadable: try to replace it anyway.
                bump(&self.counters.errors);
            }
        }
        match self.write_entry(&path, &encode_entry(key, &payload)) {
            Ok(()) => bump(&self.counters.saves),
            Err(_) => bump(&self.counters.errors),
        }
    }

    fn describe(&self) -> String {
        self.dir.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_header_checks_each_field() {
        let payload = encode_value(&Value::Int(9), &Registry::new()).expect("encodable");
        let e = encode_entry(Key(5), &payload);
        assert_eq!(e.len(), HEADER_LEN + payload.len());
        assert_eq!(check_entry(Key(5), &e), Ok(payload.as_slice()));
        assert!(check_entry(Key(6), &e).expect_err("key").contains("key"));
        let mut bad = e.clone();
        bad[0] ^= 1;
        assert!(
            check_entry(Key(5), &bad)
                .expect_err("magic")
                .contains("magic")
        );
        let mut bad = e.clone();
        bad[8] ^= 1;
        assert!(check_entry(Key(5), &bad).is_err());
        let mut bad = e.clone();
        bad[20] ^= 1;
        assert!(
            check_entry(Key(5), &bad)
                .expect_err("sum")
                .contains("checksum")
        );
        assert!(check_entry(Key(5), &e[..HEADER_LEN - 1]).is_err());
    }

    #[test]
    fn entry_paths_follow_the_layout() {
        let dir = tempfile::tempdir().expect("temp dir");
        let c = DiskCache::open(dir.path(), &Registry::new()).expect("open");
        let key = Key(0xab12_0000_0000_0000_0000_0000_0000_00ff);
        let p = c.entry_path(key);
        assert_eq!(
            p,
            dir.path()
                .join("v1")
                .join("ab")
                .join("1200000000000000000000000000ff.kv")
        );
        assert_eq!(c.describe(), dir.path().display().to_string());
    }
}
