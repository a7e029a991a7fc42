//! The cook: one thread owning the [`Session`], cooking the newest version of the graph.
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
use kiln::OutColours;
use kiln_core::cache::{Lru, Store};
use kiln_core::context::EvalContext;
use kiln_core::context::{CancelToken, Progress};
use kiln_core::eval::EvalError;
use kiln_core::eval::{ErrorPolicy, IncrementalEvaluator, Request};
use kiln_core::graph::PortRef;
use kiln_core::recurrence::{LATCH_OP, Recurrent, SeekMode};
use kiln_core::value::Value;
use kiln_doc::document::{CALL_PREFIX, DocDigest, Document};
use kiln_doc::edit::{Edit, FileEdit};
use kiln_io::image_files::{ColorSpace, ImageFormat};
use kiln_lower::lower::Planner;
use kiln_lower::session::{CookOptions, Cooked, PresentReport, Session, SessionError};
use serde_json::{Value as Json, json};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The op of the studio's preview outputs.
const OUTPUT_OP: &str = "output";
/// The prefix of the ids of the studio's preview outputs.
const PREVIEW_PREFIX: &str = "__studio_preview_";
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
    let mut session: Option<Session> = None;
    // One store for the session's values and what a plan cooks for values (a `for` over a
    // node's list), so nothing is cooked twice; a planner per flat graph the thread keeps.
    let store = Store::new(Lru::new())
        .with_budget(kiln::memo_budget())
        .shared();
    let mut planners = Planners {
        store: store.clone(),
        anim: Planner::new(loader.registry.clone()).with_store(store.clone()),
        audio: Planner::new(loader.registry.clone()).with_store(store),
    };
    // Past times of flat nodes, for the estimate of a long cook.
    let mut past = Timings::new();
    let mut last_good: HashMap<(String, String), Json> = HashMap::new();
    let mut anim: Option<Anim> = None;
    let mut change: &'static str = "new";
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
            session: &mut session,
            past: &mut past,
            last_good: &mut last_good,
            anim: &mut anim,
            change: &mut change,
            planners: &mut planners,
        };
        cook_one(&job, &ctx, &mut kept, token);
    }
}

/// The document the studio cooks: the file's, with an output of its own on every port it
/// previews; those ports in order.
fn preview_document(mut doc: Document, loader: &Loader) -> (Document, Vec<(String, String)>) {
    strip_signals(&mut doc, loader);
    let mut ports: Vec<(String, String)> = vec![];
    for n in doc.graph.nodes() {
        if n.op == OUTPUT_OP {
            continue;
        }
        if n.op.starts_with(CALL_PREFIX) {
            if let Some(call) = doc.calls.get(&n.id) {
                for p in &call.asset.interface.outputs {
                    ports.push((n.id.to_string(), p.name.clone()));
                }
            }
            continue;
        }
        let Some(op) = loader.registry.get(&n.op) else {
            continue;
        };
        for o in &op.spec().outputs {
            if o.ty.name() != "signal" {
                ports.push((n.id.to_string(), o.name.to_string()));
            }
        }
    }
    for (node, port) in &ports {
        let id = preview_id(node, port);
        if doc.graph.add_node(id.as_str(), OUTPUT_OP).is_ok() {
            doc.graph.connect(
                PortRef::new(node.as_str(), port),
                PortRef::new(id.as_str(), "value"),
            );
        }
    }
    (doc, ports)
}

/// The id of the preview output of `node.port`: it stays while the node stays, so a node
/// added or removed adds or removes only its own previews.
fn preview_id(node: &str, port: &str) -> String {
    format!("{PREVIEW_PREFIX}{node}__{port}")
}

/// Follow `edits` (each said as edits of the document, see [`FileEdit::doc_edits`]) in the
/// session's document, with the previews an added or removed node brings; `true` when the
/// session's document is then `target` (by digest), `false` when it must be given whole.
fn follow_edits(
    s: &mut Session,
    edits: &[FileChange],
    file_doc: &Document,
    target: &Document,
    loader: &Loader,
) -> bool {
    for change in edits {
        let Some(doc_edits) = change.edit.doc_edits(&change.before, file_doc) else {
            return false;
        };
        for e in doc_edits {
            let mut steps = vec![];
            match &e {
                Edit::AddNode { node, op } => {
                    steps.push(e.clone());
                    let outputs = loader.registry.get(op).map(|o| o.spec().outputs.clone());
                    for o in outputs.into_iter().flatten() {
                        if o.ty.name() == "signal" {
                            continue;
                        }
                        let id = preview_id(node, &o.name);
                        steps.push(Edit::AddNode {
                            node: id.clone(),
                            op: OUTPUT_OP.into(),
                        });
                        steps.push(Edit::Connect {
                            from: PortRef::new(node.as_str(), &o.name),
                            to: PortRef::new(id.as_str(), "value"),
                        });
                    }
                }
                Edit::RemoveNode { node } => {
                    let prefix = format!("{PREVIEW_PREFIX}{node}__");
                    let previews: Vec<String> = s
                        .document()
                        .map(|d| {
                            d.graph
                                .nodes()
                                .iter()
                                .filter(|n| n.id.as_str().starts_with(&prefix))
                                .map(|n| n.id.to_string())
                                .collect()
                        })
                        .unwrap_or_default();
                    steps.extend(previews.into_iter().map(|node| Edit::RemoveNode { node }));
                    steps.push(e.clone());
                }
                _ => steps.push(e.clone()),
            }
            for step in steps {
                if s.edit_document(step).is_err() {
                    return false;
                }
            }
        }
    }
    s.document()
        .is_some_and(|d| DocDigest::whole(d).key() == DocDigest::whole(target).key())
}

/// Leave out of the tick cook every signal node and everything downstream of one (audio
/// loops do not validate there; the streaming evaluator renders them, see
/// [`crate::audio`]). A worklist over the wires.
fn strip_signals(doc: &mut Document, loader: &Loader) {
    let mut gone: Vec<String> = doc
        .graph
        .nodes()
        .iter()
        .filter(|n| loader.registry.signal(&n.op).is_some())
        .map(|n| n.id.to_string())
        .collect();
    let mut seen: std::collections::HashSet<String> = gone.iter().cloned().collect();
    let mut work = gone.clone();
    while let Some(id) = work.pop() {
        for w in doc.graph.wires() {
            if w.from.node.as_str() == id && seen.insert(w.to.node.to_string()) {
                work.push(w.to.node.to_string());
                gone.push(w.to.node.to_string());
            }
        }
    }
    for id in gone {
        let _ = doc.graph.remove_node(&id);
    }
}

/// Whether `doc`, or a graph it calls, holds a latch (a worklist over the calls).
pub fn has_latch(doc: &Document) -> bool {
    let mut work: Vec<&Document> = vec![doc];
    let mut seen = std::collections::HashSet::new();
    while let Some(d) = work.pop() {
        if d.graph.nodes().iter().any(|n| n.op == LATCH_OP) {
            return true;
        }
        for c in d.calls.values() {
            if seen.insert(c.asset.name.clone()) {
                work.push(&c.asset.doc);
            }
        }
    }
    false
}

/// Cook tick `job.frame` of a graph with latches: the flat graph planned once per text, a
/// driver kept while the text stays (a later tick goes on from the current one, an earlier
/// one replays from the nearest kept state), restarted when it changes.
fn cook_anim(
    job: &Job,
    doc: &Document,
    outputs: &[String],
    loader: &Loader,
    (anim, planner): (&mut Option<Anim>, &mut Planner),
    options: &CookOptions,
) -> Result<(Cooked, Vec<(String, Value)>), SessionError> {
    let t0 = Instant::now();
    let fps = if job.fps.is_finite() && job.fps > 0.0 {
        job.fps
    } else {
        DEFAULT_FPS
    };
    let mut ctx = EvalContext::new();
    ctx.cancel = options.cancel.clone();
    ctx.progress = options.progress.clone();
    ctx.dt = 1.0 / fps;
    let planned = anim.as_ref().is_none_or(|a| a.text != job.text);
    if planned {
        let lowered = planner.plan(doc, DocDigest::whole(doc).key(), &ctx)?;
        let driver = Recurrent::new(
            IncrementalEvaluator::new(loader.registry.clone()),
            loader.registry.clone(),
        )
        .with_checkpoints(CHECKPOINT_EVERY);
        *anim = Some(Anim {
            text: job.text.clone(),
            graph: lowered.graph.clone(),
            driver,
        });
    }
    let Some(a) = anim.as_mut() else {
        return Err(SessionError::NotADocument("no animation"));
    };
    let req = Request::new(outputs.iter().cloned())
        .with_errors(ErrorPolicy::Propagate)
        .with_timings();
    let out = a
        .driver
        .seek(&a.graph, &req, &ctx, job.frame, SeekMode::Resimulate)?;
    let st = out.stats;
    let report = PresentReport {
        frame: job.frame,
        planned,
        nodes: a.graph.len(),
        reused: st.cache_hits,
        cooked: st.executed,
        cut_off: st.cutoffs,
        parallel: st.parallel,
        elapsed: t0.elapsed(),
        plan: None,
    };
    Ok((
        Cooked {
            report,
            timings: out.timings,
            failures: out.failures,
        },
        out.values,
    ))
}

/// The frame rate of the timeline until the page says otherwise.
pub const DEFAULT_FPS: f64 = 24.0;
/// A kept state every this many ticks, so seeking back replays little.
const CHECKPOINT_EVERY: u64 = 16;

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
    session: &'a mut Option<Session>,
    /// Past times of flat nodes, for the estimate of a long cook.
    past: &'a mut Timings,
    /// The last preview of each port that was not an error, shown (marked stale) while the
    /// port fails.
    last_good: &'a mut HashMap<(String, String), Json>,
    /// The driver of a graph with latches, and the text it was built for.
    anim: &'a mut Option<Anim>,
    /// How the last change reached the session: `"edits"` (followed edit by edit),
    /// `"whole"` (the document given whole) or `"new"` (a new session).
    change: &'a mut &'static str,
    /// The planners of the tick and audio cooks, sharing the session's store.
    planners: &'a mut Planners,
}

/// The planners the cook thread keeps (each keeps its last plan) and the store they share
/// with the session.
struct Planners {
    store: Arc<Store>,
    anim: Planner,
    audio: Planner,
}

/// A graph with latches, ticked by a [`Recurrent`] driver over its flat graph.
pub(crate) struct Anim {
    text: String,
    graph: kiln_core::graph::Graph,
    driver: Recurrent<IncrementalEvaluator>,
}

fn cook_one(job: &Job, ctx: &CookContext<'_>, kept: &mut Kept<'_>, token: CancelToken) {
    let (session, past) = (&mut *kept.session, &mut *kept.past);
    let (loader, previews, sink) = (ctx.loader, ctx.previews, ctx.sink);
    let mut audio_outputs: Vec<String> = vec![];
    let t0 = Instant::now();
    let file = match loader.document(&job.text) {
        Ok(f) => f,
        Err(e) => {
            sink(
                json!({"type": "cooked", "version": job.version, "ok": false, "error": e,
                "nodes": {}}),
            );
            return;
        }
    };
    let full = file.doc.clone();
    let file_colours = file.file.meta.output_colors.clone();
    let (doc, ports) = preview_document(file.doc, loader);
    // The file's outputs fed by signals (left out of the tick cook) are heard instead.
    for n in full.graph.nodes() {
        if n.op == OUTPUT_OP && doc.graph.node(n.id.as_str()).is_none() {
            audio_outputs.push(n.id.to_string());
        }
    }
    // The file's own outputs are previewed too, unless a signal feeds them.
    let mut outputs: Vec<String> = vec![];
    let mut names: Vec<(String, String)> = vec![];
    let mut outputs_of_file: Vec<String> = vec![];
    for n in doc.graph.nodes() {
        if n.op == OUTPUT_OP && !n.id.as_str().starts_with(PREVIEW_PREFIX) {
            outputs_of_file.push(n.id.to_string());
            outputs.push(n.id.to_string());
            names.push((n.id.to_string(), "out".into()));
        }
    }
    for (node, port) in &ports {
        outputs.push(preview_id(node, port));
        names.push((node.clone(), port.clone()));
    }
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
    let animated = has_latch(&doc);
    let result = if animated {
        cook_anim(
            job,
            &doc,
            &outputs,
            loader,
            (kept.anim, &mut kept.planners.anim),
            &options,
        )
    } else {
        let s = match session {
            Some(s) => {
                // An edit is followed as the edit it was; anything else (an undo, a change
                // on disk, an edit the document's edits cannot say) gives the whole document.
                let followed = job
                    .edits
                    .as_deref()
                    .is_some_and(|e| follow_edits(s, e, &full, &doc, loader));
                if !followed {
                    s.replace_document(doc);
                }
                *kept.change = if followed { "edits" } else { "whole" };
                s.set_outputs(outputs);
                s
            }
            None => {
                *kept.change = "new";
                session.insert(
                    Session::from_document(loader.registry.clone(), doc, outputs)
                        .with_store(kept.planners.store.clone()),
                )
            }
        };
        s.cook(&options).map(|c| {
            let values = s.frame().map(|f| f.values.clone()).unwrap_or_default();
            (c, values)
        })
    };
    let (cooked, values) = match result {
        Ok(c) => c,
        Err(SessionError::Eval(EvalError::Cancelled)) => {
            sink(json!({"type": "cancelled", "version": job.version, "reason": "a newer edit"}));
            return;
        }
        Err(SessionError::Eval(EvalError::Invalid(diags))) => {
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
                "change": *kept.change,
                "error": format!("the graph does not validate: {diags}"), "nodes": nodes}),
            );
            return;
        }
        Err(e) => {
            sink(
                json!({"type": "cooked", "version": job.version, "ok": false,
                "change": *kept.change, "error": e.to_string(), "nodes": {}}),
            );
            return;
        }
    };
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
        for ((node, port), (_, value)) in names.iter().zip(values.iter()) {
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
    if !audio_outputs.is_empty() {
        let lowered =
            kept.planners
                .audio
                .plan(&full, DocDigest::whole(&full).key(), &EvalContext::new());
        let flat = lowered.map(|l| l.graph.clone()).unwrap_or_default();
        let graph = &flat;
        let sources: Vec<(String, String)> = audio_outputs
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
            let outs: Vec<(String, Value)> = names
                .iter()
                .zip(values.iter())
                .filter(|((node, port), _)| {
                    port == "out"
                        && !node.starts_with(PREVIEW_PREFIX)
                        && outputs_of_file.contains(node)
                })
                .map(|((node, _), (_, v))| (node.clone(), v.clone()))
                .collect();
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
        "animated": animated,
        "frame": job.frame,
        "change": *kept.change,
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
