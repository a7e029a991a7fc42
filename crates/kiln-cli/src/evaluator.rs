//! Choosing and building the evaluator of a run: `--evaluator`, `--parallel` and the
//! persistent cache of `--cache DIR`.

use crate::args::EvaluatorKind;
use crate::common::CliError;
use kiln_core::cache::Store;
use kiln_core::eval::{CompiledEvaluator, EagerEvaluator, IncrementalEvaluator, ParallelPolicy};
use kiln_core::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

impl EvaluatorKind {
    /// A fresh evaluator of this kind under `parallel`, keeping results in `store` when one
    /// is given (every evaluator can: see `kiln_core::eval`). Every kind lets go of an
    /// intermediate value once the nodes that read it ran (eager and compiled always do;
    /// lazy and incremental are asked to), and the lazy evaluator's own memo is bounded by
    /// [`memo_budget`].
    pub(crate) fn build(
        self,
        reg: &Registry,
        parallel: ParallelPolicy,
        store: Option<Arc<Store>>,
    ) -> Box<dyn Evaluator> {
        let reg = reg.clone();
        match (self, store) {
            (EvaluatorKind::Lazy, store) => {
                let e = LazyEvaluator::new(reg)
                    .with_parallel(parallel)
                    .with_release(true)
                    .with_memo_budget(memo_budget());
                match store {
                    Some(s) => Box::new(e.with_store(s)),
                    None => Box::new(e),
                }
            }
            (EvaluatorKind::Eager, None) => {
                Box::new(EagerEvaluator::new(reg).with_parallel(parallel))
            }
            (EvaluatorKind::Eager, Some(s)) => Box::new(
                EagerEvaluator::new(reg)
                    .with_parallel(parallel)
                    .with_store(s),
            ),
            // One-shot runs: compile on this thread rather than serving lazily meanwhile.
            (EvaluatorKind::Compiled, store) => {
                let e = CompiledEvaluator::new(reg)
                    .with_background(false)
                    .with_parallel(parallel);
                match store {
                    Some(s) => Box::new(e.with_store(s)),
                    None => Box::new(e),
                }
            }
            (EvaluatorKind::Incremental, store) => {
                let e = IncrementalEvaluator::new(reg)
                    .with_parallel(parallel)
                    .with_release(true);
                match store {
                    Some(s) => Box::new(e.with_store(s)),
                    None => Box::new(e),
                }
            }
        }
    }
}

/// The most bytes an evaluator's memo of results keeps: a quarter of the memory budget
/// (`--memory-limit`), or 1 GiB when there is none.
pub(crate) fn memo_budget() -> usize {
    kiln_core::memory::limit().map_or(1 << 30, |l| usize::try_from(l / 4).unwrap_or(usize::MAX))
}

/// The policy of `--parallel [THREADS]` (`None`: sequential).
pub(crate) fn parallel_policy(parallel: Option<Option<usize>>) -> ParallelPolicy {
    match parallel {
        None => ParallelPolicy::Sequential,
        Some(threads) => ParallelPolicy::Rayon {
            threads,
            min_cost: None,
        },
    }
}

/// The persistent cache of `--cache DIR`: a store over the cache directory, for one
/// evaluator.
pub(crate) struct CacheRun {
    dir: PathBuf,
    pub(crate) store: Arc<kiln_core::cache::Store>,
    pub(crate) disk: Arc<kiln_io::DiskCache>,
}

impl CacheRun {
    /// Open (creating it if needed) the cache directory `dir`, under an in-memory store
    /// that keeps every result (`bounded`: at most 256 MiB in memory, for long renders;
    /// everything still goes to the directory).
    pub(crate) fn open(dir: &Path, bounded: bool, reg: &Registry) -> Result<CacheRun, CliError> {
        use kiln_core::cache::{KeepAll, Lru};
        let disk = Arc::new(
            kiln_io::DiskCache::open(dir, reg).map_err(|e| CliError(format!("--cache: {e}")))?,
        );
        let store = if bounded {
            Store::new(Lru::new()).with_budget(256 << 20)
        } else {
            Store::new(KeepAll)
        };
        let backing: Arc<dyn kiln_core::cache::Backing> = disk.clone();
        Ok(CacheRun {
            dir: dir.to_path_buf(),
            store: store.with_backing(backing).shared(),
            disk,
        })
    }

    /// With `--cache-max SIZE`, trim the directory to `max` bytes and say so on stderr (a
    /// failure to trim is said too, and does not fail the run).
    pub(crate) fn trim(&self, max: Option<u64>) {
        let Some(max) = max else { return };
        match crate::commands::cache::trim(&self.dir, max) {
            Ok(line) => eprintln!("cache: {line}"),
            Err(e) => eprintln!("cache: {e}"),
        }
    }

    /// The damaged entries found and the entries saved, for the report line.
    pub(crate) fn entries(&self) -> String {
        let d = self.disk.stats();
        format!(
            "{} damaged, {} saved ({})",
            d.corrupt,
            d.saves,
            self.dir.display()
        )
    }
}
