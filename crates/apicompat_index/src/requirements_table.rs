//! What the releases of packages the index has no surface for require: their `Requires-Dist`,
//! `Requires-Python` and the Pythons and platforms their wheels are for (a [`ReleaseHeader`]
//! each, no symbols). A project pinning `scipy==1.7.3` cannot have numpy 1.23 (scipy 1.7.3
//! requires `numpy<1.23.0,>=1.16.5`); one pinning `opencv-python==3.4.1.15` runs on Python 3.6
//! at most (its only files are wheels for cp27 - cp36). Built by `apicompat index requirements`
//! from the package index's file lists and the wheels' core metadata (PEP 658), embedded.
//!
//! ```text
//! "APICREQ" u8(FORMAT)    magic and format
//! lz4 (size prepended)    JSON: {"packages": {normalized name: [ReleaseHeader, oldest first]}}
//! ```

use std::collections::BTreeMap;

use apicompat_requirements::{normalize_name, parse_version, Version};
use serde::{Deserialize, Serialize};

use crate::{IndexError, ReleaseHeader};

pub const MAGIC: &[u8; 7] = b"APICREQ";
pub const FORMAT: u8 = 1;

/// Per package (normalized name), its releases, oldest first.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequirementsTable {
    pub packages: BTreeMap<String, Vec<ReleaseHeader>>,
}

impl RequirementsTable {
    /// Adds a package's releases (any order; those whose version does not parse are left out).
    pub fn insert(&mut self, name: &str, mut releases: Vec<ReleaseHeader>) {
        releases.retain(|r| parse_version(&r.version).is_ok());
        releases.sort_by_cached_key(|r| parse_version(&r.version).ok());
        self.packages.insert(normalize_name(name), releases);
    }

    /// The releases of distribution `name` (any spelling), oldest first, with their versions.
    pub fn releases(&self, name: &str) -> Option<(Vec<Version>, &[ReleaseHeader])> {
        let headers = self.packages.get(&normalize_name(name))?;
        let versions = headers
            .iter()
            .filter_map(|h| parse_version(&h.version).ok())
            .collect::<Vec<_>>();
        (versions.len() == headers.len()).then_some((versions, headers.as_slice()))
    }

    /// The bytes written (the same table gives the same bytes).
    pub fn to_bytes(&self) -> Result<Vec<u8>, IndexError> {
        let json = serde_json::to_vec(self).map_err(|e| IndexError::Invalid(e.to_string()))?;
        let mut out = MAGIC.to_vec();
        out.push(FORMAT);
        out.extend(lz4_flex::compress_prepend_size(&json));
        Ok(out)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<RequirementsTable, IndexError> {
        let body = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or_else(|| IndexError::Invalid("not a requirements table".into()))?;
        let (&format, packed) = body
            .split_first()
            .ok_or_else(|| IndexError::Invalid("truncated requirements table".into()))?;
        if format != FORMAT {
            return Err(IndexError::Invalid(format!(
                "requirements table format {format}, this build reads {FORMAT}"
            )));
        }
        // The size prefix is checked before anything is allocated for it.
        let size = packed
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| IndexError::Invalid("truncated requirements table".into()))?;
        if size > packed.len().saturating_mul(255) {
            return Err(IndexError::Invalid(
                "requirements table: impossible size".into(),
            ));
        }
        let json = lz4_flex::decompress_size_prepended(packed)
            .map_err(|e| IndexError::Invalid(format!("requirements table: {e}")))?;
        serde_json::from_slice(&json)
            .map_err(|e| IndexError::Invalid(format!("requirements table: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(version: &str, requires: &[&str]) -> ReleaseHeader {
        ReleaseHeader {
            version: version.into(),
            requires_dist: requires.iter().map(|s| s.to_string()).collect(),
            requires_python: Some(">=3.7,<3.11".into()),
            removed: BTreeMap::new(),
            wheel_pythons: vec!["3.7".into(), "3.8".into()],
            wheel_platforms: Vec::new(),
        }
    }

    #[test]
    fn round_trip_sorted_by_version_under_the_normalized_name() {
        let mut table = RequirementsTable::default();
        table.insert(
            "SciPy",
            vec![
                header("1.10.0", &["numpy<1.27.0,>=1.19.5"]),
                header("1.7.3", &["numpy (<1.23.0,>=1.16.5)"]),
                header("not a version", &[]),
            ],
        );
        let bytes = table.to_bytes().unwrap();
        assert_eq!(bytes, table.to_bytes().unwrap());
        let read = RequirementsTable::from_bytes(&bytes).unwrap();
        let (versions, headers) = read.releases("scipy").unwrap();
        let names: Vec<String> = versions.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["1.7.3", "1.10.0"]);
        assert_eq!(headers[0].requires_dist, ["numpy (<1.23.0,>=1.16.5)"]);
        assert!(read.releases("numpy").is_none());
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let mut table = RequirementsTable::default();
        table.insert("scipy", vec![header("1.7.3", &["numpy<1.23"])]);
        let bytes = table.to_bytes().unwrap();
        for cut in 0..bytes.len() {
            assert!(RequirementsTable::from_bytes(&bytes[..cut]).is_err());
        }
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(RequirementsTable::from_bytes(&huge).is_err());
        let mut flipped = bytes;
        let last = flipped.len() - 1;
        flipped[last] ^= 0xff;
        let _ = RequirementsTable::from_bytes(&flipped);
    }
}
