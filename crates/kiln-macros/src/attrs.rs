//! What the attributes say: the op's (`#[op("id", version = 2, ...)]`) and each port's
//! (`#[input("doc", default = 1.0)]`, `#[param("doc", default = 4, range = 1..=16,
//! plan_time)]`).

use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, LitInt, LitStr, Token};

/// Parse `, key ...` settings after an attribute's first value until the input ends, giving
/// each key and the stream to `each` (a trailing comma is allowed).
fn settings(
    input: ParseStream,
    mut each: impl FnMut(Ident, ParseStream) -> syn::Result<()>,
) -> syn::Result<()> {
    while !input.is_empty() {
        input.parse::<Token![,]>()?;
        if input.is_empty() {
            break;
        }
        let key: Ident = input.parse()?;
        each(key, input)?;
    }
    Ok(())
}

/// The value of a `key = value` setting, after its key.
fn value<T: Parse>(input: ParseStream) -> syn::Result<T> {
    input.parse::<Token![=]>()?;
    input.parse()
}

/// The op attribute.
pub struct OpAttr {
    pub id: LitStr,
    pub version: Option<LitInt>,
    pub purity: Option<LitStr>,
    pub reads: Option<LitStr>,
    /// `(name, doc)` of each output; `out = "doc"` names the one output `out`.
    pub outputs: Vec<(LitStr, LitStr)>,
    /// `out_type = EXPR`: the one output's type, when the Rust type does not say it (a
    /// `Value` returned as a `number`).
    pub out_type: Option<Expr>,
    /// `infer = path`: the output types from the input types (`Op::infer_outputs`).
    pub infer: Option<Expr>,
    /// `kernel = f`: the float function the op applies when every input is a float (the
    /// kernel and, for one or two inputs, its column forms).
    pub kernel: Option<Expr>,
    /// `next_lazy = path`: which lazy input to pull next (`Op::next_lazy`).
    pub next_lazy: Option<Expr>,
    /// `hash_context = path`: what the op reads of the context, into its key.
    pub hash_context: Option<Expr>,
    /// `injective`: distinct inputs give distinct outputs (see `OpSpec::injective`).
    pub injective: bool,
    /// `role = EXPR`: the node's role (`Role::Choice`, `Role::GraphOutput`, ...).
    pub role: Option<Expr>,
    /// `params_rule = f`: a rule over all the params together (`OpSpec::params_rule`).
    pub params_rule: Option<Expr>,
    /// `kernel_with = f`: the kernel chosen from the input types and params
    /// (`fn(&[Option<ValueType>], &[Value]) -> Option<Kernel>`), for a kernel the params make.
    pub kernel_with: Option<Expr>,
    /// `delay`: the op is a unit delay, the one place a cycle may close (see
    /// `OpSpec::delay`).
    pub delay: bool,
    /// What kind of op the function is.
    pub kind: Kind,
}

/// What kind of op a function is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A function of its ports' values: the op's `execute`.
    Value,
    /// `signal`: the function builds the processor a streaming node runs (a `SignalOp`).
    Signal,
    /// `per_pixel`: the function appends the op's steps to an image field tape, the op's
    /// whole definition both alone and fused with its neighbours.
    PerPixel,
}

impl Parse for OpAttr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let id: LitStr = input.parse()?;
        let mut attr = OpAttr {
            id,
            version: None,
            purity: None,
            reads: None,
            outputs: vec![],
            out_type: None,
            infer: None,
            kernel: None,
            next_lazy: None,
            hash_context: None,
            injective: false,
            delay: false,
            role: None,
            params_rule: None,
            kernel_with: None,
            kind: Kind::Value,
        };
        settings(input, |key, input| {
            match key.to_string().as_str() {
                "outputs" => {
                    let inner;
                    syn::parenthesized!(inner in input);
                    while !inner.is_empty() {
                        let name: LitStr = inner.parse()?;
                        let doc: LitStr = value(&inner)?;
                        attr.outputs.push((name, doc));
                        if !inner.is_empty() {
                            inner.parse::<Token![,]>()?;
                        }
                    }
                }
                "version" => attr.version = Some(value(input)?),
                "purity" => attr.purity = Some(value(input)?),
                "reads" => attr.reads = Some(value(input)?),
                "out_type" => attr.out_type = Some(value(input)?),
                "infer" => attr.infer = Some(value(input)?),
                "kernel" => attr.kernel = Some(value(input)?),
                "next_lazy" => attr.next_lazy = Some(value(input)?),
                "hash_context" => attr.hash_context = Some(value(input)?),
                "signal" => attr.kind = Kind::Signal,
                "injective" => attr.injective = true,
                "delay" => attr.delay = true,
                "role" => attr.role = Some(value(input)?),
                "params_rule" => attr.params_rule = Some(value(input)?),
                "kernel_with" => attr.kernel_with = Some(value(input)?),
                "per_pixel" => attr.kind = Kind::PerPixel,
                "out" => {
                    let doc: LitStr = value(input)?;
                    attr.outputs.push((LitStr::new("out", doc.span()), doc));
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown op setting `{other}`: expected version, purity, reads, out, outputs, out_type, infer, kernel, next_lazy, hash_context, injective, delay, role, params_rule, kernel_with, signal or per_pixel"
                        ),
                    ));
                }
            }
            Ok(())
        })?;
        Ok(attr)
    }
}

/// A port's attribute: its doc (a string, or a constant naming one shared by several
/// ops) and settings.
pub struct PortAttr {
    pub doc: Expr,
    pub default: Option<Expr>,
    pub rule: Option<Expr>,
    pub range: Option<syn::ExprRange>,
    pub plan_time: bool,
    /// A collective input (several wires queue into one list).
    pub collective: bool,
    /// A lazy input (pulled only when `next_lazy` asks for it).
    pub lazy: bool,
    /// An input that was a param in older files (which may still set it under `params`).
    pub was_param: bool,
    /// A feedback input of a signal op (it may close a cycle through the op's delay).
    pub feedback: bool,
    /// An input that receives error values instead of failing the node.
    pub catching_errors: bool,
    /// `ty = EXPR`: the port's type, when the Rust type does not say it (a `&Value` port
    /// that takes a `number`).
    pub ty: Option<Expr>,
    /// `ports = NAMES`: one input per name of `NAMES` (a `[&str; N]`), all alike, read
    /// together as a `&[Value]` slice (a gather's or a mixer's inputs).
    pub ports: Option<Expr>,
}

impl Parse for PortAttr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let doc: Expr = input.parse()?;
        let mut attr = PortAttr {
            doc,
            default: None,
            rule: None,
            range: None,
            plan_time: false,
            collective: false,
            lazy: false,
            feedback: false,
            was_param: false,
            catching_errors: false,
            ty: None,
            ports: None,
        };
        settings(input, |key, input| {
            match key.to_string().as_str() {
                "plan_time" => attr.plan_time = true,
                "collective" => attr.collective = true,
                "lazy" => attr.lazy = true,
                "feedback" => attr.feedback = true,
                "was_param" => attr.was_param = true,
                "catching_errors" => attr.catching_errors = true,
                "ty" => attr.ty = Some(value(input)?),
                "ports" => attr.ports = Some(value(input)?),
                "default" => attr.default = Some(value(input)?),
                "rule" => attr.rule = Some(value(input)?),
                "range" => attr.range = Some(value(input)?),
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown port setting `{other}`: expected default, range, rule, ty, ports, plan_time, collective, lazy, feedback, was_param or catching_errors"
                        ),
                    ));
                }
            }
            Ok(())
        })?;
        Ok(attr)
    }
}
