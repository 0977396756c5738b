//! The FIMI/SPMF reader: the hot path of every experiment, so it parses in place, in chunks,
//! on several threads.
//!
//! The calling thread reads the input (hashing it for a manifest as it passes) in chunks of
//! whole lines: a line cut by a chunk's end is carried into the next chunk. The chunks are
//! parsed on as many threads as rayon's pool has, each into transactions of its own, which
//! the calling thread joins in the input's order. The parse loop finds the newlines itself, so
//! no separate scan is made. What is read, and the first error, are the same whatever the
//! chunks and threads (a property test against a line-by-line reference).

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

/// Bytes of whole lines handed to a parsing thread at a time: a few in flight per thread stay
/// in the second-level cache, and handing one over costs nothing beside parsing it.
const CHUNK_BYTES: usize = 1 << 20;

/// What a parse is asked to do, the same for every chunk.
#[derive(Clone, Copy)]
struct Settings<'p> {
    path: &'p Path,
    spmf: bool,
    keep_empty: bool,
    max_line: u64,
}

/// A chunk of whole lines and what its parse made of them; reused for the next chunk.
struct Chunk {
    /// The chunk's place in the input, counted from 0.
    index: usize,
    /// The bytes, valid up to `filled` (the buffer is kept initialised at its full length).
    bytes: Vec<u8>,
    filled: usize,
    /// The chunk's transactions, offsets from 0.
    raw: RawDb,
    /// Lines, skipped lines and empty transactions of the chunk.
    report: ReadReport,
    /// The chunk's first error, its line counted within the chunk.
    error: Option<DataError>,
    /// A parse that panicked, to be raised again on the reading thread.
    panic: Option<Box<dyn std::any::Any + Send>>,
}

impl Chunk {
    fn new(bytes: usize) -> Self {
        let mut raw = RawDb::default();
        // Every item takes at least two bytes, so the items never outgrow this.
        raw.items.reserve(bytes / 2 + 1);
        Chunk {
            index: 0,
            bytes: vec![0; bytes],
            filled: 0,
            raw,
            report: ReadReport::default(),
            error: None,
            panic: None,
        }
    }

    fn parse(&mut self, settings: Settings<'_>) {
        let mut raw = std::mem::take(&mut self.raw);
        raw.items.clear();
        raw.offsets.clear();
        raw.offsets.push(0);
        raw.duplicates_dropped = 0;
        let mut p = Parser {
            path: settings.path,
            spmf: settings.spmf,
            keep_empty: settings.keep_empty,
            raw,
            report: ReadReport::default(),
            line: 0,
        };
        self.error = p.region_bounded(&self.bytes[..self.filled], settings.max_line).err();
        p.report.lines = p.line;
        self.raw = p.raw;
        self.report = p.report;
    }
}

/// The chunks parsed so far, joined in the input's order.
struct Joined {
    raw: RawDb,
    report: ReadReport,
    /// The index of the next chunk to join; later ones wait in `waiting`.
    next: usize,
    waiting: std::collections::BTreeMap<usize, Chunk>,
}

impl Joined {
    /// Takes a parsed chunk, joins every chunk now next in order, and hands their buffers back
    /// to `free`; the first error in the input's order is returned with its line in the file.
    fn arrive(&mut self, mut chunk: Chunk, free: &mut Vec<Chunk>) -> Result<()> {
        if let Some(panic) = chunk.panic.take() {
            std::panic::resume_unwind(panic);
        }
        self.waiting.insert(chunk.index, chunk);
        while let Some(mut chunk) = self.waiting.remove(&self.next) {
            if let Some(error) = chunk.error.take() {
                return Err(match error {
                    DataError::Parse { mut location, reason } => {
                        location.line += self.report.lines;
                        DataError::Parse { location, reason }
                    }
                    other => other,
                });
            }
            let base = self.raw.items.len();
            self.raw.items.extend_from_slice(&chunk.raw.items);
            self.raw.offsets.extend(chunk.raw.offsets[1..].iter().map(|&o| o + base));
            self.raw.duplicates_dropped += chunk.raw.duplicates_dropped;
            self.report.lines += chunk.report.lines;
            self.report.skipped_lines += chunk.report.skipped_lines;
            self.report.empty_transactions += chunk.report.empty_transactions;
            self.next += 1;
            free.push(chunk);
        }
        Ok(())
    }
}

/// Reads FIMI (or SPMF when `spmf`) transactions from `reader`.
///
/// The calling thread reads (and hashes, for a manifest) chunks of whole lines; as many
/// threads as rayon's pool has parse them, and the calling thread joins their transactions in
/// the input's order. Errors are the first in the input's order, whatever the chunks: lines
/// in order, and a line longer than `max_line` refused as such before its tokens are looked
/// at.
pub(crate) fn read<R: BufRead>(
    reader: R,
    path: &Path,
    spmf: bool,
    keep_empty: bool,
    gzip: bool,
    size_hint: u64,
    max_line: u64,
) -> Result<(RawDb, ReadReport)> {
    let settings = Settings { path, spmf, keep_empty, max_line };
    read_in_chunks(reader, settings, gzip, size_hint, CHUNK_BYTES, rayon::current_num_threads())
}

/// [`read`] in chunks of `chunk_bytes` (a line longer than a chunk doubles it until it fits)
/// parsed on `threads` threads (on the calling thread for 1, or for an input of one chunk).
fn read_in_chunks<R: BufRead>(
    mut reader: R,
    settings: Settings<'_>,
    gzip: bool,
    size_hint: u64,
    chunk_bytes: usize,
    threads: usize,
) -> Result<(RawDb, ReadReport)> {
    let chunk_bytes = chunk_bytes.max(1);
    let mut joined = Joined {
        raw: RawDb::default(),
        report: ReadReport::default(),
        next: 0,
        waiting: Default::default(),
    };
    // Every item takes at least two bytes (a digit and a separator), so this reservation is never
    // outgrown: no reallocation copies the item array. Pages never written are never touched.
    joined.raw.items.reserve((size_hint / 2 + 1).min(1 << 32) as usize);
    // A UTF-8 byte-order mark is dropped, as the other readers drop it.
    if let Ok(buf) = reader.fill_buf()
        && buf.starts_with(crate::read::UTF8_BOM)
    {
        reader.consume(crate::read::UTF8_BOM.len());
    }
    let path = settings.path;
    let mut bytes = 0u64;
    let (work, to_parse) = std::sync::mpsc::sync_channel::<Chunk>(threads);
    let to_parse = std::sync::Mutex::new(to_parse);
    std::thread::scope(|scope| -> Result<()> {
        // Moved in, so that it closes when the reading ends and the parsing threads stop.
        let work = work;
        let (parsed, arrived) = std::sync::mpsc::channel::<Chunk>();
        let mut started = false;
        let mut free: Vec<Chunk> = Vec::new();
        // Bounds the memory: the reading thread waits for a parse once this many are out.
        let most = 2 * threads + 2;
        let mut made = 0;
        let mut in_flight = 0;
        let mut index = 0;
        // The start of a line cut by the end of the last chunk read.
        let mut carry: Vec<u8> = Vec::new();
        loop {
            let mut chunk = match free.pop() {
                Some(chunk) => chunk,
                None if made < most => {
                    made += 1;
                    Chunk::new(chunk_bytes)
                }
                None => {
                    join_next_parsed(&arrived, &mut in_flight, &mut joined, &mut free)?;
                    continue;
                }
            };
            // A line longer than a chunk doubles what is read, so reading it stays linear.
            let want = carry.len() + chunk_bytes.max(carry.len());
            if chunk.bytes.len() < want {
                chunk.bytes.resize(want, 0);
            }
            chunk.bytes[..carry.len()].copy_from_slice(&carry);
            let kept = carry.len();
            carry.clear();
            let mut filled = kept;
            let mut end = false;
            while filled < chunk.bytes.len() {
                match reader.read(&mut chunk.bytes[filled..]) {
                    Ok(0) => {
                        end = true;
                        break;
                    }
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        drain(&arrived, &mut in_flight, &mut joined, &mut free)?;
                        return Err(DataError::reading(path, joined.report.lines + 1, gzip, e));
                    }
                }
            }
            bytes += (filled - kept) as u64;
            if end {
                if filled == 0 {
                    free.push(chunk);
                    break;
                }
                // The last line had no newline: parse it as if it had one.
                if chunk.bytes[filled - 1] != b'\n' {
                    if filled == chunk.bytes.len() {
                        chunk.bytes.push(0);
                    }
                    chunk.bytes[filled] = b'\n';
                    filled += 1;
                }
                chunk.filled = filled;
            } else {
                match chunk.bytes[kept..filled].iter().rposition(|&b| b == b'\n') {
                    None => {
                        // No line ends in the chunk: all of it is the start of one line.
                        if filled as u64 > settings.max_line {
                            drain(&arrived, &mut in_flight, &mut joined, &mut free)?;
                            let line = joined.report.lines + 1;
                            return Err(crate::read::too_long(path, line, settings.max_line));
                        }
                        carry.extend_from_slice(&chunk.bytes[..filled]);
                        free.push(chunk);
                        continue;
                    }
                    Some(last) => {
                        let last = kept + last;
                        carry.extend_from_slice(&chunk.bytes[last + 1..filled]);
                        chunk.filled = last + 1;
                    }
                }
            }
            chunk.index = index;
            index += 1;
            if threads <= 1 || (end && index == 1) {
                chunk.parse(settings);
                joined.arrive(chunk, &mut free)?;
            } else {
                // Threads of their own, not rayon tasks: the reading thread blocks for a free
                // chunk, which a rayon worker (the caller may be one) must not do while the
                // parses it waits for are queued behind it.
                if !started {
                    started = true;
                    for _ in 0..threads {
                        let (to_parse, parsed) = (&to_parse, parsed.clone());
                        scope.spawn(move || {
                            loop {
                                let next =
                                    to_parse.lock().unwrap_or_else(|e| e.into_inner()).recv();
                                let Ok(mut chunk) = next else { break };
                                // A panic goes back with its chunk, so the reading thread never
                                // waits for a chunk that will not come.
                                if let Err(panic) =
                                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                        chunk.parse(settings)
                                    }))
                                {
                                    chunk.panic = Some(panic);
                                }
                                if parsed.send(chunk).is_err() {
                                    break;
                                }
                            }
                        });
                    }
                }
                work.send(chunk).expect("the parsing threads live while the work is open");
                in_flight += 1;
                while let Ok(chunk) = arrived.try_recv() {
                    in_flight -= 1;
                    joined.arrive(chunk, &mut free)?;
                }
            }
            if end {
                break;
            }
        }
        drain(&arrived, &mut in_flight, &mut joined, &mut free)
    })?;
    let mut raw = joined.raw;
    raw.items.shrink_to_fit();
    let mut report = joined.report;
    report.bytes = bytes;
    report.duplicates_dropped = raw.duplicates_dropped;
    Ok((raw, report))
}

/// Waits for every chunk out to be parsed, and joins them.
fn drain(
    arrived: &std::sync::mpsc::Receiver<Chunk>,
    in_flight: &mut usize,
    joined: &mut Joined,
    free: &mut Vec<Chunk>,
) -> Result<()> {
    while *in_flight > 0 {
        join_next_parsed(arrived, in_flight, joined, free)?;
    }
    Ok(())
}

/// Waits for the next chunk a parsing thread finishes (one is out), and joins what is in order.
fn join_next_parsed(
    arrived: &std::sync::mpsc::Receiver<Chunk>,
    in_flight: &mut usize,
    joined: &mut Joined,
    free: &mut Vec<Chunk>,
) -> Result<()> {
    let chunk = arrived.recv().expect("a parsing thread holds every chunk out");
    *in_flight -= 1;
    joined.arrive(chunk, free)
}

impl Parser<'_> {
    /// [`region`](Self::region), a line longer than `max_line` refused once the lines before
    /// it are parsed (a check made only when the region could hold such a line: never at the
    /// default limit, which is far above a chunk).
    fn region_bounded(&mut self, region: &[u8], max_line: u64) -> Result<()> {
        if region.len() as u64 > max_line {
            let mut start = 0;
            for text in region.split_inclusive(|&b| b == b'\n') {
                if text.len() as u64 - 1 > max_line {
                    if start > 0 {
                        self.region(&region[..start])?;
                    }
                    return Err(crate::read::too_long(self.path, self.line + 1, max_line));
                }
                start += text.len();
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
    use super::{Settings, read_in_chunks, swar_digits};
    use crate::error::DataError;
    use std::path::Path;

    /// What a file holds, read line by line the slow way: the transactions (sorted, without
    /// repeats), lines, skipped lines, empty transactions, repeats dropped; or the first error's
    /// line and column (0 for a line over the limit).
    type Reference = Result<(Vec<Vec<u32>>, [u64; 4]), (u64, u64)>;

    fn reference(text: &[u8], spmf: bool, keep_empty: bool, max_line: u64) -> Reference {
        let mut rows = Vec::new();
        let mut counts = [0u64; 4];
        let body = text.strip_suffix(b"\n").unwrap_or(text);
        if text.is_empty() {
            return Ok((rows, counts));
        }
        for (number, line) in body.split(|&b| b == b'\n').enumerate() {
            let number = number as u64 + 1;
            counts[0] += 1;
            if line.len() as u64 > max_line {
                return Err((number, 0));
            }
            if spmf && matches!(line.first(), Some(b'#' | b'@')) {
                counts[1] += 1;
                continue;
            }
            let mut row = Vec::new();
            let mut start = 0;
            for token in line.split(|&b| matches!(b, b' ' | b'\t' | b'\r')) {
                let column = start as u64 + 1;
                start += token.len() + 1;
                if token.is_empty() || (spmf && matches!(token, b"-1" | b"-2")) {
                    continue;
                }
                let value = std::str::from_utf8(token).ok().and_then(|t| t.parse::<u64>().ok());
                match value {
                    Some(v)
                        if token.len() <= 10 && token[0] != b'+' && v <= u64::from(u32::MAX) =>
                    {
                        row.push(v as u32)
                    }
                    _ => return Err((number, column)),
                }
            }
            let before = row.len();
            row.sort_unstable();
            row.dedup();
            counts[3] += (before - row.len()) as u64;
            if row.is_empty() {
                counts[2] += 1;
                if !keep_empty {
                    continue;
                }
            }
            rows.push(row);
        }
        Ok((rows, counts))
    }

    /// Whatever the chunks and threads, a file reads as the slow reference reads it: the same
    /// transactions and counts, or the same first error. Counts the cases read in several
    /// chunks on several threads, with a line cut by a chunk's end, and those whose error lay
    /// past the first chunk.
    #[test]
    fn chunks_read_on_threads_read_as_the_lines_do() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let token = prop_oneof![
            8 => "[0-9]{1,3}",
            2 => "[0-9]{4,12}",
            6 => Just(" ".to_string()),
            4 => Just("\n".to_string()),
            1 => prop_oneof![
                Just("\t".to_string()),
                Just("\r".to_string()),
                Just("-1".to_string()),
                Just("-2".to_string()),
                Just("-3".to_string()),
                Just("#".to_string()),
                Just("@".to_string()),
                Just("x".to_string()),
            ],
        ];
        let strategy = (
            prop::collection::vec(token, 0..300),
            any::<bool>(),
            any::<bool>(),
            prop_oneof![Just(u64::MAX), 1u64..60],
            1usize..80,
            1usize..4,
        );
        let [several, cut, late_error] = [(); 3].map(|()| std::cell::Cell::new(0u32));
        let cases = 512;
        let mut runner = TestRunner::new(Config { cases, ..Config::default() });
        runner
            .run(&strategy, |(tokens, spmf, keep_empty, max_line, chunk_bytes, threads)| {
                let text = tokens.concat();
                let path = Path::new("<memory>");
                let settings = Settings { path, spmf, keep_empty, max_line };
                let read =
                    read_in_chunks(text.as_bytes(), settings, false, 0, chunk_bytes, threads);
                let expected = reference(text.as_bytes(), spmf, keep_empty, max_line);
                match (read, &expected) {
                    (Ok((raw, report)), Ok((rows, counts))) => {
                        let found: Vec<Vec<u32>> = raw
                            .offsets
                            .windows(2)
                            .map(|w| raw.items[w[0]..w[1]].to_vec())
                            .collect();
                        prop_assert_eq!(&found, rows);
                        let got = [
                            report.lines,
                            report.skipped_lines,
                            report.empty_transactions,
                            report.duplicates_dropped,
                        ];
                        prop_assert_eq!(got, *counts);
                        prop_assert_eq!(report.bytes, text.len() as u64);
                    }
                    (Err(DataError::Parse { location, .. }), Err(at)) => {
                        prop_assert_eq!((location.line, location.column), *at);
                    }
                    (read, expected) => {
                        prop_assert!(false, "read {:?}, expected {:?}", read.map(|r| r.1), expected)
                    }
                }
                let chunks = text.len().div_ceil(chunk_bytes);
                if threads > 1 && chunks > 2 {
                    several.set(several.get() + 1);
                    let line_cut = (1..chunks).any(|c| {
                        let at = c * chunk_bytes;
                        text.as_bytes()[at - 1] != b'\n' && text.as_bytes()[at] != b'\n'
                    });
                    cut.set(cut.get() + u32::from(line_cut));
                    if let Err((line, _)) = expected {
                        let first_chunk_lines =
                            text.as_bytes()[..chunk_bytes].iter().filter(|&&b| b == b'\n').count();
                        late_error.set(
                            late_error.get() + u32::from(line as usize > first_chunk_lines + 1),
                        );
                    }
                }
                Ok(())
            })
            .unwrap();
        let [several, cut, late_error] =
            [several, cut, late_error].map(std::cell::Cell::into_inner);
        assert!(
            several >= cases / 3,
            "only {several} of {cases} cases read several chunks on threads"
        );
        assert!(cut >= cases / 4, "only {cut} of {cases} cases had a line cut by a chunk");
        assert!(
            late_error >= cases / 32,
            "only {late_error} of {cases} cases failed past the first chunk"
        );
    }

    /// A line longer than a chunk is read whole (the chunk grows), or refused at the limit
    /// with the line's number, after the errors of the lines before it.
    #[test]
    fn a_line_longer_than_a_chunk_grows_it_up_to_the_limit() {
        let long: String = (0..5000).map(|i| format!("{i} ")).collect();
        let text = format!("1 2\n{long}\n3\n");
        let path = Path::new("<memory>");
        let read = |max_line, prefix: &str| {
            let text = format!("{prefix}{text}");
            let settings = Settings { path, spmf: false, keep_empty: true, max_line };
            read_in_chunks(text.as_bytes(), settings, false, 0, 64, 2)
        };
        let (raw, report) = read(u64::MAX, "").unwrap();
        assert_eq!((raw.offsets.len() - 1, report.lines), (3, 3));
        assert_eq!(raw.offsets[2] - raw.offsets[1], 5000);
        let Err(DataError::Parse { location, .. }) = read(long.len() as u64 - 1, "") else {
            panic!("a line over the limit is refused");
        };
        assert_eq!((location.line, location.column), (2, 0));
        let Err(DataError::Parse { location, .. }) = read(long.len() as u64 - 1, "4 y\n") else {
            panic!("a bad token is refused");
        };
        assert_eq!((location.line, location.column), (1, 3), "the earlier line's error first");
    }

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
