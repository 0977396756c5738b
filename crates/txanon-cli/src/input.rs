//! Reading inputs and writing outputs the same way in every subcommand.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use txanon_data::cache::{self, CacheOutcome};
use txanon_data::progress::Progress;
use txanon_data::{
    Format, ItemId, ReadOptions, ReadReport, TransactionDb, read_path, read_path_with_progress,
    write_atomic, write_db,
};

use crate::exit::UsageError;
use crate::progress::Spinner;

/// How to read a transaction file: shared by every subcommand that takes one.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// The transaction file (FIMI .dat, SPMF .spmf/.txt, basket .csv/.tsv, any of them may be
    /// .gz; Parquet .parquet, Arrow IPC .arrow/.feather);
    /// `-` reads standard input, in the format --from names or its first line shows.
    pub input: PathBuf,
    /// Read the input as this format instead of guessing from its name
    /// [possible values: fimi, spmf, basket-long, basket-wide, parquet, arrow].
    #[arg(long = "from", value_name = "FORMAT")]
    pub from: Option<Format>,
    /// Drop empty transactions (by default they are kept, since they count in n and in every
    /// relative support).
    #[arg(long)]
    pub drop_empty: bool,
    /// Keep a binary cache of the parsed file in DIR, so that the next run skips parsing; a
    /// stale or corrupt cache is reported and replaced.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// The longest line (one transaction) read, in bytes: a longer one, or a file with no line
    /// breaks, is refused before it fills the memory.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = txanon_data::DEFAULT_MAX_LINE_BYTES,
        value_parser = crate::numbers::positive::<u64>()
    )]
    pub max_line_bytes: u64,
    /// CSV/TSV: the first line is a header (an export's column names); needed with names this
    /// reader does not know, with --tid-column and --item-column.
    #[arg(long, conflicts_with = "no_header")]
    pub header: bool,
    /// CSV/TSV: the first line is data, whatever it looks like (a basket holding an item named
    /// "product", say).
    #[arg(long)]
    pub no_header: bool,
    /// CSV/TSV export: the header's name of the transaction (order, basket, session, …) id
    /// column; by default a common name (transaction_id, order_id, basket, session, invoice, …),
    /// case-insensitive. Other columns are ignored.
    #[arg(long, value_name = "NAME", requires = "item_column")]
    pub tid_column: Option<String>,
    /// CSV/TSV export: the header's name of the item column; by default a common name (item,
    /// product, product_id, sku, code, …).
    #[arg(long, value_name = "NAME", requires = "tid_column")]
    pub item_column: Option<String>,
    /// CSV/TSV: the field delimiter, one character (`,` `;` `|`, or `tab`); detected from the
    /// first line by default.
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
}

/// `--max-line-bytes`: a count of bytes, 1 to 2⁶⁴ − 1.
/// `--delimiter`: one ASCII character, or `tab` / `\t`.
fn parse_delimiter(s: &str) -> std::result::Result<u8, String> {
    match s {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        _ if s.len() == 1 && s.is_ascii() && s != "\"" && s != "\n" && s != "\r" => {
            Ok(s.as_bytes()[0])
        }
        _ => Err(format!(
            "{s:?} is not a delimiter: one ASCII character other than a quote or a line break, or tab"
        )),
    }
}

impl InputArgs {
    /// Reads the database, with a progress bar (bytes, rate, time left) for large files.
    pub fn read(&self) -> Result<(TransactionDb, ReadReport)> {
        let mut options = ReadOptions::new()
            .keep_empty(!self.drop_empty)
            .max_line_bytes(self.max_line_bytes)
            .csv(txanon_data::CsvOptions {
                delimiter: self.delimiter,
                header: if self.header {
                    Some(true)
                } else if self.no_header {
                    Some(false)
                } else {
                    None
                },
                tid_column: self.tid_column.clone(),
                item_column: self.item_column.clone(),
            });
        if let Some(f) = self.from {
            options = options.format(f);
        }
        let Some(dir) = &self.cache else {
            let progress = Progress::new();
            let _meter = Spinner::follow(&progress);
            return Ok(read_path_with_progress(&self.input, &options, &progress)?);
        };
        let _spinner = Spinner::start(format!("reading {}", self.input.display()));
        if txanon_data::source::is_stream(&self.input) {
            return Err(UsageError(
                "--cache keeps the parse of a file: a stream (standard input, a pipe) cannot be cached; drop --cache or name the file".into(),
            )
            .into());
        }
        let (db, report, outcome, not_written) = cache::read_cached(&self.input, &options, dir)?;
        match outcome {
            CacheOutcome::Hit => eprintln!("cache: loaded {}", self.input.display()),
            CacheOutcome::Miss if not_written.is_none() => {
                eprintln!("cache: parsed {} and cached it", self.input.display())
            }
            CacheOutcome::Miss => eprintln!("cache: parsed {}", self.input.display()),
            CacheOutcome::Rejected(why) => eprintln!("cache: {why}; parsed the source again"),
        }
        if let Some(why) = not_written {
            eprintln!("cache: could not write the cache ({why}); the next run parses again");
        }
        Ok((db, report))
    }
}

/// Checks a single-file output before any work: `-` (standard output), an absent file in an
/// existing directory, a regular file or a link to one (replaced atomically), or a character
/// device or FIFO (written in place); anything else is refused, naming `option` and the path.
///
/// # Errors
/// [`UsageError`] (exit 2).
pub fn check_output(option: &str, path: &Path) -> Result<()> {
    if path == Path::new("-") {
        return Ok(());
    }
    let destination =
        txanon_data::Destination::of(path).map_err(|e| UsageError(format!("{option} {e}")))?;
    if let txanon_data::Destination::File(file) = destination
        && let Some(dir) = file.parent().filter(|p| !p.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(UsageError(format!(
            "{option} {}: {} is not a directory",
            path.display(),
            dir.display()
        ))
        .into());
    }
    Ok(())
}

/// The format an output path implies (`.gz` is looked through), or an error naming the path;
/// the path is checked as [`check_output`] does.
pub fn output_format(path: &Path, asked: Option<Format>) -> Result<Format> {
    check_output("output", path)?;
    asked.or_else(|| Format::from_path(path)).ok_or_else(|| {
        crate::exit::UsageError(format!(
            "{}: cannot tell the output format from the name: give --to (fimi, spmf, basket-long, basket-wide, parquet, arrow)",
            path.display()
        ))
        .into()
    })
    .and_then(|format| {
        let gzip = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"));
        if gzip && matches!(format, Format::Parquet | Format::ArrowIpc) {
            return Err(crate::exit::UsageError(format!(
                "{}: {format} is not gzipped (Parquet pages are compressed inside the file): drop .gz",
                path.display()
            ))
            .into());
        }
        Ok(format)
    })
}

/// Writes `db` to `path` in `format`, gzip-compressed when the name ends in `.gz`; `-` is stdout.
/// The file appears only when complete.
pub fn write_output(db: &TransactionDb, format: Format, path: &Path) -> Result<()> {
    if path == Path::new("-") {
        let stdout = std::io::stdout();
        return match write_db(db, format, stdout.lock()) {
            Err(txanon_data::DataError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::BrokenPipe =>
            {
                Ok(())
            }
            Err(e) => Err(UsageError(format!("writing to standard output: {e}")).into()),
            Ok(()) => Ok(()),
        };
    }
    let gzip = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    write_atomic(path, |file| -> Result<()> {
        if gzip {
            let mut enc = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            write_db(db, format, &mut enc)?;
            enc.finish()?.flush()?;
        } else {
            write_db(db, format, file)?;
        }
        Ok(())
    })
    .with_context(|| format!("writing {}", path.display()))
}

/// Writes `text` to stdout; a closed pipe (`txanon stats … | head`) is not an error.
pub fn emit(text: &str) -> Result<()> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        // The output cannot be written (a full disk, say): the user's output, not a bug.
        Err(e) => Err(UsageError(format!("writing to standard output: {e}")).into()),
        Ok(()) => Ok(()),
    }
}

/// The items named in the label list `path` (blank- or comma-separated, `#` comments), as ids
/// of `db` read from `input`; a label `db` does not have is a usage error naming them.
pub fn read_item_list(db: &TransactionDb, path: &Path, input: &Path) -> Result<Vec<ItemId>> {
    let labels = txanon_data::read_label_list(path)?;
    let (items, unknown) = txanon_data::resolve_labels(db, &labels);
    if !unknown.is_empty() {
        return Err(UsageError(format!(
            "{}: {} label(s) not in {}: {}",
            path.display(),
            unknown.len(),
            input.display(),
            unknown.join(" ")
        ))
        .into());
    }
    Ok(items)
}

/// Reads a transaction file an audit is given (the publication's, or the original), in the
/// format its name says.
///
/// # Errors
/// The reader's located errors, with the path.
pub fn read_transactions(path: &Path) -> Result<TransactionDb> {
    Ok(read_path(path, &ReadOptions::new())
        .with_context(|| format!("reading {}", path.display()))?
        .0)
}

/// The sensitive items of a run (the coherence paper's private items): a file, or `N` drawn at
/// random. One pair of options for every family that takes them.
#[derive(Debug, Args)]
pub struct SensitiveArgs {
    /// A file of sensitive item labels (the coherence paper's private items; blank- or
    /// comma-separated, `#` comments); every other item is public. `--private` is the same.
    #[arg(
        long,
        visible_alias = "private",
        value_name = "FILE",
        conflicts_with = "sensitive_random"
    )]
    pub sensitive: Option<PathBuf>,
    /// Make N items sensitive, drawn uniformly at random (as the papers' experiments did), from
    /// --seed when given, else from the operating system; the summary lists them.
    #[arg(
        long,
        visible_alias = "private-random",
        value_name = "N",
        required_unless_present = "sensitive",
        value_parser = crate::numbers::positive::<usize>()
    )]
    pub sensitive_random: Option<usize>,
}

impl SensitiveArgs {
    /// The sensitive items of `db` (read from `input`): the file's, resolved against its
    /// dictionary, or `N` drawn with `seed` (from the OS without one).
    ///
    /// # Errors
    /// An unreadable or empty list, an unknown label, or `N` outside `1..=` the items (exit 2).
    pub fn resolve(
        &self,
        db: &TransactionDb,
        input: &Path,
        seed: Option<u64>,
    ) -> Result<Vec<ItemId>> {
        match (&self.sensitive, self.sensitive_random) {
            (Some(path), _) => {
                let items = read_item_list(db, path, input)?;
                if items.is_empty() {
                    return Err(UsageError(format!(
                        "{}: no sensitive item: name at least one, the method protects them",
                        path.display()
                    ))
                    .into());
                }
                Ok(items)
            }
            // The draw is published (summary, sensitive.txt): keyed like the publication, so
            // that it does not give the seed away.
            (None, Some(n)) => {
                Ok(txanon_data::random_items(db, n, txanon_data::draw_seed(seed, db))
                    .with_context(|| input.display().to_string())?)
            }
            (None, None) => unreachable!("clap requires one"),
        }
    }

    /// The list file, if one was given (an input of the publication).
    pub fn file(&self) -> Option<&Path> {
        self.sensitive.as_deref()
    }

    /// Whether the run draws its items (`--sensitive-random`), which it then publishes.
    pub fn drawn(&self) -> bool {
        self.sensitive_random.is_some()
    }
}

/// Reads a key (`key.txt` as swap's --key-out writes it): per published record, the 1-based
/// input record it comes from; returned 0-based.
///
/// # Errors
/// An unreadable file, or a line that is not a record number (exit 2, naming the line).
pub fn read_key(path: &Path) -> Result<Vec<u32>> {
    Ok(txanon_publish::swap::SwapKey::read(path)?.records().to_vec())
}
