//! Exact frequent-itemset mining over a [`TransactionDb`]: FP-Growth and Apriori, counting
//! without listing, maximal and closed itemsets, and association rules.
//!
//! Every family's utility is judged by mining the original and the published data and comparing
//! (`txanon-metrics`); the coherence family takes its nugget border from the maximal itemsets.
//! The results are exact: an integration test compares every itemset and support with Christian
//! Borgelt's implementations (pyfim) on the real datasets.
//!
//! Miners report to an [`ItemsetVisitor`] one [`ItemsetClass`] at a time, so memory stays bounded
//! when only counts are wanted ([`count_itemsets`]) and listings fail cleanly at a limit
//! ([`MiningError::LimitExceeded`]) instead of exhausting memory.
//!
//! ```
//! use txanon_data::TransactionDb;
//! use txanon_mining::{Algorithm, MinSupport, MiningParams, frequent_itemsets};
//!
//! let db = TransactionDb::from_int_transactions([vec![1, 2], vec![1, 2, 3], vec![1, 3]]);
//! let params = MiningParams::new(MinSupport::Count(2)).check()?;
//! let mut found = frequent_itemsets(&db, Algorithm::FpGrowth, &params)?;
//! found.sort();
//! // {1}:3 {2}:2 {3}:2 {1,2}:2 {1,3}:2, in dense ids 0, 1, 2.
//! let listed: Vec<_> = found.iter().map(|(items, s)| (items.to_vec(), s)).collect();
//! assert_eq!(listed, [(vec![0], 3), (vec![1], 2), (vec![2], 2), (vec![0, 1], 2), (vec![0, 2], 2)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod apriori;
mod class;
mod condensed;
mod error;
mod fpgrowth;
mod params;
mod recode;
pub mod rules;

use std::str::FromStr;

pub use class::{
    FrequentItemsets, ItemCounts, ItemsetClass, ItemsetCollector, ItemsetVisitor, PatternSpectrum,
};
pub use error::MiningError;
pub use params::{
    DEFAULT_LIMIT, MinSupport, MiningParams, RuleParams, ValidMiningParams, ValidRuleParams,
};
pub use rules::{Rule, RuleRef};
use txanon_data::TransactionDb;

use crate::condensed::{Condensed, TopCollector};
use crate::recode::RecodedDb;

/// A frequent-itemset algorithm. Both find exactly the same itemsets and supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// FP-Growth with perfect-extension pruning and parallel top-level branches: the fast one.
    FpGrowth,
    /// Level-wise Apriori, as the anatomy paper mines.
    Apriori,
}

impl Algorithm {
    /// Every algorithm.
    pub const ALL: [Algorithm; 2] = [Algorithm::FpGrowth, Algorithm::Apriori];

    /// The name the CLI uses.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::FpGrowth => "fpgrowth",
            Algorithm::Apriori => "apriori",
        }
    }
}

impl FromStr for Algorithm {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| format!("unknown algorithm {s:?}: expected fpgrowth or apriori"))
    }
}

/// Runs `algorithm` on `db`, reporting every class of frequent itemsets to `visitor`; returns
/// the absolute minimum support used.
///
/// # Errors
/// Apriori fails with [`MiningError::LimitExceeded`] when a level has more candidates than the
/// limit. A visitor's own limit is the visitor's to report.
pub fn mine<V: ItemsetVisitor>(
    db: &TransactionDb,
    algorithm: Algorithm,
    params: &ValidMiningParams,
    visitor: &mut V,
) -> Result<u32, MiningError> {
    let min_count = params.min_support().count(db.len());
    let (min_len, max_len) = (params.min_len(), params.max_len());
    // Parallel branches only pay with threads to run them; the result is the same either way,
    // in the same order (run inside a one-thread rayon pool for a sequential search).
    let parallel = rayon::current_num_threads() > 1;
    match algorithm {
        Algorithm::FpGrowth => {
            let recoded = RecodedDb::new(db, min_count, true);
            let progress = params.progress_handle();
            fpgrowth::mine(&recoded, min_count, (min_len, max_len), parallel, progress, visitor);
        }
        Algorithm::Apriori => {
            let recoded = RecodedDb::new(db, min_count, false);
            apriori::mine(
                &recoded,
                min_count,
                min_len,
                max_len,
                params.limit(),
                parallel,
                visitor,
            )?;
        }
    }
    Ok(min_count)
}

/// Every frequent itemset with its support, items sorted within each itemset; the itemsets in
/// the order found (call [`FrequentItemsets::sort`] for the canonical order).
///
/// # Errors
/// [`MiningError::LimitExceeded`] when there are more than `params.limit()`.
pub fn frequent_itemsets(
    db: &TransactionDb,
    algorithm: Algorithm,
    params: &ValidMiningParams,
) -> Result<FrequentItemsets, MiningError> {
    let mut collector = ItemsetCollector::new(params.limit());
    mine(db, algorithm, params, &mut collector)?;
    collector.finish()
}

/// The number of frequent itemsets of each length, counted with FP-Growth and perfect-extension
/// pruning: exact even when the itemsets are far too many to list.
///
/// # Errors
/// [`MiningError::CountOverflow`] beyond 2¹²⁸.
pub fn count_itemsets(
    db: &TransactionDb,
    params: &ValidMiningParams,
) -> Result<PatternSpectrum, MiningError> {
    let mut spectrum = PatternSpectrum::default();
    mine(db, Algorithm::FpGrowth, params, &mut spectrum)?;
    spectrum.into_result()
}

/// For every item of `db`, the number of frequent itemsets holding it (within the length
/// bounds), counted with FP-Growth and perfect-extension pruning, none listed.
///
/// # Errors
/// [`MiningError::CountOverflow`] when a count exceeds 2¹²⁸.
pub fn count_per_item(
    db: &TransactionDb,
    params: &ValidMiningParams,
) -> Result<Vec<u128>, MiningError> {
    Ok(count_per_item_and_length(db, params)?.0)
}

/// [`count_per_item`] and, from the same search, the number of frequent itemsets of each
/// length (as [`count_itemsets`]'s `by_len`).
///
/// # Errors
/// [`MiningError::CountOverflow`] when a count exceeds 2¹²⁸.
pub fn count_per_item_and_length(
    db: &TransactionDb,
    params: &ValidMiningParams,
) -> Result<(Vec<u128>, Vec<u128>), MiningError> {
    let mut counts = ItemCounts::new(db.num_items());
    mine(db, Algorithm::FpGrowth, params, &mut counts)?;
    counts.into_result()
}

/// The maximal frequent itemsets (no frequent proper superset), canonical order.
///
/// # Errors
/// [`MiningError::Unsupported`] with a maximum length: maximality is defined over all lengths.
pub fn maximal_itemsets(
    db: &TransactionDb,
    params: &ValidMiningParams,
) -> Result<FrequentItemsets, MiningError> {
    condensed(db, params, Condensed::Maximal)
}

/// The closed frequent itemsets (no proper superset of equal support), canonical order.
///
/// # Errors
/// [`MiningError::Unsupported`] with a maximum length.
pub fn closed_itemsets(
    db: &TransactionDb,
    params: &ValidMiningParams,
) -> Result<FrequentItemsets, MiningError> {
    condensed(db, params, Condensed::Closed)
}

fn condensed(
    db: &TransactionDb,
    params: &ValidMiningParams,
    kind: Condensed,
) -> Result<FrequentItemsets, MiningError> {
    if params.max_len() != usize::MAX {
        return Err(MiningError::Unsupported(
            "maximal and closed itemsets are defined over all lengths: drop the maximum length",
        ));
    }
    let mut tops = TopCollector::new(kind);
    mine(db, Algorithm::FpGrowth, &params.unbounded(), &mut tops)?;
    Ok(condensed::filter(kind, &tops.tops, params.min_len()))
}
