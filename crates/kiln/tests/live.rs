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
