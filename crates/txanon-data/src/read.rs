//! Strict, streaming readers for transaction files: FIMI, SPMF and basket CSV, plain or gzip
//! (Parquet and Arrow IPC are dispatched to [`crate::columnar`]).
//!
//! Every reader works line by line on a [`BufRead`], so memory holds the database being built
//! and one line, never the whole file. Every error names the file, line, column and reason.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::db::{Interner, RawDb, TransactionDb};
use crate::error::{DataError, Result};
use crate::fimi::BLANK;

/// The transaction file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Format {
    /// FIMI `.dat`: one transaction per line, whitespace-separated non-negative integers.
    Fimi,
    /// SPMF: like FIMI, with `#` and `@` lines skipped and `-1`/`-2` sequence markers dropped.
    Spmf,
    /// Basket CSV, long form: one `transaction_id,item` row per occurrence; the header
    /// `transaction_id,item` is optional; `#` lines are comments.
    BasketLong,
    /// Basket CSV, wide form: one transaction per line, comma-separated labels; `#` lines are
    /// comments, empty fields are ignored.
    BasketWide,
    /// Apache Parquet: a list column of items, or transaction id and item columns (see
    /// [`crate::columnar`]).
    Parquet,
    /// Apache Arrow IPC, file or stream format, with the columns Parquet may have.
    ArrowIpc,
}

impl Format {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [Format; 6] = [
        Format::Fimi,
        Format::Spmf,
        Format::BasketLong,
        Format::BasketWide,
        Format::Parquet,
        Format::ArrowIpc,
    ];

    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Fimi => "fimi",
            Format::Spmf => "spmf",
            Format::BasketLong => "basket-long",
            Format::BasketWide => "basket-wide",
            Format::Parquet => "parquet",
            Format::ArrowIpc => "arrow",
        }
    }

    /// The format a file name implies, ignoring a trailing `.gz`: `.dat`/`.fimi` → FIMI,
    /// `.spmf`/`.txt` → SPMF, `.csv`/`.tsv` → basket CSV (wide or long, told from the header, see
    /// [`read_path`]), `.parquet`/`.pq` → Parquet, `.arrow`/`.arrows`/`.feather`/`.ipc` → Arrow
    /// IPC.
    pub fn from_path(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        let ext = name.rsplit_once('.')?.1;
        match ext {
            "dat" | "fimi" => Some(Format::Fimi),
            "spmf" | "txt" => Some(Format::Spmf),
            "csv" | "tsv" => Some(Format::BasketWide),
            "parquet" | "pq" => Some(Format::Parquet),
            "arrow" | "arrows" | "feather" | "ipc" => Some(Format::ArrowIpc),
            _ => None,
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        Format::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            format!(
                "unknown format {s:?} (expected fimi, spmf, basket-long, basket-wide, parquet or arrow)"
            )
        })
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read a transaction file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadOptions {
    format: Option<Format>,
    pub(crate) keep_empty: bool,
    max_line: u64,
    pub(crate) csv: CsvOptions,
}

/// How a CSV or TSV export is read: which columns hold the transaction id and the item, whether
/// its first line is a header, and its delimiter. Anything left unset is told from the first
/// line, and a first line that could be either a header or a basket is refused, never guessed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsvOptions {
    /// The field delimiter; detected among `,` `\t` `;` `|` by default (`\t` for `.tsv`).
    pub delimiter: Option<u8>,
    /// Whether the first line is a header: `Some(true)` (`--header`), `Some(false)`
    /// (`--no-header`), or told from its names.
    pub header: Option<bool>,
    /// The header's name of the transaction id column (`--tid-column`), matched without regard
    /// to case.
    pub tid_column: Option<String>,
    /// The header's name of the item column (`--item-column`).
    pub item_column: Option<String>,
}

/// The longest line (one transaction, or one row of long-form CSV) a reader accepts by default:
/// 256 MiB, far beyond any real transaction, and refused before a file with no line breaks
/// (`/dev/zero`, a binary file) fills the memory.
pub const DEFAULT_MAX_LINE_BYTES: u64 = 256 << 20;

impl ReadOptions {
    /// Detect the format from the file name (and, for `.csv`, the header), keep empty transactions.
    pub fn new() -> Self {
        Self {
            format: None,
            keep_empty: true,
            max_line: DEFAULT_MAX_LINE_BYTES,
            csv: CsvOptions::default(),
        }
    }

    /// How CSV and TSV exports are read (see [`CsvOptions`]).
    pub fn csv(mut self, csv: CsvOptions) -> Self {
        self.csv = csv;
        self
    }

    /// The longest line accepted, in bytes (default [`DEFAULT_MAX_LINE_BYTES`]); a longer one
    /// is refused with [`DataError::Parse`] naming the limit.
    pub fn max_line_bytes(mut self, bytes: u64) -> Self {
        self.max_line = bytes.max(1);
        self
    }

    /// Read as `format` whatever the file is called.
    pub fn format(mut self, format: Format) -> Self {
        self.format = Some(format);
        self
    }

    /// Whether empty lines become empty transactions (default `true`: they are counted and kept,
    /// because dropping them changes `n` and every relative support).
    pub fn keep_empty(mut self, keep: bool) -> Self {
        self.keep_empty = keep;
        self
    }

    /// The format asked for, if any.
    pub fn requested_format(&self) -> Option<Format> {
        self.format
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self::new()
    }
}

/// What a reader saw besides the transactions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadReport {
    /// The format the file was read as.
    pub format: Option<Format>,
    /// Whether the file was gzip-compressed.
    pub gzip: bool,
    /// Lines read, comments and blank lines included.
    pub lines: u64,
    /// Uncompressed bytes read.
    pub bytes: u64,
    /// Comment or header lines skipped.
    pub skipped_lines: u64,
    /// Empty transactions seen (kept or dropped as asked).
    pub empty_transactions: u64,
    /// Repeated items within one transaction, dropped.
    pub duplicates_dropped: u64,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Opens `path` for reading (`-` is standard input), transparently decompressing gzip
/// (recognised by its magic bytes, not its name). Returns the reader and whether it was
/// compressed.
pub fn open_input(path: &Path) -> Result<(Box<dyn BufRead + Send>, bool)> {
    open_counted(path, None)
}

/// [`open_input`], the bytes read from the file (compressed ones for gzip) advancing
/// `progress` when given.
fn open_counted(
    path: &Path,
    progress: Option<&crate::progress::Progress>,
) -> Result<(Box<dyn BufRead + Send>, bool)> {
    let mut file = crate::source::open_raw(path)?;
    if let Some(progress) = progress {
        file = Box::new(crate::progress::Counting { inner: file, progress: progress.clone() });
    }
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let head = reader.fill_buf().map_err(|e| DataError::io(path, e))?;
    if head.starts_with(&GZIP_MAGIC) {
        let decoder = flate2::bufread::MultiGzDecoder::new(reader);
        Ok((Box::new(BufReader::with_capacity(1 << 16, decoder)), true))
    } else {
        Ok((Box::new(reader), false))
    }
}

/// Reads a whole text file (`-` is standard input; gzip is looked through).
///
/// # Errors
/// [`DataError::Io`] when it cannot be read, [`DataError::Invalid`] when it is not UTF-8.
pub fn read_text(path: &Path) -> Result<String> {
    use std::io::Read;
    let (mut reader, _) = open_input(path)?;
    let mut text = String::new();
    reader
        .read_to_string(&mut text)
        .map_err(|e| DataError::invalid(path, format!("not UTF-8 text: {e}")))?;
    // A byte-order mark is dropped as every transaction reader drops it: left in, it would
    // become part of the first label of a list, and that entry would silently match nothing.
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// Reads a transaction file (`-` is standard input: the format is then `options`' or the first
/// line's, see [`read_path`]'s rules for names).
///
/// The format is the one in `options`, else the one the name implies ([`Format::from_path`]);
/// a `.csv` file whose first line is `transaction_id,item` is read as long-form basket CSV.
///
/// # Errors
/// [`DataError::Parse`] naming file, line, column and reason for a malformed token or line;
/// [`DataError::Invalid`] for an empty file or an unknown format; [`DataError::Gzip`] for a
/// corrupt compressed stream; [`DataError::Io`] when the file cannot be read.
pub fn read_path(path: &Path, options: &ReadOptions) -> Result<(TransactionDb, ReadReport)> {
    read_path_counted(path, options, None)
}

/// [`read_path`], reporting the bytes read to `progress` as the phase `reading FILE` (its
/// total the file's size; unknown for standard input), so a front end can show a rate and an
/// estimate.
///
/// # Errors
/// As [`read_path`].
pub fn read_path_with_progress(
    path: &Path,
    options: &ReadOptions,
    progress: &crate::progress::Progress,
) -> Result<(TransactionDb, ReadReport)> {
    let size = if crate::source::is_stream(path) {
        0
    } else {
        std::fs::metadata(path).map_or(0, |m| m.len())
    };
    progress.begin(format!("reading {}", path.display()), crate::progress::Unit::Bytes, size);
    read_path_counted(path, options, Some(progress))
}

fn read_path_counted(
    path: &Path,
    options: &ReadOptions,
    progress: Option<&crate::progress::Progress>,
) -> Result<(TransactionDb, ReadReport)> {
    // A stream (standard input, a FIFO, `<(…)`) is read once: its format is named or told from
    // its first line as it passes, never by opening it a second time.
    if crate::source::is_stream(path) {
        let (mut reader, gzip) = open_counted(path, progress)?;
        let format = match options.format {
            Some(f) => f,
            None => sniff_format(&mut reader).map_err(|e| DataError::reading(path, 1, gzip, e))?,
        };
        return read_with_hint(reader, path, format, options, gzip, 0);
    }
    let format = match detect_format(path, options) {
        Some(f) => f,
        None => {
            return Err(DataError::invalid(
                path,
                "cannot tell the format from the file name: name it (fimi, spmf, basket-long, basket-wide, parquet, arrow)",
            ));
        }
    };
    let (reader, gzip) = open_counted(path, progress)?;
    // The plain file's size bounds its number of items; a compressed one's does not.
    let hint = if gzip { 0 } else { std::fs::metadata(path).map_or(0, |m| m.len()) };
    read_with_hint(reader, path, format, options, gzip, hint)
}

/// Reads transactions from in-memory bytes (gzip is recognised as in [`read_path`]); errors name
/// `<memory>` as the file. Used by tests and fuzzing.
pub fn read_bytes(
    bytes: &[u8],
    format: Format,
    keep_empty: bool,
) -> Result<(TransactionDb, ReadReport)> {
    let path = Path::new("<memory>");
    let options = ReadOptions::new().keep_empty(keep_empty);
    if bytes.starts_with(&GZIP_MAGIC) {
        let decoder = BufReader::new(flate2::bufread::MultiGzDecoder::new(bytes));
        read_with_hint(decoder, path, format, &options, true, 0)
    } else {
        read_with_hint(bytes, path, format, &options, false, bytes.len() as u64)
    }
}

/// Reads transactions in `format` from any buffered reader; `path` only names the source in errors.
pub fn read_from<R: BufRead>(
    reader: R,
    path: &Path,
    format: Format,
    keep_empty: bool,
    gzip: bool,
) -> Result<(TransactionDb, ReadReport)> {
    read_with_hint(reader, path, format, &ReadOptions::new().keep_empty(keep_empty), gzip, 0)
}

/// [`read_from`] with the input's size in bytes, when known (0 otherwise), to size buffers once.
fn read_with_hint<R: BufRead>(
    reader: R,
    path: &Path,
    format: Format,
    options: &ReadOptions,
    gzip: bool,
    size_hint: u64,
) -> Result<(TransactionDb, ReadReport)> {
    let keep_empty = options.keep_empty;
    let (db, mut report) = match format {
        Format::Parquet | Format::ArrowIpc => {
            let mut reader = reader;
            // Sized once for a plain file, so the bytes are not copied while they grow.
            let mut bytes = Vec::with_capacity(size_hint.min(1 << 40) as usize);
            // A truncated or corrupt gzip stream is the input's fault, named as such (the
            // whole file is one record here: line 1).
            std::io::Read::read_to_end(&mut reader, &mut bytes)
                .map_err(|e| DataError::reading(path, 1, gzip, e))?;
            crate::columnar::read(bytes, path, format, options)?
        }
        Format::Fimi | Format::Spmf => {
            let spmf = format == Format::Spmf;
            let (raw, report) = crate::fimi::read(
                reader,
                path,
                spmf,
                keep_empty,
                gzip,
                size_hint,
                options.max_line,
            )?;
            (raw.finish_int(), report)
        }
        Format::BasketWide | Format::BasketLong => {
            let mut reader = reader;
            let head =
                first_data_lines(&mut reader).map_err(|e| DataError::reading(path, 1, gzip, e))?;
            let tsv = path
                .to_string_lossy()
                .to_ascii_lowercase()
                .trim_end_matches(".gz")
                .ends_with(".tsv");
            let layout = csv_layout(&head, format, options, tsv)
                .map_err(|why| DataError::invalid(path, why))?;
            let mut lines = LineReader::new(reader, path, gzip).max_line(options.max_line);
            let (db, mut report) = match &layout {
                CsvLayout::Wide { delimiter } => read_wide(&mut lines, keep_empty, *delimiter)?,
                CsvLayout::Long(long) => read_long(&mut lines, long)?,
            };
            report.format = Some(match layout {
                CsvLayout::Wide { .. } => Format::BasketWide,
                CsvLayout::Long(_) => Format::BasketLong,
            });
            report.lines = lines.number;
            report.bytes = lines.bytes;
            (db, report)
        }
    };
    if report.bytes == 0 {
        return Err(DataError::invalid(path, "file is empty"));
    }
    report.format = report.format.or(Some(format));
    report.gzip = gzip;
    Ok((db, report))
}

/// The error of a line longer than `limit` bytes.
pub(crate) fn too_long(path: &Path, line: u64, limit: u64) -> DataError {
    DataError::parse(
        path,
        line,
        0,
        format!(
            "the line is longer than the limit of {limit} bytes: a file with no line breaks, or a \
             transaction too long to read (raise --max-line-bytes, 1 to 18446744073709551615)"
        ),
    )
}

/// The UTF-8 byte-order mark.
pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Yields lines without their terminator, counting them, and maps I/O errors to located ones.
/// Used by every line-based reader (basket CSV, tables); FIMI has its own in-place parser.
pub(crate) struct LineReader<'p, R> {
    reader: R,
    path: &'p Path,
    gzip: bool,
    pub(crate) line: Vec<u8>,
    pub(crate) number: u64,
    pub(crate) bytes: u64,
    max_line: u64,
}

impl<'p, R: BufRead> LineReader<'p, R> {
    pub(crate) fn new(reader: R, path: &'p Path, gzip: bool) -> Self {
        Self {
            reader,
            path,
            gzip,
            line: Vec::with_capacity(256),
            number: 0,
            bytes: 0,
            max_line: DEFAULT_MAX_LINE_BYTES,
        }
    }

    /// Refuse lines longer than `bytes`.
    pub(crate) fn max_line(mut self, bytes: u64) -> Self {
        self.max_line = bytes;
        self
    }

    /// Reads the next line into `self.line`; false at the end of input.
    pub(crate) fn next_line(&mut self) -> Result<bool> {
        self.line.clear();
        // At most one byte past the limit is read: a line with no end (`/dev/zero`) is refused
        // before it fills the memory.
        let read = std::io::Read::take(self.reader.by_ref(), self.max_line.saturating_add(2))
            .read_until(b'\n', &mut self.line)
            .map_err(|e| DataError::reading(self.path, self.number + 1, self.gzip, e))?;
        if read == 0 {
            return Ok(false);
        }
        let body = self.line.len() - usize::from(self.line.last() == Some(&b'\n'));
        if body as u64 > self.max_line {
            return Err(too_long(self.path, self.number + 1, self.max_line));
        }
        self.bytes += read as u64;
        self.number += 1;
        // A UTF-8 byte-order mark opens some exported files: it is not part of the first
        // field, and every reader drops it alike (FIMI's parser too).
        if self.number == 1 && self.line.starts_with(UTF8_BOM) {
            self.line.drain(..UTF8_BOM.len());
        }
        if self.line.last() == Some(&b'\n') {
            self.line.pop();
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        Ok(true)
    }

    pub(crate) fn error(&self, column: usize, reason: impl Into<String>) -> DataError {
        DataError::parse(self.path, self.number, column as u64, reason)
    }
}

/// Splits a CSV line into trimmed fields, honouring double quotes (`""` escapes a quote).
/// Fields cannot span lines. Returns the 1-based column and reason of a malformed field.
/// The one CSV field splitter of the workspace (tables here, the experiments' paper values).
pub fn split_csv<'a>(
    line: &'a str,
    sep: u8,
    fields: &mut Vec<Cow<'a, str>>,
) -> std::result::Result<(), (usize, String)> {
    fields.clear();
    let bytes = line.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'"' {
            let open = i;
            i += 1;
            let mut value = String::new();
            let mut chunk_start = i;
            loop {
                match bytes[i..].iter().position(|&b| b == b'"') {
                    None => return Err((open + 1, "unterminated quoted field".into())),
                    Some(p) => {
                        value.push_str(&line[chunk_start..i + p]);
                        i += p + 1;
                        if bytes.get(i) == Some(&b'"') {
                            value.push('"');
                            i += 1;
                            chunk_start = i;
                        } else {
                            break;
                        }
                    }
                }
            }
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            if i < bytes.len() && bytes[i] != sep {
                return Err((i + 1, "text after a closing quote".into()));
            }
            fields.push(Cow::Owned(value));
        } else {
            let end = bytes[i..].iter().position(|&b| b == sep).map_or(bytes.len(), |p| i + p);
            fields.push(Cow::Borrowed(line[i..end].trim()));
            i = end;
        }
        if i >= bytes.len() {
            return Ok(());
        }
        i += 1; // the separator
        if i == bytes.len() {
            fields.push(Cow::Borrowed(""));
            return Ok(());
        }
    }
}

/// The line as UTF-8, or a located error at the first invalid byte.
pub(crate) fn utf8_line<'l, R: BufRead>(lines: &'l LineReader<'_, R>) -> Result<&'l str> {
    std::str::from_utf8(&lines.line).map_err(|e| lines.error(e.valid_up_to() + 1, "invalid UTF-8"))
}

fn read_wide<R: BufRead>(
    lines: &mut LineReader<'_, R>,
    keep_empty: bool,
    delimiter: u8,
) -> Result<(TransactionDb, ReadReport)> {
    let mut raw = RawDb::default();
    let mut interner = Interner::default();
    let mut report = ReadReport::default();
    while lines.next_line()? {
        let mut fields = Vec::new();
        if lines.line.first() == Some(&b'#') {
            report.skipped_lines += 1;
            continue;
        }
        let text = utf8_line(lines)?;
        split_csv(text, delimiter, &mut fields).map_err(|(c, r)| lines.error(c, r))?;
        let start = raw.items.len();
        for f in fields.iter().filter(|f| !f.is_empty()) {
            raw.items.push(interner.intern(f));
        }
        if raw.items.len() == start {
            report.empty_transactions += 1;
            if !keep_empty {
                continue;
            }
        }
        raw.close_transaction();
    }
    report.duplicates_dropped = raw.duplicates_dropped;
    Ok((raw.finish_interned(interner), report))
}

/// Where the long form's two columns are.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LongLayout {
    delimiter: u8,
    /// The first data line is a header, skipped.
    header: bool,
    /// The transaction id's column (0-based).
    tid: usize,
    /// The item's column.
    item: usize,
    /// Fields every row holds (the header's, or 2).
    columns: usize,
}

/// How a CSV file is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CsvLayout {
    /// One basket per line.
    Wide { delimiter: u8 },
    /// One (transaction id, item) pair per line.
    Long(LongLayout),
}

/// Names of a transaction id column in exports (compared lower-case, without blanks, `_` or
/// `-`): orders, baskets, sessions, invoices, receipts, visits.
pub(crate) const TID_NAMES: &[&str] = &[
    "transactionid",
    "transaction",
    "tid",
    "orderid",
    "order",
    "ordernumber",
    "orderno",
    "basketid",
    "basket",
    "sessionid",
    "session",
    "invoiceid",
    "invoice",
    "invoiceno",
    "invoicenumber",
    "receiptid",
    "receipt",
    "ticketid",
    "ticket",
    "visitid",
    "visit",
];

/// Names of an item column in exports.
pub(crate) const ITEM_NAMES: &[&str] = &[
    "item",
    "itemid",
    "items",
    "itemcode",
    "product",
    "productid",
    "productcode",
    "productname",
    "sku",
    "code",
    "article",
    "articleid",
    "stockcode",
];

/// Whether a header naming `name` would name a transaction id or an item column to this
/// reader (compared as the reader compares, lower-case, without blanks, `_` or `-`): a first
/// line of baskets holding such a label is refused as ambiguous unless a header is ruled out.
pub fn is_known_column_name(name: &str) -> bool {
    let key = column_key(name);
    TID_NAMES.contains(&key.as_str()) || ITEM_NAMES.contains(&key.as_str())
}

pub(crate) fn column_key(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, ' ' | '_' | '-')).flat_map(char::to_lowercase).collect()
}

/// The delimiter of a line: the one of `,` `\t` `;` `|` it holds most often outside quotes
/// (`,` when none).
fn detect_delimiter(line: &str) -> u8 {
    let mut counts = [0usize; 4];
    let mut quoted = false;
    for b in line.bytes() {
        match b {
            b'"' => quoted = !quoted,
            b',' if !quoted => counts[0] += 1,
            b'\t' if !quoted => counts[1] += 1,
            b';' if !quoted => counts[2] += 1,
            b'|' if !quoted => counts[3] += 1,
            _ => {}
        }
    }
    let best = (0..4).max_by_key(|&i| (counts[i], 3 - i)).unwrap_or(0);
    if counts[best] == 0 { b',' } else { [b',', b'\t', b';', b'|'][best] }
}

/// The layout of a CSV input from its first data line `head`, the format asked for or implied,
/// and the options; a first line that could be a header or a basket is refused.
fn csv_layout(
    lines: &[String],
    format: Format,
    options: &ReadOptions,
    tsv: bool,
) -> std::result::Result<CsvLayout, String> {
    let head = lines.first().map_or("", String::as_str);
    let csv = &options.csv;
    let delimiter =
        csv.delimiter.unwrap_or_else(|| if tsv { b'\t' } else { detect_delimiter(head) });
    let mut fields = Vec::new();
    if split_csv(head, delimiter, &mut fields).is_err() {
        fields = vec![std::borrow::Cow::Borrowed(head)];
    }
    let names: Vec<String> = fields.iter().map(|f| column_key(f)).collect();
    let shown = || fields.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>().join(", ");
    let find = |name: &str| names.iter().position(|n| *n == column_key(name));
    let long = |header: bool, tid: usize, item: usize, columns: usize| {
        CsvLayout::Long(LongLayout { delimiter, header, tid, item, columns })
    };
    // Named columns: the header must hold them.
    if csv.tid_column.is_some() || csv.item_column.is_some() {
        if csv.header == Some(false) {
            return Err(
                "--tid-column and --item-column name header columns: drop --no-header".into()
            );
        }
        let (Some(tid_name), Some(item_name)) = (&csv.tid_column, &csv.item_column) else {
            return Err("name both columns: --tid-column and --item-column".into());
        };
        let tid = find(tid_name).ok_or_else(|| {
            format!("--tid-column {tid_name:?} is not a column of the header ({})", shown())
        })?;
        let item = find(item_name).ok_or_else(|| {
            format!("--item-column {item_name:?} is not a column of the header ({})", shown())
        })?;
        if tid == item {
            return Err("--tid-column and --item-column name the same column".into());
        }
        return Ok(long(true, tid, item, fields.len()));
    }
    let tid = names.iter().position(|n| TID_NAMES.contains(&n.as_str()));
    let item = names.iter().position(|n| ITEM_NAMES.contains(&n.as_str()));
    // A table under a header: the lines after the first have its number of fields, and some
    // column is a number on every one of them but not on the first (ids, prices, quantities
    // under their names). Baskets vary in length, and a basket of numbers has numbers first.
    let number = |f: &str| f.trim().parse::<f64>().is_ok();
    let rows: Vec<Vec<String>> = lines
        .iter()
        .skip(1)
        .filter_map(|l| {
            let mut f = Vec::new();
            split_csv(l, delimiter, &mut f).ok()?;
            Some(f.iter().map(|x| x.to_string()).collect())
        })
        .collect();
    let tabular = fields.len() >= 2
        && !rows.is_empty()
        && rows.iter().all(|r| r.len() == fields.len())
        && (0..fields.len()).any(|c| !number(&fields[c]) && rows.iter().all(|r| number(&r[c])));
    match (csv.header, tid, item) {
        (Some(false), _, _) => match format {
            Format::BasketLong if fields.len() == 2 => Ok(long(false, 0, 1, 2)),
            Format::BasketLong => Err(format!(
                "the long form without a header has two columns (transaction id, item); the first line has {}: name them with --header --tid-column --item-column",
                fields.len()
            )),
            _ => Ok(CsvLayout::Wide { delimiter }),
        },
        (_, Some(tid), Some(item)) if tid != item => Ok(long(true, tid, item, fields.len())),
        (Some(true), _, _) => Err(format!(
            "the header ({}) names no transaction id and item column this reader knows: name them with --tid-column and --item-column",
            shown()
        )),
        // No name known and no table under a header: baskets, or the unnamed long form. (A
        // header-like table with no name known is as ambiguous as one half-known.)
        (None, None, None) if !tabular => match format {
            Format::BasketLong if fields.len() == 2 => Ok(long(false, 0, 1, 2)),
            Format::BasketLong => Err(format!(
                "the long form has a transaction id and an item column; the first line has {} fields and no header names them: name them with --header --tid-column --item-column",
                fields.len()
            )),
            _ => Ok(CsvLayout::Wide { delimiter }),
        },
        _ => Err(format!(
            "the first line ({}) could be a header or a basket: pass --header with --tid-column and --item-column to read an export, or --no-header to read baskets",
            shown()
        )),
    }
}

/// The first lines of `reader` (at most [`LINES_PEEKED`]) that are neither blank nor `#`
/// comments, as far as its buffer holds them, without consuming anything.
fn first_data_lines(reader: &mut impl BufRead) -> std::io::Result<Vec<String>> {
    let head = reader.fill_buf()?;
    let head = head.strip_prefix(UTF8_BOM).unwrap_or(head);
    let mut found = Vec::new();
    let mut pieces = head.split(|&b| b == b'\n').peekable();
    while let Some(line) = pieces.next() {
        // The buffer's last piece may be a line cut short: only whole lines count, but a first
        // line longer than the buffer is taken as far as it goes.
        if pieces.peek().is_none() && !found.is_empty() {
            break;
        }
        let line = String::from_utf8_lossy(line);
        let line = line.trim();
        if !line.is_empty() && !line.starts_with('#') {
            found.push(line.to_string());
            if found.len() == LINES_PEEKED {
                break;
            }
        }
    }
    Ok(found)
}

/// How many data lines a CSV's layout is told from.
const LINES_PEEKED: usize = 20;

/// Reads the long form: one (transaction id, item) pair per row, in the columns `layout` names,
/// every row with the header's number of fields. Transaction ids are any text, in any order: a
/// transaction's rows may be scattered through the file. Memory holds, besides the database, one
/// map entry per distinct transaction id (its text) and each transaction's items until the end.
fn read_long<R: BufRead>(
    lines: &mut LineReader<'_, R>,
    layout: &LongLayout,
) -> Result<(TransactionDb, ReadReport)> {
    let mut report = ReadReport::default();
    let mut items = Interner::default();
    let mut tx_index: HashMap<String, usize> = HashMap::new();
    let mut transactions: Vec<Vec<u32>> = Vec::new();
    let mut header = layout.header;
    while lines.next_line()? {
        let mut fields = Vec::new();
        if lines.line.first() == Some(&b'#') || lines.line.iter().all(|&b| BLANK[b as usize]) {
            report.skipped_lines += 1;
            continue;
        }
        if std::mem::take(&mut header) {
            report.skipped_lines += 1;
            continue;
        }
        let text = utf8_line(lines)?;
        split_csv(text, layout.delimiter, &mut fields).map_err(|(c, r)| lines.error(c, r))?;
        if fields.len() != layout.columns {
            return Err(lines.error(
                0,
                format!(
                    "expected {} columns{}, found {}",
                    layout.columns,
                    if layout.header { " as the header has" } else { " (transaction id, item)" },
                    fields.len()
                ),
            ));
        }
        let (tid, item) = (&fields[layout.tid], &fields[layout.item]);
        if tid.is_empty() || item.is_empty() {
            let column = if tid.is_empty() { layout.tid + 1 } else { layout.item + 1 };
            return Err(lines.error(column, "empty transaction id or item"));
        }
        let next = transactions.len();
        let t = *tx_index.entry(tid.to_string()).or_insert(next);
        if t == next {
            transactions.push(Vec::new());
        }
        transactions[t].push(items.intern(item));
    }
    let mut raw = RawDb::default();
    for t in transactions {
        raw.items.extend_from_slice(&t);
        raw.close_transaction();
    }
    report.duplicates_dropped = raw.duplicates_dropped;
    Ok((raw.finish_interned(items), report))
}

/// The format of a nameless input (standard input) from its first line that is not blank or a
/// `#` comment: the long-form basket header; else a comma (wide basket CSV); else SPMF's `-1`/`-2`
/// separators or `@` header; else FIMI when its tokens are numbers and no `#` comment came first
/// (FIMI has none); else wide basket CSV with one item per line. The lines stay in the reader.
fn sniff_format(reader: &mut dyn BufRead) -> std::io::Result<Format> {
    let head = reader.fill_buf()?;
    if crate::columnar::is_parquet(head) {
        return Ok(Format::Parquet);
    }
    if crate::columnar::is_arrow_ipc(head) {
        return Ok(Format::ArrowIpc);
    }
    let head = head.strip_prefix(UTF8_BOM).unwrap_or(head);
    let mut commented = false;
    for line in head.split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(line);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('#') {
            commented = true;
            continue;
        }
        let tokens: Vec<&str> = line.split_ascii_whitespace().collect();
        return Ok(if line.eq_ignore_ascii_case("transaction_id,item") {
            Format::BasketLong
        } else if line.contains(',') {
            Format::BasketWide
        } else if line.starts_with('@') || tokens.iter().any(|&t| t == "-1" || t == "-2") {
            Format::Spmf
        } else if !commented && tokens.iter().all(|t| t.parse::<u32>().is_ok()) {
            Format::Fimi
        } else {
            Format::BasketWide
        });
    }
    Ok(Format::Fimi)
}

/// The format to read `path` as: the one asked for, else the name's (a CSV file's layout, wide
/// or long, is then told from its first line as it is read).
pub fn detect_format(path: &Path, options: &ReadOptions) -> Option<Format> {
    options.format.or_else(|| Format::from_path(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fimi(text: &str) -> Result<(TransactionDb, ReadReport)> {
        read_bytes(text.as_bytes(), Format::Fimi, true)
    }

    /// A data holder's CSV export is read by its header's names (any order, extra columns
    /// ignored, any common delimiter, scattered and textual ids), or refused with a message
    /// naming the options when its first line could be a header or a basket.
    #[test]
    fn exports_are_read_by_their_header_or_refused() {
        let read = |text: &str, name: &str, csv: CsvOptions| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            read_path(&path, &ReadOptions::new().csv(csv)).map(|(db, r)| {
                let mut rows: Vec<Vec<String>> = db
                    .iter()
                    .map(|t| t.iter().map(|&i| db.label(i).to_string()).collect())
                    .collect();
                rows.sort();
                (rows, r.format)
            })
        };
        let expected = (
            vec![vec!["bread".to_string(), "milk".into()], vec!["eggs".into(), "milk".into()]],
            Some(Format::BasketLong),
        );
        for (text, name) in [
            ("order_id,product\nA-1,milk\nB-2,eggs\nA-1,bread\nB-2,milk\n", "a.csv"),
            (
                "Price;Product;Order ID;Note\n1;milk;A-1;x\n2;eggs;B-2;\n3;bread;A-1;\"a;b\"\n4;milk;B-2;\n",
                "b.csv",
            ),
            ("session\tsku\nA-1\tmilk\nB-2\teggs\nA-1\tbread\nB-2\tmilk\n", "c.tsv"),
            (
                "\u{feff}# exported\nTRANSACTION_ID|ITEM\nA-1|milk\nB-2|eggs\nA-1|bread\nB-2|milk\n",
                "d.csv",
            ),
        ] {
            assert_eq!(read(text, name, CsvOptions::default()).unwrap(), expected, "{text}");
        }
        let named = CsvOptions {
            tid_column: Some("buyer".into()),
            item_column: Some("what".into()),
            ..CsvOptions::default()
        };
        let text = "buyer,what,price\nA-1,milk,1\nB-2,eggs,2\nA-1,bread,1\nB-2,milk,2\n";
        assert_eq!(read(text, "e.csv", named).unwrap(), expected);
        let err = read(text, "e.csv", CsvOptions::default()).unwrap_err().to_string();
        assert!(
            err.contains("could be a header or a basket") && err.contains("--no-header"),
            "{err}"
        );
        // A basket whose first line names an item "product": refused, then read as baskets.
        let baskets = "product,milk\nbread\n";
        assert!(read(baskets, "f.csv", CsvOptions::default()).is_err());
        let no_header = CsvOptions { header: Some(false), ..CsvOptions::default() };
        let (rows, format) = read(baskets, "f.csv", no_header).unwrap();
        assert_eq!((rows.len(), format), (2, Some(Format::BasketWide)));
        // Plain baskets are still baskets; a row short of the header's columns is located.
        assert_eq!(
            read("bread,milk\nmilk\n", "g.csv", CsvOptions::default()).unwrap().1,
            Some(Format::BasketWide)
        );
        let err =
            read("order,item,qty\n1,milk,2\n2,eggs\n", "h.csv", CsvOptions::default()).unwrap_err();
        assert!(
            err.to_string().contains(":3: expected 3 columns as the header has, found 2"),
            "{err}"
        );
    }

    /// A byte-order mark is dropped from every text file (a side file's first label kept
    /// whole), and lines past the limit are refused, whether they sit inside one buffer or
    /// span several.
    #[test]
    fn side_files_lose_their_mark_and_lines_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.txt");
        std::fs::write(&path, "\u{feff}10295\n12\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "10295\n12\n");
        assert_eq!(crate::read_label_list(&path).unwrap(), ["10295", "12"]);
        let long: String = (0..30_000).map(|i| format!("{i} ")).collect();
        let text = format!("1 2\n{long}\n3\n");
        let file = dir.path().join("long.dat");
        std::fs::write(&file, &text).unwrap();
        for (format, name) in [(Format::Fimi, "long.dat"), (Format::BasketWide, "long.dat")] {
            let file = dir.path().join(name);
            let enough = ReadOptions::new().format(format).max_line_bytes(long.len() as u64);
            assert_eq!(read_path(&file, &enough).unwrap().0.len(), 3, "{format}");
            let short = ReadOptions::new().format(format).max_line_bytes(long.len() as u64 - 1);
            let err = read_path(&file, &short).unwrap_err().to_string();
            assert!(err.contains(":2:") && err.contains("--max-line-bytes"), "{format}: {err}");
            // Inside one buffer: the second line is refused at a small limit.
            let tiny = ReadOptions::new().format(format).max_line_bytes(3);
            let err = read_path(&file, &tiny).unwrap_err().to_string();
            assert!(err.contains(":2:"), "{format}: {err}");
        }
    }

    /// A nameless input's format is told from its first data line, and reading it so gives the
    /// same database as reading it in the format it is.
    #[test]
    fn standard_input_formats_are_told_from_the_first_line() {
        for (text, format) in [
            ("1 2\n2 3\n", Format::Fimi),
            ("\n1 2\n", Format::Fimi),
            ("1 2 -1 -2\n2 3 -1 -2\n", Format::Spmf),
            ("@CONVERTED_FROM_TEXT\n1 2 -1 -2\n", Format::Spmf),
            ("a,b\nb,c\n", Format::BasketWide),
            ("# comment\n1\n2\n", Format::BasketWide),
            ("bread\nmilk\n", Format::BasketWide),
            ("transaction_id,item\n1,a\n1,b\n", Format::BasketLong),
            ("\u{feff}transaction_id,item\n1,a\n", Format::BasketLong),
        ] {
            let mut reader = text.as_bytes();
            assert_eq!(sniff_format(&mut reader).unwrap(), format, "{text:?}");
            assert_eq!(reader, text.as_bytes(), "the sniff consumes nothing");
        }
    }

    /// A leading byte-order mark is dropped by every reader alike: the same database with and
    /// without it, in every format.
    #[test]
    fn a_byte_order_mark_is_dropped_everywhere() {
        for (format, text) in [
            (Format::Fimi, "1 2\n2 3\n"),
            (Format::Spmf, "1 2 -1 -2\n2 3 -1 -2\n"),
            (Format::BasketWide, "a,b\nb,c\n"),
            (Format::BasketLong, "transaction_id,item\n1,a\n1,b\n2,c\n"),
        ] {
            let plain = read_bytes(text.as_bytes(), format, true).unwrap().0;
            let marked = [UTF8_BOM, text.as_bytes()].concat();
            let with_mark = read_bytes(&marked, format, true).unwrap().0;
            assert_eq!(plain, with_mark, "{format:?}");
        }
    }

    fn parse_err(r: Result<(TransactionDb, ReadReport)>) -> (u64, u64, String) {
        match r {
            Err(DataError::Parse { location, reason }) => (location.line, location.column, reason),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn fimi_trailing_spaces_crlf_and_empty_lines() {
        let (db, report) = fimi("1 2 3 \r\n\n3 1\n").unwrap();
        assert_eq!(db.len(), 3);
        assert_eq!(report.empty_transactions, 1);
        assert_eq!(db.transaction(2), &[0, 2]);
        let (db, _) = read_bytes(b"1 2\n\n3\n", Format::Fimi, false).unwrap();
        assert_eq!(db.len(), 2);
    }

    #[test]
    fn fimi_duplicates_are_dropped_and_counted() {
        let (db, report) = fimi("5 3 5\n").unwrap();
        assert_eq!(db.transaction(0).len(), 2);
        assert_eq!(report.duplicates_dropped, 1);
    }

    #[test]
    fn fimi_errors_are_located() {
        let (line, col, reason) = parse_err(fimi("1 2\n3 x4 5\n"));
        assert_eq!((line, col), (2, 3));
        assert!(reason.contains("non-numeric token \"x4\""), "{reason}");
        let (line, col, reason) = parse_err(fimi("1 2a\n"));
        assert_eq!((line, col), (1, 3));
        assert!(reason.contains("\"2a\""), "{reason}");
        let (_, col, reason) = parse_err(fimi("7 4294967296\n"));
        assert_eq!(col, 3);
        assert!(reason.contains("beyond u32"), "{reason}");
        let (_, _, reason) = parse_err(fimi("-3\n"));
        assert!(reason.contains("negative"), "{reason}");
        assert!(fimi("4294967295\n").is_ok());
    }

    #[test]
    fn empty_file_is_an_error() {
        assert!(matches!(fimi(""), Err(DataError::Invalid { .. })));
        // A single newline is one empty transaction, not an empty file.
        assert_eq!(fimi("\n").unwrap().0.len(), 1);
    }

    #[test]
    fn spmf_markers_and_comments() {
        let text = "@CONVERTED_FROM_TEXT\n# comment\n10 -1 20 -1 -2\n20 -1 -2\n";
        let (db, report) = read_bytes(text.as_bytes(), Format::Spmf, true).unwrap();
        assert_eq!(db.len(), 2);
        assert_eq!(report.skipped_lines, 2);
        assert_eq!(db.transaction(0), &[0, 1]);
        let (line, col, _) = parse_err(read_bytes(b"1 -3\n", Format::Spmf, true));
        assert_eq!((line, col), (1, 3));
    }

    #[test]
    fn csv_splitting() {
        let mut f = Vec::new();
        split_csv(r#" a , "b,c" ,"d""e","#, b',', &mut f).unwrap();
        assert_eq!(f, vec!["a", "b,c", "d\"e", ""]);
        assert_eq!(split_csv(r#"a,"bc"#, b',', &mut f).unwrap_err().0, 3);
        assert_eq!(split_csv(r#""ab"c,d"#, b',', &mut f).unwrap_err().0, 5);
    }

    #[test]
    fn wide_csv() {
        let text = "# a comment\nbread, milk\n\nmilk,beer,\n";
        let (db, report) = read_bytes(text.as_bytes(), Format::BasketWide, true).unwrap();
        assert_eq!(db.len(), 3);
        assert_eq!(report.skipped_lines, 1);
        assert_eq!(db.label(db.transaction(2)[0]).to_string(), "beer");
        let bad = read_bytes(b"a,b\n\xff\n", Format::BasketWide, true);
        assert_eq!(parse_err(bad).0, 2);
    }

    #[test]
    fn long_csv() {
        let text = "transaction_id,item\nt1,bread\nt2,milk\nt1,milk\n";
        let (db, report) = read_bytes(text.as_bytes(), Format::BasketLong, true).unwrap();
        assert_eq!(report.skipped_lines, 1);
        assert_eq!(db.len(), 2);
        assert_eq!(db.transaction(0).len(), 2);
        let (line, col, reason) =
            parse_err(read_bytes(b"t1,a\nt2,b,c\n", Format::BasketLong, true));
        assert_eq!((line, col), (2, 0));
        assert!(reason.contains("expected 2 columns"), "{reason}");
    }

    #[test]
    fn format_from_path() {
        assert_eq!(Format::from_path(Path::new("x/retail.dat.gz")), Some(Format::Fimi));
        assert_eq!(Format::from_path(Path::new("a.CSV")), Some(Format::BasketWide));
        assert_eq!(Format::from_path(Path::new("a.bin")), None);
        assert_eq!("basket-long".parse::<Format>(), Ok(Format::BasketLong));
    }
}
