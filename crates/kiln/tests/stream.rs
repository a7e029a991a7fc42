//! `Project::stream`: a project's signal outputs streamed with its inputs, each signal
//! computed once, names that carry no signal refused by name.

use kiln::{OpenOptions, Project, ProjectError, StreamOptions};

const TONE: &str = r#"{
  "kiln": 1,
  "inputs": {"freq": {"type": "float", "default": 440.0}},
  "nodes": {
    "osc": {"op": "osc.sine", "inputs": {"amp": 0.5, "freq": "freq.out"}},
    "twice": {"op": "math.mul", "inputs": {"a": "freq.out", "b": 2.0}}
  },
  "outputs": {"tone": "osc.out", "doubled": "twice.out"}
}"#;

fn tone() -> Project {
    let dir = std::env::temp_dir();
    OpenOptions::new()
        .open_text(TONE, "tone.json", &dir)
        .expect("the tone graph opens")
}

#[test]
fn a_sine_streams_at_the_frequency_its_input_sets() {
    let mut p = tone();
    p.set("freq", 1000.0).expect("a float");
    let rate = 48_000;
    let opts = StreamOptions {
        rate,
        block: 64,
        seed: 0,
    };
    let names = ["tone".to_string(), "osc.out".to_string()];
    let mut s = p.stream(&names, &opts).expect("the tone streams");
    assert_eq!(s.sources(), vec!["osc.out", "osc.out"]);
    let mut samples = vec![];
    for _ in 0..8 {
        s.process(64).expect("a block");
        assert_eq!(s.output(0), s.output(1), "one signal, read twice");
        samples.extend_from_slice(s.output(0));
    }
    for (n, v) in samples.iter().enumerate() {
        // The textbook sine at 1 kHz, sampled at 48 kHz.
        let want = 0.5 * (2.0 * std::f64::consts::PI * 1000.0 * n as f64 / f64::from(rate)).sin();
        assert!((v - want).abs() < 1e-6, "sample {n}: {v} vs {want}");
    }
}

#[test]
fn a_name_without_a_signal_is_refused_by_name() {
    let mut p = tone();
    let opts = StreamOptions::default();
    let e = p
        .stream(&["doubled".to_string()], &opts)
        .err()
        .expect("a float is not a signal");
    assert!(matches!(e, ProjectError::NotASignal { .. }), "{e:?}");
    assert!(e.to_string().contains("`doubled`"), "{e}");
    let e = p
        .stream(&["ghost".to_string()], &opts)
        .err()
        .expect("no such node");
    assert!(matches!(e, ProjectError::UnknownOutput { .. }), "{e:?}");
}
