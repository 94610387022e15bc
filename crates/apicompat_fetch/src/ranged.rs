//! Wheels read with HTTP Range requests: the tail, the central directory, then the wanted
//! members in merged ranges, each checked against its CRC32.

use apicompat_archive::zipread::{self, CentralEntry, EocdResult, ZipError};
use apicompat_archive::{SourceTree, Wanted};

use crate::download::{finish_whole, MAX_DOWNLOAD};
use crate::http::{status_error, ByteRange, Fetcher};
use crate::{FetchError, ReleaseFile};

pub(crate) enum Ranged {
    Tree(SourceTree),
    /// The server ignored the Range header and sent the whole (verified) file.
    WholeFile(Vec<u8>),
}

/// The tail of a file of unknown size (`bytes=-N`): `(tail, its offset, file size)`, or
/// `Err(body)` when the server answered 200 with the whole file.
#[allow(clippy::type_complexity)]
fn get_tail_unknown_size(
    fetcher: &mut Fetcher,
    file: &ReleaseFile,
) -> Result<Result<(Vec<u8>, u64, u64), Vec<u8>>, FetchError> {
    let url = &file.url;
    fetcher.start_bar(zipread::TAIL_LEN, &file.filename);
    let got = fetcher.get(
        url,
        Some(ByteRange::Suffix(zipread::TAIL_LEN)),
        MAX_DOWNLOAD,
    )?;
    match got.status {
        206 => match got.content_range {
            Some((a, b, Some(total))) if b + 1 == total && got.body.len() as u64 == b - a + 1 => {
                Ok(Ok((got.body, a, total)))
            }
            other => Err(FetchError::BadResponse {
                url: url.clone(),
                detail: format!(
                    "asked the last {} bytes, got Content-Range {other:?} with {} bytes",
                    zipread::TAIL_LEN,
                    got.body.len()
                ),
            }),
        },
        200 => Ok(Err(finish_whole(file, got.body)?)),
        s => Err(status_error(url, s)),
    }
}

/// One ranged read; `Err(Ok(body))` when the server answered 200 with the whole file.
fn get_range(
    fetcher: &mut Fetcher,
    file: &ReleaseFile,
    size: u64,
    start: u64,
    end_exclusive: u64,
) -> Result<Result<Vec<u8>, Vec<u8>>, FetchError> {
    let url = &file.url;
    let last = end_exclusive.saturating_sub(1);
    let got = fetcher.get(url, Some(ByteRange::Span(start, last)), size)?;
    match got.status {
        206 => {
            let Some((a, b, total)) = got.content_range else {
                return Err(FetchError::BadResponse {
                    url: url.clone(),
                    detail: "206 without a valid Content-Range".to_string(),
                });
            };
            if let Some(total) = total {
                if total != size {
                    return Err(FetchError::SizeMismatch {
                        url: url.clone(),
                        expected: size,
                        actual: total,
                    });
                }
            }
            if a != start || b != last || got.body.len() as u64 != end_exclusive - start {
                return Err(FetchError::BadResponse {
                    url: url.clone(),
                    detail: format!(
                        "asked bytes {start}-{last}, got Content-Range {a}-{b} with {} bytes",
                        got.body.len()
                    ),
                });
            }
            Ok(Ok(got.body))
        }
        200 => Ok(Err(finish_whole(file, got.body)?)),
        416 => Err(FetchError::SizeMismatch {
            url: url.clone(),
            expected: size,
            actual: got
                .content_range
                .and_then(|(_, _, t)| t)
                .unwrap_or_default(),
        }),
        s => Err(status_error(url, s)),
    }
}

fn zip_error(file: &ReleaseFile, e: ZipError) -> FetchError {
    FetchError::NotZip {
        url: file.url.clone(),
        detail: e.to_string(),
    }
}

/// Reads a wheel through Range requests: tail, central directory, then merged member ranges
/// (the members `want` asks for).
pub(crate) fn fetch_wheel_ranged(
    fetcher: &mut Fetcher,
    file: &ReleaseFile,
    want: fn(&str) -> Wanted,
) -> Result<Ranged, FetchError> {
    let (tail, tail_start, size) = match file.size {
        Some(size) => {
            let tail_len = zipread::TAIL_LEN.min(size);
            fetcher.start_bar(tail_len, &file.filename);
            match get_range(fetcher, file, size, size - tail_len, size)? {
                Ok(t) => (t, size - tail_len, size),
                Err(whole) => return Ok(Ranged::WholeFile(whole)),
            }
        }
        None => match get_tail_unknown_size(fetcher, file)? {
            Ok(t) => t,
            Err(whole) => return Ok(Ranged::WholeFile(whole)),
        },
    };
    let mut fetched = tail.len() as u64;
    let loc = match zipread::find_eocd(&tail, tail_start).map_err(|e| zip_error(file, e))? {
        EocdResult::Found(loc) => loc,
        EocdResult::NeedZip64Record { offset } => {
            let end = (offset + zipread::ZIP64_RECORD_LEN).min(size);
            let rec = match get_range(fetcher, file, size, offset, end)? {
                Ok(r) => r,
                Err(whole) => return Ok(Ranged::WholeFile(whole)),
            };
            fetched += end - offset;
            zipread::parse_zip64_eocd(&rec).map_err(|e| zip_error(file, e))?
        }
    };
    let cd_end = loc
        .offset
        .checked_add(loc.size)
        .filter(|e| *e <= size)
        .ok_or_else(|| FetchError::NotZip {
            url: file.url.clone(),
            detail: format!(
                "central directory at {}+{} past the end of the {size}-byte file",
                loc.offset, loc.size
            ),
        })?;
    let cd = if loc.offset >= tail_start {
        let rel = (loc.offset - tail_start) as usize;
        tail.get(rel..rel + loc.size as usize)
            .map(<[u8]>::to_vec)
            .unwrap_or_default()
    } else {
        fetcher.grow_bar(fetched + loc.size);
        fetched += loc.size;
        match get_range(fetcher, file, size, loc.offset, cd_end)? {
            Ok(cd) => cd,
            Err(whole) => return Ok(Ranged::WholeFile(whole)),
        }
    };
    let entries =
        zipread::parse_central_directory(&cd, loc.entries).map_err(|e| zip_error(file, e))?;

    // Which members, and where each one ends (the next local header, or the directory).
    let mut offsets: Vec<u64> = entries.iter().map(|e| e.local_header_offset).collect();
    offsets.push(loc.offset);
    offsets.sort_unstable();
    offsets.dedup();
    let mut members: Vec<(String, Vec<u8>)> = Vec::new();
    let mut wanted: Vec<(u64, u64, &CentralEntry)> = Vec::new();
    let mut problems = Vec::new();
    for entry in &entries {
        if entry.is_dir {
            continue;
        }
        if apicompat_archive::sanitize_member_name(&entry.name).is_err() {
            // read_wheel_members records it as a problem.
            members.push((entry.name.clone(), Vec::new()));
            continue;
        }
        match want(&entry.name) {
            Wanted::No => {}
            Wanted::NameOnly => members.push((entry.name.clone(), Vec::new())),
            Wanted::Data => {
                if let Err(e) = zipread::check_entry(entry, apicompat_archive::MAX_MEMBER_SIZE) {
                    problems.push(format!("{}: skipped: {e}", entry.name));
                    continue;
                }
                let start = entry.local_header_offset;
                let next = offsets
                    .get(offsets.partition_point(|o| *o <= start))
                    .copied()
                    .unwrap_or(loc.offset);
                // Local header + name + extra (each at most 64 KiB) + data + descriptor.
                let most = start
                    .saturating_add(30 + 2 * 65_535 + 24)
                    .saturating_add(entry.compressed_size);
                let end = next.min(most).min(size);
                if end <= start {
                    problems.push(format!("{}: skipped: bad local header offset", entry.name));
                    continue;
                }
                wanted.push((start, end, entry));
            }
        }
    }
    wanted.sort_by_key(|w| w.0);

    // Merge close ranges.
    let gap = fetcher.opts.merge_gap;
    let max_range = fetcher.opts.max_range.max(1);
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for (start, end, _) in &wanted {
        match ranges.last_mut() {
            Some((rs, re))
                if *start <= re.saturating_add(gap) && end.saturating_sub(*rs) <= max_range =>
            {
                *re = (*re).max(*end);
            }
            _ => ranges.push((*start, *end)),
        }
    }
    let planned: u64 = ranges.iter().map(|(a, b)| b - a).sum();
    fetcher.grow_bar(fetched + planned);

    let mut w = 0usize;
    for (rs, re) in ranges {
        let buf = match get_range(fetcher, file, size, rs, re)? {
            Ok(b) => b,
            Err(whole) => return Ok(Ranged::WholeFile(whole)),
        };
        while let Some((start, end, entry)) = wanted.get(w) {
            if *start >= re {
                break;
            }
            w += 1;
            let span = buf
                .get((start - rs) as usize..(end - rs) as usize)
                .unwrap_or(&[]);
            match zipread::extract_from_span(span, entry, apicompat_archive::MAX_MEMBER_SIZE) {
                Ok(data) => members.push((entry.name.clone(), data)),
                Err(ZipError::Crc { expected, actual }) => {
                    return Err(FetchError::Crc {
                        url: file.url.clone(),
                        member: entry.name.clone(),
                        detail: format!("expected {expected:08x}, got {actual:08x}"),
                    })
                }
                Err(e) => problems.push(format!("{}: skipped: {e}", entry.name)),
            }
        }
    }
    let mut tree = apicompat_archive::read_wheel_members(members);
    tree.problems.extend(problems);
    Ok(Ranged::Tree(tree))
}
