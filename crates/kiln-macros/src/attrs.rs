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
                "out" => {
                    let doc: LitStr = value(input)?;
                    attr.outputs.push((LitStr::new("out", doc.span()), doc));
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown op setting `{other}`: expected version, purity, reads, out or outputs"
                        ),
                    ));
                }
            }
            Ok(())
        })?;
        Ok(attr)
    }
}

/// A port's attribute: its doc and settings.
pub struct PortAttr {
    pub doc: LitStr,
    pub default: Option<Expr>,
    pub rule: Option<Expr>,
    pub range: Option<syn::ExprRange>,
    pub plan_time: bool,
    /// A collective input (several wires queue into one list).
    pub collective: bool,
}

impl Parse for PortAttr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let doc: LitStr = input.parse()?;
        let mut attr = PortAttr {
            doc,
            default: None,
            rule: None,
            range: None,
            plan_time: false,
            collective: false,
        };
        settings(input, |key, input| {
            match key.to_string().as_str() {
                "plan_time" => attr.plan_time = true,
                "collective" => attr.collective = true,
                "default" => attr.default = Some(value(input)?),
                "rule" => attr.rule = Some(value(input)?),
                "range" => attr.range = Some(value(input)?),
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown port setting `{other}`: expected default, range, rule, plan_time or collective"
                        ),
                    ));
                }
            }
            Ok(())
        })?;
        Ok(attr)
    }
}
