//! The farm (issue 31, items 2 to 4): `kiln farm plan` writes every item's settings and
//! output keys, `kiln farm item` runs one chunk (by `--task` or a scheduler's environment
//! variable), skipping items already done, `kiln farm status` names what is missing and how
//! to resubmit it, and `kiln farm emit` writes Slurm, Kubernetes and OpenJD job files. With
//! `KILN_SLURM=1` (set by `.ci/run` once its one-host Slurm is up) the Slurm files run on a
//! real Slurm; with `KILN_FARM_PY` (a folder holding PyPI's `openjd-cli` and
//! `kubernetes-validate`, installed there by `.ci/run`) the OpenJD template is checked and
//! run by `openjd` and the Kubernetes manifest validated against Kubernetes 1.33's schema.

mod support;

use std::path::Path;
use std::process::Output;
use support::{files_in, kiln, text};

/// A graph whose costly upstream (`base` → `lift` → `flip`, three nodes) ignores the seed.
const SHARED_PREFIX: &str = r#"{
  "kiln": 1,
  "inputs": {"seed": {"type": "int", "default": 0}},
  "nodes": {
    "base": {"op": "image.fractal", "params": {"width": 32, "height": 32, "octaves": 3}},
    "lift": {"op": "image.gain", "inputs": {"image": "base.out", "gain": 0.5, "bias": 0.25}},
    "flip": {"op": "image.invert", "inputs": {"image": "lift.out"}},
    "spots": {"op": "image.cells", "params": {"width": 32, "height": 32}, "inputs": {"seed": "seed"}},
    "mix": {"op": "image.mul", "inputs": {"a": "flip.out", "b": "spots.out"}}
  },
  "outputs": {"out": "mix.out"}
}"#;

fn ok(o: Output, what: &str) -> (String, String) {
    let t = text(&o);
    assert!(o.status.success(), "{what}: {t:?}");
    t
}

/// `task N: K item(s) cooked (E node execution(s)), S already done, F failed` → (K, E, S).
fn counts(err: &str) -> (u64, u64, u64) {
    let line = err
        .lines()
        .find(|l| l.starts_with("task "))
        .unwrap_or_else(|| panic!("no task line in {err}"));
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    // [task, cooked, executed, skipped, failed] (`stage0` reads as task 0).
    (nums[1], nums[2], nums[3])
}

fn plan(cwd: &Path, sweep: &str, chunk: &str) {
    ok(
        kiln(
            &[
                "farm", "plan", "g.json", "--sweep", sweep, "--chunk", chunk, "--out", "farm",
            ],
            cwd,
        ),
        "plan",
    );
}

#[test]
fn chunks_run_by_task_or_environment_make_the_sweeps_files_and_the_upstream_cooks_once() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    // Every node of one item.
    let (_, err) = ok(
        kiln(&["run", "g.json", "--out", "one", "-q", "--stats"], cwd),
        "one run",
    );
    let per_item: u64 = err
        .split("executed ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    plan(cwd, "seed=0..9", "3");
    let p: serde_json::Value =
        serde_json::from_slice(&std::fs::read(cwd.join("farm/kiln-farm.json")).unwrap()).unwrap();
    assert_eq!(p["items"].as_array().unwrap().len(), 10);
    assert_eq!(
        p["chunks"],
        serde_json::json!([[0, 2], [3, 5], [6, 8], [9, 9]])
    );
    assert_eq!(p["items"][4]["settings"]["seed"], "4");
    // Every item's keys differ (the seed reaches the output).
    let keys: std::collections::BTreeSet<String> = p["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["keys"]["out"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(keys.len(), 10);

    let (_, err) = ok(
        kiln(&["farm", "item", "farm", "--task", "stage0"], cwd),
        "stage 0",
    );
    let mut executed = counts(&err).1;
    assert_eq!(executed, per_item, "stage 0 cooks item 0 whole: {err}");
    // Chunks by --task, and by each scheduler's variable.
    let mut runs = vec![];
    for (var, task) in [
        ("", "0"),
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("JOB_COMPLETION_INDEX", "2"),
        ("AWS_BATCH_JOB_ARRAY_INDEX", "3"),
    ] {
        let exe = env!("CARGO_BIN_EXE_kiln");
        let mut cmd = std::process::Command::new(exe);
        cmd.current_dir(cwd).args(["farm", "item", "farm"]);
        if var.is_empty() {
            cmd.args(["--task", task]);
        } else {
            cmd.env(var, task);
        }
        for v in kiln::farm::TASK_VARIABLES {
            if v != var {
                cmd.env_remove(v);
            }
        }
        let (_, err) = ok(cmd.output().unwrap(), task);
        runs.push(counts(&err));
    }
    // Item 0 was done by stage 0; the other nine cook all but the three shared nodes.
    assert_eq!(runs[0].2, 1, "chunk 0 skips item 0");
    executed += runs.iter().map(|r| r.1).sum::<u64>();
    assert_eq!(executed, per_item + 9 * (per_item - 3), "{runs:?}");
    let cooked: u64 = runs.iter().map(|r| r.0).sum();
    assert_eq!(cooked, 9);

    // The files are those of the same sweep run on one machine.
    ok(
        kiln(
            &[
                "run",
                "g.json",
                "--sweep",
                "seed=0..9",
                "--out",
                "local",
                "-q",
            ],
            cwd,
        ),
        "local sweep",
    );
    let local: Vec<_> = files_in(&cwd.join("local"))
        .into_iter()
        .filter(|(n, _)| n != "sweep.json")
        .collect();
    assert_eq!(files_in(&cwd.join("farm/out")), local);
    let (out, _) = ok(kiln(&["farm", "status", "farm"], cwd), "status");
    assert!(out.contains("10 of 10 item(s) done"), "{out}");
}

#[test]
fn a_missing_item_is_named_with_its_chunk_and_its_resubmission_cooks_only_it() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    plan(cwd, "seed=0..5", "3");
    for t in ["0", "1"] {
        ok(kiln(&["farm", "item", "farm", "--task", t], cwd), t);
    }
    // A lost file (a node that died mid-write leaves none: files land atomically).
    std::fs::remove_file(cwd.join("farm/out/out_0004.png")).unwrap();
    let o = kiln(&["farm", "status", "farm"], cwd);
    assert_eq!(o.status.code(), Some(1));
    let (out, _) = text(&o);
    assert!(out.contains("5 of 6 item(s) done"), "{out}");
    assert!(out.contains("missing items: 4"), "{out}");
    assert!(out.contains("missing chunks: 1"), "{out}");
    assert!(out.contains("--array=1"), "{out}");
    let (_, err) = ok(kiln(&["farm", "item", "farm", "--task", "1"], cwd), "again");
    let (cooked, _, skipped) = counts(&err);
    assert_eq!((cooked, skipped), (1, 2), "{err}");
    let (out, _) = ok(kiln(&["farm", "status", "farm"], cwd), "status");
    assert!(out.contains("6 of 6 item(s) done"), "{out}");
}

#[test]
fn a_bad_item_a_bad_task_and_a_changed_graph_are_errors_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    // An item the graph refuses is refused when planned, naming node and port.
    let o = kiln(
        &[
            "farm",
            "plan",
            "g.json",
            "--sweep",
            "spots.cells=4,0,6",
            "--out",
            "farm",
        ],
        cwd,
    );
    assert!(!o.status.success());
    assert!(
        text(&o)
            .1
            .contains("node `spots` (image.cells), param `cells`"),
        "{:?}",
        text(&o)
    );
    assert!(!cwd.join("farm").exists());
    plan(cwd, "seed=0..8", "3");
    let o = kiln(&["farm", "item", "farm", "--task", "7"], cwd);
    assert!(!o.status.success());
    assert!(
        text(&o)
            .1
            .contains("task 7 is not a chunk of this plan (0 to 2)")
    );
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kiln"));
    cmd.current_dir(cwd).args(["farm", "item", "farm"]);
    for v in kiln::farm::TASK_VARIABLES {
        cmd.env_remove(v);
    }
    let o = cmd.output().unwrap();
    assert!(!o.status.success());
    assert!(text(&o).1.contains("SLURM_ARRAY_TASK_ID"), "{:?}", text(&o));
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX.replace("0.25", "0.3")).unwrap();
    let o = kiln(&["farm", "item", "farm", "--task", "0"], cwd);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("changed since it was planned"),
        "{:?}",
        text(&o)
    );
}

#[test]
fn job_files_for_slurm_kubernetes_and_openjd_run_the_plans_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    plan(cwd, "seed=0..7", "3");
    for to in ["slurm", "k8s", "openjd"] {
        ok(kiln(&["farm", "emit", "farm", "--to", to], cwd), to);
    }
    let items = std::fs::read_to_string(cwd.join("farm/slurm/items.sbatch")).unwrap();
    assert!(items.contains("#SBATCH --array=0-2"), "{items}");
    assert!(items.contains("farm item"), "{items}");
    let submit = std::fs::read_to_string(cwd.join("farm/slurm/submit.sh")).unwrap();
    assert!(submit.contains("--dependency=afterok:"), "{submit}");
    let k8s = std::fs::read_to_string(cwd.join("farm/k8s/job.yaml")).unwrap();
    assert!(k8s.contains("completionMode: Indexed") && k8s.contains("completions: 3"));
    let openjd: serde_json::Value =
        serde_json::from_slice(&std::fs::read(cwd.join("farm/openjd/template.json")).unwrap())
            .unwrap();
    assert_eq!(openjd["specificationVersion"], "jobtemplate-2023-09");
    assert_eq!(
        openjd["steps"][1]["parameterSpace"]["taskParameterDefinitions"][0]["range"],
        "0-2"
    );
    if std::env::var("KILN_SLURM").is_ok_and(|v| v == "1") {
        // A real Slurm: 300 cheap items in 12 chunks of 25, stage 0 first, then the array
        // after it; --wait returns when it is done.
        std::fs::remove_dir_all(cwd.join("farm")).unwrap();
        plan(cwd, "seed=0..299", "25");
        ok(
            kiln(&["farm", "emit", "farm", "--to", "slurm"], cwd),
            "slurm",
        );
        let o = std::process::Command::new("sh")
            .arg(cwd.join("farm/slurm/submit.sh"))
            .arg("--wait")
            .output()
            .unwrap();
        assert!(o.status.success(), "sbatch: {:?}", text(&o));
        let (out, _) = ok(kiln(&["farm", "status", "farm"], cwd), "status after Slurm");
        assert!(out.contains("300 of 300 item(s) done"), "{out}");
        ok(
            kiln(
                &[
                    "run",
                    "g.json",
                    "--sweep",
                    "seed=0..299",
                    "--out",
                    "local",
                    "-q",
                ],
                cwd,
            ),
            "local",
        );
        let local: Vec<_> = files_in(&cwd.join("local"))
            .into_iter()
            .filter(|(n, _)| n != "sweep.json")
            .collect();
        assert_eq!(local.len(), 300);
        assert_eq!(files_in(&cwd.join("farm/out")), local);
    } else {
        eprintln!("KILN_SLURM is not 1: the Slurm job files were not run on a Slurm");
    }
}

/// `python3 DIR/bin/TOOL ARGS` with DIR on the Python path.
fn py_tool(dir: &Path, tool: &str, args: &[&str], cwd: &Path) -> Output {
    std::process::Command::new("python3")
        .arg(dir.join("bin").join(tool))
        .args(args)
        .env("PYTHONPATH", dir)
        .current_dir(cwd)
        .output()
        .unwrap()
}

#[test]
fn openjd_runs_the_template_and_kubernetes_accepts_the_manifest() {
    let Some(py) = std::env::var_os("KILN_FARM_PY") else {
        eprintln!("KILN_FARM_PY is not set: openjd and kubernetes-validate were not run");
        return;
    };
    let py = Path::new(&py);
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    plan(cwd, "seed=0..5", "2");
    for to in ["k8s", "openjd"] {
        ok(kiln(&["farm", "emit", "farm", "--to", to], cwd), to);
    }
    ok(
        py_tool(
            py,
            "kubernetes-validate",
            &["-k", "1.33.0", "farm/k8s/job.yaml"],
            cwd,
        ),
        "kubernetes-validate",
    );
    ok(
        py_tool(py, "openjd", &["check", "farm/openjd/template.json"], cwd),
        "openjd check",
    );
    // Every chunk after stage 0, run by OpenJD's own runner.
    let (out, _) = ok(
        py_tool(
            py,
            "openjd",
            &[
                "run",
                "farm/openjd/template.json",
                "--step",
                "items",
                "--run-dependencies",
            ],
            cwd,
        ),
        "openjd run",
    );
    assert!(out.contains("Chunks run: 4"), "{out}");
    let (out, _) = ok(
        kiln(&["farm", "status", "farm"], cwd),
        "status after OpenJD",
    );
    assert!(out.contains("6 of 6 item(s) done"), "{out}");
}

/// A graph each of whose items takes a while (a 192² fBm of 8 octaves per seed).
const SLOW: &str = r#"{
  "kiln": 1,
  "inputs": {"seed": {"type": "int", "default": 0}},
  "nodes": {
    "n": {"op": "image.fractal", "params": {"width": 192, "height": 192, "octaves": 8}, "inputs": {"seed": "seed"}}
  },
  "outputs": {"out": "n.out"}
}"#;

#[test]
fn array_tasks_killed_mid_run_are_resubmitted_and_only_the_unfinished_items_cook() {
    if !std::env::var("KILN_SLURM").is_ok_and(|v| v == "1") {
        eprintln!("KILN_SLURM is not 1: no Slurm to kill tasks on");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SLOW).unwrap();
    plan(cwd, "seed=0..59", "10");
    ok(
        kiln(&["farm", "emit", "farm", "--to", "slurm"], cwd),
        "slurm",
    );
    let o = std::process::Command::new("sh")
        .arg(cwd.join("farm/slurm/submit.sh"))
        .output()
        .unwrap();
    let (jobs, _) = ok(o, "submit");
    let array_job = jobs.lines().last().unwrap().trim().to_string();
    // Once some items are done but not all, every task of the array is killed (-9).
    let done = cwd.join("farm/done");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let n = std::fs::read_dir(&done).map(|d| d.count()).unwrap_or(0);
        if n >= 4 || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = std::process::Command::new("scancel")
        .args(["--signal=KILL", "--full", &array_job])
        .output()
        .unwrap();
    assert!(o.status.success(), "scancel: {:?}", text(&o));
    // Let the killed tasks go.
    for _ in 0..200 {
        let q = std::process::Command::new("squeue")
            .args(["-h", "-j", &array_job])
            .output()
            .unwrap();
        if q.stdout.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let o = kiln(&["farm", "status", "farm"], cwd);
    let (out, _) = text(&o);
    let missing: usize = out
        .lines()
        .next()
        .and_then(|l| l.split(" of ").next())
        .and_then(|n| n.parse::<usize>().ok())
        .map(|done| 60 - done)
        .unwrap();
    // No file in the folder is a half-written one: every file is a whole PNG.
    for (name, bytes) in files_in(&cwd.join("farm/out")) {
        assert!(
            image::load_from_memory(&bytes).is_ok(),
            "{name} is not a whole PNG"
        );
    }
    eprintln!("{missing} item(s) missing after the kill");
    if missing > 0 {
        let chunks = out
            .lines()
            .find_map(|l| l.strip_prefix("missing chunks: "))
            .unwrap()
            .to_string();
        let o = std::process::Command::new("sh")
            .arg(cwd.join("farm/slurm/submit.sh"))
            .arg(format!("--array={chunks}"))
            .arg("--wait")
            .output()
            .unwrap();
        ok(o, "resubmit");
        // The resubmitted tasks cooked exactly the items that were missing.
        let mut cooked = 0;
        for part in chunks.split(',') {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            for c in a.parse::<usize>().unwrap()..=b.parse::<usize>().unwrap() {
                let log = std::fs::read_to_string(cwd.join(format!("farm/logs/{c}.out"))).unwrap();
                cooked += counts(&log).0;
            }
        }
        assert_eq!(
            cooked as usize, missing,
            "the resubmission cooks the missing items"
        );
    }
    let (out, _) = ok(kiln(&["farm", "status", "farm"], cwd), "status");
    assert!(out.contains("60 of 60 item(s) done"), "{out}");
    ok(
        kiln(
            &[
                "run",
                "g.json",
                "--sweep",
                "seed=0..59",
                "--out",
                "local",
                "-q",
            ],
            cwd,
        ),
        "local",
    );
    let local: Vec<_> = files_in(&cwd.join("local"))
        .into_iter()
        .filter(|(n, _)| n != "sweep.json")
        .collect();
    assert_eq!(files_in(&cwd.join("farm/out")), local);
}

#[test]
fn of_ten_thousand_items_the_one_that_failed_is_the_one_cooked_again() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(
        cwd.join("g.json"),
        r#"{"kiln": 1, "inputs": {"seed": {"type": "int", "default": 0}},
            "nodes": {"n": {"op": "image.cells", "params": {"width": 8, "height": 8}, "inputs": {"seed": "seed"}}},
            "outputs": {"out": "n.out"}}"#,
    )
    .unwrap();
    plan(cwd, "seed=0..9999", "2500");
    // The injected failure: a folder where item 1234's file must land.
    std::fs::create_dir_all(cwd.join("farm/out/out_1234.png")).unwrap();
    let mut failed = vec![];
    for t in ["0", "1", "2", "3"] {
        let o = kiln(&["farm", "item", "farm", "--task", t], cwd);
        let (_, err) = text(&o);
        if !o.status.success() {
            assert!(err.contains("failed items: 1234"), "{err}");
            failed.push(t);
        }
    }
    assert_eq!(failed, ["0"]);
    let o = kiln(&["farm", "status", "farm"], cwd);
    let (out, _) = text(&o);
    assert!(out.contains("9999 of 10000 item(s) done"), "{out}");
    assert!(out.contains("missing items: 1234\n"), "{out}");
    assert!(out.contains("missing chunks: 0\n"), "{out}");
    std::fs::remove_dir(cwd.join("farm/out/out_1234.png")).unwrap();
    let (_, err) = ok(kiln(&["farm", "item", "farm", "--task", "0"], cwd), "again");
    // One item done again, and its value came from the shared cache (its cook had
    // succeeded; only its file could not land): no node executes.
    assert_eq!(counts(&err), (1, 0, 2499), "{err}");
    let (out, _) = ok(kiln(&["farm", "status", "farm"], cwd), "status");
    assert!(out.contains("10000 of 10000 item(s) done"), "{out}");
}

#[test]
fn a_frame_range_in_chunks_is_those_ticks_of_one_render() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let trails = support::examples().join("trails.json");
    let trails = trails.to_str().unwrap();
    ok(
        kiln(
            &[
                "render", trails, "--ticks", "40", "--size", "24x24", "--out", "all", "-q",
            ],
            cwd,
        ),
        "render",
    );
    let all: Vec<_> = files_in(&cwd.join("all"))
        .into_iter()
        .filter(|(n, _)| n.ends_with(".png"))
        .collect();
    ok(
        kiln(
            &[
                "farm", "plan", trails, "--frames", "10..39", "--chunk", "8", "--size", "24x24",
                "--out", "farm",
            ],
            cwd,
        ),
        "plan",
    );
    // Chunks out of order, and one run twice: the second finds its frames done.
    for t in ["3", "1", "0", "2", "1"] {
        ok(kiln(&["farm", "item", "farm", "--task", t], cwd), t);
    }
    let (out, _) = ok(kiln(&["farm", "status", "farm"], cwd), "status");
    assert!(out.contains("30 of 30 item(s) done"), "{out}");
    assert_eq!(files_in(&cwd.join("farm/out")), all[10..].to_vec());
}

#[test]
fn an_item_whose_keys_are_not_the_plans_is_refused_rather_than_cooked_for_ever() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), SHARED_PREFIX).unwrap();
    plan(cwd, "seed=0..2", "3");
    // A plan whose keys another Kiln computed: item 1's differs from what this one computes.
    let file = cwd.join("farm/kiln-farm.json");
    let mut p: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    p["items"][1]["keys"]["out"] = serde_json::json!("0".repeat(32));
    std::fs::write(&file, serde_json::to_string(&p).unwrap()).unwrap();
    let o = kiln(&["farm", "item", "farm", "--task", "0"], cwd);
    assert_eq!(o.status.code(), Some(1));
    let (_, err) = text(&o);
    assert!(
        err.contains("item 1 failed: its output keys are not the ones the plan recorded"),
        "{err}"
    );
    assert!(err.contains("failed items: 1"), "{err}");
    let (out, _) = text(&kiln(&["farm", "status", "farm"], cwd));
    assert!(out.contains("2 of 3 item(s) done"), "{out}");
}
