//! `kiln watch GRAPH --out DIR`: present the graph's outputs into DIR, then again each time
//! the graph file (or the params file) is saved.
//!
//! A [`kiln::Live`] keeps the graph cooked between presents: a reload replaces its document, and
//! nodes whose op, params and wiring did not change keep their values, so an edit recooks
//! only the changed nodes' cones. Each present writes one file per graph output into DIR
//! (the names `kiln run` uses) as one frame ([`kiln_io::commit_frame`]): all of them land,
//! or none does. A broken edit (unparsable JSON, an invalid graph, a failing node, a params
//! file that does not fit) prints the error and leaves the last frame's files as they were.
//!
//! A graph that runs over time is watched with `--ticks N` (a graph with latches: ticks 0
//! to N-1 at each present, every output of every tick written) or `--seconds S` (an audio
//! graph streamed for S seconds, each output a WAV); see [`super::watch_runs`].
//!
//! Every present prints one line to stdout: `frame N: ..., cooked C, reused R, cut off X,
//! in T ms; wrote ...` (the [`PresentReport`]), or `error: ...`.
//!
//! # Change detection
//!
//! The files are polled every `--poll-ms`: a file whose modification time, size (or, on
//! Unix, inode) changed is read and hashed, and only new content presents again. A file
//! modified within the last two seconds is hashed on every poll, so an edit within the
//! file system's time resolution that kept the size is not missed. After a change is seen
//! the watcher waits until the files hold still for a moment, so an editor's save in
//! several writes presents once.
//!
//! # The params file (`--params FILE`)
//!
//! A JSON object whose keys are graph input names or `node.param`, applied over the graph
//! file on every load (after `--set`, so the params file wins):
//!
//! ```json
//! {
//!   "mix": 0.5,
//!   "tint": "#c0a080",
//!   "fine.octaves": 5,
//!   "coarse.seed": 3
//! }
//! ```
//!
//! An input's value becomes its default (as `--set` sets it); a `node.param` key sets that
//! param, or the constant of an input that was a param (like `fine.octaves`: see
//! `InputSpec::was_param`). Values are numbers, `true`/`false`, strings (read as `--set` reads its text: `#rrggbb`
//! colours, `1,2,3` vectors) or arrays of numbers (vectors, colours).

use crate::args::WatchArgs;
use crate::common::CliError;
use crate::output_colour::OutputColours;
use kiln_core::prelude::*;
use kiln_lower::session::{Frame, PresentReport};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// What identifies a file's version cheaply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&m);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Stamp {
            modified: m.modified().ok(),
            len: m.len(),
            inode,
        })
    }

    /// Modified so recently that another write could share its time stamp.
    fn is_recent(&self) -> bool {
        match self.modified {
            Some(t) => SystemTime::now()
                .duration_since(t)
                .map_or(true, |age| age < Duration::from_secs(2)),
            None => true,
        }
    }
}

/// The bytes of a watched file: a regular file (a FIFO or a device is refused, never
/// waited on) of at most the size of a graph file.
fn read_input(path: &Path) -> Result<Vec<u8>, kiln_io::input_file::InputFileError> {
    kiln_io::input_file::read_input_file(path, kiln_io::input_file::MAX_INPUT_BYTES)
}

/// A watched file: the stamp and content hash of the version last presented.
struct Watched {
    path: PathBuf,
    stamp: Option<Stamp>,
    /// `None`: missing or unreadable.
    hash: Option<u64>,
}

fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

impl Watched {
    fn new(path: &Path) -> Watched {
        Watched {
            path: path.to_path_buf(),
            stamp: None,
            hash: None,
        }
    }

    /// Read the file for a present, remembering the version read.
    fn read(&mut self) -> Result<Vec<u8>, String> {
        // The stamp before the read: a write after it changes the stamp again.
        self.stamp = Stamp::of(&self.path);
        match read_input(&self.path) {
            Ok(bytes) => {
                self.hash = Some(hash_bytes(&bytes));
                Ok(bytes)
            }
            Err(e) => {
                self.hash = None;
                Err(e.to_string())
            }
        }
    }

    /// Whether the file now differs from the version last presented.
    fn changed(&mut self) -> bool {
        let stamp = Stamp::of(&self.path);
        if stamp == self.stamp && !stamp.is_some_and(|s| s.is_recent()) {
            return false;
        }
        let hash = read_input(&self.path).ok().map(|b| hash_bytes(&b));
        if hash == self.hash {
            // Same content: remember the stamp, so it is not read again.
            self.stamp = stamp;
            return false;
        }
        true
    }

    fn name(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }
}

/// `kiln watch`.
pub(crate) fn watch(
    graph_path: &Path,
    reg: &Registry,
    args: &WatchArgs,
    libs: &[std::path::PathBuf],
) -> Result<ExitCode, CliError> {
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError(format!("cannot create {}: {e}", args.out.display())))?;
    crate::common::sweep_leftovers(&args.out);
    let poll = Duration::from_millis(args.poll_ms);
    let mut files = vec![Watched::new(graph_path)];
    if let Some(p) = &args.params {
        files.push(Watched::new(p));
    }
    eprintln!(
        "watching {}; writing into {} (Ctrl-C to stop)",
        files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect::<Vec<_>>()
            .join(" and "),
        args.out.display()
    );
    // Ctrl-C asks the loop to stop between presents, so a frame being committed lands whole;
    // a second Ctrl-C exits at once.
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // Without a handler (another one is installed) Ctrl-C ends the process as usual.
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    }
    let mut live = kiln::Live::new(args.seed);
    let mut decoded = Decoded::new();
    let mut shown = Shown::default();
    let mut presents = 0u64;
    let mut trigger: Vec<String> = vec![];
    loop {
        let ok = match present(
            &mut files,
            reg,
            args,
            &mut live,
            libs,
            &mut shown,
            &mut decoded,
        ) {
            Ok((report, written)) => {
                let why = if trigger.is_empty() {
                    String::new()
                } else {
                    format!(" ({} changed)", trigger.join(", "))
                };
                crate::outln!("{report}; wrote {}{why}", written.join(", "));
                true
            }
            Err(e) => {
                let kept = match live.frame() {
                    Some(f) => format!("the files of frame {} are kept", f.number),
                    None => "nothing was written".to_string(),
                };
                crate::outln!("error: {}; {kept}", one_line(&e));
                false
            }
        };
        presents += 1;
        if args.max_presents.is_some_and(|n| presents >= n) {
            return Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            });
        }
        match wait_for_change(&mut files, poll, &stop) {
            Some(changed) => trigger = changed,
            None => {
                eprintln!("stopped after {presents} presents");
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
}

/// Poll until a file changes and the files then hold still; the names of those changed, or
/// `None` once `stop` is set.
fn wait_for_change(
    files: &mut [Watched],
    poll: Duration,
    stop: &AtomicBool,
) -> Option<Vec<String>> {
    loop {
        if stop.load(Ordering::SeqCst) {
            return None;
        }
        std::thread::sleep(poll);
        let changed: Vec<String> = files
            .iter_mut()
            .filter_map(|f| f.changed().then(|| f.name()))
            .collect();
        if changed.is_empty() {
            continue;
        }
        // Let a save in several writes finish: wait until no stamp moves for a moment.
        let settle = poll.min(Duration::from_millis(50));
        for _ in 0..20 {
            let before: Vec<_> = files.iter().map(|f| Stamp::of(&f.path)).collect();
            std::thread::sleep(settle);
            let after: Vec<_> = files.iter().map(|f| Stamp::of(&f.path)).collect();
            if before == after {
                break;
            }
        }
        return Some(changed);
    }
}

/// An error message on one line.
fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Load the graph (with `--set` and the params file applied) and present it: the report
/// and the files written, or the error.
fn present(
    files: &mut Vec<Watched>,
    reg: &Registry,
    args: &WatchArgs,
    live: &mut kiln::Live,
    libs: &[std::path::PathBuf],
    shown: &mut Shown,
    decoded: &mut Decoded,
) -> Result<(PresentReport, Vec<String>), String> {
    // Read every file first, so each one's version is remembered even if a later step fails.
    let mut texts = vec![];
    let mut first_error = None;
    for f in files.iter_mut() {
        match f.read() {
            Ok(b) => texts.push(b),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let graph_path = files[0].path.clone();
    let dir = match graph_path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let text = String::from_utf8(texts[0].clone()).map_err(|_| {
        format!(
            "cannot load {}: the file is not UTF-8",
            graph_path.display()
        )
    })?;
    let mut open = kiln::OpenOptions::new().registry(reg.clone());
    for l in libs {
        open = open.lib(l);
    }
    let mut project = open
        .open_text(&text, &graph_path.display().to_string(), dir)
        .map_err(|e| e.to_string())?;
    // The graphs it calls are watched from now on.
    for f in &project.document().files {
        if !files.iter().any(|w| &w.path == f) {
            let mut w = Watched::new(f);
            let _ = w.read();
            files.push(w);
        }
    }
    // `--set`, then the params file (which wins), give the project its inputs and its nodes
    // their values.
    apply_set(&mut project, &args.set, decoded)?;
    if let (Some(p), Some(bytes)) = (&args.params, texts.get(1)) {
        apply_params(&mut project, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let outputs: Vec<String> = project.outputs().into_iter().map(|o| o.name).collect();
    if outputs.is_empty() {
        return Err(format!(
            "{}: the graph has no outputs (add an \"outputs\" section)",
            graph_path.display()
        ));
    }
    // `--color` over the file's colours, resolved for each output.
    let chosen = OutputColours::new(&args.color, project.file_colours()).map_err(|e| e.0)?;
    chosen.check(&outputs).map_err(|e| e.0)?;
    let style = crate::folder_style::FolderStyle {
        colours: outputs.iter().map(|o| (o.clone(), chosen.of(o))).collect(),
        image: crate::folder_style::image_format(args.image.as_deref(), args.depth)
            .map_err(|e| e.0)?,
    };
    if let Some(ticks) = args.ticks {
        // Over ticks, each present renders the project afresh (as `render` does).
        let mut render = project
            .render(&kiln::RenderOptions {
                seed: args.seed,
                ..kiln::RenderOptions::default()
            })
            .map_err(|e| e.to_string())?;
        let done = super::watch_runs::present_ticks(&mut render, ticks, &args.out, &style)
            .map_err(|e| format!("{}: {e}", graph_path.display()))?;
        shown.show(render.graph(), args)?;
        return Ok(done);
    }
    if let Some(seconds) = args.seconds {
        // The project's signal outputs, checked at the stream's rate.
        let done = super::watch_runs::present_audio(
            &mut project,
            &outputs,
            (seconds, args.seed),
            &args.out,
        )
        .map_err(|e| format!("{}: {e}", graph_path.display()))?;
        if let Ok(lowered) = project.lower(kiln::Clock::default()) {
            shown.show(&lowered.graph, args)?;
        }
        return Ok(done);
    }
    // The live state keeps the document and its plan: what changed since the last read
    // reaches the kept plan as the edits it holds (a changed value is patched in place), so
    // only the cone of the change cooks.
    let out = &args.out;
    let mut written = vec![];
    let report = project
        .present(live, kiln::Clock::default(), |frame| {
            written = commit(out, frame, &style)?;
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    if let Some(g) = live.graph() {
        shown.show(g, args)?;
    }
    Ok((report, written))
}

/// The flow traces already shown, so a present shows only those of the flow nodes that ran
/// in it (a node answered from the session's memo keeps its older trace).
#[derive(Default)]
struct Shown(Vec<(kiln_core::graph::NodeId, Arc<kiln_lower::flow::Trace>)>);

impl Shown {
    /// With `--trace` / `--trace-json`: print and write the traces of `g` not shown before.
    fn show(&mut self, g: &Graph, args: &WatchArgs) -> Result<(), String> {
        if !args.trace && args.trace_json.is_none() {
            return Ok(());
        }
        let all = kiln_lower::flow::traces(g);
        let new: Vec<_> = all
            .iter()
            .filter(|(n, t)| !self.0.iter().any(|(m, u)| m == n && Arc::ptr_eq(t, u)))
            .cloned()
            .collect();
        self.0 = all;
        crate::report::show_traces(&new, args.trace, args.trace_json.as_deref()).map_err(|e| e.0)
    }
}

/// Write a frame's outputs into `out` as a group, each image as `style` asks; the names
/// written.
fn commit(
    out: &Path,
    frame: &Frame,
    style: &crate::folder_style::FolderStyle,
) -> Result<Vec<String>, String> {
    let mut files = Vec::with_capacity(frame.values.len());
    for (name, v) in &frame.values {
        let (path, bytes) = style
            .encode(out, &name.replace('.', "_"), name, v)
            .map_err(|e| format!("cannot write output `{name}`: {e}"))?;
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| format!("output `{name}` has no file name"))?;
        files.push((file, bytes));
    }
    kiln_io::commit_frame(out, &files).map_err(|e| e.to_string())?;
    Ok(files.into_iter().map(|(n, _)| n).collect())
}

/// The files `--set NAME=@file` gave, decoded once: by input name and the text given.
pub(crate) type Decoded = std::collections::HashMap<(String, String), Value>;

/// `--set NAME=VALUE`: the project's input `NAME` takes the value; a file (an image, mesh
/// or audio input, `NAME=@file`) is decoded once (kept in `decoded` across presents).
fn apply_set(
    project: &mut kiln::Project,
    set: &[String],
    decoded: &mut Decoded,
) -> Result<(), String> {
    for s in set {
        let (name, text) = s
            .split_once('=')
            .ok_or_else(|| format!("--set `{s}`: expected NAME=VALUE"))?;
        let key = (name.to_string(), text.to_string());
        if let Some(v) = decoded.get(&key) {
            project
                .set(name, v.clone())
                .map_err(|e| format!("--set {e}"))?;
            continue;
        }
        project
            .set_text(name, text)
            .map_err(|e| format!("--set {e}"))?;
        if let Some(v @ Value::Heavy(_)) = project.input_values().get(name) {
            decoded.insert(key, v.clone());
        }
    }
    Ok(())
}

/// The text of a params-file value, as `--set` would take it.
fn value_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| match i {
                serde_json::Value::Array(_) => None,
                other => value_text(other),
            })
            .collect::<Option<Vec<String>>>()
            .map(|parts| parts.join(",")),
        serde_json::Value::Null | serde_json::Value::Object(_) => None,
    }
}

/// Apply a params file (see the module docs) to `project`: an input takes its value, a
/// node's param or former param is edited in the document.
fn apply_params(project: &mut kiln::Project, bytes: &[u8]) -> Result<(), String> {
    let doc: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("invalid JSON: {e}"))?;
    let serde_json::Value::Object(entries) = doc else {
        return Err(
            "expected a JSON object of `\"input\": value` and `\"node.param\": value`".into(),
        );
    };
    let inputs: Vec<String> = project.inputs().into_iter().map(|i| i.name).collect();
    for (key, v) in &entries {
        let text = value_text(v).ok_or_else(|| {
            format!("`{key}`: expected a number, true/false, a string or an array of numbers")
        })?;
        if inputs.contains(key) {
            project.set_text(key, &text).map_err(|e| e.to_string())?;
            continue;
        }
        let Some((node, param)) = key.rsplit_once('.') else {
            return Err(format!(
                "`{key}` is neither a graph input ({}) nor `node.param`",
                if inputs.is_empty() {
                    "the graph has none".to_string()
                } else {
                    inputs.join(", ")
                }
            ));
        };
        let Some(n) = project.document().doc.graph.node(node) else {
            return Err(format!("`{key}`: the graph has no node `{node}`"));
        };
        let Some(op) = project.registry().get(&n.op) else {
            return Err(format!(
                "`{key}`: node `{node}` has the unknown op `{}`",
                n.op
            ));
        };
        let spec = op.spec();
        // A former param (like `octaves`, marked `was_param`) is set as its port's constant.
        let port = spec.inputs.iter().find(|p| p.name == param && p.was_param);
        let found = spec
            .params
            .iter()
            .find(|p| p.name == param)
            .map(|p| (p.ty, false))
            .or(port.map(|p| (p.ty, true)));
        let Some((ty, is_input)) = found else {
            let names: Vec<&str> = spec.params.iter().map(|p| p.name.as_ref()).collect();
            return Err(format!(
                "`{key}`: op `{}` has no param `{param}` ({})",
                n.op,
                if names.is_empty() {
                    "it has no params".to_string()
                } else {
                    format!("params: {}", names.join(", "))
                }
            ));
        };
        let value =
            kiln_io::parse_cli_value(&text, ty).map_err(|e| format!("`{key}` ({ty}): {e}"))?;
        let edit = if is_input {
            kiln::doc::edit::Edit::Const {
                node: node.to_string(),
                port: param.to_string(),
                value,
            }
        } else {
            kiln::doc::edit::Edit::Param {
                node: node.to_string(),
                param: param.to_string(),
                value,
            }
        };
        project.edit(&edit).map_err(|e| format!("`{key}`: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_values_read_as_set_text() {
        let j = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
        assert_eq!(value_text(&j("1.5")).as_deref(), Some("1.5"));
        assert_eq!(value_text(&j("true")).as_deref(), Some("true"));
        assert_eq!(value_text(&j("\"#ff0000\"")).as_deref(), Some("#ff0000"));
        assert_eq!(value_text(&j("[1, 0.5, 0]")).as_deref(), Some("1,0.5,0"));
        assert_eq!(value_text(&j("null")), None);
        assert_eq!(value_text(&j("{}")), None);
        assert_eq!(value_text(&j("[[1]]")), None);
    }

    #[test]
    fn params_apply_to_inputs_and_node_params() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/marble.json");
        let mut p = kiln::Project::open(&path).unwrap();
        apply_params(
            &mut p,
            br##"{"mix": 0.5, "tint": "#ff0000", "fine.octaves": 3}"##,
        )
        .unwrap();
        assert_eq!(p.input_values().get("mix"), Some(&Value::Float(0.5)));
        // `octaves` is an input of image.noise: the file sets its constant.
        assert_eq!(
            p.document()
                .doc
                .graph
                .node("fine")
                .unwrap()
                .consts
                .get("octaves"),
            Some(&Value::Int(3))
        );
        for (bad, needle) in [
            (&br#"{"nope": 1}"#[..], "neither a graph input"),
            (&br#"{"fine.nope": 1}"#[..], "no param `nope`"),
            (&br#"{"ghost.octaves": 1}"#[..], "no node `ghost`"),
            (&br#"{"fine.octaves": "many"}"#[..], "expected an integer"),
            (&br#"[1]"#[..], "expected a JSON object"),
            (&br##"{"mix": "#,"##[..], "invalid JSON"),
        ] {
            let e = apply_params(&mut p, bad).unwrap_err();
            assert!(e.contains(needle), "{e}");
        }
    }
}
