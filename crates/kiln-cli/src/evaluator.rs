//! Choosing the evaluator of a run (`--evaluator`, `--parallel`) and the persistent cache of
//! `--cache DIR`: the command's names for what [`kiln`] builds.

use crate::args::EvaluatorKind;
use std::path::Path;

pub(crate) use kiln::parallel_policy;

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

/// With `--cache-max SIZE`, trim the cache directory `dir` to `max` bytes and say so on
/// stderr (a failure to trim is said too, and does not fail the run).
pub(crate) fn trim_cache(dir: &Path, max: Option<u64>) {
    let Some(max) = max else { return };
    match crate::commands::cache::trim(dir, max) {
        Ok(line) => eprintln!("cache: {line}"),
        Err(e) => eprintln!("cache: {e}"),
    }
}
