//! Presenting a project again each time its file changes: a [`Live`] keeps the cooked state
//! between presents, so a reloaded document recooks only the cones of what changed.

use crate::{Clock, Project, ProjectError};
use kiln_core::graph::Graph;
use kiln_lower::session::{Frame, PresentReport, Session};
use std::sync::Arc;

/// The state a live front end (`kiln watch`) keeps between presents of a project: the
/// session that holds the last document, its plan and the values cooked.
pub struct Live {
    session: Option<Session>,
    seed: u64,
}

impl Live {
    /// Nothing presented yet; every present cooks with `seed`.
    pub fn new(seed: u64) -> Live {
        Live {
            session: None,
            seed,
        }
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
        let doc = self.doc.doc.clone();
        let s = match &mut live.session {
            Some(s) => {
                s.replace_document(doc);
                s.set_outputs(outputs);
                s
            }
            None => {
                let mut s = Session::from_document(self.registry.clone(), doc, outputs);
                s.set_seed(live.seed);
                live.session.insert(s)
            }
        };
        // An input set before and not now reads its default again.
        s.replace_inputs(self.inputs.clone());
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
}
