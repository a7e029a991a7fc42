//! Which evaluator cooks a request, built the one way every front end builds it.

use kiln_core::cache::Store;
use kiln_core::eval::{CompiledEvaluator, EagerEvaluator, IncrementalEvaluator, ParallelPolicy};
use kiln_core::prelude::*;
use std::sync::Arc;

/// The evaluation strategies; every one gives the same bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EvaluatorKind {
    /// Pulls from the outputs, memoised by content key (the default).
    #[default]
    Lazy,
    /// Runs the whole requested cone in order.
    Eager,
    /// Compiles the cone into a schedule kept across requests.
    Compiled,
    /// Keeps values between requests and reruns only what changed.
    Incremental,
}

impl EvaluatorKind {
    /// Every kind, in the order above.
    pub const ALL: [EvaluatorKind; 4] = [
        EvaluatorKind::Lazy,
        EvaluatorKind::Eager,
        EvaluatorKind::Compiled,
        EvaluatorKind::Incremental,
    ];

    /// The kind's name (`lazy`, `eager`, `compiled`, `incremental`).
    pub fn name(self) -> &'static str {
        match self {
            EvaluatorKind::Lazy => "lazy",
            EvaluatorKind::Eager => "eager",
            EvaluatorKind::Compiled => "compiled",
            EvaluatorKind::Incremental => "incremental",
        }
    }

    /// The kind of that name.
    pub fn parse(name: &str) -> Option<EvaluatorKind> {
        EvaluatorKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// A fresh evaluator of this kind under `parallel`, keeping results in `store` when one
    /// is given (every evaluator can). Every kind lets go of an intermediate value once the
    /// nodes that read it ran, and the lazy evaluator's own memo is bounded by
    /// [`memo_budget`].
    pub fn build(
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
            // One-shot cooks: compile on this thread rather than serving lazily meanwhile.
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
/// (`kiln_core::memory`), or 1 GiB when there is none.
pub fn memo_budget() -> usize {
    kiln_core::memory::limit().map_or(1 << 30, |l| usize::try_from(l / 4).unwrap_or(usize::MAX))
}

/// The parallel policy of `threads`: `None` runs on the calling thread; `Some(None)` one
/// thread per core; `Some(Some(n))` on `n` threads.
pub fn parallel_policy(threads: Option<Option<usize>>) -> ParallelPolicy {
    match threads {
        None => ParallelPolicy::Sequential,
        Some(threads) => ParallelPolicy::Rayon {
            threads,
            min_cost: None,
        },
    }
}
