//! `Project::present` over a `Live` state (what `kiln watch` runs): a changed input or edit
//! recooks only its cone, an input no longer set reads its default again, and every frame
//! is the value a fresh project cooks for the same file and inputs.

use kiln::doc::edit::Edit;
use kiln::prelude::*;
use kiln::{Clock, CookOptions, Live, Project, ProjectError};
use std::path::{Path, PathBuf};

fn marble() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/marble.json")
}

/// The `marble` output of `p` cooked from scratch.
fn fresh(p: &mut Project) -> Value {
    let cooked = p.cook(&CookOptions::default()).expect("marble cooks");
    cooked.get("marble").expect("marble is an output").clone()
}

fn present(p: &Project, live: &mut Live) -> (kiln::lower::session::PresentReport, Value) {
    let mut value = None;
    let report = p
        .present(live, Clock::default(), |frame| {
            value = frame.get("marble").cloned();
            Ok(())
        })
        .expect("marble presents");
    (report, value.expect("the frame holds marble"))
}

#[test]
fn a_live_project_recooks_the_cone_of_a_change_and_matches_a_fresh_cook() {
    let mut live = Live::new(0);
    let mut p = Project::open(marble()).expect("marble opens");
    let (first, plain) = present(&p, &mut live);
    assert!(first.cooked > 0);
    assert_eq!(plain, fresh(&mut Project::open(marble()).expect("opens")));

    // A new tint: the fill and what reads it cook; the noise layers are reused.
    p.set_text("tint", "#ff0000").expect("a colour");
    let (second, tinted) = present(&p, &mut live);
    assert!(
        second.cooked > 0 && second.cooked < first.cooked,
        "{second:?}"
    );
    assert_ne!(tinted, plain);
    let mut q = Project::open(marble()).expect("opens");
    q.set_text("tint", "#ff0000").expect("a colour");
    assert_eq!(tinted, fresh(&mut q));

    // Reopened (the file saved again) without the tint, with an edit: the tint reads its
    // default again, and the frame is what a fresh project with the same edit cooks.
    let octaves = Edit::Const {
        node: "fine".into(),
        port: "octaves".into(),
        value: Value::Int(3),
    };
    let mut p = Project::open(marble()).expect("opens");
    p.edit(&octaves).expect("fine has octaves");
    let (third, edited) = present(&p, &mut live);
    assert!(
        third.cooked < first.cooked,
        "the coarse layer is kept: {third:?}"
    );
    let mut q = Project::open(marble()).expect("opens");
    q.edit(&octaves).expect("fine has octaves");
    assert_eq!(edited, fresh(&mut q));
    assert_ne!(edited, plain);
    assert_ne!(edited, tinted);
}

#[test]
fn an_edit_naming_a_missing_node_is_refused_and_changes_nothing() {
    let mut p = Project::open(marble()).expect("opens");
    let before = fresh(&mut p);
    let e = p
        .edit(&Edit::Param {
            node: "ghost".into(),
            param: "seed".into(),
            value: Value::Int(1),
        })
        .expect_err("there is no ghost");
    assert!(matches!(e, ProjectError::Edit { .. }), "{e:?}");
    assert!(e.to_string().contains("`ghost`"), "{e}");
    assert_eq!(fresh(&mut p), before);
}

#[test]
fn a_failed_commit_keeps_the_last_frame() {
    let mut live = Live::new(0);
    let mut p = Project::open(marble()).expect("opens");
    let (_, plain) = present(&p, &mut live);
    p.set_text("mix", "0.9").expect("a float");
    let e = p
        .present(&mut live, Clock::default(), |_| Err("disk full".into()))
        .expect_err("the commit fails");
    assert!(e.to_string().contains("disk full"), "{e}");
    let kept = live.frame().expect("the first frame stays");
    assert_eq!(kept.number, 0);
    assert_eq!(kept.get("marble"), Some(&plain));
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

/// The value cooked for `node.port`.
fn port<'a>(lc: &'a kiln::LiveCooked, node: &str, port: &str) -> &'a Value {
    lc.values
        .iter()
        .find(|((n, p), _)| n == node && p == port)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("{node}.{port} was cooked"))
}

#[test]
fn every_port_is_cooked_and_an_edit_is_followed_as_an_edit() {
    let mut live = Live::new(0);
    let mut p = Project::open(marble()).expect("opens");
    let first = p
        .cook_every_port(&mut live, &kiln::LiveCook::default())
        .expect("marble cooks");
    assert_eq!(live.change(), kiln::Change::New);
    assert_eq!(first.outputs, vec!["marble".to_string()]);
    assert!(!first.animated && first.signal_outputs.is_empty());
    // The graph output first, then a port of every node.
    assert_eq!(first.values[0].0, ("marble".to_string(), "out".to_string()));
    let plain = fresh(&mut Project::open(marble()).expect("opens"));
    assert_eq!(port(&first, "marble", "out"), &plain);
    assert_eq!(port(&first, "tinted", "out"), &plain, "marble reads tinted");
    for node in [
        "coarse", "fine", "blend", "stretch", "veins", "clamped", "colour", "mix",
    ] {
        port(&first, node, "out");
    }

    let octaves = Edit::Const {
        node: "fine".into(),
        port: "octaves".into(),
        value: Value::Int(3),
    };
    p.edit(&octaves).expect("fine has octaves");
    let req = kiln::LiveCook {
        edits: Some(vec![octaves.clone()]),
        ..kiln::LiveCook::default()
    };
    let second = p.cook_every_port(&mut live, &req).expect("cooks");
    assert_eq!(live.change(), kiln::Change::Edits);
    assert!(second.cooked.report.cooked < first.cooked.report.cooked);
    let mut q = Project::open(marble()).expect("opens");
    q.edit(&octaves).expect("fine has octaves");
    assert_eq!(port(&second, "marble", "out"), &fresh(&mut q));
    // The coarse layer did not cook again and kept its bits.
    assert_eq!(
        port(&second, "coarse", "out"),
        port(&first, "coarse", "out")
    );

    // Without edits the document is given whole, and the values stay the same.
    let third = p
        .cook_every_port(&mut live, &kiln::LiveCook::default())
        .expect("cooks");
    assert_eq!(live.change(), kiln::Change::Whole);
    assert_eq!(
        port(&third, "marble", "out"),
        port(&second, "marble", "out")
    );
}

#[test]
fn a_latch_graph_is_cooked_at_its_tick_as_a_render_ticks_it() {
    let path = example("dungeon.json");
    let mut live = Live::new(0);
    let p = Project::open(&path).expect("opens");
    let req = kiln::LiveCook {
        tick: 4,
        fps: 60.0,
        ..kiln::LiveCook::default()
    };
    let lc = p.cook_every_port(&mut live, &req).expect("ticks");
    assert!(lc.animated);
    let mut q = Project::open(&path).expect("opens");
    let mut render = q.render(&kiln::RenderOptions::default()).expect("renders");
    let mut last = None;
    for _ in 0..=4 {
        let out = render.tick().expect("a tick");
        last = out
            .values
            .into_iter()
            .find(|(n, _)| n == "dungeon")
            .map(|(_, v)| v);
    }
    assert_eq!(Some(port(&lc, "dungeon", "out")), last.as_ref());
    // An earlier tick replays from a kept state to the same bits as a fresh cook of it.
    let back = p
        .cook_every_port(&mut live, &kiln::LiveCook { tick: 1, ..req })
        .expect("seeks back");
    let fresh = p
        .cook_every_port(
            &mut Live::new(0),
            &kiln::LiveCook {
                tick: 1,
                fps: 60.0,
                ..Default::default()
            },
        )
        .expect("ticks");
    assert_eq!(
        port(&back, "dungeon", "out"),
        port(&fresh, "dungeon", "out")
    );
    assert_ne!(port(&back, "dungeon", "out"), port(&lc, "dungeon", "out"));
}

#[test]
fn replaced_text_keeps_the_inputs_still_declared_and_a_broken_text_changes_nothing() {
    let text = std::fs::read_to_string(marble()).expect("marble reads");
    let mut p = Project::open(marble()).expect("opens");
    p.set_text("mix", "0.8").expect("a float");
    p.set_text("tint", "#ff0000").expect("a colour");
    let before = fresh(&mut p);
    let e = p.replace_text("{ not json").expect_err("broken");
    assert!(e.to_string().contains("marble.json"), "{e}");
    assert_eq!(fresh(&mut p), before, "a failed replace keeps the document");
    // The same file without its `tint` input: `mix` stays set, `tint` goes.
    let without: serde_json::Value = serde_json::from_str(&text).expect("json");
    let mut without = without;
    without["inputs"]
        .as_object_mut()
        .expect("inputs")
        .remove("tint");
    without["nodes"]["colour"]["inputs"]["color"] = serde_json::json!("#d8c8b0");
    p.replace_text(&without.to_string()).expect("loads");
    assert!(p.input_values().contains_key("mix"));
    assert!(!p.input_values().contains_key("tint"));
}

/// An edit after a cook reaches the next cook: the project's kept lowering is keyed by the
/// document's digest, which the edit brings up to date.
#[test]
fn an_edit_after_a_cook_is_what_the_next_cook_sees() {
    let octaves = Edit::Const {
        node: "fine".into(),
        port: "octaves".into(),
        value: Value::Int(3),
    };
    let mut p = Project::open(marble()).expect("opens");
    let before = fresh(&mut p);
    p.edit(&octaves).expect("fine has octaves");
    let after = fresh(&mut p);
    assert_ne!(after, before);
    let mut q = Project::open(marble()).expect("opens");
    q.edit(&octaves).expect("fine has octaves");
    assert_eq!(after, fresh(&mut q));
}

/// Issue 29: a graph input wired into params (`stone.json`'s `seed` into its cells' and
/// surface's seeds) drives them in a live session as in a fresh cook, and so does a node's
/// port set by name (`cells.seed`); only the cones of the changed params cook again.
#[test]
fn a_live_session_follows_params_driven_by_inputs_and_by_name() {
    let stone = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/stone.json");
    let frame = |p: &Project, live: &mut Live| {
        let mut value = None;
        let report = p
            .present(live, Clock::default(), |frame| {
                value = frame.get("stone").cloned();
                Ok(())
            })
            .expect("stone presents");
        (report, value.expect("the frame holds stone"))
    };
    let fresh = |set: &[(&str, i64)]| {
        let mut q = Project::open(&stone).expect("opens");
        for (name, v) in set {
            q.set(name, *v).expect("a knob");
        }
        let cooked = q.cook(&CookOptions::default()).expect("stone cooks");
        cooked.get("stone").expect("an output").clone()
    };
    let mut live = Live::new(0);
    let mut p = Project::open(&stone).expect("opens");
    let (first, plain) = frame(&p, &mut live);
    assert_eq!(plain, fresh(&[]));
    p.set("seed", 5).expect("seed");
    let (_, seeded) = frame(&p, &mut live);
    assert_ne!(seeded, plain);
    assert_eq!(seeded, fresh(&[("seed", 5)]));
    // Back to the default seed, then one node's seed by name: only its cone cooks.
    p.set("seed", 11).expect("seed");
    let (_, again) = frame(&p, &mut live);
    assert_eq!(again, plain);
    p.set("cells.seed", 4).expect("a node's port");
    let (by_name, changed) = frame(&p, &mut live);
    assert!(by_name.cooked < first.cooked, "{by_name:?} vs {first:?}");
    assert_eq!(changed, fresh(&[("cells.seed", 4)]));
}
