//! What crosses the boundary: the data handed over (a path read as the CLI reads it, or any
//! object with `__arrow_c_stream__`, taken without copying its buffers), the arguments checked
//! with the CLI's ranges and words, and published transactions handed back as Arrow tables.

use std::path::{Path, PathBuf};

use arrow_array::RecordBatchReader;
use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_pyarrow::{FromPyArrow, IntoPyArrow};
use pyo3::prelude::*;
use txanon_data::{CsvOptions, Format, ItemId, ReadOptions, TransactionDb};
use txanon_publish::Source;

use crate::errors::{Failure, detached};

/// The data of a run and where it came from.
#[derive(Debug)]
pub(crate) struct Data {
    pub db: TransactionDb,
    /// How the summary names the input: the path as given, or the kind of object.
    pub name: String,
    origin: Origin,
}

#[derive(Debug)]
enum Origin {
    File(PathBuf),
    Memory { kind: String },
}

impl Data {
    /// The input as the manifest lists it.
    pub fn source(&self) -> Source<'_> {
        match &self.origin {
            Origin::File(path) => Source::File(path),
            Origin::Memory { kind } => {
                Source::Memory { kind: kind.clone(), records: self.db.len() }
            }
        }
    }
}

/// How the data is read: the CLI's `--from`, `--tid-column`, `--item-column`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Reading {
    pub format: Option<String>,
    pub tid_column: Option<String>,
    pub item_column: Option<String>,
}

impl Reading {
    fn options(&self) -> Result<ReadOptions, Failure> {
        if self.tid_column.is_some() != self.item_column.is_some() {
            return Err(Failure::bad_input(
                "tid_column and item_column: name both columns of the long shape, or neither",
            ));
        }
        let mut options = ReadOptions::new().csv(CsvOptions {
            tid_column: self.tid_column.clone(),
            item_column: self.item_column.clone(),
            ..CsvOptions::default()
        });
        if let Some(name) = &self.format {
            let format: Format = name.parse().map_err(|_| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                Failure::bad_input(format!(
                    "format {name:?}: not a format; one of {}",
                    names.join(", ")
                ))
            })?;
            options = options.format(format);
        }
        Ok(options)
    }
}

/// The data `value` holds: a path (`str` or `os.PathLike`) read as the CLI reads it, or an
/// object with `__arrow_c_stream__` in the list shape (one list column of items) or the long
/// shape (transaction id and item columns).
pub(crate) fn data(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    reading: &Reading,
) -> Result<Data, Failure> {
    let options = reading.options()?;
    if value.hasattr("__arrow_c_stream__")? {
        let kind = value.get_type().fully_qualified_name()?.to_string();
        let stream = RecordBatchStreamReader::from_pyarrow_bound(value)
            .map_err(|e| Failure::bad_input(format!("data ({kind}): not an Arrow stream: {e}")))?;
        let name = format!("({kind})");
        let db = detached(py, || {
            let schema = stream.schema();
            let (db, _) =
                txanon_data::columnar::read_batches(&schema, stream, Path::new(&name), &options)?;
            Ok(db)
        })?;
        return Ok(Data { db, name: format!("({kind})"), origin: Origin::Memory { kind } });
    }
    let Ok(path) = value.extract::<PathBuf>() else {
        return Err(Failure::bad_input(format!(
            "data: a {} is neither a path nor Arrow data: pass a file's path, or a pyarrow Table, \
             a polars or pandas DataFrame, a DuckDB relation (anything with __arrow_c_stream__)",
            value.get_type().fully_qualified_name()?
        )));
    };
    let db = detached(py, || Ok(txanon_data::read_path(&path, &options)?.0))?;
    Ok(Data { db, name: path.display().to_string(), origin: Origin::File(path) })
}

/// `db` as a `pyarrow.Table` of one column `items` (`list<uint32>` or `list<utf8>`).
pub(crate) fn table<'py>(py: Python<'py>, db: &TransactionDb) -> PyResult<Bound<'py, PyAny>> {
    let schema = txanon_data::columnar::schema(db);
    let batches: Vec<_> = txanon_data::columnar::batches(db).collect();
    let table = arrow_pyarrow::Table::try_new(batches, schema)
        .map_err(|e| Failure::new(txanon_data::ErrorKind::Internal, e.to_string()))?;
    table.into_pyarrow(py)
}

/// A whole-number argument as Python gave it: any `int`, however large, or anything else,
/// which [`whole`] refuses with the argument's name (never a bare `OverflowError` or
/// `TypeError` from the conversion).
#[derive(Debug, Clone)]
pub(crate) struct Int {
    value: Option<i128>,
    shown: String,
}

impl<'py> FromPyObject<'_, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'_, 'py, PyAny>) -> Result<Self, Self::Error> {
        let is_int = obj.is_instance_of::<pyo3::types::PyInt>();
        let value = if is_int { obj.extract::<i128>().ok() } else { None };
        let shown = if is_int { obj.str()?.to_string() } else { obj.repr()?.to_string() };
        Ok(Self { value: value.or(if is_int { Some(i128::MAX) } else { None }), shown })
    }
}

impl From<i128> for Int {
    fn from(value: i128) -> Self {
        Self { value: Some(value), shown: value.to_string() }
    }
}

/// A whole number argument `name` in `min..=max`, or the CLI's one-line refusal.
pub(crate) fn whole<T>(name: &str, value: impl Into<Int>, min: T, max: T) -> Result<T, Failure>
where
    T: TryFrom<i128> + Copy + std::fmt::Display,
    i128: TryFrom<T>,
{
    let Int { value, shown } = value.into();
    let Some(value) = value else {
        return Err(Failure::bad_input(format!(
            "{name} = {shown}: not a whole number, allowed {min} to {max}"
        )));
    };
    let (lo, hi) = (i128::try_from(min).unwrap_or(0), i128::try_from(max).unwrap_or(i128::MAX));
    if value < lo || value > hi {
        let value = shown;
        return Err(Failure::bad_input(format!(
            "{name} = {value}: out of range, allowed {min} to {max}"
        )));
    }
    T::try_from(value).map_err(|_| Failure::bad_input(format!("{name} = {value}: out of range")))
}

/// A word argument `name` among `allowed`, or the refusal naming them.
pub(crate) fn word<'a>(name: &str, value: &str, allowed: &[&'a str]) -> Result<&'a str, Failure> {
    allowed.iter().find(|&&a| a == value).copied().ok_or_else(|| {
        Failure::bad_input(format!(
            "{name} = {value:?}: not allowed; one of {}",
            allowed.join(", ")
        ))
    })
}

/// `method` of tendency hiding, as the CLI's `--method` names it.
pub(crate) fn swap_method(value: &str) -> Result<txanon_swap::Method, Failure> {
    use txanon_swap::Method;
    let names = ["partswap", "fullswap", "both", "randswap", "partsupp", "splitperson"];
    Ok(match word("method", value, &names)? {
        "partswap" => Method::PartSwap,
        "fullswap" => Method::FullSwap,
        "both" => Method::PartAndFullSwap,
        "randswap" => Method::RandSwap,
        "partsupp" => Method::PartSupp,
        _ => Method::SplitPerson,
    })
}

/// `ties` of tendency hiding, as the CLI's `--ties` names it.
pub(crate) fn swap_ties(value: &str) -> Result<txanon_swap::Ties, Failure> {
    Ok(match word("ties", value, &["first", "all"])? {
        "first" => txanon_swap::Ties::First,
        _ => txanon_swap::Ties::All,
    })
}

/// `diversity` of anatomy, as the CLI's `--diversity` names it.
pub(crate) fn anatomy_diversity(value: &str) -> Result<txanon_anatomy::Diversity, Failure> {
    Ok(match word("diversity", value, &["frequency", "distinct"])? {
        "frequency" => txanon_anatomy::Diversity::Frequency,
        _ => txanon_anatomy::Diversity::Distinct,
    })
}

/// The sensitive (or private) items of a run: the labels given, resolved against the data, or
/// `random` drawn as the CLI's `--sensitive-random` draws them (keyed like the publication, so
/// that the published draw does not give the seed away).
pub(crate) fn sensitive(
    name: &str,
    db: &TransactionDb,
    labels: Option<Vec<String>>,
    random: Option<Int>,
    seed: Option<u64>,
) -> Result<Vec<ItemId>, Failure> {
    match (labels, random) {
        (Some(_), Some(_)) => Err(Failure::bad_input(format!(
            "{name} and {name}_random: name the items, or draw them, not both"
        ))),
        (None, None) => Err(Failure::bad_input(format!(
            "{name}: name the {name} items (a list of labels), or draw them with {name}_random"
        ))),
        (Some(labels), None) => {
            let (items, unknown) = txanon_data::resolve_labels(db, &labels);
            if !unknown.is_empty() {
                return Err(Failure::bad_input(format!(
                    "{name}: {} label(s) not in the data: {}",
                    unknown.len(),
                    unknown.join(" ")
                )));
            }
            if items.is_empty() {
                return Err(Failure::bad_input(format!(
                    "{name}: no {name} item: name at least one, the method protects them"
                )));
            }
            Ok(items)
        }
        (None, Some(n)) => {
            let n = whole(&format!("{name}_random"), n, 1usize, usize::MAX)?;
            Ok(txanon_data::random_items(db, n, txanon_data::draw_seed(seed, db))?)
        }
    }
}
