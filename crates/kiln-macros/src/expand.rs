//! Writing the op of a function: the function itself (its port attributes taken off), a
//! struct holding the op's spec, and its `Op` implementation reading each port by the place
//! the macro gave it, so the function's author never names an index.

use crate::attrs::{Kind, OpAttr, PortAttr};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::{Expr, FnArg, Ident, ItemFn, LitStr, Pat, ReturnType, Type};

/// What an argument of the function is.
enum Role {
    Input(PortAttr),
    Param(PortAttr),
    /// `&EvalContext`: the evaluation context.
    Context,
    /// `&OpCall`: the whole call (the node's id for messages, the cancellation token).
    Call,
    /// `&SignalCall`: what a signal op's builder is given (the rate, the node's seed).
    SignalCall,
    /// `&mut Tape`: the field tape a per-pixel op appends its steps to.
    Tape,
}

struct Arg {
    name: Ident,
    ty: Type,
    role: Role,
}

/// The last path segment's name of a type, through one reference (`&EvalContext` →
/// `EvalContext`).
fn type_name(ty: &Type) -> Option<String> {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        t => t,
    };
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn is_f64(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.is_ident("f64"))
}

fn is_i64(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.is_ident("i64"))
}

/// The arguments of `f`, each with its role; the port attributes are taken off `f`.
fn arguments(f: &mut ItemFn) -> syn::Result<Vec<Arg>> {
    let mut args = vec![];
    for input in f.sig.inputs.iter_mut() {
        let FnArg::Typed(pt) = input else {
            return Err(syn::Error::new_spanned(
                input,
                "an op is a plain function: no `self`",
            ));
        };
        let Pat::Ident(pi) = &*pt.pat else {
            return Err(syn::Error::new_spanned(
                &pt.pat,
                "name each port with a plain identifier: it is the port's name",
            ));
        };
        let name = pi.ident.clone();
        let mut role = None;
        let mut kept = vec![];
        for a in pt.attrs.drain(..) {
            if a.path().is_ident("input") {
                role = Some(Role::Input(a.parse_args()?));
            } else if a.path().is_ident("param") {
                role = Some(Role::Param(a.parse_args()?));
            } else {
                kept.push(a);
            }
        }
        pt.attrs = kept;
        let role = match role {
            Some(r) => r,
            None if type_name(&pt.ty).as_deref() == Some("EvalContext") => Role::Context,
            None if type_name(&pt.ty).as_deref() == Some("OpCall") => Role::Call,
            None if type_name(&pt.ty).as_deref() == Some("SignalCall") => Role::SignalCall,
            None if type_name(&pt.ty).as_deref() == Some("Tape") => Role::Tape,
            None => {
                return Err(syn::Error::new_spanned(
                    &pt.pat,
                    format!(
                        "document port `{name}`: #[input(\"what it is\")] or #[param(\"what it is\", default = ...)]"
                    ),
                ));
            }
        };
        args.push(Arg {
            name,
            ty: (*pt.ty).clone(),
            role,
        });
    }
    Ok(args)
}

/// The op's doc: the function's doc comment, lines joined, paragraphs kept.
fn doc_of(f: &ItemFn) -> String {
    let mut lines = vec![];
    for a in &f.attrs {
        if let syn::Meta::NameValue(nv) = &a.meta
            && nv.path.is_ident("doc")
            && let Expr::Lit(l) = &nv.value
            && let syn::Lit::Str(s) = &l.lit
        {
            lines.push(s.value().trim().to_string());
        }
    }
    let mut doc = String::new();
    for l in lines {
        if l.is_empty() {
            doc.push_str("\n\n");
        } else {
            if !doc.is_empty() && !doc.ends_with('\n') {
                doc.push(' ');
            }
            doc.push_str(&l);
        }
    }
    doc.trim().to_string()
}

/// `Foo` of `foo` (snake case to camel case), then `Op`.
fn struct_name(f: &Ident) -> Ident {
    let mut s = String::new();
    let mut up = true;
    for c in f.to_string().chars() {
        if c == '_' {
            up = true;
        } else if up {
            s.extend(c.to_uppercase());
            up = false;
        } else {
            s.push(c);
        }
    }
    format_ident!("{}Op", s)
}

/// The port's default as a `Value`, when it has one.
fn default_value(ty: &Type, attr: &PortAttr) -> Option<TokenStream> {
    let d = attr.default.as_ref()?;
    Some(match (ty, type_name(ty).as_deref()) {
        (_, Some("str")) => quote!(::kiln_core::value::Value::str(#d)),
        // A per-pixel input that takes an image or a value defaults to a value.
        (_, Some("Arg")) => quote!(::kiln_core::op::port::IntoPort::into_port(#d)),
        // A signal input's default is a constant signal.
        (_, Some("SignalIn")) => quote!(::kiln_core::value::Value::Float((#d) as f64)),
        // A borrowed port (a list) takes an owned default (a `Vec`).
        (Type::Reference(_), _) => quote!(::kiln_core::op::port::IntoPort::into_port(#d)),
        _ => quote!(::kiln_core::op::port::IntoPort::into_port({ let d: #ty = #d; d })),
    })
}

/// The port's rule: `rule = ...` as written, or `range = a..=b` (an int range for an `i64`
/// port, a number range otherwise; `a..` is at least `a`).
fn rule_of(ty: &Type, attr: &PortAttr) -> syn::Result<Option<TokenStream>> {
    if let Some(r) = &attr.rule {
        return Ok(Some(quote!(#r)));
    }
    let Some(range) = &attr.range else {
        return Ok(None);
    };
    let lo = range.start.as_ref();
    let hi = range.end.as_ref();
    let closed = matches!(range.limits, syn::RangeLimits::Closed(_));
    Ok(Some(match (lo, hi, closed, is_i64(ty)) {
        (Some(lo), Some(hi), true, true) => {
            quote!(::kiln_core::op::Rule::Ints { min: #lo, max: #hi })
        }
        (Some(lo), None, _, true) => quote!(::kiln_core::op::Rule::at_least(#lo)),
        (Some(lo), Some(hi), true, false) => {
            quote!(::kiln_core::op::Rule::between((#lo) as f64, (#hi) as f64))
        }
        (Some(lo), None, _, false) => quote!(::kiln_core::op::Rule::Number {
            min: ::std::ops::Bound::Included((#lo) as f64),
            max: ::std::ops::Bound::Unbounded,
        }),
        _ => {
            return Err(syn::Error::new_spanned(
                range,
                "a range is `low..=high` or `low..`",
            ));
        }
    }))
}

/// The type inside `Result<T, _>`, when the function returns a `Result`.
fn result_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &seg.arguments else {
        return None;
    };
    match a.args.first()? {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// The op's purity as a `Purity` variant.
fn purity_variant(p: &LitStr) -> syn::Result<TokenStream> {
    Ok(match p.value().as_str() {
        "pure" => quote!(Pure),
        "clock" => quote!(Clock),
        "user-input" => quote!(UserInput),
        "stateful" => quote!(Stateful),
        "side-effect" => quote!(SideEffect),
        other => {
            return Err(syn::Error::new_spanned(
                p,
                format!(
                    "unknown purity `{other}`: pure, clock, user-input, stateful or side-effect"
                ),
            ));
        }
    })
}

/// The code checking a value `v` (of input `i`, port `name`) against its rule, inline: a
/// per-pixel op's builder runs fused, where nothing checked its inputs before.
fn inline_input_check(rule: &TokenStream, i: &TokenStream, name: &LitStr) -> TokenStream {
    quote! {
        {
            let rule: ::kiln_core::op::Rule = #rule;
            rule.check(v, &::kiln_core::op::RuleEnv::default()).map_err(|e| {
                ::kiln_core::op::OpError::input(#i, format!("input `{}`: {}", #name, e))
            })?;
        }
    }
}

/// The whole expansion.
pub fn expand(attr: OpAttr, mut f: ItemFn) -> syn::Result<TokenStream> {
    let args = arguments(&mut f)?;
    let doc = doc_of(&f);
    if doc.is_empty() {
        return Err(syn::Error::new_spanned(
            &f.sig.ident,
            "document the op with a doc comment on the function",
        ));
    }
    let kind = attr.kind;
    let delay = attr.delay;
    let fname = f.sig.ident.clone();
    let sname = struct_name(&fname);
    let vis = f.vis.clone();
    let id = &attr.id;
    let ret: Type = match &f.sig.output {
        ReturnType::Type(_, t) => (**t).clone(),
        ReturnType::Default => {
            return Err(syn::Error::new_spanned(
                &f.sig,
                "an op returns its output (or a tuple of outputs, or a Result of either)",
            ));
        }
    };
    let (outputs_ty, fallible) = match result_inner(&ret) {
        Some(inner) => (inner.clone(), true),
        None => (ret.clone(), false),
    };

    // The spec.
    let mut spec = quote!(::kiln_core::op::OpSpec::new(#id, #doc));
    if let Some(v) = &attr.version {
        spec = quote!(#spec.version(#v));
    }
    if let Some(p) = &attr.purity {
        let variant = purity_variant(p)?;
        spec = quote!(#spec.purity(::kiln_core::op::Purity::#variant));
    }
    if attr.injective {
        spec = quote!(#spec.injective());
    }
    if let Some(r) = &attr.role {
        spec = quote!(#spec.role(#r));
    }
    if let Some(r) = &attr.params_rule {
        spec = quote!(#spec.with_params_rule(#r));
    }
    if let Some(r) = &attr.reads {
        for field in r
            .value()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let c = Ident::new(&field.to_uppercase(), r.span());
            spec = quote!(#spec.reads(::kiln_core::op::Reads::#c));
        }
    }
    // Where each kind of op finds its inputs and params.
    let (inputs_at, params_at) = match kind {
        Kind::Value => (quote!(call.inputs), quote!(call.params)),
        Kind::Signal => (quote!(call.controls), quote!(call.params)),
        Kind::PerPixel => (quote!(args), quote!(params)),
    };
    let mut reads = vec![];
    // The index of the next input: a sum, as `ports = NAMES` inputs count `NAMES.len()`.
    let mut n_in = quote!(0usize);
    let mut n_par = 0usize;
    for a in &args {
        // `r#type` names the port `type`.
        let name = LitStr::new(&a.name.unraw().to_string(), a.name.span());
        let ty = &a.ty;
        // Bound under names of their own: a port may share the function's name.
        let vname = &format_ident!("port_{}", a.name.unraw());
        match &a.role {
            Role::Input(p) if p.ports.is_some() => {
                let doc = &p.doc;
                let names = &p.ports;
                let port_ty = match &p.ty {
                    Some(t) => quote!(#t),
                    None => quote!(::kiln_core::value::ValueType::Any),
                };
                let default = match &p.default {
                    Some(d) => quote!(::kiln_core::op::port::IntoPort::into_port(#d)),
                    None => quote!(::kiln_core::value::Value::Empty),
                };
                if p.rule.is_some() || p.range.is_some() || p.lazy {
                    return Err(syn::Error::new_spanned(
                        &a.name,
                        "`ports` inputs are plain optional inputs",
                    ));
                }
                let mut each =
                    quote!(::kiln_core::op::InputSpec::optional(name, #port_ty, #default, #doc));
                if p.catching_errors {
                    each = quote!(#each.catching_errors());
                }
                if p.was_param {
                    each = quote!(#each.was_param());
                }
                spec = quote!({
                    let mut spec = #spec;
                    for name in #names {
                        spec = spec.input(#each);
                    }
                    spec
                });
                let i = &n_in;
                reads.push(quote! {
                    let #vname: #ty = {
                        let n = #names.len();
                        #inputs_at.get(#i..#i + n).unwrap_or(&[])
                    };
                });
                n_in = quote!(#n_in + #names.len());
            }
            Role::Input(p) => {
                let doc = &p.doc;
                let is_px = kind == Kind::PerPixel && type_name(ty).as_deref() == Some("Px");
                // A per-pixel input that takes an image or a value: the builder's `Arg` as
                // it is (its port type given with `ty`).
                let is_arg = kind == Kind::PerPixel && type_name(ty).as_deref() == Some("Arg");
                if is_arg && p.ty.is_none() {
                    return Err(syn::Error::new_spanned(
                        &a.name,
                        "an `Arg` input takes an image or a value: give its port type with `ty = ...`",
                    ));
                }
                let port_ty = match (&p.ty, is_px) {
                    (Some(t), _) => quote!(#t),
                    (None, true) => quote!(::kiln_image::image::IMAGE_TYPE),
                    (None, false) => {
                        quote!(<#ty as ::kiln_core::op::port::FromPort>::port_type())
                    }
                };
                let mut input = match default_value(ty, p) {
                    Some(d) => {
                        quote!(::kiln_core::op::InputSpec::optional(#name, #port_ty, #d, #doc))
                    }
                    None => quote!(::kiln_core::op::InputSpec::required(#name, #port_ty, #doc)),
                };
                let rule = rule_of(ty, p)?;
                if let Some(r) = &rule {
                    input = quote!(#input.with_rule(#r));
                }
                if p.plan_time {
                    return Err(syn::Error::new_spanned(
                        &a.name,
                        "only a param is plan-time: #[param(..., plan_time)]",
                    ));
                }
                if p.collective {
                    input = quote!(#input.collective());
                }
                if p.lazy {
                    input = quote!(#input.lazy());
                }
                if p.feedback {
                    input = quote!(#input.feedback());
                }
                if p.was_param {
                    input = quote!(#input.was_param());
                }
                if p.catching_errors {
                    input = quote!(#input.catching_errors());
                }
                spec = quote!(#spec.input(#input));
                let i = &n_in;
                reads.push(match (kind, is_px) {
                    (Kind::PerPixel, false) if is_arg => quote! {
                        let #vname: #ty = args.get(#i).copied().ok_or_else(|| {
                            ::kiln_core::op::OpError::input(#i, "expected an image or a value, found nothing")
                        })?;
                    },
                    (Kind::PerPixel, true) => {
                        quote!(let #vname: #ty = ::kiln_image::per_pixel::pixels(args, #i)?;)
                    }
                    (Kind::PerPixel, false) => {
                        let check = rule
                            .as_ref()
                            .map(|r| inline_input_check(r, i, &name))
                            .unwrap_or_default();
                        quote! {
                            let #vname: #ty = {
                                let v = ::kiln_image::per_pixel::value(args, #i)?;
                                #check
                                ::kiln_core::op::port::input(::std::slice::from_ref(v), 0)
                                    .map_err(|e| ::kiln_core::op::OpError::input(#i, e.message))?
                            };
                        }
                    }
                    _ => quote!(let #vname: #ty = ::kiln_core::op::port::input(#inputs_at, #i)?;),
                });
                n_in = quote!(#n_in + 1usize);
            }
            Role::Param(p) => {
                let doc = &p.doc;
                let port_ty = match &p.ty {
                    Some(t) => quote!(#t),
                    None => quote!(<#ty as ::kiln_core::op::port::FromPort>::port_type()),
                };
                let mut param = match default_value(ty, p) {
                    Some(d) => quote!(::kiln_core::op::ParamSpec::new(#name, #port_ty, #d, #doc)),
                    None => quote!(::kiln_core::op::ParamSpec::required(#name, #port_ty, #doc)),
                };
                let rule = rule_of(ty, p)?;
                if let Some(r) = &rule {
                    param = quote!(#param.with_rule(#r));
                }
                if p.plan_time {
                    param = quote!(#param.plan_time());
                }
                if p.collective || p.lazy || p.feedback || p.catching_errors {
                    return Err(syn::Error::new_spanned(
                        &a.name,
                        "only an input is collective, lazy, feedback or catching errors",
                    ));
                }
                spec = quote!(#spec.param(#param));
                let i = n_par;
                reads
                    .push(quote!(let #vname: #ty = ::kiln_core::op::port::param(#params_at, #i)?;));
                if let Some(r) = &rule {
                    reads.push(match kind {
                        // A signal op checks every rule first; a per-pixel builder has no
                        // spec at hand.
                        Kind::Signal => quote!(),
                        Kind::PerPixel => quote! {
                            {
                                let rule: ::kiln_core::op::Rule = #r;
                                if let Some(v) = params.get(#i) {
                                    rule.check(v, &::kiln_core::op::RuleEnv::default())
                                        .map_err(|e| ::kiln_core::op::OpError::param(#i, e.to_string()))?;
                                }
                            }
                        },
                        Kind::Value => quote!(::kiln_core::op::port::check_param(&self.spec, call.params, #i)?;),
                    });
                }
                n_par += 1;
            }
            Role::Context => reads.push(match kind {
                Kind::PerPixel => quote!(let #vname: #ty = ctx;),
                _ => quote!(let #vname: #ty = call.ctx;),
            }),
            Role::Call | Role::SignalCall | Role::Tape => {
                let ok = matches!(
                    (&a.role, kind),
                    (Role::Call, Kind::Value)
                        | (Role::SignalCall, Kind::Signal)
                        | (Role::Tape, Kind::PerPixel)
                );
                if !ok {
                    return Err(syn::Error::new_spanned(
                        &a.name,
                        "`&OpCall` belongs to an op, `&SignalCall` to a `signal` op and `&mut Tape` to a `per_pixel` op",
                    ));
                }
                let src = match a.role {
                    Role::Tape => quote!(tape),
                    _ => quote!(call),
                };
                reads.push(quote!(let #vname: #ty = #src;));
            }
        }
    }
    let names: Vec<Ident> = args
        .iter()
        .map(|a| format_ident!("port_{}", a.name.unraw()))
        .collect();
    let out_names: Vec<LitStr> = attr.outputs.iter().map(|(n, _)| n.clone()).collect();
    let out_docs: Vec<LitStr> = attr.outputs.iter().map(|(_, d)| d.clone()).collect();
    let (out_names, out_docs) = if out_names.is_empty() {
        (
            vec![LitStr::new("out", Span::call_site())],
            vec![LitStr::new("the result", Span::call_site())],
        )
    } else {
        (out_names, out_docs)
    };
    let n_out = out_names.len();
    let call_fn = quote!(#fname(#(#names),*));
    let result = if fallible {
        quote!(::kiln_core::op::port::Fallible(#call_fn))
    } else {
        call_fn.clone()
    };
    // The output types: what the attribute says, else the returned Rust type's.
    let types = match (&attr.out_type, kind) {
        (Some(t), _) => quote!(vec![#t; #n_out]),
        (None, Kind::Signal) => quote!(vec![::kiln_core::value::ValueType::Signal; #n_out]),
        (None, Kind::PerPixel) => quote!(vec![::kiln_image::image::IMAGE_TYPE]),
        (None, Kind::Value) => quote!(<#outputs_ty as ::kiln_core::op::port::IntoOutputs>::types()),
    };

    // The kernel: `kernel = f` as given, or the function itself when it is a function of one
    // to three float inputs giving a float (`execute` and the kernel then call the very same
    // function). An input with a rule has none: the kernel path runs no rule.
    let floats_only = args.iter().all(|a| {
        matches!(&a.role, Role::Input(p) if p.rule.is_none() && p.range.is_none()) && is_f64(&a.ty)
    });
    let n_inputs = args
        .iter()
        .filter(|a| matches!(a.role, Role::Input(_)))
        .count();
    let kernel_fn = match &attr.kernel {
        Some(k) => Some(quote!(#k)),
        None if kind == Kind::Value && floats_only && !fallible && is_f64(&ret) => {
            Some(quote!(#fname))
        }
        None => None,
    };
    let mut extra = vec![];
    if let Some(k) = kernel_fn {
        let (variant, columns) = match n_inputs {
            1 => (quote!(Unary), Some(quote!(::kiln_core::unary_columns!(#k)))),
            2 => (
                quote!(Binary),
                Some(quote!(::kiln_core::binary_columns!(#k))),
            ),
            3 => (quote!(Ternary), None),
            _ => {
                return Err(syn::Error::new_spanned(
                    &fname,
                    "a kernel is a float function of the op's one to three inputs",
                ));
            }
        };
        extra.push(quote! {
            fn kernel(
                &self,
                _inputs: &[Option<::kiln_core::value::ValueType>],
                _params: &[::kiln_core::value::Value],
            ) -> Option<::kiln_core::op::Kernel> {
                Some(::kiln_core::op::Kernel::#variant(#k))
            }
        });
        // Column forms only for a kernel given explicitly: those ops run in batches.
        if let (Some(c), Some(_)) = (columns, &attr.kernel) {
            extra.push(quote! {
                fn columns(
                    &self,
                    _inputs: &[Option<::kiln_core::value::ValueType>],
                    _params: &[::kiln_core::value::Value],
                ) -> Option<::kiln_core::op::Columns> {
                    Some(#c)
                }
            });
        }
    }
    if let Some(k) = &attr.kernel_with {
        if !extra.is_empty() {
            return Err(syn::Error::new_spanned(
                k,
                "one kernel: `kernel` or `kernel_with`",
            ));
        }
        extra.push(quote! {
            fn kernel(
                &self,
                inputs: &[Option<::kiln_core::value::ValueType>],
                params: &[::kiln_core::value::Value],
            ) -> Option<::kiln_core::op::Kernel> {
                #k(inputs, params)
            }
        });
    }
    if let Some(i) = &attr.infer {
        extra.push(quote! {
            fn infer_outputs(
                &self,
                inputs: &[Option<::kiln_core::value::ValueType>],
                params: &[::kiln_core::value::Value],
            ) -> ::std::result::Result<Vec<::kiln_core::value::ValueType>, String> {
                #i(inputs, params)
            }
        });
    }
    if let Some(n) = &attr.next_lazy {
        extra.push(quote! {
            fn next_lazy(
                &self,
                call: &::kiln_core::op::OpCall<'_>,
                pulled: &[bool],
            ) -> ::std::result::Result<Option<usize>, ::kiln_core::op::OpError> {
                #n(call, pulled)
            }
        });
    }
    if let Some(h) = &attr.hash_context {
        extra.push(quote! {
            fn hash_context(
                &self,
                params: &[::kiln_core::value::Value],
                ctx: &::kiln_core::context::EvalContext,
                h: &mut ::kiln_core::key::KeyHasher,
            ) {
                #h(params, ctx, h)
            }
        });
    }
    if kind != Kind::Value && !extra.is_empty() {
        return Err(syn::Error::new_spanned(
            &fname,
            "kernel, kernel_with, infer, next_lazy and hash_context belong to a value op",
        ));
    }

    let struct_doc = format!(
        "The op `{}`, written as the function [`{fname}`].",
        id.value()
    );
    let imp = match kind {
        Kind::Value => quote! {
            impl ::kiln_core::op::Op for #sname {
                fn spec(&self) -> &::kiln_core::op::OpSpec {
                    &self.spec
                }
                fn execute(
                    &self,
                    call: &::kiln_core::op::OpCall<'_>,
                    out: &mut [::kiln_core::value::Value],
                ) -> ::std::result::Result<(), ::kiln_core::op::OpError> {
                    #(#reads)*
                    ::kiln_core::op::port::IntoOutputs::write(#result, out)
                }
                #(#extra)*
            }
        },
        Kind::Signal => {
            let built = if fallible {
                quote!(#call_fn?)
            } else {
                call_fn.clone()
            };
            quote! {
                impl ::kiln_core::signal::SignalOp for #sname {
                    fn spec(&self) -> &::kiln_core::op::OpSpec {
                        &self.spec
                    }
                    fn build(
                        &self,
                        call: &::kiln_core::signal::SignalCall<'_>,
                    ) -> ::std::result::Result<
                        ::std::boxed::Box<dyn ::kiln_core::signal::SignalProc>,
                        ::kiln_core::op::OpError,
                    > {
                        // The rules first, so a processor built outside a stream refuses
                        // what a stream does.
                        call.check_rules(&self.spec)?;
                        #(#reads)*
                        Ok(::std::boxed::Box::new(#built))
                    }
                }
            }
        }
        Kind::PerPixel => {
            let built = if fallible {
                quote!(#call_fn)
            } else {
                quote!(Ok(#call_fn))
            };
            quote! {
                impl #sname {
                    /// The op's builder: its steps appended to `tape`, given its inputs
                    /// (an image input's pixel registers) and params.
                    #vis fn build<'a>(
                        tape: &mut ::kiln_image::field::Tape<'a>,
                        args: &[::kiln_image::per_pixel::Arg<'_>],
                        params: &[::kiln_core::value::Value],
                        ctx: &::kiln_core::context::EvalContext,
                    ) -> ::std::result::Result<::kiln_image::field::Px, ::kiln_core::op::OpError> {
                        let _ = (&args, &params, &ctx);
                        #(#reads)*
                        #built
                    }
                    /// The op's id and builder, for fusion's table.
                    #vis const PER_PIXEL: (&'static str, ::kiln_image::per_pixel::Build) =
                        (#id, Self::build);
                }
                impl ::kiln_core::op::Op for #sname {
                    fn spec(&self) -> &::kiln_core::op::OpSpec {
                        &self.spec
                    }
                    fn execute(
                        &self,
                        call: &::kiln_core::op::OpCall<'_>,
                        out: &mut [::kiln_core::value::Value],
                    ) -> ::std::result::Result<(), ::kiln_core::op::OpError> {
                        ::kiln_image::per_pixel::exec(call, out, Self::build)
                    }
                }
            }
        }
    };
    Ok(quote! {
        #[allow(unused_variables)]
        #f

        #[doc = #struct_doc]
        #vis struct #sname {
            spec: ::kiln_core::op::OpSpec,
        }

        impl #sname {
            /// The op's id.
            #[allow(dead_code)]
            #vis const ID: &'static str = #id;

            /// The op, declared from its function.
            #vis fn new() -> Self {
                let types: Vec<::kiln_core::value::ValueType> = #types;
                assert_eq!(
                    types.len(),
                    #n_out,
                    "op `{}`: one output name per output",
                    #id
                );
                let mut spec = #spec;
                spec.delay = #delay;
                let names: [&'static str; #n_out] = [#(#out_names),*];
                let docs: [&'static str; #n_out] = [#(#out_docs),*];
                for ((name, doc), ty) in names.into_iter().zip(docs).zip(types) {
                    spec = spec.output(::kiln_core::op::OutputSpec::new(name, ty, doc));
                }
                #sname { spec }
            }
        }

        impl ::std::default::Default for #sname {
            fn default() -> Self {
                Self::new()
            }
        }

        #imp
    })
}
