//! The time left in a long cook, estimated from past timings of the same nodes.
//!
//! [`Timings`] keeps, per flat node id, how long the node took the last time it ran. A cook
//! follows its progress reports with a [`Tracker`]: the nodes it has finished are known by
//! name, the rest only by count (the evaluator reports how many nodes the cook may run, not
//! which). The time left is then
//!
//! * the rest of the node running now, when it reports how far it got and it has run
//!   before: its past time × the fraction left;
//! * plus, for every other node still to finish, the mean past time of the nodes with a past
//!   that this cook has not finished yet (the likeliest to come).
//!
//! With no past time for any of those (the first cook), the estimate is count-based: the
//! time so far per finished node × the nodes left, and none before the first node finishes.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// How long each node took the last time it ran, by flat node id.
#[derive(Clone, Debug, Default)]
pub struct Timings {
    past: HashMap<String, Duration>,
}

impl Timings {
    /// No timings yet.
    pub fn new() -> Timings {
        Timings::default()
    }

    /// Node `node` took `time`.
    pub fn record(&mut self, node: &str, time: Duration) {
        self.past.insert(node.to_string(), time);
    }

    /// How long `node` took the last time, if it ran before.
    pub fn get(&self, node: &str) -> Option<Duration> {
        self.past.get(node).copied()
    }

    /// The sum of every past time (what a cook of every node would take).
    pub fn total(&self) -> Duration {
        self.past.values().sum()
    }

    /// A tracker for a cook starting now, with these timings as its past.
    pub fn tracker(&self) -> Tracker {
        Tracker {
            past: self.past.clone(),
            finished: HashSet::new(),
        }
    }
}

/// How an estimate was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// From past timings of the nodes left.
    Past,
    /// From the time so far per finished node (no past timings of the nodes left).
    Count,
}

impl Basis {
    /// Its name in the progress message.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Past => "past",
            Basis::Count => "count",
        }
    }
}

/// One progress report of a cook, as the tracker reads it.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// Nodes finished so far.
    pub completed: usize,
    /// Nodes the cook may run.
    pub total: usize,
    /// The node the report is about: finished (no fraction) or running (a fraction).
    pub node: Option<&'a str>,
    /// How far the running node got (0..=1).
    pub fraction: Option<f32>,
    /// Time since the cook started.
    pub elapsed: Duration,
}

/// The time left in one cook, followed report by report.
#[derive(Clone, Debug)]
pub struct Tracker {
    past: HashMap<String, Duration>,
    finished: HashSet<String>,
}

impl Tracker {
    /// Read one report; the estimated time left, and how it was made (none before anything
    /// is known).
    pub fn step(&mut self, s: &Step<'_>) -> Option<(Duration, Basis)> {
        let running = match (s.node, s.fraction) {
            (Some(n), None) => {
                self.finished.insert(n.to_string());
                None
            }
            (Some(n), Some(f)) if !self.finished.contains(n) => Some((n, f.clamp(0.0, 1.0))),
            _ => None,
        };
        let left = s.total.saturating_sub(s.completed);
        if left == 0 {
            return Some((Duration::ZERO, Basis::Past));
        }
        // The node running now, from its past time.
        let mut others = left;
        let mut now = Duration::ZERO;
        let mut now_known = false;
        if let Some((n, f)) = running {
            others -= 1;
            if let Some(t) = self.past.get(n) {
                now = t.mul_f64(f64::from(1.0 - f));
                now_known = true;
            }
        }
        // The nodes still to come, at the mean past time of those not finished yet.
        let (sum, count) = self
            .past
            .iter()
            .filter(|(id, _)| !self.finished.contains(*id) && running.is_none_or(|(n, _)| n != *id))
            .fold((Duration::ZERO, 0u32), |(s, c), (_, t)| (s + *t, c + 1));
        if count > 0 {
            let mean = sum / count;
            return Some((now + mean * others as u32, Basis::Past));
        }
        if others == 0 && now_known {
            return Some((now, Basis::Past));
        }
        if s.completed == 0 {
            return None;
        }
        let per_node = s.elapsed / s.completed as u32;
        Some((per_node * left as u32, Basis::Count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn done<'a>(completed: usize, total: usize, node: &'a str, elapsed_ms: u64) -> Step<'a> {
        Step {
            completed,
            total,
            node: Some(node),
            fraction: None,
            elapsed: MS * elapsed_ms as u32,
        }
    }

    #[test]
    fn the_nodes_left_are_estimated_at_their_mean_past_time() {
        // Past: a 100 ms, b 300 ms, c 500 ms. After `a` finishes, 2 of 3 nodes are left,
        // and the nodes with a past not finished are b and c (mean 400 ms): 800 ms.
        let mut t = Timings::new();
        t.record("a", MS * 100);
        t.record("b", MS * 300);
        t.record("c", MS * 500);
        let mut tr = t.tracker();
        assert_eq!(tr.step(&done(1, 3, "a", 90)), Some((MS * 800, Basis::Past)));
        // After `b` too: one node left, c at 500 ms.
        assert_eq!(
            tr.step(&done(2, 3, "b", 400)),
            Some((MS * 500, Basis::Past))
        );
        // All done: nothing left.
        assert_eq!(
            tr.step(&done(3, 3, "c", 900)),
            Some((Duration::ZERO, Basis::Past))
        );
    }

    #[test]
    fn the_running_node_counts_for_the_fraction_it_has_left() {
        // c (past 500 ms) is a quarter done: 375 ms of it left; with `a` finished and one
        // more node to come after c, b (300 ms) is the only other with a past: 675 ms.
        let mut t = Timings::new();
        t.record("a", MS * 100);
        t.record("b", MS * 300);
        t.record("c", MS * 500);
        let mut tr = t.tracker();
        tr.step(&done(1, 3, "a", 100));
        let running = Step {
            completed: 1,
            total: 3,
            node: Some("c"),
            fraction: Some(0.25),
            elapsed: MS * 200,
        };
        assert_eq!(tr.step(&running), Some((MS * 675, Basis::Past)));
    }

    #[test]
    fn a_first_cook_has_no_estimate_then_a_count_based_one() {
        let mut tr = Timings::new().tracker();
        let start = Step {
            completed: 0,
            total: 4,
            node: Some("a"),
            fraction: Some(0.5),
            elapsed: MS * 10,
        };
        assert_eq!(tr.step(&start), None);
        // One of four finished in 120 ms: three left at 120 ms each.
        assert_eq!(
            tr.step(&done(1, 4, "a", 120)),
            Some((MS * 360, Basis::Count))
        );
    }

    #[test]
    fn nodes_never_timed_fall_back_on_the_count() {
        // Only `a` has a past and it is finished: the two left are new nodes, estimated at
        // the time so far per finished node (200 ms / 2).
        let mut t = Timings::new();
        t.record("a", MS * 100);
        let mut tr = t.tracker();
        tr.step(&done(1, 4, "a", 150));
        assert_eq!(
            tr.step(&done(2, 4, "x", 200)),
            Some((MS * 200, Basis::Count))
        );
    }

    #[test]
    fn the_latest_time_of_a_node_replaces_its_older_one() {
        let mut t = Timings::new();
        t.record("a", MS * 100);
        t.record("a", MS * 40);
        assert_eq!(t.get("a"), Some(MS * 40));
        assert_eq!(t.total(), MS * 40);
    }
}
