//! Space colonization (Runions, Lane and Prusinkiewicz 2007), in 2D: a tree grows towards
//! attractor points scattered in a crown. Each step:
//!
//! 1. every attractor finds the nearest tree node within `influence` (the lowest index on a
//!    tie);
//! 2. every node some attractor chose grows one child `segment` long, in the direction of
//!    the sum of the unit vectors towards its attractors (attractors summed in their order);
//! 3. attractors within `kill` of any node are removed.
//!
//! The tree stops growing when no attractor is within reach of a node. Attractors search in
//! parallel, each on its own; the sums run in a fixed order, so the bits do not depend on the
//! thread count.

use crate::rng::Rng;
use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_f32s, write_len};
use kiln_core::key::KeyHasher;
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use rayon::prelude::*;
use std::any::Any;

/// The registered type name of growing trees.
pub const TREE: &str = "tree";
/// The port type of growing trees.
pub const TREE_TYPE: ValueType = ValueType::Heavy(TREE);

/// A growing tree and the attractors left (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tree {
    /// Node positions; node 0 is the root.
    pub nodes: Vec<[f32; 2]>,
    /// Each node's parent (the root's is itself); a parent comes before its children.
    pub parent: Vec<u32>,
    /// The attractors not yet reached.
    pub attractors: Vec<[f32; 2]>,
}

/// The distances of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GrowSettings {
    /// How far an attractor reaches for a node.
    pub influence: f32,
    /// How close a node must come to remove an attractor.
    pub kill: f32,
    /// Length of each new segment.
    pub segment: f32,
}

fn dist2(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])
}

impl Tree {
    /// A root at `root` and `count` seeded attractors spread uniformly over the disk of
    /// `radius` around `crown`.
    pub fn seeded(root: [f32; 2], crown: [f32; 2], radius: f32, count: u32, seed: u64) -> Tree {
        let mut rng = Rng::new(seed);
        let attractors = (0..count)
            .map(|_| {
                let r = radius * rng.next_f32().sqrt();
                let a = rng.next_f32() * std::f32::consts::TAU;
                [crown[0] + r * a.cos(), crown[1] + r * a.sin()]
            })
            .collect();
        Tree {
            nodes: vec![root],
            parent: vec![0],
            attractors,
        }
    }

    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }

    /// One step (see the module docs).
    pub fn grow(&self, s: &GrowSettings) -> Tree {
        let reach = s.influence * s.influence;
        let nearest: Vec<Option<usize>> = self
            .attractors
            .par_iter()
            .map(|&a| {
                let mut best: Option<(f32, usize)> = None;
                for (i, &n) in self.nodes.iter().enumerate() {
                    let d = dist2(a, n);
                    if d <= reach && best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, i));
                    }
                }
                best.map(|(_, i)| i)
            })
            .collect();
        let mut pull = vec![[0.0f32; 2]; self.nodes.len()];
        let mut pulled = vec![false; self.nodes.len()];
        for (a, n) in self.attractors.iter().zip(&nearest) {
            if let Some(i) = *n {
                let p = self.nodes[i];
                let d = dist2(*a, p).sqrt().max(1e-12);
                pull[i][0] += (a[0] - p[0]) / d;
                pull[i][1] += (a[1] - p[1]) / d;
                pulled[i] = true;
            }
        }
        let mut t = self.clone();
        for i in 0..self.nodes.len() {
            let len = (pull[i][0] * pull[i][0] + pull[i][1] * pull[i][1]).sqrt();
            if pulled[i] && len > 1e-6 {
                let p = self.nodes[i];
                t.nodes.push([
                    p[0] + s.segment * pull[i][0] / len,
                    p[1] + s.segment * pull[i][1] / len,
                ]);
                t.parent.push(i as u32);
            }
        }
        let kill = s.kill * s.kill;
        let nodes = &t.nodes;
        t.attractors
            .retain(|&a| nodes.iter().all(|&n| dist2(a, n) > kill));
        t
    }

    /// Each segment from a node's parent to it, as (x0, y0, x1, y1).
    pub fn segments(&self) -> Vec<[f32; 4]> {
        (1..self.nodes.len())
            .map(|i| {
                let (a, b) = (self.nodes[self.parent[i] as usize], self.nodes[i]);
                [a[0], a[1], b[0], b[1]]
            })
            .collect()
    }
}

impl HeavyData for Tree {
    fn type_name(&self) -> &'static str {
        TREE
    }
    fn byte_size(&self) -> usize {
        self.nodes.len() * 12 + self.attractors.len() * 8
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.f32_slice(self.nodes.as_flattened());
        for &p in &self.parent {
            h.u64(p as u64);
        }
        h.u64(self.attractors.len() as u64);
        h.f32_slice(self.attractors.as_flattened());
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The binary form of trees (tag 44): u64 node count, nodes (2 f32 each), parents (u32
/// each), u64 attractor count, attractors (2 f32 each). A parent that does not come before
/// its node is refused.
#[derive(Clone, Copy, Debug, Default)]
pub struct TreeCodec;

impl HeavyCodec for TreeCodec {
    fn type_name(&self) -> &'static str {
        TREE
    }
    fn tag(&self) -> u8 {
        44
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let t = value
            .downcast::<Tree>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        write_len(out, t.nodes.len());
        write_f32s(out, t.nodes.as_flattened());
        for p in &t.parent {
            out.extend_from_slice(&p.to_le_bytes());
        }
        write_len(out, t.attractors.len());
        write_f32s(out, t.attractors.as_flattened());
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let pair = |v: Vec<f32>| v.chunks_exact(2).map(|c| [c[0], c[1]]).collect::<Vec<_>>();
        let n = input.count(12, "tree nodes")?;
        let nodes = pair(input.f32_vec(n * 2, "tree nodes")?);
        let mut parent = Vec::with_capacity(n);
        for i in 0..n {
            let at = input.position();
            let p = input.u32("a parent")?;
            if (p as usize) > i || (i > 0 && p as usize == i) {
                return Err(CodecError::invalid(
                    at,
                    format!("node {i}'s parent {p} does not come before it"),
                ));
            }
            parent.push(p);
        }
        let m = input.count(8, "attractors")?;
        let attractors = pair(input.f32_vec(m * 2, "attractors")?);
        Ok(Tree {
            nodes,
            parent,
            attractors,
        }
        .into_value())
    }
}
