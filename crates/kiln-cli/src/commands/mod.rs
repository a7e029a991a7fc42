//! The commands, one module each; [`crate::cli`] dispatches to them.

pub(crate) mod bake;
pub(crate) mod cache;
pub(crate) mod demo;
pub(crate) mod dot;
pub(crate) mod farm;
pub(crate) mod info;
pub(crate) mod ops;
pub(crate) mod render;
pub(crate) mod render_audio;
pub(crate) mod render_journal;
pub(crate) mod render_state_file;
pub(crate) mod run;
pub(crate) mod studio;
pub(crate) mod sweep;
pub(crate) mod validate;
pub(crate) mod watch;
pub(crate) mod watch_runs;
