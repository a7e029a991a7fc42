//! Cooking a [`Sweep`]: every item's knobs set, its outputs cooked and written under names
//! from a [`NameTemplate`], items spread over worker threads, and one store of results
//! shared by all, so a node whose key no swept knob reaches is cooked once for the whole
//! sweep.
//!
//! Item 0 is cooked alone first: it fills the store with everything every item shares.
//! The other items then run on `jobs` workers, each a project of its own opened by the
//! caller's `open` (a project is not shared between threads) and given the first one's
//! store. A fresh evaluator runs each item, so a node it did not execute came from the store
//! (with everything upstream of it): [`SweepReport::saved`] counts the executions sharing
//! saved against cooking every item as item 0 was.

use crate::ProjectError;
use crate::cook::{CookOptions, Cooked};
use crate::output_files::OutputFiles;
use crate::project::Project;
use crate::sweep::{NameTemplate, Sweep, SweepItem};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What one item did.
#[derive(Debug)]
pub struct ItemDone {
    /// The item.
    pub item: SweepItem,
    /// The files written, or why the item failed (its files are then not written).
    pub result: Result<Vec<PathBuf>, String>,
    /// Nodes the item executed.
    pub executed: u64,
    /// Nodes the item found cooked (by an earlier item, or in the cache), not counting the
    /// nodes upstream of them that it then did not visit.
    pub reused: u64,
}

/// What a whole sweep did.
#[derive(Debug, Default)]
pub struct SweepReport {
    /// Items cooked (failed ones included).
    pub items: usize,
    /// Node executions, all items together.
    pub executed: u64,
    /// Node executions of item 0, cooked alone first (with a fresh memory: everything it
    /// needs, unless a cache directory held some).
    pub first_executed: u64,
    /// Nodes found cooked instead of executed, all items together (see
    /// [`ItemDone::reused`]).
    pub reused: u64,
    /// The items that failed, by index, with their error.
    pub failed: Vec<(usize, String)>,
    /// Every file written, in item order.
    pub files: Vec<PathBuf>,
    /// Each item's settings and files, in item order (what `sweep.json` records).
    pub done: Vec<(SweepItem, Vec<PathBuf>)>,
}

impl SweepReport {
    /// The executions sharing saved: every item cooked as item 0 was, less what the items
    /// executed (items whose plans differ from item 0's make this an estimate).
    pub fn saved(&self) -> u64 {
        (self.items as u64)
            .saturating_mul(self.first_executed)
            .saturating_sub(self.executed)
    }
}

/// How a sweep runs.
pub struct SweepRun<'a> {
    /// The items.
    pub sweep: &'a Sweep,
    /// Each output file's name.
    pub names: &'a NameTemplate,
    /// How each item cooks (the outputs, the evaluator, the clock ...).
    pub cook: &'a CookOptions,
    /// How each output is written.
    pub files: &'a OutputFiles,
    /// The folder every file lands in.
    pub out: &'a Path,
    /// Worker threads (at least 1).
    pub jobs: usize,
}

impl SweepRun<'_> {
    /// Cook and write every item. `first` is a project (its base settings made) whose store
    /// every worker shares; `open` makes another like it for each further worker. `done` is
    /// told of each item as it finishes (from the worker threads).
    pub fn run(
        &self,
        mut first: Project,
        open: &(dyn Fn() -> Result<Project, ProjectError> + Sync),
        done: &(dyn Fn(&ItemDone) + Sync),
    ) -> Result<SweepReport, ProjectError> {
        let n = self.sweep.len().map_err(ProjectError::Sweep)?;
        first.share_results();
        let report = Mutex::new(SweepReport {
            items: n,
            ..SweepReport::default()
        });
        let record = |d: ItemDone| {
            done(&d);
            let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
            r.executed += d.executed;
            r.reused += d.reused;
            match &d.result {
                Ok(files) => {
                    r.files.extend(files.iter().cloned());
                    r.done.push((d.item.clone(), files.clone()));
                }
                Err(e) => r.failed.push((d.item.index, e.clone())),
            }
        };
        if n == 0 {
            return Ok(report.into_inner().unwrap_or_else(|e| e.into_inner()));
        }
        let d0 = self.item(&mut first, self.sweep.item(0));
        report
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .first_executed = d0.executed;
        record(d0);
        let next = AtomicUsize::new(1);
        let store = first.store.clone();
        let work = |p: &mut Project| {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                record(self.item(p, self.sweep.item(i)));
            }
        };
        let workers = self.jobs.max(1).min(n.saturating_sub(1).max(1));
        let opened: Mutex<Option<ProjectError>> = Mutex::new(None);
        std::thread::scope(|s| {
            for _ in 1..workers {
                s.spawn(|| match open() {
                    Ok(mut p) => {
                        p.use_results_of(store.clone());
                        work(&mut p);
                    }
                    // The other workers take the items this one would have.
                    Err(e) => {
                        *opened.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                    }
                });
            }
            work(&mut first);
        });
        let mut report = report.into_inner().unwrap_or_else(|e| e.into_inner());
        report.failed.sort_by_key(|(i, _)| *i);
        report.done.sort_by_key(|(item, _)| item.index);
        if report.done.is_empty()
            && let Some(e) = opened.into_inner().unwrap_or_else(|e| e.into_inner())
        {
            return Err(e);
        }
        Ok(report)
    }

    /// Set `item`'s knobs on `p`, cook and write it.
    fn item(&self, p: &mut Project, item: SweepItem) -> ItemDone {
        let mut stats = (0, 0);
        let result = (|| -> Result<Vec<PathBuf>, ProjectError> {
            for (knob, value) in &item.settings {
                p.set_text(knob, value)?;
            }
            let cooked: Cooked = p.cook(self.cook)?;
            stats = (
                cooked.outputs.stats.executed,
                cooked.outputs.stats.cache_hits,
            );
            if let Some(name) = cooked.failed().first() {
                return Err(ProjectError::SweepOutputFailed {
                    output: name.to_string(),
                });
            }
            let written = p.write_named(&cooked, self.out, self.files, &|output| {
                self.names.render(output, &item)
            })?;
            Ok(written.files)
        })();
        ItemDone {
            item,
            result: result.map_err(|e| e.to_string()),
            executed: stats.0,
            reused: stats.1,
        }
    }
}

/// `sweep.json`: every item's index, settings and files (names relative to the folder).
pub fn manifest(report: &SweepReport, template: &NameTemplate) -> String {
    let items: Vec<serde_json::Value> = report
        .done
        .iter()
        .map(|(item, files)| {
            let settings: serde_json::Map<String, serde_json::Value> = item
                .settings
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect();
            serde_json::json!({
                "index": item.index,
                "settings": settings,
                "files": files
                    .iter()
                    .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    let failed: Vec<serde_json::Value> = report
        .failed
        .iter()
        .map(|(i, e)| serde_json::json!({"index": i, "error": e}))
        .collect();
    let doc = serde_json::json!({
        "kiln_sweep": 1,
        "names": template.to_string(),
        "items": items,
        "failed": failed,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
