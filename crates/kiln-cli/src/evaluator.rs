//! Choosing the evaluator of a run (`--evaluator`, `--parallel`) and the persistent cache of
//! `--cache DIR`: the command's names for what [`kiln`] builds.

use crate::args::EvaluatorKind;
use kiln_core::cache::Store;
use kiln_core::prelude::*;
use std::path::Path;
use std::sync::Arc;

pub(crate) use kiln::{memo_budget, parallel_policy};

impl From<EvaluatorKind> for kiln::EvaluatorKind {
    fn from(k: EvaluatorKind) -> kiln::EvaluatorKind {
        match k {
            EvaluatorKind::Lazy => kiln::EvaluatorKind::Lazy,
            EvaluatorKind::Eager => kiln::EvaluatorKind::Eager,
            EvaluatorKind::Compiled => kiln::EvaluatorKind::Compiled,
            EvaluatorKind::Incremental => kiln::EvaluatorKind::Incremental,
        }
    }
}

impl EvaluatorKind {
    /// A fresh evaluator of this kind (see [`kiln::EvaluatorKind::build`]).
    pub(crate) fn build(
        self,
        reg: &Registry,
        parallel: ParallelPolicy,
        store: Option<Arc<Store>>,
    ) -> Box<dyn Evaluator> {
        kiln::EvaluatorKind::from(self).build(reg, parallel, store)
    }
}

/// With `--cache-max SIZE`, trim the cache directory `dir` to `max` bytes and say so on
/// stderr (a failure to trim is said too, and does not fail the run).
pub(crate) fn trim_cache(dir: &Path, max: Option<u64>) {
    let Some(max) = max else { return };
    match crate::commands::cache::trim(dir, max) {
        Ok(line) => eprintln!("cache: {line}"),
        Err(e) => eprintln!("cache: {e}"),
    }
}
