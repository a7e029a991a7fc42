//! What commands print about an evaluation (to stderr): counters, the slowest nodes, the
//! failed nodes; and values shown in one line.

use crate::args::EvaluatorKind;
use kiln_core::eval::{Failure, ParallelPolicy};
use kiln_core::prelude::*;
use std::time::Duration;

/// Print the counters; `ticks`: summed over that many ticks of a render.
pub(crate) fn print_stats(
    kind: EvaluatorKind,
    parallel: &ParallelPolicy,
    s: &Stats,
    elapsed: Duration,
    ticks: Option<u64>,
) {
    let policy = match parallel {
        ParallelPolicy::Sequential => "sequential".to_string(),
        ParallelPolicy::Rayon {
            threads: Some(t), ..
        } => format!("parallel, {t} threads"),
        ParallelPolicy::Rayon { threads: None, .. } => "parallel, one thread per core".into(),
    };
    let over = ticks.map_or_else(String::new, |t| format!(" over {t} tick(s)"));
    eprintln!(
        "stats: {} evaluator ({policy}){over}: executed {} nodes, {} cache hits, {} cutoffs, \
         {} propagated, {} parallel, {} keys computed, planned {}, {:.3} ms",
        kind.name(),
        s.executed,
        s.cache_hits,
        s.cutoffs,
        s.propagated,
        s.parallel,
        s.keys_computed,
        if s.planned { "yes" } else { "no" },
        elapsed.as_secs_f64() * 1e3
    );
}

/// Print the ten slowest nodes of a timed request.
pub(crate) fn print_timings(out: &Outputs) {
    let mut slowest: Vec<_> = out.timings.iter().collect();
    slowest.sort_by_key(|t| std::cmp::Reverse(t.time));
    slowest.truncate(10);
    eprintln!(
        "timings: slowest {} of {} executed node(s)",
        slowest.len(),
        out.timings.len()
    );
    for t in slowest {
        eprintln!(
            "  {:>10.3} ms  {} ({})",
            t.time.as_secs_f64() * 1e3,
            t.node,
            t.op
        );
    }
}

/// The error's message without the node and op, which the report shows beside it.
fn failure_message(e: &EvalError) -> String {
    match e {
        EvalError::Node {
            port: Some(p),
            message,
            ..
        } => format!("{p}: {message}"),
        EvalError::Node { message, .. } => message.clone(),
        EvalError::Panic { message, .. } => format!("panicked: {message}"),
        e => e.to_string(),
    }
}

/// Print each failed node with its op, its message and the outputs it affected.
pub(crate) fn print_failures(failures: &[Failure]) {
    eprintln!("{} node(s) failed:", failures.len());
    for f in failures {
        eprintln!(
            "  node `{}` ({}): {}",
            f.node,
            f.op,
            failure_message(&f.error)
        );
        if f.affected.is_empty() {
            eprintln!("    affects no output (handled downstream)");
        } else {
            eprintln!("    affects output(s): {}", f.affected.join(", "));
        }
    }
}

/// A value in one line, as `kiln info` and `kiln ops` show defaults.
pub(crate) fn show(v: &Value) -> String {
    match v {
        Value::Float(x) => format!("{x:?}"),
        Value::Int(x) => x.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => format!("{s:?}"),
        Value::Vec2(a) => format!("{a:?}"),
        Value::Vec3(a) => format!("{a:?}"),
        Value::Vec4(a) => format!("{a:?}"),
        Value::Color(c) => format!("{c:?}"),
        Value::List(l) => format!("[{}]", l.iter().map(show).collect::<Vec<_>>().join(", ")),
        Value::Record(r) => format!(
            "{{{}}}",
            r.fields()
                .iter()
                .map(|(k, v)| format!("{k}: {}", show(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Heavy(h) => format!("<{}>", h.type_name()),
        Value::Empty => "none".into(),
        Value::Error(e) => format!("<error: {e}>"),
    }
}

/// How many nodes of a cycle a diagnostic names at each end before the rest is counted.
const CYCLE_ENDS: usize = 4;

/// A diagnostic as one line of reasonable length: a cycle of more than a few nodes names its
/// first and last [`CYCLE_ENDS`] and counts the rest (the diagnostic itself keeps them all).
pub(crate) fn abridged(d: &Diagnostic) -> String {
    if d.nodes.len() <= 3 * CYCLE_ENDS {
        return d.to_string();
    }
    let n = d.nodes.len();
    let mut short = d.clone();
    let middle = NodeId::from(format!("… {} more …", n - 2 * CYCLE_ENDS));
    short.nodes = d.nodes[..CYCLE_ENDS]
        .iter()
        .cloned()
        .chain(std::iter::once(middle))
        .chain(d.nodes[n - CYCLE_ENDS..].iter().cloned())
        .collect();
    format!("{short} (a cycle of {n} nodes)")
}

/// What the plan wrote out, and per scope the copies an evaluation cooked, reused and cut off
/// (from the nodes that ran, each with whether it was cut off), on stderr.
pub(crate) fn print_plan<'a>(
    p: &kiln_lower::lower::LowerReport,
    ran: impl IntoIterator<Item = (&'a str, bool)>,
) {
    eprintln!(
        "plan: {} calls written out, {} nodes, {} waits, {} choices, {} nodes pruned",
        p.calls,
        p.nodes,
        p.waits.len(),
        p.choices,
        p.pruned
    );
    for s in p.scope_counts(ran) {
        eprintln!(
            "  {} `{}`: {} copies, {} cooked, {} reused, {} cut off",
            s.kind, s.path, s.copies, s.cooked, s.reused, s.cut_off
        );
    }
}

/// Print (`print`) and write as JSON (`json`) the trace of every flow node of `g` that ran.
pub(crate) fn flow_traces(
    g: &kiln_core::graph::Graph,
    print: bool,
    json: Option<&std::path::Path>,
) -> Result<(), crate::error::CliError> {
    if !print && json.is_none() {
        return Ok(());
    }
    show_traces(&kiln_lower::flow::traces(g), print, json)?;
    if let Some(path) = json {
        crate::outln!("wrote {}", path.display());
    }
    Ok(())
}

/// Print (`print`) and write as JSON (`json`) `traces`.
pub(crate) fn show_traces(
    traces: &[(
        kiln_core::graph::NodeId,
        std::sync::Arc<kiln_lower::flow::Trace>,
    )],
    print: bool,
    json: Option<&std::path::Path>,
) -> Result<(), crate::error::CliError> {
    if print {
        if traces.is_empty() {
            eprintln!("trace: no flow graph ran");
        }
        for (node, t) in traces {
            eprintln!(
                "trace of flow `{node}`: {} steps, {:.3} ms",
                t.steps.len(),
                t.total().as_secs_f64() * 1e3
            );
            eprint!("{t}");
        }
    }
    if let Some(path) = json {
        kiln::trace_file::write_trace(path, traces).map_err(|e| {
            crate::error::CliError(format!("cannot write the trace to {}: {e}", path.display()))
        })?;
    }
    Ok(())
}
