//! Whole-file downloads: the size and sha256 checks, and the tree built from the bytes.

use apicompat_archive::{ArchiveError, SourceTree};
use sha2::{Digest, Sha256};

use crate::http::{status_error, Fetcher};
use crate::{FetchError, ReleaseFile};

/// The lower-case hex sha256 of `data`, as package indexes give it.
pub fn sha256_hex(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn check_sha256(file: &ReleaseFile, data: &[u8]) -> Result<(), FetchError> {
    if let Some(expected) = &file.sha256 {
        let actual = sha256_hex(data);
        if &actual != expected {
            return Err(FetchError::Sha256Mismatch {
                url: file.url.clone(),
                expected: expected.clone(),
                actual,
            });
        }
    }
    Ok(())
}

/// Largest download accepted when the index gives no size.
pub(crate) const MAX_DOWNLOAD: u64 = 4 << 30;

pub(crate) fn download_whole(
    fetcher: &mut Fetcher,
    file: &ReleaseFile,
) -> Result<Vec<u8>, FetchError> {
    let max = file.size.unwrap_or(MAX_DOWNLOAD);
    let got = fetcher.get(&file.url, None, max)?;
    if got.status != 200 {
        return Err(status_error(&file.url, got.status));
    }
    finish_whole(file, got.body)
}

pub(crate) fn finish_whole(file: &ReleaseFile, body: Vec<u8>) -> Result<Vec<u8>, FetchError> {
    if let Some(size) = file.size {
        if body.len() as u64 != size {
            return Err(FetchError::Truncated {
                url: file.url.clone(),
                expected: size,
                received: body.len() as u64,
            });
        }
    }
    check_sha256(file, &body)?;
    Ok(body)
}

pub(crate) fn tree_from_bytes(file: &ReleaseFile, data: &[u8]) -> Result<SourceTree, FetchError> {
    let result = if file.is_wheel() {
        apicompat_archive::read_zip_bytes(&file.filename, data)
    } else {
        apicompat_archive::read_sdist_bytes(&file.filename, data)
    };
    result.map_err(|source| match source {
        ArchiveError::Zip { source, .. } if file.is_wheel() => FetchError::NotZip {
            url: file.url.clone(),
            detail: source.to_string(),
        },
        ArchiveError::UnknownFormat { detail, .. } if file.is_wheel() => FetchError::NotZip {
            url: file.url.clone(),
            detail,
        },
        source => FetchError::Archive {
            url: file.url.clone(),
            source,
        },
    })
}
