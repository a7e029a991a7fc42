//! The `salsa` peer of the chain benchmark.
//!
//! The same workload shape as Kiln's chain, written the way a [`salsa`] user would: node 0
//! is a leaf input holding `x`; node `i >= 1` is an input holding its own parameters
//! `(k_i, c_i)` and a link to node `i - 1`, and a tracked function computes
//! `out[i] = out[i - 1] * k_i + c_i`. Every input uses salsa's default durability. With
//! `k_i = c_i = 1` the output of an `n`-node chain is `x + (n - 1)` exactly (for integral
//! `x` of moderate size).
//!
//! # Deep recursion
//!
//! Salsa evaluates and revalidates memos recursively: asking for node `N - 1` with no memo
//! calls node `N - 2`, and so on; revalidating node `N - 1` after any input change walks
//! its dependencies depth first (`maybe_changed_after` → `deep_verify_memo` → the
//! dependency's `maybe_changed_after` …), whether the change was the leaf or only the
//! root's own parameter. Measured with salsa 0.28.5, asking for the root alone after a
//! change takes about 2.3 KB of stack per chain node in a debug build and about 0.9 KB in
//! release: it overflows a 2 MiB thread beyond roughly 900 (debug) or 2,250 (release)
//! nodes, and a 10,000-node chain would need about 23 MB (debug) or 9 MB (release).
//!
//! [`SalsaChain`] therefore never asks for a node whose predecessor is not already fresh in
//! the current revision: after construction, a leaf change or a parameter change,
//! [`SalsaChain::output`] queries the nodes bottom-up, `0, 1, …, N - 1`, so each query
//! recurses at most one level (node `i - 1` was verified or recomputed by the previous
//! call, so salsa's O(1) "verified in this revision" check answers for it). Salsa would
//! have to visit every memo anyway — with default (low) durability on every input, any
//! input change makes each memo's shallow check fail — so the walk does the same
//! verifications and re-executions as salsa's own recursion, as a loop; in release it
//! measured no slower (≈0.7 ms against ≈1.4 ms after a root change, ≈3.1 ms against
//! ≈3.9 ms after a leaf change, at 10,000 nodes, the recursion run on a large stack). With
//! no change since the last call, [`SalsaChain::output`] asks for the last node alone,
//! which salsa answers from its memo in O(1).

use std::sync::atomic::{AtomicU64, Ordering};

use salsa::Setter;

/// The database trait the tracked functions see: salsa's plus the execution counter.
#[salsa::db]
trait ChainDb: salsa::Database {
    /// Record one node computation (called at the top of each tracked function body).
    fn count_execution(&self);
}

/// The salsa database of a [`SalsaChain`]: salsa's storage and the execution counter.
#[salsa::db]
#[derive(Default)]
struct ChainDatabase {
    storage: salsa::Storage<Self>,
    executions: AtomicU64,
}

#[salsa::db]
impl salsa::Database for ChainDatabase {}

#[salsa::db]
impl ChainDb for ChainDatabase {
    fn count_execution(&self) {
        self.executions.fetch_add(1, Ordering::Relaxed);
    }
}

/// Node 0 of the chain: the leaf input value `x`.
#[salsa::input]
struct Leaf {
    /// The leaf value.
    #[returns(copy)]
    x: f64,
}

/// What a [`Step`] reads: the leaf (node 0) or the step before it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Prev {
    /// Node 0.
    Leaf(Leaf),
    /// Node `i - 1` for `i >= 2`.
    Step(Step),
}

/// Node `i >= 1` of the chain: `out[i] = out[i - 1] * k + c`.
#[salsa::input]
struct Step {
    /// The node this one reads (never changed after construction).
    #[returns(copy)]
    prev: Prev,
    /// The multiplier `k_i`.
    #[returns(copy)]
    k: f64,
    /// The addend `c_i`.
    #[returns(copy)]
    c: f64,
}

/// The value of node 0: the leaf's `x`.
#[salsa::tracked(returns(copy))]
fn leaf_value(db: &dyn ChainDb, leaf: Leaf) -> f64 {
    db.count_execution();
    leaf.x(db)
}

/// The value of node `i >= 1`: `out[i - 1] * k_i + c_i`.
#[salsa::tracked(returns(copy))]
fn step_value(db: &dyn ChainDb, step: Step) -> f64 {
    db.count_execution();
    let prev = match step.prev(db) {
        Prev::Leaf(leaf) => leaf_value(db, leaf),
        Prev::Step(s) => step_value(db, s),
    };
    prev * step.k(db) + step.c(db)
}

/// A chain of nodes in a salsa database, with the operations the benchmark times.
pub struct SalsaChain {
    db: ChainDatabase,
    leaf: Leaf,
    /// Nodes `1..n`; `steps[i - 1]` is node `i`.
    steps: Vec<Step>,
    /// Whether an input changed since the last [`SalsaChain::output`].
    dirty: bool,
}

impl SalsaChain {
    /// Build a chain of `n` nodes with leaf value `x`, params `k = 1`, `c = 1`, and compute
    /// it once (bottom-up).
    ///
    /// # Panics
    ///
    /// If `n` is 0.
    pub fn new(n: usize, x: f64) -> Self {
        assert!(n >= 1, "a chain has at least one node");
        let db = ChainDatabase::default();
        let leaf = Leaf::new(&db, x);
        let mut steps: Vec<Step> = Vec::with_capacity(n - 1);
        for _ in 1..n {
            let prev = match steps.last() {
                Some(&s) => Prev::Step(s),
                None => Prev::Leaf(leaf),
            };
            steps.push(Step::new(&db, prev, 1.0, 1.0));
        }
        let mut chain = SalsaChain {
            db,
            leaf,
            steps,
            dirty: true,
        };
        chain.output();
        chain
    }

    /// Set the leaf input `x` (node 0).
    pub fn set_leaf(&mut self, x: f64) {
        self.leaf.set_x(&mut self.db).to(x);
        self.dirty = true;
    }

    /// Set the param `c` of the last node (the root / requested output).
    ///
    /// # Panics
    ///
    /// If the chain has a single node (the leaf has no parameter).
    pub fn set_root_param(&mut self, c: f64) {
        let root = *self
            .steps
            .last()
            .expect("a one-node chain has no root parameter");
        root.set_c(&mut self.db).to(c);
        self.dirty = true;
    }

    /// The output `out[N - 1]`, recomputing what changed.
    ///
    /// After an input change, queries nodes `0..N` in order so that no query recurses more
    /// than one level (see the module docs); salsa re-executes only the nodes whose inputs
    /// changed (a parameter change) or whose predecessor's value changed (a leaf change),
    /// and revalidates the others. With no change, it asks for the last node alone.
    pub fn output(&mut self) -> f64 {
        if self.dirty {
            leaf_value(&self.db, self.leaf);
            for &s in &self.steps {
                step_value(&self.db, s);
            }
            self.dirty = false;
        }
        match self.steps.last() {
            Some(&root) => step_value(&self.db, root),
            None => leaf_value(&self.db, self.leaf),
        }
    }

    /// Number of node computations executed since construction (construction's own `n`
    /// included).
    pub fn executions(&self) -> u64 {
        self.db.executions.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed_form(n: usize, x: f64) -> f64 {
        x + (n - 1) as f64
    }

    #[test]
    fn salsa_chain_matches_closed_form() {
        for n in [1, 2, 1000, 10_000] {
            let mut c = SalsaChain::new(n, 2.5);
            assert_eq!(c.executions(), n as u64, "n = {n}");
            assert_eq!(c.output(), closed_form(n, 2.5), "n = {n}");
        }
    }

    #[test]
    fn salsa_output_without_change_executes_nothing() {
        let mut c = SalsaChain::new(10_000, 1.0);
        let before = c.executions();
        assert_eq!(c.output(), closed_form(10_000, 1.0));
        assert_eq!(c.output(), closed_form(10_000, 1.0));
        assert_eq!(c.executions(), before);
    }

    #[test]
    fn salsa_root_param_reexecutes_one_node() {
        for n in [1000, 10_000] {
            let mut c = SalsaChain::new(n, 1.0);
            let before = c.executions();
            c.set_root_param(5.0);
            // out[N - 2] = x + (N - 2); out[N - 1] = out[N - 2] * 1 + 5.
            assert_eq!(c.output(), 1.0 + (n - 2) as f64 + 5.0, "n = {n}");
            assert_eq!(c.executions() - before, 1, "n = {n}");
            // Setting it back is one more execution.
            c.set_root_param(1.0);
            assert_eq!(c.output(), closed_form(n, 1.0));
            assert_eq!(c.executions() - before, 2, "n = {n}");
        }
    }

    #[test]
    fn salsa_leaf_change_reexecutes_every_node() {
        for n in [1000, 10_000] {
            let mut c = SalsaChain::new(n, 1.0);
            let before = c.executions();
            c.set_leaf(3.0);
            assert_eq!(c.output(), closed_form(n, 3.0), "n = {n}");
            assert_eq!(c.executions() - before, n as u64, "n = {n}");
            let before = c.executions();
            assert_eq!(c.output(), closed_form(n, 3.0));
            assert_eq!(c.executions(), before);
        }
    }
}
