//! The flow executor: a worklist (no recursion) over the body's nodes, in the seed's order
//! (see the [module docs](super)).

use super::batch::{self, Made};
use super::body::{FlowBody, FlowRun};
use super::compile::{Compiled, Dest, InputValue, Kind};
use super::entities::Entities;
use super::order::{first_ready, first_waiting, push_children, ready};
use super::queues::Queues;
use super::trace::{PortCount, Step, Trace};
use kiln_core::context::EvalContext;
use kiln_core::eval::NodeRunner;
use kiln_core::value::Value;
use std::time::Instant;

/// Why a flow run failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FlowError {
    /// An op of the body failed.
    #[error("flow node `{node}` (op `{op}`){}: {message}", .port.as_ref().map(|p| format!(", {p}")).unwrap_or_default())]
    Op {
        /// The body node.
        node: String,
        /// Its op.
        op: String,
        /// The port concerned (`input `rect``), if any.
        port: Option<String>,
        /// What went wrong.
        message: String,
    },
    /// An op of the body panicked.
    #[error("flow node `{node}` (op `{op}`) panicked")]
    Panic {
        /// The body node.
        node: String,
        /// Its op.
        op: String,
    },
    /// A loop got entities back more often than its cap allows.
    #[error(
        "loop `{node}.{port}` was sent entities back more than {cap} times, its cap (give \
         the loop port a larger `max`, or make the loop stop sooner)"
    )]
    LoopCap {
        /// The loop port's node.
        node: String,
        /// The loop port.
        port: String,
        /// Its cap.
        cap: u32,
    },
    /// A limit of the run was reached.
    #[error("the flow run went over its limit `{limit}` of {value}")]
    Limit {
        /// The limit's name (`max_entities`, `max_steps`).
        limit: &'static str,
        /// Its value.
        value: u64,
    },
    /// The call gave the wrong number of args.
    #[error("the flow body takes {expected} args, found {found}")]
    Args {
        /// The body's args.
        expected: usize,
        /// The values given.
        found: usize,
    },
    /// The run was cancelled.
    #[error("cancelled")]
    Cancelled,
}

/// The state of one run.
struct Run<'a> {
    c: &'a Compiled,
    body: &'a FlowBody,
    /// Runs the body's op nodes, the one way the engine runs a node.
    runner: NodeRunner<'a>,
    q: Queues,
    fired: Vec<bool>,
    iterations: Vec<u32>,
    outputs: Vec<Entities>,
    entities: u64,
}

/// What a run's args are: values (a list spreads into its elements where the body input
/// spreads), or entities given as they are.
#[derive(Clone, Copy)]
pub(super) enum Args<'a> {
    Values(&'a [Value]),
    Entities(&'a [Entities]),
}

impl Args<'_> {
    fn len(self) -> usize {
        match self {
            Args::Values(v) => v.len(),
            Args::Entities(e) => e.len(),
        }
    }
}

/// Run `body` on `args` under `ctx`.
pub(super) fn run(
    body: &FlowBody,
    args: Args<'_>,
    ctx: &EvalContext,
) -> Result<FlowRun, FlowError> {
    let c = &body.compiled;
    let expected = body.settings().args.len();
    if args.len() != expected {
        return Err(FlowError::Args {
            expected,
            found: args.len(),
        });
    }
    let mut r = Run {
        c,
        body,
        runner: NodeRunner::new(&c.plan, ctx),
        q: Queues::new(c),
        fired: vec![false; c.nodes.len()],
        iterations: vec![0; c.loops.len()],
        outputs: vec![Entities::default(); c.output_names.len()],
        entities: 0,
    };
    let limits = body.settings().limits;
    let mut trace = Trace::default();
    let mut stack: Vec<usize> = c.sources.iter().rev().copied().collect();
    loop {
        let v = match stack.pop() {
            Some(v) if ready(c, &r.q, &r.fired, v) => v,
            Some(_) => continue,
            None => match first_ready(c, &r.q, &r.fired).or_else(|| first_waiting(c, &r.q)) {
                Some(v) => v,
                None => break,
            },
        };
        if trace.steps.len() as u64 >= limits.max_steps {
            return Err(FlowError::Limit {
                limit: "max_steps",
                value: limits.max_steps,
            });
        }
        if r.runner.check_cancelled().is_err() {
            return Err(FlowError::Cancelled);
        }
        let (step, sent) = r.step(v, args)?;
        r.count_loops(&sent)?;
        push_children(&mut stack, &sent);
        trace.steps.push(step);
    }
    trace.unused = r.q.total();
    let outputs = c.output_names.iter().cloned().zip(r.outputs).collect();
    Ok(FlowRun { outputs, trace })
}

impl Run<'_> {
    /// Count `n` more entities sent, failing past the limit.
    fn count(&mut self, n: u64) -> Result<(), FlowError> {
        let max = self.body.settings().limits.max_entities;
        if self.entities + n > max {
            return Err(FlowError::Limit {
                limit: "max_entities",
                value: max,
            });
        }
        self.entities += n;
        Ok(())
    }

    /// Send entity `v` from output `port` of node `from` to every input wired from it.
    fn send(&mut self, from: usize, port: usize, v: Value) -> Result<(), FlowError> {
        self.count(1)?;
        let dests = &self.c.nodes[from].outputs[port].1;
        if let Some((last, rest)) = dests.split_last() {
            for d in rest {
                self.q.push(d.node, d.port, v.clone());
            }
            self.q.push(last.node, last.port, v);
        }
        Ok(())
    }

    /// Send `xs` (in order) from output 0 of node `from`, as float entities.
    fn send_floats(&mut self, from: usize, xs: Vec<f64>) -> Result<(), FlowError> {
        self.count(xs.len() as u64)?;
        if let Some((last, rest)) = self.c.nodes[from].outputs[0].1.split_last() {
            for d in rest {
                self.q.extend_floats(d.node, d.port, xs.clone());
            }
            self.q.extend_floats(last.node, last.port, xs);
        }
        Ok(())
    }

    /// Count an iteration for each loop port this step sent entities back into.
    fn count_loops(&mut self, sent: &[Dest]) -> Result<(), FlowError> {
        let mut counted = Vec::new();
        for d in sent.iter().filter(|d| d.back) {
            let Some(slot) = self.c.nodes[d.node].inputs[d.port].loop_slot else {
                continue;
            };
            if counted.contains(&slot) {
                continue;
            }
            counted.push(slot);
            self.iterations[slot] += 1;
            let l = &self.c.loops[slot];
            if self.iterations[slot] > l.cap {
                let node = &self.c.nodes[l.node];
                return Err(FlowError::LoopCap {
                    node: node.id.clone(),
                    port: node.inputs[l.port].name.clone(),
                    cap: l.cap,
                });
            }
        }
        Ok(())
    }

    /// Run node `v` over what its queues hold: the step's record and the inputs it sent to
    /// (in output-port order, then declaration order).
    fn step(&mut self, v: usize, args: Args<'_>) -> Result<(Step, Vec<Dest>), FlowError> {
        let start = Instant::now();
        let c = self.c;
        let node = &c.nodes[v];
        let mut taken = vec![0u64; node.inputs.len()];
        let mut made = vec![0u64; node.outputs.len()];
        let runs: u64;
        self.fired[v] = true;
        match &node.kind {
            Kind::Input { value, spread } => {
                runs = 1;
                if let (InputValue::Arg(k), Args::Entities(given)) = (value, args) {
                    let given = given.get(*k).cloned().unwrap_or_default();
                    if !node.outputs.is_empty() {
                        made[0] = given.len() as u64;
                        match given {
                            Entities::Floats(xs) => self.send_floats(v, xs)?,
                            Entities::Values(vs) => {
                                for item in vs {
                                    self.send(v, 0, item)?;
                                }
                            }
                        }
                    }
                } else {
                    let value = match (value, args) {
                        (InputValue::Arg(k), Args::Values(a)) => {
                            a.get(*k).cloned().unwrap_or(Value::Empty)
                        }
                        (InputValue::Default(d), _) => d.clone(),
                        _ => Value::Empty,
                    };
                    let one = [value];
                    let items: &[Value] = match (&one[0], spread) {
                        (Value::List(l), true) => l,
                        (Value::Empty, _) => &[],
                        _ => &one,
                    };
                    if !node.outputs.is_empty() {
                        made[0] = items.len() as u64;
                        // A list of floats is queued as a column of them (the same entities).
                        match super::queues::floats_of(items) {
                            Some(xs) if items.len() > 1 => self.send_floats(v, xs)?,
                            _ => {
                                for item in items {
                                    self.send(v, 0, item.clone())?;
                                }
                            }
                        }
                    }
                }
            }
            Kind::Output { index } => {
                for (p, t) in taken.iter_mut().enumerate() {
                    let all = self.q.take_all(v, p);
                    *t += all.len() as u64;
                    self.outputs[*index].append(all);
                }
                runs = 1;
            }
            Kind::Op => {
                let mut fixed: Vec<Value> = node.inputs.iter().map(|i| i.fixed.clone()).collect();
                let mut singles = Vec::new();
                for (p, i) in node.inputs.iter().enumerate() {
                    if !i.wired {
                        continue;
                    }
                    if i.collective {
                        let all = self.q.take_all(v, p);
                        taken[p] = all.len() as u64;
                        fixed[p] = all.into_list();
                    } else {
                        singles.push(p);
                    }
                }
                let count = singles.iter().map(|&p| self.q.len(v, p)).min().unwrap_or(1);
                let mut cols: Vec<(usize, Entities)> = singles
                    .iter()
                    .map(|&p| {
                        taken[p] = count as u64;
                        (p, self.q.take_n(v, p, count))
                    })
                    .collect();
                self.runner
                    .check_cancelled()
                    .map_err(|e| batch::flow_error(node, e))?;
                let job = batch::Job {
                    node,
                    v,
                    runner: &self.runner,
                    fixed: &fixed,
                    count,
                };
                let batch = batch::run(&job, &mut cols);
                runs = batch.runs as u64;
                match batch.made {
                    Made::Floats(xs) => {
                        made[0] = xs.len() as u64;
                        self.send_floats(v, xs)?;
                    }
                    Made::Rows(mut rows) => {
                        let outs = node.outputs.len().max(1);
                        for row in rows.chunks_exact_mut(outs) {
                            for (k, o) in row.iter_mut().enumerate() {
                                let o = std::mem::take(o);
                                if !matches!(o, Value::Empty) {
                                    made[k] += 1;
                                    self.send(v, k, o)?;
                                }
                            }
                        }
                    }
                }
                if let Some(e) = batch.error {
                    return Err(e);
                }
            }
        }
        let inputs = node
            .inputs
            .iter()
            .zip(&taken)
            .filter(|(i, _)| i.wired)
            .map(|(i, &n)| PortCount {
                port: i.name.clone(),
                entities: n,
            })
            .collect();
        // A graph output sends nothing on: its port is the call's.
        let outputs = match node.kind {
            Kind::Output { .. } => Vec::new(),
            _ => node
                .outputs
                .iter()
                .zip(&made)
                .map(|((name, _), &n)| PortCount {
                    port: name.clone(),
                    entities: n,
                })
                .collect(),
        };
        // Children in output-port order, then declaration order (each port's inputs are
        // sorted), whatever order the runs sent in.
        let sent: Vec<Dest> = node
            .outputs
            .iter()
            .zip(&made)
            .filter(|&(_, &n)| n > 0)
            .flat_map(|((_, dests), _)| dests.iter().copied())
            .collect();
        let step = Step {
            node: node.id.clone(),
            op: node.op_id.clone(),
            inputs,
            outputs,
            runs,
            duration: start.elapsed(),
        };
        Ok((step, sent))
    }
}
