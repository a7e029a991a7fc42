//! `Session::cook`: a failing node fails only what depends on it, every executed node is
//! timed, and a cancelled cook changes nothing.

#[path = "../../kiln-core/tests/common.rs"]
mod common;

use common::env;
use kiln_core::context::CancelToken;
use kiln_core::prelude::*;
use kiln_lower::session::{CookOptions, Session, SessionError};
use std::sync::Arc;
use std::sync::atomic::Ordering;

fn graph() -> Graph {
    // n -> fl (fails while asked to) and n -> ok.
    let mut g = Graph::new();
    g.add_node("n", "num").unwrap();
    g.set_param("n", "value", 2.0).unwrap();
    g.add_node("fl", "flaky").unwrap();
    g.wire("n", "fl.x");
    g.add_node("ok", "add").unwrap();
    g.wire("n", "ok.a");
    g
}

#[test]
fn a_failure_stays_on_its_node_and_every_run_is_timed() {
    let e = env();
    let mut s = Session::new(e.reg.clone(), graph(), ["ok", "fl"]);
    e.fail.store(true, Ordering::SeqCst);
    let c = s.cook(&CookOptions::default()).unwrap();
    let frame = s.frame().unwrap();
    assert_eq!(frame.get("ok").and_then(Value::as_f64), Some(2.0));
    assert!(matches!(frame.get("fl"), Some(Value::Error(_))));
    assert_eq!(c.failures.len(), 1);
    assert_eq!(c.failures[0].node.as_str(), "fl");
    let ran: Vec<&str> = c.timings.iter().map(|t| t.node.as_str()).collect();
    assert!(ran.contains(&"n") && ran.contains(&"ok"), "{ran:?}");
    assert_eq!(c.report.cooked as usize, ran.len());
    // Fixed: only the failed node runs again (`n` and `ok` are reused).
    e.fail.store(false, Ordering::SeqCst);
    let c = s.cook(&CookOptions::default()).unwrap();
    let ran: Vec<&str> = c.timings.iter().map(|t| t.node.as_str()).collect();
    assert_eq!(ran, ["fl"]);
    assert_eq!(
        s.frame().unwrap().get("fl").and_then(Value::as_f64),
        Some(2.0)
    );
}

#[test]
fn a_cancelled_cook_is_an_error_and_keeps_the_last_frame() {
    let e = env();
    let mut s = Session::new(e.reg.clone(), graph(), ["ok"]);
    s.cook(&CookOptions::default()).unwrap();
    let first = s.frame().unwrap();
    s.set_param("n", "value", 5.0).unwrap();
    let cancel = CancelToken::new();
    cancel.cancel();
    let options = CookOptions {
        cancel,
        ..CookOptions::default()
    };
    let err = s.cook(&options).unwrap_err();
    assert!(
        matches!(err, SessionError::Eval(EvalError::Cancelled)),
        "{err}"
    );
    assert!(Arc::ptr_eq(&first, &s.frame().unwrap()));
    // Nothing partial was kept: the next cook computes the new value.
    s.cook(&CookOptions::default()).unwrap();
    assert_eq!(
        s.frame().unwrap().get("ok").and_then(Value::as_f64),
        Some(5.0)
    );
}
