//! The FIMI/SPMF reader: the hot path of every experiment, so it parses straight out of the
//! reader's buffer in one pass instead of copying each line out first.
//!
//! Lines are processed in *regions* of whole lines: the complete lines of each buffer fill are
//! parsed in place, and only a line cut by the buffer's end is copied (into `carry`) and joined
//! with the next fill. The parse loop itself finds the newlines, so no separate scan is made.

use std::io::BufRead;
use std::path::Path;

use crate::db::RawDb;
use crate::error::{DataError, Result};
use crate::read::ReadReport;

/// Byte classes of the FIMI grammar: a table lookup beats three comparisons in the inner loop.
pub(crate) const BLANK: [bool; 256] = {
    let mut t = [false; 256];
    t[b' ' as usize] = true;
    t[b'\t' as usize] = true;
    t[b'\r' as usize] = true;
    t
};

/// The value of eight decimal digits (as byte values 0..=9, first digit in the lowest byte).
fn swar_digits(mut x: u64) -> u64 {
    x = (x & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(1 + (10 << 8)) >> 8;
    x = (x & 0x00ff_00ff_00ff_00ff).wrapping_mul(1 + (100 << 16)) >> 16;
    (x & 0x0000_ffff_0000_ffff).wrapping_mul(1 + (10000 << 32)) >> 32
}

struct Parser<'p> {
    path: &'p Path,
    spmf: bool,
    keep_empty: bool,
    raw: RawDb,
    report: ReadReport,
    line: u64,
}

/// Reads FIMI (or SPMF when `spmf`) transactions from `reader`.
pub(crate) fn read<R: BufRead>(
    mut reader: R,
    path: &Path,
    spmf: bool,
    keep_empty: bool,
    gzip: bool,
    size_hint: u64,
    max_line: u64,
) -> Result<(RawDb, ReadReport)> {
    let mut raw = RawDb::default();
    // Every item takes at least two bytes (a digit and a separator), so this reservation is never
    // outgrown: no reallocation copies the item array. Pages never written are never touched.
    raw.items.reserve((size_hint / 2 + 1).min(1 << 32) as usize);
    let mut p = Parser { path, spmf, keep_empty, raw, report: ReadReport::default(), line: 0 };
    let mut carry: Vec<u8> = Vec::new();
    // A UTF-8 byte-order mark is dropped, as the other readers drop it.
    if let Ok(buf) = reader.fill_buf()
        && buf.starts_with(crate::read::UTF8_BOM)
    {
        reader.consume(crate::read::UTF8_BOM.len());
    }
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(DataError::reading(path, p.line + 1, gzip, e)),
        };
        if buf.is_empty() {
            break;
        }
        let len = buf.len();
        p.report.bytes += len as u64;
        match buf.iter().rposition(|&b| b == b'\n') {
            None => {
                carry.extend_from_slice(buf);
                if carry.len() as u64 > max_line {
                    return Err(crate::read::too_long(path, p.line + 1, max_line));
                }
            }
            Some(last) => {
                let mut start = 0;
                if !carry.is_empty() {
                    let first = buf.iter().position(|&b| b == b'\n').expect("a newline exists");
                    carry.extend_from_slice(&buf[..=first]);
                    if carry.len() as u64 - 1 > max_line {
                        return Err(crate::read::too_long(path, p.line + 1, max_line));
                    }
                    p.region(&carry)?;
                    carry.clear();
                    start = first + 1;
                }
                p.region_bounded(&buf[start..=last], max_line)?;
                carry.extend_from_slice(&buf[last + 1..]);
            }
        }
        reader.consume(len);
    }
    if !carry.is_empty() {
        if carry.len() as u64 > max_line {
            return Err(crate::read::too_long(path, p.line + 1, max_line));
        }
        // The last line had no newline: parse it as if it had one.
        carry.push(b'\n');
        p.region(&carry)?;
    }
    p.raw.items.shrink_to_fit();
    p.raw.items.shrink_to_fit();
    p.report.lines = p.line;
    p.report.duplicates_dropped = p.raw.duplicates_dropped;
    Ok((p.raw, p.report))
}

impl Parser<'_> {
    /// [`region`](Self::region), each line first checked against `max_line` when the region
    /// could hold a longer one (never at the default limit: a region is one buffer's lines).
    fn region_bounded(&mut self, region: &[u8], max_line: u64) -> Result<()> {
        if region.len() as u64 > max_line {
            let mut line = self.line;
            for text in region.split_inclusive(|&b| b == b'\n') {
                line += 1;
                if text.len() as u64 - 1 > max_line {
                    return Err(crate::read::too_long(self.path, line, max_line));
                }
            }
        }
        self.region(region)
    }

    /// Parses whole lines; `region` ends with `\n`.
    fn region(&mut self, region: &[u8]) -> Result<()> {
        debug_assert_eq!(region.last(), Some(&b'\n'));
        let mut i = 0;
        while i < region.len() {
            self.line += 1;
            let line_start = i;
            if self.spmf && matches!(region[i], b'#' | b'@') {
                i += region[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .expect("region ends with a newline")
                    + 1;
                self.report.skipped_lines += 1;
                continue;
            }
            let items_start = self.raw.items.len();
            // Tracked while pushing, so closing the transaction needs no second look at it.
            let mut previous: i64 = -1;
            let mut ascending = true;
            loop {
                // Fast path: eight bytes at once give the token's length and value without a
                // branch per digit (a byte loop mispredicts on ids of 1 to 5 digits), and the byte
                // after the token, its separator, comes from the same word.
                if let Some(chunk) = region.get(i..i + 8) {
                    let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"))
                        ^ 0x3030_3030_3030_3030;
                    let non_digit =
                        (word.wrapping_add(0x7676_7676_7676_7676) | word) & 0x8080_8080_8080_8080;
                    let len = (non_digit.trailing_zeros() / 8) as usize;
                    if (1..8).contains(&len) {
                        let value = swar_digits(word << (64 - 8 * len));
                        let separator = ((word >> (8 * len)) as u8) ^ 0x30;
                        if separator == b'\n' || BLANK[separator as usize] {
                            ascending &= value as i64 > previous;
                            previous = value as i64;
                            self.raw.items.push(value as u32);
                            i += len + 1;
                            if separator == b'\n' {
                                break;
                            }
                            continue;
                        }
                        return Err(self.bad_token(region, line_start, i));
                    }
                }
                // General path: blanks, the newline, ids of eight digits or more, SPMF markers,
                // errors, and the last bytes of a region.
                let b = region[i];
                if BLANK[b as usize] {
                    i += 1;
                    continue;
                }
                if b == b'\n' {
                    i += 1;
                    break;
                }
                let token = i;
                let mut value: u64 = 0;
                loop {
                    let d = region[i].wrapping_sub(b'0');
                    if d > 9 {
                        break;
                    }
                    value = value.wrapping_mul(10).wrapping_add(u64::from(d));
                    i += 1;
                }
                let next = region[i];
                let digits = i - token;
                if digits == 0 || !(BLANK[next as usize] || next == b'\n') {
                    if self.spmf && b == b'-' && digits == 0 && matches!(region[i + 1], b'1' | b'2')
                    {
                        let after = region[i + 2];
                        if BLANK[after as usize] || after == b'\n' {
                            i += 2;
                            continue;
                        }
                    }
                    return Err(self.bad_token(region, line_start, token));
                }
                if digits > 10 || value > u64::from(u32::MAX) {
                    return Err(self.error(region, line_start, token, |t| {
                        format!("item id {t} is beyond u32 (max {})", u32::MAX)
                    }));
                }
                ascending &= value as i64 > previous;
                previous = value as i64;
                self.raw.items.push(value as u32);
            }
            if self.raw.items.len() == items_start {
                self.report.empty_transactions += 1;
                if !self.keep_empty {
                    continue;
                }
            }
            self.raw.close_transaction_known(ascending);
        }
        Ok(())
    }

    fn bad_token(&self, region: &[u8], line_start: usize, token: usize) -> DataError {
        let spmf = self.spmf;
        self.error(region, line_start, token, |t| {
            if spmf && t.starts_with('-') {
                format!("invalid token {t:?} (SPMF allows only the markers -1 and -2 below zero)")
            } else if t.starts_with('-')
                && t.len() > 1
                && t[1..].bytes().all(|b| b.is_ascii_digit())
            {
                format!("negative item id {t:?}")
            } else {
                format!("non-numeric token {t:?}")
            }
        })
    }

    /// An error at the token starting at `token`, with the token's text (at most 40 bytes).
    fn error(
        &self,
        region: &[u8],
        line_start: usize,
        token: usize,
        reason: impl Fn(&str) -> String,
    ) -> DataError {
        let end = region[token..]
            .iter()
            .position(|&b| BLANK[b as usize] || b == b'\n')
            .map_or(region.len(), |p| token + p)
            .min(token + 40);
        let text = String::from_utf8_lossy(&region[token..end]);
        DataError::parse(self.path, self.line, (token - line_start + 1) as u64, reason(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::swar_digits;

    #[test]
    fn swar_matches_scalar() {
        for text in ["12345678", "00000001", "99999999", "40000000"] {
            let word =
                u64::from_le_bytes(text.as_bytes().try_into().unwrap()) ^ 0x3030_3030_3030_3030;
            assert_eq!(swar_digits(word), text.parse::<u64>().unwrap());
        }
        let word = u64::from_le_bytes(*b"427 9999") ^ 0x3030_3030_3030_3030;
        assert_eq!(swar_digits(word << (64 - 8 * 3)), 427);
    }
}
