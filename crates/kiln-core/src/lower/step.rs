//! Writing a `step` scope out: one solver node that runs the body once per fixed step.

use super::PlanError;
use super::expand::Lowering;
use super::flat::Src;
use crate::doc::{Asset, StepScope};
use std::collections::HashMap;

impl<'d> Lowering<'d, '_> {
    /// Write step scope `cid`.
    pub(crate) fn write_step(
        &mut self,
        cid: String,
        _asset: &'d Asset,
        _binds: HashMap<String, Src>,
        _scope: &'d StepScope,
    ) -> Result<(), PlanError> {
        Err(PlanError::Scope {
            kind: "step",
            call: cid,
            message: "step scopes are not written yet".into(),
        })
    }
}
