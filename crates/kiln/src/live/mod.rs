//! Cooking a project again each time its document changes: a [`Live`] keeps the cooked
//! state between cooks, so a changed document recooks only the cones of what changed.
//! [`Project::present`] cooks the graph outputs (`kiln watch`); [`Project::cook_every_port`]
//! cooks every port of every node as well, following edits as edits (Kiln Studio).

mod every_port;
mod follow;
mod ticks;

pub use every_port::{PORT_OUTPUT_PREFIX, has_latch, port_output_id};

use crate::{Clock, Project, ProjectError};
use kiln_core::cache::{Lru, Store};
use kiln_core::graph::Graph;
use kiln_core::value::Value;
use kiln_doc::edit::Edit;
use kiln_lower::lower::Lowerer;
use kiln_lower::session::{CookOptions, Cooked, Frame, PresentReport, Session};
use std::sync::Arc;

/// The state a live front end keeps between cooks of a project: the session that holds the
/// last document, its plan and the values cooked; for a graph with latches, the driver
/// ticking it.
pub struct Live {
    session: Option<Session>,
    seed: u64,
    /// Shared by the session and the lowerer of latch graphs: what a plan cooks for values
    /// is not cooked again.
    store: Arc<Store>,
    /// The lowerer of latch graphs (made with the first project's registry).
    ticks: Option<Lowerer>,
    ticker: Option<ticks::Ticker>,
    change: Change,
}

/// How the last document reached a live session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// A new session (the first cook).
    New,
    /// Followed edit by edit: only the edited nodes were replanned.
    Edits,
    /// Given whole (an undo, a change on disk, an edit the document's edits cannot say).
    Whole,
}

impl Change {
    /// `"new"`, `"edits"` or `"whole"`.
    pub fn name(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Edits => "edits",
            Change::Whole => "whole",
        }
    }
}

/// What [`Project::cook_every_port`] is asked.
#[derive(Default)]
pub struct LiveCook {
    /// The edits that made this document from the one cooked before, said as document edits
    /// (see [`kiln_doc::edit::FileEdit::doc_edits`]); `None` gives the document whole.
    pub edits: Option<Vec<Edit>>,
    /// For a graph with latches: the tick to show and the ticks per second.
    pub tick: u64,
    /// Ticks per second (a value that is not a positive number reads as 24).
    pub fps: f64,
    /// Cancellation and progress.
    pub options: CookOptions,
}

/// What [`Project::cook_every_port`] cooked.
pub struct LiveCooked {
    /// What ran, node by node.
    pub cooked: Cooked,
    /// Each value with the node and port it belongs to: the graph outputs first (as
    /// `(name, "out")`), then every port of every node.
    pub values: Vec<((String, String), Value)>,
    /// The graph outputs cooked (those not fed by a signal).
    pub outputs: Vec<String>,
    /// The graph outputs fed by an audio-rate signal, left out of the cook (stream them).
    pub signal_outputs: Vec<String>,
    /// Whether the graph has latches (cooked at a tick).
    pub animated: bool,
}

/// The ticks per second of a live latch graph when none is given.
pub const DEFAULT_FPS: f64 = 24.0;

impl Live {
    /// Nothing cooked yet; every cook uses `seed`.
    pub fn new(seed: u64) -> Live {
        let store = Store::new(Lru::new())
            .with_budget(crate::memo_budget())
            .shared();
        Live {
            session: None,
            seed,
            ticks: None,
            store,
            ticker: None,
            change: Change::New,
        }
    }

    /// How the last document reached the session.
    pub fn change(&self) -> Change {
        self.change
    }

    /// The last frame presented (its files committed), if any.
    pub fn frame(&self) -> Option<Arc<Frame>> {
        self.session.as_ref().and_then(Session::frame)
    }

    /// The flat graph of the last present, if any.
    pub fn graph(&self) -> Option<&Graph> {
        self.session.as_ref().map(Session::graph)
    }
}

impl Project {
    /// Cook every graph output at `clock` in `live`'s session (handed this project's
    /// document and inputs: what did not change since the last present is reused), run
    /// `commit` on the complete frame, and only then make it the current frame. On any
    /// failure the last frame stays current.
    pub fn present(
        &self,
        live: &mut Live,
        clock: Clock,
        commit: impl FnOnce(&Frame) -> Result<(), String>,
    ) -> Result<PresentReport, ProjectError> {
        let outputs: Vec<String> = self.outputs().into_iter().map(|o| o.name).collect();
        if outputs.is_empty() {
            return Err(ProjectError::NoOutputs);
        }
        let s = live.session_for(self, self.doc.doc.clone(), None, outputs);
        let clock = kiln_lower::session::Clock {
            time: clock.time,
            frame: clock.frame,
            ..kiln_lower::session::Clock::default()
        };
        s.present_with(clock, commit)
            .map_err(|e| ProjectError::Present {
                origin: self.origin.clone(),
                source: Box::new(e),
            })
    }

    /// Cook every graph output and every port of every top-level node (each as an output of
    /// its own, added to the cooked document, never to the file) in `live`'s session: a
    /// failing node fails only what depends on it, every executed node is timed, and the
    /// edits given are followed as edits. A graph with latches is cooked at `req.tick`;
    /// outputs fed by audio-rate signals are left out (see [`LiveCooked::signal_outputs`]).
    pub fn cook_every_port(
        &self,
        live: &mut Live,
        req: &LiveCook,
    ) -> Result<LiveCooked, ProjectError> {
        let full = &self.doc.doc;
        let (doc, ports) = every_port::every_port_document(full.clone(), &self.registry);
        let signal_outputs: Vec<String> = full
            .graph
            .nodes()
            .iter()
            .filter(|n| n.op == every_port::OUTPUT_OP && doc.graph.node(n.id.as_str()).is_none())
            .map(|n| n.id.to_string())
            .collect();
        let outputs: Vec<String> = doc
            .graph
            .nodes()
            .iter()
            .filter(|n| {
                n.op == every_port::OUTPUT_OP && !n.id.as_str().starts_with(PORT_OUTPUT_PREFIX)
            })
            .map(|n| n.id.to_string())
            .collect();
        let mut names: Vec<(String, String)> = outputs
            .iter()
            .map(|o| (o.clone(), "out".to_string()))
            .collect();
        let mut requested = outputs.clone();
        for (node, port) in ports {
            requested.push(port_output_id(&node, &port));
            names.push((node, port));
        }
        let present_error = |e| ProjectError::Present {
            origin: self.origin.clone(),
            source: Box::new(e),
        };
        let animated = has_latch(&doc);
        let (cooked, values) = if animated {
            let fps = if req.fps.is_finite() && req.fps > 0.0 {
                req.fps
            } else {
                DEFAULT_FPS
            };
            let store = live.store.clone();
            let lowerer = live
                .ticks
                .get_or_insert_with(|| Lowerer::new(self.registry.clone()).with_store(store));
            ticks::cook_tick(
                (&doc, &requested),
                (req.tick, fps),
                (&self.registry, live.seed),
                (&mut live.ticker, lowerer),
                &req.options,
            )
            .map_err(present_error)?
        } else {
            let s = live.session_for(self, doc, req.edits.as_deref(), requested);
            let cooked = s.cook(&req.options).map_err(present_error)?;
            let values = s.frame().map(|f| f.values.clone()).unwrap_or_default();
            (cooked, values)
        };
        Ok(LiveCooked {
            cooked,
            values: names
                .into_iter()
                .zip(values)
                .map(|(at, (_, v))| (at, v))
                .collect(),
            outputs,
            signal_outputs,
            animated,
        })
    }
}

impl Live {
    /// The session holding `doc` (followed by `edits` from the one it held when they say
    /// it, else given whole), cooking `outputs` with the project's inputs.
    fn session_for(
        &mut self,
        project: &Project,
        doc: kiln_doc::document::Document,
        edits: Option<&[Edit]>,
        outputs: Vec<String>,
    ) -> &mut Session {
        let s = match self.session.take() {
            Some(mut s) => {
                let followed =
                    edits.is_some_and(|e| follow::follow_edits(&mut s, e, &doc, &project.registry));
                if !followed {
                    s.replace_document(doc);
                }
                self.change = if followed {
                    Change::Edits
                } else {
                    Change::Whole
                };
                s.set_outputs(outputs);
                s
            }
            None => {
                self.change = Change::New;
                let mut s = Session::from_document(project.registry.clone(), doc, outputs)
                    .with_store(self.store.clone());
                s.set_seed(self.seed);
                s
            }
        };
        let s = self.session.insert(s);
        // An input set before and not now reads its default again.
        s.replace_inputs(project.inputs.clone());
        s
    }
}
