//! The functions and classes a file may define, found before it is parsed.

/// The names after `def` (or `async def`) and `class` at the start of a line: a scan of the
/// text, before parsing, of the functions a file may define (a class's calls run its
/// `__init__`). The keywords are found with a vectorized substring search; each hit is kept
/// when only blanks (or `async` and blanks) precede it on its line.
pub(crate) fn def_names(bytes: &[u8]) -> Vec<String> {
    let blank = |b: u8| b != b'\n' && b.is_ascii_whitespace();
    // Whether only blanks precede `at` on its line.
    let line_start = |at: usize| {
        bytes[..at]
            .iter()
            .rev()
            .find(|&&b| !blank(b))
            .is_none_or(|&b| b == b'\n')
    };
    let mut found: Vec<(usize, String)> = Vec::new();
    for keyword in [&b"def "[..], &b"class "[..]] {
        for at in memchr::memmem::find_iter(bytes, keyword) {
            let before = bytes[..at].iter().rposition(|&b| !blank(b));
            let starts = match before {
                None => true,
                Some(i) if bytes[i] == b'\n' => true,
                // `async def`: the blanks after `async` start with a space.
                Some(i) => {
                    keyword[0] == b'd'
                        && bytes[i + 1] == b' '
                        && i >= 4
                        && &bytes[i - 4..=i] == b"async"
                        && line_start(i - 4)
                }
            };
            if !starts {
                continue;
            }
            let rest = &bytes[at + keyword.len()..];
            let rest = rest.trim_ascii_start();
            let end = rest
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80))
                .unwrap_or(rest.len());
            if let Ok(name) = std::str::from_utf8(&rest[..end]) {
                if !name.is_empty() {
                    found.push((at, name.to_string()));
                }
            }
        }
    }
    found.sort_unstable_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, name)| name).collect()
}

#[cfg(test)]
mod tests {
    use super::def_names;

    #[test]
    fn def_names_reads_line_starts_only() {
        let src = b"def a(x):\n    pass\nclass B(C):\n  async  def c(self): ...\n\tasync def d():\nx = 'def e'\nundef f\nsubclass g\n# def h\nasync\tdef i(): ...\n  def  j(): pass\r\n\x0cclass K: ...\ndef\nclass ";
        assert_eq!(def_names(src), ["a", "B", "c", "d", "j", "K"]);
        assert!(def_names(b"").is_empty());
    }
}
