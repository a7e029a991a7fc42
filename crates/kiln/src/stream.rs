//! Streaming a project's audio: its signal outputs rendered block by block by the streaming
//! evaluator, from the project's lowering, checked at the stream's rate.

use crate::{Clock, Project, ProjectError};
use kiln_core::eval::{StreamConfig, StreamError, StreamingEvaluator};
use kiln_core::prelude::*;
use kiln_std::graph_io::OUTPUT_OP;

/// How a project's audio is streamed.
#[derive(Clone, Debug)]
pub struct StreamOptions {
    /// Samples per second.
    pub rate: u32,
    /// Samples per block (at least 1).
    pub block: usize,
    /// The seed of noise sources and of the control values.
    pub seed: u64,
}

impl Default for StreamOptions {
    fn default() -> Self {
        let c = StreamConfig::default();
        StreamOptions {
            rate: c.sample_rate,
            block: c.block,
            seed: c.seed,
        }
    }
}

/// A project's signal outputs being streamed (see [`Project::stream`]).
pub struct AudioStream {
    stream: StreamingEvaluator,
    /// The signal port of each requested name, as `node.port`.
    sources: Vec<String>,
    /// For each requested name, the stream output it reads.
    of: Vec<usize>,
}

impl AudioStream {
    /// The next `n` samples of every output (read them with [`AudioStream::output`]).
    pub fn process(&mut self, n: usize) -> Result<(), StreamError> {
        self.stream.process(n)
    }
    /// The samples of the last [`AudioStream::process`] of requested name number `i`.
    pub fn output(&self, i: usize) -> &[f64] {
        self.of.get(i).map_or(&[], |&s| self.stream.output(s))
    }
    /// The signal port each requested name streams from, as `node.port`.
    pub fn sources(&self) -> Vec<&str> {
        self.of.iter().map(|&s| self.sources[s].as_str()).collect()
    }
}

impl Project {
    /// Stream `names` (graph outputs, nodes or `node.port`s; each must carry a signal) of
    /// the lowering at the start, checked at `opts.rate`, with the inputs set. Each signal
    /// is computed once however many names read it.
    pub fn stream(
        &mut self,
        names: &[String],
        opts: &StreamOptions,
    ) -> Result<AudioStream, ProjectError> {
        let lowered = self.lower(Clock::default())?;
        let g = &*lowered.graph;
        let problems =
            kiln_core::validate::validate_at_rate(g, &self.registry, f64::from(opts.rate));
        if !problems.is_empty() {
            return Err(ProjectError::Invalid { problems });
        }
        let mut sources: Vec<String> = vec![];
        let mut of = Vec::with_capacity(names.len());
        for name in names {
            let source = signal_source(g, &self.registry, name)?;
            let i = match sources.iter().position(|s| *s == source) {
                Some(i) => i,
                None => {
                    sources.push(source);
                    sources.len() - 1
                }
            };
            of.push(i);
        }
        let mut ctx = self.context(Clock::default());
        ctx.seed = opts.seed;
        let config = StreamConfig {
            sample_rate: opts.rate,
            block: opts.block,
            seed: opts.seed,
        };
        let ports: Vec<&str> = sources.iter().map(String::as_str).collect();
        let stream =
            StreamingEvaluator::with_context(self.registry.clone(), g, &ports, config, &ctx)
                .map_err(|e| ProjectError::Stream {
                    origin: self.origin.clone(),
                    source: Box::new(e),
                })?;
        Ok(AudioStream {
            stream,
            sources,
            of,
        })
    }
}

/// The signal port `name` streams from, as `node.port`: a graph output (an `output` node)
/// streams what is wired into it; any other name is a node (its default output) or
/// `node.port`.
fn signal_source(g: &Graph, reg: &Registry, name: &str) -> Result<String, ProjectError> {
    let not_signal = |what: String| ProjectError::NotASignal {
        output: name.to_string(),
        what,
    };
    let (node, port) = match g.node(name) {
        Some(n) if n.op == OUTPUT_OP => {
            let wire = g
                .wires()
                .iter()
                .find(|w| w.to.node.as_str() == name && w.to.port == "value");
            match wire {
                Some(w) => (w.from.node.as_str(), w.from.port.as_str()),
                None => return Err(not_signal("nothing is wired into it".into())),
            }
        }
        // Any other name is read as every evaluator reads it (`Graph::output_ref`).
        _ => match g.output_ref(name) {
            Some((i, port)) => (g.nodes()[i].id.as_str(), port),
            None => {
                return Err(ProjectError::UnknownOutput {
                    output: name.to_string(),
                });
            }
        },
    };
    let Some(op_id) = g.node(node).map(|n| n.op.as_str()) else {
        return Err(not_signal(format!("node `{node}` does not exist")));
    };
    let Some(op) = reg.get(op_id) else {
        return Err(not_signal(format!(
            "op `{op_id}` of node `{node}` is unknown"
        )));
    };
    let spec = op.spec();
    let Some(out) = spec.output_index(port).and_then(|i| spec.outputs.get(i)) else {
        return Err(not_signal(format!(
            "node `{node}` ({op_id}) has no output `{port}`"
        )));
    };
    if out.ty != ValueType::Signal {
        return Err(not_signal(format!(
            "it is the {} output `{node}.{}` ({op_id})",
            out.ty, out.name
        )));
    }
    Ok(format!("{node}.{}", out.name))
}
