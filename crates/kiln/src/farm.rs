//! Farm plans: a sweep cut into chunks that a scheduler (Slurm, Kubernetes, OpenJD, ...)
//! runs as work items, each a `kiln farm item` process, with no scheduler of Kiln's own.
//!
//! A plan (`kiln-farm.json` in the plan's folder) holds the graph (its path and the digest
//! of what it and its calls said when planned), Kiln's version, the settings every item
//! shares, the sweep, every item's settings and the content keys of its outputs (computed
//! without cooking, see [`Project::output_keys`]), and the chunks. Items cook through one
//! cache directory on shared storage (`cache/` beside the plan), write their files into
//! `out/` atomically, and leave a done marker (`done/<index>.json`: the keys and files) once
//! every file has landed. An item whose marker holds the keys it would make now, and whose
//! files are there, is skipped: a resubmitted chunk cooks only what is missing.
//!
//! Stage 0 is item 0 cooked alone before any chunk: everything no swept knob reaches is
//! cooked there once into the shared cache, and every chunk finds it there.

use crate::ProjectError;
use crate::cook::CookOptions;
use crate::output_files::OutputFiles;
use crate::project::{OpenOptions, Project};
use crate::sweep::{NameTemplate, Sweep, SweepItem};
use serde_json::{Value as J, json};
use std::path::{Path, PathBuf};

/// The plan file's name in its folder.
pub const PLAN_FILE: &str = "kiln-farm.json";

/// The environment variables a work item reads its task index from, in order: Slurm
/// arrays, Kubernetes Indexed Jobs, AWS Batch array jobs, and Kiln's own (OpenJD templates
/// set it from their task parameter).
pub const TASK_VARIABLES: [&str; 4] = [
    "SLURM_ARRAY_TASK_ID",
    "JOB_COMPLETION_INDEX",
    "AWS_BATCH_JOB_ARRAY_INDEX",
    "KILN_TASK",
];

/// What is wrong with a plan or a work item.
#[derive(Debug, thiserror::Error)]
pub enum FarmError {
    /// The plan file cannot be read or is not a plan.
    #[error("plan {path}: {message}")]
    Plan {
        /// The plan file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The graph changed since it was planned.
    #[error("{graph} changed since it was planned (digest {now}, planned {planned}): plan again")]
    GraphChanged {
        /// The graph file.
        graph: PathBuf,
        /// Its digest now.
        now: String,
        /// Its digest in the plan.
        planned: String,
    },
    /// No task index was given and none is in the environment.
    #[error("no task index: give --task N or set one of {}", TASK_VARIABLES.join(", "))]
    NoTask,
    /// A task index outside the plan's chunks.
    #[error("task {task} is not a chunk of this plan (0 to {last})")]
    NoSuchTask {
        /// The index asked for.
        task: String,
        /// The last chunk.
        last: usize,
    },
    /// A frame range that cannot be planned.
    #[error("--frames: {0}")]
    Frames(String),
    /// The project failed.
    #[error(transparent)]
    Project(#[from] ProjectError),
    /// A file could not be written.
    #[error("cannot write {path}: {message}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// A farm plan, as read from or written to its file.
#[derive(Clone, Debug)]
pub struct FarmPlan {
    /// The folder the plan, the cache, the outputs and the markers live in.
    pub dir: PathBuf,
    /// The graph file (absolute).
    pub graph: PathBuf,
    /// Folders searched for called graphs.
    pub libs: Vec<PathBuf>,
    /// The digest of the graph and its calls when planned.
    pub digest: String,
    /// `--set NAME=VALUE` every item shares.
    pub set: Vec<String>,
    /// The sweep's axes as given (`NAME=VALUES`).
    pub axes: Vec<String>,
    /// Whether the sweep zips its axes.
    pub zip: bool,
    /// The name template.
    pub names: String,
    /// The outputs asked for (empty: every output).
    pub outputs: Vec<String>,
    /// The context seed.
    pub seed: u64,
    /// The request's image size.
    pub size: Option<(u32, u32)>,
    /// Items per chunk.
    pub chunk: usize,
    /// Every item's output keys (hex), by item index, in request order (none for frames:
    /// a tick's keys depend on the ticks before it).
    pub keys: Vec<Vec<(String, String)>>,
    /// A frame range of a latch graph, `(first, last)` ticks: item i is tick first + i,
    /// written as `kiln render` names it; each chunk replays from tick 0 to its first tick.
    pub frames: Option<(u64, u64)>,
    /// Seconds per tick, for frames.
    pub dt: f64,
}

impl FarmPlan {
    /// The sweep (no axes for a frame range).
    pub fn sweep(&self) -> Result<Sweep, ProjectError> {
        Ok(Sweep::parse(&self.axes, self.zip)?)
    }
    /// The digits a frame's tick is padded to: those a render up to the last tick pads
    /// them to.
    pub fn tick_width(&self) -> usize {
        crate::tick_width(self.frames.map_or(1, |(_, last)| last.saturating_add(1)))
    }
    /// The name template.
    pub fn template(&self) -> Result<NameTemplate, ProjectError> {
        if self.frames.is_some() {
            return Ok(NameTemplate::default_for_sweep());
        }
        let sweep = self.sweep()?;
        let knobs: Vec<&str> = sweep.axes.iter().map(|a| a.name.as_str()).collect();
        Ok(NameTemplate::parse(&self.names, &knobs)?)
    }
    /// How many chunks (tasks) the plan has.
    pub fn chunks(&self) -> usize {
        self.keys.len().div_ceil(self.chunk.max(1))
    }
    /// The items of chunk `c`.
    pub fn chunk_items(&self, c: usize) -> std::ops::Range<usize> {
        let lo = (c * self.chunk).min(self.keys.len());
        lo..(lo + self.chunk).min(self.keys.len())
    }
    /// The folder the outputs land in.
    pub fn out_dir(&self) -> PathBuf {
        self.dir.join("out")
    }
    /// The shared cache directory.
    pub fn cache_dir(&self) -> PathBuf {
        self.dir.join("cache")
    }
    /// Item `i`'s done marker.
    pub fn marker(&self, i: usize) -> PathBuf {
        self.dir.join("done").join(format!("{i}.json"))
    }
    /// The plan file.
    pub fn file(&self) -> PathBuf {
        self.dir.join(PLAN_FILE)
    }

    /// The cook every item runs.
    pub fn cook_options(&self) -> CookOptions {
        CookOptions {
            outputs: self.outputs.clone(),
            seed: self.seed,
            size: self.size,
            ..CookOptions::default()
        }
    }

    /// Open the plan's graph with its shared settings and the shared cache, refusing a
    /// graph that changed since it was planned.
    pub fn open(&self) -> Result<Project, FarmError> {
        let (mut p, now) = open_graph(&self.graph, &self.libs, &self.set)?;
        if now != self.digest {
            return Err(FarmError::GraphChanged {
                graph: self.graph.clone(),
                now,
                planned: self.digest.clone(),
            });
        }
        let cache = crate::CacheDir::open(&self.cache_dir(), false, p.registry())?;
        p.set_cache(cache);
        Ok(p)
    }

    /// Plan `sweep` over the graph at `graph` (opened with `libs`, `set` applied) in chunks
    /// of `chunk` items, into folder `dir`: every item's output keys are computed (nothing
    /// is cooked but what the plan itself needs).
    #[allow(clippy::too_many_arguments)]
    pub fn make(
        graph: &Path,
        libs: &[PathBuf],
        set: &[String],
        sweep_axes: &[String],
        zip: bool,
        names: &str,
        outputs: &[String],
        seed: u64,
        size: Option<(u32, u32)>,
        chunk: usize,
        frames: Option<(u64, u64)>,
        dt: f64,
        dir: &Path,
    ) -> Result<FarmPlan, FarmError> {
        let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let sweep = Sweep::parse(sweep_axes, zip).map_err(ProjectError::from)?;
        let n = match frames {
            Some((a, b)) if b < a => {
                return Err(FarmError::Frames(format!("{a}..{b} ends before it starts")));
            }
            Some(_) if !sweep.is_empty() => {
                return Err(FarmError::Frames(
                    "a plan is a sweep or a frame range, not both".into(),
                ));
            }
            Some((a, b)) => usize::try_from(b - a + 1)
                .ok()
                .filter(|&n| n <= crate::sweep::MAX_SWEEP_ITEMS)
                .ok_or_else(|| {
                    FarmError::Frames(format!(
                        "{a}..{b} is more than {} frames (MAX_SWEEP_ITEMS)",
                        crate::sweep::MAX_SWEEP_ITEMS
                    ))
                })?,
            None if sweep.is_empty() => {
                return Err(FarmError::Frames(
                    "plan a --sweep or a --frames range".into(),
                ));
            }
            None => sweep.len().map_err(ProjectError::from)?,
        };
        let mut plan = FarmPlan {
            dir: abs(dir),
            graph: abs(graph),
            libs: libs.iter().map(|l| abs(l)).collect(),
            digest: String::new(),
            set: set.to_vec(),
            axes: sweep_axes.to_vec(),
            zip,
            names: names.to_string(),
            outputs: outputs.to_vec(),
            seed,
            size,
            chunk: chunk.max(1),
            keys: Vec::with_capacity(n),
            frames,
            dt,
        };
        plan.template()?;
        let (mut p, digest) = open_graph(&plan.graph, &plan.libs, set)?;
        plan.digest = digest;
        if frames.is_some() {
            // The plan is checked (and its outputs named) here; a tick's keys depend on the
            // ticks before it, so frames are found done by their files.
            p.checked_lowering(crate::Clock::default())?;
            plan.keys = vec![vec![]; n];
            return Ok(plan);
        }
        let opts = plan.cook_options();
        for i in 0..n {
            let item = sweep.item(i);
            for (k, v) in &item.settings {
                p.set_text(k, v)?;
            }
            let keys = p.output_keys(&opts)?;
            plan.keys
                .push(keys.into_iter().map(|(o, k)| (o, k.to_hex())).collect());
        }
        Ok(plan)
    }

    /// The plan as its file's JSON.
    pub fn to_json(&self) -> String {
        let sweep = self.sweep().ok();
        let items: Vec<J> = self
            .keys
            .iter()
            .enumerate()
            .map(|(i, keys)| {
                let settings: serde_json::Map<String, J> = sweep
                    .as_ref()
                    .map(|s| s.item(i).settings)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, J::String(v)))
                    .collect();
                let keys: serde_json::Map<String, J> = keys
                    .iter()
                    .map(|(o, k)| (o.clone(), J::String(k.clone())))
                    .collect();
                json!({"index": i, "settings": settings, "keys": keys})
            })
            .collect();
        let chunks: Vec<J> = (0..self.chunks())
            .map(|c| {
                let r = self.chunk_items(c);
                json!([r.start, r.end - 1])
            })
            .collect();
        let doc = json!({
            "kiln_farm": 1,
            "kiln_version": env!("CARGO_PKG_VERSION"),
            "graph": self.graph,
            "libs": self.libs,
            "graph_digest": self.digest,
            "set": self.set,
            "sweep": self.axes,
            "zip": self.zip,
            "names": self.names,
            "outputs": self.outputs,
            "seed": self.seed,
            "size": self.size.map(|(w, h)| json!([w, h])),
            "chunk": self.chunk,
            "frames": self.frames.map(|(a, b)| json!([a, b])),
            "dt": self.dt,
            "stage0": {"item": 0},
            "chunks": chunks,
            "items": items,
        });
        let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Write the plan file (atomically), making its folder.
    pub fn save(&self) -> Result<PathBuf, FarmError> {
        let file = self.file();
        std::fs::create_dir_all(&self.dir).map_err(|e| FarmError::Write {
            path: self.dir.clone(),
            message: e.to_string(),
        })?;
        kiln_io::write_atomic(&file, self.to_json().as_bytes()).map_err(|e| FarmError::Write {
            path: file.clone(),
            message: e.to_string(),
        })?;
        Ok(file)
    }

    /// Read the plan file at `path` (a plan file, or the folder holding one).
    pub fn load(path: &Path) -> Result<FarmPlan, FarmError> {
        let file = if path.is_dir() {
            path.join(PLAN_FILE)
        } else {
            path.to_path_buf()
        };
        let bad = |m: &str| FarmError::Plan {
            path: file.clone(),
            message: m.to_string(),
        };
        let text = std::fs::read_to_string(&file).map_err(|e| bad(&e.to_string()))?;
        let j: J = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
        if j["kiln_farm"] != 1 {
            return Err(bad("not a Kiln farm plan (no \"kiln_farm\": 1)"));
        }
        let strings = |v: &J| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let paths = |v: &J| strings(v).into_iter().map(PathBuf::from).collect();
        let items = j["items"].as_array().ok_or_else(|| bad("no items"))?;
        let mut keys = Vec::with_capacity(items.len());
        for it in items {
            let k = it["keys"]
                .as_object()
                .ok_or_else(|| bad("an item without keys"))?;
            keys.push(
                k.iter()
                    .map(|(o, v)| (o.clone(), v.as_str().unwrap_or("").to_string()))
                    .collect(),
            );
        }
        // Absolute, so the job files name it from any working directory.
        let dir = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Ok(FarmPlan {
            dir: std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()),
            graph: PathBuf::from(j["graph"].as_str().ok_or_else(|| bad("no graph"))?),
            libs: paths(&j["libs"]),
            digest: j["graph_digest"].as_str().unwrap_or("").to_string(),
            set: strings(&j["set"]),
            axes: strings(&j["sweep"]),
            zip: j["zip"].as_bool().unwrap_or(false),
            names: j["names"]
                .as_str()
                .unwrap_or("{output}_{index:04}")
                .to_string(),
            outputs: strings(&j["outputs"]),
            seed: j["seed"].as_u64().unwrap_or(0),
            size: j["size"]
                .as_array()
                .and_then(|a| Some((a.first()?.as_u64()? as u32, a.get(1)?.as_u64()? as u32))),
            chunk: j["chunk"].as_u64().unwrap_or(1).max(1) as usize,
            keys,
            frames: j["frames"]
                .as_array()
                .and_then(|a| Some((a.first()?.as_u64()?, a.get(1)?.as_u64()?))),
            dt: j["dt"].as_f64().unwrap_or(1.0 / 60.0),
        })
    }

    /// Whether item `i` is done: its marker holds the plan's keys and its files exist.
    pub fn is_done(&self, i: usize) -> bool {
        let Ok(text) = std::fs::read_to_string(self.marker(i)) else {
            return false;
        };
        let Ok(m) = serde_json::from_str::<J>(&text) else {
            return false;
        };
        let keys_match = self.keys.get(i).is_some_and(|keys| {
            keys.iter()
                .all(|(o, k)| m["keys"][o].as_str() == Some(k.as_str()))
        });
        let files_there = m["files"].as_array().is_some_and(|fs| {
            fs.iter()
                .all(|f| f.as_str().is_some_and(|f| self.out_dir().join(f).is_file()))
        });
        keys_match && files_there
    }

    /// The items not done, in order.
    pub fn missing(&self) -> Vec<usize> {
        (0..self.keys.len()).filter(|&i| !self.is_done(i)).collect()
    }

    /// The chunks holding the items `missing` (from [`FarmPlan::missing`]), in order.
    pub fn chunks_of(&self, missing: &[usize]) -> Vec<usize> {
        let mut chunks: Vec<usize> = missing.iter().map(|i| i / self.chunk).collect();
        chunks.dedup();
        chunks
    }
}

/// The graph at `graph` opened with `libs`, every `NAME=VALUE` of `set` set on it, and the
/// digest of what it and its calls said when opened (hex).
fn open_graph(
    graph: &Path,
    libs: &[PathBuf],
    set: &[String],
) -> Result<(Project, String), FarmError> {
    let mut options = OpenOptions::new();
    for l in libs {
        options = options.lib(l);
    }
    let mut p = options.open(graph)?;
    let digest = p.document().digest.key().to_hex();
    for s in set {
        let (name, text) = s.split_once('=').unwrap_or((s, ""));
        p.set_text(name, text)?;
    }
    Ok((p, digest))
}

/// The task index of a work item: `task` when given, else the first of
/// [`TASK_VARIABLES`] set in the environment.
pub fn task_index(task: Option<&str>) -> Result<String, FarmError> {
    if let Some(t) = task {
        return Ok(t.to_string());
    }
    TASK_VARIABLES
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.trim().is_empty()))
        .map(|s| s.trim().to_string())
        .ok_or(FarmError::NoTask)
}

/// What an item gave: its files, or why it failed.
pub type ItemResult = Result<Vec<PathBuf>, String>;

/// What a work item did.
#[derive(Debug, Default)]
pub struct ItemsRun {
    /// Items cooked and written.
    pub cooked: Vec<usize>,
    /// Items found done.
    pub skipped: Vec<usize>,
    /// Items that failed, with their error.
    pub failed: Vec<(usize, String)>,
    /// Node executions, all items together.
    pub executed: u64,
}

/// Run the items `items` of `plan` (a chunk, or stage 0's item 0) on `p` (from
/// [`FarmPlan::open`]), skipping those done; `each` is told of every item as it ends.
pub fn run_items(
    plan: &FarmPlan,
    p: &mut Project,
    items: std::ops::Range<usize>,
    each: &dyn Fn(usize, &ItemResult),
) -> Result<ItemsRun, FarmError> {
    if plan.frames.is_some() {
        return run_frames(plan, p, items, each);
    }
    let sweep = plan.sweep()?;
    let template = plan.template()?;
    let opts = plan.cook_options();
    let files = OutputFiles::default();
    let mut run = ItemsRun::default();
    for i in items {
        if plan.is_done(i) {
            run.skipped.push(i);
            continue;
        }
        let item = sweep.item(i);
        let result = one_item(plan, p, &item, &opts, &files, &template, &mut run.executed);
        each(i, &result);
        match result {
            Ok(_) => run.cooked.push(i),
            Err(e) => run.failed.push((i, e)),
        }
    }
    Ok(run)
}

/// The frames `items` of a frame plan: the render replays from tick 0 up to the first frame
/// not done, then ticks through the chunk, writing each frame not done (its files
/// atomically, then its marker).
fn run_frames(
    plan: &FarmPlan,
    p: &mut Project,
    items: std::ops::Range<usize>,
    each: &dyn Fn(usize, &ItemResult),
) -> Result<ItemsRun, FarmError> {
    let (first_tick, _) = plan.frames.unwrap_or((0, 0));
    let mut run = ItemsRun::default();
    let todo: Vec<usize> = items.clone().filter(|&i| !plan.is_done(i)).collect();
    run.skipped = items.clone().filter(|i| !todo.contains(i)).collect();
    let (Some(&lo), Some(&hi)) = (todo.first(), todo.last()) else {
        return Ok(run);
    };
    let mut render = p.render(&crate::RenderOptions {
        outputs: plan.outputs.clone(),
        seed: plan.seed,
        size: plan.size,
        dt: plan.dt,
        ..crate::RenderOptions::default()
    })?;
    render.skip_to(first_tick + lo as u64)?;
    let width = plan.tick_width();
    let colours = crate::OutColours::default();
    for i in lo..=hi {
        let tick = first_tick + i as u64;
        let out = render.tick()?;
        run.executed += out.stats.executed;
        if !todo.contains(&i) {
            continue;
        }
        let result = (|| -> Result<Vec<PathBuf>, String> {
            let dir = plan.out_dir();
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let mut files = vec![];
            for (name, v) in &out.values {
                if let kiln_core::value::Value::Error(e) = v {
                    return Err(format!("output `{name}` failed: {e}"));
                }
                let stem = crate::frame_stem(name, tick, width);
                let space = colours.of(name, p.file_colours());
                files.push(
                    kiln_io::encode_output_in(&dir, &stem, v, space).map_err(|e| e.to_string())?,
                );
            }
            for (path, bytes) in &files {
                kiln_io::write_atomic(path, bytes).map_err(|e| e.to_string())?;
            }
            let names: Vec<String> = files
                .iter()
                .filter_map(|(f, _)| f.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            write_marker(plan, i, serde_json::Map::new(), &names)?;
            Ok(files.into_iter().map(|(f, _)| f).collect())
        })();
        each(i, &result);
        match result {
            Ok(_) => run.cooked.push(i),
            Err(e) => run.failed.push((i, e)),
        }
    }
    Ok(run)
}

/// Item `i`'s done marker, written (atomically) once its files have landed.
fn write_marker(
    plan: &FarmPlan,
    i: usize,
    keys: serde_json::Map<String, J>,
    files: &[String],
) -> Result<(), String> {
    let marker = plan.marker(i);
    if let Some(dir) = marker.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    let body = json!({"index": i, "keys": keys, "files": files});
    kiln_io::write_atomic(&marker, body.to_string().as_bytes()).map_err(|e| e.to_string())
}

fn one_item(
    plan: &FarmPlan,
    p: &mut Project,
    item: &SweepItem,
    opts: &CookOptions,
    files: &OutputFiles,
    template: &NameTemplate,
    executed: &mut u64,
) -> Result<Vec<PathBuf>, String> {
    let err = |e: ProjectError| e.to_string();
    for (k, v) in &item.settings {
        p.set_text(k, v).map_err(err)?;
    }
    // The keys this Kiln computes must be the plan's: were they not (another version whose
    // ops key otherwise), the marker could never match the plan and the item would cook
    // again on every run.
    let keys = p.output_keys(opts).map_err(err)?;
    let planned = plan.keys.get(item.index).map(Vec::as_slice).unwrap_or(&[]);
    if keys.len() != planned.len()
        || keys
            .iter()
            .zip(planned)
            .any(|((o, k), (po, pk))| o != po || k.to_hex() != *pk)
    {
        return Err(
            "its output keys are not the ones the plan recorded (a plan made by \
                    another version of Kiln?): plan again"
                .to_string(),
        );
    }
    let cooked = p.cook(opts).map_err(err)?;
    *executed += cooked.outputs.stats.executed;
    if let Some(o) = cooked.failed().first() {
        return Err(format!("output `{o}` failed"));
    }
    let out = plan.out_dir();
    let written = p
        .write_named(&cooked, &out, files, &|o| template.render(o, item))
        .map_err(err)?;
    // The marker lands last, once every file has: it is what says the item is done.
    let names: Vec<String> = written
        .files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let keys: serde_json::Map<String, J> = keys
        .into_iter()
        .map(|(o, k)| (o, J::String(k.to_hex())))
        .collect();
    write_marker(plan, item.index, keys, &names)?;
    Ok(written.files)
}

/// `1,3-5,9`: indices in the array syntax of Slurm (and most schedulers).
pub fn ranges(indices: &[usize]) -> String {
    let mut parts = vec![];
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            indices[i].to_string()
        } else {
            format!("{}-{}", indices[i], indices[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_read_as_array_ranges() {
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[4]), "4");
        assert_eq!(ranges(&[1, 3, 4, 5, 9, 10]), "1,3-5,9-10");
    }
}
