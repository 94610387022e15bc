//! Byte offset -> 1-based line number.

pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Self { starts }
    }

    /// 1-based line of a byte offset (offsets past the end give the last line).
    pub(crate) fn line(&self, offset: usize) -> u32 {
        let idx = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        u32::try_from(idx + 1).unwrap_or(u32::MAX)
    }
}

/// Decodes file bytes as UTF-8 (lossily), without a leading byte-order mark.
pub(crate) fn decode(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.strip_prefix('\u{feff}').unwrap_or(&text).to_string()
}
