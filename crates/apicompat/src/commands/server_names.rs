//! The names an open document defines and mentions, read from its text without parsing: the
//! server re-checks together the open documents that one defines a name of and the other
//! mentions (`check` matches callers, project classes and version helpers across files by
//! name). Over-approximates: a name in a string or comment counts as mentioned.

use std::collections::HashSet;

/// Names defined (functions, classes, names assigned at module level; dunder names left out, as
/// Python calls them) and identifiers mentioned anywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    defines: HashSet<String>,
    mentions: HashSet<String>,
}

impl Names {
    pub fn of(text: &str) -> Names {
        let mut names = Names::default();
        for line in text.lines() {
            let top_level = !line.starts_with([' ', '\t']);
            let t = line.trim_start();
            let t = t.strip_prefix("async ").map_or(t, str::trim_start);
            if let Some(rest) = t.strip_prefix("def ").or(t.strip_prefix("class ")) {
                names.define(identifier(rest.trim_start()));
            } else if top_level {
                for target in assigned(t) {
                    names.define(target);
                }
            }
        }
        let mut rest = text;
        while !rest.is_empty() {
            let start = rest.find(is_start).unwrap_or(rest.len());
            rest = &rest[start..];
            let id = identifier(rest);
            if id.is_empty() {
                // A character that starts no identifier; skip it.
                let skip = rest.chars().next().map_or(rest.len(), char::len_utf8);
                rest = &rest[skip..];
                continue;
            }
            names.mentions.insert(id.to_string());
            rest = &rest[id.len()..];
        }
        names
    }

    fn define(&mut self, name: &str) {
        let dunder = name.starts_with("__") && name.ends_with("__");
        if !name.is_empty() && !dunder {
            self.defines.insert(name.to_string());
        }
    }

    /// Both documents' names.
    pub fn union(&self, other: &Names) -> Names {
        Names {
            defines: self.defines.union(&other.defines).cloned().collect(),
            mentions: self.mentions.union(&other.mentions).cloned().collect(),
        }
    }

    /// Whether one of the two defines a name the other mentions.
    pub fn links(&self, other: &Names) -> bool {
        self.defines.iter().any(|d| other.mentions.contains(d))
            || other.defines.iter().any(|d| self.mentions.contains(d))
    }
}

/// The names a module-level statement assigns: `A = ...`, `A: T = ...`, `A: T`, `A += ...`,
/// `A, B = ...` (not `A[i] = ...`, `A.x = ...`, comparisons or calls).
fn assigned(t: &str) -> Vec<&str> {
    let first = identifier(t);
    let keyword = matches!(
        first,
        "else" | "try" | "finally" | "except" | "lambda" | "match" | "case"
    );
    if !first.is_empty() && !keyword && t[first.len()..].trim_start().starts_with(':') {
        return vec![first];
    }
    let bytes = t.as_bytes();
    let Some(eq) = (0..bytes.len()).find(|&i| {
        bytes[i] == b'='
            && bytes.get(i + 1) != Some(&b'=')
            && !matches!(
                i.checked_sub(1).map(|j| bytes[j]),
                Some(b'=' | b'<' | b'>' | b'!')
            )
    }) else {
        return Vec::new();
    };
    let lhs = t[..eq].trim_end();
    let lhs = lhs.trim_end_matches(['+', '-', '*', '/', '%', '&', '|', '^', '@']);
    let parts: Vec<&str> = lhs.split(',').map(str::trim).collect();
    if parts.iter().all(|p| identifier(p) == *p) {
        parts.into_iter().filter(|p| !p.is_empty()).collect()
    } else {
        Vec::new()
    }
}

fn is_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// The identifier at the start of `s` (empty when there is none).
fn identifier(s: &str) -> &str {
    if !s.starts_with(is_start) {
        return "";
    }
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defines_and_mentions() {
        let a = Names::of(
            "import torch\nVERSION: str = '1'\nLIMIT = 3\nif LIMIT == 3:\n    pass\nelse:\n    pass\n\
             def helper(x):\n    return x\nclass Model:\n    def __init__(self):\n        \
             self.w = 1\n    async def run(self): ...\n",
        );
        for d in ["VERSION", "LIMIT", "helper", "Model", "run"] {
            assert!(a.defines.contains(d), "{d}");
        }
        assert!(!a.defines.contains("__init__"));
        assert!(!a.defines.contains("if") && !a.defines.contains("else"));
        assert!(!a.defines.contains("w"));
        let b = Names::of("from pkg.a import helper\nhelper(torch.ones(1))\n");
        let c = Names::of("import numpy\nnumpy.zeros(2)\n");
        assert!(a.links(&b) && b.links(&a));
        assert!(!a.links(&c) && !c.links(&b));
        assert!(a.union(&c).links(&b));
        assert_eq!(Names::of("é_x = 1\n").defines.len(), 1);
        let d = Names::of("a, b = 1, 2\nc += 1\nd[0] = 1\ne.x = 2\nf(x=1)\ng <= 3\n").defines;
        let mut d: Vec<&str> = d.iter().map(String::as_str).collect();
        d.sort_unstable();
        assert_eq!(d, ["a", "b", "c"]);
    }
}
