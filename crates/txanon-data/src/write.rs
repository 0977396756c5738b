//! Writers for FIMI and basket CSV that round-trip the original labels, and atomic file output.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;

use rayon::prelude::*;

use crate::db::TransactionDb;
use crate::error::{DataError, Result};
use crate::labels::{ItemLabels, Label};
use crate::read::Format;

/// Writes `db` in `format` to `out`.
///
/// FIMI and SPMF need integer labels; basket CSV quotes labels that contain a comma, a quote or
/// surrounding blanks, so that reading the file back gives the same labels. Long-form CSV numbers
/// the transactions `1..=n` in the database's order (the source's transaction ids are not kept).
///
/// # Errors
/// [`DataError::Unsupported`] when FIMI/SPMF output is asked of text labels, or when a text label
/// could not be read back as written (empty, or starting with `#` at the start of a line); I/O
/// errors as [`std::io::Error`] wrapped with the pseudo-path `<output>`.
pub fn write_db<W: Write>(db: &TransactionDb, format: Format, out: W) -> Result<()> {
    let path = Path::new("<output>");
    let mut out = BufWriter::with_capacity(1 << 16, out);
    let io = |e| DataError::io(path, e);
    match format {
        Format::Parquet | Format::ArrowIpc => crate::columnar::write(db, format, &mut out)?,
        Format::Fimi | Format::Spmf => {
            let ItemLabels::Int(labels) = db.labels() else {
                return Err(DataError::Unsupported(format!(
                    "{format} needs integer item labels, and these are text: write basket CSV instead"
                )));
            };
            let spmf = format == Format::Spmf;
            write_in_blocks(db, &mut out, |text, t| {
                push_line(text, t, labels, spmf);
                Ok(())
            })?;
        }
        Format::BasketWide => {
            // Each label quoted once, not once per occurrence: a generalized publication
            // (km's) repeats a hundred labels ten million times.
            let cells: Vec<CsvCell> =
                (0..db.num_items() as crate::ItemId).map(|i| CsvCell::of(db.label(i))).collect();
            write_in_blocks(db, &mut out, |text, t| {
                for (k, &item) in t.iter().enumerate() {
                    let cell = &cells[item as usize];
                    if k > 0 {
                        text.push(b',');
                        text.extend_from_slice(cell.inside()?);
                    } else {
                        text.extend_from_slice(cell.first()?);
                    }
                }
                text.push(b'\n');
                Ok(())
            })?;
        }
        Format::BasketLong => {
            out.write_all(b"transaction_id,item\n").map_err(io)?;
            for (i, t) in db.iter().enumerate() {
                for &item in t {
                    write!(out, "{},", i + 1).map_err(io)?;
                    write_label(&mut out, db.label(item), false)?;
                    out.write_all(b"\n").map_err(io)?;
                }
            }
        }
    }
    out.flush().map_err(io)
}

/// A label as a basket CSV cell, quoted where reading it back needs it: at the start of a line
/// (where `#` would open a comment) and elsewhere; or why it cannot be written.
struct CsvCell {
    first: std::result::Result<Vec<u8>, String>,
    inside: std::result::Result<Vec<u8>, String>,
}

impl CsvCell {
    fn of(label: Label<'_>) -> Self {
        match label {
            Label::Int(v) => {
                let mut text = Vec::new();
                push_decimal(&mut text, v.into());
                Self { first: Ok(text.clone()), inside: Ok(text) }
            }
            Label::Str(s) => Self { first: quoted(s, true), inside: quoted(s, false) },
        }
    }

    fn first(&self) -> Result<&[u8]> {
        self.first.as_deref().map_err(|why| DataError::Unsupported(why.clone()))
    }

    fn inside(&self) -> Result<&[u8]> {
        self.inside.as_deref().map_err(|why| DataError::Unsupported(why.clone()))
    }
}

/// `s` as a CSV cell (`line_start`: the first of its line).
fn quoted(s: &str, line_start: bool) -> std::result::Result<Vec<u8>, String> {
    if s.is_empty() {
        return Err("an empty item label cannot be written to CSV".into());
    }
    let needs_quotes =
        s.contains([',', '"', '\n', '\r']) || s.trim() != s || (line_start && s.starts_with('#'));
    if !needs_quotes {
        return Ok(s.as_bytes().to_vec());
    }
    if s.contains(['\n', '\r']) {
        return Err(format!("item label {s:?} has a line break"));
    }
    Ok(format!("\"{}\"", s.replace('"', "\"\"")).into_bytes())
}

/// Writes each record's line as `line` appends it, the lines formatted in blocks on rayon and
/// written in order, a wave of blocks at a time (a few megabytes held; [`write_waves`]):
/// formatting is most of writing a publication. The first record's error in the file's order
/// is returned.
fn write_in_blocks<W: Write>(
    db: &TransactionDb,
    out: &mut W,
    line: impl Fn(&mut Vec<u8>, &[crate::ItemId]) -> Result<()> + Sync,
) -> Result<()> {
    let io = |e| DataError::io(Path::new("<output>"), e);
    let blocks = db.len().div_ceil(ROWS_PER_BLOCK);
    let wave = 4 * rayon::current_num_threads().max(1);
    let format = |w: usize| -> Vec<Result<Vec<u8>>> {
        (w * wave..((w + 1) * wave).min(blocks))
            .into_par_iter()
            .map(|b| {
                let rows = b * ROWS_PER_BLOCK..((b + 1) * ROWS_PER_BLOCK).min(db.len());
                let mut text = Vec::with_capacity(rows.len() * 64);
                for r in rows {
                    line(&mut text, db.transaction(r))?;
                }
                Ok(text)
            })
            .collect()
    };
    write_waves(out, blocks.div_ceil(wave), format, |out, text| out.write_all(text).map_err(io))
}

/// Writes the texts `format(w)` makes for the waves `w` in `0..waves`, in order, each passed to
/// `write`. Each wave is formatted (on rayon) on a thread of its own while this one writes the
/// wave before, so the writes, a copy into the page cache and a core's work at a gigabyte,
/// overlap the formatting; at most three waves are held. The first error in the file's order
/// is returned; the formatter stops within two waves of it (one waiting to be written, one
/// being formatted).
fn write_waves<W: Write + ?Sized, E: Send>(
    out: &mut W,
    waves: usize,
    format: impl Fn(usize) -> Vec<std::result::Result<Vec<u8>, E>> + Sync,
    mut write: impl FnMut(&mut W, &[u8]) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    if waves <= 1 {
        // One wave: nothing to overlap.
        for text in (0..waves).flat_map(&format) {
            write(out, &text?)?;
        }
        return Ok(());
    }
    std::thread::scope(|scope| {
        // One wave formatted ahead of the one being written.
        let (sender, formatted) = std::sync::mpsc::sync_channel(1);
        let format = &format;
        let formatter = scope.spawn(move || {
            for w in 0..waves {
                // The writer stopped (an error): no more waves.
                if sender.send(format(w)).is_err() {
                    break;
                }
            }
        });
        let written = (|| {
            for texts in formatted {
                for text in texts {
                    write(out, &text?)?;
                }
            }
            Ok(())
        })();
        // On an error the receiver is dropped here first, so the formatter stops at its next
        // wave; a panic in it is passed on.
        formatter.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        written
    })
}

/// A label for the long form, written line by line.
fn write_label<W: Write>(out: &mut W, label: Label<'_>, line_start: bool) -> Result<()> {
    let io = |e| DataError::io(Path::new("<output>"), e);
    match label {
        Label::Int(v) => write!(out, "{v}").map_err(io),
        Label::Str(s) => {
            let cell = quoted(s, line_start).map_err(DataError::Unsupported)?;
            out.write_all(&cell).map_err(io)
        }
    }
}

/// Records per block of the parallel formatters.
const ROWS_PER_BLOCK: usize = 16_384;

/// Appends record `t`'s line in FIMI (items by `labels`, space-separated) or SPMF.
fn push_line(text: &mut Vec<u8>, t: &[crate::ItemId], labels: &[u32], spmf: bool) {
    for (k, &item) in t.iter().enumerate() {
        if k > 0 {
            text.extend_from_slice(if spmf { b" -1 " } else { b" " });
        }
        push_u32(text, labels[item as usize]);
    }
    if spmf {
        if !t.is_empty() {
            text.extend_from_slice(b" -1");
        }
        text.extend_from_slice(b" -2");
    }
    text.push(b'\n');
}

/// Appends the decimal form of `v`; `write!` costs several times more on this hot path.
fn push_u32(buf: &mut Vec<u8>, v: u32) {
    push_decimal(buf, v.into());
}

/// Appends the decimal form of `v` to `buf`: the number formatting of the writers that format
/// millions of numbers (this crate's record files, anatomy's table, CAHD's groups). Numbers of
/// up to four digits, nearly all a publication holds, are written as one fixed-size append
/// each from a table of digit pairs: a copy of a variable length was a call to `memcpy` per
/// number.
pub fn push_decimal(buf: &mut Vec<u8>, v: u64) {
    let pair = |d: u64| -> [u8; 2] {
        let d = 2 * d as usize;
        [DIGIT_PAIRS[d], DIGIT_PAIRS[d + 1]]
    };
    match v {
        0..10 => buf.push(b'0' + v as u8),
        10..100 => buf.extend_from_slice(&pair(v)),
        100..1000 => {
            let [a, b] = pair(v % 100);
            buf.extend_from_slice(&[b'0' + (v / 100) as u8, a, b]);
        }
        1000..10_000 => {
            let ([a, b], [c, d]) = (pair(v / 100), pair(v % 100));
            buf.extend_from_slice(&[a, b, c, d]);
        }
        _ => {
            let mut tmp = [0u8; 20];
            let mut i = tmp.len();
            let mut v = v;
            while v >= 100 {
                i -= 2;
                tmp[i..i + 2].copy_from_slice(&pair(v % 100));
                v /= 100;
            }
            if v >= 10 {
                i -= 2;
                tmp[i..i + 2].copy_from_slice(&pair(v));
            } else {
                i -= 1;
                tmp[i] = b'0' + v as u8;
            }
            buf.extend_from_slice(&tmp[i..]);
        }
    }
}

/// "00", "01", …, "99": two digits per entry.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// Writes `elements` as the members of a JSON array, comma-separated (the brackets and what
/// surrounds them are the caller's), each appended by `push`: the elements are formatted in
/// blocks of `per_block` on rayon and written in order, `per_wave` blocks at a time, each wave
/// written while the next is formatted (as [`write_db`] writes records), so that a few waves'
/// text is held at once, not the whole array's. The publications' large JSON files
/// (anatomy's table, CAHD's groups: 500–600 MB at 10⁷ records) took seconds to format on one
/// thread.
///
/// # Errors
/// Writing to `w`.
pub fn write_json_elements<T: Sync, W: Write + ?Sized>(
    w: &mut W,
    elements: &[T],
    (per_block, per_wave): (usize, usize),
    push: impl Fn(&mut Vec<u8>, &T) + Sync,
) -> std::io::Result<()> {
    let per_block = per_block.max(1);
    let per_wave = per_block.saturating_mul(per_wave.max(1));
    let format = |wave: usize| -> Vec<std::io::Result<Vec<u8>>> {
        elements[wave * per_wave..((wave + 1) * per_wave).min(elements.len())]
            .par_chunks(per_block)
            .map(|block| {
                let mut text = Vec::new();
                for element in block {
                    text.push(b',');
                    push(&mut text, element);
                }
                Ok(text)
            })
            .collect()
    };
    let mut first = true;
    write_waves(w, elements.len().div_ceil(per_wave), format, |w, text| {
        // Every element after a comma, but the array's first.
        let skip = usize::from(std::mem::take(&mut first));
        w.write_all(&text[skip..])
    })
}

/// Writes a file atomically: `fill` writes into a temporary file in the destination's directory,
/// which is renamed over `path` only when `fill` succeeds. A failed run leaves nothing behind.
///
/// What `path` already is decides how it is written (see [`Destination`]): a regular file, or a
/// link to one, is replaced atomically (a link's target, the link kept); a character device or
/// a FIFO (`/dev/null`, `/dev/stdout` on a pipe or a terminal) is written in place, as it is
/// meant to be, and never renamed over; a directory, a block device, a socket or a dangling
/// link is refused.
///
/// # Errors
/// Whatever `fill` returns, or an I/O error creating, syncing or renaming the temporary file.
pub fn write_atomic<E>(
    path: &Path,
    fill: impl FnOnce(&mut fs::File) -> std::result::Result<(), E>,
) -> std::result::Result<(), E>
where
    E: From<DataError>,
{
    write_atomic_with_mode(path, 0o644, fill)
}

/// [`write_atomic`] for a file whose permissions are `mode` (on Unix) from the moment it is
/// visible: `0o600` for a secret, which must never be readable by others, not even briefly.
///
/// # Errors
/// As [`write_atomic`].
pub fn write_atomic_with_mode<E>(
    path: &Path,
    mode: u32,
    fill: impl FnOnce(&mut fs::File) -> std::result::Result<(), E>,
) -> std::result::Result<(), E>
where
    E: From<DataError>,
{
    Ok(write_unpersisted(path, mode, fill)?.persist()?)
}

/// [`write_atomic_with_mode`] up to the rename: the file is written in full and synced beside
/// `path`, out of sight, and [`Unpersisted::persist`] moves it into place (a stream is written
/// in place at once, as [`write_atomic`] writes it). A publication's files are written on
/// threads of their own and moved into place one after the other by the caller.
///
/// # Errors
/// As [`write_atomic`], but for the rename.
pub fn write_unpersisted<E>(
    path: &Path,
    mode: u32,
    fill: impl FnOnce(&mut fs::File) -> std::result::Result<(), E>,
) -> std::result::Result<Unpersisted, E>
where
    E: From<DataError>,
{
    let resolved;
    let path = match Destination::of(path)? {
        Destination::Stream => {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| DataError::io(path, e))?;
            fill(&mut file)?;
            return Ok(Unpersisted { file: None });
        }
        Destination::File(p) => {
            resolved = p;
            resolved.as_path()
        }
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".txanon-")
        .suffix(".part")
        .tempfile_in(dir)
        .map_err(|e| DataError::io(dir, e))?;
    fill(tmp.as_file_mut())?;
    tmp.as_file_mut().sync_all().map_err(|e| DataError::io(path, e))?;
    // The temporary file is created private (0600); it gets the mode asked for before it is
    // renamed into sight.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(mode))
            .map_err(|e| DataError::io(path, e))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    Ok(Unpersisted { file: Some((tmp, path.to_path_buf())) })
}

/// A file [`write_unpersisted`] wrote beside its destination; removed if dropped before
/// [`Unpersisted::persist`].
#[derive(Debug)]
#[must_use = "the file is removed unless persisted"]
pub struct Unpersisted {
    /// The temporary file and its destination; `None` for a stream, written in place.
    file: Option<(tempfile::NamedTempFile, std::path::PathBuf)>,
}

impl Unpersisted {
    /// Renames the file over its destination.
    ///
    /// # Errors
    /// The rename's, naming the destination.
    pub fn persist(self) -> Result<()> {
        if let Some((tmp, path)) = self.file {
            tmp.persist(&path).map_err(|e| DataError::io(&path, e.error))?;
        }
        Ok(())
    }
}

/// How an output path is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A character device or a FIFO, written in place.
    Stream,
    /// A regular file (or none yet) at this path, replaced atomically: the path given, or the
    /// file a link names.
    File(std::path::PathBuf),
}

impl Destination {
    /// What `path` is, as an output.
    ///
    /// # Errors
    /// [`DataError::Invalid`] naming the path for a directory, a block device, a socket or a
    /// dangling link.
    pub fn of(path: &Path) -> Result<Self> {
        #[cfg(unix)]
        use std::os::unix::fs::FileTypeExt;
        let Ok(link) = fs::symlink_metadata(path) else {
            return Ok(Destination::File(path.to_path_buf()));
        };
        let Ok(meta) = fs::metadata(path) else {
            return Err(DataError::invalid(
                path,
                "is a dangling link: its target does not exist (name the target, or remove the link)",
            ));
        };
        let kind = meta.file_type();
        if kind.is_dir() {
            return Err(DataError::invalid(path, "is a directory, not a file to write"));
        }
        #[cfg(unix)]
        {
            if kind.is_char_device() || kind.is_fifo() {
                return Ok(Destination::Stream);
            }
            if kind.is_block_device() {
                return Err(DataError::invalid(path, "is a block device: not written"));
            }
            if kind.is_socket() {
                return Err(DataError::invalid(path, "is a socket: not written"));
            }
        }
        if link.file_type().is_symlink() {
            // The file the link names is replaced, the link kept.
            let target = fs::canonicalize(path).map_err(|e| DataError::io(path, e))?;
            return Ok(Destination::File(target));
        }
        Ok(Destination::File(path.to_path_buf()))
    }
}

/// Writes `db` to `path` in `format`, atomically (see [`write_atomic`]).
pub fn write_path(db: &TransactionDb, format: Format, path: &Path) -> Result<()> {
    write_atomic(path, |file| write_db(db, format, file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read_bytes;

    fn roundtrip(db: &TransactionDb, format: Format) -> TransactionDb {
        let mut buf = Vec::new();
        write_db(db, format, &mut buf).unwrap();
        read_bytes(&buf, format, true).unwrap().0
    }

    #[test]
    fn fimi_and_spmf_roundtrip() {
        let db = TransactionDb::from_int_transactions([vec![0, 7, 4_000_000_000], vec![], vec![7]]);
        assert_eq!(roundtrip(&db, Format::Fimi), db);
        assert_eq!(roundtrip(&db, Format::Spmf), db);
    }

    /// Every length's fixed-size path and the general one, at their edges and between, is
    /// `u64`'s own formatting, appended after what the buffer held.
    #[test]
    fn decimals_are_the_standard_formatting() {
        let mut values: Vec<u64> = vec![u64::MAX, u64::MAX - 1];
        for p in 0..20u32 {
            let ten = 10u64.pow(p);
            values.extend([
                ten.saturating_sub(1),
                ten,
                ten + 1,
                ten.saturating_mul(7).saturating_add(3),
            ]);
        }
        // Every number of up to five digits, the fixed paths' whole range and past it.
        values.extend(0..100_000);
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        values.extend((0..10_000).map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            state >> (state % 64)
        }));
        for v in values {
            let mut buf = b"x".to_vec();
            push_decimal(&mut buf, v);
            assert_eq!(buf, format!("x{v}").into_bytes(), "{v}");
        }
    }

    #[test]
    fn csv_roundtrip_with_awkward_labels() {
        let db = TransactionDb::from_str_transactions([
            vec!["a,b", " padded ", "quote\"d"],
            vec!["#hash", "plain"],
        ]);
        assert_eq!(roundtrip(&db, Format::BasketWide), db);
        assert_eq!(roundtrip(&db, Format::BasketLong), db);
    }

    /// Over many blocks (and waves of them), basket CSV written in parallel is, byte for
    /// byte, the lines a cell-by-cell writer makes: awkward labels quoted, `#` only at a
    /// line's start, integers as themselves, an empty row an empty line.
    #[test]
    fn basket_csv_in_blocks_is_the_line_by_line_text() {
        let words = ["a,b", " padded ", "quote\"d", "#hash", "plain", "x#y"];
        let n = ROWS_PER_BLOCK * 4 * rayon::current_num_threads() + 1234;
        let rows: Vec<Vec<&str>> = (0..n as u64)
            .map(|j| {
                let bits = crate::mix64(j);
                words
                    .iter()
                    .enumerate()
                    .filter(|&(w, _)| bits >> w & 1 == 1)
                    .map(|(_, &w)| w)
                    .collect()
            })
            .collect();
        let db = TransactionDb::from_str_transactions(rows);
        let mut expected = String::new();
        for r in 0..db.len() {
            let cells: Vec<String> = db
                .transaction(r)
                .iter()
                .enumerate()
                .map(|(k, &i)| {
                    let s = db.label(i).to_string();
                    let quote =
                        s.contains([',', '"']) || s.trim() != s || (k == 0 && s.starts_with('#'));
                    if quote { format!("\"{}\"", s.replace('"', "\"\"")) } else { s }
                })
                .collect();
            expected.push_str(&cells.join(","));
            expected.push('\n');
        }
        let mut buf = Vec::new();
        write_db(&db, Format::BasketWide, &mut buf).unwrap();
        assert!(expected.contains("\n\"#hash\",") && expected.contains(",#hash"), "both forms met");
        assert_eq!(String::from_utf8(buf).unwrap(), expected);
        assert_eq!(roundtrip(&db, Format::BasketWide), db);
        let ints = TransactionDb::from_int_transactions([vec![5, 40_000], vec![], vec![7]]);
        let mut buf = Vec::new();
        write_db(&ints, Format::BasketWide, &mut buf).unwrap();
        assert_eq!(buf, b"5,40000\n\n7\n");
    }

    /// A label that cannot be read back is refused where a record holds it, in the last block
    /// too; one no record holds is not.
    #[test]
    fn basket_csv_refuses_a_label_only_where_written() {
        let mut rows = vec![vec!["fine".to_string()]; ROWS_PER_BLOCK * 3];
        rows.push(vec!["fine".into(), "line\nbreak".into()]);
        let db = TransactionDb::from_str_transactions(rows);
        let err = write_db(&db, Format::BasketWide, Vec::new()).unwrap_err();
        assert!(err.to_string().contains("line break"), "{err}");
        let unused = TransactionDb::from_parts(
            vec![0, 1],
            vec![1],
            ItemLabels::Str(vec![String::new(), "used".into()]),
        );
        let mut buf = Vec::new();
        write_db(&unused, Format::BasketWide, &mut buf).unwrap();
        assert_eq!(buf, b"used\n");
    }

    /// Waves are written whole and in order, however many; the first error in the file's
    /// order, the format's or the writer's, is returned with everything before it written,
    /// and formatting stops a few waves after it.
    #[test]
    fn waves_are_written_in_order_up_to_the_first_error() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let text = |w: usize, b: usize| format!("{w}.{b};").into_bytes();
        let all = |waves: usize| -> Vec<u8> {
            (0..waves).flat_map(|w| (0..3).flat_map(move |b| text(w, b))).collect()
        };
        for waves in [0, 1, 2, 10] {
            let mut out = Vec::new();
            let format = |w: usize| (0..3).map(|b| Ok::<_, String>(text(w, b))).collect();
            write_waves(&mut out, waves, format, |out, t| {
                out.extend_from_slice(t);
                Ok(())
            })
            .unwrap();
            assert_eq!(out, all(waves), "{waves} waves");
        }
        // A format's error at wave 4's second block.
        let formatted = AtomicUsize::new(0);
        let format = |w: usize| {
            formatted.fetch_add(1, Ordering::SeqCst);
            (0..3)
                .map(|b| if (w, b) == (4, 1) { Err(format!("{w}.{b}")) } else { Ok(text(w, b)) })
                .collect()
        };
        let mut out = Vec::new();
        let result = write_waves(&mut out, 100, format, |out, t| {
            out.extend_from_slice(t);
            Ok(())
        });
        assert_eq!(result, Err("4.1".to_string()));
        let mut expected = all(4);
        expected.extend(text(4, 0));
        assert_eq!(out, expected);
        // Waves 0 to 4, one waiting behind wave 4 and one being formatted when it failed.
        assert!(formatted.load(Ordering::SeqCst) <= 7, "{formatted:?} waves formatted");
        // The writer's error at the seventh text.
        let (mut out, mut texts) = (Vec::new(), 0);
        let format = |w: usize| (0..3).map(|b| Ok(text(w, b))).collect();
        let result = write_waves(&mut out, 100, format, |out, t| {
            texts += 1;
            if texts == 7 {
                return Err("full".to_string());
            }
            out.extend_from_slice(t);
            Ok(())
        });
        assert_eq!(result, Err("full".to_string()));
        assert_eq!(out, all(2));
    }

    #[test]
    fn fimi_refuses_text_labels() {
        let db = TransactionDb::from_str_transactions([vec!["milk"]]);
        assert!(matches!(write_db(&db, Format::Fimi, Vec::new()), Err(DataError::Unsupported(_))));
    }

    #[test]
    fn atomic_write_leaves_nothing_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.dat");
        let r: Result<()> = write_atomic(&target, |_| Err(DataError::Unsupported("boom".into())));
        assert!(r.is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "no partial or temporary file");
        let db = TransactionDb::from_int_transactions([vec![1, 2]]);
        write_path(&db, Format::Fimi, &target).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "1 2\n");
    }

    /// A file written but not persisted is out of sight, the old file in place; persisted it
    /// replaces the old one with the mode asked for; dropped it leaves nothing.
    #[test]
    fn unpersisted_files_are_out_of_sight_until_moved() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.json");
        fs::write(&target, "old").unwrap();
        let fill = |text: &'static str| {
            move |file: &mut fs::File| -> Result<()> {
                std::io::Write::write_all(file, text.as_bytes())
                    .map_err(|e| DataError::io(Path::new("out.json"), e))
            }
        };
        let written = write_unpersisted(&target, 0o640, fill("new")).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2, "the old file and the new");
        written.persist().unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o640);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        drop(write_unpersisted(&target, 0o644, fill("dropped")).unwrap());
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "nothing left behind");
    }
}
