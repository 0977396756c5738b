//! The writers of a publication's files: transactions in the format asked, JSON streamed,
//! text; each written atomically.

use std::path::{Path, PathBuf};

use txanon_data::{Format, TransactionDb, Unpersisted, write_db, write_unpersisted};

use crate::error::{PublishError, Result};

/// The extensions a published transaction file may have, in the order an audit looks for them.
pub const TRANSACTION_FILES: [&str; 4] = ["dat", "csv", "parquet", "arrow"];

/// The file name and format of a published transaction file `stem` in the format `to` asks
/// for: by default `.dat` (FIMI) when every label is an integer, else `.csv` (basket CSV, wide
/// form); SPMF is never a publication's format, and FIMI asked of text labels gives wide basket
/// CSV, as the default does.
pub fn transaction_file(stem: &str, db: &TransactionDb, to: Option<Format>) -> (String, Format) {
    let ints = matches!(db.labels(), txanon_data::ItemLabels::Int(_));
    let (ext, format) = match to.unwrap_or(Format::Fimi) {
        Format::Parquet => ("parquet", Format::Parquet),
        Format::ArrowIpc => ("arrow", Format::ArrowIpc),
        Format::BasketLong => ("csv", Format::BasketLong),
        Format::BasketWide => ("csv", Format::BasketWide),
        Format::Fimi | Format::Spmf if ints => ("dat", Format::Fimi),
        Format::Fimi | Format::Spmf => ("csv", Format::BasketWide),
    };
    (format!("{stem}.{ext}"), format)
}

/// Writes `db` atomically as `dir/stem.EXT` (see [`transaction_file`]). Returns the path.
///
/// # Errors
/// I/O, naming the file.
pub fn write_transactions(
    dir: &Path,
    stem: &str,
    db: &TransactionDb,
    to: Option<Format>,
) -> Result<PathBuf> {
    let (path, written) = transactions_unpersisted(dir, stem, db, to)?;
    written.persist()?;
    Ok(path)
}

/// [`write_transactions`] up to the rename into place.
pub(crate) fn transactions_unpersisted(
    dir: &Path,
    stem: &str,
    db: &TransactionDb,
    to: Option<Format>,
) -> Result<(PathBuf, Unpersisted)> {
    let (name, format) = transaction_file(stem, db, to);
    let path = dir.join(name);
    let failed = |e| PublishError::io(format!("writing {}", path.display()), e);
    let written = write_unpersisted(&path, FILE_MODE, |file| -> Result<()> {
        let mut w = std::io::BufWriter::new(file);
        write_db(db, format, &mut w)?;
        std::io::Write::flush(&mut w).map_err(failed)
    })?;
    Ok((path, written))
}

/// Writes what `write` produces to `path` atomically (a publication's JSON can be larger than
/// the data it describes; it is streamed, never held in memory as text).
///
/// # Errors
/// I/O, naming the file.
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<()> {
    Ok(with_unpersisted(path, write)?.persist()?)
}

/// [`write_with`] up to the rename into place.
pub(crate) fn with_unpersisted(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<Unpersisted> {
    let failed = |e| PublishError::io(format!("writing {}", path.display()), e);
    write_unpersisted(path, FILE_MODE, |file| -> Result<()> {
        let mut w = std::io::BufWriter::new(file);
        write(&mut w).map_err(failed)?;
        std::io::Write::flush(&mut w).map_err(failed)
    })
}

/// A published file's permissions, as [`txanon_data::write_atomic`] gives them.
const FILE_MODE: u32 = 0o644;

/// Writes `value` to `path` atomically as compact JSON, streamed.
///
/// # Errors
/// I/O, naming the file.
pub fn write_compact_json(path: &Path, value: &impl serde::Serialize) -> Result<()> {
    write_with(path, |w| compact_json(w, value).map_err(std::io::Error::other))
}

/// Writes `value` to `w` as compact JSON through a buffer of its own: serde_json writes a few
/// bytes at a time, and through `dyn Write` each of them is a call that cannot be inlined.
///
/// # Errors
/// Serialization or I/O.
pub(crate) fn compact_json(
    w: &mut dyn std::io::Write,
    value: &impl serde::Serialize,
) -> serde_json::Result<()> {
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, w);
    serde_json::to_writer(&mut buffered, value)?;
    std::io::Write::flush(&mut buffered).map_err(serde_json::Error::io)
}

/// Writes `text` to `path` atomically.
///
/// # Errors
/// I/O, naming the file.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    Ok(text_unpersisted(path, text)?.persist()?)
}

/// [`write_text`] up to the rename into place.
pub(crate) fn text_unpersisted(path: &Path, text: &str) -> Result<Unpersisted> {
    write_unpersisted(path, FILE_MODE, |file| -> Result<()> {
        std::io::Write::write_all(file, text.as_bytes())
            .map_err(|e| PublishError::io(format!("writing {}", path.display()), e))
    })
}
