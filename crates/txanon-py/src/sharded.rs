//! kᵐ-anonymity over shards, for `txanon.spark`: the driver's search of one cut over every
//! shard (`km_sharded_cut`, whose counts come from Python callbacks that run Spark jobs), a
//! shard's answer to one of its requests (`km_count_shard`), a shard's release under the cut
//! (`km_release_shard`), and a shard's audit with its itemsets counted for the union
//! (`audit_km_shard`). The algorithm is `txanon_km::sharded`'s; this holds none.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_pyarrow::IntoPyArrow;
use pyo3::prelude::*;
use txanon_data::ErrorKind;
use txanon_km::sharded::{ShardCounts, ShardRequest, Shards, count_shard, sharded_cut};
use txanon_km::{Algorithm, Hierarchy, KmError, KmParams, ValidKmParams};

use crate::audits::{dict, km_claim, original};
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
/// sum below k as two lists of 64-bit halves, `supports(request)` the summed supports; a
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

impl Shards for PyShards<'_> {
    fn rare_itemsets(&mut self, request: &ShardRequest) -> Result<Vec<u128>, KmError> {
        let (hi, lo): (Vec<i64>, Vec<i64>) = self.ask(true, request)?;
        if hi.len() != lo.len() {
            return Err(KmError::Unreachable("the keys' halves differ in length".into()));
        }
        // The halves travel as Spark's signed longs: their bits are the key's.
        Ok(hi
            .into_iter()
            .zip(lo)
            .map(|(h, l)| (u128::from(h as u64) << 64) | u128::from(l as u64))
            .collect())
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

/// One shard's answer to `request` (JSON, as `km_sharded_cut` hands it to its callbacks): a
/// table `(hi, lo, count)` of its itemsets' keys and capped supports, or `(support)` in the
/// order asked.
#[pyfunction]
#[pyo3(signature = (data_, *, request, hierarchy_text=None, universe=None, fanout=None))]
pub(crate) fn km_count_shard<'py>(
    py: Python<'py>,
    data_: &Bound<'py, PyAny>,
    request: &str,
    hierarchy_text: Option<String>,
    universe: Option<Vec<String>>,
    fanout: Option<Int>,
) -> PyResult<Bound<'py, PyAny>> {
    let request: ShardRequest = serde_json::from_str(request)
        .map_err(|e| Failure::bad_input(format!("request: not a shard request: {e}")))?;
    let hierarchy = hierarchy(hierarchy_text.as_deref(), universe.as_deref(), fanout_of(fanout)?)?;
    let data = data(py, data_, &Reading::default())?;
    let counts =
        detached(py, || count_shard(&data.db, &hierarchy, &request).map_err(|e| Failure::of(&e)))?;
    let columns: Vec<(&str, ArrayRef)> = match counts {
        ShardCounts::Itemsets(counted) => vec![
            (
                "hi",
                Arc::new(
                    counted
                        .iter()
                        .map(|&(key, _)| (key >> 64) as u64 as i64)
                        .collect::<Int64Array>(),
                ),
            ),
            (
                "lo",
                Arc::new(counted.iter().map(|&(key, _)| key as u64 as i64).collect::<Int64Array>()),
            ),
            ("count", Arc::new(counted.iter().map(|&(_, c)| i64::from(c)).collect::<Int64Array>())),
        ],
        ShardCounts::Supports(counted) => {
            vec![("support", Arc::new(counted.into_iter().map(i64::from).collect::<Int64Array>()))]
        }
    };
    let batch = RecordBatch::try_from_iter(columns).map_err(|e| internal(e.to_string()))?;
    batch.into_pyarrow(py)
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
/// of its itemsets of at most `m` items with their supports capped at `k`.
#[pyfunction]
#[pyo3(signature = (dir, *, k, m, hierarchy=None, original_=None))]
pub(crate) fn audit_km_shard<'py>(
    py: Python<'py>,
    dir: PathBuf,
    k: Int,
    m: Int,
    hierarchy: Option<PathBuf>,
    original_: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let (claim, hierarchy) = km_claim(k, m, hierarchy)?;
    let original = original(py, original_)?;
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
