//! Parquet and Arrow IPC: transactions as columns, read and written with the Apache Arrow crates.
//!
//! Two shapes are read:
//! - the *list* shape, one row per transaction: a list column of items (`list` or `large_list`);
//! - the *long* shape, one row per occurrence: a transaction id column and an item column, the
//!   rows of one transaction in any order and scattered through the file, as a database export
//!   gives them.
//!
//! Which columns are meant is decided as for CSV exports: `--item-column` / `--tid-column` when
//! given (names matched without regard to case, blanks, `_` or `-`), else the only list column,
//! else the columns whose names are common transaction id and item names. Items may be any
//! integer type (values `0..=4294967295`) or text (utf8, large utf8, utf8 view, or a dictionary
//! of them); transaction ids any integer or text type. A null item or id is refused naming its
//! row; a null list is an empty transaction.
//!
//! The file is held in memory while it is decoded: Parquet's footer comes last, and a stream
//! (standard input) can be read only once; its bytes are hashed as they are read like every
//! other input's. Parquet row groups of the list shape are decoded in parallel. The long shape
//! keeps one growing item list per transaction id until the end of the file, since the rows of
//! a transaction may come last: memory is about three times that of the list shape.
//!
//! Record batches handed over in memory (an Arrow C stream from another library) are read the
//! same way by [`read_batches`].
//!
//! Written files have the list shape: one column `items`, `list<uint32>` for integer labels and
//! `list<utf8>` for text labels; Parquet with snappy pages (every Parquet reader has it), in row
//! groups of 2¹⁷ transactions; Arrow IPC in the file format, uncompressed.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, ListArray, RecordBatch, StringArray, UInt32Array};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema};
use rayon::prelude::*;

use crate::db::{Interner, RawDb, TransactionDb};
use crate::error::{DataError, Result};
use crate::labels::ItemLabels;
use crate::read::{CsvOptions, Format, ReadOptions, ReadReport};

/// The column of a written file.
pub const ITEMS_COLUMN: &str = "items";

/// Transactions per written Parquet row group: row groups are decoded in parallel, so a million
/// transactions already read on every core (a group of 2¹⁷ Quest transactions is about 2 MB).
const GROUP_ROWS: usize = 1 << 17;

/// Rows decoded per Arrow batch.
const BATCH_ROWS: usize = 1 << 13;

/// Whether `head` starts a Parquet file.
pub(crate) fn is_parquet(head: &[u8]) -> bool {
    head.starts_with(b"PAR1")
}

/// Whether `head` starts an Arrow IPC file (`ARROW1`) or stream (a continuation marker).
pub(crate) fn is_arrow_ipc(head: &[u8]) -> bool {
    head.starts_with(b"ARROW1") || head.starts_with(&[0xff; 4])
}

/// Which columns hold the transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One list column, one row per transaction.
    List { items: usize },
    /// A transaction id column and an item column, one row per occurrence.
    Long { tid: usize, item: usize },
}

/// What an item column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Text,
}

fn kind(data_type: &DataType) -> Option<Kind> {
    match data_type {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => Some(Kind::Int),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Some(Kind::Text),
        DataType::Dictionary(_, values) if kind(values) == Some(Kind::Text) => Some(Kind::Text),
        _ => None,
    }
}

fn list_item(data_type: &DataType) -> Option<&DataType> {
    match data_type {
        DataType::List(f) | DataType::LargeList(f) => Some(f.data_type()),
        _ => None,
    }
}

/// The shape of a file with `schema`, as the options name it or its columns tell.
fn shape(schema: &Schema, csv: &CsvOptions) -> std::result::Result<(Shape, Kind), String> {
    let fields = schema.fields();
    let names = || fields.iter().map(|f| format!("{:?}", f.name())).collect::<Vec<_>>().join(", ");
    let find = |option: &str, name: &str| {
        let key = crate::read::column_key(name);
        fields
            .iter()
            .position(|f| crate::read::column_key(f.name()) == key)
            .ok_or_else(|| format!("{option} {name:?} is not a column of the file ({})", names()))
    };
    let typed = |index: usize, what: &str| {
        let field = &fields[index];
        let data_type = list_item(field.data_type()).unwrap_or(field.data_type());
        kind(data_type).ok_or_else(|| {
            format!(
                "column {:?} holds {}, not {what} of integers or text",
                field.name(),
                field.data_type()
            )
        })
    };
    let long = |tid: usize, item: usize| {
        if list_item(fields[item].data_type()).is_some() {
            return Err(format!(
                "column {:?} is a list: read it alone as the list shape (drop --tid-column)",
                fields[item].name()
            ));
        }
        typed(tid, "transaction ids")?;
        Ok((Shape::Long { tid, item }, typed(item, "items")?))
    };
    match (&csv.tid_column, &csv.item_column) {
        (Some(tid), Some(item)) => {
            let (tid, item) = (find("--tid-column", tid)?, find("--item-column", item)?);
            if tid == item {
                return Err("--tid-column and --item-column name the same column".into());
            }
            return long(tid, item);
        }
        (Some(_), None) => return Err("name both columns: --tid-column and --item-column".into()),
        (None, Some(item)) => {
            let items = find("--item-column", item)?;
            if list_item(fields[items].data_type()).is_none() {
                return Err(format!(
                    "--item-column {item:?} is not a list column: name the transaction id column too (--tid-column)"
                ));
            }
            return Ok((Shape::List { items }, typed(items, "a list")?));
        }
        (None, None) => {}
    }
    let lists: Vec<usize> =
        (0..fields.len()).filter(|&i| list_item(fields[i].data_type()).is_some()).collect();
    let named = |names: &[&str], among: &[usize]| {
        among
            .iter()
            .copied()
            .find(|&i| names.contains(&crate::read::column_key(fields[i].name()).as_str()))
    };
    match lists.as_slice() {
        [items] => return Ok((Shape::List { items: *items }, typed(*items, "a list")?)),
        [] => {}
        several => {
            return match named(crate::read::ITEM_NAMES, several) {
                Some(items) => Ok((Shape::List { items }, typed(items, "a list")?)),
                None => Err(format!(
                    "several list columns ({}): name the one of items with --item-column",
                    several
                        .iter()
                        .map(|&i| format!("{:?}", fields[i].name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            };
        }
    }
    let all: Vec<usize> = (0..fields.len()).collect();
    match (named(crate::read::TID_NAMES, &all), named(crate::read::ITEM_NAMES, &all)) {
        (Some(tid), Some(item)) if tid != item => long(tid, item),
        _ => Err(format!(
            "no list column of items, and no transaction id and item columns by a name txanon knows among {}: name them with --tid-column and --item-column",
            names()
        )),
    }
}

/// Reads a Parquet or Arrow IPC file's `bytes` (`path` names it in errors).
pub(crate) fn read(
    bytes: Vec<u8>,
    path: &Path,
    format: Format,
    options: &ReadOptions,
) -> Result<(TransactionDb, ReadReport)> {
    if bytes.is_empty() {
        return Err(DataError::invalid(path, "file is empty"));
    }
    let size = bytes.len() as u64;
    let bytes = bytes::Bytes::from(bytes);
    let invalid = |why: String| DataError::invalid(path, why);
    let decoded = match format {
        Format::Parquet => {
            if !is_parquet(&bytes) {
                return Err(invalid("not a Parquet file (it does not start with PAR1)".into()));
            }
            read_parquet(bytes, options).map_err(invalid)?
        }
        _ => read_ipc(bytes, options).map_err(invalid)?,
    };
    let (db, mut report) = finish(decoded);
    report.format = Some(format);
    report.bytes = size;
    Ok((db, report))
}

type Decoded = (RawDb, Option<Interner>, ReadReport);

fn read_parquet(
    bytes: bytes::Bytes,
    options: &ReadOptions,
) -> std::result::Result<Decoded, String> {
    use parquet::arrow::ProjectionMask;
    use parquet::arrow::arrow_reader::{
        ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
    };
    let meta = ArrowReaderMetadata::load(&bytes, ArrowReaderOptions::new())
        .map_err(|e| format!("not a readable Parquet file: {e}"))?;
    let (shape, kind) = shape(meta.schema(), &options.csv)?;
    let columns = match shape {
        Shape::List { items } => vec![items],
        Shape::Long { tid, item } => vec![tid, item],
    };
    let mask =
        ProjectionMask::roots(meta.metadata().file_metadata().schema_descr(), columns.clone());
    let groups = meta.metadata().row_groups();
    let mut first_rows = Vec::with_capacity(groups.len());
    let mut rows = 0u64;
    for g in groups {
        first_rows.push(rows);
        rows += g.num_rows().max(0) as u64;
    }
    let batches = |groups: Vec<usize>| {
        ParquetRecordBatchReaderBuilder::new_with_metadata(bytes.clone(), meta.clone())
            .with_projection(mask.clone())
            .with_row_groups(groups)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| format!("not a readable Parquet file: {e}"))
    };
    // The projected batch holds the chosen columns in the file's order.
    let pick = |batch: &RecordBatch, index: usize| {
        let at = columns.iter().filter(|&&c| c < index).count();
        batch.column(at).clone()
    };
    match shape {
        Shape::List { items } => {
            let name = meta.schema().field(items).name().clone();
            let descr = meta.metadata().file_metadata().schema_descr();
            let leaves: Vec<usize> = (0..descr.num_columns())
                .filter(|&l| descr.get_column_root_idx(l) == items)
                .collect();
            if kind == Kind::Int
                && let [leaf] = leaves[..]
                && let Some(item) = list_item(meta.schema().field(items).data_type())
                && let Some(parts) =
                    integer_lists(&bytes, leaf, item, options.keep_empty, &first_rows, &name)
            {
                let mut merged = merge(parts?);
                merged.2.lines = rows;
                return Ok(merged);
            }
            let parts: Vec<std::result::Result<Decoded, String>> = (0..groups.len())
                .into_par_iter()
                .map(|g| {
                    let mut list = ListReader::new(kind, options.keep_empty, &name, first_rows[g]);
                    // The leaf's values bound the items (an empty list takes one): reserved
                    // once, no growth copies the group's items.
                    let values: i64 =
                        leaves.iter().map(|&l| groups[g].column(l).num_values()).sum();
                    list.raw.items.reserve(values.max(0) as usize);
                    list.raw.offsets.reserve(groups[g].num_rows().max(0) as usize);
                    for batch in batches(vec![g])? {
                        let batch = batch.map_err(|e| format!("row group {g}: {e}"))?;
                        list.push(&pick(&batch, items))?;
                    }
                    Ok(list.finish())
                })
                .collect();
            let mut merged = merge(parts.into_iter().collect::<std::result::Result<_, _>>()?);
            merged.2.lines = rows;
            Ok(merged)
        }
        Shape::Long { tid, item } => {
            let names = (
                meta.schema().field(tid).name().as_str(),
                meta.schema().field(item).name().as_str(),
            );
            let mut long = LongReader::new(kind, names);
            for batch in batches((0..groups.len()).collect())? {
                let batch = batch.map_err(|e| format!("not a readable Parquet file: {e}"))?;
                long.push(&pick(&batch, tid), &pick(&batch, item))?;
            }
            Ok(long.finish())
        }
    }
}

/// The hot path of the list shape: a list of integers read as Parquet's repetition and
/// definition levels and values, straight into transactions, row groups in parallel; `None`
/// when the column is not a one-level list of 32- or 64-bit integers (the Arrow decoder then
/// reads it). Through Arrow arrays, offsets, validity and values are built and copied per batch
/// before they reach the transactions (docs/PERFORMANCE.md has the two measured).
///
/// Long as one function: one loop per row group over levels and values; apart, the decoder's state
/// would travel through arguments on the hot path.
fn integer_lists(
    bytes: &bytes::Bytes,
    leaf: usize,
    item: &DataType,
    keep_empty: bool,
    first_rows: &[u64],
    column: &str,
) -> Option<std::result::Result<Vec<Decoded>, String>> {
    use parquet::basic::Type as Physical;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(bytes.clone()).ok()?;
    let descr = reader.metadata().file_metadata().schema_descr().column(leaf);
    let wide = match descr.physical_type() {
        Physical::INT32 => false,
        Physical::INT64 => true,
        _ => return None,
    };
    if descr.max_rep_level() != 1 {
        return None;
    }
    // The item's Arrow type (the caller's schema, read once) says whether the integers are
    // unsigned.
    let unsigned = match item {
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => true,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => false,
        _ => return None,
    };
    let present = descr.max_def_level();
    // A nullable item's null is one definition level below a present one; lower levels are an
    // empty or null list.
    let null_item = if descr.self_type().is_optional() { present - 1 } else { -1 };
    let decode = |g: usize| -> std::result::Result<Decoded, String> {
        let group = reader.get_row_group(g).map_err(|e| format!("row group {g}: {e}"))?;
        let meta = group.metadata();
        let mut part = ListReader::new(Kind::Int, keep_empty, column, first_rows[g]);
        part.raw.items.reserve(meta.column(leaf).num_values().max(0) as usize);
        part.raw.offsets.reserve(meta.num_rows().max(0) as usize);
        let chunk = group.get_column_reader(leaf).map_err(|e| format!("row group {g}: {e}"))?;
        let mut row = first_rows[g];
        let mut open = false;
        let mut empty = true;
        let (mut def, mut rep) = (Vec::with_capacity(BATCH_ROWS), Vec::with_capacity(BATCH_ROWS));
        let close = |part: &mut ListReader<'_>, empty: bool| {
            if empty {
                part.report.empty_transactions += 1;
                if !keep_empty {
                    return;
                }
            }
            part.raw.close_transaction();
        };
        let out_of_range = |v: i128, row: u64| {
            format!("column {column:?}: item {v} at row {row} is out of range 0..=4294967295")
        };
        macro_rules! levels {
            ($reader:expr, $values:expr, $convert:expr, $show:expr) => {{
                let mut reader = $reader;
                let mut values = $values;
                loop {
                    def.clear();
                    rep.clear();
                    values.clear();
                    let (_, _, levels) = reader
                        .read_records(BATCH_ROWS, Some(&mut def), Some(&mut rep), &mut values)
                        .map_err(|e| format!("row group {g}: {e}"))?;
                    if levels == 0 {
                        break;
                    }
                    // Values are checked in one pass before they are placed: the loop below
                    // then only follows the levels.
                    if let Some(bad) = values.iter().position(|&v| $convert(v).is_none()) {
                        let at = row_of_value(&rep, &def, present, bad);
                        return Err(out_of_range(
                            $show(values[bad]),
                            row + at + u64::from(open) + 1,
                        ));
                    }
                    if values.len() > levels {
                        return Err(format!("row group {g}: more values than levels"));
                    }
                    let mut next = 0;
                    for (&r, &d) in rep.iter().zip(&def) {
                        if r == 0 {
                            if open {
                                close(&mut part, empty);
                                row += 1;
                            }
                            open = true;
                            empty = true;
                        }
                        if d == present {
                            let Some(&v) = values.get(next) else {
                                return Err(format!("row group {g}: fewer values than levels"));
                            };
                            part.raw.items.push(v as u32);
                            next += 1;
                            empty = false;
                        } else if d == null_item {
                            return Err(format!(
                                "column {column:?}: a null item at row {}",
                                row + 1
                            ));
                        }
                    }
                }
            }};
        }
        use parquet::column::reader::ColumnReader;
        match (chunk, wide, unsigned) {
            (ColumnReader::Int32ColumnReader(r), false, true) => {
                levels!(
                    r,
                    Vec::<i32>::with_capacity(BATCH_ROWS),
                    |v: i32| Some(v as u32),
                    |v: i32| v as u32 as i128
                )
            }
            (ColumnReader::Int32ColumnReader(r), false, false) => {
                levels!(
                    r,
                    Vec::<i32>::with_capacity(BATCH_ROWS),
                    |v: i32| u32::try_from(v).ok(),
                    i128::from
                )
            }
            (ColumnReader::Int64ColumnReader(r), true, true) => {
                levels!(
                    r,
                    Vec::<i64>::with_capacity(BATCH_ROWS),
                    |v: i64| u32::try_from(v as u64).ok(),
                    |v: i64| v as u64 as i128
                )
            }
            (ColumnReader::Int64ColumnReader(r), true, false) => {
                levels!(
                    r,
                    Vec::<i64>::with_capacity(BATCH_ROWS),
                    |v: i64| u32::try_from(v).ok(),
                    i128::from
                )
            }
            _ => return Err(format!("row group {g}: column {column:?} changed its type")),
        }
        if open {
            close(&mut part, empty);
        }
        Ok(part.finish())
    };
    Some((0..first_rows.len()).into_par_iter().map(decode).collect())
}

/// The row, counted from 0 within a batch whose first level continues an open row (rows start
/// at repetition level 0), of the `value`-th present value.
fn row_of_value(rep: &[i16], def: &[i16], present: i16, value: usize) -> u64 {
    let mut rows = 0u64;
    let mut seen = 0;
    for (&r, &d) in rep.iter().zip(def) {
        if r == 0 {
            rows += 1;
        }
        if d == present {
            if seen == value {
                break;
            }
            seen += 1;
        }
    }
    rows.saturating_sub(1)
}

fn read_ipc(bytes: bytes::Bytes, options: &ReadOptions) -> std::result::Result<Decoded, String> {
    let unreadable = |e: arrow_schema::ArrowError| format!("not a readable Arrow IPC file: {e}");
    let batches: Box<dyn Iterator<Item = std::result::Result<RecordBatch, _>>>;
    let schema;
    if bytes.starts_with(b"ARROW1") {
        let reader = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(unreadable)?;
        schema = reader.schema();
        batches = Box::new(reader);
    } else {
        let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(unreadable)?;
        schema = reader.schema();
        batches = Box::new(reader);
    }
    decode_batches(&schema, batches.map(|b| b.map_err(unreadable)), options)
}

/// Decodes record batches of `schema` in either shape, the columns chosen as for a file.
fn decode_batches(
    schema: &Schema,
    batches: impl Iterator<Item = std::result::Result<RecordBatch, String>>,
    options: &ReadOptions,
) -> std::result::Result<Decoded, String> {
    let (shape, kind) = shape(schema, &options.csv)?;
    match shape {
        Shape::List { items } => {
            let mut list = ListReader::new(kind, options.keep_empty, schema.field(items).name(), 0);
            for batch in batches {
                list.push(batch?.column(items))?;
            }
            Ok(list.finish())
        }
        Shape::Long { tid, item } => {
            let mut long =
                LongReader::new(kind, (schema.field(tid).name(), schema.field(item).name()));
            for batch in batches {
                let batch = batch?;
                long.push(batch.column(tid), batch.column(item))?;
            }
            Ok(long.finish())
        }
    }
}

/// Reads transactions from Arrow record batches of `schema`, as another library hands them
/// over (an Arrow C stream from pyarrow, polars or DuckDB, say), in either shape, the columns
/// chosen as for a file ([`ReadOptions::csv`] names them). `source` names the input in errors.
///
/// # Errors
/// [`DataError::Invalid`] naming `source`: an unknown shape, a null item or id, an item out of
/// range, a float column, or a batch that fails to arrive.
pub fn read_batches(
    schema: &Schema,
    batches: impl Iterator<Item = std::result::Result<RecordBatch, arrow_schema::ArrowError>>,
    source: &Path,
    options: &ReadOptions,
) -> Result<(TransactionDb, ReadReport)> {
    let unreadable = |e: arrow_schema::ArrowError| format!("a batch failed to arrive: {e}");
    let decoded = decode_batches(schema, batches.map(|b| b.map_err(unreadable)), options)
        .map_err(|why| DataError::invalid(source, why))?;
    Ok(finish(decoded))
}

/// The database and report of what was decoded.
fn finish((raw, strings, mut report): Decoded) -> (TransactionDb, ReadReport) {
    report.duplicates_dropped = raw.duplicates_dropped;
    let db = match strings {
        Some(strings) => raw.finish_interned(strings),
        None => raw.finish_int(),
    };
    (db, report)
}

/// Joins row groups decoded apart: text labels interned per group are mapped to one dictionary.
fn merge(parts: Vec<Decoded>) -> Decoded {
    let mut raw = RawDb::default();
    let mut report = ReadReport::default();
    let mut strings: Option<Interner> = None;
    raw.items.reserve(parts.iter().map(|p| p.0.items.len()).sum());
    raw.offsets.reserve(parts.iter().map(|p| p.0.len()).sum());
    for (part, interner, part_report) in parts {
        let map: Option<Vec<u32>> = interner.map(|local| {
            let global = strings.get_or_insert_with(Interner::default);
            local.into_strings().iter().map(|s| global.intern(s)).collect()
        });
        let base = raw.items.len();
        match &map {
            Some(map) => raw.items.extend(part.items.iter().map(|&v| map[v as usize])),
            None => raw.items.extend_from_slice(&part.items),
        }
        raw.offsets.extend(part.offsets[1..].iter().map(|&o| o + base));
        raw.duplicates_dropped += part.duplicates_dropped;
        report.empty_transactions += part_report.empty_transactions;
    }
    (raw, strings, report)
}

/// The raw labels of `values` (an item column, or a list's values): integers as they are, text
/// interned; `row` gives the row of a value (counted from 0; errors count from 1).
fn raw_items<'a>(
    values: &'a dyn Array,
    interner: Option<&mut Interner>,
    column: &str,
    row: impl Fn(usize) -> u64,
) -> std::result::Result<Cow<'a, [u32]>, String> {
    if values.null_count() > 0 {
        let at = (0..values.len()).find(|&i| values.is_null(i)).unwrap_or(0);
        return Err(format!("column {column:?}: a null item at row {}", row(at) + 1));
    }
    if let Some(interner) = interner {
        let texts = texts(values).ok_or_else(|| format!("column {column:?} is not text"))?;
        return Ok(Cow::Owned(texts.iter().map(|t| interner.intern(t.unwrap_or(""))).collect()));
    }
    fn convert<T: ArrowPrimitiveType>(
        values: &dyn Array,
        column: &str,
        row: impl Fn(usize) -> u64,
    ) -> std::result::Result<Cow<'static, [u32]>, String>
    where
        u32: TryFrom<T::Native>,
        T::Native: std::fmt::Display,
    {
        values
            .as_primitive::<T>()
            .values()
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                u32::try_from(v).map_err(|_| {
                    format!(
                        "column {column:?}: item {v} at row {} is out of range 0..=4294967295",
                        row(i) + 1
                    )
                })
            })
            .collect::<std::result::Result<Vec<u32>, String>>()
            .map(Cow::Owned)
    }
    match values.data_type() {
        DataType::UInt32 => Ok(Cow::Borrowed(values.as_primitive::<UInt32Type>().values())),
        DataType::Int8 => convert::<Int8Type>(values, column, row),
        DataType::Int16 => convert::<Int16Type>(values, column, row),
        DataType::Int32 => convert::<Int32Type>(values, column, row),
        DataType::Int64 => convert::<Int64Type>(values, column, row),
        DataType::UInt8 => convert::<UInt8Type>(values, column, row),
        DataType::UInt16 => convert::<UInt16Type>(values, column, row),
        DataType::UInt64 => convert::<UInt64Type>(values, column, row),
        other => Err(format!("column {column:?} holds {other}, not integers")),
    }
}

/// The values of a text column (utf8, large utf8, utf8 view, or a dictionary of them).
fn texts(values: &dyn Array) -> Option<Vec<Option<&str>>> {
    Some(match values.data_type() {
        DataType::Utf8 => values.as_string::<i32>().iter().collect(),
        DataType::LargeUtf8 => values.as_string::<i64>().iter().collect(),
        DataType::Utf8View => values.as_string_view().iter().collect(),
        DataType::Dictionary(_, _) => {
            let dictionary = values.as_any_dictionary_opt()?;
            let words = texts(dictionary.values().as_ref())?;
            let keys = dictionary.normalized_keys();
            (0..values.len())
                .map(
                    |i| {
                        if values.is_null(i) { None } else { words.get(keys[i]).copied().flatten() }
                    },
                )
                .collect()
        }
        _ => return None,
    })
}

/// Decodes list-shaped batches into transactions.
struct ListReader<'n> {
    raw: RawDb,
    interner: Option<Interner>,
    report: ReadReport,
    keep_empty: bool,
    column: &'n str,
    next_row: u64,
}

impl<'n> ListReader<'n> {
    fn new(kind: Kind, keep_empty: bool, column: &'n str, first_row: u64) -> Self {
        Self {
            raw: RawDb::default(),
            interner: (kind == Kind::Text).then(Interner::default),
            report: ReadReport::default(),
            keep_empty,
            column,
            next_row: first_row,
        }
    }

    fn push(&mut self, column: &ArrayRef) -> std::result::Result<(), String> {
        match column.data_type() {
            DataType::List(_) => self.push_list(column.as_list::<i32>()),
            DataType::LargeList(_) => self.push_list(column.as_list::<i64>()),
            other => Err(format!("column {:?} holds {other}, not a list", self.column)),
        }
    }

    fn push_list<O: arrow_array::OffsetSizeTrait>(
        &mut self,
        list: &arrow_array::GenericListArray<O>,
    ) -> std::result::Result<(), String> {
        let offsets: Vec<usize> = list.value_offsets().iter().map(|o| o.as_usize()).collect();
        let (start, end) = (offsets[0], offsets[offsets.len() - 1]);
        let values = list.values().slice(start, end - start);
        let first = self.next_row;
        let row = |i: usize| first + offsets.partition_point(|&o| o <= start + i) as u64 - 1;
        let items = raw_items(values.as_ref(), self.interner.as_mut(), self.column, row)?;
        for r in 0..list.len() {
            let t = &items[offsets[r] - start..offsets[r + 1] - start];
            if t.is_empty() || list.is_null(r) {
                self.report.empty_transactions += 1;
                if !self.keep_empty {
                    continue;
                }
            }
            if !list.is_null(r) {
                self.raw.items.extend_from_slice(t);
            }
            self.raw.close_transaction();
        }
        self.next_row += list.len() as u64;
        Ok(())
    }

    fn finish(self) -> Decoded {
        (self.raw, self.interner, self.report)
    }
}

/// A transaction id, as the long shape's key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Tid {
    Int(i128),
    Text(Box<str>),
}

/// Decodes long-shaped batches: rows of one transaction may be anywhere in the file.
struct LongReader<'n> {
    index: HashMap<Tid, usize>,
    transactions: Vec<Vec<u32>>,
    interner: Option<Interner>,
    names: (&'n str, &'n str),
    rows: u64,
}

impl<'n> LongReader<'n> {
    fn new(kind: Kind, names: (&'n str, &'n str)) -> Self {
        Self {
            index: HashMap::new(),
            transactions: Vec::new(),
            interner: (kind == Kind::Text).then(Interner::default),
            names,
            rows: 0,
        }
    }

    fn push(&mut self, tids: &ArrayRef, items: &ArrayRef) -> std::result::Result<(), String> {
        let first = self.rows;
        let row = |i: usize| first + i as u64;
        let keys = tid_keys(tids.as_ref(), self.names.0, row)?;
        let items = raw_items(items.as_ref(), self.interner.as_mut(), self.names.1, row)?;
        for (key, &item) in keys.into_iter().zip(items.iter()) {
            let next = self.transactions.len();
            let t = *self.index.entry(key).or_insert(next);
            if t == next {
                self.transactions.push(Vec::new());
            }
            self.transactions[t].push(item);
        }
        self.rows += tids.len() as u64;
        Ok(())
    }

    fn finish(self) -> Decoded {
        let mut raw = RawDb::default();
        raw.items.reserve(self.transactions.iter().map(Vec::len).sum());
        for t in self.transactions {
            raw.items.extend_from_slice(&t);
            raw.close_transaction();
        }
        let report = ReadReport { lines: self.rows, ..ReadReport::default() };
        (raw, self.interner, report)
    }
}

fn tid_keys(
    tids: &dyn Array,
    column: &str,
    row: impl Fn(usize) -> u64,
) -> std::result::Result<Vec<Tid>, String> {
    if tids.null_count() > 0 {
        let at = (0..tids.len()).find(|&i| tids.is_null(i)).unwrap_or(0);
        return Err(format!("column {column:?}: a null transaction id at row {}", row(at) + 1));
    }
    fn ints<T: ArrowPrimitiveType>(tids: &dyn Array) -> Vec<Tid>
    where
        T::Native: Into<i128>,
    {
        tids.as_primitive::<T>().values().iter().map(|&v| Tid::Int(v.into())).collect()
    }
    Ok(match tids.data_type() {
        DataType::Int8 => ints::<Int8Type>(tids),
        DataType::Int16 => ints::<Int16Type>(tids),
        DataType::Int32 => ints::<Int32Type>(tids),
        DataType::Int64 => ints::<Int64Type>(tids),
        DataType::UInt8 => ints::<UInt8Type>(tids),
        DataType::UInt16 => ints::<UInt16Type>(tids),
        DataType::UInt32 => ints::<UInt32Type>(tids),
        DataType::UInt64 => ints::<UInt64Type>(tids),
        other => texts(tids)
            .ok_or_else(|| format!("column {column:?} holds {other}, not integers or text"))?
            .into_iter()
            .map(|t| Tid::Text(t.unwrap_or("").into()))
            .collect(),
    })
}

/// The list schema of a written file for `db`'s labels: one column `items`, `list<uint32>`
/// for integer labels, `list<utf8>` for text.
pub fn schema(db: &TransactionDb) -> Arc<Schema> {
    let item = match db.labels() {
        ItemLabels::Int(_) => DataType::UInt32,
        ItemLabels::Str(_) => DataType::Utf8,
    };
    let list = DataType::List(Arc::new(Field::new("item", item, false)));
    Arc::new(Schema::new(vec![Field::new(ITEMS_COLUMN, list, false)]))
}

/// `db`'s transactions as batches of [`schema`], of at most 2¹³ rows and about 2²²
/// items (list offsets are 32-bit): what a file is written from, and what is handed to another
/// library in memory.
pub fn batches(db: &TransactionDb) -> impl Iterator<Item = RecordBatch> + '_ {
    let schema = schema(db);
    let field = match schema.field(0).data_type() {
        DataType::List(f) => f.clone(),
        _ => unreachable!("the schema is a list"),
    };
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= db.len() {
            return None;
        }
        let mut end = start;
        let mut items = 0usize;
        while end < db.len() && end - start < BATCH_ROWS && (items < 1 << 22 || end == start) {
            items += db.transaction(end).len();
            end += 1;
        }
        let mut offsets = Vec::with_capacity(end - start + 1);
        offsets.push(0i32);
        let mut total = 0usize;
        for t in start..end {
            total += db.transaction(t).len();
            offsets.push(i32::try_from(total).expect("a batch holds below 2^31 items"));
        }
        let flat = &db.items()[db.offsets()[start]..db.offsets()[end]];
        let values: ArrayRef = match db.labels() {
            ItemLabels::Int(labels) => Arc::new(UInt32Array::from(
                flat.iter().map(|&i| labels[i as usize]).collect::<Vec<_>>(),
            )),
            ItemLabels::Str(labels) => Arc::new(StringArray::from_iter_values(
                flat.iter().map(|&i| labels[i as usize].as_str()),
            )),
        };
        let list = ListArray::new(
            field.clone(),
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            values,
            None,
        );
        start = end;
        Some(RecordBatch::try_new(schema.clone(), vec![Arc::new(list)]).expect("the schema fits"))
    })
}

/// Writes `db` as Parquet or Arrow IPC (the list shape) to `out`.
pub(crate) fn write<W: Write>(db: &TransactionDb, format: Format, out: &mut W) -> Result<()> {
    let path = Path::new("<output>");
    let io = |e| DataError::io(path, e);
    let failed = |e: String| DataError::Unsupported(format!("writing {format}: {e}"));
    let schema = schema(db);
    match format {
        Format::Parquet => {
            use parquet::arrow::ArrowWriter;
            use parquet::basic::Compression;
            use parquet::file::properties::WriterProperties;
            let props = WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .set_max_row_group_row_count(Some(GROUP_ROWS))
                .build();
            // The writer wants a `Send` sink, which a locked standard output is not: it writes
            // into a buffer that is emptied into `out` after every batch, so memory holds one
            // row group at most.
            let mut writer = ArrowWriter::try_new(Vec::new(), schema, Some(props))
                .map_err(|e| failed(e.to_string()))?;
            for batch in batches(db) {
                writer.write(&batch).map_err(|e| failed(e.to_string()))?;
                let done = writer.inner_mut();
                out.write_all(done).map_err(io)?;
                done.clear();
            }
            let rest = writer.into_inner().map_err(|e| failed(e.to_string()))?;
            out.write_all(&rest).map_err(io)?;
        }
        _ => {
            let mut writer = arrow_ipc::writer::FileWriter::try_new(&mut *out, &schema)
                .map_err(|e| failed(e.to_string()))?;
            for batch in batches(db) {
                writer.write(&batch).map_err(|e| failed(e.to_string()))?;
            }
            writer.finish().map_err(|e| failed(e.to_string()))?;
        }
    }
    out.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{
        LargeListBuilder, LargeStringBuilder, ListBuilder, StringDictionaryBuilder,
    };
    use arrow_array::types::Int16Type as Key;
    use arrow_array::{Int32Array, Int64Array, StringViewArray, UInt64Array};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, GzipLevel, ZstdLevel};
    use parquet::file::properties::WriterProperties;

    fn parquet(batch: &RecordBatch, compression: Compression, group_rows: usize) -> Vec<u8> {
        let props = WriterProperties::builder()
            .set_compression(compression)
            .set_max_row_group_row_count(Some(group_rows))
            .build();
        let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
        writer.write(batch).unwrap();
        writer.into_inner().unwrap()
    }

    fn ipc_stream(batch: &RecordBatch) -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer =
            arrow_ipc::writer::StreamWriter::try_new(&mut out, &batch.schema()).unwrap();
        writer.write(batch).unwrap();
        writer.finish().unwrap();
        drop(writer);
        out
    }

    fn read_as(bytes: Vec<u8>, format: Format, csv: CsvOptions) -> Result<Vec<Vec<String>>> {
        let options = ReadOptions::new().csv(csv);
        let (db, _) = read(bytes, Path::new("x"), format, &options)?;
        Ok(db.iter().map(|t| t.iter().map(|&i| db.label(i).to_string()).collect()).collect())
    }

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        RecordBatch::try_from_iter(columns.into_iter().map(|(n, a)| (n.to_string(), a))).unwrap()
    }

    fn rows(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter().map(|r| r.iter().map(|s| s.to_string()).collect()).collect()
    }

    /// The list shape in every offset width and item type, compressed as real files are, in
    /// several row groups decoded apart: null lists and empty lists are empty transactions,
    /// repeated items are dropped, text labels interned per row group meet in one dictionary.
    #[test]
    fn list_columns_of_any_type_and_codec() {
        let mut ints = ListBuilder::new(arrow_array::builder::Int64Builder::new());
        for row in [Some(vec![3i64, 1, 3]), Some(vec![]), None, Some(vec![7])] {
            match row {
                Some(r) => {
                    ints.values().append_slice(&r);
                    ints.append(true);
                }
                None => ints.append(false),
            }
        }
        let ints = batch(vec![
            ("id", Arc::new(Int32Array::from(vec![1, 2, 3, 4]))),
            ("basket", Arc::new(ints.finish())),
        ]);
        let expected = rows(&[&["1", "3"], &[], &[], &["7"]]);
        for compression in [
            Compression::SNAPPY,
            Compression::ZSTD(ZstdLevel::default()),
            Compression::GZIP(GzipLevel::default()),
            Compression::UNCOMPRESSED,
        ] {
            for group_rows in [1, 3, 100] {
                let bytes = parquet(&ints, compression, group_rows);
                assert_eq!(
                    read_as(bytes, Format::Parquet, CsvOptions::default()).unwrap(),
                    expected
                );
            }
        }
        assert_eq!(
            read_as(ipc_stream(&ints), Format::ArrowIpc, CsvOptions::default()).unwrap(),
            expected
        );

        let mut texts = LargeListBuilder::new(LargeStringBuilder::new());
        for row in [vec!["milk", "bread"], vec!["eggs"], vec!["bread", "jam"]] {
            for item in row {
                texts.values().append_value(item);
            }
            texts.append(true);
        }
        let texts = batch(vec![("products", Arc::new(texts.finish()))]);
        for group_rows in [1, 2, 10] {
            let bytes = parquet(&texts, Compression::SNAPPY, group_rows);
            let (db, report) =
                read(bytes, Path::new("x"), Format::Parquet, &ReadOptions::new()).unwrap();
            assert_eq!(db.num_items(), 4, "one dictionary across row groups");
            assert_eq!(report.lines, 3);
            let got: Vec<Vec<String>> =
                db.iter().map(|t| t.iter().map(|&i| db.label(i).to_string()).collect()).collect();
            assert_eq!(got, rows(&[&["bread", "milk"], &["eggs"], &["bread", "jam"]]));
        }
    }

    /// The long shape: ids of any type, scattered; items dictionary-encoded or string views;
    /// named columns chosen among others.
    #[test]
    fn long_shape_with_scattered_ids() {
        let mut sku = StringDictionaryBuilder::<Key>::new();
        for s in ["a", "b", "c", "a", "a"] {
            sku.append_value(s);
        }
        let export = batch(vec![
            (
                "Order ID",
                Arc::new(arrow_array::StringArray::from(vec!["o2", "o1", "o2", "o3", "o1"])),
            ),
            ("SKU", Arc::new(sku.finish())),
            ("qty", Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5]))),
        ]);
        let expected = rows(&[&["a", "c"], &["a", "b"], &["a"]]);
        let bytes = parquet(&export, Compression::SNAPPY, 2);
        assert_eq!(
            read_as(bytes.clone(), Format::Parquet, CsvOptions::default()).unwrap(),
            expected
        );
        assert_eq!(
            read_as(ipc_stream(&export), Format::ArrowIpc, CsvOptions::default()).unwrap(),
            expected
        );
        // Named: qty as the item, SKU as the id.
        let named = CsvOptions {
            tid_column: Some("sku".into()),
            item_column: Some("QTY".into()),
            ..CsvOptions::default()
        };
        assert_eq!(
            read_as(bytes, Format::Parquet, named).unwrap(),
            rows(&[&["1", "4", "5"], &["2"], &["3"]])
        );
        let views = batch(vec![
            ("tid", Arc::new(UInt64Array::from(vec![u64::MAX, 0, u64::MAX]))),
            ("item", Arc::new(StringViewArray::from(vec!["x", "y", "z"]))),
        ]);
        assert_eq!(
            read_as(ipc_stream(&views), Format::ArrowIpc, CsvOptions::default()).unwrap(),
            rows(&[&["x", "z"], &["y"]])
        );
    }

    /// Batches handed over in memory (as an Arrow C stream delivers them) read as the same
    /// batches in a file: both shapes, in several batches, and a failing batch is refused
    /// naming the source.
    #[test]
    fn batches_in_memory_read_as_the_file() {
        let mut ints = ListBuilder::new(arrow_array::builder::UInt32Builder::new());
        for row in [vec![3u32, 1], vec![], vec![7, 1]] {
            ints.values().append_slice(&row);
            ints.append(true);
        }
        let lists = batch(vec![("items", Arc::new(ints.finish()))]);
        let long = batch(vec![
            ("tid", Arc::new(Int32Array::from(vec![2, 1, 2]))),
            ("item", Arc::new(arrow_array::StringArray::from(vec!["x", "y", "z"]))),
        ]);
        let source = Path::new("<a pyarrow Table>");
        for whole in [&lists, &long] {
            let parts = [whole.slice(0, 1), whole.slice(1, whole.num_rows() - 1)];
            let (db, report) = read_batches(
                &whole.schema(),
                parts.into_iter().map(Ok),
                source,
                &ReadOptions::new(),
            )
            .unwrap();
            let (file, _) =
                read(ipc_stream(whole), source, Format::ArrowIpc, &ReadOptions::new()).unwrap();
            assert_eq!(db, file);
            assert_eq!((report.format, report.bytes), (None, 0));
        }
        let failing = std::iter::once(Err(arrow_schema::ArrowError::ComputeError("gone".into())));
        let e = read_batches(&lists.schema(), failing, source, &ReadOptions::new()).unwrap_err();
        assert!(
            e.to_string().contains("<a pyarrow Table>") && e.to_string().contains("gone"),
            "{e}"
        );
    }

    /// What cannot be read exactly is refused, naming the column, the row and the way out.
    #[test]
    fn refusals_name_the_column_and_row() {
        let err = |b: &RecordBatch, csv: CsvOptions| {
            read_as(parquet(b, Compression::SNAPPY, 100), Format::Parquet, csv)
                .unwrap_err()
                .to_string()
        };
        let negative = batch(vec![
            ("tid", Arc::new(Int32Array::from(vec![1, 2]))),
            ("item", Arc::new(Int32Array::from(vec![5, -1]))),
        ]);
        assert!(
            err(&negative, CsvOptions::default())
                .contains("item -1 at row 2 is out of range 0..=4294967295")
        );
        let null = batch(vec![
            ("tid", Arc::new(Int32Array::from(vec![1, 2]))),
            ("item", Arc::new(Int32Array::from(vec![Some(5), None]))),
        ]);
        assert!(err(&null, CsvOptions::default()).contains("a null item at row 2"));
        let null_tid = batch(vec![
            ("tid", Arc::new(Int32Array::from(vec![None, Some(2)]))),
            ("item", Arc::new(Int32Array::from(vec![1, 2]))),
        ]);
        assert!(err(&null_tid, CsvOptions::default()).contains("a null transaction id at row 1"));
        let unnamed = batch(vec![
            ("a", Arc::new(Int32Array::from(vec![1]))),
            ("b", Arc::new(Int32Array::from(vec![2]))),
        ]);
        let message = err(&unnamed, CsvOptions::default());
        assert!(
            message.contains("--tid-column and --item-column") && message.contains("\"a\", \"b\""),
            "{message}"
        );
        let wrong = CsvOptions {
            tid_column: Some("a".into()),
            item_column: Some("c".into()),
            ..CsvOptions::default()
        };
        assert!(
            err(&unnamed, wrong)
                .contains("--item-column \"c\" is not a column of the file (\"a\", \"b\")")
        );
        let floats = batch(vec![
            ("tid", Arc::new(Int32Array::from(vec![1]))),
            ("item", Arc::new(arrow_array::Float64Array::from(vec![1.5]))),
        ]);
        assert!(
            err(&floats, CsvOptions::default())
                .contains("column \"item\" holds Float64, not items of integers or text")
        );
        // The list shape's refusals, on the levels path and the Arrow one, in any row group.
        let lists = |rows: Vec<Option<Vec<Option<i64>>>>| {
            let mut b = ListBuilder::new(arrow_array::builder::Int64Builder::new());
            for row in rows {
                match row {
                    Some(r) => {
                        for v in r {
                            b.values().append_option(v);
                        }
                        b.append(true);
                    }
                    None => b.append(false),
                }
            }
            batch(vec![("items", Arc::new(b.finish()))])
        };
        let negative = lists(vec![Some(vec![Some(1)]), None, Some(vec![Some(2), Some(-3)])]);
        let null = lists(vec![Some(vec![Some(1)]), Some(vec![]), Some(vec![Some(2), None])]);
        let huge = lists(vec![Some(vec![Some(1 << 32)])]);
        for group_rows in [1, 2, 10] {
            let err = |b: &RecordBatch| {
                let bytes = parquet(b, Compression::SNAPPY, group_rows);
                read_as(bytes, Format::Parquet, CsvOptions::default()).unwrap_err().to_string()
            };
            let message = err(&negative);
            assert!(
                message.contains("item -3 at row 3 is out of range"),
                "{group_rows}: {message}"
            );
            let message = err(&null);
            assert!(message.contains("a null item at row 3"), "{group_rows}: {message}");
            assert!(err(&huge).contains("item 4294967296 at row 1 is out of range"));
        }
        let message = read_as(ipc_stream(&negative), Format::ArrowIpc, CsvOptions::default());
        assert!(message.unwrap_err().to_string().contains("item -3 at row 3 is out of range"));
        let not_parquet =
            read_as(b"1 2 3\n".to_vec(), Format::Parquet, CsvOptions::default()).unwrap_err();
        assert!(not_parquet.to_string().contains("not a Parquet file"));
        let truncated = parquet(&negative, Compression::SNAPPY, 100);
        let cut = read_as(
            truncated[..truncated.len() / 2].to_vec(),
            Format::Parquet,
            CsvOptions::default(),
        );
        assert!(cut.unwrap_err().to_string().contains("not a readable Parquet file"));
    }

    /// The written file is the list shape a Parquet reader expects, and reads back as written
    /// in every batch split (2²² items per batch is crossed by one long transaction).
    #[test]
    fn written_files_read_back() {
        let long: Vec<u32> = (0..(1 << 22) + 5).collect();
        let db = TransactionDb::from_int_transactions(vec![vec![1, 2], long, vec![], vec![9]]);
        for format in [Format::Parquet, Format::ArrowIpc] {
            let mut out = Vec::new();
            write(&db, format, &mut out).unwrap();
            let (back, report) = read(out, Path::new("x"), format, &ReadOptions::new()).unwrap();
            assert_eq!(back, db, "{format}");
            assert_eq!(report.empty_transactions, 1);
        }
    }
}
