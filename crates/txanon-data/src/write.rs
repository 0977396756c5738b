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
            // Lines are formatted in blocks on rayon and written in order, a wave of blocks at
            // a time (a few megabytes held): formatting is most of writing a publication.
            let spmf = format == Format::Spmf;
            let blocks = db.len().div_ceil(ROWS_PER_BLOCK);
            let wave = 4 * rayon::current_num_threads().max(1);
            for first in (0..blocks).step_by(wave) {
                let texts: Vec<Vec<u8>> = (first..(first + wave).min(blocks))
                    .into_par_iter()
                    .map(|b| {
                        let rows = b * ROWS_PER_BLOCK..((b + 1) * ROWS_PER_BLOCK).min(db.len());
                        let mut text = Vec::with_capacity(rows.len() * 64);
                        for r in rows {
                            push_line(&mut text, db.transaction(r), labels, spmf);
                        }
                        text
                    })
                    .collect();
                for text in texts {
                    out.write_all(&text).map_err(io)?;
                }
            }
        }
        Format::BasketWide => {
            for t in db.iter() {
                for (k, &item) in t.iter().enumerate() {
                    if k > 0 {
                        out.write_all(b",").map_err(io)?;
                    }
                    write_label(&mut out, db.label(item), k == 0)?;
                }
                out.write_all(b"\n").map_err(io)?;
            }
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

fn write_label<W: Write>(out: &mut W, label: Label<'_>, line_start: bool) -> Result<()> {
    let io = |e| DataError::io(Path::new("<output>"), e);
    match label {
        Label::Int(v) => write!(out, "{v}").map_err(io),
        Label::Str(s) => {
            if s.is_empty() {
                return Err(DataError::Unsupported(
                    "an empty item label cannot be written to CSV".into(),
                ));
            }
            let needs_quotes = s.contains([',', '"', '\n', '\r'])
                || s.trim() != s
                || (line_start && s.starts_with('#'));
            if needs_quotes {
                if s.contains(['\n', '\r']) {
                    return Err(DataError::Unsupported(format!(
                        "item label {s:?} has a line break"
                    )));
                }
                write!(out, "\"{}\"", s.replace('"', "\"\"")).map_err(io)
            } else {
                out.write_all(s.as_bytes()).map_err(io)
            }
        }
    }
}

/// Records per block of the parallel FIMI/SPMF formatter.
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
/// millions of numbers (this crate's record files, anatomy's table).
pub fn push_decimal(buf: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
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
    let resolved;
    let path = match Destination::of(path)? {
        Destination::Stream => {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| DataError::io(path, e))?;
            return fill(&mut file);
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
    tmp.persist(path).map_err(|e| DataError::io(path, e.error))?;
    Ok(())
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

    #[test]
    fn csv_roundtrip_with_awkward_labels() {
        let db = TransactionDb::from_str_transactions([
            vec!["a,b", " padded ", "quote\"d"],
            vec!["#hash", "plain"],
        ]);
        assert_eq!(roundtrip(&db, Format::BasketWide), db);
        assert_eq!(roundtrip(&db, Format::BasketLong), db);
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
}
