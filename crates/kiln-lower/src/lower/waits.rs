//! Plan values: scopes whose list, count or stop the plan must cook before it can write them.
//! The lowering writes everything it can, then cooks what the waiting scopes need (only the
//! cone of each value, through the evaluator it was given), resumes them, and repeats.

use super::LowerError;
use super::expand::{Frame, Lowering};
use super::flat::{Resolved, Src};
use super::scopes::copy_id;
use kiln_core::eval::{ErrorPolicy, Evaluator, Request};
use kiln_core::graph::{Graph, PortRef};
use kiln_core::op::Role;
use kiln_core::value::Value;
use kiln_doc::document::{Asset, Document, FoldScope, ForScope, Until};
use std::collections::HashMap;

/// A scope waiting on values.
pub(crate) enum Pending<'d> {
    /// A call whose single inputs `ports` are given lists a node computes: written once per
    /// element once they are cooked (see [`Lowering::map_call`]).
    Each {
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        ports: Vec<String>,
        depth: usize,
    },
    /// A `for` whose list is a node's answer.
    For {
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        scope: &'d ForScope,
        items: Src,
        depth: usize,
    },
    /// A `fold` whose count is a node's answer.
    FoldCount {
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        scope: &'d FoldScope,
        count: Src,
        depth: usize,
    },
    /// A `fold` with `until`, pass `pass` written, deciding whether to write the next.
    FoldStop {
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        scope: &'d FoldScope,
        pass: usize,
        limit: u32,
        depth: usize,
    },
}

impl Pending<'_> {
    fn call(&self) -> &str {
        match self {
            Pending::For { cid, .. }
            | Pending::Each { cid, .. }
            | Pending::FoldCount { cid, .. }
            | Pending::FoldStop { cid, .. } => cid,
        }
    }
    fn kind(&self) -> &'static str {
        match self {
            Pending::For { .. } => "for",
            Pending::Each { .. } => "each",
            _ => "fold",
        }
    }
    fn what(&self) -> String {
        match self {
            Pending::For { .. } => "items".into(),
            Pending::Each { ports, .. } => format!("the lists given to `{}`", ports.join("`, `")),
            Pending::FoldCount { .. } => "count".into(),
            Pending::FoldStop { pass, .. } => format!("stop after pass {pass}"),
        }
    }
}

impl<'d> Lowering<'d, '_> {
    /// What a pending scope needs cooked.
    fn needs(&self, p: &Pending<'d>) -> Result<Vec<Src>, LowerError> {
        Ok(match p {
            Pending::For { items, .. } => vec![items.clone()],
            Pending::Each { binds, ports, .. } => {
                ports.iter().filter_map(|p| binds.get(p).cloned()).collect()
            }
            Pending::FoldCount { count, .. } => vec![count.clone()],
            Pending::FoldStop {
                cid,
                asset,
                binds,
                scope,
                pass,
                ..
            } => match &scope.until {
                Some(Until::Output(o)) => vec![Src::Port(PortRef::new(copy_id(cid, *pass), o))],
                _ => {
                    let mut v = Vec::new();
                    for (i, o) in &scope.state {
                        v.push(self.state_before(cid, asset, binds, (i, o), *pass)?);
                        v.push(Src::Port(PortRef::new(copy_id(cid, *pass), o)));
                    }
                    v
                }
            },
        })
    }

    /// Write `top` out: every frame, then the waiting scopes, until nothing waits.
    pub(crate) fn run(
        &mut self,
        top: &'d Document,
        waits: &mut dyn Evaluator,
    ) -> Result<(), LowerError> {
        self.stack.push(Frame {
            doc: top,
            prefix: String::new(),
            binds: None,
            asset: None,
            depth: 0,
        });
        loop {
            while let Some(f) = self.stack.pop() {
                self.expand(f)?;
            }
            if self.entity_forms {
                self.entities(waits)?;
            }
            if self.pending.is_empty() {
                if self.entity_forms {
                    self.entities_left()?;
                }
                for n in std::mem::take(&mut self.outputs) {
                    self.emit(n)?;
                }
                return Ok(());
            }
            let mut ready = Vec::new();
            let mut blocked = None;
            let known = |p: &PortRef| self.cooked.contains_key(p);
            for (i, p) in self.pending.iter().enumerate() {
                let mut ok = true;
                for s in self.needs(p)? {
                    if let Err(port) = self.flat.cone_ready(&s, &known) {
                        ok = false;
                        blocked.get_or_insert((i, port));
                    }
                }
                if ok {
                    ready.push(i);
                }
            }
            if ready.is_empty() {
                let (i, on) = blocked.unwrap_or((0, PortRef::new("?", "?")));
                let p = &self.pending[i];
                return Err(LowerError::WaitCycle {
                    what: p.what(),
                    kind: p.kind(),
                    call: p.call().to_string(),
                    on: on.to_string(),
                });
            }
            let mut taken = Vec::new();
            for i in ready.into_iter().rev() {
                taken.push(self.pending.remove(i));
            }
            taken.reverse();
            let mut needs = Vec::new();
            let mut extra = Vec::new();
            for p in &taken {
                needs.extend(self.needs(p)?);
                // A fold stopped by an output cooks its pass's state too: the next pass reads
                // it, and its cone then stops there (each pass costs its own nodes, not all
                // the passes before it).
                if let Pending::FoldStop {
                    cid, scope, pass, ..
                } = p
                    && matches!(scope.until, Some(Until::Output(_)))
                {
                    for (_, o) in &scope.state {
                        extra.push(Src::Port(PortRef::new(copy_id(cid, *pass), o)));
                    }
                }
            }
            let answers = self.cook_with(&needs, &extra, waits);
            for p in taken {
                self.resume(p, &answers)?;
            }
        }
    }

    /// Cook the ports among `needs` (constants need no cooking): one request over the cones,
    /// which stop at the ports cooked before (their values are kept in `cooked` and written
    /// as constants; a port cooked before is answered from there).
    pub(crate) fn cook(
        &mut self,
        needs: &[Src],
        waits: &mut dyn Evaluator,
    ) -> HashMap<PortRef, Value> {
        self.cook_with(needs, &[], waits)
    }

    /// [`Lowering::cook`], cooking `extra` too in the same request: values kept for the
    /// waits to come, which the plan does not decide on now (not reported as waits).
    pub(crate) fn cook_with(
        &mut self,
        needs: &[Src],
        extra: &[Src],
        waits: &mut dyn Evaluator,
    ) -> HashMap<PortRef, Value> {
        let resolved = |l: &Self, list: &[Src]| -> Vec<PortRef> {
            let mut out: Vec<PortRef> = Vec::new();
            for s in list {
                if let Resolved::Port(p) = l.flat.resolve(s)
                    && !out.contains(&p)
                {
                    out.push(p);
                }
            }
            out
        };
        let asked = resolved(self, needs);
        let mut answers = HashMap::new();
        for p in &asked {
            let is_input = self
                .flat
                .node(&p.node)
                .and_then(|n| self.registry.get(&n.op).map(|o| (n, o.spec().role)))
                .filter(|(_, r)| *r == Role::GraphInput);
            match is_input {
                Some((n, _)) => {
                    let name = kiln_doc::document::input_name(n)
                        .unwrap_or(&n.id)
                        .to_string();
                    self.inputs_read.insert(name);
                }
                None => {
                    self.waited = true;
                    self.report.waits.push(p.to_string());
                }
            }
        }
        let mut ports: Vec<PortRef> = Vec::new();
        for p in asked.into_iter().chain(resolved(self, extra)) {
            if ports.contains(&p) || answers.contains_key(&p) {
                continue;
            }
            match self.cooked.get(&p) {
                Some(v) => {
                    answers.insert(p, v.clone());
                }
                None => ports.push(p),
            }
        }
        if ports.is_empty() {
            return answers;
        }
        let graph = self.cone_graph(&ports);
        let names: Vec<String> = ports.iter().map(|p| p.to_string()).collect();
        let request = Request::new(names.clone()).with_errors(ErrorPolicy::Propagate);
        match waits.evaluate(&graph, &request, self.ctx) {
            Ok(out) => {
                for (p, (_, v)) in ports.into_iter().zip(out.values) {
                    if !matches!(v, Value::Error(_)) {
                        self.cooked.insert(p.clone(), v.clone());
                    }
                    answers.insert(p, v);
                }
            }
            Err(e) => {
                let e = Value::Error(std::sync::Arc::new(e));
                for p in ports {
                    answers.insert(p, e.clone());
                }
            }
        }
        answers
    }

    /// The emitted nodes in the cones of `ports`, with their resolved wires, stopping at the
    /// ports cooked before (see [`super::flat::Flat::cone_graph`]).
    fn cone_graph(&self, ports: &[PortRef]) -> Graph {
        let registry = self.registry;
        let delay =
            |n: &kiln_core::graph::Node| registry.get(&n.op).is_some_and(|o| o.spec().delay);
        let fold = super::param_fold::PlanFold::of(self);
        let g = self.flat.cone_graph(ports, &self.cooked, &delay, &fold);
        // A plan that cooked a value stands on the whole context (`waited`), so the inputs
        // read here need no record of their own.
        g
    }

    /// The answer for one need.
    fn answer(&self, s: &Src, answers: &HashMap<PortRef, Value>) -> Value {
        match self.flat.resolve(s) {
            Resolved::Const(v) => v,
            Resolved::Port(p) => answers.get(&p).cloned().unwrap_or_default(),
            _ => Value::Empty,
        }
    }

    /// Continue a scope with its answers.
    fn resume(
        &mut self,
        p: Pending<'d>,
        answers: &HashMap<PortRef, Value>,
    ) -> Result<(), LowerError> {
        let needs = self.needs(&p)?;
        let values: Vec<Value> = needs.iter().map(|s| self.answer(s, answers)).collect();
        if let Some(Value::Error(e)) = values.iter().find(|v| matches!(v, Value::Error(_))) {
            return Err(LowerError::Wait {
                what: p.what(),
                kind: p.kind(),
                call: p.call().to_string(),
                source: Box::new((**e).clone()),
            });
        }
        match p {
            Pending::Each {
                cid,
                asset,
                binds,
                ports,
                depth,
            } => {
                for (port, v) in ports.iter().zip(values) {
                    if let Some(Resolved::Port(at)) = binds.get(port).map(|s| self.flat.resolve(s))
                    {
                        self.cooked_lists.insert(at, v);
                    }
                }
                if !self.map_call(&cid, asset, &binds, depth)? {
                    // Not lists after all: the call is written once.
                    self.stack.push(Frame {
                        doc: &asset.doc,
                        prefix: cid,
                        binds: Some(binds),
                        asset: Some(asset),
                        depth,
                    });
                }
                Ok(())
            }
            Pending::For {
                cid,
                asset,
                binds,
                scope,
                depth,
                ..
            } => {
                let v = values.into_iter().next().unwrap_or_default();
                self.write_for(cid, asset, binds, scope, v, depth)
            }
            Pending::FoldCount {
                cid,
                asset,
                binds,
                scope,
                depth,
                ..
            } => {
                let v = values.into_iter().next().unwrap_or_default();
                let n = self.fold_count(&cid, scope, &v)?;
                self.fold_passes(cid, asset, binds, scope, n, depth)
            }
            Pending::FoldStop {
                cid,
                asset,
                binds,
                scope,
                pass,
                limit,
                depth,
            } => {
                let stop = match &scope.until {
                    Some(Until::Output(o)) => match values.first() {
                        Some(Value::Bool(b)) => *b,
                        other => {
                            return Err(LowerError::WaitType {
                                what: format!("stop `{o}` after pass {pass}"),
                                kind: "fold",
                                call: cid,
                                expected: "a bool",
                                found: other.map(|v| v.type_name()).unwrap_or("nothing").into(),
                            });
                        }
                    },
                    _ => values.chunks(2).all(|pair| pair[0].same_bits(&pair[1])),
                };
                // The state the pass before left is read by no later pass: its values are
                // not kept (only the last pass's are, for the next).
                if pass > 0 {
                    for (_, o) in &scope.state {
                        let before = Src::Port(PortRef::new(copy_id(&cid, pass - 1), o));
                        if let Resolved::Port(p) = self.flat.resolve(&before) {
                            self.cooked.remove(&p);
                        }
                    }
                }
                let passes = pass + 1;
                let how = match &scope.until {
                    Some(Until::Output(o)) => o.clone(),
                    _ => "changed".to_string(),
                };
                if stop {
                    return self.finish_fold(&cid, asset, &binds, scope, passes, Some(how));
                }
                if passes as u32 >= limit {
                    if scope.count.is_some() {
                        return self.finish_fold(&cid, asset, &binds, scope, passes, None);
                    }
                    return Err(LowerError::FoldCap {
                        call: cid,
                        max: scope.max,
                    });
                }
                self.write_pass(&cid, asset, &binds, scope, passes, depth);
                self.pending.push(Pending::FoldStop {
                    cid,
                    asset,
                    binds,
                    scope,
                    pass: passes,
                    limit,
                    depth,
                });
                Ok(())
            }
        }
    }
}
