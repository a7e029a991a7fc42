//! The cook: one thread owning the [`kiln::Project`] and its [`kiln::Live`] state, cooking
//! the newest version of the graph through [`kiln::Project::cook_every_port`].
//!
//! A new version cancels the cook in progress ([`Cooker::submit`]) and only the newest
//! version waiting is cooked: nothing stale is queued. Every cook asks the session for a
//! preview of every port of every top-level node (each wired into an `output` node of the
//! studio's own, added to the document it cooks, never to the file), with failures kept to
//! their nodes, so a broken value shows on its node while the rest still cooks. A cancelled
//! cook sends `cancelled` and leaves the last previews standing.

use crate::estimate::{Step, Timings};
use crate::load::Loader;
use crate::previews::Previews;
use kiln::{Live, LiveCook, OutColours, Project, ProjectError};
use kiln_core::context::{CancelToken, Progress};
use kiln_core::eval::EvalError;
use kiln_core::value::Value;
use kiln_doc::document::Document;
use kiln_doc::edit::{Edit, FileEdit};
use kiln_io::image_files::{ColorSpace, ImageFormat};
use kiln_lower::session::{CookOptions, SessionError};
use serde_json::{Value as Json, json};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The prefix of the ids of the studio's preview outputs.
const PREVIEW_PREFIX: &str = kiln::live::PORT_OUTPUT_PREFIX;
/// The most often progress is sent.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Where the cook's messages go (to every page).
pub type Sink = Arc<dyn Fn(Json) + Send + Sync>;

/// A version of the graph to cook.
struct Job {
    version: u64,
    text: String,
    /// The timeline's tick and frame rate (for graphs with latches).
    frame: u64,
    fps: f64,
    /// The edits that made this version from the one cooked before, when every change
    /// between them was an edit (`None` after an undo, a redo or a change on disk).
    edits: Option<Vec<FileChange>>,
}

/// An edit the page made: the version it made, the edit and the file's JSON before it.
#[derive(Clone, Debug)]
pub struct FileChange {
    /// The version the edit made.
    pub version: u64,
    /// The edit.
    pub edit: FileEdit,
    /// The file's JSON before it.
    pub before: Json,
}

/// The handle of the cook thread.
pub struct Cooker {
    tx: Mutex<Sender<Job>>,
    current: Arc<Mutex<CancelToken>>,
}

impl Cooker {
    /// Start the cook thread; each cook's outputs are written into the folder of `out`, if
    /// given, their images in the colour spaces and the file format it asks.
    pub fn start(
        loader: Loader,
        previews: Arc<Previews>,
        sink: Sink,
        out: Option<(PathBuf, OutColours, ImageFormat)>,
    ) -> Cooker {
        let (tx, rx) = channel();
        let current = Arc::new(Mutex::new(CancelToken::new()));
        let slot = current.clone();
        std::thread::Builder::new()
            .name("kiln-studio-cook".into())
            .spawn(move || run(rx, loader, previews, sink, slot, out))
            .map(drop)
            .unwrap_or_else(|e| eprintln!("kiln studio: cannot start the cook thread: {e}"));
        Cooker {
            tx: Mutex::new(tx),
            current,
        }
    }

    /// Cook `text` as version `version` at tick `frame` of `fps` frames a second (graphs
    /// without latches ignore both), cancelling the cook in progress. `change` is the edit
    /// that made this version, when it was one.
    pub fn submit(
        &self,
        version: u64,
        text: String,
        frame: u64,
        fps: f64,
        change: Option<FileChange>,
    ) {
        if let Ok(t) = self.current.lock() {
            t.cancel();
        }
        if let Ok(tx) = self.tx.lock() {
            let _ = tx.send(Job {
                version,
                text,
                frame,
                fps,
                edits: change.map(|c| vec![c]),
            });
        }
    }
}

/// Per node of the file, what the last cook did.
#[derive(Default)]
struct NodeCook {
    cooked: usize,
    cut_off: usize,
    time: Duration,
}

fn run(
    rx: Receiver<Job>,
    loader: Loader,
    previews: Arc<Previews>,
    sink: Sink,
    slot: Arc<Mutex<CancelToken>>,
    out: Option<(PathBuf, OutColours, ImageFormat)>,
) {
    // The project keeps the document and its plan; the live state the cooked values.
    let mut project: Option<Project> = None;
    let mut live = Live::new(0);
    // Past times of flat nodes, for the estimate of a long cook.
    let mut past = Timings::new();
    let mut last_good: HashMap<(String, String), Json> = HashMap::new();
    while let Ok(mut job) = rx.recv() {
        // Only the newest version waiting is cooked.
        while let Ok(mut newer) = rx.try_recv() {
            sink(json!({"type": "cancelled", "version": job.version, "reason": "superseded"}));
            // The edits of a skipped version are followed with the newer one's; a seek of
            // the same version changes nothing.
            newer.edits = match (job.edits.take(), newer.edits.take()) {
                _ if newer.version == job.version => job.edits.take(),
                (Some(mut a), Some(b)) => {
                    a.extend(b);
                    Some(a)
                }
                _ => None,
            };
            job = newer;
        }
        let token = CancelToken::new();
        if let Ok(mut s) = slot.lock() {
            *s = token.clone();
        }
        let ctx = CookContext {
            loader: &loader,
            previews: &previews,
            sink: &sink,
            out: out.as_ref().map(|(dir, c, f)| (dir.as_path(), c, *f)),
        };
        let mut kept = Kept {
            project: &mut project,
            live: &mut live,
            past: &mut past,
            last_good: &mut last_good,
        };
        cook_one(&job, &ctx, &mut kept, token);
    }
}

/// The session's error inside a live cook's error.
fn session_error(e: &ProjectError) -> Option<&SessionError> {
    match e {
        ProjectError::Present { source, .. } => Some(source),
        _ => None,
    }
}

/// The frame rate of the timeline until the page says otherwise.
pub use kiln::DEFAULT_FPS;

/// The edits that made `doc` from the versions cooked before, said as document edits, or
/// `None` when one of them cannot be (the document is then given whole).
fn doc_edits(changes: &[FileChange], doc: &Document) -> Option<Vec<Edit>> {
    let mut edits = vec![];
    for change in changes {
        edits.extend(change.edit.doc_edits(&change.before, doc)?);
    }
    Some(edits)
}

/// The node of the file a flat node belongs to (`wall[3]/brick` belongs to `wall`).
fn top_node(flat: &str) -> &str {
    let end = flat.find(['/', '[']).unwrap_or(flat.len());
    &flat[..end]
}

/// An error's message without the node and op the page already shows.
fn error_text(e: &EvalError) -> String {
    match e {
        EvalError::Node {
            port: Some(p),
            message,
            ..
        } => format!("{p}: {message}"),
        EvalError::Node { message, .. } => message.clone(),
        EvalError::Panic { message, .. } => format!("panicked: {message}"),
        other => other.to_string(),
    }
}

/// What every cook is given.
struct CookContext<'a> {
    loader: &'a Loader,
    previews: &'a Previews,
    sink: &'a Sink,
    /// The output folder, and the colours and the file format its images are written in.
    out: Option<(&'a Path, &'a OutColours, ImageFormat)>,
}

/// What lasts from cook to cook.
struct Kept<'a> {
    /// The graph file's project: its document, inputs and plan.
    project: &'a mut Option<Project>,
    /// The cooked state: the session, the driver of a graph with latches.
    live: &'a mut Live,
    /// Past times of flat nodes, for the estimate of a long cook.
    past: &'a mut Timings,
    /// The last preview of each port that was not an error, shown (marked stale) while the
    /// port fails.
    last_good: &'a mut HashMap<(String, String), Json>,
}

fn cook_one(job: &Job, ctx: &CookContext<'_>, kept: &mut Kept<'_>, token: CancelToken) {
    let past = &mut *kept.past;
    let (loader, previews, sink) = (ctx.loader, ctx.previews, ctx.sink);
    let t0 = Instant::now();
    // The project takes the new text; a text that does not load changes nothing.
    let loaded = match kept.project.as_mut() {
        Some(p) => p.replace_text(&job.text).map(|()| p),
        None => loader
            .project(&job.text)
            .map(|p| &mut *kept.project.insert(p)),
    };
    let project = match loaded {
        Ok(p) => &*p,
        Err(e) => {
            sink(
                json!({"type": "cooked", "version": job.version, "ok": false,
                "error": e.to_string(), "nodes": {}}),
            );
            return;
        }
    };
    let expected_ms: f64 = past.total().as_secs_f64() * 1e3;
    sink(json!({"type": "cooking", "version": job.version, "expected_ms": expected_ms}));
    let progress_sink = sink.clone();
    let version = job.version;
    let follow = Mutex::new((Instant::now(), past.tracker()));
    let progress = move |p: &Progress<'_>| {
        let Ok(mut follow) = follow.lock() else {
            return;
        };
        let (last, tracker) = &mut *follow;
        // Every report is read (finished nodes are known by name), few are sent.
        let eta = tracker.step(&Step {
            completed: p.completed,
            total: p.total,
            node: p.node,
            fraction: p.node_fraction,
            elapsed: p.elapsed,
        });
        if last.elapsed() < PROGRESS_EVERY {
            return;
        }
        *last = Instant::now();
        let elapsed = p.elapsed.as_secs_f64() * 1e3;
        progress_sink(json!({"type": "progress", "version": version,
            "completed": p.completed, "total": p.total, "node": p.node.map(top_node),
            "elapsed_ms": elapsed, "eta_ms": eta.map(|(d, _)| d.as_secs_f64() * 1e3),
            "estimate": eta.map(|(_, b)| b.name())}));
    };
    let options = CookOptions {
        cancel: token.clone(),
        progress: Some(Arc::new(progress)),
        ..CookOptions::default()
    };
    // An edit is followed as the edit it was; anything else (an undo, a change on disk, an
    // edit the document's edits cannot say) gives the whole document.
    let req = LiveCook {
        edits: job
            .edits
            .as_deref()
            .and_then(|e| doc_edits(e, &project.document().doc)),
        tick: job.frame,
        fps: job.fps,
        options,
    };
    let result = project.cook_every_port(kept.live, &req);
    let change = kept.live.change().name();
    let lc = match result {
        Ok(c) => c,
        Err(e)
            if matches!(
                session_error(&e),
                Some(SessionError::Eval(EvalError::Cancelled))
            ) =>
        {
            sink(json!({"type": "cancelled", "version": job.version, "reason": "a newer edit"}));
            return;
        }
        Err(ProjectError::Present { source, .. })
            if matches!(*source, SessionError::Eval(EvalError::Invalid(_))) =>
        {
            let SessionError::Eval(EvalError::Invalid(diags)) = *source else {
                return;
            };
            let mut nodes: BTreeMap<String, Json> = BTreeMap::new();
            for d in diags.0.iter() {
                if let Some(n) = &d.node {
                    let entry = nodes
                        .entry(top_node(n.as_str()).to_string())
                        .or_insert_with(|| json!({"status": "invalid", "errors": []}));
                    if let Some(list) = entry["errors"].as_array_mut() {
                        list.push(Json::String(d.to_string()));
                    }
                }
            }
            // The last good previews stay, marked as not cooked.
            for ((node, port), p) in kept.last_good.iter() {
                let entry = nodes
                    .entry(node.clone())
                    .or_insert_with(|| json!({"status": "stale"}));
                entry["ports"][port] = json!({"error": "not cooked: the graph does not validate",
                    "last": p});
            }
            sink(
                json!({"type": "cooked", "version": job.version, "ok": false,
                "change": change,
                "error": format!("the graph does not validate: {diags}"), "nodes": nodes}),
            );
            return;
        }
        Err(e) => {
            // The message without the file's name, which the page already shows.
            let message = session_error(&e).map_or_else(|| e.to_string(), |s| s.to_string());
            sink(
                json!({"type": "cooked", "version": job.version, "ok": false,
                "change": change, "error": message, "nodes": {}}),
            );
            return;
        }
    };
    let cooked = &lc.cooked;
    let mut per_node: BTreeMap<String, NodeCook> = BTreeMap::new();
    for t in &cooked.timings {
        past.record(t.node.as_str(), t.time);
        let c = per_node
            .entry(top_node(t.node.as_str()).to_string())
            .or_default();
        c.cooked += 1;
        c.cut_off += usize::from(t.cut_off);
        c.time += t.time;
    }
    let mut failed: BTreeMap<String, String> = BTreeMap::new();
    for f in &cooked.failures {
        failed
            .entry(top_node(f.node.as_str()).to_string())
            .or_insert_with(|| error_text(&f.error));
    }
    let mut nodes: BTreeMap<String, Json> = BTreeMap::new();
    let mut port_previews: BTreeMap<String, BTreeMap<String, Json>> = BTreeMap::new();
    {
        for ((node, port), value) in &lc.values {
            let key = (node.clone(), port.clone());
            let p = match value {
                Value::Error(e) => {
                    json!({"error": error_text(e), "last": kept.last_good.get(&key)})
                }
                v => {
                    let p = previews.preview_json(v);
                    kept.last_good.insert(key, p.clone());
                    p
                }
            };
            port_previews
                .entry(node.clone())
                .or_default()
                .insert(port.clone(), p);
        }
    }
    // Outputs fed by audio-rate signals: a stretch of sound, on the output and its source.
    let mut rendered: BTreeMap<String, f64> = BTreeMap::new();
    if !lc.signal_outputs.is_empty() {
        // The project's plan, kept while the document stays.
        let Some(project) = kept.project.as_mut() else {
            return;
        };
        let flat = project
            .lower(kiln::Clock::default())
            .map(|p| p.graph)
            .unwrap_or_default();
        let graph = &*flat;
        let sources: Vec<(String, String)> = lc
            .signal_outputs
            .iter()
            .filter_map(|o| crate::audio::source_of(graph, o).map(|src| (o.clone(), src)))
            .collect();
        let ports: Vec<String> = sources.iter().map(|(_, src)| src.clone()).collect();
        let t_audio = Instant::now();
        match crate::audio::render(&loader.registry, graph, &ports, &token, previews) {
            Ok(sounds) => {
                let ms = t_audio.elapsed().as_secs_f64() * 1e3;
                for ((output, src), p) in sources.iter().zip(sounds) {
                    let (node, port) = src.split_once('.').unwrap_or((src.as_str(), "out"));
                    for (n, pt) in [(output.as_str(), "out"), (top_node(node), port)] {
                        rendered.insert(n.to_string(), ms);
                        port_previews
                            .entry(n.to_string())
                            .or_default()
                            .insert(pt.to_string(), p.clone());
                    }
                }
            }
            Err(kiln_core::eval::StreamError::Cancelled { .. }) => {
                sink(
                    json!({"type": "cancelled", "version": job.version, "reason": "a newer edit"}),
                );
                return;
            }
            Err(e) => {
                for (output, _) in &sources {
                    port_previews
                        .entry(output.clone())
                        .or_default()
                        .insert("out".into(), json!({"error": e.to_string()}));
                }
            }
        }
    }
    let mut all: Vec<String> = port_previews.keys().cloned().collect();
    all.extend(per_node.keys().cloned());
    all.extend(failed.keys().cloned());
    all.retain(|id| !id.starts_with(PREVIEW_PREFIX));
    all.sort();
    all.dedup();
    for id in all {
        let c = per_node.get(&id);
        let ports = port_previews.remove(&id).unwrap_or_default();
        let blocked = !ports.is_empty() && ports.values().all(|p| p.get("error").is_some());
        let status = if failed.contains_key(&id) {
            "failed"
        } else if rendered.contains_key(&id) {
            "rendered"
        } else if blocked {
            "blocked"
        } else {
            match c {
                Some(c) if c.cut_off == c.cooked && c.cooked > 0 => "cut_off",
                Some(_) => "cooked",
                None => "reused",
            }
        };
        nodes.insert(
            id.clone(),
            json!({
                "status": status,
                "cooked": c.map_or(0, |c| c.cooked),
                "cut_off": c.map_or(0, |c| c.cut_off),
                "ms": rendered.get(&id).copied()
                    .unwrap_or_else(|| c.map_or(0.0, |c| c.time.as_secs_f64() * 1e3)),
                "error": failed.get(&id),
                "ports": ports,
            }),
        );
    }
    let written = match ctx.out {
        Some((dir, colours, format)) => {
            let outs: Vec<(String, Value)> = lc
                .values
                .iter()
                .filter(|((node, port), _)| port == "out" && lc.outputs.contains(node))
                .map(|((node, _), v)| (node.clone(), v.clone()))
                .collect();
            let file_colours = kept
                .project
                .as_ref()
                .map(|p| p.file_colours().clone())
                .unwrap_or_default();
            let space = |name: &str| colours.of(name, &file_colours);
            Some(write_outputs(dir, &outs, &space, format))
        }
        _ => None,
    };
    let count = |st: &str| nodes.values().filter(|n| n["status"] == st).count();
    let graph_counts = json!({"nodes": nodes.len(), "cooked": count("cooked"),
        "reused": count("reused"), "cut_off": count("cut_off"), "failed": count("failed")});
    let r = &cooked.report;
    sink(json!({
        "type": "cooked",
        "version": job.version,
        "ok": true,
        "animated": lc.animated,
        "frame": job.frame,
        "change": change,
        "report": {
            "nodes": r.nodes, "cooked": r.cooked, "reused": r.reused, "cut_off": r.cut_off,
            "planned": r.planned, "ms": r.elapsed.as_secs_f64() * 1e3,
            "total_ms": t0.elapsed().as_secs_f64() * 1e3, "text": r.to_string(),
            "graph": graph_counts,
        },
        "nodes": nodes,
        "written": written.map(|w| match w {
            Ok(files) => json!({"ok": true, "files": files}),
            Err(e) => json!({"ok": false, "error": e}),
        }),
    }));
}

/// Write the file's outputs into `dir` as one frame (all land or none; see
/// [`kiln_io::commit_frame`]), each image as `format` in the colour space `space` gives its
/// output; the names written.
fn write_outputs(
    dir: &Path,
    outs: &[(String, Value)],
    space: &dyn Fn(&str) -> ColorSpace,
    format: ImageFormat,
) -> Result<Vec<String>, String> {
    let mut files = Vec::with_capacity(outs.len());
    for (name, v) in outs {
        let (path, bytes) =
            kiln_io::image_files::encode_output_as(dir, name, v, format, space(name))
                .map_err(|e| format!("cannot write output `{name}`: {e}"))?;
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| format!("output `{name}` has no file name"))?;
        files.push((file, bytes));
    }
    kiln_io::commit_frame(dir, &files).map_err(|e| e.to_string())?;
    Ok(files.into_iter().map(|(n, _)| n).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn flat_nodes_belong_to_the_node_of_the_file_they_were_written_from() {
        assert_eq!(super::top_node("wall"), "wall");
        assert_eq!(super::top_node("wall[3]/brick"), "wall");
        assert_eq!(super::top_node("rows/x"), "rows");
    }
}
