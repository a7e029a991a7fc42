//! What the server shares between its connections, the cook and the file watcher.

use crate::cook::{Cooker, FileChange, Sink};
use crate::error::StudioError;
use crate::load::Loader;
use crate::previews::Previews;
use crate::project::Project;
use kiln_doc::edit::FileEdit;
use kiln_io::image_files::ImageFormat;
use serde_json::{Value as Json, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// The last tick a timeline may show.
pub const MAX_FRAME: u64 = 100_000;

/// How many events a slow page may fall behind before it is sent the state afresh.
const EVENT_BACKLOG: usize = 256;

/// The studio's shared state.
pub struct Shared {
    /// Loads the graph's texts.
    pub loader: Loader,
    /// The graph file under edit.
    pub project: Mutex<Project>,
    /// The cook thread.
    pub cooker: Cooker,
    /// Previews by content.
    pub previews: Arc<Previews>,
    /// Every event, to every page.
    pub events: broadcast::Sender<String>,
    /// The last `cooked` message.
    pub last_cook: Arc<Mutex<Option<String>>>,
    /// The `Host` values answered.
    pub hosts: Vec<String>,
    /// The graph's folder.
    pub dir: PathBuf,
    /// The output folder, if any.
    pub out: Option<PathBuf>,
    /// The op list.
    pub catalog: Json,
    /// The files the graph's calls read (watched with the graph file), with their bytes.
    pub deps: Mutex<Vec<(PathBuf, Option<Vec<u8>>)>>,
    /// The timeline of a graph with latches: the tick shown and the frame rate.
    pub timeline: Mutex<(u64, f64)>,
    /// The file route's reads, at most [`MAX_CONCURRENT_READS`](crate::files::MAX_CONCURRENT_READS) at once.
    pub file_reads: crate::files::Reads,
}

impl Shared {
    /// The shared state for `project`; each cook's outputs are written into `out`, if
    /// given, their images as `image` in the colour spaces `colours` asks.
    pub fn new(
        loader: Loader,
        project: Project,
        hosts: Vec<String>,
        out: Option<PathBuf>,
        colours: kiln::OutColours,
        image: ImageFormat,
    ) -> Arc<Shared> {
        let (events, _) = broadcast::channel(EVENT_BACKLOG);
        let last_cook = Arc::new(Mutex::new(None));
        let previews = Arc::new(Previews::default());
        let sink: Sink = {
            let events = events.clone();
            let last = last_cook.clone();
            Arc::new(move |msg: Json| {
                let text = msg.to_string();
                if msg["type"] == "cooked"
                    && let Ok(mut l) = last.lock()
                {
                    *l = Some(text.clone());
                }
                let _ = events.send(text);
            })
        };
        let cooker = Cooker::start(
            loader.clone(),
            previews.clone(),
            sink,
            out.clone().map(|dir| (dir, colours, image)),
        );
        let catalog = crate::view::catalog(&loader.registry);
        let dir = loader.dir.clone();
        let shared = Arc::new(Shared {
            loader,
            project: Mutex::new(project),
            cooker,
            previews,
            events,
            last_cook,
            hosts,
            dir,
            out,
            catalog,
            deps: Mutex::new(vec![]),
            timeline: Mutex::new((0, crate::cook::DEFAULT_FPS)),
            file_reads: crate::files::Reads::default(),
        });
        shared.changed("opened");
        shared
    }

    fn project(&self) -> std::sync::MutexGuard<'_, Project> {
        self.project.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The `graph` message: the view of the file as it is now.
    pub fn graph_message(&self) -> Json {
        let p = self.project();
        let doc = self.loader.document(p.text()).ok();
        let mut v = crate::view::view(p.doc(), doc.as_ref().map(|d| &d.doc), &self.loader.registry);
        let (undo, redo) = p.history();
        v["type"] = json!("graph");
        v["version"] = json!(p.version());
        v["can_undo"] = json!(undo);
        v["can_redo"] = json!(redo);
        v["broken"] = json!(p.broken());
        v["file"] = json!(
            p.path()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        );
        v["animated"] = json!(doc.as_ref().is_some_and(|d| kiln::live::has_latch(&d.doc)));
        let (frame, fps) = self.timeline();
        v["timeline"] = json!({"frame": frame, "fps": fps});
        v
    }

    /// The last `cooked` message, as text.
    pub fn last_cook_text(&self) -> Option<String> {
        self.last_cook.lock().ok()?.clone()
    }

    /// The last `cooked` message.
    pub fn last_cook_json(&self) -> Json {
        self.last_cook_text()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Json::Null)
    }

    /// After a change of the graph: send its view to every page and cook it.
    pub fn changed(&self, why: &str) {
        self.changed_by(why, None);
    }

    /// [`Shared::changed`], for a change that was `change`, an edit from a page.
    fn changed_by(&self, why: &str, change: Option<FileChange>) {
        let mut g = self.graph_message();
        g["reason"] = json!(why);
        let _ = self.events.send(g.to_string());
        let (version, text, own) = {
            let p = self.project();
            (p.version(), p.text().to_string(), p.path().to_path_buf())
        };
        if let Ok(d) = self.loader.document(&text)
            && let Ok(mut deps) = self.deps.lock()
        {
            *deps = d
                .files
                .iter()
                .filter(|f| **f != own)
                .map(|f| (f.clone(), std::fs::read(f).ok()))
                .collect();
        }
        let (frame, fps) = self.timeline();
        let change = change.filter(|c| c.version == version);
        self.cooker.submit(version, text, frame, fps, change);
    }

    /// The timeline's tick and frame rate.
    pub fn timeline(&self) -> (u64, f64) {
        self.timeline
            .lock()
            .map_or((0, crate::cook::DEFAULT_FPS), |t| *t)
    }

    /// Show tick `frame` at `fps` frames a second (a graph with latches; the most ticks a
    /// seek may ask for is [`MAX_FRAME`]).
    pub fn seek(&self, frame: u64, fps: f64) -> Result<(), StudioError> {
        if frame > MAX_FRAME {
            return Err(StudioError::Refused(format!(
                "tick {frame} is past the timeline's end ({MAX_FRAME})"
            )));
        }
        if !(fps.is_finite() && fps > 0.0 && fps <= 1000.0) {
            return Err(StudioError::Refused(format!(
                "a frame rate is from above 0 to 1000, not {fps}"
            )));
        }
        if let Ok(mut t) = self.timeline.lock() {
            *t = (frame, fps);
        }
        let (version, text) = {
            let p = self.project();
            (p.version(), p.text().to_string())
        };
        self.cooker.submit(version, text, frame, fps, None);
        Ok(())
    }

    /// Apply an edit from a page.
    pub fn edit(&self, edit: &FileEdit) -> Result<(), StudioError> {
        let change = {
            let check = |t: &str| self.loader.check(t);
            let mut p = self.project();
            let (_, before) = p.edit(edit, &check)?;
            FileChange {
                version: p.version(),
                edit: edit.clone(),
                before,
            }
        };
        self.changed_by("edit", Some(change));
        Ok(())
    }

    /// Undo (`redo: false`) or redo.
    pub fn step(&self, redo: bool) -> Result<(), StudioError> {
        {
            let check = |t: &str| self.loader.check(t);
            self.project().step(redo, &check)?;
        }
        self.changed(if redo { "redo" } else { "undo" });
        Ok(())
    }

    /// Look at the files on disk: the graph file changed by another program, or a file its
    /// calls read.
    pub fn poll(&self) {
        let result = {
            let check = |t: &str| self.loader.check(t);
            self.project().reload(&check)
        };
        match result {
            Ok(true) => {
                self.changed("the file changed on disk");
                return;
            }
            Ok(false) => {}
            Err(e) => {
                let _ = self
                    .events
                    .send(json!({"type": "file_error", "message": e}).to_string());
                return;
            }
        }
        let dep_changed = self.deps.lock().is_ok_and(|deps| {
            deps.iter()
                .any(|(f, bytes)| std::fs::read(f).ok() != *bytes)
        });
        if dep_changed {
            self.changed("a called graph changed on disk");
        }
    }
}
