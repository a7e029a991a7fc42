//! The record of a flow run: every step in the order it ran.

use std::fmt;
use std::time::Duration;

/// Entities through one port in one step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortCount {
    /// The port's name.
    pub port: String,
    /// Entities taken (an input) or sent (an output).
    pub entities: u64,
}

/// One step: a node run over what its queues held.
#[derive(Clone, Debug)]
pub struct Step {
    /// The body node.
    pub node: String,
    /// Its op id.
    pub op: String,
    /// Entities taken per wired input port, in port order.
    pub inputs: Vec<PortCount>,
    /// Entities sent per output port, in port order.
    pub outputs: Vec<PortCount>,
    /// Times the op ran in this step (once per entity of its single inputs).
    pub runs: u64,
    /// Wall time of the step (the only part of a trace that differs between runs).
    pub duration: Duration,
}

impl Step {
    /// Whether `self` and `other` are the same step, times aside.
    pub fn same_step(&self, other: &Step) -> bool {
        self.node == other.node
            && self.op == other.op
            && self.inputs == other.inputs
            && self.outputs == other.outputs
            && self.runs == other.runs
    }
}

/// Every step of one flow run, in order.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The steps.
    pub steps: Vec<Step>,
    /// Entities left in queues when the run ended (never taken by a step).
    pub unused: u64,
}

impl Trace {
    /// Whether two traces hold the same steps, times aside.
    pub fn same_steps(&self, other: &Trace) -> bool {
        self.unused == other.unused
            && self.steps.len() == other.steps.len()
            && self
                .steps
                .iter()
                .zip(&other.steps)
                .all(|(a, b)| a.same_step(b))
    }
    /// The nodes of the steps, in order (handy in tests).
    pub fn order(&self) -> Vec<&str> {
        self.steps.iter().map(|s| s.node.as_str()).collect()
    }
    /// Total wall time of the steps.
    pub fn total(&self) -> Duration {
        self.steps.iter().map(|s| s.duration).sum()
    }
}

fn counts(f: &mut fmt::Formatter<'_>, ports: &[PortCount]) -> fmt::Result {
    if ports.is_empty() {
        return write!(f, " -");
    }
    for p in ports {
        write!(f, " {}={}", p.port, p.entities)?;
    }
    Ok(())
}

/// One line per step: `#  node (op)  in port=n ...  out port=n ...  runs n  time`.
impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.steps.iter().enumerate() {
            write!(f, "{:>4}  {} ({})  in", i + 1, s.node, s.op)?;
            counts(f, &s.inputs)?;
            write!(f, "  out")?;
            counts(f, &s.outputs)?;
            writeln!(
                f,
                "  runs {}  {:.3} ms",
                s.runs,
                s.duration.as_secs_f64() * 1e3
            )?;
        }
        if self.unused > 0 {
            writeln!(f, "      {} entities left unused in queues", self.unused)?;
        }
        Ok(())
    }
}
