//! Families over shards, for `txanon.spark`, where the driver decides one global result from the
//! shards' counts:
//!
//! - kᵐ-anonymity: the driver's search of one cut over every shard (`km_sharded_cut`, whose
//!   counts come from Python callbacks that run Spark jobs), a shard's answer to one of its
//!   requests (`km_count_shard`) and the union's rare keys of one part of them (`km_rare_in_union`), a shard's release under the cut (`km_release_shard`), and a
//!   shard's audit with its itemsets counted for the union (`audit_km_shard`), summed part by
//!   part (`km_union_part`) and the rare ones named (`km_itemset_labels`);
//! - (h,k,p)-coherence with one suppression set: `coherence_sharded_suppression`,
//!   `coherence_count_shard`, `coherence_release_shard`, `audit_coherence_shard` and the
//!   union's decision part by part, `coherence_union_part`.
//!
//! The algorithms are `txanon_km::sharded`'s and `txanon_coherence::sharded`'s; this holds none.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Int32Array, Int64Array, LargeBinaryArray, RecordBatch};
use arrow_pyarrow::IntoPyArrow;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use txanon_data::ErrorKind;
use txanon_data::key_runs::{KeyRunWriter, read_runs, read_words, words_of, write_run};
use txanon_km::sharded::{
    ShardCounts, ShardRequest, Shards, count_shard, part_of, rare_in_union, sharded_cut,
};
use txanon_km::{Algorithm, Hierarchy, KmError, KmParams, ValidKmParams};

use crate::audits::{coherence_claim, dict, km_claim, original};
use crate::convert::{Int, Reading, data, whole, word};
use crate::errors::{Failure, detached};
use crate::families::{fanout_of, km_numbers, seed as seed_of};
use crate::publication::Publication;

/// The hierarchy every shard and the driver build alike: parsed from `text` (a file's), or the
/// balanced one of `fanout` over the items `universe` (ranked as a read ranks them), which is
/// the hierarchy one process builds over the whole data.
fn hierarchy(
    text: Option<&str>,
    universe: Option<&[String]>,
    fanout: usize,
) -> Result<Hierarchy, Failure> {
    match (text, universe) {
        (Some(text), None) => Hierarchy::from_text(text).map_err(|e| Failure::of(&e)),
        (None, Some(labels)) => {
            let db = txanon_data::TransactionDb::from_str_transactions([labels]);
            Hierarchy::balanced(&db, fanout).map_err(|e| Failure::of(&e))
        }
        _ => Err(Failure::bad_input(
            "hierarchy: give the hierarchy's text or the item universe, exactly one",
        )),
    }
}

fn params(
    k: Int,
    m: Int,
    algorithm: &str,
    max_combinations: Option<Int>,
    seed: Option<Int>,
) -> Result<ValidKmParams, Failure> {
    let (k, m, max_combinations) = km_numbers(k, m, max_combinations)?;
    let algorithm = match word("algorithm", algorithm, &["aa", "da"])? {
        "aa" => Algorithm::Apriori,
        _ => Algorithm::Direct,
    };
    let seed = seed_of(seed)?;
    KmParams::new(k, m)
        .algorithm(algorithm)
        .max_combinations(max_combinations)
        .seed(seed)
        .check()
        .map_err(Failure::from)
}

fn internal(message: impl Into<String>) -> Failure {
    Failure::new(ErrorKind::Internal, message)
}

/// The shards as Python reaches them: `rare(request)` returns the keys whose capped supports
/// sum below k as bytes (`km_rare_in_union`'s, joined), `supports(request)` the summed supports; a
/// Python exception is kept and raised when the search returns.
struct PyShards<'py> {
    rare: Bound<'py, PyAny>,
    supports: Bound<'py, PyAny>,
    raised: Option<PyErr>,
}

impl<'py> PyShards<'py> {
    /// The callback's answer to `request`, converted; a Python error kept for the caller.
    fn ask<T>(&mut self, rare: bool, request: &ShardRequest) -> Result<T, KmError>
    where
        T: for<'a> FromPyObject<'a, 'py>,
    {
        let text = serde_json::to_string(request)
            .map_err(|e| KmError::Unreachable(format!("a request not serialized: {e}")))?;
        let callback = if rare { &self.rare } else { &self.supports };
        let answer =
            callback.call1((text,)).and_then(|answer| answer.extract::<T>().map_err(Into::into));
        answer.map_err(|error| {
            self.raised = Some(error);
            KmError::Unreachable("a count over the shards failed".into())
        })
    }
}

impl<'py> Shards for PyShards<'py> {
    fn rare_itemsets(&mut self, request: &ShardRequest) -> Result<Vec<u128>, KmError> {
        // The parts' rare keys (`km_rare_in_union`'s key runs) joined.
        let runs: Bound<'py, PyBytes> = self.ask(true, request)?;
        let mut keys = Vec::new();
        read_runs(runs.as_bytes(), |key, _| keys.push(key))
            .map_err(|e| KmError::Unreachable(format!("the rare keys: {e}")))?;
        Ok(keys)
    }

    fn supports(&mut self, request: &ShardRequest) -> Result<Vec<u64>, KmError> {
        self.ask(false, request)
    }
}

/// The cut AA or DA finds over every shard (see `txanon_km::sharded::sharded_cut`); returns the
/// cut's labels, the raises and how many requests the shards answered.
#[pyfunction]
#[pyo3(signature = (*, supports, transactions, k, m, rare_itemsets, supports_of, hierarchy_text=None, universe=None, fanout=None, algorithm="aa", max_combinations=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn km_sharded_cut<'py>(
    supports: Vec<(String, u64)>,
    transactions: Int,
    k: Int,
    m: Int,
    rare_itemsets: Bound<'py, PyAny>,
    supports_of: Bound<'py, PyAny>,
    hierarchy_text: Option<String>,
    universe: Option<Vec<String>>,
    fanout: Option<Int>,
    algorithm: &str,
    max_combinations: Option<Int>,
) -> PyResult<(Vec<String>, Vec<Vec<String>>, usize)> {
    let params = params(k, m, algorithm, max_combinations, None)?;
    let hierarchy = hierarchy(hierarchy_text.as_deref(), universe.as_deref(), fanout_of(fanout)?)?;
    let mut shards = PyShards { rare: rare_itemsets, supports: supports_of, raised: None };
    let transactions = whole("transactions", transactions, 0u64, u64::MAX)?;
    let found = sharded_cut(&hierarchy, &supports, transactions, &params, &mut shards);
    if let Some(error) = shards.raised {
        return Err(error);
    }
    let found = found.map_err(|e| Failure::of(&e))?;
    Ok((found.cut, found.generalizations, found.requests))
}

/// One shard's answer to `request` (JSON, as `km_sharded_cut` hands it to its callbacks): for
/// itemsets, a table `(part, counts)` with a row per part of the key space that holds any of
/// its itemsets (`txanon_km::sharded::part_of` among `parts`), `counts` the part's keys and
/// capped supports as one key run (`txanon_data::key_runs`: about a quarter of 16 bytes a key
/// and 4 a support), for `km_rare_in_union` to sum part by part; for supports, a table
/// `(support)` in the order asked.
#[pyfunction]
#[pyo3(signature = (data_, *, request, parts=None, hierarchy_text=None, universe=None, fanout=None))]
pub(crate) fn km_count_shard<'py>(
    py: Python<'py>,
    data_: &Bound<'py, PyAny>,
    request: &str,
    parts: Option<Int>,
    hierarchy_text: Option<String>,
    universe: Option<Vec<String>>,
    fanout: Option<Int>,
) -> PyResult<Bound<'py, PyAny>> {
    let request: ShardRequest = serde_json::from_str(request)
        .map_err(|e| Failure::bad_input(format!("request: not a shard request: {e}")))?;
    let parts = parts.map(|p| whole("parts", p, 1u32, 1 << 20)).transpose()?;
    let hierarchy = hierarchy(hierarchy_text.as_deref(), universe.as_deref(), fanout_of(fanout)?)?;
    let data = data(py, data_, &Reading::default())?;
    let batch = detached(py, || {
        let counts = count_shard(&data.db, &hierarchy, &request).map_err(|e| Failure::of(&e))?;
        let columns: Vec<(&str, ArrayRef)> = match counts {
            ShardCounts::Itemsets(counted) => {
                let parts = parts.ok_or_else(|| {
                    Failure::bad_input("parts: an itemsets request is answered part by part")
                })?;
                // Each part's share of the itemsets at about five bytes each, and a little more,
                // so that no piece grows by copies: a shard's answer holds tens of millions of
                // them at 10⁷.
                let held: usize = counted.iter().map(Vec::len).sum();
                let share = (held / parts as usize + held / (8 * parts as usize) + 16) * 5;
                let mut pieces: Vec<Vec<u8>> =
                    (0..parts).map(|_| Vec::with_capacity(share)).collect();
                let mut runs = vec![KeyRunWriter::new(); parts as usize];
                for (key, support) in counted.into_iter().flatten() {
                    let part = part_of(key, parts) as usize;
                    runs[part]
                        .push(&mut pieces[part], key, u64::from(support))
                        .map_err(|e| internal(format!("a shard's itemsets: {e}")))?;
                }
                for (run, piece) in runs.iter_mut().zip(&mut pieces) {
                    if !piece.is_empty() {
                        run.finish(piece);
                    }
                }
                part_columns(pieces)
            }
            ShardCounts::Supports(counted) => vec![(
                "support",
                Arc::new(counted.into_iter().map(i64::from).collect::<Int64Array>()) as ArrayRef,
            )],
        };
        RecordBatch::try_from_iter(columns).map_err(|e| internal(e.to_string()))
    })?;
    batch.into_pyarrow(py)
}

/// The columns `(part, counts)` of a shard's counts split by part: a row per part that holds
/// any, `counts` its bytes.
fn part_columns(pieces: Vec<Vec<u8>>) -> Vec<(&'static str, ArrayRef)> {
    let held: Vec<(i32, Vec<u8>)> = pieces
        .into_iter()
        .enumerate()
        .filter(|(_, piece)| !piece.is_empty())
        .map(|(part, piece)| (part as i32, piece))
        .collect();
    vec![
        ("part", Arc::new(held.iter().map(|(part, _)| *part).collect::<Int32Array>()) as ArrayRef),
        (
            "counts",
            Arc::new(LargeBinaryArray::from_iter_values(
                held.iter().map(|(_, piece)| piece.as_slice()),
            )),
        ),
    ]
}

/// The union's rare keys in one part: `pieces` are the part's `counts` from the shards' answers
/// (`km_count_shard`), summed (see `txanon_km::sharded::rare_in_union`); the keys whose capped
/// supports stay below `k`, ascending, as one key run (`txanon_data::key_runs`) of keys alone.
/// The parts' answers joined as bytes are what `km_sharded_cut`'s `rare_itemsets` returns.
#[pyfunction]
#[pyo3(signature = (pieces, *, k))]
pub(crate) fn km_rare_in_union<'py>(
    py: Python<'py>,
    pieces: Vec<Bound<'py, PyBytes>>,
    k: Int,
) -> PyResult<Bound<'py, PyBytes>> {
    let k = whole("k", k, 1u32, u32::MAX)?;
    // Read in place: a `Vec<u8>` from `bytes` would go through a Python int per byte.
    let pieces: Vec<&[u8]> = pieces.iter().map(|p| p.as_bytes()).collect();
    let rare = detached(py, || {
        let decoded = pieces
            .iter()
            .map(|piece| {
                let mut counted = Vec::new();
                let mut too_large = None;
                read_runs(piece, |key, support| match u32::try_from(support) {
                    Ok(support) => counted.push((key, support)),
                    Err(_) => too_large = Some(support),
                })
                .map_err(|e| Failure::bad_input(format!("pieces: {e}")))?;
                if let Some(support) = too_large {
                    return Err(Failure::bad_input(format!(
                        "pieces: a capped support of {support}, past 2³² − 1"
                    )));
                }
                Ok(counted)
            })
            .collect::<Result<Vec<_>, Failure>>()?;
        let decoded: Vec<&[(u128, u32)]> = decoded.iter().map(Vec::as_slice).collect();
        let mut out = Vec::new();
        write_run(&mut out, rare_in_union(&decoded, k).into_iter().map(|key| (key, 0)))
            .map_err(|e| internal(format!("the rare keys: {e}")))?;
        Ok(out)
    })?;
    Ok(PyBytes::new(py, &rare))
}

/// How many keys `rare` holds: `km_rare_in_union`'s answers, joined.
#[pyfunction]
pub(crate) fn km_rare_count(rare: &Bound<'_, PyBytes>) -> PyResult<u64> {
    let mut count = 0u64;
    read_runs(rare.as_bytes(), |_, _| count += 1)
        .map_err(|e| Failure::bad_input(format!("rare: {e}")))?;
    Ok(count)
}

/// One shard's release under the cut `cut` found over `shards` shards (see
/// `txanon_publish::km::release_shard`).
#[pyfunction]
#[pyo3(signature = (data_, *, cut, generalizations, shards, k, m, described, hierarchy_text=None, universe=None, fanout=None, algorithm="aa", seed_=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn km_release_shard(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    cut: Vec<String>,
    generalizations: Int,
    shards: Int,
    k: Int,
    m: Int,
    described: String,
    hierarchy_text: Option<String>,
    universe: Option<Vec<String>>,
    fanout: Option<Int>,
    algorithm: &str,
    seed_: Option<Int>,
) -> PyResult<Publication> {
    let params = params(k, m, algorithm, None, seed_)?;
    let generalizations = whole("generalizations", generalizations, 0usize, usize::MAX)?;
    let shards = whole("shards", shards, 1usize, usize::MAX)?;
    let hierarchy = hierarchy(hierarchy_text.as_deref(), universe.as_deref(), fanout_of(fanout)?)?;
    let data = data(py, data_, &Reading::default())?;
    let release = detached(py, || {
        Ok(txanon_publish::km::release_shard(
            &data.name,
            &data.db,
            &hierarchy,
            &described,
            &cut,
            generalizations,
            shards,
            &params,
        )?)
    })?;
    Ok(Publication::new(release, data, None))
}

/// One shard of a kᵐ-anonymous publication over shards audited (see
/// `txanon_publish::audit::km_shard`): the report as a dict, and a table `(itemset, support)`
/// of its itemsets of at most `m` items with their supports capped at `k`; with `parts`, the
/// itemsets keyed by the hierarchy's nodes instead (`txanon_km::shard_node_itemsets`), as a
/// table `(part, counts)`: a row per part of the keys (`txanon_km::union_part`), `counts` its
/// keys and capped supports as bytes, for `km_union_part` to sum part by part.
#[pyfunction]
#[pyo3(signature = (dir, *, k, m, hierarchy=None, original_=None, parts=None))]
pub(crate) fn audit_km_shard<'py>(
    py: Python<'py>,
    dir: PathBuf,
    k: Int,
    m: Int,
    hierarchy: Option<PathBuf>,
    original_: Option<&Bound<'py, PyAny>>,
    parts: Option<Int>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let (claim, hierarchy) = km_claim(k, m, hierarchy)?;
    let original = original(py, original_)?;
    let parts = parts.map(|p| whole("parts", p, 1u32, 1 << 20)).transpose()?;
    if let Some(parts) = parts {
        let (audited, batch) = detached(py, || {
            let (audited, keyed) = txanon_publish::audit::km_shard_by_node(
                &dir,
                hierarchy.as_ref(),
                &claim,
                original.as_ref(),
            )?;
            let mut pieces: Vec<Vec<u8>> = vec![Vec::new(); parts as usize];
            for (key, support) in keyed {
                let piece = &mut pieces[txanon_km::union_part(key, parts) as usize];
                piece.extend_from_slice(&key.to_le_bytes());
                piece.extend_from_slice(&support.to_le_bytes());
            }
            let batch = RecordBatch::try_from_iter(part_columns(pieces))
                .map_err(|e| internal(e.to_string()))?;
            Ok((audited, batch))
        })?;
        return Ok((dict(py, &audited)?, batch.into_pyarrow(py)?));
    }
    let (audited, itemsets) = detached(py, || {
        Ok(txanon_publish::audit::km_shard(&dir, hierarchy.as_ref(), &claim, original.as_ref())?)
    })?;
    let report = dict(py, &audited)?;
    let mut sets = ListBuilder::new(StringBuilder::new());
    for (labels, _) in &itemsets {
        for label in labels {
            sets.values().append_value(label);
        }
        sets.append(true);
    }
    let supports: Int64Array = itemsets.iter().map(|&(_, s)| s as i64).collect();
    let batch = RecordBatch::try_from_iter([
        ("itemset", Arc::new(sets.finish()) as ArrayRef),
        ("support", Arc::new(supports) as ArrayRef),
    ])
    .map_err(|e| internal(e.to_string()))?;
    Ok((report, batch.into_pyarrow(py)?))
}

/// The bytes of one itemset's key and support in `audit_km_shard`'s `counts` and
/// `km_union_part`'s rare itemsets: 16 little-endian bytes of key, 8 of support.
const AUDIT_COUNTED_BYTES: usize = 24;

fn audit_counted(bytes: &[u8], what: &str) -> Result<Vec<(u128, u64)>, Failure> {
    Ok(records(bytes, AUDIT_COUNTED_BYTES, what)?
        .map(|c| {
            let key = u128::from_le_bytes(c[..16].try_into().expect("16 bytes"));
            (key, u64::from_le_bytes(c[16..].try_into().expect("8 bytes")))
        })
        .collect())
}

/// `bytes` as records of `width` bytes each, or the error naming `what` when they do not
/// divide into whole records.
fn records<'b>(
    bytes: &'b [u8],
    width: usize,
    what: &str,
) -> Result<std::slice::ChunksExact<'b, u8>, Failure> {
    if !bytes.len().is_multiple_of(width) {
        return Err(Failure::bad_input(format!(
            "{what}: {} bytes, not a whole number of {width}-byte counts",
            bytes.len()
        )));
    }
    Ok(bytes.chunks_exact(width))
}

/// The union's supports in one part of a kᵐ-anonymous publication over shards
/// (`txanon_km::union_sums`): `pieces` are the part's `counts` from the shards'
/// `audit_km_shard(..., parts=)`; returns the part's distinct itemsets, their smallest summed
/// support (`None` with none) and the itemsets below `k` with their supports (24 bytes each,
/// as in `counts`), ascending by key.
#[pyfunction]
#[pyo3(signature = (pieces, *, k))]
pub(crate) fn km_union_part<'py>(
    py: Python<'py>,
    pieces: Vec<Bound<'py, PyBytes>>,
    k: Int,
) -> PyResult<(u64, Option<u64>, Bound<'py, PyBytes>)> {
    let k = whole("k", k, 2u64, u64::MAX)?;
    let pieces: Vec<&[u8]> = pieces.iter().map(|p| p.as_bytes()).collect();
    let sums = detached(py, || {
        let decoded = pieces
            .iter()
            .map(|piece| audit_counted(piece, "pieces"))
            .collect::<Result<Vec<_>, Failure>>()?;
        let slices: Vec<&[(u128, u64)]> = decoded.iter().map(Vec::as_slice).collect();
        Ok(txanon_km::union_sums(&slices, k))
    })?;
    let mut rare = Vec::with_capacity(sums.rare.len() * AUDIT_COUNTED_BYTES);
    for (key, support) in &sums.rare {
        rare.extend_from_slice(&key.to_le_bytes());
        rare.extend_from_slice(&support.to_le_bytes());
    }
    Ok((sums.itemsets, sums.smallest, PyBytes::new(py, &rare)))
}

/// The labels of `rare` itemsets (`km_union_part`'s, 24 bytes each) under the hierarchy of
/// `hierarchy_text`, each with its support, in the order given.
#[pyfunction]
#[pyo3(signature = (rare, *, hierarchy_text))]
pub(crate) fn km_itemset_labels(
    rare: &Bound<'_, PyBytes>,
    hierarchy_text: &str,
) -> PyResult<Vec<(Vec<String>, u64)>> {
    let hierarchy = Hierarchy::from_text(hierarchy_text).map_err(|e| Failure::of(&e))?;
    let counted = audit_counted(rare.as_bytes(), "rare")?;
    Ok(counted
        .into_iter()
        .map(|(key, support)| {
            txanon_km::node_itemset_labels(key, &hierarchy)
                .map(|labels| (labels, support))
                .ok_or_else(|| {
                    Failure::bad_input("rare: an itemset names a node the hierarchy does not have")
                })
        })
        .collect::<Result<Vec<_>, Failure>>()?)
}

/// Coherence's parameters over shards: `nugget_support` (a count, fraction or percentage) of
/// the union's `transactions`.
fn coherence_params(
    (h, k, p): (f64, Int, Int),
    nugget_support: &Bound<'_, PyAny>,
    transactions: u64,
    max_itemsets: Option<Int>,
    seed: Option<Int>,
) -> Result<txanon_coherence::ValidCoherenceParams, Failure> {
    if !(0.0..1.0).contains(&h) {
        return Err(Failure::bad_input(format!(
            "h = {h}: out of range, allowed 0 to 1 (1 excluded)"
        )));
    }
    let k = whole("k", k, 2u32, u32::MAX)?;
    let p = whole("p", p, 1usize, usize::MAX)?;
    let max_itemsets = whole(
        "max_itemsets",
        max_itemsets
            .unwrap_or_else(|| Int::from(i128::from(txanon_coherence::DEFAULT_MAX_ITEMSETS))),
        1u64,
        u64::MAX,
    )?;
    let nugget_support: txanon_mining::MinSupport = nugget_support
        .str()
        .map_err(|e| Failure::bad_input(format!("nugget_support: {e}")))?
        .to_string()
        .parse()
        .map_err(|why| Failure::bad_input(format!("nugget_support: {why}")))?;
    let n = usize::try_from(transactions).unwrap_or(usize::MAX);
    txanon_coherence::CoherenceParams::new(h, k, p, nugget_support.count(n))
        .max_itemsets(max_itemsets)
        .seed(seed_of(seed)?)
        .check()
        .map_err(Failure::from)
}

/// The shards as Python reaches them for coherence: `lengths(request)` returns
/// `(longest, histogram)`, `itemsets(request)` an Arrow record batch `(hi, lo, private,
/// count)` summed over the shards by itemset and private item (−1: the itemset's support), `candidates(request)` the distinct candidates (lists of
/// ranks), `supports(request)` the summed supports; a Python exception is kept and raised
/// when the search returns.
struct PyCoherenceShards<'py> {
    callbacks: [Bound<'py, PyAny>; 4],
    raised: Option<PyErr>,
}

impl<'py> PyCoherenceShards<'py> {
    fn call(
        &mut self,
        which: usize,
        request: &txanon_coherence::sharded::ShardRequest,
    ) -> Result<Bound<'py, PyAny>, txanon_coherence::CoherenceError> {
        let text = serde_json::to_string(request).expect("a request serializes");
        self.callbacks[which].call1((text,)).map_err(|error| self.kept(error))
    }

    /// Keeps the Python error, which the caller raises in place of the one returned here (it
    /// only stops the search).
    fn kept(&mut self, error: PyErr) -> txanon_coherence::CoherenceError {
        self.raised = Some(error);
        txanon_coherence::CoherenceError::NoCohesion("a count over the shards failed".into())
    }

    fn extract<T>(
        &mut self,
        which: usize,
        request: &txanon_coherence::sharded::ShardRequest,
    ) -> Result<T, txanon_coherence::CoherenceError>
    where
        T: for<'a> FromPyObject<'a, 'py>,
    {
        let answer = self.call(which, request)?;
        answer.extract::<T>().map_err(|e| {
            let e: PyErr = e.into();
            self.kept(e)
        })
    }
}

impl txanon_coherence::sharded::Shards for PyCoherenceShards<'_> {
    fn lengths(
        &mut self,
        request: &txanon_coherence::sharded::ShardRequest,
    ) -> Result<(u64, Vec<u64>), txanon_coherence::CoherenceError> {
        self.extract(0, request)
    }

    fn itemsets(
        &mut self,
        request: &txanon_coherence::sharded::ShardRequest,
    ) -> Result<Vec<(u128, u32, u64)>, txanon_coherence::CoherenceError> {
        // The parts' sums (`coherence_itemsets_in_union`'s key runs) joined.
        let answer = self.call(1, request)?;
        let runs = answer.cast::<PyBytes>().map_err(|e| self.kept(PyErr::from(e)))?;
        let mut rows = Vec::new();
        let read = read_words(runs.as_bytes(), COHERENCE_KEY_WORDS, |words, count| {
            rows.push(coherence_row(words, count))
        });
        match read {
            Ok(()) => Ok(rows),
            Err(e) => Err(self.kept(internal(format!("the shards' itemsets: {e}")).into())),
        }
    }

    fn candidates(
        &mut self,
        request: &txanon_coherence::sharded::ShardRequest,
    ) -> Result<Vec<Vec<u32>>, txanon_coherence::CoherenceError> {
        self.extract(2, request)
    }

    fn supports(
        &mut self,
        request: &txanon_coherence::sharded::ShardRequest,
    ) -> Result<Vec<u64>, txanon_coherence::CoherenceError> {
        self.extract(3, request)
    }
}

/// The suppressions (h,k,p)-coherence makes over every shard (see
/// `txanon_coherence::sharded::sharded_suppression`), as JSON for the shards' releases.
#[pyfunction]
#[pyo3(signature = (*, supports, transactions, private, h, k, p, nugget_support, lengths, itemsets, candidates, supports_of, max_itemsets=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn coherence_sharded_suppression<'py>(
    supports: Vec<(String, u64)>,
    transactions: Int,
    private: Vec<String>,
    h: f64,
    k: Int,
    p: Int,
    nugget_support: &Bound<'py, PyAny>,
    lengths: Bound<'py, PyAny>,
    itemsets: Bound<'py, PyAny>,
    candidates: Bound<'py, PyAny>,
    supports_of: Bound<'py, PyAny>,
    max_itemsets: Option<Int>,
) -> PyResult<String> {
    let transactions = whole("transactions", transactions, 0u64, u64::MAX)?;
    let params = coherence_params((h, k, p), nugget_support, transactions, max_itemsets, None)?;
    let mut shards =
        PyCoherenceShards { callbacks: [lengths, itemsets, candidates, supports_of], raised: None };
    let found = txanon_coherence::sharded::sharded_suppression(
        &supports,
        transactions,
        &private,
        &params,
        &mut shards,
    );
    if let Some(error) = shards.raised {
        return Err(error);
    }
    let found = found.map_err(|e| Failure::of(&e))?;
    Ok(serde_json::to_string(&found).map_err(|e| internal(e.to_string()))?)
}

/// One shard's answer to a coherence `request` (JSON, as `coherence_sharded_suppression`
/// hands it to its callbacks), as an Arrow record batch: `(longest, length, count)`,
/// `(part, counts)` for the itemsets (a row per part of the keys among `parts` that holds any,
/// `counts` the part's rows `(itemset, private item or none, count)` as one key run, for
/// `coherence_itemsets_in_union` to sum part by part), `(itemset)` or `(support)`.
#[pyfunction]
#[pyo3(signature = (data_, *, request, parts=None))]
pub(crate) fn coherence_count_shard<'py>(
    py: Python<'py>,
    data_: &Bound<'py, PyAny>,
    request: &str,
    parts: Option<Int>,
) -> PyResult<Bound<'py, PyAny>> {
    use arrow_array::builder::{Int32Builder, ListBuilder};
    use txanon_coherence::sharded::{ShardCounts, ShardRequest, count_shard};
    let request: ShardRequest = serde_json::from_str(request)
        .map_err(|e| Failure::bad_input(format!("request: not a shard request: {e}")))?;
    let data = data(py, data_, &Reading::default())?;
    let counts = detached(py, || count_shard(&data.db, &request).map_err(|e| Failure::of(&e)))?;
    let long = |v: Vec<i64>| -> ArrayRef { Arc::new(Int64Array::from(v)) };
    let columns: Vec<(&str, ArrayRef)> = match counts {
        ShardCounts::Lengths { longest, histogram } => vec![
            ("longest", long(vec![longest as i64; histogram.len()])),
            ("length", long((0..histogram.len() as i64).collect())),
            ("count", long(histogram.into_iter().map(|c| c as i64).collect())),
        ],
        ShardCounts::Itemsets(rows) => {
            let parts = parts.ok_or_else(|| {
                Failure::bad_input("parts: an itemsets request is answered part by part")
            })?;
            let parts = whole("parts", parts, 1u32, 1 << 20)?;
            part_columns(detached(py, || coherence_pieces(rows, parts))?)
        }
        ShardCounts::Candidates(sets) => {
            // Ranks as Spark's ints (ranks count items, far below 2³¹).
            let mut lists = ListBuilder::new(Int32Builder::new());
            for set in sets {
                lists.values().extend(set.iter().map(|&r| Some(r as i32)));
                lists.append(true);
            }
            vec![("itemset", Arc::new(lists.finish()) as ArrayRef)]
        }
        ShardCounts::Supports(counts) => {
            vec![("support", long(counts.into_iter().map(|c| c as i64).collect()))]
        }
    };
    let batch = RecordBatch::try_from_iter(columns).map_err(|e| internal(e.to_string()))?;
    batch.into_pyarrow(py)
}

/// A coherence itemset row's key in a key run: the itemset's four words, then its private
/// item's rank (`NO_PRIVATE`, the largest, for the itemset's support row), so that the runs
/// ascend as `txanon_coherence::sharded::sum_itemset_rows` orders the rows.
const COHERENCE_KEY_WORDS: usize = 5;

fn coherence_words(key: u128, private: u32) -> [u32; COHERENCE_KEY_WORDS] {
    let [a, b, c, d] = words_of(key);
    [a, b, c, d, private]
}

fn coherence_row(words: &[u32], count: u64) -> (u128, u32, u64) {
    let key = words[..4].iter().fold(0u128, |key, &w| (key << 32) | u128::from(w));
    (key, words[4], count)
}

/// Rows as one key run.
fn coherence_run(
    rows: impl IntoIterator<Item = (u128, u32, u64)>,
    out: &mut Vec<u8>,
) -> Result<(), Failure> {
    let mut run = KeyRunWriter::with_width(COHERENCE_KEY_WORDS);
    for (key, private, count) in rows {
        run.push_words(out, &coherence_words(key, private), count)
            .map_err(|e| internal(format!("coherence's itemset rows: {e}")))?;
    }
    run.finish(out);
    Ok(())
}

/// A shard's itemset rows split by part (`txanon_coherence::sharded::itemset_part`), each
/// part's as one key run (empty for a part that holds none).
fn coherence_pieces(rows: Vec<(u128, u32, u64)>, parts: u32) -> Result<Vec<Vec<u8>>, Failure> {
    let mut by_part: Vec<Vec<(u128, u32, u64)>> = vec![Vec::new(); parts as usize];
    for row in rows {
        by_part[txanon_coherence::sharded::itemset_part(row.0, parts) as usize].push(row);
    }
    by_part
        .into_iter()
        .map(|rows| {
            let mut piece = Vec::new();
            if !rows.is_empty() {
                // Ascending, as a key run needs: the shard's rows are one per key already.
                coherence_run(txanon_coherence::sharded::sum_itemset_rows(rows), &mut piece)?;
            }
            Ok(piece)
        })
        .collect()
}

/// One part's itemset rows summed over the shards (see
/// `txanon_coherence::sharded::sum_itemset_rows`): `pieces` are the part's `counts` from the
/// shards' answers (`coherence_count_shard`); the sums as one key run. The parts' answers
/// joined as bytes are what `coherence_sharded_suppression`'s `itemsets` returns.
#[pyfunction]
pub(crate) fn coherence_itemsets_in_union<'py>(
    py: Python<'py>,
    pieces: Vec<Bound<'py, PyBytes>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let pieces: Vec<&[u8]> = pieces.iter().map(|p| p.as_bytes()).collect();
    let summed = detached(py, || {
        let mut rows = Vec::new();
        for piece in &pieces {
            read_words(piece, COHERENCE_KEY_WORDS, |words, count| {
                rows.push(coherence_row(words, count))
            })
            .map_err(|e| Failure::bad_input(format!("pieces: {e}")))?;
        }
        let mut out = Vec::new();
        coherence_run(txanon_coherence::sharded::sum_itemset_rows(rows), &mut out)?;
        Ok(out)
    })?;
    Ok(PyBytes::new(py, &summed))
}

/// One shard's release under the suppressions `suppression` (JSON, from
/// `coherence_sharded_suppression`) decided over `shards` shards (see
/// `txanon_publish::coherence::release_shard`).
#[pyfunction]
#[pyo3(signature = (data_, *, suppression, private, shards, h, k, p, nugget_support, seed_=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn coherence_release_shard(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    suppression: &str,
    private: Vec<String>,
    shards: Int,
    h: f64,
    k: Int,
    p: Int,
    nugget_support: &Bound<'_, PyAny>,
    seed_: Option<Int>,
) -> PyResult<Publication> {
    let suppression: txanon_coherence::sharded::ShardedSuppression =
        serde_json::from_str(suppression)
            .map_err(|e| Failure::bad_input(format!("suppression: not a suppression set: {e}")))?;
    let shards = whole("shards", shards, 1usize, usize::MAX)?;
    let params =
        coherence_params((h, k, p), nugget_support, suppression.transactions, None, seed_)?;
    let data = data(py, data_, &Reading::default())?;
    let release = detached(py, || {
        Ok(txanon_publish::coherence::release_shard(
            &data.name,
            &data.db,
            &private,
            &suppression,
            shards,
            &params,
        )?)
    })?;
    Ok(Publication::new(release, data, None))
}

/// One shard of a coherence publication with one suppression set audited (see
/// `txanon_publish::audit::coherence_shard`): the report as a dict, and a table
/// `(part, counts)` of its public itemsets of at most `p` items (the empty one included) with
/// their supports and private counts, keyed by the shard's ids and cut into `parts`
/// (`txanon_coherence::ShardKeyedItemsets::pieces`), for `coherence_union_part` to sum part
/// by part; and the shard's items (its published labels).
#[pyfunction]
#[pyo3(signature = (dir, *, h, k, p, sensitive, parts, original_=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn audit_coherence_shard<'py>(
    py: Python<'py>,
    dir: PathBuf,
    h: f64,
    k: Int,
    p: Int,
    sensitive: Vec<String>,
    parts: Int,
    original_: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Vec<String>)> {
    let claim = coherence_claim(h, k, p, sensitive)?;
    let parts = whole("parts", parts, 1u32, 1 << 20)?;
    let original = original(py, original_)?;
    let (audited, batch, audited_labels) = detached(py, || {
        let (audited, keyed) =
            txanon_publish::audit::coherence_shard(&dir, &claim, original.as_ref())?;
        let batch = RecordBatch::try_from_iter(part_columns(keyed.pieces(parts)))
            .map_err(|e| internal(e.to_string()))?;
        Ok((audited, batch, keyed.labels))
    })?;
    Ok((dict(py, &audited)?, batch.into_pyarrow(py)?, audited_labels))
}

/// One part of the union's (h,k,p)-coherence decided (see `txanon_coherence::union_part`):
/// `pieces` the part's `counts` from every shard's `audit_coherence_shard`. Returns the part
/// as a dict: its itemsets, its largest share of a private item (`worst_breach`), its
/// violations counted by kind (`too_few_transactions`, `rare_itemsets`, `breaches`) and up to
/// the audit's limit of them (`violations`).
#[pyfunction]
#[pyo3(signature = (pieces, *, h, k, p, sensitive))]
pub(crate) fn coherence_union_part<'py>(
    py: Python<'py>,
    pieces: Vec<Bound<'py, PyBytes>>,
    h: f64,
    k: Int,
    p: Int,
    sensitive: Vec<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let claim = coherence_claim(h, k, p, sensitive)?;
    // Read in place: a `Vec<u8>` from `bytes` would go through a Python int per byte.
    let pieces: Vec<&[u8]> = pieces.iter().map(|p| p.as_bytes()).collect();
    let part = detached(py, || {
        txanon_coherence::union_part(&pieces, &claim).map_err(|e| Failure::of(&e))
    })?;
    dict(py, &part)
}
