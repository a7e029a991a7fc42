//! The size of a cache directory, and trimming it to a budget.
//!
//! [`disk_usage`] counts the entry files of a cache directory (the files named as entries in
//! its shard folders, `v1/<2 hex>/<30 hex>.kv`, that are regular files) and their bytes.
//! [`trim`] removes entries, oldest first (by modification time, which is when the entry was
//! written), until their bytes are at most the budget. Nothing but entry files is removed,
//! except the leftover temporary files of dead processes in the shard folders
//! ([`crate::leftovers`]). An entry another process reads meanwhile is either read whole
//! before it goes or found missing and recomputed, so trimming a cache in use is safe.
//!
//! ```
//! use kiln_core::cache::Backing;
//! use kiln_core::key::Key;
//! use kiln_core::value::Value;
//! use kiln_io::cache::{DiskCache, budget};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let cache = DiskCache::open(dir.path(), &kiln_image::registry()).unwrap();
//! cache.save(Key(1), &Value::Float(1.0));
//! cache.save(Key(2), &Value::Float(2.0));
//! let usage = budget::disk_usage(dir.path()).unwrap();
//! assert_eq!(usage.entries, 2);
//! let report = budget::trim(dir.path(), 0).unwrap();
//! assert_eq!(report.removed.entries, 2);
//! assert_eq!(budget::disk_usage(dir.path()).unwrap().entries, 0);
//! ```

use super::VERSION_DIR;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Entries and their bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// How many entry files.
    pub entries: u64,
    /// Their sizes, summed.
    pub bytes: u64,
}

impl Usage {
    fn add(&mut self, bytes: u64) {
        self.entries += 1;
        self.bytes += bytes;
    }
}

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} entries, {}", self.entries, human_bytes(self.bytes))
    }
}

/// What [`trim`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrimReport {
    /// The entries removed.
    pub removed: Usage,
    /// The entries left.
    pub left: Usage,
    /// Leftover temporary files of dead processes removed from the shard folders.
    pub leftovers: u64,
}

/// One entry file found by [`walk`].
struct Entry {
    path: PathBuf,
    bytes: u64,
    modified: SystemTime,
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The shard folders of the cache directory `dir` (unreadable ones are skipped).
fn shards(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let root = dir.join(VERSION_DIR);
    let listing = match std::fs::read_dir(&root) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(e),
    };
    Ok(listing
        .flatten()
        .filter(|s| is_hex(&s.file_name().to_string_lossy(), 2))
        .filter(|s| s.file_type().is_ok_and(|t| t.is_dir()))
        .map(|s| s.path())
        .collect())
}

/// Every entry file of the cache directory `dir`: regular files named as entries, not
/// followed through links.
fn walk(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let mut entries = vec![];
    for shard in shards(dir)? {
        let Ok(files) = std::fs::read_dir(&shard) else {
            continue;
        };
        for f in files.flatten() {
            let name = f.file_name();
            let is_entry = name
                .to_str()
                .and_then(|n| n.strip_suffix(".kv"))
                .is_some_and(|h| is_hex(h, 30));
            if !is_entry {
                continue;
            }
            // `DirEntry::metadata` does not follow links.
            let Ok(meta) = f.metadata() else { continue };
            if !meta.file_type().is_file() {
                continue;
            }
            entries.push(Entry {
                path: f.path(),
                bytes: meta.len(),
                modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            });
        }
    }
    Ok(entries)
}

/// The entries of the cache directory `dir` and their bytes (a missing directory has none).
pub fn disk_usage(dir: &Path) -> std::io::Result<Usage> {
    let mut usage = Usage::default();
    for e in walk(dir)? {
        usage.add(e.bytes);
    }
    Ok(usage)
}

/// Remove entries of the cache directory `dir`, oldest first, until their bytes are at most
/// `max_bytes`; entries of the same age go in path order. Entries that cannot be removed are
/// counted as left.
pub fn trim(dir: &Path, max_bytes: u64) -> std::io::Result<TrimReport> {
    let mut report = TrimReport::default();
    for shard in shards(dir)? {
        report.leftovers += crate::leftovers::remove_dead_leftovers(&shard)
            .map_or(0, |removed| removed.len() as u64);
    }
    let mut entries = walk(dir)?;
    entries.sort_by(|a, b| a.modified.cmp(&b.modified).then(a.path.cmp(&b.path)));
    let mut total: u64 = entries.iter().map(|e| e.bytes).sum();
    for e in entries {
        let removed = total > max_bytes
            && match std::fs::remove_file(&e.path) {
                Ok(()) => true,
                // Gone meanwhile (another trim): no longer here either way.
                Err(err) => err.kind() == std::io::ErrorKind::NotFound,
            };
        if removed {
            total -= e.bytes;
            report.removed.add(e.bytes);
        } else {
            report.left.add(e.bytes);
        }
    }
    Ok(report)
}

/// `n` bytes for people: `512 B`, `1.5 KiB`, `3.2 MiB`, `2.0 GiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_in_binary_units() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(5 << 20), "5.0 MiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }
}
