//! The `kiln` command: run, render, validate, inspect and draw Kiln graph files.
//!
//! [`cli`] parses the command line ([`args`]) and dispatches to one module per command
//! ([`commands`]); [`common`], [`evaluator`] and [`report`] hold what several commands share,
//! [`error`] the error they all report,
//! and [`stdout`] how output reaches a pipe that may close. Opening, planning, cooking and
//! writing a graph are the `kiln` crate's ([`kiln::Project`]); the ops a graph may use are
//! [`kiln::registry`].

// Arguments and dispatch.
mod args;
mod cli;
mod commands;

// What the commands share: loading, evaluators, output folders and colours.
mod common;
mod evaluator;
mod folder_style;
mod output_colour;
mod subgraphs;

// Reporting: messages, errors, stdout.
mod error;
mod report;
mod stdout;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::main_with_args(std::env::args_os()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
