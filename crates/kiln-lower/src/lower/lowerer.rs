//! Plans made once and reused: a [`Lowerer`] keeps its last plan with what it stands on (the
//! document's digest, and the values of the graph inputs it read, or the whole context when
//! it cooked nodes for values) and answers the kept plan while those hold.

use super::{Limits, LowerError, Lowered, lower_with};
use kiln_core::context::EvalContext;
use kiln_core::eval::LazyEvaluator;
use kiln_core::key::{Key, KeyHasher};
use kiln_core::registry::Registry;
use kiln_doc::document::Document;
use std::sync::Arc;

/// How many plans a lowerer made and reused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerCounts {
    /// Plans made.
    pub made: u64,
    /// Plans answered from the kept one.
    pub reused: u64,
    /// Edits applied to the kept plan in place (value edits: see [`super::Live`]).
    pub patched: u64,
}

struct Kept {
    digest: Key,
    stands: Key,
    plan: Arc<Lowered>,
}

/// Makes plans and keeps the last one (see the [module docs](self)). The values plans wait on
/// are cooked through its own lazy evaluator, whose memo lasts as long as the lowerer.
pub struct Lowerer {
    registry: Registry,
    waits: LazyEvaluator,
    limits: Limits,
    kept: Option<Kept>,
    counts: LowerCounts,
}

impl Lowerer {
    /// A lowerer over `registry`.
    pub fn new(registry: Registry) -> Lowerer {
        Lowerer {
            waits: LazyEvaluator::new(registry.clone()),
            registry,
            limits: Limits::default(),
            kept: None,
            counts: LowerCounts::default(),
        }
    }
    /// The same lowerer, cooking the values plans wait on into `store` (shared with the
    /// evaluator of the cook that follows, which then finds them there rather than cooking
    /// them again).
    pub fn with_store(mut self, store: Arc<kiln_core::cache::Store>) -> Lowerer {
        self.waits = LazyEvaluator::new(self.registry.clone()).with_store(store);
        self.kept = None;
        self
    }
    /// The same lowerer under other limits.
    pub fn with_limits(mut self, limits: Limits) -> Lowerer {
        self.limits = limits;
        self
    }
    /// Plans made and reused so far.
    pub fn counts(&self) -> LowerCounts {
        self.counts
    }
    /// Forget the kept plan.
    pub fn clear(&mut self) {
        self.kept = None;
    }
    /// The registry plans are made against.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The kept plan, to edit in place, when it was made for document digest `digest` and
    /// nothing else holds it.
    pub(super) fn kept_mut(&mut self, digest: Key) -> (&Registry, Option<&mut Lowered>) {
        let kept = self
            .kept
            .as_mut()
            .filter(|k| k.digest == digest)
            .and_then(|k| Arc::get_mut(&mut k.plan));
        (&self.registry, kept)
    }
    /// The kept plan now stands for the document of digest `digest` (after an edit in place).
    pub(super) fn patched(&mut self, digest: Key) {
        if let Some(k) = self.kept.as_mut() {
            k.digest = digest;
            self.counts.patched += 1;
        }
    }

    /// The plan of `doc` (whose digest is `digest`: see [`kiln_doc::document::DocDigest`], kept by the
    /// caller and patched on edits) at `ctx`: the kept one when it still stands, else a new
    /// one, which is kept.
    pub fn lower(
        &mut self,
        doc: &Document,
        digest: Key,
        ctx: &EvalContext,
    ) -> Result<Arc<Lowered>, LowerError> {
        if let Some(k) = &self.kept
            && k.digest == digest
            && k.stands == stands_on(&k.plan, ctx)
        {
            self.counts.reused += 1;
            return Ok(k.plan.clone());
        }
        self.kept = None;
        let lowered = lower_with(doc, &self.registry, ctx, &mut self.waits, self.limits)?;
        let plan = Arc::new(lowered);
        self.counts.made += 1;
        self.kept = Some(Kept {
            digest,
            stands: stands_on(&plan, ctx),
            plan: plan.clone(),
        });
        Ok(plan)
    }
}

/// The key of what `plan` read from `ctx`: the graph inputs it read, the clock when it
/// sampled a curve, and the whole context when it cooked nodes for values.
fn stands_on(plan: &Lowered, ctx: &EvalContext) -> Key {
    let mut h = KeyHasher::new();
    if plan.waited || plan.clock {
        h.f64(ctx.time);
        h.i64(ctx.frame);
    }
    let names: Vec<&String> = if plan.waited {
        h.u64(ctx.seed);
        ctx.inputs.keys().collect()
    } else {
        plan.inputs_read.iter().collect()
    };
    // Both are sorted (a BTreeMap's keys, a BTreeSet).
    for n in names {
        h.str(n);
        match ctx.inputs.get(n) {
            Some(v) => {
                h.u8(1);
                v.hash_into(&mut h)
            }
            None => h.u8(0),
        }
    }
    h.finish_key()
}
