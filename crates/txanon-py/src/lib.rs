//! The native module `txanon._txanon` of the Python package `txanon`: the data handed over as
//! Arrow (or read from a path as the CLI reads it), each family's options checked with the CLI's
//! ranges, the release made and written by `txanon-publish` (the CLI's own code, so the same
//! seed gives the same bytes), failures raised as the exceptions of `txanon.errors`. It holds
//! no algorithm; the GIL is released while the Rust crates work.
//!
//! The typed Python layer (`python/txanon`) wraps these functions: keyword arguments named as
//! the CLI's options, docstrings, and the fallbacks for objects without `__arrow_c_stream__`.

mod attack;
mod audits;
mod convert;
mod draws;
mod errors;
mod evaluation;
mod families;
mod publication;
mod sharded;

use pyo3::prelude::*;

use crate::convert::{Reading, data};

/// Reads transactions as `txanon` reads a file: any format the CLI reads (FIMI, SPMF, basket
/// CSV/TSV, Parquet, Arrow IPC; gzip), or Arrow data in the list or the long shape; returns a
/// pyarrow Table of one column `items` (`list<uint32>` for integer items, `list<string>`).
#[pyfunction]
#[pyo3(signature = (data_, *, format=None, tid_column=None, item_column=None))]
fn read<'py>(
    py: Python<'py>,
    data_: &Bound<'py, PyAny>,
    format: Option<String>,
    tid_column: Option<String>,
    item_column: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let data = data(py, data_, &Reading { format, tid_column, item_column })?;
    convert::table(py, &data.db)
}

#[pymodule]
fn _txanon(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Every file read from here on is hashed as it is read, for the manifests of the
    // publications written from it.
    txanon_data::source::record_input_digests();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(families::anonymize_anatomy, m)?)?;
    m.add_function(wrap_pyfunction!(families::anatomy_item_columns, m)?)?;
    m.add_function(wrap_pyfunction!(draws::generate_quest, m)?)?;
    m.add_function(wrap_pyfunction!(families::anonymize_cahd, m)?)?;
    m.add_function(wrap_pyfunction!(families::anonymize_coherence, m)?)?;
    m.add_function(wrap_pyfunction!(families::anonymize_km, m)?)?;
    m.add_function(wrap_pyfunction!(families::anonymize_slicing, m)?)?;
    m.add_function(wrap_pyfunction!(families::anonymize_swap, m)?)?;
    m.add_function(wrap_pyfunction!(audits::audit_anatomy, m)?)?;
    m.add_function(wrap_pyfunction!(audits::audit_cahd, m)?)?;
    m.add_function(wrap_pyfunction!(audits::audit_coherence, m)?)?;
    m.add_function(wrap_pyfunction!(audits::audit_km, m)?)?;
    m.add_function(wrap_pyfunction!(audits::audit_slicing, m)?)?;
    m.add_function(wrap_pyfunction!(audits::audit_swap, m)?)?;
    m.add_function(wrap_pyfunction!(evaluation::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(attack::attack, m)?)?;
    m.add_function(wrap_pyfunction!(draws::draw_items, m)?)?;
    m.add_function(wrap_pyfunction!(draws::draw_categories, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::km_sharded_cut, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::km_count_shard, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::km_rare_in_union, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::km_rare_count, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::km_release_shard, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::audit_km_shard, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::km_union_part, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::km_itemset_labels, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::coherence_sharded_suppression, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::coherence_count_shard, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::coherence_itemsets_in_union, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::coherence_release_shard, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::audit_coherence_shard, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::coherence_union_part, m)?)?;
    m.add_class::<publication::Publication>()?;
    m.add_class::<evaluation::Evaluation>()?;
    Ok(())
}
