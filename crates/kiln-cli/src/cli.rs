//! Parsing the command line and dispatching to the command (see [`crate::args`] for what
//! `kiln` accepts and [`crate::commands`] for what each command does).

use crate::args::{Cli, Cmd};
use crate::commands::{
    bake, cache, demo, dot, farm, info, ops, render, render_audio, run, studio, sweep, validate,
    watch,
};
use crate::common::{CliError, open, plan, set_memory_limit, sweep_leftovers};
use clap::Parser;
use std::ffi::OsString;
use std::process::ExitCode;

/// Parse `args` and run the command.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> Result<ExitCode, CliError> {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return Ok(ExitCode::from(if e.use_stderr() { 2 } else { 0 }));
        }
    };
    let reg = kiln::try_registry().map_err(|e| e.to_string())?;
    let libs = cli.lib;
    match cli.cmd {
        Cmd::Run { graph, args } => {
            set_memory_limit(args.memory_limit);
            let mut project = open(&graph, &reg, &libs, &args.set)?;
            if args.sweep.is_empty() {
                run::run(&mut project, &args)
            } else {
                let again = || {
                    open(&graph, &reg, &libs, &args.set)
                        .map_err(|e| kiln::ProjectError::SweepWorker { message: e.0 })
                };
                sweep::sweep(project, &again, &args)
            }
        }
        Cmd::Render { graph, args } => {
            set_memory_limit(args.memory_limit);
            let mut project = open(&graph, &reg, &libs, &args.set)?;
            // Both kinds of render (ticks and audio) write into `--out`.
            sweep_leftovers(&args.out);
            let ticks = match (args.ticks, args.end) {
                (Some(t), _) => Some(t),
                (None, Some(end)) => Some(
                    end.checked_add(1)
                        .ok_or_else(|| CliError(format!("--end {end}: too large")))?,
                ),
                (None, None) => None,
            };
            match (args.seconds, ticks) {
                (Some(seconds), _) => render_audio::render_audio(&mut project, &args, seconds),
                (None, Some(ticks)) => render::render(&mut project, &args, ticks),
                // clap requires one of the two.
                (None, None) => Err(CliError(
                    "render needs --ticks N, --end B or --seconds S".into(),
                )),
            }
        }
        Cmd::Demo { args } => {
            set_memory_limit(args.memory_limit);
            demo::demo(&reg, &args)
        }
        Cmd::Validate { graph, rate, set } => {
            validate::validate(&graph, &mut open(&graph, &reg, &libs, &[])?, rate, &set)
        }
        Cmd::Info { graph } => info::info(&graph, &mut open(&graph, &reg, &libs, &[])?),
        Cmd::Dot { graph } => Ok(dot::dot(&plan(&mut open(&graph, &reg, &libs, &[])?)?.graph)),
        Cmd::Watch { graph, args } => {
            set_memory_limit(args.memory_limit);
            watch::watch(&graph, &reg, &args, &libs)
        }
        Cmd::Studio { graph, args } => studio::studio(&graph, reg, &args, &libs),
        Cmd::Bake { graph, args } => bake::bake(&graph, &reg, &args, &libs),
        Cmd::Cache { action } => cache::cache(&action),
        Cmd::Farm { action } => farm::farm(action, &libs),
        Cmd::Ops { schema: true, .. } => Ok(ops::print_schema(&reg)),
        Cmd::Ops { filter, .. } => Ok(ops::list_ops(&reg, filter.as_deref(), &libs)),
    }
}
