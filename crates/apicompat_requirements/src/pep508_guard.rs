//! Inputs on which `pep508_rs` 0.9.2 panics, refused before it sees them (found by fuzzing,
//! `docs/fuzzing.md`):
//!
//! - a name or extra that ends in `-`, `_` or `.` and is followed by anything (`foo- >=1`,
//!   `foo-;`, `foo[gpu-]`): its parser stops the name there and then fails the stricter name
//!   validation (`expect`);
//! - a marker with a non-ASCII character (`extra == "a" é`, `extra != "r "b"é`): looking for
//!   the next `and`/`or` it slices the text by a count of characters, not bytes. PEP 508
//!   markers are ASCII.
//!
//! Both are errors for pep508 anyway when they do not panic.

use std::str::FromStr;

use pep508_rs::{Pep508Error, Pep508ErrorSource, Pep508Url, Requirement};

/// `Requirement::from_str`, without the panic.
pub(crate) fn requirement<T: Pep508Url>(text: &str) -> Result<Requirement<T>, Pep508Error<T>> {
    let error = |start: usize, ch: char, message: String| Pep508Error {
        message: Pep508ErrorSource::String(message),
        start,
        len: ch.len_utf8(),
        input: text.to_string(),
    };
    if let Some((start, ch)) = bad_name_end(text) {
        return Err(error(
            start,
            ch,
            format!("Package and extra names must end with an alphanumeric character, not '{ch}'"),
        ));
    }
    if let Some(semicolon) = text.find(';') {
        if let Some((at, ch)) = non_ascii(&text[semicolon..]) {
            return Err(error(semicolon + at, ch, not_ascii(ch)));
        }
    }
    Requirement::from_str(text)
}

/// A marker (`python_version < "3.10"`) that pep508 may parse without panicking, or the
/// error.
pub(crate) fn marker(text: &str) -> Result<(), String> {
    match non_ascii(text) {
        Some((_, ch)) => Err(not_ascii(ch)),
        None => Ok(()),
    }
}

fn not_ascii(ch: char) -> String {
    format!("Unexpected character '{ch}' in the marker (PEP 508 markers are ASCII)")
}

/// The first character that is not ASCII. PEP 508 markers are ASCII, quoted values too
/// (`python_str_c`); a quote does not protect what follows it from pep508's slicing
/// (`extra != "r "b"\u{e9}`).
fn non_ascii(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|(_, c)| !c.is_ascii())
}

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Where a name or extra that pep508 would panic on ends: (byte offset, char).
fn bad_name_end(text: &str) -> Option<(usize, char)> {
    let start = text.len() - text.trim_start().len();
    let rest = &text[start..];
    if !rest.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    let name_len = rest.find(|c: char| !name_char(c)).unwrap_or(rest.len());
    let last = rest[..name_len].chars().next_back()?;
    if !last.is_ascii_alphanumeric() {
        // At the very end pep508 reports it itself.
        return (name_len < rest.len()).then_some((start + name_len - 1, last));
    }
    // Extras, scanned as pep508's `parse_extras_cursor` does: `name [a, b-]`.
    let after = &rest[name_len..];
    let bracket = after.trim_start();
    let extras = bracket.strip_prefix('[')?;
    let base = start + name_len + (after.len() - bracket.len()) + 1;
    let mut chars = extras.char_indices().peekable();
    let eat_whitespace = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
    };
    eat_whitespace(&mut chars);
    let mut first = true;
    loop {
        match chars.peek() {
            Some((_, ']')) => return None,
            Some((_, ',')) if !first => {
                chars.next();
            }
            Some(_) if !first => return None,
            Some((_, ',')) => return None,
            _ => {}
        }
        eat_whitespace(&mut chars);
        match chars.next() {
            Some((_, c)) if c.is_ascii_alphanumeric() => {}
            _ => return None,
        }
        let mut last = None;
        while let Some((i, c)) = chars.next_if(|(_, c)| name_char(*c)) {
            last = Some((i, c));
        }
        if matches!(chars.peek(), Some((_, c)) if *c != ',' && *c != ']' && !c.is_whitespace()) {
            return None;
        }
        eat_whitespace(&mut chars);
        if let Some((i, c)) = last.filter(|(_, c)| !c.is_ascii_alphanumeric()) {
            return Some((base + i, c));
        }
        first = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Requirement, String> {
        requirement(text).map_err(|e| e.message.to_string())
    }

    #[test]
    fn names_and_extras_ending_in_punctuation_are_errors_not_panics() {
        for text in [
            "foo- >=1",
            "foo-;python_version>'3'",
            "foo_[x]",
            "a.\u{e9}",
            "foo[gpu-]",
            "foo [a, b_ ]>=1",
            "foo[a,b.,c]",
            "colossalai[a- pip:p",
            "foo[a-",
            "foo[a-\u{e9}",
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains("alphanumeric"), "{text}: {err}");
        }
    }

    #[test]
    fn markers_with_non_ascii_characters_are_errors_not_panics() {
        for text in [
            "foo; extra == 'cuda' and extra != \"rocm\"\u{fffd}",
            "foo ; python_version > '3' \u{e9}t\u{e9}",
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains("are ASCII"), "{text}: {err}");
        }
        assert!(marker("extra == 'a' \u{e9}").is_err());
        assert!(marker("extra == 'cuda' and extra != \"r \"b\"\u{e9}").is_err());
        assert!(marker("extra == 'cuda' and python_version > '3.9'").is_ok());
        assert!(parse("foo \u{e9}").is_err());
    }

    #[test]
    fn valid_requirements_still_parse() {
        for text in [
            "foo",
            "foo-bar[a-b, c_d]>=1.0; extra == 'x-y'",
            "  torch==2.3",
            "pkg @ https://example.com/pkg-1.0.tar.gz",
        ] {
            assert!(parse(text).is_ok(), "{text}");
        }
        // Errors pep508 reports itself are left to it.
        assert!(parse("foo-").unwrap_err().contains("must end with"));
        assert!(parse("foo[").is_err());
    }
}
