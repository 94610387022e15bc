//! `check --add-noqa`: writes `# noqa: AC001` on each line with a finding, as Ruff's
//! `--add-noqa` does. An existing `# noqa: CODES` comment on the line gets the new codes
//! merged in (`# noqa: E501` becomes `# noqa: E501, AC001`); a code already listed is not
//! added again, so a second run changes nothing. A line whose end lies inside a string
//! (the first lines of a triple-quoted string) or that ends in a `\` continuation cannot
//! take a comment: it is refused and reported.

use std::collections::{BTreeMap, BTreeSet};

use ruff_python_ast::token::TokenKind;
use ruff_source_file::LineIndex;
use ruff_text_size::{Ranged, TextSize};

/// What [`add_noqa`] did to one file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Edit {
    /// The new text (the old one when nothing changed).
    pub text: String,
    /// Codes added, counted per line and code.
    pub added: usize,
    /// 1-based lines that cannot take a comment.
    pub refused: Vec<u32>,
}

/// Adds `# noqa` codes to `text`: `wanted` maps 1-based lines to the codes to silence there.
pub fn add_noqa(text: &str, wanted: &BTreeMap<u32, BTreeSet<String>>) -> Edit {
    let index = LineIndex::from_source_text(text);
    let line_of = |offset: TextSize| u32::try_from(index.line_index(offset).get()).unwrap_or(0);
    let parsed =
        ruff_python_parser::parse_unchecked_source(text, crate::files::source_type_of(text));
    // Lines whose end is inside a string, and each line's comment (the last one).
    let mut inside: BTreeSet<u32> = BTreeSet::new();
    let mut comments: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    let mut open: Vec<TextSize> = Vec::new();
    for token in parsed.tokens().iter() {
        let range = token.range();
        let span = match token.kind() {
            TokenKind::Comment => {
                comments.insert(
                    line_of(range.start()),
                    (range.start().to_usize(), range.end().to_usize()),
                );
                None
            }
            TokenKind::FStringStart | TokenKind::TStringStart => {
                open.push(range.start());
                None
            }
            TokenKind::FStringEnd | TokenKind::TStringEnd => {
                open.pop().map(|start| (start, range.end()))
            }
            TokenKind::String => Some((range.start(), range.end())),
            _ => None,
        };
        if let Some((start, end)) = span {
            let (first, last) = (line_of(start), line_of(end));
            inside.extend(first..last);
        }
    }
    drop(parsed);

    let mut edit = Edit::default();
    // (byte offset, text to insert or replace) edits, applied back to front.
    let mut changes: Vec<(usize, usize, String)> = Vec::new();
    for (&line, codes) in wanted {
        let Some(start) = line.checked_sub(1).and_then(|l| {
            let l = ruff_source_file::OneIndexed::from_zero_indexed(usize::try_from(l).ok()?);
            (l.get() <= index.line_count()).then(|| index.line_start(l, text).to_usize())
        }) else {
            continue;
        };
        let rest = &text[start..];
        let body_len = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let body = &rest[..body_len];
        if inside.contains(&line) || body.trim_end().ends_with('\\') {
            edit.refused.push(line);
            continue;
        }
        match comments.get(&line).and_then(|&(s, e)| noqa_in(text, s, e)) {
            Some((list_start, list_end, present)) => {
                let new: Vec<&String> = codes
                    .iter()
                    .filter(|c| !present.iter().any(|p| p.eq_ignore_ascii_case(c)))
                    .collect();
                if new.is_empty() {
                    continue;
                }
                edit.added += new.len();
                let mut all: Vec<String> = present;
                all.extend(new.into_iter().cloned());
                changes.push((list_start, list_end, format!(": {}", all.join(", "))));
            }
            None => {
                // After the code, or after another comment (`# type: ignore  # noqa: AC001`);
                // trailing blanks are dropped.
                let end = start + body.trim_end().len();
                edit.added += codes.len();
                let list: Vec<&str> = codes.iter().map(String::as_str).collect();
                changes.push((
                    end,
                    start + body_len,
                    format!("  # noqa: {}", list.join(", ")),
                ));
            }
        }
    }
    changes.sort_by_key(|(s, _, _)| std::cmp::Reverse(*s));
    let mut out = text.to_string();
    for (s, e, with) in changes {
        out.replace_range(s..e, &with);
    }
    edit.text = out;
    edit
}

/// In the comment at `start..end`: the `noqa` directive's code list (its byte range from the
/// end of `noqa`, to be replaced) and its codes; None without a `noqa` directive. A bare
/// `# noqa` silences everything: it is returned with no range to change (no codes to add).
fn noqa_in(text: &str, start: usize, end: usize) -> Option<(usize, usize, Vec<String>)> {
    let comment = text.get(start..end)?;
    let lower = comment.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find('#') {
        let part_start = from + at + 1;
        let part_end = lower[part_start..]
            .find('#')
            .map_or(lower.len(), |n| part_start + n);
        let part = &lower[part_start..part_end];
        let trimmed = part.trim_start();
        if let Some(after) = trimmed.strip_prefix("noqa") {
            let noqa_end = part_start + (part.len() - trimmed.len()) + 4;
            let list = after.trim_start();
            let Some(codes) = list.strip_prefix(':') else {
                // A bare `# noqa`: every code is already silenced.
                return Some((0, 0, all_marker()));
            };
            let present: Vec<String> = codes
                .split([',', ' '])
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(|c| c.to_ascii_uppercase())
                .collect();
            let list_end = part_end - (part.len() - part.trim_end().len());
            return Some((start + noqa_end, start + list_end, present));
        }
        from = part_end;
        if from >= lower.len() {
            break;
        }
    }
    None
}

/// The code list of a bare `# noqa`: it covers every code.
fn all_marker() -> Vec<String> {
    crate::rules::ALL
        .iter()
        .map(|r| r.code.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted(items: &[(u32, &str)]) -> BTreeMap<u32, BTreeSet<String>> {
        let mut m: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
        for (l, c) in items {
            m.entry(*l).or_default().insert(c.to_string());
        }
        m
    }

    #[test]
    fn adds_merges_and_is_idempotent() {
        let src = "import torch.a\nimport torch.b  # noqa: E501\nx = 1  # a note\ny = 2  # noqa\n";
        let w = wanted(&[(1, "AC001"), (2, "AC001"), (3, "AC002"), (4, "AC002")]);
        let e = add_noqa(src, &w);
        assert_eq!(
            e.text,
            "import torch.a  # noqa: AC001\nimport torch.b  # noqa: E501, AC001\nx = 1  # a note  # noqa: AC002\ny = 2  # noqa\n"
        );
        assert_eq!(e.added, 3);
        let again = add_noqa(&e.text, &w);
        assert_eq!(again.text, e.text);
        assert_eq!(again.added, 0);
    }

    #[test]
    fn refuses_lines_inside_strings_and_continuations() {
        let src = "s = \"\"\"a\nb\"\"\"  \nf = f'''{x}\nz'''\nt = 1 + \\\n  2\n";
        let w = wanted(&[
            (1, "AC001"),
            (2, "AC001"),
            (3, "AC001"),
            (5, "AC001"),
            (6, "AC001"),
        ]);
        let e = add_noqa(src, &w);
        assert_eq!(e.refused, [1, 3, 5]);
        assert_eq!(
            e.text,
            "s = \"\"\"a\nb\"\"\"  # noqa: AC001\nf = f'''{x}\nz'''\nt = 1 + \\\n  2  # noqa: AC001\n"
        );
    }
}
