//! The tokens of a formula, each with the column (counted in characters from 1) it starts at.

use super::ExprError;

/// Longest formula accepted, in characters.
pub const MAX_FORMULA: usize = 4096;

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// A number.
    Num(f64),
    /// A name: a variable or a function.
    Name(String),
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// `,`.
    Comma,
    /// An operator: `+ - * / % ^ < > <= >=`.
    Op(&'static str),
}

/// Split `src` into tokens with their columns.
pub fn tokens(src: &str) -> Result<Vec<(Token, usize)>, ExprError> {
    let chars: Vec<char> = src.chars().collect();
    if chars.len() > MAX_FORMULA {
        return Err(ExprError::new(
            MAX_FORMULA + 1,
            format!("the formula is longer than {MAX_FORMULA} characters"),
        ));
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text: String = chars[start..i].iter().collect();
            let v: f64 = text
                .parse()
                .map_err(|_| ExprError::new(col, format!("`{text}` is not a number")))?;
            out.push((Token::Num(v), col));
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
            out.push((Token::Name(chars[start..i].iter().collect()), col));
            continue;
        }
        let two = chars.get(i + 1).copied();
        let (tok, len) = match (c, two) {
            ('(', _) => (Token::Open, 1),
            (')', _) => (Token::Close, 1),
            (',', _) => (Token::Comma, 1),
            ('<', Some('=')) => (Token::Op("<="), 2),
            ('>', Some('=')) => (Token::Op(">="), 2),
            ('<', _) => (Token::Op("<"), 1),
            ('>', _) => (Token::Op(">"), 1),
            ('+', _) => (Token::Op("+"), 1),
            ('-', _) => (Token::Op("-"), 1),
            ('*', _) => (Token::Op("*"), 1),
            ('/', _) => (Token::Op("/"), 1),
            ('%', _) => (Token::Op("%"), 1),
            ('^', _) => (Token::Op("^"), 1),
            _ => return Err(ExprError::new(col, format!("unexpected `{c}`"))),
        };
        out.push((tok, col));
        i += len;
    }
    Ok(out)
}
