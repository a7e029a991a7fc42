//! Writing `for` and `fold` scopes out: one frame per copy or pass, chained through carries
//! and states, with the results collected or taken from the last pass.

use super::LowerError;
use super::expand::{Frame, Lowering};
use super::flat::{Resolved, Src};
use super::ops::{GATHER_OP, GATHER_PORTS, GATHER_WIDTH};
use super::report::ScopeReport;
use super::waits::Pending;
use kiln_core::graph::{Node, NodeId, PortRef};
use kiln_core::value::Value;
use kiln_doc::document::{Asset, FoldScope, ForScope, Until};
use std::collections::HashMap;

/// The id of copy or pass `i` of scope `cid`.
pub(crate) fn copy_id(cid: &str, i: usize) -> String {
    format!("{cid}[{i}]")
}

impl<'d> Lowering<'d, '_> {
    /// Start a `for`: written now when its list is known, else once the plan has cooked it.
    pub(crate) fn begin_for(
        &mut self,
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        scope: &'d ForScope,
        items: Src,
        depth: usize,
    ) -> Result<(), LowerError> {
        check_pairs(&cid, "for", "carry", asset, &scope.carry)?;
        match self.flat.read_by_plan(&items) {
            Resolved::Const(v) => self.write_for(cid, asset, binds, scope, v, depth),
            Resolved::Empty => Err(LowerError::Scope {
                kind: "for",
                call: cid,
                message: "its `items` are unset".into(),
            }),
            _ => {
                self.pending.push(Pending::For {
                    cid,
                    asset,
                    binds,
                    scope,
                    items,
                    depth,
                });
                Ok(())
            }
        }
    }

    /// Write a `for` over a known list.
    pub(crate) fn write_for(
        &mut self,
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        scope: &'d ForScope,
        items: Value,
        depth: usize,
    ) -> Result<(), LowerError> {
        let Value::List(items) = items else {
            return Err(LowerError::WaitType {
                what: "items".into(),
                kind: "for",
                call: cid,
                expected: "a list",
                found: items.type_name().to_string(),
            });
        };
        let n = items.len();
        if n as u64 > self.limits.max_copies {
            return Err(LowerError::TooLarge {
                what: "for",
                call: cid,
                size: n as u64,
                unit: "copies",
                limit: self.limits.max_copies,
            });
        }
        let has = |name: &str| asset.interface.input(name).is_some();
        for i in (0..n).rev() {
            let copy = copy_id(&cid, i);
            let mut b = binds.clone();
            if has(&scope.item) {
                b.insert(scope.item.clone(), Src::Const(items[i].clone()));
            }
            if has("index") {
                b.insert("index".into(), Src::Const(Value::Int(i as i64)));
            }
            if has("count") {
                b.insert("count".into(), Src::Const(Value::Int(n as i64)));
            }
            if i > 0 {
                for (k, o) in &scope.carry {
                    b.insert(k.clone(), Src::Port(PortRef::new(copy_id(&cid, i - 1), o)));
                }
            }
            self.stack.push(Frame {
                doc: &asset.doc,
                prefix: copy,
                binds: Some(b),
                asset: Some(asset),
                depth,
            });
        }
        for o in &asset.interface.outputs {
            let src = if let Some((k, _)) = scope.carry.iter().find(|(_, out)| *out == o.name) {
                if n > 0 {
                    Src::Port(PortRef::new(copy_id(&cid, n - 1), &o.name))
                } else {
                    self.initial(&cid, asset, &binds, k)?
                }
            } else {
                let parts: Vec<Src> = (0..n)
                    .map(|i| Src::Port(PortRef::new(copy_id(&cid, i), &o.name)))
                    .collect();
                self.gather(&cid, &o.name, parts)?
            };
            self.flat.alias(PortRef::new(cid.clone(), &o.name), src);
        }
        self.alias_default_output(&cid, asset);
        self.report.scopes.push(ScopeReport::new(&cid, "for", n));
        Ok(())
    }

    /// What a carried or state value is before the first copy: the call's binding, else the
    /// input's default.
    fn initial(
        &self,
        cid: &str,
        asset: &Asset,
        binds: &HashMap<String, Src>,
        name: &str,
    ) -> Result<Src, LowerError> {
        if let Some(s) = binds.get(name) {
            return Ok(s.clone());
        }
        match asset.interface.input(name).and_then(|d| d.default.clone()) {
            Some(v) => Ok(Src::Const(v)),
            None => Err(LowerError::MissingInput {
                call: cid.to_string(),
                asset: asset.name.clone(),
                input: name.to_string(),
            }),
        }
    }

    /// Collect `parts` into one list through a tree of gathers; returns the tree's root.
    pub(crate) fn gather(
        &mut self,
        cid: &str,
        output: &str,
        parts: Vec<Src>,
    ) -> Result<Src, LowerError> {
        if parts.is_empty() {
            return Ok(Src::Const(Value::List(Vec::new().into())));
        }
        let mut level = 0;
        let mut cur = parts;
        loop {
            let mut next = Vec::with_capacity(cur.len().div_ceil(GATHER_WIDTH));
            for (j, chunk) in cur.chunks(GATHER_WIDTH).enumerate() {
                let id = format!("{cid}/{output}~{level}-{j}");
                let mut node = Node {
                    id: NodeId::from(id.as_str()),
                    op: GATHER_OP.to_string(),
                    params: Default::default(),
                    consts: Default::default(),
                };
                node.params
                    .insert("n".into(), Value::Int(chunk.len() as i64));
                node.params.insert("nest".into(), Value::Bool(level > 0));
                self.emit(node)?;
                for (k, s) in chunk.iter().enumerate() {
                    self.flat
                        .wire(s.clone(), PortRef::new(id.as_str(), GATHER_PORTS[k]));
                }
                next.push(Src::Port(PortRef::new(id.as_str(), "out")));
            }
            if next.len() == 1 {
                return Ok(next.remove(0));
            }
            cur = next;
            level += 1;
        }
    }

    /// Start a `fold`.
    pub(crate) fn begin_fold(
        &mut self,
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        scope: &'d FoldScope,
        count: Option<Src>,
        depth: usize,
    ) -> Result<(), LowerError> {
        check_pairs(&cid, "fold", "state", asset, &scope.state)?;
        if let Some(Until::Output(o)) = &scope.until
            && asset.interface.output(o).is_none()
        {
            return Err(LowerError::Scope {
                kind: "fold",
                call: cid,
                message: format!(
                    "its `until` names `{o}`, which `{}` does not output",
                    asset.name
                ),
            });
        }
        match count {
            None if scope.until.is_none() => Err(LowerError::Scope {
                kind: "fold",
                call: cid,
                message: "it needs a `count`, an `until`, or both".into(),
            }),
            None => self.fold_passes(cid, asset, binds, scope, scope.max, depth),
            Some(c) => match self.flat.read_by_plan(&c) {
                Resolved::Const(v) => {
                    let n = self.fold_count(&cid, scope, &v)?;
                    self.fold_passes(cid, asset, binds, scope, n, depth)
                }
                Resolved::Empty => Err(LowerError::Scope {
                    kind: "fold",
                    call: cid,
                    message: "its `count` is unset".into(),
                }),
                _ => {
                    self.pending.push(Pending::FoldCount {
                        cid,
                        asset,
                        binds,
                        scope,
                        count: c,
                        depth,
                    });
                    Ok(())
                }
            },
        }
    }

    /// A fold's count from its value: a whole number from 0 to the fold's `max`.
    pub(crate) fn fold_count(
        &self,
        cid: &str,
        scope: &FoldScope,
        v: &Value,
    ) -> Result<u32, LowerError> {
        let n = match v {
            Value::Int(i) => *i,
            Value::Float(f) if f.fract() == 0.0 && f.is_finite() => *f as i64,
            other => {
                return Err(LowerError::WaitType {
                    what: "count".into(),
                    kind: "fold",
                    call: cid.to_string(),
                    expected: "a whole number",
                    found: format!("{other:?}"),
                });
            }
        };
        if n < 0 {
            return Err(LowerError::Scope {
                kind: "fold",
                call: cid.to_string(),
                message: format!("its count is {n}; it must be 0 or more"),
            });
        }
        if n > scope.max as i64 {
            return Err(LowerError::TooLarge {
                what: "fold",
                call: cid.to_string(),
                size: n as u64,
                unit: "passes",
                limit: scope.max as u64,
            });
        }
        Ok(n as u32)
    }

    /// Write a fold of at most `limit` passes: all at once without `until`, else the first
    /// pass, with its stop waited on.
    pub(crate) fn fold_passes(
        &mut self,
        cid: String,
        asset: &'d Asset,
        binds: HashMap<String, Src>,
        scope: &'d FoldScope,
        limit: u32,
        depth: usize,
    ) -> Result<(), LowerError> {
        if scope.until.is_none() || limit == 0 {
            for k in (0..limit as usize).rev() {
                self.write_pass(&cid, asset, &binds, scope, k, depth);
            }
            return self.finish_fold(&cid, asset, &binds, scope, limit as usize, None);
        }
        self.write_pass(&cid, asset, &binds, scope, 0, depth);
        self.pending.push(Pending::FoldStop {
            cid,
            asset,
            binds,
            scope,
            pass: 0,
            limit,
            depth,
        });
        Ok(())
    }

    /// Push the frame of pass `k`.
    pub(crate) fn write_pass(
        &mut self,
        cid: &str,
        asset: &'d Asset,
        binds: &HashMap<String, Src>,
        scope: &FoldScope,
        k: usize,
        depth: usize,
    ) {
        let mut b = binds.clone();
        if asset.interface.input("index").is_some() {
            b.insert("index".into(), Src::Const(Value::Int(k as i64)));
        }
        if k > 0 {
            for (i, o) in &scope.state {
                b.insert(i.clone(), Src::Port(PortRef::new(copy_id(cid, k - 1), o)));
            }
        }
        self.stack.push(Frame {
            doc: &asset.doc,
            prefix: copy_id(cid, k),
            binds: Some(b),
            asset: Some(asset),
            depth,
        });
    }

    /// The value of state `(input, output)` before pass `k`.
    pub(crate) fn state_before(
        &self,
        cid: &str,
        asset: &Asset,
        binds: &HashMap<String, Src>,
        (input, output): (&str, &str),
        k: usize,
    ) -> Result<Src, LowerError> {
        if k == 0 {
            self.initial(cid, asset, binds, input)
        } else {
            Ok(Src::Port(PortRef::new(copy_id(cid, k - 1), output)))
        }
    }

    /// Alias the fold's outputs to those of its last pass (`passes` written).
    pub(crate) fn finish_fold(
        &mut self,
        cid: &str,
        asset: &Asset,
        binds: &HashMap<String, Src>,
        scope: &FoldScope,
        passes: usize,
        stopped: Option<String>,
    ) -> Result<(), LowerError> {
        for o in &asset.interface.outputs {
            let src = if passes > 0 {
                Src::Port(PortRef::new(copy_id(cid, passes - 1), &o.name))
            } else if let Some((i, _)) = scope.state.iter().find(|(_, out)| *out == o.name) {
                self.initial(cid, asset, binds, i)?
            } else {
                Src::Empty
            };
            self.flat.alias(PortRef::new(cid, &o.name), src);
        }
        self.alias_default_output(cid, asset);
        let mut r = ScopeReport::new(cid, "fold", passes);
        r.stopped = stopped;
        self.report.scopes.push(r);
        Ok(())
    }
}

/// Check that each `(input, output)` pair names an input and an output of the body.
pub(crate) fn check_pairs(
    cid: &str,
    kind: &'static str,
    what: &str,
    asset: &Asset,
    pairs: &[(String, String)],
) -> Result<(), LowerError> {
    for (i, o) in pairs {
        let bad = if asset.interface.input(i).is_none() {
            Some(format!("{what} `{i}` is not an input of `{}`", asset.name))
        } else if asset.interface.output(o).is_none() {
            Some(format!(
                "{what} `{i}` is fed from `{o}`, which is not an output of `{}`",
                asset.name
            ))
        } else {
            None
        };
        if let Some(message) = bad {
            return Err(LowerError::Scope {
                kind,
                call: cid.to_string(),
                message,
            });
        }
    }
    Ok(())
}
