//! `kiln render --seconds` with a WAV file as a graph input (`--set voice=@take.wav` for an
//! `audio` input) and with `--stereo LEFT,RIGHT` (two signal outputs as the channels of one
//! WAV file).

use kiln_io::wav::{WavFormat, read_wav, write_wav_mono};
use std::path::Path;

mod support;
use support::*;

/// `voice` (an audio input declared in the graph file) played at half gain.
const PLAYER: &str = r#"{
  "kiln": 1,
  "inputs": {"voice": {"type": "audio", "doc": "the take to play"}},
  "nodes": {
    "play": {"op": "audio.play", "inputs": {"buffer": "voice.out"}},
    "half": {"op": "gain", "inputs": {"in": "play.out", "gain": 0.5}}
  },
  "outputs": {"out": "half.out"}
}"#;

/// Two signal outputs: a sine and a saw.
const PAIR: &str = r#"{
  "kiln": 1,
  "inputs": {"level": {"type": "float", "default": 0.5}},
  "nodes": {
    "sine": {"op": "osc.sine", "inputs": {"freq": 440.0, "amp": "level.out"}},
    "saw": {"op": "osc.saw", "inputs": {"freq": 110.0, "amp": 0.3}}
  },
  "outputs": {"left": "sine.out", "right": "saw.out"}
}"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// Run kiln in `dir`, expecting success; returns stdout.
fn ok(dir: &Path, args: &[&str]) -> String {
    let o = kiln(args, dir);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{args:?}: {out}\n{err}");
    out
}

/// Run kiln in `dir`, expecting failure; returns stderr.
fn fails(dir: &Path, args: &[&str]) -> String {
    let o = kiln(args, dir);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {out}\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A ramp k/1000 for k in 0..960, as 16-bit PCM at 48 kHz.
fn write_ramp(dir: &Path) -> Vec<f64> {
    let ramp: Vec<f64> = (0..960).map(|k| k as f64 / 1000.0).collect();
    write_wav_mono(&dir.join("ramp.wav"), &ramp, 48_000, WavFormat::Pcm16).unwrap();
    ramp
}

#[test]
fn a_wav_file_plays_through_a_graph_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ramp = write_ramp(d);
    let graph = write(d, "player.json", PLAYER);
    // 0.025 s at 48 kHz: 1200 samples, the 960 of the ramp then silence.
    let args = ["render", &graph, "--seconds", "0.025", "--out", "out", "-q"];
    ok(d, &[&args[..], &["--set", "voice=@ramp.wav"]].concat());
    let back = read_wav(&d.join("out").join("out.wav")).unwrap();
    assert_eq!(back.channels.len(), 1);
    let out = &back.channels[0];
    assert_eq!(out.len(), 1200);
    // The input was quantised to 16-bit steps; halving and f32 keep within one step.
    let step = 1.0 / 32_767.0;
    for (k, &y) in out.iter().enumerate() {
        let want = if k < 960 { ramp[k] * 0.5 } else { 0.0 };
        assert!((y - want).abs() <= step, "sample {k}: {y} vs {want}");
    }
}

#[test]
fn an_audio_input_is_read_and_written_back_as_a_graph_input() {
    let reg = {
        let mut r = kiln_image::registry();
        kiln_audio::register(&mut r).expect("the image and audio ops are distinct");
        r
    };
    let f = kiln_doc::load_graph(PLAYER, &reg).unwrap();
    assert_eq!(f.graph.node("voice").unwrap().op, "input.audio");
    let saved = f.to_json(&reg);
    assert!(saved.contains(r#""voice": {"type": "audio""#), "{saved}");
    let again = kiln_doc::load_graph(&saved, &reg).unwrap();
    assert_eq!(again.to_json(&reg), saved);
}

#[test]
fn bad_audio_inputs_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_ramp(d);
    let graph = write(d, "player.json", PLAYER);
    let base = ["render", &graph, "--seconds", "0.01", "--out", "out", "-q"];
    let run = |set: &str| fails(d, &[&base[..], &["--set", set]].concat());
    let e = run("voice=@missing.wav");
    assert!(e.contains("voice") && e.contains("missing.wav"), "{e}");
    let e = run("voice=0.5");
    assert!(e.contains("voice") && e.contains("@"), "{e}");
    // No value at all: the input is named.
    let e = fails(d, &base);
    assert!(e.contains("voice"), "{e}");
    // At another rate: both rates, and the way out.
    let e = fails(
        d,
        &[&base[..], &["--set", "voice=@ramp.wav", "--rate", "44100"]].concat(),
    );
    assert!(
        e.contains("48000 Hz") && e.contains("44100 Hz") && e.contains("resample"),
        "{e}"
    );
    // `@path` at a float input.
    let pair = write(d, "pair.json", PAIR);
    let e = fails(
        d,
        &[
            "render",
            &pair,
            "--seconds",
            "0.01",
            "--set",
            "level=@ramp.wav",
            "-q",
        ],
    );
    assert!(e.contains("level") && e.contains("audio"), "{e}");
    assert!(!d.join("out").exists(), "nothing was written");
}

#[test]
fn stereo_writes_the_two_mono_renders_as_channels() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let graph = write(d, "pair.json", PAIR);
    let base = ["render", &graph, "--seconds", "0.02", "-q", "--block", "16"];
    ok(d, &[&base[..], &["--out", "mono"]].concat());
    let stdout = ok(
        d,
        &[&base[..], &["--out", "st", "--stereo", "left,right"]].concat(),
    );
    assert!(stdout.contains("left+right.wav"), "{stdout}");
    // Only the stereo file: no --output names.
    let files: Vec<String> = files_in(&d.join("st")).into_iter().map(|f| f.0).collect();
    assert_eq!(files, ["left+right.wav"]);
    let st = read_wav(&d.join("st").join("left+right.wav")).unwrap();
    assert_eq!((st.channels.len(), st.sample_rate), (2, 48_000));
    for (ch, name) in ["left", "right"].into_iter().enumerate() {
        let mono = read_wav(&d.join("mono").join(format!("{name}.wav"))).unwrap();
        assert_eq!(mono.channels.len(), 1);
        assert_eq!(st.channels[ch], mono.channels[0], "channel {ch} is {name}");
        assert!(
            mono.channels[0].iter().any(|&x| x != 0.0),
            "{name} is silent"
        );
    }
    // With --output, the named outputs are written as mono files too.
    ok(
        d,
        &[
            &base[..],
            &[
                "--out",
                "both",
                "--stereo",
                "left,right",
                "--output",
                "left",
            ],
        ]
        .concat(),
    );
    let files: Vec<String> = files_in(&d.join("both")).into_iter().map(|f| f.0).collect();
    assert_eq!(files.len(), 2, "{files:?}");
    // Not a signal, or not a pair: refused.
    let e = fails(d, &[&base[..], &["--stereo", "left,level"]].concat());
    assert!(e.contains("level"), "{e}");
    // Not a pair: a usage error (exit code 2).
    let o = kiln(&[&base[..], &["--stereo", "left"]].concat(), d);
    let (_, e) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--stereo") && e.contains("LEFT,RIGHT"), "{e}");
}
