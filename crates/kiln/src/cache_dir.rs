//! A persistent cache directory under a store, for one project's cooks: a second cook of the
//! same nodes, by this process or another, finds their results there.

use crate::error::ProjectError;
use kiln_core::cache::{Backing, KeepAll, Lru, Store};
use kiln_core::registry::Registry;
use kiln_io::DiskCache;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A cache directory opened for cooking.
#[derive(Clone)]
pub struct CacheDir {
    dir: PathBuf,
    store: Arc<Store>,
    disk: Arc<DiskCache>,
}

impl CacheDir {
    /// Open (creating it if needed) the cache directory `dir`, under an in-memory store that
    /// keeps every result (`bounded`: at most 256 MiB in memory, for long renders;
    /// everything still goes to the directory). Heavy values are written with the codecs of
    /// `reg`.
    pub fn open(dir: &Path, bounded: bool, reg: &Registry) -> Result<CacheDir, ProjectError> {
        let disk = Arc::new(DiskCache::open(dir, reg).map_err(|e| ProjectError::Cache {
            source: Box::new(e),
        })?);
        let store = if bounded {
            Store::new(Lru::new()).with_budget(256 << 20)
        } else {
            Store::new(KeepAll)
        };
        let backing: Arc<dyn Backing> = disk.clone();
        Ok(CacheDir {
            dir: dir.to_path_buf(),
            store: store.with_backing(backing).shared(),
            disk,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The store evaluators keep results in.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The directory's own counters (reads, hits, saves, damaged entries).
    pub fn disk(&self) -> &DiskCache {
        &self.disk
    }

    /// The damaged entries found and the entries saved, for a report line.
    pub fn entries(&self) -> String {
        let d = self.disk.stats();
        format!(
            "{} damaged, {} saved ({})",
            d.corrupt,
            d.saves,
            self.dir.display()
        )
    }
}
