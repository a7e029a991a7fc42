//! `kiln render --seconds`: audio graphs streamed into one mono WAV file per output, the same
//! bytes for every block size, all files or none, and clear errors for what cannot stream.

use std::path::{Path, PathBuf};

mod support;
use support::*;

/// The audio examples and the output each writes.
const AUDIO_EXAMPLES: [(&str, &str); 3] = [
    ("pluck.json", "pluck"),
    ("drone.json", "drone"),
    ("bells.json", "bells"),
];

fn example(name: &str) -> PathBuf {
    examples().join(name)
}

fn names(files: &[(String, Vec<u8>)]) -> Vec<&str> {
    files.iter().map(|(n, _)| n.as_str()).collect()
}

/// Run `kiln render GRAPH --seconds S --out OUT -q EXTRA...` in `dir`; assert it succeeded.
fn render(dir: &Path, graph: &Path, seconds: &str, out: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "render",
        graph.to_str().unwrap(),
        "--seconds",
        seconds,
        "--out",
        out,
        "-q",
    ];
    args.extend_from_slice(extra);
    let o = kiln(&args, dir);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{args:?}: {stdout}\n{stderr}");
    stdout
}

/// Run kiln, expecting exit code `code`; returns stderr.
fn fails(dir: &Path, args: &[&str], code: i32) -> String {
    let o = kiln(args, dir);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(code), "{args:?}: {out}\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn peak(samples: &[f64]) -> f64 {
    samples.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[test]
fn audio_examples_render_half_a_second_of_sound() {
    for (file, output) in AUDIO_EXAMPLES {
        let dir = tempfile::tempdir().unwrap();
        let stdout = render(dir.path(), &example(file), "0.5", "out", &[]);
        let wav = format!("{output}.wav");
        assert_eq!(names(&files_in(&dir.path().join("out"))), [wav.as_str()]);
        let data = kiln_io::read_wav(&dir.path().join("out").join(&wav)).unwrap();
        assert_eq!(data.sample_rate, 48_000, "{file}");
        assert_eq!(data.format, kiln_io::WavFormat::Float32, "{file}");
        assert_eq!(data.channels.len(), 1, "{file}: mono");
        let samples = &data.channels[0];
        assert_eq!(samples.len(), 24_000, "{file}: 0.5 s at 48 kHz");
        assert!(samples.iter().all(|x| x.is_finite()), "{file}");
        assert!(
            peak(samples) > 0.05,
            "{file} is silent: peak {}",
            peak(samples)
        );
        // Nothing clips: a WAV player plays samples past ±1 as ±1.
        assert!(peak(samples) <= 1.0, "{file} clips: peak {}", peak(samples));
        // Sound all through, not a click: the last tenth is not silent either.
        assert!(peak(&samples[21_600..]) > 1e-3, "{file} dies out");
        // The one-line summary.
        for needle in [
            &format!("wrote out/{wav}") as &str,
            "24000 samples",
            "0.500 s at 48000 Hz",
            "real time",
        ] {
            assert!(stdout.contains(needle), "{file}: no `{needle}` in {stdout}");
        }
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
    }
}

#[test]
fn every_block_size_writes_the_same_bytes() {
    for (file, output) in AUDIO_EXAMPLES {
        let dir = tempfile::tempdir().unwrap();
        let g = example(file);
        let mut reference: Option<Vec<(String, Vec<u8>)>> = None;
        for block in ["1", "64", "37"] {
            let out = format!("b{block}");
            render(dir.path(), &g, "0.5", &out, &["--block", block]);
            let files = files_in(&dir.path().join(&out));
            assert_eq!(names(&files), [format!("{output}.wav")], "{file}");
            match &reference {
                None => reference = Some(files),
                Some(r) => assert!(
                    files == *r,
                    "{file}: --block {block} differs from --block 1"
                ),
            }
        }
        // The default block is 64.
        render(dir.path(), &g, "0.5", "default", &[]);
        assert!(files_in(&dir.path().join("default")) == reference.unwrap());
    }
}

#[test]
fn rate_and_wav_format_shape_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let g = example("drone.json");
    render(dir.path(), &g, "0.25", "r", &["--rate", "44100"]);
    let data = kiln_io::read_wav(&dir.path().join("r/drone.wav")).unwrap();
    assert_eq!(data.sample_rate, 44_100);
    assert_eq!(data.channels[0].len(), 11_025);

    render(dir.path(), &g, "0.25", "f", &[]);
    let float = kiln_io::read_wav(&dir.path().join("f/drone.wav")).unwrap();
    for (fmt, bytes, step) in [
        ("pcm16", 2, 1.0 / 32_768.0),
        ("pcm24", 3, 1.0 / 8_388_608.0),
    ] {
        render(dir.path(), &g, "0.25", fmt, &["--wav-format", fmt]);
        let path = dir.path().join(fmt).join("drone.wav");
        let len = std::fs::metadata(&path).unwrap().len();
        // The header (44 bytes, 68 for the extensible header of 24-bit files) and the samples.
        assert!(
            len == 44 + 12_000 * bytes || len == 68 + 12_000 * bytes,
            "{fmt}: {len} bytes"
        );
        let pcm = kiln_io::read_wav(&path).unwrap();
        assert_eq!(pcm.channels[0].len(), 12_000, "{fmt}");
        // The same signal, within a step (plus the f32 rounding of the float file).
        for (a, b) in pcm.channels[0].iter().zip(&float.channels[0]) {
            let expected = b.clamp(-1.0, 1.0);
            assert!((a - expected).abs() <= step + 1e-7, "{fmt}: {a} vs {b}");
        }
    }
}

#[test]
fn set_seed_and_output_reach_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let drone = example("drone.json");
    let pluck = example("pluck.json");
    let read = |out: &str, file: &str| std::fs::read(dir.path().join(out).join(file)).unwrap();
    render(dir.path(), &drone, "0.2", "a", &[]);
    render(dir.path(), &drone, "0.2", "a2", &[]);
    render(dir.path(), &drone, "0.2", "b", &["--set", "root=49"]);
    assert!(
        read("a", "drone.wav") == read("a2", "drone.wav"),
        "not repeatable"
    );
    assert!(
        read("a", "drone.wav") != read("b", "drone.wav"),
        "--set changed nothing"
    );
    // The seed reaches the noise that excites the string.
    render(dir.path(), &pluck, "0.2", "s0", &[]);
    render(dir.path(), &pluck, "0.2", "s3", &["--seed", "3"]);
    assert!(
        read("s0", "pluck.wav") != read("s3", "pluck.wav"),
        "--seed changed nothing"
    );
    // `--output` streams any signal node or port; dots become `_` in file names.
    render(
        dir.path(),
        &drone,
        "0.2",
        "picked",
        &[
            "--output", "filter", "--output", "lfo.out", "--output", "drone",
        ],
    );
    assert_eq!(
        names(&files_in(&dir.path().join("picked"))),
        ["drone.wav", "filter.wav", "lfo_out.wav"]
    );
    assert!(read("picked", "drone.wav") == read("a", "drone.wav"));
    // An unknown input is refused as with ticks.
    let err = fails(
        dir.path(),
        &[
            "render",
            drone.to_str().unwrap(),
            "--seconds",
            "0.1",
            "--set",
            "nope=1",
            "--out",
            "bad",
        ],
        1,
    );
    assert!(err.contains("inputs: root"), "{err}");
    assert!(!dir.path().join("bad").exists());
}

/// A graph with a signal output `tone` and a float output `count`.
const MIXED: &str = r#"{
  "kiln": 1,
  "nodes": {
    "osc": {"op": "osc.sine", "inputs": {"freq": 440.0}},
    "n": {"op": "const", "params": {"value": 3.0}}
  },
  "outputs": {"tone": "osc.out", "count": "n.out"}
}"#;

#[test]
fn seconds_on_an_output_that_is_not_a_signal_exits_1_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mixed.json"), MIXED).unwrap();
    let err = fails(
        dir.path(),
        &["render", "mixed.json", "--seconds", "0.1", "--out", "o"],
        1,
    );
    for needle in ["output `count` is not a signal", "`n.out`", "--ticks"] {
        assert!(err.contains(needle), "no `{needle}` in {err}");
    }
    assert!(!dir.path().join("o").exists(), "nothing written");
    // The signal output alone renders.
    let o = kiln(
        &[
            "render",
            "mixed.json",
            "--seconds",
            "0.1",
            "--out",
            "o",
            "-q",
            "--output",
            "tone",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(names(&files_in(&dir.path().join("o"))), ["tone.wav"]);
    // An image graph: every output is refused the same way.
    let err = fails(
        dir.path(),
        &[
            "render",
            example("clouds.json").to_str().unwrap(),
            "--seconds",
            "0.1",
            "--out",
            "c",
        ],
        1,
    );
    assert!(err.contains("output `clouds` is not a signal"), "{err}");
}

/// A biquad with a negative cutoff: its processor cannot be built.
const BAD_CUTOFF: &str = r#"{
  "kiln": 1,
  "nodes": {
    "osc": {"op": "osc.saw", "inputs": {"freq": 110.0}},
    "f": {"op": "filter.biquad", "params": {"cutoff": -100.0}, "inputs": {"in": "osc.out"}}
  },
  "outputs": {"ok": "osc.out", "bad": "f.out"}
}"#;

/// A loop that doubles a single impulse every sample (through a one-sample delay and a gain
/// of 2): infinite after about 1024 samples, well inside the render.
const BLOWS_UP: &str = r#"{
  "kiln": 1,
  "nodes": {
    "click": {"op": "signal.sequence", "params": {"values": [1.0]}},
    "sum": {"op": "mix", "inputs": {"a": "click.out", "b": "twice.out"}},
    "d": {"op": "delay", "params": {"samples": 1}, "inputs": {"in": "sum.out"}},
    "twice": {"op": "gain", "inputs": {"in": "d.out", "gain": 2.0}},
    "osc": {"op": "osc.sine", "inputs": {"freq": 220.0}}
  },
  "outputs": {"calm": "osc.out", "wild": "sum.out"}
}"#;

#[test]
fn a_failing_render_exits_1_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cutoff.json"), BAD_CUTOFF).unwrap();
    std::fs::write(dir.path().join("wild.json"), BLOWS_UP).unwrap();
    // A folder that exists already, with a file of an earlier render in it.
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("calm.wav"), b"earlier").unwrap();
    for block in ["64", "1", "37"] {
        let err = fails(
            dir.path(),
            &[
                "render",
                "cutoff.json",
                "--seconds",
                "0.5",
                "--out",
                "out",
                "--block",
                block,
            ],
            1,
        );
        for needle in ["node `f` (filter.biquad)", "cutoff", "nothing was written"] {
            assert!(err.contains(needle), "no `{needle}` in {err}");
        }
        let err = fails(
            dir.path(),
            &[
                "render",
                "wild.json",
                "--seconds",
                "0.5",
                "--out",
                "out",
                "--block",
                block,
            ],
            1,
        );
        // Beyond a 32-bit float first (2^128 at sample 128)...
        for needle in [
            "output `wild` is 3.402823669209385e38 at sample 128 (0.003 s)",
            "beyond the range of a 32-bit float",
            "nothing was written",
        ] {
            assert!(err.contains(needle), "no `{needle}` in {err}");
        }
        // ... then infinite (2^1024 at sample 1024), which PCM cannot clamp.
        let err = fails(
            dir.path(),
            &[
                "render",
                "wild.json",
                "--seconds",
                "0.5",
                "--out",
                "out",
                "--block",
                block,
                "--wav-format",
                "pcm16",
            ],
            1,
        );
        for needle in [
            "output `wild` is inf at sample 1024 (0.021 s)",
            "nothing was written",
        ] {
            assert!(err.contains(needle), "no `{needle}` in {err}");
        }
        // Only the earlier file, untouched: no new file, no temporary file.
        let files = files_in(&out);
        assert_eq!(names(&files), ["calm.wav"], "block {block}");
        assert_eq!(files[0].1, b"earlier");
        // A folder the failed render would have made is not left behind.
        fails(
            dir.path(),
            &[
                "render",
                "wild.json",
                "--seconds",
                "0.5",
                "--out",
                "fresh/dir",
            ],
            1,
        );
        assert!(!dir.path().join("fresh").exists());
    }
    // The calm output alone renders, replacing the earlier file.
    let o = kiln(
        &[
            "render",
            "wild.json",
            "--seconds",
            "0.5",
            "--out",
            "out",
            "-q",
            "--output",
            "calm",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let data = kiln_io::read_wav(&out.join("calm.wav")).unwrap();
    assert_eq!(data.channels[0].len(), 24_000);
}

#[test]
fn ticks_and_seconds_are_one_or_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let pluck = example("pluck.json");
    let p = pluck.to_str().unwrap();
    for bad in [
        &["--ticks", "3", "--seconds", "1"][..],
        &[],
        &["--seconds", "0"],
        &["--seconds", "-1"],
        &["--seconds", "inf"],
        &["--seconds", "soon"],
        &["--seconds", "1", "--rate", "0"],
        &["--seconds", "1", "--block", "0"],
        &["--seconds", "1", "--wav-format", "mp3"],
        // Options of one mode are refused in the other.
        &["--ticks", "3", "--rate", "44100"],
        &["--ticks", "3", "--block", "32"],
        &["--ticks", "3", "--wav-format", "pcm16"],
        &["--seconds", "1", "--dt", "1/30"],
        &["--seconds", "1", "--evaluator", "lazy"],
        &["--seconds", "1", "--parallel"],
        &["--seconds", "1", "--stats"],
    ] {
        let mut args = vec!["render", p, "--out", "bad"];
        args.extend_from_slice(bad);
        let o = kiln(&args, dir.path());
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {:?}", text(&o));
    }
    assert!(!dir.path().join("bad").exists());
    let err = fails(
        dir.path(),
        &["render", p, "--ticks", "3", "--seconds", "1"],
        2,
    );
    assert!(err.contains("cannot be used with"), "{err}");
    // Too short for one sample is refused.
    let err = fails(
        dir.path(),
        &["render", p, "--seconds", "0.00001", "--out", "bad"],
        1,
    );
    assert!(err.contains("less than one sample"), "{err}");
    assert!(!dir.path().join("bad").exists());
}

/// `kiln info` on an audio graph with a feedback loop: valid, typed, and says how it runs.
#[test]
fn info_describes_an_audio_graph() {
    let dir = tempfile::tempdir().unwrap();
    let o = kiln(
        &["info", example("pluck.json").to_str().unwrap()],
        dir.path(),
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("pluck: signal"), "{out}");
    assert!(out.contains("it streams"), "{out}");
}
