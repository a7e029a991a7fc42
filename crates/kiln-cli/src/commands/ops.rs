//! `kiln ops [FILTER]`: list the registered ops with their ports, params and docs;
//! `kiln ops --schema`: the JSON Schema of their params.

use crate::report::show;
use kiln_core::prelude::*;
use std::process::ExitCode;

/// Print every op of `reg` whose id contains `filter` (every op without one), then the graphs
/// that can be called as nodes: those kiln-std ships and those in the library folders.
pub(crate) fn list_ops(
    reg: &Registry,
    filter: Option<&str>,
    libs: &[std::path::PathBuf],
) -> ExitCode {
    list_registered(reg, filter);
    crate::subgraphs::list_subgraphs(reg, filter, libs);
    ExitCode::SUCCESS
}

/// Print the JSON Schema of every op's params (`kiln ops --schema`).
pub(crate) fn print_schema(reg: &Registry) -> ExitCode {
    let schema = kiln::doc::ops_schema::ops_schema(reg);
    crate::outln!(
        "{}",
        serde_json::to_string_pretty(&schema).unwrap_or_default()
    );
    ExitCode::SUCCESS
}

fn list_registered(reg: &Registry, filter: Option<&str>) {
    for op in reg.iter() {
        let s = op.spec();
        if filter.is_some_and(|f| !s.id.contains(f)) {
            continue;
        }
        crate::outln!("{} (v{}, {})", s.id, s.version, s.purity.name());
        crate::outln!("    {}", s.doc);
        for i in &s.inputs {
            let mut extra = vec![];
            if let Some(d) = &i.default {
                extra.push(format!("default {}", show(d)));
            } else {
                extra.push("required".into());
            }
            if i.lazy {
                extra.push("lazy".into());
            }
            if i.collective {
                extra.push("collective".into());
            }
            extra.extend(i.rule.as_ref().and_then(|r| r.describe()));
            crate::outln!(
                "    in  {}: {} [{}] — {}",
                i.name,
                i.ty,
                extra.join(", "),
                i.doc
            );
        }
        for (pi, p) in s.params.iter().enumerate() {
            let d = p
                .default
                .as_ref()
                .map(|d| format!("default {}", show(d)))
                .unwrap_or_else(|| "required".into());
            // The range declared with the param, and whether only plan-known values drive it
            // (every param is also an input port of its name).
            let mut notes = vec![d];
            notes.extend(p.rule.as_ref().and_then(|r| r.describe()));
            if s.param_at_plan_time(pi) {
                notes.push("plan-time".into());
            }
            crate::outln!(
                "    par {}: {} [{}] — {}",
                p.name,
                p.ty,
                notes.join("; "),
                p.doc
            );
        }
        for o in &s.outputs {
            crate::outln!("    out {}: {} — {}", o.name, o.ty, o.doc);
        }
    }
}
