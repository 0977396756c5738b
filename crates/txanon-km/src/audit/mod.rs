//! The independent checker: kᵐ-anonymity verified from the published transactions and the
//! auditor's hierarchy, the published cut and the original checked when given.
//!
//! It shares no code with the algorithms (no cut, no count tree, no transaction lists of
//! hierarchy nodes): identical published transactions are one row with a weight, and a
//! depth-first search over the published items in id order counts, for each itemset that
//! occurs, the supports of its one-item extensions by scanning its rows (an extension's rows
//! are its prefix's intersected with the item's). An itemset below `k` is a violation and is
//! not extended (its supersets add nothing an auditor needs); one at or above `k` is extended
//! up to `m` items. So the work is that of listing the itemsets of at most `m` items with
//! support at least `k`, plus one scan per violation found; each single item's subtree is
//! searched on its own thread (rayon), the findings joined in item order. The last two levels
//! below a prefix are counted together where the table fits: one scan of the prefix's rows
//! counts every pair of its extensions (the first one frequent), where each frequent
//! extension would intersect its rows and scan them again. A publication of few items (at most
//! three items an itemset, the tables within 4 MiB: AA's cut at k = 100 publishes some hundred
//! nodes) has every itemset counted instead in one sweep of its distinct rows into dense
//! tables, walked in the search's order: the search reads each row once per item it holds.

use std::collections::HashMap;
use std::fmt;

use rustc_hash::FxHashMap;
use serde::Serialize;
use txanon_data::audit::{
    MAX_VIOLATIONS, RowMultiset, RowOrder, ViolationLog, Violations, distinct_rows,
    unmatched_rows_in_order,
};
use txanon_data::progress::{Progress, Unit};
use txanon_data::sets::each_subset_up_to;
use txanon_data::{ItemId, ParamError, TransactionDb};

use crate::error::KmError;
use crate::hierarchy::{Hierarchy, NodeId};
use crate::params::MAX_M;

mod dense;
mod itemsets;
use dense::DENSE_CELLS;
use itemsets::{DENSE_TAILS, PAIR_TABLE_CELLS, check_itemsets};

/// The guarantee an auditor wants verified: an adversary who knows at most `m` items of a
/// person's transaction finds at least `k` published transactions holding them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KmClaim {
    k: u64,
    m: u64,
}

impl KmClaim {
    /// `(k, m)`.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `k < 2` (a cohort of one is no cohort) or `m` outside
    /// `1..=4` (the paper's range; see [`MAX_M`]).
    pub fn new(k: u64, m: u64) -> Result<Self, ParamError> {
        let bad = |name, value: String, reason| Err(ParamError::OutOfRange { name, value, reason });
        if k < 2 {
            return bad("k", k.to_string(), "at least 2: k = 1 forbids nothing");
        }
        if !(1..=MAX_M as u64).contains(&m) {
            return bad(
                "m",
                m.to_string(),
                "1 to 4: the paper's range of the adversary's knowledge",
            );
        }
        Ok(Self { k, m })
    }

    /// The cohort size.
    pub fn k(&self) -> u64 {
        self.k
    }

    /// The adversary's knowledge.
    pub fn m(&self) -> u64 {
        self.m
    }
}

/// A way a publication breaks kᵐ-anonymity, its cut or its origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
// Serialized with its kind, as front ends hand violations over as objects (Python).
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum KmViolation {
    /// A published item that is no node of the auditor's hierarchy.
    UnknownNode {
        /// The label.
        label: String,
    },
    /// Two published items of which one generalizes the other: no single cut publishes both.
    Overlapping {
        /// The more general item.
        ancestor: String,
        /// The item below it.
        descendant: String,
    },
    /// Fewer than `k` transactions: an adversary who knows nothing already finds fewer.
    TooFewTransactions {
        /// Transactions.
        transactions: usize,
        /// The claim's `k`.
        k: u64,
    },
    /// A combination of at most `m` published items that occurs in fewer than `k`
    /// transactions.
    RareItemset {
        /// The itemset (labels, ascending by id).
        itemset: Vec<String>,
        /// Its support.
        support: u64,
        /// The claim's `k`.
        k: u64,
    },
    /// A node of the published cut that is no node of the hierarchy.
    CutUnknownNode {
        /// The label.
        label: String,
    },
    /// A leaf below two nodes of the published cut.
    CutOverlap {
        /// The leaf.
        leaf: String,
        /// One node above it.
        first: String,
        /// The other.
        second: String,
    },
    /// A leaf below no node of the published cut.
    CutMissesLeaf {
        /// The leaf.
        leaf: String,
    },
    /// A published item that is not on the published cut.
    OffCut {
        /// The item.
        label: String,
    },
    /// Another number of transactions than the original.
    RecordCount {
        /// Published.
        published: usize,
        /// Original.
        original: usize,
    },
    /// An item of the original that is not a leaf of the auditor's hierarchy.
    OriginalItemNotLeaf {
        /// The item.
        item: String,
    },
    /// An item of the original that no published item generalizes.
    ItemNotCovered {
        /// The item.
        item: String,
    },
    /// The published transactions are not the original's generalized by the published items.
    TransactionsNotFromOriginal {
        /// A transaction (labels, sorted) published `published` times where the original
        /// generalized holds it `original` times.
        transaction: Vec<String>,
        /// Times published.
        published: u64,
        /// Times in the generalized original.
        original: u64,
    },
}

impl fmt::Display for KmViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = |items: &[String]| format!("{{{}}}", items.join(","));
        match self {
            Self::UnknownNode { label } => {
                write!(f, "published item {label} is not a node of the hierarchy")
            }
            Self::Overlapping { ancestor, descendant } => write!(
                f,
                "published items {ancestor} and {descendant}: {ancestor} generalizes {descendant}, so no single cut publishes both"
            ),
            Self::TooFewTransactions { transactions, k } => {
                write!(f, "{transactions} transactions, fewer than k = {k}")
            }
            Self::RareItemset { itemset, support, k } => write!(
                f,
                "itemset {} occurs in {support} transactions, fewer than k = {k}",
                set(itemset)
            ),
            Self::CutUnknownNode { label } => {
                write!(f, "cut node {label} is not a node of the hierarchy")
            }
            Self::CutOverlap { leaf, first, second } => {
                write!(f, "leaf {leaf} is below two cut nodes, {first} and {second}")
            }
            Self::CutMissesLeaf { leaf } => write!(f, "leaf {leaf} is below no cut node"),
            Self::OffCut { label } => write!(f, "published item {label} is not on the cut"),
            Self::RecordCount { published, original } => {
                write!(f, "{published} transactions published, the original has {original}")
            }
            Self::OriginalItemNotLeaf { item } => {
                write!(f, "item {item} of the original is not a leaf of the hierarchy")
            }
            Self::ItemNotCovered { item } => {
                write!(f, "item {item} of the original is generalized by no published item")
            }
            Self::TransactionsNotFromOriginal { transaction, published, original } => write!(
                f,
                "transaction {} is published {published} times; the original generalized holds it {original} times",
                set(transaction)
            ),
        }
    }
}

/// kᵐ-anonymity's violations, as the error carries them.
pub type KmViolations = Violations<KmViolation>;

/// What the audit found in data that keeps the claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KmAuditReport {
    /// The claim verified.
    pub claim: KmClaim,
    /// Transactions.
    pub transactions: usize,
    /// Distinct published items.
    pub published_items: usize,
    /// Itemsets of at most `m` items checked (each one that occurs, until a violation stops
    /// a branch).
    pub itemsets_checked: u64,
    /// The smallest support among them (`None` when nothing occurs).
    pub smallest_support: Option<u64>,
    /// Whether the published cut was checked.
    pub cut_checked: bool,
    /// Whether the original was checked.
    pub original_checked: bool,
}

/// Verifies that `published` is kᵐ-anonymous under `claim` over `hierarchy`: every published
/// item is a node of it and no two of them lie on one path from the root (one cut publishes
/// them), at least `k` transactions, and every combination of at most `m` published items
/// that occurs does so in at least `k` transactions.
///
/// With `cut` (the labels published as the cut): every label a node, every leaf below exactly
/// one of them, every published item among them. With `original` (matched by label): as many
/// transactions; every original item a leaf, generalized by a published item; and the
/// published transactions, as a multiset, the original's with every item replaced by the
/// published item above it and duplicates merged.
///
/// # Errors
/// [`KmError::Audit`] with the violations found.
///
/// # Complexity
/// `O(Σ_S Σ_{r ∋ S} |r|)` over the itemsets `S` of fewer than `m` items with support at least
/// `k`, rows `r` the distinct published transactions; with the original, one pass over it
/// and a hash of every transaction.
pub fn audit(
    published: &TransactionDb,
    hierarchy: &Hierarchy,
    claim: &KmClaim,
    cut: Option<&[String]>,
    original: Option<&TransactionDb>,
) -> Result<KmAuditReport, KmError> {
    audit_with_progress(published, hierarchy, claim, cut, original, &Progress::default())
}

/// [`audit`], its phases shown on `progress`: the search's subtrees below each item (counted
/// by their rows), then the comparison with the original.
///
/// # Errors
/// As [`audit`].
pub fn audit_with_progress(
    published: &TransactionDb,
    hierarchy: &Hierarchy,
    claim: &KmClaim,
    cut: Option<&[String]>,
    original: Option<&TransactionDb>,
    progress: &Progress,
) -> Result<KmAuditReport, KmError> {
    // A short phase, shown without a total: nothing advances it.
    progress.begin("km audit: distinct transactions", Unit::Items, 0);
    let mut log = ViolationLog::new();
    let n = published.len();
    let node_of_item = published_nodes(published, hierarchy, &mut log);
    log.stop_if_any().map_err(KmError::Audit)?;
    if (n as u64) < claim.k {
        log.push(KmViolation::TooFewTransactions { transactions: n, k: claim.k });
    }
    // The published rows in one order, for their distinct rows and the original's comparison.
    let order = RowOrder::of(published);
    let (itemsets_checked, smallest_support) = check_itemsets(
        published,
        &order,
        claim,
        DENSE_CELLS,
        PAIR_TABLE_CELLS,
        Some(DENSE_TAILS),
        progress,
        &mut log,
    );
    if let Some(cut) = cut {
        check_cut(published, hierarchy, cut, &mut log);
    }
    if let Some(original) = original {
        progress.begin("km audit: against the original", Unit::Items, 0);
        check_original((published, &order), hierarchy, &node_of_item, original, &mut log);
    }
    log.finish(KmAuditReport {
        claim: *claim,
        transactions: n,
        published_items: published.supports().iter().filter(|&&s| s > 0).count(),
        itemsets_checked,
        smallest_support,
        cut_checked: cut.is_some(),
        original_checked: original.is_some(),
    })
    .map_err(KmError::Audit)
}

/// What the audit of one shard of a publication found: everything but the supports, which
/// hold for the union of the shards only (see [`audit_shard`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KmShardAuditReport {
    /// The claim the shard belongs to.
    pub claim: KmClaim,
    /// The shard's transactions.
    pub transactions: usize,
    /// Distinct published items of the shard.
    pub published_items: usize,
    /// Whether the published cut was checked.
    pub cut_checked: bool,
    /// Whether the shard's original was checked.
    pub original_checked: bool,
}

/// Itemsets (labels, ascending) with their supports.
pub type ItemsetSupports = Vec<(Vec<String>, u64)>;

/// The audit of one shard of a publication whose shards were generalized by one cut: every
/// check of [`audit`] but the supports (the published items nodes of `hierarchy`, none above
/// another; the cut; the shard's original). The supports hold for the union only: the caller
/// sums [`shard_itemsets`] over the shards, and checks that every shard publishes the same cut.
///
/// # Errors
/// [`KmError::Audit`] with the violations found.
pub fn audit_shard(
    published: &TransactionDb,
    hierarchy: &Hierarchy,
    claim: &KmClaim,
    cut: Option<&[String]>,
    original: Option<&TransactionDb>,
) -> Result<KmShardAuditReport, KmError> {
    let mut log = ViolationLog::new();
    let node_of_item = published_nodes(published, hierarchy, &mut log);
    log.stop_if_any().map_err(KmError::Audit)?;
    if let Some(cut) = cut {
        check_cut(published, hierarchy, cut, &mut log);
    }
    if let Some(original) = original {
        let order = RowOrder::of(published);
        check_original((published, &order), hierarchy, &node_of_item, original, &mut log);
    }
    log.finish(KmShardAuditReport {
        claim: *claim,
        transactions: published.len(),
        published_items: published.supports().iter().filter(|&&s| s > 0).count(),
        cut_checked: cut.is_some(),
        original_checked: original.is_some(),
    })
    .map_err(KmError::Audit)
}

/// Every combination of at most `m` published items of one shard that occurs (labels,
/// ascending), with its support capped at `k`: the union of the shards is kᵐ-anonymous when
/// every itemset's capped supports, summed over the shards, reach `k` (a shard at `k` reaches
/// it alone; below it, the sum is the union's support). Ascending by itemset.
///
/// # Complexity
/// `Σ_r Σ_{i ≤ m} C(|r|, i)` over the shard's distinct published transactions `r`.
pub fn shard_itemsets(published: &TransactionDb, claim: &KmClaim) -> ItemsetSupports {
    let most = claim.m as usize;
    let rows = distinct_rows(published.len(), |r| published.transaction(r));
    let counts = capped_counts(
        rows.iter().map(|&(r, times)| (published.transaction(r as usize), times)),
        most,
        claim.k,
    );
    let label = |word: u32| published.label(word - 1).to_string();
    let mut itemsets: ItemsetSupports = counts
        .into_iter()
        .map(|(key, support)| {
            let mut labels: Vec<String> = unpacked(key).map(label).collect();
            labels.sort_unstable();
            (labels, support)
        })
        .collect();
    itemsets.sort_unstable();
    itemsets
}

/// A shard's itemsets keyed by the hierarchy's nodes, with their capped supports
/// ([`shard_node_itemsets`]).
pub type NodeItemsetSupports = Vec<(u128, u64)>;

/// [`shard_itemsets`] keyed by the nodes of `hierarchy` rather than by labels: each itemset
/// of at most `m` published items that occurs as its nodes' ids plus one, ascending, packed
/// from the most significant 32 bits down, with its support capped at `k`; ascending by key.
/// Shards that publish under one hierarchy give one itemset one key, so an engine sums the
/// union's supports by key, in parts ([`union_part`], [`union_sums`]), where labels would be
/// rows of strings to sort.
///
/// # Errors
/// [`KmError::Hierarchy`] naming a published item that is no node of `hierarchy` (the
/// shard's own audit reports it as a violation first).
pub fn shard_node_itemsets(
    published: &TransactionDb,
    hierarchy: &Hierarchy,
    claim: &KmClaim,
) -> Result<NodeItemsetSupports, KmError> {
    let node_of_item = (0..published.num_items() as ItemId)
        .map(|i| {
            hierarchy.find(&published.label(i).to_string()).ok_or_else(|| {
                KmError::Hierarchy(format!(
                    "published item {} is no node of the hierarchy",
                    published.label(i)
                ))
            })
        })
        .collect::<Result<Vec<NodeId>, KmError>>()?;
    // Each distinct row as ascending node ids: its subsets are then ascending too.
    let rows = distinct_rows(published.len(), |r| published.transaction(r));
    let as_nodes: Vec<(Vec<u32>, u64)> = rows
        .iter()
        .map(|&(r, times)| {
            let mut nodes: Vec<u32> = published
                .transaction(r as usize)
                .iter()
                .map(|&i| node_of_item[i as usize])
                .collect();
            nodes.sort_unstable();
            (nodes, times)
        })
        .collect();
    let mut keyed = counts_by_rank(&as_nodes, claim.m as usize, claim.k, DENSE_ITEMSET_CELLS);
    keyed.sort_unstable();
    Ok(keyed)
}

/// The most cells of [`counts_by_rank`]'s dense tables (a line of `d^i` counts per size `i`
/// for `d` distinct words): 32 MiB of `u64`.
const DENSE_ITEMSET_CELLS: usize = 1 << 22;

/// The capped supports of every subset of at most `most` words of `rows` (each ascending,
/// with its multiplicity), keyed as [`capped_counts`] keys them, in no order. With few
/// distinct words (a shard generalized by a cut publishes some hundred nodes) every subset is
/// a cell of a dense table of each size, indexed by its words' ranks and counted row by row;
/// otherwise a depth-first projection counts each prefix's extensions in a dense line. Both
/// count what [`capped_counts`] counts by hashing every subset, which took 50–65 s of a
/// shard's audit on one thread at 1.67·10⁶ km transactions (`m` = 3, 110 nodes published),
/// most of the union's audit on Spark (docs/SPARK.md, "Measured").
///
/// # Complexity
/// `O(Σ_r Σ_{i ≤ most} C(|r|, i))` over the distinct rows `r`, as [`capped_counts`], plus a
/// scan of the dense tables, or `O(d)` per prefix for the projection. The dense tables hold
/// at most `dense_cells` cells in all ([`DENSE_ITEMSET_CELLS`] but in tests).
fn counts_by_rank(
    rows: &[(Vec<u32>, u64)],
    most: usize,
    k: u64,
    dense_cells: usize,
) -> Vec<(u128, u64)> {
    debug_assert!(most <= MAX_M, "a claim's m is at most four");
    let mut words: Vec<u32> = rows.iter().flat_map(|(row, _)| row.iter().copied()).collect();
    words.sort_unstable();
    words.dedup();
    // Each row as dense ranks of its words (ascending words, ascending ranks).
    let rank = |w: u32| words.binary_search(&w).expect("a word of the rows") as u32;
    let dense: Vec<Vec<u32>> =
        rows.iter().map(|(row, _)| row.iter().map(|&w| rank(w)).collect()).collect();
    let weights: Vec<u64> = rows.iter().map(|&(_, times)| times).collect();
    let d = words.len();
    let cells: Option<Vec<usize>> = (1..=most)
        .map(|i| d.checked_pow(i as u32))
        .collect::<Option<Vec<usize>>>()
        .filter(|sizes| {
            sizes
                .iter()
                .try_fold(0usize, |a, &b| a.checked_add(b))
                .is_some_and(|t| t <= dense_cells)
        });
    if let Some(sizes) = cells {
        let mut tables: Vec<Vec<u64>> = sizes.iter().map(|&n| vec![0; n]).collect();
        for (row, &times) in dense.iter().zip(&weights) {
            each_subset_up_to(row, most, &mut |set| {
                let cell = set.iter().fold(0usize, |at, &r| at * d + r as usize);
                let c = &mut tables[set.len() - 1][cell];
                *c = (*c + times).min(k);
            });
        }
        let mut out = Vec::new();
        for (size, table) in tables.iter().enumerate() {
            for (cell, &c) in table.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                // The ranks, the first most significant; the key's words in the same order.
                let mut key = 0u128;
                let mut rest = cell;
                let mut shift = 0;
                for _ in 0..=size {
                    key |= u128::from(words[rest % d] + 1) << shift;
                    rest /= d;
                    shift += 32;
                }
                out.push((key, c));
            }
        }
        return out;
    }
    let mut search = Projection {
        rows: &dense,
        weights: &weights,
        words: &words,
        most,
        k,
        counts: vec![vec![0; d]; most],
        buckets: (0..most).map(|_| vec![Vec::new(); d]).collect(),
        out: Vec::new(),
    };
    // The empty prefix: every row from its first word on.
    let all: Vec<(u32, u32)> = (0..dense.len() as u32).map(|r| (r, 0)).collect();
    search.extend(&all, 0, 0);
    search.out
}

/// [`counts_by_rank`]'s depth-first projection, with a line of counts and a bucket per word for
/// each depth, reused across the prefixes of that depth.
struct Projection<'a> {
    rows: &'a [Vec<u32>],
    weights: &'a [u64],
    /// The word of each dense rank.
    words: &'a [u32],
    most: usize,
    k: u64,
    counts: Vec<Vec<u64>>,
    /// Per depth and word: the rows holding the prefix and the word, each with the position
    /// after the word (where the word's own extensions start).
    buckets: Vec<Vec<Vec<(u32, u32)>>>,
    out: Vec<(u128, u64)>,
}

impl Projection<'_> {
    /// Counts the extensions by one word of the prefix `key` (`depth` words) in `tails` (rows
    /// holding the prefix, each with where its words after the prefix start), records them,
    /// and goes on below each one that occurs while `most` allows.
    fn extend(&mut self, tails: &[(u32, u32)], key: u128, depth: usize) {
        let deeper = depth + 1 < self.most;
        let mut counts = std::mem::take(&mut self.counts[depth]);
        let mut buckets = std::mem::take(&mut self.buckets[depth]);
        let mut met: Vec<u32> = Vec::new();
        for &(r, start) in tails {
            let row = &self.rows[r as usize];
            let times = self.weights[r as usize];
            for (q, &w) in row.iter().enumerate().skip(start as usize) {
                let c = &mut counts[w as usize];
                if *c == 0 {
                    met.push(w);
                }
                // Capped as it grows: a u64 sum of multiplicities cannot wrap this way.
                *c = (*c + times).min(self.k);
                if deeper {
                    buckets[w as usize].push((r, q as u32 + 1));
                }
            }
        }
        met.sort_unstable();
        for &w in &met {
            let extended = (key << 32) | u128::from(self.words[w as usize] + 1);
            self.out.push((extended, counts[w as usize]));
            counts[w as usize] = 0;
            if deeper {
                let below = std::mem::take(&mut buckets[w as usize]);
                self.extend(&below, extended, depth + 1);
                // The bucket's buffer kept (emptied) for the next prefix at this depth.
                buckets[w as usize] = below;
                buckets[w as usize].clear();
            }
        }
        self.counts[depth] = counts;
        self.buckets[depth] = buckets;
    }
}

/// The labels of the nodes of `key` (a [`shard_node_itemsets`] key), ascending; `None` when
/// it names a node `hierarchy` does not have.
pub fn node_itemset_labels(key: u128, hierarchy: &Hierarchy) -> Option<Vec<String>> {
    let mut labels = unpacked(key)
        .map(|word| {
            let v = (word - 1) as usize;
            (v < hierarchy.len()).then(|| hierarchy.label(v as NodeId).to_string())
        })
        .collect::<Option<Vec<String>>>()?;
    labels.sort_unstable();
    Some(labels)
}

/// The part, among `parts`, of the union's sums that an itemset's key falls in: an engine
/// sends a shard's [`shard_node_itemsets`] as one piece per part and sums each part's pieces
/// together ([`union_sums`]), so that no one task holds every itemset.
///
/// # Panics
/// With no part.
pub fn union_part(key: u128, parts: u32) -> u32 {
    assert!(parts > 0, "at least one part");
    let word = txanon_data::mix64(key as u64 ^ txanon_data::mix64((key >> 64) as u64 ^ 0x9e37));
    (word % u64::from(parts)) as u32
}

/// The union's supports in one part: `pieces` are the shards' `(key, capped support)` of that
/// part, in any order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnionSums {
    /// The distinct itemsets of the part.
    pub itemsets: u64,
    /// The smallest summed support (capped at `k` per shard), or `None` with no itemset.
    pub smallest: Option<u64>,
    /// The itemsets whose summed support stays below `k`, with it, ascending by key.
    pub rare: Vec<(u128, u64)>,
}

/// Sums one part's pieces ([`UnionSums`]): an itemset whose capped supports sum below `k` is
/// below `k` in the union (a sum of capped supports reaches `k` exactly when the sum of the
/// supports does).
pub fn union_sums(pieces: &[&[(u128, u64)]], k: u64) -> UnionSums {
    let mut all: Vec<(u128, u64)> = pieces.iter().flat_map(|p| p.iter().copied()).collect();
    all.sort_unstable_by_key(|&(key, _)| key);
    let mut sums = UnionSums { itemsets: 0, smallest: None, rare: Vec::new() };
    for run in all.chunk_by(|a, b| a.0 == b.0) {
        let support: u64 = run.iter().map(|&(_, s)| s).fold(0, u64::saturating_add);
        sums.itemsets += 1;
        sums.smallest = Some(sums.smallest.map_or(support, |s| s.min(support)));
        if support < k {
            sums.rare.push((run[0].0, support));
        }
    }
    sums
}

/// The capped supports of every subset of at most `most` items of `rows` (each sorted, with
/// its multiplicity), each subset as one word: its ids plus one in 32 bits from the most
/// significant down, hashed and compared as a number with no allocation per occurrence (a
/// vector per subset met spent most of a shard's audit hashing and freeing).
fn capped_counts<'r>(
    rows: impl Iterator<Item = (&'r [u32], u64)>,
    most: usize,
    k: u64,
) -> FxHashMap<u128, u64> {
    debug_assert!(most <= MAX_M, "a claim's m is at most four");
    let mut counts: FxHashMap<u128, u64> = FxHashMap::default();
    for (row, times) in rows {
        each_subset_up_to(row, most, &mut |set| {
            let key = set.iter().fold(0u128, |key, &i| (key << 32) | u128::from(i + 1));
            let c = counts.entry(key).or_insert(0);
            *c = (*c + times).min(k);
        });
    }
    counts
}

/// The words of a [`capped_counts`] key, ids plus one, the last subset's item first.
fn unpacked(key: u128) -> impl Iterator<Item = u32> {
    (0..MAX_M).map(move |j| (key >> (32 * j)) as u32).filter(|&word| word != 0)
}

/// The published items as nodes of `hierarchy`: each must be one, and none above another.
fn published_nodes(
    published: &TransactionDb,
    hierarchy: &Hierarchy,
    log: &mut ViolationLog<KmViolation>,
) -> Vec<Option<NodeId>> {
    let label = |i: ItemId| published.label(i).to_string();
    let mut node_of_item: Vec<Option<NodeId>> = Vec::with_capacity(published.num_items());
    for i in 0..published.num_items() as ItemId {
        let node = hierarchy.find(&label(i));
        if node.is_none() {
            log.push(KmViolation::UnknownNode { label: label(i) });
        }
        node_of_item.push(node);
    }
    let mut item_of_node: HashMap<NodeId, ItemId> = HashMap::new();
    for (i, node) in node_of_item.iter().enumerate() {
        if let Some(v) = *node {
            item_of_node.insert(v, i as ItemId);
        }
    }
    for (i, node) in node_of_item.iter().enumerate() {
        let Some(v) = *node else { continue };
        // Walking up from each item finds every published ancestor.
        for a in hierarchy.ancestors_or_self(v).skip(1) {
            if item_of_node.contains_key(&a) {
                log.push(KmViolation::Overlapping {
                    ancestor: hierarchy.label(a).to_string(),
                    descendant: label(i as ItemId),
                });
            }
        }
    }
    node_of_item
}

fn check_cut(
    published: &TransactionDb,
    hierarchy: &Hierarchy,
    cut: &[String],
    log: &mut ViolationLog<KmViolation>,
) {
    let mut above: Vec<Option<NodeId>> = vec![None; hierarchy.leaves().len()];
    let mut on_cut = vec![false; hierarchy.len()];
    for l in cut {
        let Some(v) = hierarchy.find(l) else {
            log.push(KmViolation::CutUnknownNode { label: l.clone() });
            continue;
        };
        on_cut[v as usize] = true;
        for pos in hierarchy.leaf_range(v) {
            match above[pos] {
                Some(other) if other != v => {
                    log.push(KmViolation::CutOverlap {
                        leaf: hierarchy.label(hierarchy.leaves()[pos]).to_string(),
                        first: hierarchy.label(other).to_string(),
                        second: l.clone(),
                    });
                    break;
                }
                _ => above[pos] = Some(v),
            }
        }
    }
    if let Some(pos) = above.iter().position(Option::is_none) {
        log.push(KmViolation::CutMissesLeaf {
            leaf: hierarchy.label(hierarchy.leaves()[pos]).to_string(),
        });
    }
    for i in 0..published.num_items() as ItemId {
        let l = published.label(i).to_string();
        if hierarchy.find(&l).is_some_and(|v| !on_cut[v as usize]) {
            log.push(KmViolation::OffCut { label: l });
        }
    }
}

fn check_original(
    (published, order): (&TransactionDb, &RowOrder),
    hierarchy: &Hierarchy,
    node_of_item: &[Option<NodeId>],
    original: &TransactionDb,
    log: &mut ViolationLog<KmViolation>,
) {
    if original.len() != published.len() {
        log.push(KmViolation::RecordCount { published: published.len(), original: original.len() });
    }
    let item_of_node: HashMap<NodeId, ItemId> =
        node_of_item.iter().enumerate().filter_map(|(i, v)| v.map(|v| (v, i as ItemId))).collect();
    // Each original item's published generalization.
    let mut generalized_item: Vec<Option<ItemId>> = Vec::with_capacity(original.num_items());
    for i in 0..original.num_items() as ItemId {
        let item = original.label(i).to_string();
        let Some(leaf) = hierarchy.find(&item).filter(|&v| hierarchy.is_leaf(v)) else {
            log.push(KmViolation::OriginalItemNotLeaf { item });
            generalized_item.push(None);
            continue;
        };
        let above = hierarchy.ancestors_or_self(leaf).find_map(|a| item_of_node.get(&a).copied());
        if above.is_none() && original.supports()[i as usize] > 0 {
            log.push(KmViolation::ItemNotCovered { item });
        }
        generalized_item.push(above);
    }
    if !log.is_empty() {
        return;
    }
    // Published against generalized original, as multisets of rows of published ids (the
    // published rows read where they are).
    let expected = RowMultiset::from_rows(original.len(), |r, row| {
        let t = original.transaction(r);
        row.extend(t.iter().map(|&i| generalized_item[i as usize].expect("checked above")));
        row.sort_unstable();
        row.dedup();
    });
    let expected_order = RowOrder::of(&expected);
    for off in
        unmatched_rows_in_order((published, order), (&expected, &expected_order), MAX_VIOLATIONS)
    {
        let transaction = off.row.iter().map(|&i| published.label(i).to_string()).collect();
        if !log.push(KmViolation::TransactionsNotFromOriginal {
            transaction,
            published: off.left,
            original: off.right,
        }) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dense tables and the projection count what hashing every subset counts
    /// ([`capped_counts`], the slow reference): the same keys with the same capped supports,
    /// on random ascending rows with repeats, sparse word ids and every `m`. Counted: the cases where some support was
    /// capped and some row had more than `m` words (so that subsets were left out).
    #[test]
    fn counts_by_rank_are_the_hashed_counts() {
        let strategy = (
            proptest::collection::vec(
                (proptest::collection::btree_set(0u32..30, 0..12), 1u64..4),
                0..60,
            ),
            1usize..=MAX_M,
            1u64..8,
            1u32..5000,
        );
        txanon_testkit::exercised(256, strategy, |(rows, most, k, spread)| {
            // Sparse, ascending words (node ids), as a hierarchy's nodes are.
            let rows: Vec<(Vec<u32>, u64)> = rows
                .into_iter()
                .map(|(set, times)| (set.into_iter().map(|w| w * spread).collect(), times))
                .collect();
            let mut expected: Vec<(u128, u64)> =
                capped_counts(rows.iter().map(|(row, times)| (row.as_slice(), *times)), most, k)
                    .into_iter()
                    .collect();
            expected.sort_unstable();
            // Dense tables (the default, for these few words) and the projection.
            for cells in [DENSE_ITEMSET_CELLS, 0] {
                let mut got = counts_by_rank(&rows, most, k, cells);
                got.sort_unstable();
                proptest::prop_assert_eq!(&got, &expected, "{} dense cells", cells);
            }
            let capped = expected.iter().any(|&(_, c)| c == k);
            let long = rows.iter().any(|(row, _)| row.len() > most);
            Ok(capped && long)
        })
        .at_least(0.5, "capped a support over rows longer than m");
    }
}
