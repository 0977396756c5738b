//! Parameters of multi-dimension anatomy.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use txanon_correlate::MedoidSearch;
use txanon_data::ParamError;
use txanon_data::progress::Progress;

/// Which reading of l-diversity a table satisfies.
///
/// The paper states Definition 5 (the frequency bound) and proves its Corollary 1 and Theorem 1
/// (an attacker infers a column value with probability at most `1/l`) from it; but its Example 4
/// calls Table I(E) 2-diverse although `{b}` holds 3 of 5 records of a bucket, and its Theorem 2
/// argues from "at least l different itemsets per column". Only the first reading bounds the
/// attacker's probability, so it is the default; the second is offered to reproduce the paper's
/// settings, which its own definition cannot reach on its datasets (see the crate docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Diversity {
    /// Definition 5: in every bucket and column the most frequent value (the empty set
    /// included) is held by at most `1/l` of the bucket's records. Bounds by `1/l` the
    /// probability of inferring any record's value in any column.
    Frequency,
    /// At least `l` distinct values in every bucket and column (the paper's Example 4 and
    /// Theorem 2). Weaker: implied by [`Diversity::Frequency`], not the converse, and it bounds
    /// no probability (a bucket may hold one value 99 times and another once).
    Distinct,
}

/// How the items are split into columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemPartitioning {
    /// The paper's: k-medoids on `d = 1 − φ²` and nothing else. On sparse data a column of
    /// rare items is empty in most records, and a column holding a near-universal item has one
    /// dominant value; either makes Definition 5 unreachable for every record partition.
    Clustered,
    /// k-medoids as above, then items are moved between columns, one at a time, until every
    /// column admits l-diversity (no value held by more than `1/l` of all records, a condition
    /// every l-diverse record partition needs). Each move is the one that lowers the total
    /// excess over that bound most; ties go to the item closest (in `1 − φ²`) to its new
    /// column's medoid. Columns the clustering already made admissible are left alone, so on
    /// data where the paper's method works this is the paper's method.
    Repaired,
    /// No clustering: a partition built for Definition 5 on a sample of the records (items in
    /// decreasing entropy, each to the column it leaves lowest; then moves and swaps while they
    /// lower the largest share of any column's most frequent value), checked on every record.
    /// Reaches higher l than the repair where the columns' top values bind (Connect, p = 10:
    /// l = 8 against 7), at the cost of correlated items no longer sharing a column.
    Diverse,
}

/// Parameters of [`anonymize`](crate::anonymize); build with [`AnatomyParams::new`], validate
/// with [`AnatomyParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct AnatomyParams {
    columns: usize,
    l: usize,
    seed: Option<u64>,
    medoid_search: MedoidSearch,
    diversity: Diversity,
    partitioning: ItemPartitioning,
    headroom: f64,
    item_columns: Option<Arc<[Vec<String>]>>,
    progress: Option<Progress>,
}

/// Checked [`AnatomyParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct ValidAnatomyParams(AnatomyParams);

impl AnatomyParams {
    /// `columns` item columns (the paper's p) and diversity `l`.
    pub fn new(columns: usize, l: usize) -> Self {
        Self {
            columns,
            l,
            seed: None,
            medoid_search: MedoidSearch::FastPam1,
            diversity: Diversity::Frequency,
            partitioning: ItemPartitioning::Repaired,
            headroom: 0.25,
            item_columns: None,
            progress: None,
        }
    }

    /// Where the method reports its phases (the item partition, the record scan with a count
    /// of records, the table, the audit) for a front end to draw; none by default. It changes
    /// nothing in the result.
    pub fn progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Seed of every random choice that reaches the published data (scan order, leftover
    /// placement, bucket order, the permutations). Default: drawn from the operating system, so
    /// two runs publish differently; give one only to reproduce a run.
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// The k-medoids SWAP search for the item partition (default FastPAM1; PAM gives the same
    /// columns, slower).
    pub fn medoid_search(mut self, search: MedoidSearch) -> Self {
        self.medoid_search = search;
        self
    }

    /// The reading of l-diversity to reach (default [`Diversity::Frequency`], the paper's
    /// Definition 5).
    pub fn diversity(mut self, diversity: Diversity) -> Self {
        self.diversity = diversity;
        self
    }

    /// How items are split into columns (default [`ItemPartitioning::Repaired`]; the repair
    /// applies to [`Diversity::Frequency`] only, since under [`Diversity::Distinct`] a column
    /// admits l as soon as it has l distinct values).
    pub fn partitioning(mut self, partitioning: ItemPartitioning) -> Self {
        self.partitioning = partitioning;
        self
    }

    /// How far below the bound the repair aims: every column's most frequent value at most
    /// `1/(l·(1 + headroom))` of the records (default 0.25). The paper's scan closes a bucket
    /// as soon as its records are diverse; when a column's top value is barely under `1/l`
    /// overall, a random group rarely is, and the scan makes a handful of huge buckets. More
    /// headroom moves more items (columns less correlated) and gives smaller buckets; the
    /// `anatomy` experiment measures both.
    pub fn headroom(mut self, headroom: f64) -> Self {
        self.headroom = headroom;
        self
    }

    /// The item partition to publish under, given by the items' labels, one list per column,
    /// instead of one built from the data (the partitioning and the headroom then play no
    /// part). Every item of the data must be in some column; labels the data does not hold are
    /// passed over, so one partition serves several inputs: the releases of one catalogue, or
    /// the shards of one Spark publication, which then share their columns (`txanon.spark`
    /// builds it once from a sample). Whether the data admits l under it is checked as for a
    /// built partition ([`AnatomyError::Infeasible`](crate::AnatomyError::Infeasible)).
    pub fn item_columns(mut self, columns: Option<Vec<Vec<String>>>) -> Self {
        self.item_columns = columns.map(Arc::from);
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for fewer than 2 columns, `l` below 2, a headroom that is
    /// negative or not finite, or given item columns that are not `columns` non-empty lists
    /// with no label twice.
    pub fn check(self) -> Result<ValidAnatomyParams, ParamError> {
        if self.columns < 2 {
            return Err(ParamError::OutOfRange {
                name: "columns",
                value: self.columns.to_string(),
                reason: "anatomy needs at least 2 columns",
            });
        }
        if self.l < 2 {
            return Err(ParamError::OutOfRange {
                name: "l",
                value: self.l.to_string(),
                reason: "l-diversity needs l of at least 2 (l = 1 protects nothing)",
            });
        }
        if !(self.headroom.is_finite() && self.headroom >= 0.0) {
            return Err(ParamError::OutOfRange {
                name: "headroom",
                value: self.headroom.to_string(),
                reason: "the repair's headroom is a non-negative fraction",
            });
        }
        if let Some(given) = &self.item_columns {
            if given.len() != self.columns {
                return Err(ParamError::OutOfRange {
                    name: "item-columns",
                    value: format!("{} columns, with columns = {}", given.len(), self.columns),
                    reason: "give one list of items per column",
                });
            }
            if let Some(j) = given.iter().position(Vec::is_empty) {
                return Err(ParamError::OutOfRange {
                    name: "item-columns",
                    value: format!("column {j} empty"),
                    reason: "every column holds at least one item",
                });
            }
            let mut seen = std::collections::HashSet::new();
            if let Some(twice) = given.iter().flatten().find(|label| !seen.insert(label.as_str())) {
                return Err(ParamError::OutOfRange {
                    name: "item-columns",
                    value: format!("item {twice} given twice"),
                    reason: "each item is in one column",
                });
            }
        }
        Ok(ValidAnatomyParams(self))
    }
}

impl ValidAnatomyParams {
    /// Where the method reports its phases, if anywhere.
    pub fn progress_handle(&self) -> Option<&Progress> {
        self.0.progress.as_ref()
    }

    /// Number of columns p.
    pub fn columns(&self) -> usize {
        self.0.columns
    }

    /// Diversity l.
    pub fn l(&self) -> usize {
        self.0.l
    }

    /// The seed, if one was given.
    pub fn seed(&self) -> Option<u64> {
        self.0.seed
    }

    /// The SWAP search.
    pub fn medoid_search(&self) -> MedoidSearch {
        self.0.medoid_search
    }

    /// The reading of l-diversity.
    pub fn diversity(&self) -> Diversity {
        self.0.diversity
    }

    /// The item partitioning.
    pub fn partitioning(&self) -> ItemPartitioning {
        self.0.partitioning
    }

    /// The repair's headroom.
    pub fn headroom(&self) -> f64 {
        self.0.headroom
    }

    /// The given item partition, by label, if one was given.
    pub fn item_columns(&self) -> Option<&[Vec<String>]> {
        self.0.item_columns.as_deref()
    }
}
