//! `kiln info GRAPH`: describe a graph: inputs (with defaults and docs), outputs (with
//! their types), nodes by op and by determinism class.

use crate::common::{CliError, graph_outputs, plan};
use crate::report::show;
use kiln_core::plan::{Class, Plan};
use std::path::Path;
use std::process::ExitCode;

/// `kiln info` on `project`, opened from `path`.
pub(crate) fn info(path: &Path, project: &mut kiln::Project) -> Result<ExitCode, CliError> {
    let planned = plan(project)?;
    let reg = project.registry();
    let g = &*planned.graph;
    crate::outln!("graph: {}", path.display());
    if let Some(d) = &project.document().file.meta.description {
        crate::outln!("description: {d}");
    }
    crate::outln!("nodes: {}, wires: {}", g.len(), g.wires().len());
    crate::outln!("inputs:");
    for input in project.inputs() {
        let default = input
            .default
            .as_ref()
            .map(|v| format!(" = {}", show(v)))
            .unwrap_or_default();
        let doc = input
            .doc
            .as_ref()
            .map(|d| format!("  ({d})"))
            .unwrap_or_default();
        crate::outln!("  {}: {}{default}{doc}", input.name, input.ty);
    }
    crate::outln!("outputs:");
    let plan = Plan::build(g, reg);
    let types = kiln_core::validate::output_types(g, reg);
    for name in graph_outputs(g) {
        let ty = match (&types, g.index_of(&name)) {
            (Ok(t), Some(i)) => t
                .get(i)
                .and_then(|t| t.first())
                .map(|t| t.to_string())
                .unwrap_or_default(),
            _ => "?".into(),
        };
        crate::outln!("  {name}: {ty}");
    }
    let mut by_op: std::collections::BTreeMap<&str, usize> = Default::default();
    for n in g.nodes() {
        *by_op.entry(&n.op).or_default() += 1;
    }
    crate::outln!("ops:");
    for (op, n) in by_op {
        crate::outln!("  {op} x{n}");
    }
    print_structure(project.document(), planned.report.as_ref());
    match plan {
        Ok(p) => {
            let count = |c: Class| (0..p.len()).filter(|&i| p.class(i) == c).count();
            crate::outln!(
                "determinism: {} static, {} context-dependent, {} volatile",
                count(Class::Static),
                count(Class::Context),
                count(Class::Volatile)
            );
            Ok(ExitCode::SUCCESS)
        }
        // Valid, but not plannable for ticks: its loops close through audio feedback inputs.
        Err(_) if types.is_ok() => {
            crate::outln!(
                "determinism: an audio graph with feedback loops; it streams \
                 (`kiln render GRAPH --seconds S`), the tick evaluators refuse it"
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(d) => {
            crate::outln!("{d}");
            Ok(ExitCode::from(1))
        }
    }
}

/// The calls of the file and what its plan wrote out.
fn print_structure(
    file: &kiln_doc::assets::DocumentFile,
    report: Option<&kiln_lower::lower::LowerReport>,
) {
    let doc = &file.doc;
    if doc.calls.is_empty() {
        return;
    }
    crate::outln!("calls:");
    for (id, call) in &doc.calls {
        let scope = match call.scope.kind() {
            "call" => String::new(),
            k => format!(" [{k}]"),
        };
        crate::outln!(
            "  {id}: @{} ({}){scope}",
            call.asset.name,
            call.asset.origin
        );
    }
    if let Some(r) = report {
        crate::outln!(
            "plan: {} calls written out, {} nodes, {} choices, {} nodes pruned, {} waits",
            r.calls,
            r.nodes,
            r.choices,
            r.pruned,
            r.waits.len()
        );
        for s in &r.scopes {
            let stop = s
                .stopped
                .as_ref()
                .map(|w| format!(", stopped by {w}"))
                .unwrap_or_default();
            crate::outln!("  {} `{}`: {} copies{stop}", s.kind, s.path, s.copies);
        }
    }
}
