//! The transaction database: compressed sparse rows over dense item ids.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::labels::{ItemId, ItemLabels, Label};

/// A database of transactions, each a set of items.
///
/// Stored as compressed sparse rows: `offsets` has `n + 1` entries and transaction `i` is
/// `items[offsets[i]..offsets[i + 1]]`. Items within a transaction are sorted ascending and
/// unique; item ids are dense (`0..m`) and map back to the source's labels through
/// [`labels`](Self::labels). Per-item supports are computed once at construction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransactionDb {
    offsets: Vec<usize>,
    items: Vec<ItemId>,
    labels: ItemLabels,
    supports: Vec<u32>,
}

/// An item → category map, with category names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemCategories {
    category_of: Vec<u32>,
    names: Vec<String>,
}

impl ItemCategories {
    /// Builds the map from each item's category index and the category names.
    ///
    /// The categories are renumbered in ascending order of their names (bytewise), whatever
    /// order `names` comes in: a category's id, and so every "smaller category first"
    /// tie-break, is then the same whether the map was built in memory or read back from the
    /// file that lists it.
    ///
    /// # Panics
    /// When a category index is not below `names.len()`, or a name is given twice.
    pub fn new(category_of: Vec<u32>, names: Vec<String>) -> Self {
        assert!(
            category_of.iter().all(|&c| (c as usize) < names.len()),
            "category index out of range"
        );
        let mut order: Vec<u32> = (0..names.len() as u32).collect();
        order.sort_by(|&a, &b| names[a as usize].cmp(&names[b as usize]));
        assert!(
            order.windows(2).all(|w| names[w[0] as usize] != names[w[1] as usize]),
            "category names are unique"
        );
        let mut rank = vec![0u32; names.len()];
        for (r, &c) in order.iter().enumerate() {
            rank[c as usize] = r as u32;
        }
        let category_of = category_of.into_iter().map(|c| rank[c as usize]).collect();
        let mut names = names;
        let mut sorted: Vec<String> = Vec::with_capacity(names.len());
        for &c in &order {
            sorted.push(std::mem::take(&mut names[c as usize]));
        }
        Self { category_of, names: sorted }
    }

    /// The category of `item`.
    pub fn category(&self, item: ItemId) -> u32 {
        self.category_of[item as usize]
    }

    /// Number of items the map covers.
    pub fn len_items(&self) -> usize {
        self.category_of.len()
    }

    /// The category of every item, indexed by item id.
    pub fn categories(&self) -> &[u32] {
        &self.category_of
    }

    /// Category names, indexed by category.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of categories.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when there is no category.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Summary statistics of a [`TransactionDb`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DbStats {
    /// Number of transactions, `n` (empty ones included).
    pub transactions: usize,
    /// Number of empty transactions.
    pub empty_transactions: usize,
    /// Number of items in the dictionary, `m`.
    pub items: usize,
    /// Number of items that occur in at least one transaction.
    pub items_present: usize,
    /// Total item occurrences, `Σ|t|`.
    pub occurrences: u64,
    /// Mean transaction length, `Σ|t| / n`.
    pub avg_len: f64,
    /// Longest transaction.
    pub max_len: usize,
    /// `Σ|t| / (n·m)`, the fraction of non-zero cells of the binary matrix.
    pub density: f64,
}

impl TransactionDb {
    /// Builds a database from transactions of integer labels (duplicates within a transaction are
    /// dropped, order does not matter).
    pub fn from_int_transactions<T: AsRef<[u32]>>(
        transactions: impl IntoIterator<Item = T>,
    ) -> Self {
        let mut raw = RawDb::default();
        for t in transactions {
            raw.items.extend_from_slice(t.as_ref());
            raw.close_transaction();
        }
        raw.finish_int()
    }

    /// [`from_int_transactions`](Self::from_int_transactions) of rows given as compressed
    /// sparse rows of integer labels (row `r` is `labels[offsets[r]..offsets[r + 1]]`, each
    /// row's labels strictly ascending): a caller that builds many databases of rows it
    /// assembles writes them into one array rather than a vector per row.
    ///
    /// # Panics
    /// When `offsets` does not start at 0, decreases or does not end at `labels.len()`, or a
    /// row is not strictly ascending.
    pub fn from_int_rows(offsets: Vec<usize>, labels: Vec<u32>) -> Self {
        assert_eq!(offsets.first(), Some(&0), "offsets must start at 0");
        assert_eq!(offsets.last(), Some(&labels.len()), "offsets must end at labels.len()");
        for w in offsets.windows(2) {
            assert!(w[0] <= w[1], "offsets must not decrease");
            let row = &labels[w[0]..w[1]];
            assert!(row.windows(2).all(|p| p[0] < p[1]), "rows must be strictly ascending");
        }
        RawDb { offsets, items: labels, duplicates_dropped: 0 }.finish_int()
    }

    /// Builds a database from transactions of text labels. Labels that are all canonical
    /// integers become integer labels, as when a CSV file is read.
    pub fn from_str_transactions<T, S>(transactions: impl IntoIterator<Item = T>) -> Self
    where
        T: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut interner = Interner::default();
        let mut raw = RawDb::default();
        for t in transactions {
            for s in t {
                let id = interner.intern(s.as_ref());
                raw.items.push(id);
            }
            raw.close_transaction();
        }
        raw.finish_interned(interner)
    }

    /// Assembles a database from CSR parts whose item ids are already dense.
    ///
    /// # Panics
    /// When the parts break the invariants: `offsets` not starting at 0, not ending at
    /// `items.len()` or decreasing, a transaction not strictly ascending, an id not below
    /// `labels.len()`, or labels not unique and ascending.
    pub fn from_parts(offsets: Vec<usize>, items: Vec<ItemId>, labels: ItemLabels) -> Self {
        assert_eq!(offsets.first(), Some(&0), "offsets must start at 0");
        assert_eq!(offsets.last(), Some(&items.len()), "offsets must end at items.len()");
        assert!(labels.is_strictly_ascending(), "labels must be unique and ascending");
        let m = labels.len();
        // Checked and counted in blocks of rows on rayon: at 10⁷ rows a publication's check and
        // count were two sequential passes of a second or so.
        let supports = offsets
            .par_windows(2)
            // A task's table of supports no larger than its rows, however many the items.
            .with_min_len(ROWS_PER_CHECK.max(m))
            .fold(
                || vec![0u32; m],
                |mut supports, w| {
                    assert!(w[0] <= w[1], "offsets must not decrease");
                    let t = &items[w[0]..w[1]];
                    check_row(t, m);
                    for &i in t {
                        supports[i as usize] += 1;
                    }
                    supports
                },
            )
            .reduce_with(|mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                a
            })
            .unwrap_or_else(|| vec![0u32; m]);
        Self::from_parts_with_supports(offsets, items, labels, supports)
    }

    pub(crate) fn from_parts_with_supports(
        offsets: Vec<usize>,
        items: Vec<ItemId>,
        labels: ItemLabels,
        supports: Vec<u32>,
    ) -> Self {
        debug_assert_eq!(supports.len(), labels.len());
        Self { offsets, items, labels, supports }
    }

    pub(crate) fn from_parts_unchecked(
        offsets: Vec<usize>,
        items: Vec<ItemId>,
        labels: ItemLabels,
    ) -> Self {
        let mut supports = vec![0u32; labels.len()];
        for &i in &items {
            supports[i as usize] += 1;
        }
        Self { offsets, items, labels, supports }
    }

    /// Number of transactions, `n`.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// True when there is no transaction.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of items in the dictionary, `m`.
    pub fn num_items(&self) -> usize {
        self.labels.len()
    }

    /// Transaction `i`: its items, sorted ascending.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[inline]
    pub fn transaction(&self, i: usize) -> &[ItemId] {
        &self.items[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Iterates over the transactions without allocating.
    pub fn iter(&self) -> Transactions<'_> {
        Transactions { db: self, next: 0, end: self.len() }
    }

    /// The CSR offsets (`n + 1` entries).
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// All item occurrences, transaction after transaction.
    pub fn items(&self) -> &[ItemId] {
        &self.items
    }

    /// The dictionary back to the source's labels.
    pub fn labels(&self) -> &ItemLabels {
        &self.labels
    }

    /// The label of `item`.
    pub fn label(&self, item: ItemId) -> Label<'_> {
        self.labels.label(item)
    }

    /// Number of transactions containing each item, indexed by item id.
    pub fn supports(&self) -> &[u32] {
        &self.supports
    }

    /// Total item occurrences, `Σ|t|`.
    pub fn occurrences(&self) -> usize {
        self.items.len()
    }

    /// Summary statistics.
    pub fn stats(&self) -> DbStats {
        let n = self.len();
        let m = self.num_items();
        let mut max_len = 0;
        let mut empty = 0;
        for t in self.iter() {
            max_len = max_len.max(t.len());
            empty += usize::from(t.is_empty());
        }
        let occ = self.items.len() as u64;
        DbStats {
            transactions: n,
            empty_transactions: empty,
            items: m,
            items_present: self.supports.iter().filter(|&&s| s > 0).count(),
            occurrences: occ,
            avg_len: if n == 0 { 0.0 } else { occ as f64 / n as f64 },
            max_len,
            density: if n == 0 || m == 0 { 0.0 } else { occ as f64 / (n as f64 * m as f64) },
        }
    }

    /// Histogram of item supports in powers of two: entry `k` counts the items whose support lies
    /// in `[2^k, 2^(k+1))`; items of support 0 are not counted.
    pub fn support_histogram(&self) -> Vec<usize> {
        let mut hist = Vec::new();
        for &s in &self.supports {
            if s == 0 {
                continue;
            }
            let k = (31 - s.leading_zeros()) as usize;
            if hist.len() <= k {
                hist.resize(k + 1, 0);
            }
            hist[k] += 1;
        }
        hist
    }

    /// The `k` items of highest support, highest first; ties go to the smaller id.
    pub fn top_items(&self, k: usize) -> Vec<(ItemId, u32)> {
        let mut all: Vec<(ItemId, u32)> =
            self.supports.iter().enumerate().map(|(i, &s)| (i as ItemId, s)).collect();
        all.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        all.truncate(k);
        all
    }

    /// A database of `rows`, each a set of ids of `labels`' items (sorted here), in that order.
    ///
    /// # Panics
    /// When a row repeats an item or names an id beyond `labels`, or `labels` are not unique
    /// and ascending (as [`from_parts`](Self::from_parts)).
    pub fn from_rows<R: AsRef<[ItemId]>>(
        rows: impl IntoIterator<Item = R>,
        labels: ItemLabels,
    ) -> Self {
        let mut builder = TransactionDbBuilder::default();
        for row in rows {
            builder.extend_row(row.as_ref());
            builder.end_row();
        }
        builder.finish(labels)
    }

    /// The record indices in ascending lexicographic order of their items, records with the
    /// same items in index order (a stable sort): an order that depends on the data, not on
    /// how the input was ordered, for a method to shuffle from.
    ///
    /// # Complexity
    /// `O(n log n)` comparisons of a [`prefix_key`] of each record (as many of its first items
    /// as fit in 128 bits), contiguous in memory, on rayon; two records are compared item by
    /// item only when their keys tie. Comparing the rows throughout was a cache miss per
    /// comparison (22% of swapping at 10⁶ records), and a key of the first two items alone
    /// tied on most pairs of a generalized publication of a hundred items.
    pub fn lexicographic_order(&self) -> Vec<u32> {
        lexicographic_order_by(self.len(), self.num_items(), |r| self.transaction(r))
    }

    /// The records `records` (indices, in that order, repeats allowed) over the same dictionary:
    /// a permutation, a sample or a subset of the database.
    ///
    /// # Panics
    /// When an index is not below [`len`](Self::len).
    pub fn select(&self, records: impl IntoIterator<Item = usize>) -> Self {
        let records: Vec<usize> = records.into_iter().collect();
        Self::gather_rows(
            records.len(),
            self.labels.clone(),
            |k| self.transaction(records[k]),
            false,
        )
    }

    /// The rows `row(0..len)`, each strictly ascending with ids below `labels.len()`, copied
    /// into one database over `labels`, on rayon in blocks: a shuffled selection reads its
    /// rows at random, and one core waited on a cache miss per row.
    ///
    /// # Panics
    /// When a row is not strictly ascending or names an id beyond `labels`.
    pub fn gather<'a>(
        len: usize,
        labels: ItemLabels,
        row: impl Fn(usize) -> &'a [ItemId] + Sync,
    ) -> Self {
        Self::gather_rows(len, labels, row, true)
    }

    /// Rows `0..len` of integer labels below `labels`, row `r` the labels `row(r, items)`
    /// appends to `items`, each strictly ascending; the dictionary is every label `0..labels`
    /// (item id = label; a label in no row has support 0). Built in blocks on rayon: a caller
    /// that derives rows from other rows (a projection, a relabelling) builds no vector per row.
    ///
    /// # Panics
    /// When a row is not strictly ascending or holds a label not below `labels`.
    pub fn from_int_row_fn(
        len: usize,
        labels: u32,
        row: impl Fn(usize, &mut Vec<u32>) + Sync,
    ) -> Self {
        Self::in_blocks(len, ItemLabels::Int((0..labels).collect()), |rows, ends, items| {
            for r in rows {
                let start = items.len();
                row(r, items);
                check_row(&items[start..], labels as usize);
                ends.push(items.len());
            }
        })
    }

    /// [`TransactionDb::gather`], each row checked when `check` (not when the rows are a
    /// database's own).
    fn gather_rows<'a>(
        len: usize,
        labels: ItemLabels,
        row: impl Fn(usize) -> &'a [ItemId] + Sync,
        check: bool,
    ) -> Self {
        let m = labels.len();
        Self::in_blocks(len, labels, |rows, ends, items| {
            // A shuffled selection reads each row at random: a batch of them fetched ahead.
            let rows: Vec<usize> = rows.collect();
            for r in crate::fetch::fetched_ahead(&rows, &row, crate::fetch::FIRST_LINE) {
                let t = row(r);
                if check {
                    check_row(t, m);
                }
                items.extend_from_slice(t);
                ends.push(items.len());
            }
        })
    }

    /// Rows `0..len` made in blocks on rayon: `fill(rows, ends, items)` appends the items of
    /// each row of the range `rows` to `items` and, after each, the length of `items` to
    /// `ends`. The rows must be strictly ascending with ids below `labels.len()`.
    fn in_blocks(
        len: usize,
        labels: ItemLabels,
        fill: impl Fn(std::ops::Range<usize>, &mut Vec<usize>, &mut Vec<ItemId>) + Sync,
    ) -> Self {
        let blocks: Vec<(Vec<usize>, Vec<ItemId>)> = (0..len.div_ceil(ROWS_PER_BLOCK))
            .into_par_iter()
            .map(|b| {
                let rows = b * ROWS_PER_BLOCK..((b + 1) * ROWS_PER_BLOCK).min(len);
                let (mut ends, mut items) = (Vec::with_capacity(rows.len()), Vec::new());
                fill(rows, &mut ends, &mut items);
                (ends, items)
            })
            .collect();
        Self::joined(len, labels, &blocks)
    }

    /// The records `records` (indices, in that order, repeats allowed), each split into the
    /// items `keep` accepts and the others: two databases over the same dictionary, aligned
    /// record by record. One read of each record: a selection in another order reads its rows
    /// at random, and selecting first then filtering twice read every row three times (2.7 s
    /// of CAHD's grouping thread at 10⁷).
    ///
    /// # Panics
    /// When an index is not below [`len`](Self::len).
    pub fn select_split(
        &self,
        records: &[usize],
        keep: impl Fn(ItemId) -> bool + Sync,
    ) -> (Self, Self) {
        type Block = ((Vec<usize>, Vec<ItemId>), (Vec<usize>, Vec<ItemId>));
        let row = |k: usize| self.transaction(records[k]);
        let blocks: Vec<Block> = (0..records.len().div_ceil(ROWS_PER_BLOCK))
            .into_par_iter()
            .map(|b| {
                let rows: Vec<usize> =
                    (b * ROWS_PER_BLOCK..((b + 1) * ROWS_PER_BLOCK).min(records.len())).collect();
                let ends = || Vec::with_capacity(rows.len());
                let (mut kept, mut others) = ((ends(), Vec::new()), (ends(), Vec::new()));
                for k in crate::fetch::fetched_ahead(&rows, row, crate::fetch::FIRST_LINE) {
                    for &i in row(k) {
                        if keep(i) { &mut kept.1 } else { &mut others.1 }.push(i);
                    }
                    kept.0.push(kept.1.len());
                    others.0.push(others.1.len());
                }
                (kept, others)
            })
            .collect();
        let (kept, others): (Vec<_>, Vec<_>) = blocks.into_iter().unzip();
        let len = records.len();
        rayon::join(
            || Self::joined(len, self.labels.clone(), &kept),
            || Self::joined(len, self.labels.clone(), &others),
        )
    }

    /// Rows `0..len` from blocks of consecutive rows, each block's row ends (relative to the
    /// block) and items.
    fn joined(len: usize, labels: ItemLabels, blocks: &[(Vec<usize>, Vec<ItemId>)]) -> Self {
        // Joined on rayon, each block into its own part of the arrays, the supports counted
        // on the way: on one core the join was a copy of every row.
        let mut offsets = vec![0usize; len + 1];
        let mut items = vec![0; blocks.iter().map(|b| b.1.len()).sum()];
        let sizes: Vec<(usize, usize)> = blocks.iter().map(|(e, b)| (e.len(), b.len())).collect();
        let parts = split_blocks(&mut offsets[1..], &mut items, &sizes);
        let m = labels.len();
        let supports = parts
            .into_par_iter()
            .zip(blocks)
            .fold(
                || vec![0u32; m],
                |mut supports, ((to_ends, to_items, base), (ends, block))| {
                    to_items.copy_from_slice(block);
                    for (to, &e) in to_ends.iter_mut().zip(ends) {
                        *to = base + e;
                    }
                    for &i in block.iter() {
                        supports[i as usize] += 1;
                    }
                    supports
                },
            )
            .reduce(
                || vec![0u32; m],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        Self { offsets, items, labels, supports }
    }

    /// The first `n` records (all of them when there are fewer), over the same dictionary.
    pub fn head(&self, n: usize) -> Self {
        let n = n.min(self.len());
        Self::from_parts_unchecked(
            self.offsets[..=n].to_vec(),
            self.items[..self.offsets[n]].to_vec(),
            self.labels.clone(),
        )
    }

    /// The same records in the same order, each keeping only the items `keep` accepts; the
    /// dictionary is unchanged (a dropped item keeps its id, with support 0).
    pub fn filter_items(&self, keep: impl Fn(ItemId) -> bool + Sync) -> Self {
        Self::in_blocks(self.len(), self.labels.clone(), |rows, ends, items| {
            for r in rows {
                items.extend(self.transaction(r).iter().copied().filter(|&i| keep(i)));
                ends.push(items.len());
            }
        })
    }

    /// Drops empty transactions, keeping the order of the others.
    pub fn without_empty(&self) -> Self {
        let mut offsets = Vec::with_capacity(self.offsets.len());
        offsets.push(0);
        for w in self.offsets.windows(2) {
            if w[1] > w[0] {
                offsets.push(w[1]);
            }
        }
        Self { offsets, ..self.clone() }
    }
}

/// Rows per block of the databases built on rayon.
const ROWS_PER_BLOCK: usize = 16_384;

/// A database's row ends (after the leading 0) and items cut into each block's own parts, the
/// blocks given as (rows, items) in order: `(ends, items, base)`, `base` where the block's items
/// start in the database.
fn split_blocks<'a>(
    mut ends: &'a mut [usize],
    mut items: &'a mut [ItemId],
    blocks: &[(usize, usize)],
) -> Vec<(&'a mut [usize], &'a mut [ItemId], usize)> {
    let mut parts = Vec::with_capacity(blocks.len());
    let mut base = 0;
    for &(rows, len) in blocks {
        let (block_ends, rest_ends) = std::mem::take(&mut ends).split_at_mut(rows);
        let (block_items, rest_items) = std::mem::take(&mut items).split_at_mut(len);
        parts.push((block_ends, block_items, base));
        (ends, items) = (rest_ends, rest_items);
        base += len;
    }
    parts
}

/// Panics unless `row` is strictly ascending with ids below `num_items`: a transaction of a
/// database over `num_items` items.
fn check_row(row: &[ItemId], num_items: usize) {
    assert!(row.windows(2).all(|p| p[0] < p[1]), "transactions must be strictly ascending");
    assert!(row.last().is_none_or(|&x| (x as usize) < num_items), "item id beyond the dictionary");
}

/// A database with an item → category map that covers its dictionary (one category per item),
/// checked once when built: what the swap family's methods and its audit index by item id.
#[derive(Debug, Clone, Copy)]
pub struct Categorized<'a> {
    db: &'a TransactionDb,
    categories: &'a ItemCategories,
}

/// An item → category map that does not cover a database's items.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the categorization covers {categorized} items, the data has {items}: one category per item"
)]
pub struct CategoriesMismatch {
    /// Items with a category.
    pub categorized: usize,
    /// Items of the database.
    pub items: usize,
}

impl<'a> Categorized<'a> {
    /// `db` with `categories`.
    ///
    /// # Errors
    /// [`CategoriesMismatch`] when `categories` does not have one category per item of `db`.
    pub fn new(
        db: &'a TransactionDb,
        categories: &'a ItemCategories,
    ) -> Result<Self, CategoriesMismatch> {
        if categories.len_items() != db.num_items() {
            return Err(CategoriesMismatch {
                categorized: categories.len_items(),
                items: db.num_items(),
            });
        }
        Ok(Self { db, categories })
    }

    /// The database.
    pub fn db(&self) -> &'a TransactionDb {
        self.db
    }

    /// The map.
    pub fn categories(&self) -> &'a ItemCategories {
        self.categories
    }

    /// `category_of()[i]`: the category of item `i`, for every item of the database.
    pub fn category_of(&self) -> &'a [u32] {
        self.categories.categories()
    }
}

/// Builds a [`TransactionDb`] one row at a time into its compressed rows, with no allocation
/// per row: for callers that produce rows from other structures (a bucket's column values, a
/// group's items).
#[derive(Debug, Clone)]
pub struct TransactionDbBuilder {
    offsets: Vec<usize>,
    items: Vec<ItemId>,
}

impl Default for TransactionDbBuilder {
    fn default() -> Self {
        Self { offsets: vec![0], items: Vec::new() }
    }
}

impl TransactionDbBuilder {
    /// A builder with room for `rows` rows of `items` items in all.
    pub fn with_capacity(rows: usize, items: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Self { offsets, items: Vec::with_capacity(items) }
    }

    /// Appends one row (its items in any order; they are sorted here).
    pub fn push_row(&mut self, row: impl IntoIterator<Item = ItemId>) {
        self.items.extend(row);
        self.end_row();
    }

    /// Adds `items` to the row being built (rows built from several slices, such as a
    /// record's column values, copy each slice whole); [`end_row`](Self::end_row) closes it.
    pub fn extend_row(&mut self, items: &[ItemId]) {
        self.items.extend_from_slice(items);
    }

    /// Closes the row being built: its items, in any order, are sorted here.
    pub fn end_row(&mut self) {
        let start = *self.offsets.last().expect("offsets start with 0");
        self.items[start..].sort_unstable();
        self.offsets.push(self.items.len());
    }

    /// The database of the rows pushed, over `labels`.
    ///
    /// # Panics
    /// As [`TransactionDb::from_parts`]: a row repeating an item or naming an id beyond
    /// `labels`.
    pub fn finish(self, labels: ItemLabels) -> TransactionDb {
        TransactionDb::from_parts(self.offsets, self.items, labels)
    }
}

/// Rows per task where [`TransactionDb::from_parts`] checks and counts: enough that a task's
/// table of supports (one word per item) is small beside its rows.
const ROWS_PER_CHECK: usize = 65_536;

/// A [`TransactionDb`] whose rows are made in blocks in parallel and written in place: each
/// block's count of rows and of items is known before any row is made, so every block writes
/// into its own part of the database's arrays and joining the blocks copies nothing (at 10⁷
/// rows, copying blocks built apart into one builder was about a second on one core).
#[derive(Debug)]
pub struct BlockRows {
    offsets: Vec<usize>,
    items: Vec<ItemId>,
    /// Each block's (rows, items).
    blocks: Vec<(usize, usize)>,
}

impl BlockRows {
    /// Room for `blocks`, each given as its (rows, items), in the database's order.
    pub fn new(blocks: Vec<(usize, usize)>) -> Self {
        let rows: usize = blocks.iter().map(|b| b.0).sum();
        let items: usize = blocks.iter().map(|b| b.1).sum();
        // Zeroed by the allocator, so pages are touched first by the blocks writing them.
        Self { offsets: vec![0; rows + 1], items: vec![0; items], blocks }
    }

    /// One writer per block, in order, each over its own rows; write them in any order, on
    /// any threads.
    pub fn writers(&mut self) -> Vec<RowWriter<'_>> {
        split_blocks(&mut self.offsets[1..], &mut self.items, &self.blocks)
            .into_iter()
            .map(|(ends, items, base)| RowWriter { ends, items, base, row: 0, at: 0 })
            .collect()
    }

    /// The database of the rows written, over `labels`.
    ///
    /// # Panics
    /// As [`TransactionDb::from_parts`]; when a block's writer did not fill it (its drop
    /// says so).
    pub fn finish(self, labels: ItemLabels) -> TransactionDb {
        TransactionDb::from_parts(self.offsets, self.items, labels)
    }
}

/// Writes one block of [`BlockRows`]: rows built from slices, as
/// [`TransactionDbBuilder::extend_row`] and [`end_row`](Self::end_row).
///
/// # Panics
/// When a row goes past the block's items or rows; on drop, when the block is not full.
#[derive(Debug)]
pub struct RowWriter<'a> {
    ends: &'a mut [usize],
    items: &'a mut [ItemId],
    /// Where the block's items start in the database.
    base: usize,
    /// Rows closed.
    row: usize,
    /// Items written.
    at: usize,
}

impl RowWriter<'_> {
    /// Adds `items` to the row being built.
    pub fn extend_row(&mut self, items: &[ItemId]) {
        self.items[self.at..self.at + items.len()].copy_from_slice(items);
        self.at += items.len();
    }

    /// Closes the row being built: its items, in any order, are sorted here.
    pub fn end_row(&mut self) {
        let start = if self.row == 0 { 0 } else { self.ends[self.row - 1] - self.base };
        self.items[start..self.at].sort_unstable();
        self.ends[self.row] = self.base + self.at;
        self.row += 1;
    }
}

impl Drop for RowWriter<'_> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert!(
                self.row == self.ends.len() && self.at == self.items.len(),
                "a block of rows left unfilled: {} of {} rows, {} of {} items",
                self.row,
                self.ends.len(),
                self.at,
                self.items.len()
            );
        }
    }
}

/// Iterator over the transactions of a [`TransactionDb`].
#[derive(Debug, Clone)]
pub struct Transactions<'a> {
    db: &'a TransactionDb,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Transactions<'a> {
    type Item = &'a [ItemId];

    fn next(&mut self) -> Option<Self::Item> {
        if self.next == self.end {
            return None;
        }
        let t = self.db.transaction(self.next);
        self.next += 1;
        Some(t)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Transactions<'_> {}

impl<'a> IntoIterator for &'a TransactionDb {
    type Item = &'a [ItemId];
    type IntoIter = Transactions<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Transactions under construction: raw label values (integers, or interned string ids) in CSR.
///
/// Readers push items and close transactions; `finish_*` turns raw values into dense ids whose
/// order is the order of the labels.
#[derive(Debug)]
pub(crate) struct RawDb {
    /// Starts as `[0]`, so closing a transaction never has to check for the first offset.
    pub(crate) offsets: Vec<usize>,
    pub(crate) items: Vec<u32>,
    pub(crate) duplicates_dropped: u64,
}

impl Default for RawDb {
    fn default() -> Self {
        Self { offsets: vec![0], items: Vec::new(), duplicates_dropped: 0 }
    }
}

impl RawDb {
    /// Sorts and de-duplicates the items pushed since the last close, and closes the transaction.
    pub(crate) fn close_transaction(&mut self) {
        let start = *self.offsets.last().expect("offsets start as [0]");
        // Most files are already sorted; checking is far cheaper than sorting.
        let ascending = self.items[start..].windows(2).all(|w| w[0] < w[1]);
        self.close_transaction_known(ascending);
    }

    /// [`close_transaction`](Self::close_transaction) for a caller that already knows whether
    /// the open transaction is strictly ascending (the FIMI parser tracks it as it pushes).
    pub(crate) fn close_transaction_known(&mut self, strictly_ascending: bool) {
        let start = *self.offsets.last().expect("offsets start as [0]");
        let t = &mut self.items[start..];
        if !strictly_ascending {
            t.sort_unstable();
            let before = self.items.len();
            let mut write = start;
            for read in start..before {
                if write == start || self.items[read] != self.items[write - 1] {
                    self.items[write] = self.items[read];
                    write += 1;
                }
            }
            self.items.truncate(write);
            self.duplicates_dropped += (before - write) as u64;
        }
        self.offsets.push(self.items.len());
    }

    /// Number of closed transactions.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Finishes with integer labels: a monotone map from label to rank keeps every transaction
    /// sorted, so no second sort is needed.
    pub(crate) fn finish_int(mut self) -> TransactionDb {
        // On rayon in blocks: at 10⁷ transactions each pass reads 400 MB.
        const BLOCK: usize = 1 << 20;
        let Some(max) = self.items.par_chunks(BLOCK).filter_map(|b| b.iter().copied().max()).max()
        else {
            return TransactionDb::from_parts_unchecked(
                self.offsets,
                self.items,
                ItemLabels::Int(Vec::new()),
            );
        };
        // A direct table is the fastest map; use it when it is not much larger than the data.
        // One pass counts (the counts are the supports), one turns counts into ranks in place,
        // one remaps: the supports need no pass of their own.
        if (max as usize) <= 4 * self.items.len() + (1 << 20) {
            let count = |mut table: Vec<u32>, block: &[u32]| {
                for &v in block {
                    table[v as usize] += 1;
                }
                table
            };
            // A table per piece rayon splits the items into (a few per thread) while a table is
            // small beside the items; one table otherwise.
            let mut table = if max < 1 << 20 && self.items.len() > BLOCK {
                self.items
                    .par_chunks(BLOCK)
                    .fold(|| vec![0u32; max as usize + 1], count)
                    .reduce_with(|mut a, b| {
                        a.iter_mut().zip(&b).for_each(|(a, b)| *a += b);
                        a
                    })
                    .expect("the items are not empty")
            } else {
                count(vec![0u32; max as usize + 1], &self.items)
            };
            let mut present = Vec::new();
            let mut supports = Vec::new();
            for (v, slot) in table.iter_mut().enumerate() {
                if *slot > 0 {
                    supports.push(*slot);
                    *slot = present.len() as u32;
                    present.push(v as u32);
                }
            }
            self.items.par_chunks_mut(BLOCK).for_each(|block| {
                for v in block {
                    *v = table[*v as usize];
                }
            });
            return TransactionDb::from_parts_with_supports(
                self.offsets,
                self.items,
                ItemLabels::Int(present),
                supports,
            );
        }
        let mut present = self.items.clone();
        present.sort_unstable();
        present.dedup();
        let rank: HashMap<u32, u32> =
            present.iter().enumerate().map(|(r, &v)| (v, r as u32)).collect();
        for v in &mut self.items {
            *v = rank[v];
        }
        TransactionDb::from_parts_unchecked(self.offsets, self.items, ItemLabels::Int(present))
    }

    /// Finishes with interned string labels: ids are re-ranked by label and transactions re-sorted.
    /// If every label is a canonical integer the dictionary becomes an integer one.
    pub(crate) fn finish_interned(mut self, interner: Interner) -> TransactionDb {
        let (labels, rank) = ItemLabels::ranked(&interner.strings);
        for v in &mut self.items {
            *v = rank[*v as usize];
        }
        for w in self.offsets.windows(2) {
            self.items[w[0]..w[1]].sort_unstable();
        }
        TransactionDb::from_parts_unchecked(self.offsets, self.items, labels)
    }
}

/// Maps strings to consecutive ids in order of first appearance.
#[derive(Debug, Default)]
pub(crate) struct Interner {
    ids: HashMap<String, u32>,
    strings: Vec<String>,
}

impl Interner {
    pub(crate) fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.strings.len() as u32;
        self.ids.insert(s.to_owned(), id);
        self.strings.push(s.to_owned());
        id
    }

    /// The strings, in order of their ids.
    pub(crate) fn into_strings(self) -> Vec<String> {
        self.strings
    }
}

/// [`TransactionDb::lexicographic_order`] of the rows `row(0..len)` (ascending ids below
/// `num_items`), wherever they are stored: rows a method rewrote in place of some of a
/// database's are ordered without copying every row into a database first.
pub fn lexicographic_order_by<'a>(
    len: usize,
    num_items: usize,
    row: impl Fn(usize) -> &'a [ItemId] + Sync,
) -> Vec<u32> {
    use rayon::prelude::*;
    let bits = prefix_key_bits(num_items);
    let mut keyed: Vec<(u128, u32)> =
        (0..len).into_par_iter().map(|r| (prefix_key(row(r), bits), r as u32)).collect();
    // Ending in the index, the comparison is a total order, so an unstable sort gives the
    // stable order: pattern-defeating quicksort in place rather than a merge sort's buffers
    // (swap's bench on a million Quest records: 1.45 s against 1.62–1.69 s). A key whose last
    // place is empty holds its whole row: equal such keys are equal rows, not compared again.
    let last_place = !0u128 >> (128 - bits) << (128 - bits * (128 / bits));
    keyed.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| {
                if a.0 & last_place == 0 {
                    std::cmp::Ordering::Equal
                } else {
                    row(a.1 as usize).cmp(row(b.1 as usize))
                }
            })
            .then(a.1.cmp(&b.1))
    });
    keyed.into_par_iter().map(|(_, r)| r).collect()
}

/// The bits [`prefix_key`] gives each item of ids below `num_items` (each stored plus one).
pub fn prefix_key_bits(num_items: usize) -> u32 {
    let top = u32::try_from(num_items).unwrap_or(u32::MAX);
    (u32::BITS - top.leading_zeros()).max(1)
}

/// An order-preserving key of a sorted row's first items: each item plus one in `bits` bits
/// (from [`prefix_key_bits`]), from the most significant down, as many as fit in 128 bits,
/// zero past the row's end. Keys compare as the rows do lexicographically, a row before its
/// extensions; equal keys only say that the rows agree on the items the keys hold.
pub fn prefix_key(row: &[ItemId], bits: u32) -> u128 {
    debug_assert!((1..=32).contains(&bits));
    let places = (128 / bits) as usize;
    let mut key = 0u128;
    for (j, &i) in row.iter().take(places).enumerate() {
        key |= (u128::from(i) + 1) << (128 - bits * (j as u32 + 1));
    }
    key
}

/// The items a [`prefix_key`] of `bits` bits per item holds, in order: the whole row when it
/// has at most `128 / bits` items, else its first `128 / bits`.
pub fn prefix_key_items(key: u128, bits: u32) -> impl Iterator<Item = ItemId> {
    debug_assert!((1..=32).contains(&bits));
    let mask = (1u128 << bits) - 1;
    (1..=128 / bits)
        .map(move |j| (key >> (128 - bits * j)) & mask)
        .take_while(|&place| place != 0)
        // A place holds an id plus one, below 2³².
        .map(|place| (place - 1) as ItemId)
}

impl crate::rng::DataDigest for TransactionDb {
    /// The labels and the multiset of transactions (not their order: a publication must not
    /// depend on the input's order).
    fn data_digest(&self) -> [u8; 32] {
        let mut digest = crate::rng::DigestBuilder::new("transactions/1");
        match &self.labels {
            ItemLabels::Int(labels) => {
                digest.text("int").words(labels);
            }
            ItemLabels::Str(labels) => {
                digest.text("str").longs(std::iter::once(labels.len() as u64));
                for label in labels {
                    digest.text(label);
                }
            }
        }
        digest.row_multiset(self.len(), |r, row| row.extend_from_slice(self.transaction(r)));
        digest.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key gives back the items it holds: the whole row below its number of places, the
    /// first places of a longer one; at every width from one bit to 32.
    #[test]
    fn prefix_keys_give_back_their_items() {
        let mut longer = 0;
        for bits in 1..=32u32 {
            let top = if bits == 32 { u64::from(u32::MAX) - 1 } else { (1u64 << bits) - 2 };
            assert_eq!(prefix_key_bits(top as usize + 1), bits);
            let places = (128 / bits) as usize;
            for len in [0, 1, places - 1, places, places + 1, places + 7] {
                let mut row: Vec<ItemId> = (0..len as u64)
                    .map(|j| (crate::mix64(j ^ u64::from(bits)) % (top + 1)) as ItemId)
                    .collect();
                row.push(top as ItemId);
                row.sort_unstable();
                row.dedup();
                let back: Vec<ItemId> = prefix_key_items(prefix_key(&row, bits), bits).collect();
                longer += usize::from(row.len() > places);
                assert_eq!(back, row[..row.len().min(places)], "bits {bits}, row {row:?}");
            }
        }
        assert!(longer > 40, "{longer}");
    }

    #[test]
    fn dense_ids_follow_label_order() {
        let db = TransactionDb::from_int_transactions([vec![30, 10], vec![20, 10, 10], vec![]]);
        assert_eq!(db.labels(), &ItemLabels::Int(vec![10, 20, 30]));
        assert_eq!(db.transaction(0), &[0, 2]);
        assert_eq!(db.transaction(1), &[0, 1]);
        assert_eq!(db.transaction(2), &[] as &[ItemId]);
        assert_eq!(db.supports(), &[2, 1, 1]);
        let s = db.stats();
        assert_eq!((s.transactions, s.empty_transactions, s.items, s.max_len), (3, 1, 3, 2));
        assert!((s.avg_len - 4.0 / 3.0).abs() < 1e-12);
        assert!((s.density - 4.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn huge_labels_use_the_hash_map() {
        let db = TransactionDb::from_int_transactions([vec![u32::MAX, 5], vec![4_000_000_000]]);
        assert_eq!(db.labels(), &ItemLabels::Int(vec![5, 4_000_000_000, u32::MAX]));
        assert_eq!(db.transaction(0), &[0, 2]);
    }

    #[test]
    fn string_labels_sorted_and_numeric_ones_become_ints() {
        let db = TransactionDb::from_str_transactions([vec!["milk", "beer"], vec!["apple"]]);
        assert_eq!(
            db.labels(),
            &ItemLabels::Str(vec!["apple".into(), "beer".into(), "milk".into()])
        );
        assert_eq!(db.transaction(0), &[1, 2]);
        let db = TransactionDb::from_str_transactions([vec!["10", "9"], vec!["100"]]);
        assert_eq!(db.labels(), &ItemLabels::Int(vec![9, 10, 100]));
        let db = TransactionDb::from_str_transactions([vec!["10", "09"]]);
        assert!(!db.labels().is_int(), "a leading zero would not round-trip as an integer");
    }

    #[test]
    fn histogram_and_top_items() {
        let db =
            TransactionDb::from_int_transactions([vec![1, 2, 3], vec![1, 2], vec![1], vec![1]]);
        // supports 4, 2, 1
        assert_eq!(db.support_histogram(), vec![1, 1, 1]);
        assert_eq!(db.top_items(2), vec![(0, 4), (1, 2)]);
    }

    /// The builders against records rebuilt by hand: rows sorted, a selection in its order
    /// with repeats, the head, and items filtered with the dictionary kept.
    #[test]
    fn builders_keep_the_dictionary() {
        let db = TransactionDb::from_int_transactions([vec![1, 2, 3], vec![2], vec![], vec![1, 3]]);
        let rows = TransactionDb::from_rows([vec![2u32, 0], vec![1]], db.labels().clone());
        assert_eq!((rows.transaction(0), rows.transaction(1)), (&[0, 2][..], &[1][..]));
        let picked = db.select([3, 0, 3]);
        assert_eq!(picked.iter().collect::<Vec<_>>(), [&[0, 2][..], &[0, 1, 2], &[0, 2]]);
        assert_eq!(picked.supports(), [3, 1, 3]);
        assert_eq!(db.head(2).iter().collect::<Vec<_>>(), [&[0, 1, 2][..], &[1]]);
        assert_eq!(db.head(99), db);
        let kept = db.filter_items(|i| i != 1);
        assert_eq!(kept.iter().collect::<Vec<_>>(), [&[0, 2][..], &[], &[], &[0, 2]]);
        assert_eq!((kept.labels(), kept.supports()), (db.labels(), &[2, 0, 2][..]));
    }

    /// Rows given as one array are the database the same rows give one by one: small labels
    /// (a direct table), labels far apart (a map) and empty rows.
    #[test]
    fn int_rows_are_int_transactions() {
        for rows in [
            vec![vec![3u32, 5], vec![], vec![1, 3, 9], vec![5]],
            vec![vec![7, u32::MAX], vec![0], vec![], vec![7, 1 << 30]],
            vec![],
        ] {
            let mut offsets = vec![0];
            let mut labels = Vec::new();
            for row in &rows {
                labels.extend_from_slice(row);
                offsets.push(labels.len());
            }
            let db = TransactionDb::from_int_rows(offsets, labels);
            assert_eq!(db, TransactionDb::from_int_transactions(&rows));
            assert_eq!(db.supports(), TransactionDb::from_int_transactions(&rows).supports());
        }
    }

    /// Blocks of rows written in place, each on a thread of its own and in reverse order, are
    /// the database the same rows make one by one: empty rows, an empty block, and rows whose
    /// items come unsorted in several slices.
    #[test]
    fn block_rows_written_in_any_order_equal_the_builders() {
        let labels = ItemLabels::Int(vec![1, 2, 3, 4, 5]);
        let blocks: [&[&[&[u32]]]; 4] = [
            &[&[&[3], &[0]], &[], &[&[2, 4]]],
            &[],
            &[&[&[1], &[3, 0]]],
            &[&[], &[&[4, 1], &[2]], &[]],
        ];
        let mut whole = TransactionDbBuilder::default();
        let mut sizes = Vec::new();
        for block in blocks {
            for row in block {
                whole.push_row(row.iter().flat_map(|part| part.iter().copied()));
            }
            sizes.push((block.len(), block.iter().flat_map(|r| r.iter()).map(|p| p.len()).sum()));
        }
        let mut rows = BlockRows::new(sizes);
        std::thread::scope(|scope| {
            for (mut writer, block) in rows.writers().into_iter().zip(blocks).rev() {
                scope.spawn(move || {
                    for row in block {
                        for part in *row {
                            writer.extend_row(part);
                        }
                        writer.end_row();
                    }
                });
            }
        });
        let db = rows.finish(labels.clone());
        let expected = whole.finish(labels);
        assert_eq!(db.supports(), expected.supports());
        assert_eq!(db, expected);
        assert_eq!(db.len(), 7);
    }

    #[test]
    #[should_panic(expected = "a block of rows left unfilled: 1 of 2 rows")]
    fn block_rows_refuse_an_unfilled_block() {
        let mut rows = BlockRows::new(vec![(2, 1)]);
        let mut writer = rows.writers().pop().expect("one block");
        writer.extend_row(&[0]);
        writer.end_row();
    }

    /// The supports `from_parts` counts in blocks of rows on rayon (rows for several blocks
    /// here) are each item's number of rows.
    #[test]
    fn from_parts_counts_supports_across_blocks() {
        let m = 1000;
        let n = 5 * ROWS_PER_CHECK / 2 + 17;
        let mut offsets = vec![0];
        let mut items = Vec::new();
        let mut expected = vec![0u32; m];
        for r in 0..n {
            let row: Vec<ItemId> = [r % 7, r % 11 + 7, (r * 31) % m]
                .into_iter()
                .filter(|&x| x < m)
                .map(|x| x as ItemId)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            for &i in &row {
                expected[i as usize] += 1;
            }
            items.extend(row);
            offsets.push(items.len());
        }
        let db =
            TransactionDb::from_parts(offsets, items, ItemLabels::Int((0..m as u32).collect()));
        assert_eq!(db.supports(), &expected[..]);
    }

    #[test]
    #[should_panic(expected = "strictly ascending")]
    fn int_rows_must_ascend() {
        TransactionDb::from_int_rows(vec![0, 2], vec![4, 4]);
    }

    /// `count` rows over items 0 to 39, each item in a row with probability about
    /// `1 / every`, from a hash salted by `salt` (empty rows among them at these sizes).
    fn pseudo_random_rows(count: u64, salt: u64, every: u64) -> Vec<Vec<u32>> {
        (0..count)
            .map(|r| {
                (0..40u32)
                    .filter(|&i| crate::mix64(r * salt + u64::from(i)).is_multiple_of(every))
                    .collect()
            })
            .collect()
    }

    /// Over many blocks, a shuffled selection (repeats and empty rows among them) holds the
    /// rows it names in its order, with the supports a count of them gives.
    #[test]
    fn a_selection_over_many_blocks_is_its_rows() {
        let rows = pseudo_random_rows(70_000, 41, 9);
        let db = TransactionDb::from_int_transactions(rows.iter().cloned());
        assert!(rows.iter().any(Vec::is_empty));
        let picked: Vec<usize> =
            (0..100_000u64).map(|k| (crate::mix64(k) % rows.len() as u64) as usize).collect();
        let selected = db.select(picked.iter().copied());
        assert_eq!(selected.len(), picked.len());
        let mut supports = vec![0u32; db.num_items()];
        for (k, &r) in picked.iter().enumerate() {
            assert_eq!(selected.transaction(k), db.transaction(r), "row {k}");
            db.transaction(r).iter().for_each(|&i| supports[i as usize] += 1);
        }
        assert_eq!(selected.supports(), &supports[..]);
        let gathered =
            TransactionDb::gather(picked.len(), db.labels().clone(), |k| db.transaction(picked[k]));
        assert_eq!(gathered.transaction(99_999), selected.transaction(99_999));
        assert_eq!(gathered.supports(), selected.supports());
    }

    /// Over many blocks, a selection split by items holds, record by record, the rows the
    /// selection holds split by the same items: each side a filter of the selection (its
    /// supports too), the dictionary unchanged.
    #[test]
    fn a_split_selection_is_the_selection_filtered_both_ways() {
        let rows = pseudo_random_rows(50_000, 43, 7);
        let db = TransactionDb::from_int_transactions(rows.iter().cloned());
        let picked: Vec<usize> =
            (0..60_000u64).map(|k| (crate::mix64(k + 7) % rows.len() as u64) as usize).collect();
        let keep = |i: ItemId| i % 3 == 1;
        let (kept, others) = db.select_split(&picked, keep);
        let selected = db.select(picked.iter().copied());
        for (side, want) in
            [(&kept, selected.filter_items(keep)), (&others, selected.filter_items(|i| !keep(i)))]
        {
            assert_eq!(side.len(), picked.len());
            assert_eq!(side.num_items(), db.num_items());
            for k in 0..picked.len() {
                assert_eq!(side.transaction(k), want.transaction(k), "row {k}");
            }
            assert_eq!(side.supports(), want.supports());
        }
        assert!(kept.iter().any(|t| t.is_empty()) && others.iter().any(|t| !t.is_empty()));
        let (none, all) = db.select_split(&[], keep);
        assert!(none.is_empty() && all.is_empty());
    }

    /// Rows made by a function, over many blocks: each row as made, the dictionary every
    /// label below the bound (ids are labels), the supports a count of the rows.
    #[test]
    fn rows_from_a_function_are_the_rows_it_makes() {
        let row = |r: usize| -> Vec<u32> {
            (0..30u32)
                .filter(|&i| crate::mix64(r as u64 * 31 + u64::from(i)).is_multiple_of(7))
                .collect()
        };
        let n = 40_000;
        let db = TransactionDb::from_int_row_fn(n, 32, |r, items| items.extend(row(r)));
        assert_eq!((db.len(), db.num_items()), (n, 32));
        let mut supports = [0u32; 32];
        for r in 0..n {
            assert_eq!(db.transaction(r), &row(r)[..], "row {r}");
            row(r).iter().for_each(|&i| supports[i as usize] += 1);
        }
        assert_eq!(db.supports(), &supports[..]);
        assert_eq!((db.supports()[30], db.label(31)), (0, Label::Int(31)));
    }

    #[test]
    #[should_panic(expected = "item id beyond the dictionary")]
    fn a_row_from_a_function_stays_below_its_labels() {
        TransactionDb::from_int_row_fn(2, 3, |r, items| items.extend([r as u32, 3]));
    }

    #[test]
    #[should_panic(expected = "strictly ascending")]
    fn a_gathered_row_must_ascend() {
        let rows: [&[ItemId]; 2] = [&[0, 1], &[1, 0]];
        TransactionDb::gather(2, ItemLabels::Int(vec![5, 6]), |k| rows[k]);
    }

    #[test]
    #[should_panic(expected = "strictly ascending")]
    fn from_parts_checks_order() {
        TransactionDb::from_parts(vec![0, 2], vec![1, 0], ItemLabels::Int(vec![5, 6]));
    }

    #[test]
    fn without_empty_keeps_order() {
        let db = TransactionDb::from_int_transactions([vec![], vec![2], vec![], vec![1]]);
        let d = db.without_empty();
        assert_eq!(d.len(), 2);
        assert_eq!(d.transaction(0), &[1]);
        assert_eq!(d.transaction(1), &[0]);
    }
}
