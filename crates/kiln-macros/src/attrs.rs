//! What the attributes say: the op's (`#[op("id", version = 2, ...)]`) and each port's
//! (`#[input("doc", default = 1.0)]`, `#[param("doc", default = 4, range = 1..=16,
//! plan_time)]`).

use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, LitInt, LitStr, Token};

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
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            match key.to_string().as_str() {
                "outputs" => {
                    let inner;
                    syn::parenthesized!(inner in input);
                    while !inner.is_empty() {
                        let name: LitStr = inner.parse()?;
                        inner.parse::<Token![=]>()?;
                        let doc: LitStr = inner.parse()?;
                        attr.outputs.push((name, doc));
                        if !inner.is_empty() {
                            inner.parse::<Token![,]>()?;
                        }
                    }
                }
                "version" => {
                    input.parse::<Token![=]>()?;
                    attr.version = Some(input.parse()?);
                }
                "purity" => {
                    input.parse::<Token![=]>()?;
                    attr.purity = Some(input.parse()?);
                }
                "reads" => {
                    input.parse::<Token![=]>()?;
                    attr.reads = Some(input.parse()?);
                }
                "out" => {
                    input.parse::<Token![=]>()?;
                    let doc: LitStr = input.parse()?;
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
        }
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
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            match key.to_string().as_str() {
                "plan_time" => attr.plan_time = true,
                "collective" => attr.collective = true,
                "default" => {
                    input.parse::<Token![=]>()?;
                    attr.default = Some(input.parse()?);
                }
                "rule" => {
                    input.parse::<Token![=]>()?;
                    attr.rule = Some(input.parse()?);
                }
                "range" => {
                    input.parse::<Token![=]>()?;
                    attr.range = Some(input.parse()?);
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown port setting `{other}`: expected default, range, rule, plan_time or collective"
                        ),
                    ));
                }
            }
        }
        Ok(attr)
    }
}
