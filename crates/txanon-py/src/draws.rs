//! Draws over an item universe given as its labels, for a caller that holds the items but not
//! the transactions: `txanon.spark` draws the sensitive items and the categories once, on the
//! driver, from the DataFrame's distinct items, so that every shard uses the same ones. The
//! draws are the crates' own (`random_items`, `random_categories`: ChaCha8), seeded as a run's
//! are: from the caller's seed keyed with the items, or from the operating system's 256 bits.

use pyo3::prelude::*;
use txanon_data::TransactionDb;

use crate::convert::{Int, whole};
use crate::errors::{Failure, detached};

/// The items as a database of one transaction holding each once (labels ranked as a read
/// ranks them: numerically when every label is an integer).
fn universe(labels: &[String]) -> Result<TransactionDb, Failure> {
    let mut sorted: Vec<&str> = labels.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    if let Some(pair) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(Failure::bad_input(format!("items: {:?} is listed twice", pair[0])));
    }
    if labels.is_empty() {
        return Err(Failure::bad_input("items: no item to draw from"));
    }
    Ok(TransactionDb::from_str_transactions([labels]))
}

fn seed(value: Option<Int>) -> Result<Option<u64>, Failure> {
    value.map(|s| whole("seed", s, 0u64, u64::MAX)).transpose()
}

/// `count` of the items `labels` drawn at random, as `sensitive_random` draws them.
#[pyfunction]
#[pyo3(signature = (labels, *, count, name, seed_=None))]
pub(crate) fn draw_items(
    labels: Vec<String>,
    count: Int,
    name: &str,
    seed_: Option<Int>,
) -> PyResult<Vec<String>> {
    let db = universe(&labels)?;
    let count = whole(name, count, 1usize, db.num_items())?;
    let seed = seed(seed_)?;
    let items = txanon_data::random_items(&db, count, txanon_data::draw_seed(seed, &db))
        .map_err(Failure::from)?;
    Ok(items.into_iter().map(|i| db.label(i).to_string()).collect())
}

/// The items `labels` shared at random among `count` categories, as `random_categories`
/// shares them: each item's category, in the order of `labels`.
#[pyfunction]
#[pyo3(signature = (labels, *, count, seed_=None))]
pub(crate) fn draw_categories(
    labels: Vec<String>,
    count: Int,
    seed_: Option<Int>,
) -> PyResult<Vec<String>> {
    let db = universe(&labels)?;
    let count = whole("random_categories", count, 1usize, db.num_items())?;
    let seed = seed(seed_)?;
    let categories = txanon_data::random_categories(&db, count, txanon_data::draw_seed(seed, &db))
        .map_err(Failure::from)?;
    let category_of: std::collections::HashMap<String, &str> = (0..db.num_items())
        .map(|i| {
            let c = categories.categories()[i] as usize;
            (db.label(i as u32).to_string(), categories.names()[c].as_str())
        })
        .collect();
    Ok(labels.iter().map(|l| category_of[l.as_str()].to_string()).collect())
}

/// Quest transactions (see `txanon.generate.quest`): the whole database, or with `part` one
/// part of a database too large for one process.
#[pyfunction]
#[pyo3(signature = (*, transactions, avg_len=40.0, pattern_len=10.0, items=None, patterns=None, correlation=0.25, confidence=0.75, confidence_var=0.1, seed_=None, part=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn generate_quest<'py>(
    py: Python<'py>,
    transactions: Int,
    avg_len: f64,
    pattern_len: f64,
    items: Option<Int>,
    patterns: Option<Int>,
    correlation: f64,
    confidence: f64,
    confidence_var: f64,
    seed_: Option<Int>,
    part: Option<Int>,
) -> PyResult<Bound<'py, PyAny>> {
    let transactions = whole("transactions", transactions, 1usize, usize::MAX)?;
    let items = whole("items", items.unwrap_or(Int::from(1000)), 1u32, u32::MAX)?;
    let patterns = whole("patterns", patterns.unwrap_or(Int::from(2000)), 1usize, usize::MAX)?;
    let seed = seed(seed_)?.unwrap_or(0);
    let part = part.map(|p| whole("part", p, 0u64, u64::MAX - 1)).transpose()?;
    let params = txanon_data::QuestParams::new(transactions, avg_len, pattern_len, items)
        .patterns(patterns)
        .correlation(correlation)
        .confidence(confidence, confidence_var)
        .seed(seed)
        .check()
        .map_err(Failure::from)?;
    let db = detached(py, || {
        Ok(match part {
            Some(part) => params.generate_part(part),
            None => params.generate(),
        })
    })?;
    crate::convert::table(py, &db)
}
