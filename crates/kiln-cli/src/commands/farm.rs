//! `kiln farm plan|item|status|emit`: a sweep as a farm plan ([`kiln::farm`]), its chunks
//! run as work items by a scheduler, what is done and what is missing, and the
//! schedulers' own job files.

use crate::args::{FarmCmd, FarmEngine};
use crate::common::CliError;
use kiln::farm::{FarmError, FarmPlan, ranges, run_items, task_index};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn farm_error(e: FarmError) -> CliError {
    CliError(e.to_string())
}

/// Run `kiln farm ACTION`.
pub(crate) fn farm(action: FarmCmd, libs: &[PathBuf]) -> Result<ExitCode, CliError> {
    match action {
        FarmCmd::Plan {
            graph,
            sweep,
            zip,
            name,
            set,
            outputs,
            seed,
            size,
            chunk,
            frames,
            dt,
            out,
        } => {
            let plan = FarmPlan::make(
                &graph,
                libs,
                &set,
                &sweep,
                zip,
                &name,
                &outputs,
                seed,
                size,
                chunk as usize,
                frames,
                dt,
                &out,
            )
            .map_err(farm_error)?;
            let file = plan.save().map_err(farm_error)?;
            crate::outln!(
                "wrote {}: {} item(s) in {} chunk(s) of {}",
                file.display(),
                plan.keys.len(),
                plan.chunks(),
                plan.chunk
            );
            Ok(ExitCode::SUCCESS)
        }
        FarmCmd::Item { plan, task } => item(&plan, task.as_deref()),
        FarmCmd::Status { plan } => status(&plan),
        FarmCmd::Emit { plan, to, submit } => emit(&plan, to, submit),
    }
}

/// `kiln farm item`: one chunk (or stage 0).
fn item(plan: &Path, task: Option<&str>) -> Result<ExitCode, CliError> {
    let plan = FarmPlan::load(plan).map_err(farm_error)?;
    let task = task_index(task).map_err(farm_error)?;
    let items = if task == "stage0" {
        0..plan.keys.len().min(1)
    } else {
        let c: usize = task
            .parse()
            .ok()
            .filter(|&c| c < plan.chunks())
            .ok_or_else(|| {
                farm_error(FarmError::NoSuchTask {
                    task: task.clone(),
                    last: plan.chunks().saturating_sub(1),
                })
            })?;
        plan.chunk_items(c)
    };
    let mut p = plan.open().map_err(farm_error)?;
    let run = run_items(&plan, &mut p, items, &|i, r| match r {
        Ok(files) => {
            for f in files {
                crate::outln!("wrote {}", f.display());
            }
        }
        Err(e) => eprintln!("error: item {i} failed: {e}"),
    })
    .map_err(farm_error)?;
    eprintln!(
        "task {task}: {} item(s) cooked ({} node execution(s)), {} already done, {} failed",
        run.cooked.len(),
        run.executed,
        run.skipped.len(),
        run.failed.len()
    );
    if run.failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        let idx: Vec<usize> = run.failed.iter().map(|(i, _)| *i).collect();
        eprintln!("error: failed items: {}", ranges(&idx));
        Ok(ExitCode::from(1))
    }
}

/// `kiln farm status`.
fn status(plan: &Path) -> Result<ExitCode, CliError> {
    let plan = FarmPlan::load(plan).map_err(farm_error)?;
    let missing = plan.missing();
    let n = plan.keys.len();
    crate::outln!("{} of {n} item(s) done", n - missing.len());
    if missing.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let chunks = plan.chunks_of(&missing);
    crate::outln!("missing items: {}", ranges(&missing));
    crate::outln!("missing chunks: {}", ranges(&chunks));
    let slurm = plan.dir.join("slurm").join("submit.sh");
    crate::outln!(
        "resubmit with Slurm: sh {} --array={}",
        slurm.display(),
        ranges(&chunks)
    );
    crate::outln!(
        "or run each: {}",
        chunks
            .iter()
            .map(|c| format!("kiln farm item {} --task {c}", plan.file().display()))
            .collect::<Vec<_>>()
            .join("; ")
    );
    Ok(ExitCode::from(1))
}

/// The text of a path for a shell script, single-quoted.
fn quoted(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)
            .map_err(|e| CliError(format!("cannot create {}: {e}", d.display())))?;
    }
    kiln_io::write_atomic(path, text.as_bytes())
        .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
    crate::outln!("wrote {}", path.display());
    Ok(())
}

/// `kiln farm emit`.
fn emit(plan_path: &Path, to: FarmEngine, submit: bool) -> Result<ExitCode, CliError> {
    let plan = FarmPlan::load(plan_path).map_err(farm_error)?;
    let kiln = std::env::current_exe()
        .map_err(|e| CliError(format!("cannot find the kiln executable: {e}")))?;
    let file = plan.file();
    let chunks = plan.chunks();
    match to {
        FarmEngine::Slurm => {
            let dir = plan.dir.join("slurm");
            let logs = plan.dir.join("logs");
            std::fs::create_dir_all(&logs)
                .map_err(|e| CliError(format!("cannot create {}: {e}", logs.display())))?;
            let stage0 = dir.join("stage0.sbatch");
            let array = dir.join("items.sbatch");
            write(
                &stage0,
                &format!(
                    "#!/bin/sh\n#SBATCH --job-name=kiln-stage0\n#SBATCH --output={}\n\
                     exec {} farm item {} --task stage0\n",
                    logs.join("stage0.out").display(),
                    quoted(&kiln),
                    quoted(&file)
                ),
            )?;
            write(
                &array,
                &format!(
                    "#!/bin/sh\n#SBATCH --job-name=kiln-items\n#SBATCH --array=0-{}\n\
                     #SBATCH --output={}\nexec {} farm item {}\n",
                    chunks.saturating_sub(1),
                    logs.join("%a.out").display(),
                    quoted(&kiln),
                    quoted(&file)
                ),
            )?;
            let submit_sh = dir.join("submit.sh");
            write(
                &submit_sh,
                &format!(
                    "#!/bin/sh\n# Stage 0, then the chunks once it succeeded; arguments go to \
                     the chunks' sbatch\n# (--array=1,4-5 resubmits those chunks, --wait waits).\n\
                     set -e\nstage0=$(sbatch --parsable {})\n\
                     sbatch --parsable --dependency=afterok:\"$stage0\" \"$@\" {}\n",
                    quoted(&stage0),
                    quoted(&array)
                ),
            )?;
            if submit {
                let status = std::process::Command::new("sh")
                    .arg(&submit_sh)
                    .status()
                    .map_err(|e| CliError(format!("cannot run sbatch: {e}")))?;
                if !status.success() {
                    return Err(CliError(format!("submitting failed: {status}")));
                }
            }
        }
        FarmEngine::K8s => {
            let manifest = plan.dir.join("k8s").join("job.yaml");
            write(&manifest, &k8s_manifest(&plan, chunks))?;
            if submit {
                return Err(CliError(
                    "--submit is for Slurm; apply the manifest with kubectl".into(),
                ));
            }
        }
        FarmEngine::Openjd => {
            let template = plan.dir.join("openjd").join("template.json");
            write(&template, &openjd_template(&kiln, &file, chunks))?;
            if submit {
                return Err(CliError(
                    "--submit is for Slurm; submit the template with your Deadline tools".into(),
                ));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A Kubernetes Indexed Job per stage: stage 0 (one completion), then the chunks (one
/// completion per chunk, `JOB_COMPLETION_INDEX` the chunk). The plan's folder must be on a
/// volume every pod mounts at the same path (here a `hostPath`, to replace by the studio's
/// shared storage), and the image must hold `kiln`.
fn k8s_manifest(plan: &FarmPlan, chunks: usize) -> String {
    let dir = plan.dir.display().to_string();
    let file = plan.file().display().to_string();
    let job = |name: &str, completions: usize, task: Option<&str>| {
        let task = task.map_or(String::new(), |t| format!(", \"--task\", \"{t}\""));
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\nspec:\n  \
             completionMode: Indexed\n  completions: {completions}\n  parallelism: {}\n  \
             backoffLimitPerIndex: 2\n  maxFailedIndexes: {completions}\n  template:\n    \
             spec:\n      restartPolicy: Never\n      containers:\n        - name: kiln\n          \
             image: kiln:latest\n          command: [\"kiln\", \"farm\", \"item\", \"{file}\"{task}]\n          \
             volumeMounts:\n            - name: plan\n              mountPath: \"{dir}\"\n      \
             volumes:\n        - name: plan\n          hostPath:\n            path: \"{dir}\"\n",
            completions.min(16)
        )
    };
    format!(
        "# kiln farm: run kiln-stage0 to completion first, then kiln-items.\n{}---\n{}",
        job("kiln-stage0", 1, Some("stage0")),
        job("kiln-items", chunks.max(1), None)
    )
}

/// An OpenJD job template: a stage-0 step, and a step of one task per chunk that depends
/// on it, the chunk given as `KILN_TASK`.
fn openjd_template(kiln: &Path, file: &Path, chunks: usize) -> String {
    let k = kiln.display().to_string();
    let f = file.display().to_string();
    let doc = serde_json::json!({
        "specificationVersion": "jobtemplate-2023-09",
        "name": "kiln farm",
        "steps": [
            {
                "name": "stage0",
                "script": {
                    "actions": {"onRun": {"command": k, "args": ["farm", "item", f, "--task", "stage0"]}}
                }
            },
            {
                "name": "items",
                "dependencies": [{"dependsOn": "stage0"}],
                "parameterSpace": {
                    "taskParameterDefinitions": [
                        {"name": "Chunk", "type": "INT", "range": format!("0-{}", chunks.saturating_sub(1))}
                    ]
                },
                "script": {
                    "actions": {"onRun": {"command": k, "args": ["farm", "item", f, "--task", "{{Task.Param.Chunk}}"]}}
                }
            }
        ]
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
