//! One step of an op node run over its whole batch: the entities taken from its single
//! inputs, one run per entity, in entity order.
//!
//! Two paths give the same bits. When the op offers a scalar [`Kernel`] for float inputs
//! (which must apply the very function its `execute` does) and every entity and constant of
//! the batch is a float, the kernel runs over plain `f64` columns: no `OpCall`, no value
//! matching per run, and its results overwrite its first column (each element read before it
//! is written), so a chain of kernels passes one buffer along. When the op also offers the
//! kernel's column forms ([`Columns`]), each chunk of the batch is one call of one loop over
//! the column instead of a call per element. A kernel that panics fails the run as the op's
//! panic. Otherwise the op's `execute` runs once per entity, through the engine's node
//! runner ([`NodeRunner`]: rules checked, panics caught, errors named, cancellation checked
//! every [`CANCEL_EVERY`] runs). Either path splits a large
//! batch over the current rayon pool when the op is pure (or reads only the clock), and
//! gathers the results in entity order, so the thread count changes nothing but the time.

use super::compile::CNode;
use super::entities::Entities;
use super::executor::FlowError;
use kiln_core::eval::{EvalError, NodeRunner};
use kiln_core::op::{Columns, Kernel};
use kiln_core::value::Value;
use rayon::prelude::*;

/// Batches at least this long are split over the rayon pool (when it has several threads).
const PAR_MIN: usize = 4096;
/// Runs between two checks of cancellation on the per-entity path.
const CANCEL_EVERY: usize = 256;

/// What a batch made.
pub(super) enum Made {
    /// The kernel's result per run (one output, every run wrote it).
    Floats(Vec<f64>),
    /// Row-major: one value per output port per completed run (`Empty`: nothing written).
    Rows(Vec<Value>),
}

/// A batch's result: what the runs before the first failure made, and that failure.
pub(super) struct Batch {
    pub made: Made,
    /// Completed runs.
    pub runs: usize,
    pub error: Option<FlowError>,
}

/// What a batch runs on.
pub(super) struct Job<'a> {
    pub node: &'a CNode,
    pub v: usize,
    /// Runs the body plan's nodes (node `v` is this one).
    pub runner: &'a NodeRunner<'a>,
    /// Per input: its constant, its collective list, or (for a single input) `Empty`.
    pub fixed: &'a [Value],
    pub count: usize,
}

/// Whether a batch of `count` runs is split over the current pool.
fn parallel(node: &CNode, count: usize) -> bool {
    node.parallel && count >= PAR_MIN && rayon::current_num_threads() > 1
}

/// The chunk length a parallel batch of `count` runs is cut into.
fn chunk_len(count: usize) -> usize {
    count.div_ceil(rayon::current_num_threads() * 4).max(256)
}

/// Run the batch. `cols` are the job's columns; a float kernel may take one of them as the
/// buffer it writes its results into.
pub(super) fn run(job: &Job<'_>, cols: &mut [(usize, Entities)]) -> Batch {
    if let Some(k) = job.node.kernel
        && let Some(b) = kernel_batch(job, k, cols)
    {
        return b;
    }
    per_entity(job, cols)
}

/// A kernel argument: a column of entities, a constant, or the result buffer itself (the
/// column the kernel overwrites, each element read before it is written).
#[derive(Clone, Copy)]
enum Arg<'a> {
    Col(&'a [f64]),
    Fixed(f64),
    Own,
}

impl Arg<'_> {
    #[inline(always)]
    fn at(self, i: usize, own: f64) -> f64 {
        match self {
            Arg::Col(c) => c[i],
            Arg::Fixed(x) => x,
            Arg::Own => own,
        }
    }
}

/// The kernel's column form over `out` (`out[j]` is run `start + j`), when it has one for
/// where its arguments come from; `false` when it has none (nothing was written).
fn columns_chunk(c: Columns, args: &[Arg<'_>; 3], start: usize, out: &mut [f64]) -> bool {
    let part = |col: &[f64]| -> Option<std::ops::Range<usize>> {
        let r = start..start + out.len();
        (r.end <= col.len()).then_some(r)
    };
    match (c, args[0], args[1]) {
        (Columns::Unary(f), Arg::Own, _) => f(out),
        (Columns::Binary(f), Arg::Own, Arg::Fixed(b)) => (f.own_fixed)(out, b),
        (Columns::Binary(f), Arg::Fixed(a), Arg::Own) => (f.fixed_own)(a, out),
        (Columns::Binary(f), Arg::Own, Arg::Col(b)) => match part(b) {
            Some(r) => (f.own_col)(out, &b[r]),
            None => return false,
        },
        (Columns::Binary(f), Arg::Col(a), Arg::Own) => match part(a) {
            Some(r) => (f.col_own)(&a[r], out),
            None => return false,
        },
        _ => return false,
    }
    true
}

/// The kernel over `out` (`out[j]` is run `start + j`), through its column form when it has
/// one.
fn kernel_chunk(
    k: Kernel,
    columns: Option<Columns>,
    args: &[Arg<'_>; 3],
    start: usize,
    out: &mut [f64],
) {
    if let Some(c) = columns
        && columns_chunk(c, args, start, out)
    {
        return;
    }
    match (k, args[0], args[1]) {
        (Kernel::Const(x), _, _) => out.fill(x),
        (Kernel::Unary(f), Arg::Own, _) => out.iter_mut().for_each(|o| *o = f(*o)),
        (Kernel::Binary(f), Arg::Own, Arg::Fixed(b)) => out.iter_mut().for_each(|o| *o = f(*o, b)),
        (Kernel::Binary(f), Arg::Fixed(a), Arg::Own) => out.iter_mut().for_each(|o| *o = f(a, *o)),
        (Kernel::Unary(f), a, _) => {
            for (j, o) in out.iter_mut().enumerate() {
                *o = f(a.at(start + j, *o));
            }
        }
        (Kernel::Binary(f), a, b) => {
            for (j, o) in out.iter_mut().enumerate() {
                *o = f(a.at(start + j, *o), b.at(start + j, *o));
            }
        }
        (Kernel::Ternary(f), a, b) => {
            let c = args[2];
            for (j, o) in out.iter_mut().enumerate() {
                let i = start + j;
                *o = f(a.at(i, *o), b.at(i, *o), c.at(i, *o));
            }
        }
    }
}

/// The kernel over the batch, or `None` when some entity or constant is not a float.
fn kernel_batch(job: &Job<'_>, k: Kernel, cols: &mut [(usize, Entities)]) -> Option<Batch> {
    let n = job.count;
    let arity = k.arity();
    // Every argument must be a float: a constant, or a column of floats (read into one when
    // it holds values).
    for p in 0..arity {
        match cols.iter().position(|(q, _)| *q == p) {
            Some(c) => {
                if let Entities::Values(vs) = &cols[c].1 {
                    let floats: Option<Vec<f64>> = vs
                        .iter()
                        .map(|v| match v {
                            Value::Float(x) => Some(*x),
                            _ => None,
                        })
                        .collect();
                    cols[c].1 = Entities::Floats(floats?);
                }
            }
            None => {
                if !matches!(job.fixed.get(p), Some(Value::Float(_))) {
                    return None;
                }
            }
        }
    }
    // The first column is overwritten with the results; a kernel of constants only writes a
    // new buffer.
    let own = (0..arity).find(|&p| cols.iter().any(|(q, _)| *q == p));
    let mut out = match own.and_then(|p| cols.iter_mut().find(|(q, _)| *q == p)) {
        Some((_, Entities::Floats(f))) => std::mem::take(f),
        _ => vec![0.0; n],
    };
    let mut args = [Arg::Fixed(0.0); 3];
    for (p, a) in args.iter_mut().enumerate().take(arity) {
        *a = if Some(p) == own {
            Arg::Own
        } else {
            match cols.iter().find(|(q, _)| *q == p) {
                Some((_, Entities::Floats(c))) => Arg::Col(c),
                _ => match job.fixed.get(p) {
                    Some(Value::Float(x)) => Arg::Fixed(*x),
                    _ => return None,
                },
            }
        };
    }
    let columns = job.node.columns;
    let result = job.runner.guard(job.v, || {
        if parallel(job.node, n) {
            let len = chunk_len(n);
            out.par_chunks_mut(len)
                .enumerate()
                .for_each(|(c, chunk)| kernel_chunk(k, columns, &args, c * len, chunk));
        } else {
            kernel_chunk(k, columns, &args, 0, &mut out);
        }
    });
    if let Err(e) = result {
        // The column was overwritten in part: the run fails as the op's panic.
        return Some(Batch {
            made: Made::Rows(Vec::new()),
            runs: 0,
            error: Some(flow_error(job.node, e)),
        });
    }
    Some(Batch {
        made: Made::Floats(out),
        runs: n,
        error: None,
    })
}

/// `execute` once per entity, in order; stops at the first failure.
fn per_entity(job: &Job<'_>, cols: &[(usize, Entities)]) -> Batch {
    let outs = job.node.outputs.len();
    let n = job.count;
    if parallel(job.node, n) {
        let len = chunk_len(n);
        let parts: Vec<Batch> = (0..n.div_ceil(len))
            .into_par_iter()
            .map(|c| runs(job, cols, c * len..((c + 1) * len).min(n), outs))
            .collect();
        let mut rows = Vec::with_capacity(n * outs);
        let mut done = 0;
        for part in parts {
            let Made::Rows(r) = part.made else {
                unreachable!("the per-entity path makes rows")
            };
            rows.extend(r);
            done += part.runs;
            if part.error.is_some() {
                return Batch {
                    made: Made::Rows(rows),
                    runs: done,
                    error: part.error,
                };
            }
        }
        return Batch {
            made: Made::Rows(rows),
            runs: done,
            error: None,
        };
    }
    runs(job, cols, 0..n, outs)
}

/// The runs `range` of the batch, in order.
fn runs(
    job: &Job<'_>,
    cols: &[(usize, Entities)],
    range: std::ops::Range<usize>,
    outs: usize,
) -> Batch {
    let mut inputs = job.fixed.to_vec();
    let mut rows = Vec::with_capacity(range.len() * outs);
    let mut out = vec![Value::Empty; outs];
    let mut done = 0;
    for i in range {
        if done % CANCEL_EVERY == 0
            && let Err(e) = job.runner.check_cancelled()
        {
            return Batch {
                made: Made::Rows(rows),
                runs: done,
                error: Some(flow_error(job.node, e)),
            };
        }
        for (p, col) in cols {
            inputs[*p] = col.get(i).unwrap_or_default();
        }
        if let Err(e) = job.runner.run(job.v, &inputs, &mut out) {
            return Batch {
                made: Made::Rows(rows),
                runs: done,
                error: Some(flow_error(job.node, e)),
            };
        }
        rows.extend(out.iter_mut().map(std::mem::take));
        done += 1;
    }
    Batch {
        made: Made::Rows(rows),
        runs: done,
        error: None,
    }
}

/// The flow's error for what the node runner reported of body node `node`: an op's failure
/// (its rules included) names the node, its op and the port; a panic, the node and its op.
pub(super) fn flow_error(node: &CNode, e: EvalError) -> FlowError {
    match e {
        EvalError::Cancelled => FlowError::Cancelled,
        EvalError::Panic { .. } => FlowError::Panic {
            node: node.id.clone(),
            op: node.op_id.clone(),
        },
        EvalError::Node { port, message, .. } => FlowError::Op {
            node: node.id.clone(),
            op: node.op_id.clone(),
            port,
            message,
        },
        other => FlowError::Op {
            node: node.id.clone(),
            op: node.op_id.clone(),
            port: None,
            message: other.to_string(),
        },
    }
}
