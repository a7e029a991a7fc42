//! The structure a graph file may hold besides plain nodes: graphs defined inline (`graphs`),
//! the scope of a call (`for`, `fold`, `step`), animated values (`{"curve": ...}`), and a
//! flow graph's paradigm and loop ports.
//! Calls themselves are nodes whose op is `@name`; [`crate::assets`] finds what they call.

use super::shape::{check_keys, get, object};
use super::{GraphFile, LoadError};
use crate::document::DEFAULT_LOOP_MAX;
use crate::document::{
    Animated, DEFAULT_FOLD_MAX, FlowDecl, FoldScope, ForScope, PlanValue, Scope, StepScope, Until,
};
use kiln_core::value::{Value, ValueType};
use kiln_io::convert::{self, InputSource, child};
use kiln_io::json::Json;
use std::collections::BTreeMap;

/// The keys of a node that give a call its scope.
pub const SCOPE_KEYS: [&str; 3] = ["for", "fold", "step"];
/// The keys of a `for`.
pub const FOR_KEYS: [&str; 3] = ["items", "as", "carry"];
/// The keys of a `fold`.
pub const FOLD_KEYS: [&str; 4] = ["count", "until", "max", "state"];
/// The keys of a `step`.
pub const STEP_KEYS: [&str; 3] = ["dt", "substeps", "state"];
/// The most substeps a step may have.
pub const MAX_SUBSTEPS: u32 = 10_000;

/// What a graph file holds besides its graph and metadata.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Structure {
    /// The scope of each call that has one, by node id.
    pub scopes: BTreeMap<String, Scope>,
    /// Graphs defined in the file, by name (callable as `@name` from the file).
    pub graphs: BTreeMap<String, GraphFile>,
    /// Animated values, by `node.port` (inputs) or `node.param` (params).
    pub curves: BTreeMap<kiln_core::graph::PortRef, Animated>,
    /// `Some` for a graph of `"paradigm": "flow"`, with its loop ports.
    pub flow: Option<FlowDecl>,
}

/// The paradigms a graph may declare.
pub const PARADIGMS: [&str; 2] = ["dataflow", "flow"];
/// The keys of a loop port.
pub const LOOP_KEYS: [&str; 1] = ["max"];
/// The largest iteration cap a loop port may have.
pub const MAX_LOOP_CAP: u32 = 1_000_000;

/// Whether the graph whose top-level entries are `top` is a flow graph (its `paradigm`).
pub(super) fn is_flow(top: &[(String, Json)], at: &str) -> Result<bool, LoadError> {
    match get(top, "paradigm") {
        None => Ok(false),
        Some(Json::Str(s)) if s == "dataflow" => Ok(false),
        Some(Json::Str(s)) if s == "flow" => Ok(true),
        Some(_) => Err(LoadError::format(
            &child(at, "paradigm"),
            "`paradigm` is \"dataflow\" (the default) or \"flow\"".into(),
            None,
        )),
    }
}

/// The loop ports of node `name` from its `loop` key: `{"port": {"max": n}}`, each with its
/// cap ([`DEFAULT_LOOP_MAX`] when `max` is not given).
pub(super) fn loop_ports(j: &Json, path: &str) -> Result<Vec<(String, u32)>, LoadError> {
    let hint = || Some(r#"write "loop": {"input": {"max": 100}}"#.to_string());
    let Json::Object(e) = j else {
        return Err(LoadError::format(
            path,
            "`loop` must be an object of the node's loop ports".into(),
            hint(),
        ));
    };
    let mut out = Vec::new();
    for (port, def) in e {
        let ppath = child(path, port);
        let Json::Object(d) = def else {
            return Err(LoadError::format(
                &ppath,
                format!("loop port `{port}` must be an object"),
                hint(),
            ));
        };
        check_keys(d, &ppath, &format!("loop port `{port}`"), &LOOP_KEYS)?;
        let cap = match get(d, "max") {
            Some(m) => whole(m, &child(&ppath, "max"), "`max`", 1, MAX_LOOP_CAP as i64)? as u32,
            None => DEFAULT_LOOP_MAX,
        };
        if out.iter().any(|(p, _)| p == port) {
            return Err(LoadError::format(
                &ppath,
                format!("loop port `{port}` is listed twice"),
                Some("keep one".into()),
            ));
        }
        out.push((port.clone(), cap));
    }
    Ok(out)
}

/// A plan value: a reference (a string) or a constant.
fn plan_value(j: &Json, ty: ValueType, path: &str) -> Result<PlanValue, LoadError> {
    match convert::decode_input(j, Some(ty), path)? {
        InputSource::Wire(r) => Ok(PlanValue::Ref(r)),
        InputSource::Const(v) => Ok(PlanValue::Const(v)),
    }
}

fn whole(j: &Json, path: &str, what: &str, lo: i64, hi: i64) -> Result<i64, LoadError> {
    match j {
        Json::Int(i) if (lo..=hi).contains(i) => Ok(*i),
        _ => Err(LoadError::format(
            path,
            format!("{what} must be a whole number from {lo} to {hi}"),
            None,
        )),
    }
}

/// The scope of node `name` from its `for`, `fold` or `step` key (at most one).
pub(super) fn scope(
    entries: &[(String, Json)],
    path: &str,
    name: &str,
) -> Result<Option<Scope>, LoadError> {
    let given: Vec<&str> = SCOPE_KEYS
        .iter()
        .copied()
        .filter(|k| get(entries, k).is_some())
        .collect();
    let Some(&key) = given.first() else {
        return Ok(None);
    };
    if given.len() > 1 {
        return Err(LoadError::format(
            path,
            format!(
                "node `{name}` has both `{}` and `{}`; a call has one scope",
                given[0], given[1]
            ),
            None,
        ));
    }
    let j = get(entries, key).unwrap_or(&Json::Null);
    let spath = child(path, key);
    let scope = match key {
        "for" => Scope::For(for_scope(j, &spath)?),
        "fold" => Scope::Fold(fold_scope(j, &spath)?),
        _ => Scope::Step(step_scope(j, &spath)?),
    };
    Ok(Some(scope))
}

fn for_scope(j: &Json, path: &str) -> Result<ForScope, LoadError> {
    let Json::Object(e) = j else {
        // `"for": "rows.out"` or `"for": [..]`: the items alone.
        return Ok(ForScope {
            items: plan_value(j, ValueType::List, path)?,
            item: "item".into(),
            carry: vec![],
        });
    };
    check_keys(e, path, "`for`", &FOR_KEYS)?;
    let items = get(e, "items").ok_or_else(|| {
        LoadError::format(
            path,
            "a `for` needs `items`".into(),
            Some(r#"write "for": {"items": "list_node.out"}"#.into()),
        )
    })?;
    let carry = pairs(get(e, "carry"), &child(path, "carry"), "carry")?;
    let item = match get(e, "as") {
        None => "item".to_string(),
        Some(Json::Str(s)) => s.clone(),
        Some(_) => {
            return Err(LoadError::format(
                &child(path, "as"),
                "`as` must be the name of a body input".into(),
                None,
            ));
        }
    };
    Ok(ForScope {
        items: plan_value(items, ValueType::List, &child(path, "items"))?,
        item,
        carry,
    })
}

fn fold_scope(j: &Json, path: &str) -> Result<FoldScope, LoadError> {
    let e = object(j, path, "`fold`")?;
    check_keys(e, path, "`fold`", &FOLD_KEYS)?;
    let state = pairs(get(e, "state"), &child(path, "state"), "state")?;
    let max = match get(e, "max") {
        Some(m) => whole(m, &child(path, "max"), "`max`", 1, 1_000_000)? as u32,
        None => DEFAULT_FOLD_MAX,
    };
    let until = match get(e, "until") {
        None => None,
        Some(Json::Str(s)) if s == "changed" => Some(Until::Changed),
        Some(Json::Str(s)) => Some(Until::Output(s.clone())),
        Some(_) => {
            return Err(LoadError::format(
                &child(path, "until"),
                "`until` is \"changed\" or the name of a bool output of the body".into(),
                None,
            ));
        }
    };
    let count = get(e, "count")
        .map(|c| plan_value(c, ValueType::Int, &child(path, "count")))
        .transpose()?;
    if count.is_none() && until.is_none() {
        return Err(LoadError::format(
            path,
            "a `fold` needs `count`, `until`, or both".into(),
            None,
        ));
    }
    Ok(FoldScope {
        state,
        count,
        until,
        max,
    })
}

fn step_scope(j: &Json, path: &str) -> Result<StepScope, LoadError> {
    let e = object(j, path, "`step`")?;
    check_keys(e, path, "`step`", &STEP_KEYS)?;
    let state = pairs(get(e, "state"), &child(path, "state"), "state")?;
    let dt = match get(e, "dt") {
        Some(Json::Float(f)) if f.is_finite() && *f > 0.0 => *f,
        Some(Json::Int(i)) if *i > 0 => *i as f64,
        _ => {
            return Err(LoadError::format(
                &child(path, "dt"),
                "a `step` needs `dt`, a number of seconds above 0".into(),
                None,
            ));
        }
    };
    let substeps = match get(e, "substeps") {
        Some(s) => whole(
            s,
            &child(path, "substeps"),
            "`substeps`",
            1,
            MAX_SUBSTEPS as i64,
        )? as u32,
        None => 1,
    };
    Ok(StepScope {
        state,
        dt,
        substeps,
    })
}

/// An animated value, `{"curve": [[t, v], ...], "interp": "linear"}`, if `j` is one.
pub(super) fn curve(j: &Json, path: &str, param: bool) -> Result<Option<Animated>, LoadError> {
    let Json::Object(e) = j else {
        return Ok(None);
    };
    let Some(keys) = get(e, "curve") else {
        return Ok(None);
    };
    check_keys(e, path, "an animated value", &["curve", "interp"])?;
    let keys = convert::decode_value(keys, Some(ValueType::List), &child(path, "curve"))?;
    let interp = match get(e, "interp") {
        None => "linear".to_string(),
        Some(Json::Str(s)) if ["step", "linear", "bezier"].contains(&s.as_str()) => s.clone(),
        Some(_) => {
            return Err(LoadError::format(
                &child(path, "interp"),
                "`interp` is \"step\", \"linear\" or \"bezier\"".into(),
                None,
            ));
        }
    };
    if !matches!(&keys, Value::List(l) if !l.is_empty()) {
        return Err(LoadError::format(
            path,
            "a curve needs at least one key [time, value]".into(),
            None,
        ));
    }
    Ok(Some(Animated {
        param,
        keys,
        interp,
    }))
}

/// `{"input": "output", ...}`: the pairs of a carry or state, in file order.
fn pairs(j: Option<&Json>, path: &str, what: &str) -> Result<Vec<(String, String)>, LoadError> {
    let Some(j) = j else {
        return Ok(vec![]);
    };
    let hint = format!(
        r#"write "{what}": {{"input": "output"}}: each body input fed from the body output"#
    );
    let Json::Object(e) = j else {
        return Err(LoadError::format(
            path,
            format!("`{what}` must be an object"),
            Some(hint),
        ));
    };
    let mut out = vec![];
    for (i, o) in e {
        match o {
            Json::Str(o) => out.push((i.clone(), o.clone())),
            _ => {
                return Err(LoadError::format(
                    &child(path, i),
                    format!("`{what}.{i}` must name an output"),
                    Some(hint),
                ));
            }
        }
    }
    Ok(out)
}
