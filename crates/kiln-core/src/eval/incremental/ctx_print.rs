//! The context fields that can change a node's result, kept to compare with the next request's.

use crate::context::EvalContext;
use crate::value::Value;
use std::collections::BTreeMap;

/// The context fields that can change a node's result, compared between requests.
#[derive(Clone, PartialEq)]
pub(super) struct CtxPrint {
    pub(super) time: u64,
    pub(super) frame: i64,
    pub(super) dt: u64,
    pub(super) seed: u64,
    pub(super) preview: bool,
    pub(super) resolution: Option<(u32, u32)>,
    pub(super) inputs: BTreeMap<String, Value>,
    pub(super) latches: BTreeMap<String, Value>,
}

impl CtxPrint {
    pub(super) fn of(c: &EvalContext) -> Self {
        CtxPrint {
            time: c.time.to_bits(),
            frame: c.frame,
            dt: c.dt.to_bits(),
            seed: c.seed,
            preview: c.preview,
            resolution: c.resolution,
            inputs: c.inputs.clone(),
            latches: c.latches.clone(),
        }
    }
    pub(super) fn same(&self, c: &EvalContext) -> bool {
        self.time == c.time.to_bits()
            && self.frame == c.frame
            && self.dt == c.dt.to_bits()
            && self.seed == c.seed
            && self.preview == c.preview
            && self.resolution == c.resolution
            && self.inputs.len() == c.inputs.len()
            && self
                .inputs
                .iter()
                .zip(&c.inputs)
                .all(|((a, x), (b, y))| a == b && x.same_bits(y))
            && self.latches.len() == c.latches.len()
            && self
                .latches
                .iter()
                .zip(&c.latches)
                .all(|((a, x), (b, y))| a == b && x.same_bits(y))
    }
}
