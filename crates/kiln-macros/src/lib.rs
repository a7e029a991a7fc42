//! # kiln-macros
//!
//! `#[op]`: a Kiln op written as one plain Rust function. The function's arguments are the
//! op's ports (their names are the ports' names, their types the ports' types), its doc
//! comment is the op's doc, and what it returns is the op's output (a tuple: several). The
//! attribute writes the op's spec and its `Op` implementation, which reads every port for
//! the function, so no op body reads a port by its index; the function itself stays as it
//! is, callable and testable, and when it is a function of one to three floats it is also
//! the op's scalar kernel.
//!
//! ```ignore
//! /// Blend `a` to `b` by `t`.
//! #[op("math.lerp", out = "a + (b - a) t")]
//! pub fn lerp(
//!     #[input("start")] a: f64,
//!     #[input("end", default = 1.0)] b: f64,
//!     #[input("amount", default = 0.5, range = 0.0..=1.0)] t: f64,
//! ) -> f64 {
//!     a + (b - a) * t
//! }
//! // registry.register(LerpOp::new())
//! ```
//!
//! * `#[op("id", version = 2, purity = "clock", reads = "seed, time", out = "doc")]`; several
//!   outputs are named `outputs("lo" = "doc", "hi" = "doc")` and returned as a tuple.
//! * `#[input("doc", default = EXPR, range = A..=B, rule = EXPR)]` declares an input port;
//!   `#[param("doc", default = EXPR, range = ..., plan_time)]` a param (also a port: see
//!   `kiln_core::op::param_ports`); the range, declared here once, is what validation, the
//!   evaluators, `kiln ops` and the studio's sliders check and show.
//! * `#[input("doc", collective)]` makes a collective input (several wires queue into one
//!   list).
//! * An argument of type `&EvalContext` is the evaluation context (declare what the op reads
//!   with `reads`); one of type `&OpCall` the whole call.
//! * Returning `Result<T, OpError>` fails the node with that error, named by the evaluator.
//! * Polymorphic ops: `#[input("doc", ty = ValueType::Number)]` gives a port (a `&Value`
//!   argument) its declared type, `out_type = ValueType::Number` the output's, and
//!   `infer = f` (`fn(&[Option<ValueType>], &[Value]) -> Result<Vec<ValueType>, String>`) the
//!   output types from the input types; `kernel = f` is the float function the op applies
//!   when every input is a float (its scalar kernel, and for one or two inputs its column
//!   forms).
//! * `#[input("doc", lazy)]` with `next_lazy = f` (`fn(&OpCall, &[bool]) -> Result<Option<usize>,
//!   OpError>`) pulls inputs only when needed; `was_param` marks an input that older files
//!   set under `params`; `#[input("doc", catching_errors)]` receives an
//!   upstream error as a value; `hash_context = f` feeds what the op reads of the context
//!   into its key.
//! * `role = Role::Choice` sets the node's role, `params_rule = f` a rule over all the params
//!   together, `kernel_with = f` a kernel the params make (`fn(&[Option<ValueType>],
//!   &[Value]) -> Option<Kernel>`), `injective` and `delay` the spec's flags of those names.
//! * `#[op("id", signal)]`: the function builds the processor a streaming node runs (it
//!   returns a `SignalProc`, or a `Result` of one); signal inputs are `SignalIn` arguments (the
//!   constant a node was given; `feedback` marks one that may close a cycle through the op's
//!   delay), an argument of type `&SignalCall` gives the rate and the
//!   node's seed, and every rule is checked before the function runs.
//! * `#[op("id", per_pixel)]` (in `kiln-image`): the function appends the op's steps to an
//!   image field tape (`tape: &mut Tape`), image inputs are `Px` arguments (their pixel's
//!   registers; an input that takes an image or a number is an `Arg` argument with `ty = ...`,
//!   and `ports = NAMES` gives a `&[Arg]`) and it returns the output pixel's registers; the same function runs the op
//!   alone and fused with its neighbours (`Op::PER_PIXEL` is its entry in fusion's table).
//!
//! `docs/writing-ops.md` shows whole ops, compiled as doctests.
#![deny(missing_docs)]

mod attrs;
mod expand;

use proc_macro::TokenStream;

/// Write the op of a function (see the crate docs).
#[proc_macro_attribute]
pub fn op(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = syn::parse_macro_input!(attr as attrs::OpAttr);
    let f = syn::parse_macro_input!(item as syn::ItemFn);
    match expand::expand(attr, f) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}
