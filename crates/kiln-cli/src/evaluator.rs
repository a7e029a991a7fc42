//! Choosing and building the evaluator of a run: `--evaluator`, `--parallel` and the
//! persistent cache of `--cache DIR`.

use crate::args::EvaluatorKind;
use crate::common::CliError;
use kiln_core::eval::{CompiledEvaluator, EagerEvaluator, IncrementalEvaluator, ParallelPolicy};
use kiln_core::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

impl EvaluatorKind {
    /// Whether `--parallel` applies to this evaluator.
    fn supports_parallel(self) -> bool {
        matches!(self, EvaluatorKind::Eager | EvaluatorKind::Compiled)
    }

    /// A fresh evaluator of this kind under `parallel` (which only eager and compiled use).
    pub(crate) fn build(self, reg: &Registry, parallel: ParallelPolicy) -> Box<dyn Evaluator> {
        match self {
            EvaluatorKind::Lazy => Box::new(LazyEvaluator::new(reg.clone())),
            EvaluatorKind::Eager => {
                Box::new(EagerEvaluator::new(reg.clone()).with_parallel(parallel))
            }
            // One-shot runs: compile on this thread rather than serving lazily meanwhile.
            EvaluatorKind::Compiled => Box::new(
                CompiledEvaluator::new(reg.clone())
                    .with_background(false)
                    .with_parallel(parallel),
            ),
            EvaluatorKind::Incremental => Box::new(IncrementalEvaluator::new(reg.clone())),
        }
    }
}

/// The policy of `--parallel [THREADS]` for `evaluator`; refuses an evaluator that runs
/// sequentially only.
pub(crate) fn parallel_policy(
    parallel: Option<Option<usize>>,
    evaluator: EvaluatorKind,
) -> Result<ParallelPolicy, CliError> {
    let Some(threads) = parallel else {
        return Ok(ParallelPolicy::Sequential);
    };
    if !evaluator.supports_parallel() {
        return Err(CliError(format!(
            "--parallel works with the eager and compiled evaluators only; the {} evaluator \
             runs sequentially (add --evaluator eager or --evaluator compiled)",
            evaluator.name()
        )));
    }
    Ok(ParallelPolicy::Rayon {
        threads,
        min_cost: None,
    })
}

/// The persistent cache of `--cache DIR`: a store over the cache directory, for one
/// evaluator.
pub(crate) struct CacheRun {
    dir: PathBuf,
    pub(crate) store: Arc<kiln_core::cache::Store>,
    pub(crate) disk: Arc<kiln_io::DiskCache>,
}

impl CacheRun {
    /// Refuse `--cache` for an evaluator that keeps no results.
    pub(crate) fn check(kind: EvaluatorKind) -> Result<(), CliError> {
        match kind {
            EvaluatorKind::Lazy | EvaluatorKind::Incremental => Ok(()),
            other => Err(CliError(format!(
                "--cache works with the lazy and incremental evaluators only; the {} evaluator \
                 keeps no results (use --evaluator lazy or --evaluator incremental)",
                other.name()
            ))),
        }
    }

    /// Open (creating it if needed) the cache directory `dir`, under an in-memory store
    /// that keeps every result (`bounded`: at most 256 MiB in memory, for long renders;
    /// everything still goes to the directory).
    pub(crate) fn open(dir: &Path, bounded: bool, reg: &Registry) -> Result<CacheRun, CliError> {
        use kiln_core::cache::{KeepAll, Lru, Store};
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

    /// A `kind` evaluator (lazy or incremental: see [`CacheRun::check`]) over the store.
    pub(crate) fn evaluator(&self, kind: EvaluatorKind, reg: &Registry) -> Box<dyn Evaluator> {
        match kind {
            EvaluatorKind::Incremental => {
                Box::new(IncrementalEvaluator::new(reg.clone()).with_store(self.store.clone()))
            }
            _ => Box::new(LazyEvaluator::new(reg.clone()).with_store(self.store.clone())),
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
