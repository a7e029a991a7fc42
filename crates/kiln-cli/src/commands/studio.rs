//! `kiln studio GRAPH`: serve Kiln Studio on the graph (see the `kiln-studio` crate) with
//! every op the `kiln` command knows, print the address and serve until stopped.

use crate::args::StudioArgs;
use crate::common::CliError;
use kiln_core::registry::Registry;
use kiln_studio::{Studio, StudioConfig};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `kiln studio`.
pub(crate) fn studio(
    graph: &Path,
    reg: Registry,
    args: &StudioArgs,
    libs: &[PathBuf],
) -> Result<ExitCode, CliError> {
    let mut config = StudioConfig::new(graph);
    config.port = args.port;
    config.host = args.host;
    config.out = args.out.clone();
    config.out_colours =
        crate::output_colour::OutputColours::new(&args.color, &Default::default())?.for_studio();
    config.out_image = crate::folder_style::image_format(args.image.as_deref(), args.depth)?;
    config.libs = libs.to_vec();
    if !args.host.is_loopback() {
        eprintln!(
            "warning: serving on {}: anyone who can reach it can edit {}",
            args.host,
            graph.display()
        );
    }
    let studio = Studio::start(config, reg).map_err(|e| CliError(e.to_string()))?;
    crate::outln!("Kiln Studio on {} (Ctrl-C to stop)", studio.url());
    studio.wait();
    Ok(ExitCode::SUCCESS)
}
