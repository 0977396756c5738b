//! The audit's itemset search: a depth-first search over the published items in id order
//! that counts, for each itemset that occurs, the supports of its one-item extensions (its
//! rows intersected with the item's), the last two levels together in a pair table, long
//! tails through column bitsets. Apart from the claim and the checks that read its findings.

use txanon_data::audit::{RowOrder, ViolationLog};
use txanon_data::progress::{Progress, Unit};
use txanon_data::{ItemId, ItemIndex, TransactionDb};

use super::dense::{DenseCounts, Layout, Step};
use super::{KmClaim, KmViolation};

/// The depth-first search of the itemsets of at most `m` items, with pair tables of at most
/// `table_limit` cells (0: none), or the dense count of [`super::dense`] where its tables fit
/// in `dense_cells`: how many were checked and the smallest support met.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_itemsets(
    published: &TransactionDb,
    order: &RowOrder,
    claim: &KmClaim,
    dense_cells: usize,
    table_limit: usize,
    dense_tails: Option<DenseTails>,
    progress: &Progress,
    log: &mut ViolationLog<KmViolation>,
) -> (u64, Option<u64>) {
    let (rows, weights): (Vec<&[ItemId]>, Vec<u64>) = order
        .distinct(published)
        .into_iter()
        .map(|(r, w)| (published.transaction(r as usize), w))
        .filter(|(row, _)| !row.is_empty())
        .unzip();
    if let Some(layout) = Layout::fitting(published.num_items(), claim.m, dense_cells) {
        progress.begin("km audit: itemsets of every row (rows)", Unit::Items, rows.len() as u64);
        let counts = DenseCounts::of_rows(&layout, &rows, &weights, |r| progress.advance(r));
        let (mut checked, mut smallest) = (0u64, None::<u64>);
        counts.walk(&layout, |itemset, support| {
            checked += 1;
            smallest = Some(smallest.map_or(support, |s| s.min(support)));
            if support >= claim.k {
                Step::Extend
            } else if log.push(rare(published, claim, itemset, support)) {
                Step::Leave
            } else {
                Step::Stop
            }
        });
        return (checked, smallest);
    }
    // Each item's rows, ascending: an itemset's rows are its prefix's intersected with them.
    let postings = ItemIndex::of_rows(published.num_items(), &rows);
    let search = ItemsetSearch {
        published,
        rows: &rows,
        weights: &weights,
        postings: &postings,
        claim,
        table_limit,
        dense_tails,
    };
    // The single items, then each one's subtree on its own thread; their findings are joined
    // in item order, as one depth-first search would list them. The subtrees of the items
    // in most rows are most of the work: they are handed out one at a time, the largest
    // first, so that no worker is left with a run of them.
    let mut counts = vec![0u64; published.num_items()];
    let all: Vec<u32> = (0..rows.len() as u32).collect();
    let singles = search.extensions(&all, 0, &mut counts);
    let rows_below = |&(i, _): &(ItemId, u64)| postings.transactions(i).len() as u64;
    progress.begin(
        "km audit: itemsets below each item (rows)",
        Unit::Items,
        singles.iter().map(rows_below).sum(),
    );
    let branches: Vec<Branch> = txanon_data::parallel::map_largest_first(
        singles,
        rows_below,
        || Scratch::new(published.num_items()),
        |scratch, (i, support)| {
            let mut branch =
                Branch { checked: 1, smallest: support, violations: ViolationLog::new() };
            if support < claim.k {
                branch.violations.push(search.rare(&[i], support));
            } else if claim.m > 1 {
                search.extend(postings.transactions(i), &mut vec![i], scratch, &mut branch);
            }
            progress.advance(postings.transactions(i).len() as u64);
            branch
        },
    );
    let (mut checked, mut smallest) = (0u64, None::<u64>);
    for branch in branches {
        checked += branch.checked;
        smallest = Some(smallest.map_or(branch.smallest, |s| s.min(branch.smallest)));
        log.append(branch.violations);
    }
    (checked, smallest)
}

/// The violation of an itemset of `published` held by `support < k` transactions.
fn rare(
    published: &TransactionDb,
    claim: &KmClaim,
    itemset: &[ItemId],
    support: u64,
) -> KmViolation {
    let itemset = itemset.iter().map(|&j| published.label(j).to_string()).collect();
    KmViolation::RareItemset { itemset, support, k: claim.k }
}

/// What the search of one item's subtree found.
struct Branch {
    checked: u64,
    smallest: u64,
    violations: ViolationLog<KmViolation>,
}

struct ItemsetSearch<'a> {
    published: &'a TransactionDb,
    rows: &'a [&'a [ItemId]],
    weights: &'a [u64],
    postings: &'a ItemIndex,
    claim: &'a KmClaim,
    /// The most cells of a pair table (see [`ItemsetSearch::pair_table`]).
    table_limit: usize,
    /// The tails a pair table counts through bitsets (`None`: none).
    dense_tails: Option<DenseTails>,
}

/// 32 MiB of `u64` supports per thread.
pub(super) const PAIR_TABLE_CELLS: usize = 1 << 22;

/// The cache lines of each row fetched ahead when tails are copied out.
const FETCH_LINES: usize = 3;

/// Which tails a pair table counts as a Gram matrix of bitsets (one per column, a bit per
/// tail; a pair's support the popcount of their AND) instead of an addition per pair: those
/// of weight one and at least `min_len` items and a `width_share`-th of the table's columns,
/// when their pairs are at least `pairs_per_word` times the words the Gram reads. A long
/// tail costs `L²/2` additions, all of them together two words per pair of columns and 64
/// tails.
#[derive(Debug, Clone, Copy)]
pub(super) struct DenseTails {
    pub(super) min_len: usize,
    pub(super) width_share: usize,
    pub(super) pairs_per_word: u64,
}

pub(super) const DENSE_TAILS: DenseTails =
    DenseTails { min_len: 16, width_share: 6, pairs_per_word: 1 };

impl ItemsetSearch<'_> {
    /// The supports of the items after `after` in the rows `holding`, in item order
    /// (`counts`, zero on entry, is left zero).
    fn extensions(&self, holding: &[u32], after: ItemId, counts: &mut [u64]) -> Vec<(ItemId, u64)> {
        supports_after(
            holding.iter().map(|&r| (self.rows[r as usize], self.weights[r as usize])),
            after,
            counts,
        )
    }

    /// The rows `holding` from their first item after `after` on, copied out into `tails`
    /// (a fetch each, where the rows of a large publication are a cache miss each).
    fn copy_tails(&self, holding: &[u32], after: ItemId, tails: &mut Tails) {
        tails.items.clear();
        tails.ends.clear();
        tails.ends.push(0);
        tails.weights.clear();
        let fetched =
            txanon_data::fetch::fetched_ahead(holding, |r| self.rows[r as usize], FETCH_LINES);
        for r in fetched {
            let row = self.rows[r as usize];
            tails.items.extend_from_slice(&row[row.partition_point(|&i| i < after)..]);
            tails.ends.push(tails.items.len());
            tails.weights.push(self.weights[r as usize]);
        }
    }

    fn rare(&self, itemset: &[ItemId], support: u64) -> KmViolation {
        rare(self.published, self.claim, itemset, support)
    }

    /// Checks every one-item extension of `prefix` (held by the rows `holding`) by items
    /// after its last, and searches on from each that is frequent enough.
    fn extend(
        &self,
        holding: &[u32],
        prefix: &mut Vec<ItemId>,
        scratch: &mut Scratch,
        branch: &mut Branch,
    ) {
        if branch.violations.is_full() {
            return;
        }
        let after = prefix.last().map_or(0, |&i| i + 1);
        // When the extensions' own extensions are the last level, one more scan of the rows
        // (copied out) counts them all: without it, each frequent extension intersects its
        // rows and scans them again, which at millions of rows is most of the audit.
        let last_two = prefix.len() as u64 + 2 == self.claim.m;
        let (extensions, table) = if last_two {
            let mut tails = std::mem::take(&mut scratch.tails);
            self.copy_tails(holding, after, &mut tails);
            let extensions = supports_after(tails.iter(), after, &mut scratch.counts);
            let table = self.pair_table(&tails, &extensions, scratch);
            scratch.tails = tails;
            (extensions, table)
        } else {
            (self.extensions(holding, after, &mut scratch.counts), None)
        };
        let mut next = Vec::new();
        for &(i, support) in &extensions {
            branch.checked += 1;
            branch.smallest = branch.smallest.min(support);
            prefix.push(i);
            if support < self.claim.k {
                if !branch.violations.push(self.rare(prefix, support)) {
                    prefix.pop();
                    break;
                }
            } else if (prefix.len() as u64) < self.claim.m {
                if let Some(table) = &table {
                    table.check_extensions(self, i, prefix, branch);
                } else {
                    next.clear();
                    txanon_data::sets::intersection(
                        holding,
                        self.postings.transactions(i),
                        &mut next,
                    );
                    let rows = std::mem::take(&mut next);
                    self.extend(&rows, prefix, scratch, branch);
                    next = rows;
                }
            }
            prefix.pop();
        }
        if let Some(table) = table {
            table.release(scratch);
        }
    }

    /// The supports of every pair `{b, c}` of `extensions` with `b < c` and `b` frequent, in
    /// the rows `holding`: `None` when the table would cost more than scanning each frequent
    /// extension's rows again.
    fn pair_table(
        &self,
        tails: &Tails,
        extensions: &[(ItemId, u64)],
        scratch: &mut Scratch,
    ) -> Option<PairTable> {
        let frequent = extensions.iter().filter(|&&(_, s)| s >= self.claim.k).count();
        let width = extensions.len();
        let cells = frequent.checked_mul(width)?;
        if frequent == 0 || cells > self.table_limit.min(tails.weights.len().saturating_mul(16)) {
            return None;
        }
        let mut items = Vec::with_capacity(width);
        let mut f = 0u32;
        for (column, &(i, support)) in extensions.iter().enumerate() {
            scratch.column[i as usize] = column as u32;
            if support >= self.claim.k {
                scratch.line[i as usize] = f;
                f += 1;
            }
            items.push(i);
        }
        let mut supports = vec![0u64; cells];
        let dense_len = self.dense_tails.map(|d| d.min_len.max(width / d.width_share.max(1)));
        let is_dense =
            |tail: &[ItemId], w: u64| dense_len.is_some_and(|min| w == 1 && tail.len() >= min);
        let (dense, pairs) = tails.iter().filter(|&(tail, w)| is_dense(tail, w)).fold(
            (0u64, 0u64),
            |(n, p), (tail, _)| {
                let len = tail.len() as u64;
                (n + 1, p + len * len.saturating_sub(1) / 2)
            },
        );
        let gram_words = (frequent as u64) * (width as u64) * dense.div_ceil(64) * 2;
        let pairs_per_word = self.dense_tails.map_or(0, |d| d.pairs_per_word);
        let gram = dense > 0 && pairs >= gram_words.saturating_mul(pairs_per_word);
        if gram {
            let tails_dense = tails.iter().filter(|&(tail, w)| is_dense(tail, w));
            add_gram(
                tails_dense,
                dense as usize,
                width,
                &scratch.line,
                &scratch.column,
                &items,
                &mut supports,
            );
        }
        let mut at: Vec<(u32, u32)> = Vec::new();
        for (tail, w) in tails.iter() {
            if gram && is_dense(tail, w) {
                continue;
            }
            at.clear();
            at.extend(tail.iter().map(|&i| (scratch.line[i as usize], scratch.column[i as usize])));
            for (j, &(line, _)) in at.iter().enumerate() {
                if line == u32::MAX {
                    continue;
                }
                let base = line as usize * width;
                for &(_, column) in &at[j + 1..] {
                    supports[base + column as usize] += w;
                }
            }
        }
        let lines = items.iter().map(|&i| scratch.line[i as usize]).collect();
        Some(PairTable { items, lines, width, supports })
    }
}

/// Adds to `supports` (a line per frequent item, `width` columns) the supports of each pair
/// of columns among `tails` (`count` of them, weight one), from a bitset per column: a pair's
/// support is the popcount of the AND of its two columns' bitsets, summed over blocks of
/// words small enough to stay in the caches.
fn add_gram<'t>(
    tails: impl Iterator<Item = (&'t [ItemId], u64)>,
    count: usize,
    width: usize,
    line: &[u32],
    column: &[u32],
    items: &[ItemId],
    supports: &mut [u64],
) {
    const BLOCK: usize = 256;
    let words = count.div_ceil(64);
    let mut bits = vec![0u64; width * words];
    for (t, (tail, _)) in tails.enumerate() {
        for &i in tail {
            bits[column[i as usize] as usize * words + t / 64] |= 1 << (t % 64);
        }
    }
    let lines: Vec<(usize, usize)> = items
        .iter()
        .enumerate()
        .filter(|&(_, &i)| line[i as usize] != u32::MAX)
        .map(|(x, &i)| (x, line[i as usize] as usize))
        .collect();
    for from in (0..words).step_by(BLOCK) {
        let to = words.min(from + BLOCK);
        for &(x, l) in &lines {
            let bx = &bits[x * words + from..x * words + to];
            for y in x + 1..width {
                let by = &bits[y * words + from..y * words + to];
                let both: u64 =
                    bx.iter().zip(by).map(|(p, q)| u64::from((p & q).count_ones())).sum();
                supports[l * width + y] += both;
            }
        }
    }
}

/// The supports of the items after `after` in `rows` (with their weights), in item order
/// (`counts`, zero on entry, is left zero).
fn supports_after<'r>(
    rows: impl Iterator<Item = (&'r [ItemId], u64)>,
    after: ItemId,
    counts: &mut [u64],
) -> Vec<(ItemId, u64)> {
    let mut touched: Vec<ItemId> = Vec::new();
    for (row, w) in rows {
        let start = row.partition_point(|&i| i < after);
        for &i in &row[start..] {
            if counts[i as usize] == 0 {
                touched.push(i);
            }
            counts[i as usize] += w;
        }
    }
    touched.sort_unstable();
    touched.iter().map(|&i| (i, std::mem::take(&mut counts[i as usize]))).collect()
}

/// Rows from some item on, with their weights, in one buffer.
#[derive(Default)]
struct Tails {
    items: Vec<ItemId>,
    /// Tail `j` is `items[ends[j]..ends[j + 1]]`.
    ends: Vec<usize>,
    weights: Vec<u64>,
}

impl Tails {
    fn iter(&self) -> impl Iterator<Item = (&[ItemId], u64)> {
        self.ends.windows(2).zip(&self.weights).map(|(e, &w)| (&self.items[e[0]..e[1]], w))
    }
}

/// Per-thread buffers of the search, each left as it was found.
struct Scratch {
    /// Supports by item, zero.
    counts: Vec<u64>,
    /// A pair table's line by item, `u32::MAX`.
    line: Vec<u32>,
    /// A pair table's column by item, `u32::MAX`.
    column: Vec<u32>,
    /// The rows a pair table is counted from (any content).
    tails: Tails,
}

impl Scratch {
    fn new(items: usize) -> Self {
        Self {
            counts: vec![0; items],
            line: vec![u32::MAX; items],
            column: vec![u32::MAX; items],
            tails: Tails::default(),
        }
    }
}

/// The supports of a prefix's two-item extensions: a line per frequent extension `b`, a
/// column per extension `c`, in item order.
struct PairTable {
    items: Vec<ItemId>,
    /// Per column, the item's line (`u32::MAX` for a rare one).
    lines: Vec<u32>,
    width: usize,
    supports: Vec<u64>,
}

impl PairTable {
    /// Checks the extensions of `prefix` (ending in `b`, a frequent extension) by items after
    /// `b`, as [`ItemsetSearch::extend`] would at the last level.
    fn check_extensions(
        &self,
        search: &ItemsetSearch<'_>,
        b: ItemId,
        prefix: &mut Vec<ItemId>,
        branch: &mut Branch,
    ) {
        let column_of_b = self.items.binary_search(&b).expect("b is an extension");
        let line = self.lines[column_of_b] as usize;
        let supports = &self.supports[line * self.width..(line + 1) * self.width];
        for (&c, &support) in self.items.iter().zip(supports).skip(column_of_b + 1) {
            if support == 0 {
                continue;
            }
            branch.checked += 1;
            branch.smallest = branch.smallest.min(support);
            if support < search.claim.k {
                prefix.push(c);
                let recorded = branch.violations.push(search.rare(prefix, support));
                prefix.pop();
                if !recorded {
                    return;
                }
            }
        }
    }

    fn release(self, scratch: &mut Scratch) {
        for &i in &self.items {
            scratch.line[i as usize] = u32::MAX;
            scratch.column[i as usize] = u32::MAX;
        }
    }
}

#[cfg(test)]
mod tests {

    use proptest::prelude::*;

    use super::super::dense::DENSE_CELLS;
    use super::*;
    use txanon_data::audit::MAX_VIOLATIONS;

    /// What the depth-first search must find, by brute force: every occurring itemset of at
    /// most `m` items whose proper prefixes (in id order) all reach `k`, in lexicographic order
    /// (the search's preorder), with its support.
    fn checked_by_definition(db: &TransactionDb, k: u64, m: usize) -> Vec<(Vec<ItemId>, u64)> {
        let rows: Vec<Vec<ItemId>> = db.iter().map(<[ItemId]>::to_vec).collect();
        let supports = txanon_testkit::supports_by_definition(&rows, m);
        supports
            .iter()
            .filter(|(set, _)| (1..set.len()).all(|l| supports[&set[..l]] >= k))
            .map(|(set, &s)| (set.clone(), s))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// With pair tables and without, long tails counted through bitsets or not, the search
        /// checks exactly the itemsets the definition names and reports the rare ones in
        /// preorder.
        #[test]
        fn the_search_checks_what_the_definition_names(
            rows in prop::collection::vec(prop::collection::btree_set(0u32..9, 0..7), 1..40),
            k in 2u64..6,
            m in 1u64..5,
        ) {
            let db = TransactionDb::from_str_transactions(
                rows.iter().map(|r| r.iter().map(|i| format!("i{i}")).collect::<Vec<_>>()),
            );
            let claim = KmClaim::new(k, m).unwrap();
            let expected = checked_by_definition(&db, k, m as usize);
            let rare: Vec<KmViolation> = expected
                .iter()
                .filter(|&&(_, s)| s < k)
                .take(MAX_VIOLATIONS)
                .map(|(set, s)| KmViolation::RareItemset {
                    itemset: set.iter().map(|&i| db.label(i).to_string()).collect(),
                    support: *s,
                    k,
                })
                .collect();
            let every_tail = DenseTails { min_len: 0, width_share: usize::MAX, pairs_per_word: 0 };
            let long_tails = DenseTails { min_len: 2, width_share: 3, pairs_per_word: 0 };
            for (dense_cells, table_limit, dense_tails) in [
                (0, 0, None),
                (0, PAIR_TABLE_CELLS, None),
                (0, PAIR_TABLE_CELLS, Some(every_tail)),
                (0, PAIR_TABLE_CELLS, Some(long_tails)),
                (0, PAIR_TABLE_CELLS, Some(DENSE_TAILS)),
                (DENSE_CELLS, PAIR_TABLE_CELLS, Some(DENSE_TAILS)),
            ] {
                let mut log = ViolationLog::new();
                let (checked, smallest) = check_itemsets(
                    &db,
                    &RowOrder::of(&db),
                    &claim,
                    dense_cells,
                    table_limit,
                    dense_tails,
                    &Progress::default(),
                    &mut log,
                );
                let found = match log.finish(()) {
                    Ok(()) => Vec::new(),
                    Err(v) => v.list().to_vec(),
                };
                prop_assert_eq!(&found, &rare);
                if rare.len() < MAX_VIOLATIONS {
                    prop_assert_eq!(checked, expected.len() as u64);
                    prop_assert_eq!(smallest, expected.iter().map(|&(_, s)| s).min());
                }
            }
        }
    }

    /// Past one block of bitset words (256 words: 16,384 tails), with tails of weight two
    /// among the others, a pair table counted through bitsets holds the additions' supports
    /// (the property test's tails fill one word at most).
    #[test]
    fn pair_tables_through_bitsets_match_additions_over_many_blocks() {
        let db = TransactionDb::from_str_transactions((0..40_000u64).map(|j| {
            let bits = txanon_data::mix64(j);
            (0..24).filter(|b| bits >> b & 1 == 1).map(|i| format!("i{i:02}")).collect::<Vec<_>>()
        }));
        let rows: Vec<&[ItemId]> = (0..db.len()).map(|r| db.transaction(r)).collect();
        let weights: Vec<u64> = (0..rows.len() as u64).map(|r| 1 + u64::from(r % 7 == 0)).collect();
        let postings = ItemIndex::of_rows(db.num_items(), &rows);
        let claim = KmClaim::new(2, 3).unwrap();
        let every_tail = DenseTails { min_len: 0, width_share: usize::MAX, pairs_per_word: 0 };
        let mut tables = Vec::new();
        for dense_tails in [None, Some(every_tail)] {
            let search = ItemsetSearch {
                published: &db,
                rows: &rows,
                weights: &weights,
                postings: &postings,
                claim: &claim,
                table_limit: PAIR_TABLE_CELLS,
                dense_tails,
            };
            let mut scratch = Scratch::new(db.num_items());
            let mut tails = Tails::default();
            search.copy_tails(postings.transactions(0), 1, &mut tails);
            assert!(tails.weights.len() > 256 * 64, "{} tails", tails.weights.len());
            let extensions = supports_after(tails.iter(), 1, &mut scratch.counts);
            let table = search.pair_table(&tails, &extensions, &mut scratch).expect("a table");
            tables.push((table.items.clone(), table.lines.clone(), table.supports.clone()));
            table.release(&mut scratch);
        }
        assert!(tables[0].2.iter().any(|&s| s > 0));
        assert_eq!(tables[0], tables[1]);
    }
}
