//! The summary the benchmarks print after their criterion groups, measured in the same
//! process: for each variant the median of [`Plan::reps`] interleaved repetitions.
//!
//! One repetition visits every variant in turn, so drift and bursts of other work on a
//! shared machine spoil a few repetitions of each variant instead of all repetitions of a
//! few, and the median leaves them out. A variant's repetition is one untimed run (to bring
//! its data back into the caches, which the other variants evicted) and then
//! [`Plan::runs_for`] timed runs: enough to fill about [`Plan::target`].
//!
//! [`Plan::medians`] takes a variant as a closure `time(i, n)` that does `n` runs of variant
//! `i` and returns their time, so any bench can use it. A bench whose variants are objects
//! implements [`Variant`] (runs, and a check of the result) and keeps them, named, in
//! [`Group`]s, which [`Plan::measure_groups`] measures together and fills with medians.
//! [`Plan::print_opening`], [`loadavg`], [`machine_line`] and [`verdict`] are the pieces of
//! the printed tables every bench shares; [`bench_mode`] says whether the summary runs at all.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// A measured variant of a benchmark.
pub trait Variant {
    /// Do `n` runs and return the time of their timed part.
    fn time(&mut self, n: u64) -> Duration;
    /// Do one untimed run and check its result (panics on a mismatch); `when` names the
    /// moment for the panic message ("setup", "after criterion", "after summary").
    fn check(&mut self, when: &str);
}

/// How a summary measures: repetitions, the time one repetition fills, and how the number
/// of runs in a repetition is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Repetitions per variant: the median is taken over this many.
    pub reps: usize,
    /// Target time of one repetition (several runs when one run is shorter).
    pub target: Duration,
    /// Most timed runs in one repetition.
    pub max_runs: u64,
    /// Single runs timed to estimate one run's time (the fastest counts).
    pub probes: usize,
}

impl Plan {
    /// The plan of the `evaluators` and `session` benchmarks (runs of microseconds to tens
    /// of milliseconds): 21 repetitions of about 4 ms, at most 200,000 runs each, a run's
    /// time estimated from the fastest of 3.
    pub const STANDARD: Plan = Plan {
        reps: 21,
        target: Duration::from_millis(4),
        max_runs: 200_000,
        probes: 3,
    };

    /// The number of timed runs in each repetition of a variant: [`Plan::target`] over the
    /// fastest of [`Plan::probes`] single runs (`time(1)`), clamped to `1..=max_runs`.
    pub fn runs_for(&self, mut time: impl FnMut(u64) -> Duration) -> u64 {
        let one = (0..self.probes)
            .map(|_| time(1))
            .min()
            .unwrap_or_default()
            .max(Duration::from_nanos(1));
        (self.target.as_nanos() / one.as_nanos()).clamp(1, u128::from(self.max_runs)) as u64
    }

    /// The median ns per run of each of `runs.len()` variants, interleaved repetition by
    /// repetition: each repetition visits variant 0, 1, … in turn, and variant `i`'s
    /// repetition is [`rep`]`(runs[i], …)`. `time(i, n)` does `n` runs of variant `i` and
    /// returns the time of their timed part.
    pub fn medians_with_runs(
        &self,
        runs: &[u64],
        mut time: impl FnMut(usize, u64) -> Duration,
    ) -> Vec<f64> {
        let mut samples = vec![Vec::with_capacity(self.reps); runs.len()];
        for _ in 0..self.reps {
            for (i, s) in samples.iter_mut().enumerate() {
                s.push(rep(runs[i], |n| time(i, n)));
            }
        }
        samples.into_iter().map(median).collect()
    }

    /// [`Plan::medians_with_runs`] of `count` variants, after finding each one's runs per
    /// repetition with [`Plan::runs_for`] (variant by variant, before any repetition).
    pub fn medians(&self, count: usize, mut time: impl FnMut(usize, u64) -> Duration) -> Vec<f64> {
        let runs: Vec<u64> = (0..count).map(|i| self.runs_for(|n| time(i, n))).collect();
        self.medians_with_runs(&runs, time)
    }

    /// Every variant of every group measured by [`Plan::medians`], interleaved across all
    /// of them (group by group, in order, within each repetition), each group's
    /// [`Group::medians`] set; then every variant checked ("after summary").
    pub fn measure_groups<'a, T: Variant + ?Sized + 'a>(
        &self,
        groups: impl IntoIterator<Item = &'a mut Group<T>>,
    ) {
        let mut groups: Vec<&mut Group<T>> = groups.into_iter().collect();
        let medians = {
            let mut all: Vec<&mut T> = groups
                .iter_mut()
                .flat_map(|g| g.entries.iter_mut().map(|e| &mut *e.t))
                .collect();
            self.medians(all.len(), |i, n| all[i].time(n))
        };
        let mut medians = medians.into_iter();
        for g in groups {
            g.check("after summary");
            g.medians = medians.by_ref().take(g.entries.len()).collect();
        }
    }

    /// How the medians were measured, for the summary's first line: "median of {reps}
    /// interleaved repetitions per variant (each: 1 untimed run, then runs filling ~{target}
    /// ms)".
    pub fn describe(&self) -> String {
        format!(
            "median of {} interleaved repetitions per variant (each: 1 untimed run, then runs \
             filling ~{} ms)",
            self.reps,
            self.target.as_millis()
        )
    }

    /// Print the summary's opening: a blank line, "Summary: {[`Plan::describe`]}{note}.",
    /// the [`machine_line`] (`load_start` from [`loadavg`] before measuring), a blank line.
    pub fn print_opening(&self, load_start: &str, note: &str) {
        println!();
        println!("Summary: {}{note}.", self.describe());
        println!("{}", machine_line(load_start));
        println!();
    }
}

/// Nanoseconds per run of one repetition: one untimed run (`time(1)`, its result ignored),
/// then `runs` timed ones (`time(runs)`).
pub fn rep(runs: u64, mut time: impl FnMut(u64) -> Duration) -> f64 {
    time(1);
    time(runs).as_nanos() as f64 / runs as f64
}

/// The median of `v` (the upper one of an even count; `v` must not be empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The time of `n` calls of `run`, each result passed through [`black_box`] (and dropped
/// inside the timed section).
#[inline(always)]
pub fn time_runs<R>(n: u64, mut run: impl FnMut() -> R) -> Duration {
    let t = Instant::now();
    for _ in 0..n {
        black_box(run());
    }
    t.elapsed()
}

/// A named variant (`T` is usually a bench's `dyn` variant trait).
pub struct Entry<T: ?Sized> {
    /// The variant's name (its criterion benchmark id, and the key for [`Group::median`]).
    pub name: &'static str,
    /// The variant.
    pub t: Box<T>,
}

impl<T: ?Sized> Entry<T> {
    /// The variant `t` named `name`.
    pub fn new(name: &'static str, t: Box<T>) -> Self {
        Entry { name, t }
    }
}

/// Named variants measured together, and their medians once measured.
pub struct Group<T: ?Sized> {
    /// The variants, in the order they are measured.
    pub entries: Vec<Entry<T>>,
    /// The median ns per run of each entry (set by [`Plan::measure_groups`]; empty before).
    pub medians: Vec<f64>,
}

impl<T: ?Sized> Group<T> {
    /// A group of `entries`, not measured yet.
    pub fn new(entries: Vec<Entry<T>>) -> Self {
        Group {
            entries,
            medians: vec![],
        }
    }

    /// The index of the variant named `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.name == name)
    }

    /// The variant named `name`.
    pub fn variant(&self, name: &str) -> Option<&T> {
        self.position(name).map(|i| &*self.entries[i].t)
    }

    /// The median ns per run of the variant named `name`, once measured.
    pub fn median(&self, name: &str) -> Option<f64> {
        self.position(name)
            .and_then(|i| self.medians.get(i).copied())
    }
}

impl<T: Variant + ?Sized> Group<T> {
    /// Check every variant, in order ([`Variant::check`]).
    pub fn check(&mut self, when: &str) {
        for e in &mut self.entries {
            e.t.check(when);
        }
    }
}

/// `/proc/loadavg`'s first three fields ("?" where it cannot be read): other work on a
/// shared machine shows up in the timings, parallel speedups first.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The summary's machine line: "Cores: {n}. Load average (1, 5, 15 min) at the start:
/// {load_start}, at the end: {now}." (`load_start` from [`loadavg`] before measuring).
pub fn machine_line(load_start: &str) -> String {
    format!(
        "Cores: {}. Load average (1, 5, 15 min) at the start: {load_start}, at the end: {}.",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        loadavg()
    )
}

/// A target's verdict: "met", or "**missed**" (bold in the Markdown tables).
pub fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "**missed**" }
}

/// Whether the summary runs: `cargo bench` passes `--bench`, `cargo test --benches` does
/// not (criterion then runs each benchmark once as a smoke test, and the summary is
/// skipped); under criterion's `--profile-time` only the selected benchmark runs, no summary.
pub fn bench_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--profile-time")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_is_the_middle_after_sorting() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
    }

    #[test]
    fn runs_fill_the_target_within_bounds() {
        let plan = Plan {
            reps: 3,
            target: Duration::from_millis(4),
            max_runs: 1_000,
            probes: 3,
        };
        let mut probes = 0;
        let runs = plan.runs_for(|n| {
            assert_eq!(n, 1);
            probes += 1;
            Duration::from_micros(if probes == 2 { 10 } else { 20 })
        });
        assert_eq!((probes, runs), (3, 400));
        assert_eq!(plan.runs_for(|_| Duration::ZERO), 1_000);
        assert_eq!(plan.runs_for(|_| Duration::from_secs(1)), 1);
    }

    /// Repetitions visit every variant in turn, each an untimed run then the timed runs,
    /// and the groups get their own medians.
    #[test]
    fn groups_are_interleaved_and_get_their_medians() {
        let plan = Plan {
            reps: 2,
            target: Duration::from_micros(40),
            max_runs: 1_000,
            probes: 1,
        };
        use std::cell::RefCell;
        use std::rc::Rc;
        /// One run takes `us` µs; `calls` records `n` of every `time(n)`, `order` who ran.
        struct V {
            us: u64,
            calls: Vec<u64>,
            checks: usize,
            order: Rc<RefCell<Vec<u64>>>,
        }
        impl Variant for V {
            fn time(&mut self, n: u64) -> Duration {
                self.calls.push(n);
                self.order.borrow_mut().push(self.us);
                Duration::from_micros(self.us * n)
            }
            fn check(&mut self, when: &str) {
                assert_eq!(when, "after summary");
                self.checks += 1;
            }
        }
        let order = Rc::new(RefCell::new(vec![]));
        let entry = |name, us| {
            let v = V {
                us,
                calls: vec![],
                checks: 0,
                order: order.clone(),
            };
            Entry::new(name, Box::new(v))
        };
        let mut a: Group<V> = Group::new(vec![entry("x", 10), entry("y", 20)]);
        let mut b: Group<V> = Group::new(vec![entry("z", 40)]);
        plan.measure_groups([&mut a, &mut b]);
        assert_eq!(a.medians, [10_000.0, 20_000.0]);
        assert_eq!(b.medians, [40_000.0]);
        assert_eq!(a.median("y"), Some(20_000.0));
        assert_eq!(a.median("z"), None);
        // One probe each, then two repetitions of (1 untimed, `runs` timed) each.
        assert_eq!(a.entries[0].t.calls, [1, 1, 4, 1, 4]);
        assert_eq!(a.entries[1].t.calls, [1, 1, 2, 1, 2]);
        assert_eq!(b.entries[0].t.calls, [1, 1, 1, 1, 1]);
        assert_eq!(
            *order.borrow(),
            [10, 20, 40, 10, 10, 20, 20, 40, 40, 10, 10, 20, 20, 40, 40]
        );
        // Every variant checked once, after the summary.
        assert!(a.entries.iter().chain(&b.entries).all(|e| e.t.checks == 1));
    }

    #[test]
    fn describe_names_the_repetitions_and_the_target() {
        assert_eq!(
            Plan::STANDARD.describe(),
            "median of 21 interleaved repetitions per variant (each: 1 untimed run, then runs \
             filling ~4 ms)"
        );
    }

    #[test]
    fn verdicts() {
        assert_eq!(verdict(true), "met");
        assert_eq!(verdict(false), "**missed**");
    }
}
