//! One step of an op node run over its whole batch: the entities taken from its single
//! inputs, one run per entity, in entity order.
//!
//! Two paths give the same bits. When the op offers a scalar [`Kernel`] for float inputs
//! (which must apply the very function its `execute` does) and every entity and constant of
//! the batch is a float, the kernel runs over plain `f64` columns: no [`OpCall`], no value
//! matching per run. Otherwise the op's `execute` runs once per entity. Either path splits a
//! large batch over the current rayon pool when the op is pure (or reads only the clock), and
//! gathers the results in entity order, so the thread count changes nothing but the time.

use super::compile::CNode;
use super::executor::FlowError;
use super::queues::Col;
use crate::context::EvalContext;
use crate::op::{Kernel, Op, OpCall, OpError, PortIndex};
use crate::plan::Plan;
use crate::value::Value;
use rayon::prelude::*;
use std::sync::Arc;

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
    pub plan: &'a Plan,
    pub ctx: &'a EvalContext,
    /// Per input: its constant, its collective list, or (for a single input) `Empty`.
    pub fixed: &'a [Value],
    /// The single inputs' entities: `(port, entities)`, all of the batch's length.
    pub cols: &'a [(usize, Col)],
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

/// Run the batch.
pub(super) fn run(job: &Job<'_>) -> Batch {
    if let Some(k) = job.node.kernel
        && let Some(b) = kernel_batch(job, k)
    {
        return b;
    }
    per_entity(job)
}

/// A kernel argument: a column of entities or a constant.
#[derive(Clone, Copy)]
enum Arg<'a> {
    Col(&'a [f64]),
    Fixed(f64),
}

impl Arg<'_> {
    #[inline(always)]
    fn at(self, i: usize) -> f64 {
        match self {
            Arg::Col(c) => c[i],
            Arg::Fixed(x) => x,
        }
    }
}

/// The kernel over the batch, or `None` when some entity or constant is not a float.
fn kernel_batch(job: &Job<'_>, k: Kernel) -> Option<Batch> {
    // Columns already of floats are read as they are; others are read into floats.
    let mut read: Vec<(usize, Vec<f64>)> = Vec::new();
    for (p, col) in job.cols {
        if let Col::Values(vs) = col {
            let floats: Option<Vec<f64>> = vs
                .iter()
                .map(|v| match v {
                    Value::Float(x) => Some(*x),
                    _ => None,
                })
                .collect();
            read.push((*p, floats?));
        }
    }
    let column = |p: usize| -> Option<&[f64]> {
        match job.cols.iter().find(|(q, _)| *q == p) {
            Some((_, Col::Floats(f))) => Some(f),
            Some(_) => read
                .iter()
                .find(|(q, _)| *q == p)
                .map(|(_, f)| f.as_slice()),
            None => None,
        }
    };
    let mut args = [Arg::Fixed(0.0); 3];
    for (p, a) in args.iter_mut().enumerate().take(k.arity()) {
        *a = match column(p) {
            Some(c) => Arg::Col(c),
            None => match job.fixed.get(p) {
                Some(Value::Float(x)) => Arg::Fixed(*x),
                _ => return None,
            },
        };
    }
    let n = job.count;
    let body = |range: std::ops::Range<usize>, out: &mut Vec<f64>| match k {
        Kernel::Const(x) => out.extend(range.map(|_| x)),
        Kernel::Unary(f) => match args[0] {
            Arg::Col(a) => out.extend(a[range].iter().map(|&x| f(x))),
            Arg::Fixed(a) => out.extend(range.map(|_| f(a))),
        },
        Kernel::Binary(f) => match (args[0], args[1]) {
            (Arg::Col(a), Arg::Fixed(b)) => out.extend(a[range].iter().map(|&x| f(x, b))),
            (Arg::Fixed(a), Arg::Col(b)) => out.extend(b[range].iter().map(|&y| f(a, y))),
            (a, b) => out.extend(range.map(|i| f(a.at(i), b.at(i)))),
        },
        Kernel::Ternary(f) => {
            let (a, b, c) = (args[0], args[1], args[2]);
            out.extend(range.map(|i| f(a.at(i), b.at(i), c.at(i))));
        }
    };
    // A kernel that panics is left to the per-entity path, which reports it as the op's.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if parallel(job.node, n) {
            let len = chunk_len(n);
            let parts: Vec<Vec<f64>> = (0..n.div_ceil(len))
                .into_par_iter()
                .map(|c| {
                    let range = c * len..((c + 1) * len).min(n);
                    let mut out = Vec::with_capacity(range.len());
                    body(range, &mut out);
                    out
                })
                .collect();
            parts.concat()
        } else {
            let mut out = Vec::with_capacity(n);
            body(0..n, &mut out);
            out
        }
    }));
    let floats = result.ok()?;
    Some(Batch {
        made: Made::Floats(floats),
        runs: n,
        error: None,
    })
}

/// `execute` once per entity, in order; stops at the first failure.
fn per_entity(job: &Job<'_>) -> Batch {
    let op = job.plan.op(job.v);
    let outs = job.node.outputs.len();
    let n = job.count;
    if parallel(job.node, n) {
        let len = chunk_len(n);
        let parts: Vec<Batch> = (0..n.div_ceil(len))
            .into_par_iter()
            .map(|c| runs(job, op, c * len..((c + 1) * len).min(n), outs))
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
    runs(job, op, 0..n, outs)
}

/// The runs `range` of the batch, in order.
fn runs(job: &Job<'_>, op: &Arc<dyn Op>, range: std::ops::Range<usize>, outs: usize) -> Batch {
    let mut inputs = job.fixed.to_vec();
    let mut rows = Vec::with_capacity(range.len() * outs);
    let mut out = vec![Value::Empty; outs];
    let mut done = 0;
    for i in range {
        if done % CANCEL_EVERY == 0 && job.ctx.is_cancelled() {
            return Batch {
                made: Made::Rows(rows),
                runs: done,
                error: Some(FlowError::Cancelled),
            };
        }
        for (p, col) in job.cols {
            inputs[*p] = col.at(i);
        }
        if let Err(e) = run_one(job, op, &inputs, &mut out) {
            return Batch {
                made: Made::Rows(rows),
                runs: done,
                error: Some(e),
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

/// One run of the op on `inputs`, its rules checked first.
fn run_one(
    job: &Job<'_>,
    op: &Arc<dyn Op>,
    inputs: &[Value],
    out: &mut [Value],
) -> Result<(), FlowError> {
    let op_error = |e: OpError| op_error(job, e);
    if job.plan.has_rules(job.v) {
        job.plan.check_rules(job.v, inputs).map_err(op_error)?;
    }
    let call = OpCall {
        inputs,
        params: job.plan.params(job.v),
        ctx: job.ctx,
        node: &job.node.id,
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| op.execute(&call, out)));
    match result {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) if e.is_cancelled() => Err(FlowError::Cancelled),
        Ok(Err(e)) => Err(op_error(e)),
        Err(_) => Err(FlowError::Panic {
            node: job.node.id.clone(),
            op: job.node.op_id.clone(),
        }),
    }
}

fn op_error(job: &Job<'_>, e: OpError) -> FlowError {
    let spec = job.plan.op(job.v).spec();
    FlowError::Op {
        node: job.node.id.clone(),
        op: job.node.op_id.clone(),
        port: e.port.map(|p: PortIndex| spec.port_name(p)),
        message: e.message,
    }
}
