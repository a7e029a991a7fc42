//! Running a stream: blocks of the outer domain, inner domains run ahead as far as their
//! resamplers need, loops emitted, processed and absorbed.

use super::StreamingEvaluator;
use super::config::StreamError;
use super::inputs::with_inputs;
use super::node::{InSrc, Step};
use crate::context::CancelToken;
use crate::eval::runner::op_call::panic_message;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

impl StreamingEvaluator {
    /// Process one block of [`StreamConfig::block`](super::StreamConfig::block) samples;
    /// read it with [`output`](Self::output).
    pub fn process_block(&mut self) -> Result<(), StreamError> {
        self.process(self.config.block)
    }

    /// Process `n` samples (1 to the block size).
    pub fn process(&mut self, n: usize) -> Result<(), StreamError> {
        if let Some(node) = &self.stopped {
            return Err(StreamError::Stopped { node: node.clone() });
        }
        let n = n.clamp(1, self.config.block);
        let run = catch_unwind(AssertUnwindSafe(|| self.run_all(n)));
        if let Err(p) = run {
            let node = &self.nodes[self.current as usize];
            self.stopped = Some(node.id.clone());
            self.last_len = 0;
            return Err(StreamError::Node {
                node: node.id.clone(),
                op: node.op.clone(),
                port: None,
                message: format!("panicked: {}", panic_message(&*p)),
            });
        }
        self.last_len = n;
        Ok(())
    }

    /// Render `samples` more samples of every output, from the current position.
    pub fn render(&mut self, samples: u64) -> Result<Vec<Vec<f64>>, StreamError> {
        self.render_with(samples, None, &mut |_, _| {})
    }

    /// As [`render`](Self::render), checking `cancel` between blocks and reporting
    /// `(done, total)` samples to `progress` after each block.
    pub fn render_with(
        &mut self,
        samples: u64,
        cancel: Option<&CancelToken>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Vec<Vec<f64>>, StreamError> {
        let cap = usize::try_from(samples).unwrap_or(usize::MAX).min(1 << 24);
        let mut out: Vec<Vec<f64>> = (0..self.outputs.len())
            .map(|_| Vec::with_capacity(cap))
            .collect();
        let mut done = 0u64;
        while done < samples {
            if cancel.is_some_and(|c| c.is_cancelled()) {
                // Between blocks the state is whole: the stream may go on later.
                return Err(StreamError::Cancelled {
                    position: self.position(),
                });
            }
            let n = (samples - done).min(self.config.block as u64) as usize;
            self.process(n)?;
            for (i, o) in out.iter_mut().enumerate() {
                o.extend_from_slice(self.output(i));
            }
            done += n as u64;
            progress(done, samples);
        }
        Ok(out)
    }

    /// Run `n` samples of the outer domain, after running every inner domain as far as it is
    /// needed (deepest first).
    fn run_all(&mut self, n: usize) {
        let nd = self.domains.len();
        if nd > 1 {
            self.targets[0] = self.domains[0].position + n as u64;
            // Parents are created before their children, so index order is top-down.
            for d in 1..nd {
                if let Some((rn, _)) = self.domains[d].feeds {
                    let parent = self.nodes[rn as usize].domain as usize;
                    let t = self.targets[parent];
                    let need = self.nodes[rn as usize]
                        .proc
                        .resampler()
                        .map_or(0, |r| r.need(t));
                    self.targets[d] = need;
                }
            }
            for d in (1..nd).rev() {
                while self.domains[d].position < self.targets[d] {
                    let k = (self.targets[d] - self.domains[d].position)
                        .min(self.config.block as u64) as usize;
                    self.run_domain(d, k);
                }
            }
        }
        self.run_domain(0, n);
    }

    fn run_domain(&mut self, d: usize, n: usize) {
        if self.fused.is_some() {
            // Block size 1, so `n` is 1.
            self.run_fused(d);
        } else {
            self.run_steps(d, n);
        }
        if let Some((rn, src)) = self.domains[d].feeds {
            let off = match src {
                InSrc::Node(u) => self.nodes[u as usize].out_off,
                InSrc::Const(c) => self.const_base + c as usize * self.config.block,
            };
            let samples = &self.data[off..off + n];
            self.current = rn;
            if let Some(r) = self.nodes[rn as usize].proc.resampler() {
                r.push(samples);
            }
        }
        self.domains[d].position += n as u64;
    }

    fn run_steps(&mut self, d: usize, n: usize) {
        let steps = Arc::clone(&self.domains[d].steps);
        for step in steps.iter() {
            match step {
                Step::Single(u) => self.run_node(*u, 0, n),
                Step::Loop {
                    delays,
                    nodes,
                    per_sample,
                } => {
                    if *per_sample {
                        for i in 0..n {
                            self.run_loop(delays, nodes, i, 1);
                        }
                    } else {
                        self.run_loop(delays, nodes, 0, n);
                    }
                }
            }
        }
    }

    fn run_loop(&mut self, delays: &[u32], nodes: &[u32], at: usize, len: usize) {
        for &u in delays {
            self.current = u;
            let node = &mut self.nodes[u as usize];
            let off = node.out_off + at;
            node.proc.emit(&mut self.data[off..off + len]);
        }
        for &u in nodes {
            self.run_node(u, at, len);
        }
        for &u in delays {
            self.current = u;
            let node = &mut self.nodes[u as usize];
            let total = self.data.len();
            with_inputs(&node.in_offs, self.data.as_ptr(), total, at, len, |ins| {
                node.proc.absorb(ins)
            });
        }
    }

    #[inline]
    fn run_node(&mut self, u: u32, at: usize, len: usize) {
        self.current = u;
        let node = &mut self.nodes[u as usize];
        let start = node.out_off + at;
        assert!(start + len <= self.data.len());
        // The output block is never one of the node's own inputs (a node that reads itself
        // is on a loop, and loops' delaying nodes go through emit/absorb instead), so the
        // output range and the input ranges are disjoint.
        debug_assert!(node.in_offs.iter().all(|&o| o != node.out_off));
        let total = self.data.len();
        let base = self.data.as_mut_ptr();
        // SAFETY: `start + len` is within the arena (checked above), and the input slices
        // `with_inputs` builds from `base` are within it too (checked there) and never
        // overlap `[start, start + len)` (see above), so no shared and mutable borrows alias.
        let out = unsafe { std::slice::from_raw_parts_mut(base.add(start), len) };
        with_inputs(&node.in_offs, base, total, at, len, |ins| {
            node.proc.process(ins, out)
        });
    }
}
