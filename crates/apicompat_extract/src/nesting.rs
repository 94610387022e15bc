//! How deep a Python file's syntax tree can nest, estimated from its tokens before parsing.
//!
//! ruff's parser grows its own stack, but everything after it recurses on the tree: the
//! walkers (`facts.rs`, ruff's `visitor::walk_expr`) and even dropping the tree. 500k `not`s
//! or 5M `1+1+...` terms make a tree that deep, and the process would die with a stack
//! overflow (exit 134). [`check`] bounds the depth from the token stream, iteratively, so a
//! file that could nest deeper than [`MAX_NESTING_ESTIMATE`] is never parsed.
//!
//! The estimate is an upper bound of the tree's depth (up to a small constant factor): the
//! indentation depth, plus the bracket depth, plus on each open bracket level the operators
//! and expression keywords since the last separator (`,`, `=`, `;`, end of line) on that
//! level. Every node that nests another (a binary or unary operation, an attribute, a call, a
//! subscript, a conditional, a lambda) owns at least one such token, and a separator only
//! ever separates siblings. Real code stays far below the limit: the deepest torch 2.5 file
//! estimates at a few dozen.

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::{ExceptHandler, Stmt};
use ruff_python_parser::{lexer, Mode};

/// Files whose estimated nesting exceeds this are not parsed (see the module docs). The
/// threads that walk syntax trees have stacks sized for it (256 MiB, also in debug builds).
pub const MAX_NESTING_ESTIMATE: usize = 5_000;

/// A file that nests too deep to be parsed safely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooDeep {
    /// The limit.
    pub limit: usize,
}

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "nested too deep to read (more than {} levels of brackets, operators or indentation); not parsed",
            self.limit
        )
    }
}

#[derive(Default)]
struct Level {
    /// Operators and expression keywords since the last separator on this level.
    count: usize,
    /// Between `lambda` and its `:`: commas and `=` separate parameters, not siblings.
    in_lambda_params: bool,
}

/// Checks that `source` nests at most `limit` levels deep, by the estimate of the module docs.
pub fn check(source: &str, limit: usize) -> Result<(), TooDeep> {
    let mut lexer = lexer::lex(source, Mode::Module);
    check_kinds(std::iter::from_fn(|| Some(lexer.next_token())), limit)
}

/// The same estimate over tokens already lexed (a parse's [`ruff_python_parser::Parsed::tokens`]),
/// for a file small enough to parse before its depth is known: [`PARSE_FIRST_BYTES`].
pub fn check_tokens(tokens: &ruff_python_ast::token::Tokens, limit: usize) -> Result<(), TooDeep> {
    let kinds = tokens.iter().map(|t| t.kind());
    check_kinds(kinds.chain(std::iter::once(TokenKind::EndOfFile)), limit)
}

/// A file of at most this many bytes may be parsed first and its depth read from the parse's
/// tokens (one lexing pass instead of two). Its tree is at most this deep (every level of
/// nesting owns at least one byte), which the threads that parse can drop: a deeper tree
/// from a larger file could not be, so larger files are estimated before they are parsed.
pub const PARSE_FIRST_BYTES: usize = 128 * 1024;

fn check_kinds(mut kinds: impl Iterator<Item = TokenKind>, limit: usize) -> Result<(), TooDeep> {
    let mut levels: Vec<Level> = vec![Level::default()];
    // Sum of the counts of all levels, kept up to date.
    let mut sum = 0usize;
    let mut indent = 0usize;
    let mut prev = TokenKind::Newline;
    loop {
        let kind = kinds.next().unwrap_or(TokenKind::EndOfFile);
        let top = levels.len() - 1;
        match kind {
            TokenKind::EndOfFile => return Ok(()),
            TokenKind::Comment | TokenKind::NonLogicalNewline | TokenKind::Unknown => continue,
            TokenKind::Indent => indent += 1,
            TokenKind::Dedent => indent = indent.saturating_sub(1),
            TokenKind::Newline => {
                levels.truncate(1);
                levels[0] = Level::default();
                sum = 0;
            }
            TokenKind::Lpar
            | TokenKind::Lsqb
            | TokenKind::Lbrace
            | TokenKind::FStringStart
            | TokenKind::TStringStart => {
                // A call or subscript (`f(x)(y)`, `a[0][0]`) nests inside what it follows.
                let postfix = matches!(
                    prev,
                    TokenKind::Name
                        | TokenKind::Rpar
                        | TokenKind::Rsqb
                        | TokenKind::Rbrace
                        | TokenKind::String
                        | TokenKind::FStringEnd
                        | TokenKind::TStringEnd
                );
                if postfix {
                    levels[top].count += 1;
                    sum += 1;
                }
                levels.push(Level::default());
            }
            TokenKind::Rpar
            | TokenKind::Rsqb
            | TokenKind::Rbrace
            | TokenKind::FStringEnd
            | TokenKind::TStringEnd
                if top > 0 =>
            {
                sum -= levels[top].count;
                levels.truncate(top);
            }
            TokenKind::Rpar
            | TokenKind::Rsqb
            | TokenKind::Rbrace
            | TokenKind::FStringEnd
            | TokenKind::TStringEnd => {}
            TokenKind::Comma | TokenKind::Semi | TokenKind::Equal
                if !levels[top].in_lambda_params =>
            {
                sum -= levels[top].count;
                levels[top].count = 0;
            }
            TokenKind::Comma | TokenKind::Semi | TokenKind::Equal => {}
            TokenKind::Lambda => {
                levels[top].in_lambda_params = true;
                levels[top].count += 1;
                sum += 1;
            }
            TokenKind::Colon => {
                levels[top].in_lambda_params = false;
                levels[top].count += 1;
                sum += 1;
            }
            k if is_augmented_assignment(k) => {
                sum -= levels[top].count;
                levels[top].count = 0;
            }
            k if k.is_operator()
                || matches!(
                    k,
                    TokenKind::If
                        | TokenKind::Else
                        | TokenKind::Await
                        | TokenKind::Yield
                        | TokenKind::For
                        | TokenKind::Async
                ) =>
            {
                levels[top].count += 1;
                sum += 1;
            }
            _ => {}
        }
        prev = kind;
        if indent + levels.len() + sum > limit {
            return Err(TooDeep { limit });
        }
    }
}

fn is_augmented_assignment(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::PlusEqual
            | TokenKind::MinusEqual
            | TokenKind::StarEqual
            | TokenKind::SlashEqual
            | TokenKind::PercentEqual
            | TokenKind::AmperEqual
            | TokenKind::VbarEqual
            | TokenKind::CircumflexEqual
            | TokenKind::LeftShiftEqual
            | TokenKind::RightShiftEqual
            | TokenKind::DoubleStarEqual
            | TokenKind::DoubleSlashEqual
            | TokenKind::AtEqual
    )
}

/// The statement lists directly inside a compound statement (not a function's or class's):
/// the walks that look for statements at any depth of a body recurse through these.
pub fn nested_bodies(stmt: &Stmt) -> Vec<&[Stmt]> {
    match stmt {
        Stmt::If(s) => std::iter::once(s.body.as_slice())
            .chain(s.elif_else_clauses.iter().map(|c| c.body.as_slice()))
            .collect(),
        Stmt::For(s) => vec![&s.body, &s.orelse],
        Stmt::While(s) => vec![&s.body, &s.orelse],
        Stmt::With(s) => vec![&s.body],
        Stmt::Try(s) => std::iter::once(s.body.as_slice())
            .chain(s.handlers.iter().map(|h| {
                let ExceptHandler::ExceptHandler(h) = h;
                h.body.as_slice()
            }))
            .chain([s.orelse.as_slice(), s.finalbody.as_slice()])
            .collect(),
        Stmt::Match(s) => s.cases.iter().map(|c| c.body.as_slice()).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate_ok(src: &str, limit: usize) -> bool {
        check(src, limit).is_ok()
    }

    #[test]
    fn deep_constructs_are_caught() {
        let n = 1000;
        for src in [
            format!("x = {}1{}\n", "(".repeat(n), ")".repeat(n)),
            format!("x = {}1\n", "not ".repeat(n)),
            format!("x = {}1\n", "-".repeat(n)),
            format!("x = 1{}\n", "+1".repeat(n)),
            format!("x = a{}\n", ".b".repeat(n)),
            format!("x = f{}\n", "()".repeat(n)),
            format!("x = {}0\n", "lambda a, b=1: ".repeat(n)),
            format!("x = {}0\n", "1 if c else ".repeat(n)),
            format!("x = 2{}\n", "**2".repeat(n)),
        ] {
            assert!(!estimate_ok(&src, 500), "not caught: {}", &src[..40]);
        }
    }

    #[test]
    fn wide_code_is_not_deep() {
        let items: Vec<String> = (0..10_000).map(|i| format!("-{i}")).collect();
        let table = format!("TABLE = [{}]\n", items.join(", "));
        let calls: String = (0..10_000).map(|i| format!("f(x{i}, y=-{i})\n")).collect();
        let cond = format!(
            "if {}:\n    pass\n",
            (0..100)
                .map(|i| format!("a{i}"))
                .collect::<Vec<_>>()
                .join(" and ")
        );
        for src in [table, calls, cond] {
            assert!(estimate_ok(&src, 500), "refused: {}", &src[..40]);
        }
    }
}

#[cfg(test)]
mod drop_depth {
    use super::*;

    /// The deepest trees a file of [`PARSE_FIRST_BYTES`] can parse to are refused from their
    /// tokens, and dropping them fits in a quarter of the parsing threads' stacks (256 MiB).
    #[test]
    fn deepest_small_files_are_refused_and_dropped() {
        let n = PARSE_FIRST_BYTES - 16;
        let sources = [
            format!("x = {}1\n", "-".repeat(n)),
            format!("x = {}1\n", "not ".repeat(n / 4)),
            format!("x = {}{}\n", "[".repeat(n / 2), "]".repeat(n / 2)),
            format!("x = f{}\n", "()".repeat(n / 2)),
            format!("x = a{}\n", ".b".repeat(n / 2)),
            format!("x = a{}\n", "[0]".repeat(n / 3)),
            format!("x = 1{}\n", "**1".repeat(n / 3)),
            format!("x = {}0\n", "lambda: ".repeat(n / 8)),
            format!("x = {}1\n", "await ".repeat(n / 6)),
        ];
        for src in sources {
            let head = src[..12].to_string();
            let refused = std::thread::Builder::new()
                .stack_size(64 * 1024 * 1024)
                .spawn(move || {
                    let parsed = ruff_python_parser::parse_unchecked(
                        &src,
                        ruff_python_parser::ParseOptions::from(Mode::Module),
                    );
                    let refused = check_tokens(parsed.tokens(), MAX_NESTING_ESTIMATE).is_err();
                    drop(parsed);
                    refused
                })
                .expect("thread")
                .join()
                .expect("no overflow");
            assert!(refused, "not refused: {head}");
        }
    }
}
