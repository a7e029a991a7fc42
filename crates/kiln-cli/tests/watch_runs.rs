//! `kiln watch --ticks N` and `--seconds S`: graphs that run over time, watched. Each present
//! writes what `kiln render` would write for the same ticks or seconds.

mod support;
use support::*;

#[test]
fn watch_ticks_writes_every_tick_as_render_does() {
    let d = tempfile::tempdir().unwrap();
    let graph = examples().join("life.json");
    let g = graph.to_str().unwrap();
    let o = kiln(
        &[
            "watch",
            g,
            "--out",
            "w",
            "--ticks",
            "3",
            "--max-presents",
            "1",
        ],
        d.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let (out, _) = text(&o);
    assert!(
        out.contains("wrote life_000.png, life_001.png, life_002.png"),
        "{out}"
    );
    let o = kiln(&["render", g, "--out", "r", "--ticks", "3"], d.path());
    assert!(o.status.success(), "{:?}", text(&o));
    let watched = frames_in(&d.path().join("w"));
    let rendered = frames_in(&d.path().join("r"));
    assert_eq!(watched.len(), 3);
    assert_eq!(watched, rendered);
    // The gun moves: the ticks differ.
    assert_ne!(watched[0].1, watched[2].1);
}

#[test]
fn watch_seconds_streams_the_same_sound_as_render() {
    let d = tempfile::tempdir().unwrap();
    let graph = examples().join("pluck.json");
    let g = graph.to_str().unwrap();
    let o = kiln(
        &[
            "watch",
            g,
            "--out",
            "w",
            "--seconds",
            "0.5",
            "--max-presents",
            "1",
        ],
        d.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let o = kiln(&["render", g, "--out", "r", "--seconds", "0.5"], d.path());
    assert!(o.status.success(), "{:?}", text(&o));
    let read = |p: std::path::PathBuf| {
        let w = kiln_io::read_wav(&p).unwrap();
        (
            w.sample_rate,
            w.channels.len(),
            w.channels.into_iter().flatten().collect::<Vec<f64>>(),
        )
    };
    let (rate, channels, watched) = read(d.path().join("w/pluck.wav"));
    assert_eq!((rate, channels, watched.len()), (48_000, 1, 24_000));
    let (_, _, rendered) = read(d.path().join("r/pluck.wav"));
    assert_eq!(watched, rendered);
    assert!(watched.iter().any(|x| x.abs() > 0.01), "silence");
    // Both at once is refused by the command line.
    let o = kiln(
        &["watch", g, "--out", "w", "--seconds", "1", "--ticks", "2"],
        d.path(),
    );
    assert!(!o.status.success());
}
