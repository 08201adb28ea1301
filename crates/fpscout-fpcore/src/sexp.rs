//! S-expression reading on top of the `sise` crate, keeping byte spans so errors can point at source text.

use crate::{FpCoreError, Pos};

/// One S-expression with the byte span it covers in the original text.
#[derive(Debug, Clone, PartialEq)]
pub struct Sexp {
    pub kind: SexpKind,
    /// Byte offset of the first character in the original text.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SexpKind {
    /// An atom exactly as written in the original text (strings keep their quotes).
    Atom(String),
    List(Vec<Sexp>),
}

impl Sexp {
    pub fn atom(&self) -> Option<&str> {
        match &self.kind {
            SexpKind::Atom(a) => Some(a),
            SexpKind::List(_) => None,
        }
    }

    pub fn list(&self) -> Option<&[Sexp]> {
        match &self.kind {
            SexpKind::List(l) => Some(l),
            SexpKind::Atom(_) => None,
        }
    }

    /// The source text of this expression, for error messages and reports.
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.start..self.end).unwrap_or("")
    }
}

/// Rewrites the text so that `sise` accepts it without moving any byte:
/// sise knows neither square brackets (FPCore allows `[x e]` in `let`/`while`),
/// nor `^` or `|` in symbols, nor newlines or non-ASCII inside strings and comments.
/// Every byte it cannot take becomes one ASCII byte, so offsets into the rewritten
/// text are offsets into the original, and atoms are read back from the original.
fn sanitize(src: &str) -> String {
    #[derive(PartialEq)]
    enum St {
        Code,
        Str,
        Comment,
    }
    let mut out = Vec::with_capacity(src.len() + 2);
    let mut st = St::Code;
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let mapped = match st {
            St::Code => match b {
                b'[' => b'(',
                b']' => b')',
                b'"' => {
                    st = St::Str;
                    b'"'
                }
                b';' => {
                    st = St::Comment;
                    b';'
                }
                b'(' | b')' | b' ' | b'\n' => b,
                // Tabs and carriage returns are whitespace to FPCore.
                b'\t' | b'\r' | 0x0c => b' ',
                _ if sise::is_atom_chr(b as char) => b,
                // Anything else is kept inside an atom; the real text is read from `src`.
                _ => b'~',
            },
            St::Str => match b {
                b'\\' if i + 1 < bytes.len() && bytes[i + 1].is_ascii_graphic() => {
                    // Keep an escape pair together so `\"` does not end the string.
                    out.push(b'\\');
                    i += 1;
                    bytes[i]
                }
                b'\\' => b'_',
                b'"' => {
                    st = St::Code;
                    b'"'
                }
                b' '..=b'~' => b,
                _ => b'_',
            },
            St::Comment => match b {
                b'\n' => {
                    st = St::Code;
                    b'\n'
                }
                b' '..=b'~' => b,
                _ => b'_',
            },
        };
        out.push(mapped);
        i += 1;
    }
    // Bytes were mapped one for one to ASCII, so this cannot fail.
    String::from_utf8(out).unwrap_or_default()
}

/// Deepest list nesting accepted; real FPCores stay far below.
const MAX_DEPTH: usize = 256;

/// Parses every top-level S-expression of `src`.
pub fn parse_all(src: &str) -> Result<Vec<Sexp>, FpCoreError> {
    // sise reads one root expression: wrap the file in a list. The newline lets a
    // final comment end before the closing parenthesis. Offsets are shifted back by one.
    let wrapped = format!("({}\n)", sanitize(src));
    let mut parser = sise::Parser::new(&wrapped);
    let mut stack: Vec<(usize, Vec<Sexp>)> = Vec::new();
    let syntax = |pos: usize, msg: String| FpCoreError::Syntax {
        pos: Pos::at(src, pos.saturating_sub(1).min(src.len())),
        msg,
    };
    loop {
        let item = parser.next_item().map_err(|e| {
            let pos = match e {
                sise::ParseError::IllegalChr { pos, .. }
                | sise::ParseError::IllegalChrInString { pos, .. }
                | sise::ParseError::IllegalChrInComment { pos, .. }
                | sise::ParseError::UnfinishedString { pos }
                | sise::ParseError::UnexpectedEof { pos }
                | sise::ParseError::UnexpectedRightParen { pos }
                | sise::ParseError::ExpectedEof { pos } => pos,
            };
            // Our own closing parenthesis being reached early means a `)` too many.
            let msg = match e {
                sise::ParseError::UnexpectedEof { .. } => "unbalanced parentheses".to_string(),
                sise::ParseError::ExpectedEof { .. } => "unexpected `)`".to_string(),
                _ => e.to_string(),
            };
            syntax(pos, msg)
        })?;
        match item {
            sise::ParsedItem::ListStart(pos) => {
                // The translator recurses on nesting: bound it so no input can overflow the stack.
                if stack.len() > MAX_DEPTH {
                    return Err(syntax(pos, format!("nesting deeper than {MAX_DEPTH}")));
                }
                stack.push((pos.saturating_sub(1), Vec::new()))
            }
            sise::ParsedItem::Atom(a, pos) => {
                let start = pos - 1;
                let end = (start + a.len()).min(src.len());
                let text = src.get(start..end).unwrap_or(a).to_string();
                match stack.last_mut() {
                    Some((_, items)) => items.push(Sexp {
                        kind: SexpKind::Atom(text),
                        start,
                        end,
                    }),
                    None => return Err(syntax(pos, "unexpected atom".into())),
                }
            }
            sise::ParsedItem::ListEnd(pos) => {
                let Some((start, items)) = stack.pop() else {
                    return Err(syntax(pos, "unexpected `)`".into()));
                };
                match stack.last_mut() {
                    Some((_, parent)) => parent.push(Sexp {
                        kind: SexpKind::List(items),
                        start,
                        end: pos.min(src.len()),
                    }),
                    None => {
                        if pos != src.len() + 2 {
                            return Err(syntax(pos, "unexpected `)`".into()));
                        }
                        parser.finish().map_err(|e| syntax(0, e.to_string()))?;
                        return Ok(items);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_brackets() {
        let src = "; c\n(a [b 1/3]) \"s t\" x^2";
        let all = parse_all(src).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].text(src), "(a [b 1/3])");
        let inner = &all[0].list().unwrap()[1];
        assert_eq!(inner.text(src), "[b 1/3]");
        assert_eq!(inner.list().unwrap()[1].atom(), Some("1/3"));
        assert_eq!(all[2].atom(), Some("x^2"));
    }

    #[test]
    fn unbalanced() {
        assert!(matches!(
            parse_all("(a (b)"),
            Err(FpCoreError::Syntax { .. })
        ));
        let e = parse_all("(a))").unwrap_err();
        assert!(e.to_string().contains("1:4"), "{e}");
        let deep = format!(
            "(FPCore (x) {}x{})",
            "(- ".repeat(100_000),
            ")".repeat(100_000)
        );
        assert!(parse_all(&deep)
            .unwrap_err()
            .to_string()
            .contains("nesting"));
    }
}
