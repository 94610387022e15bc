//! `# noqa: AC001` and `# apicompat: ignore[AC001]` comments.

use std::collections::HashMap;

/// What comments on one line silence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Silence {
    All,
    Codes(Vec<String>),
}

impl Silence {
    pub fn covers(&self, code: &str) -> bool {
        match self {
            Silence::All => true,
            Silence::Codes(codes) => codes.iter().any(|c| code.starts_with(c.as_str())),
        }
    }
}

/// The suppression comments of one file, by 1-based line.
#[derive(Debug, Clone, Default)]
pub struct Suppressions {
    pub lines: HashMap<u32, Vec<Silence>>,
    /// `# apicompat: ignore-file`.
    pub whole_file: bool,
}

impl Suppressions {
    pub fn add_comment(&mut self, line: u32, comment: &str) {
        // A comment may hold several directives: `# type: ignore  # noqa: AC001`.
        for part in comment.split('#').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(s) = parse_directive(part) {
                if s == Directive::File {
                    self.whole_file = true;
                } else if let Directive::Line(silence) = s {
                    self.lines.entry(line).or_default().push(silence);
                }
            }
        }
    }

    pub fn silences(&self, lines: &[u32], code: &str) -> bool {
        self.whole_file
            || lines.iter().any(|l| {
                self.lines
                    .get(l)
                    .is_some_and(|v| v.iter().any(|s| s.covers(code)))
            })
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Directive {
    Line(Silence),
    File,
}

fn codes(list: &str) -> Vec<String> {
    list.split([',', ' '])
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty())
        .collect()
}

fn parse_directive(text: &str) -> Option<Directive> {
    let lower = text.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("noqa") {
        let rest = rest.trim_start();
        return Some(Directive::Line(match rest.strip_prefix(':') {
            Some(list) if !codes(list).is_empty() => {
                Silence::Codes(codes(&text[text.len() - list.len()..]))
            }
            _ => Silence::All,
        }));
    }
    let rest = lower.strip_prefix("apicompat:")?.trim_start();
    if rest.starts_with("ignore-file") {
        return Some(Directive::File);
    }
    let rest = rest.strip_prefix("ignore")?.trim_start();
    Some(Directive::Line(match rest.strip_prefix('[') {
        Some(list) => Silence::Codes(codes(list.split(']').next().unwrap_or(""))),
        None => Silence::All,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives() {
        let mut s = Suppressions::default();
        s.add_comment(1, "# noqa");
        s.add_comment(2, "# noqa: AC001, AC003");
        s.add_comment(3, "# apicompat: ignore[AC002]");
        s.add_comment(4, "# type: ignore # apicompat: ignore");
        s.add_comment(5, "# a note about noqa");
        assert!(s.silences(&[1], "AC002"));
        assert!(s.silences(&[2], "AC003"));
        assert!(!s.silences(&[2], "AC002"));
        assert!(s.silences(&[3], "AC002"));
        assert!(!s.silences(&[3], "AC001"));
        assert!(s.silences(&[4], "AC001"));
        assert!(!s.silences(&[5], "AC001"));
        assert!(!s.whole_file);
        s.add_comment(9, "# apicompat: ignore-file");
        assert!(s.whole_file);
    }
}
