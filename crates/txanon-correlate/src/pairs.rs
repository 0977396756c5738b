//! Item and item-pair supports from one pass over the transactions.

use rayon::prelude::*;
use txanon_data::{ItemId, ItemIndex, TransactionDb};

/// Items up to which each thread counts its chunks of transactions into a triangle of its own
/// (32 MiB at 4096 items), the triangles then summed.
const PER_THREAD_MAX_ITEMS: usize = 4096;

/// Items beyond which pairs are never counted in a dense triangle: it would pass 2 GiB.
const DENSE_MAX_ITEMS: usize = 32_768;

/// Supports of every item and every pair of items that occur together, from the transactions
/// (`O(Σ|t|²)`, on the rayon pool), in one of two layouts: a dense triangle of counters, or
/// each item's row of the partners it occurs with (ascending) and their counts, only the pairs
/// that occur kept (8 bytes each). Up to 4,096 items each thread counts chunks of transactions
/// into a triangle of its own; up to 32,768, when the data has at least as many pair
/// occurrences as the triangle has cells, one triangle is counted by blocks of rows, a
/// streaming pass each; otherwise the partner rows are counted item by item.
#[derive(Debug, Clone)]
pub struct PairCounts {
    transactions: usize,
    supports: Vec<u32>,
    counts: PairStore,
}

/// How the pairs are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counting {
    /// Up to [`PER_THREAD_MAX_ITEMS`] items: chunks of transactions counted on the rayon pool,
    /// each into a dense triangle of its own, then summed.
    PerThread,
    /// Up to [`DENSE_MAX_ITEMS`] items, when the triangle has no more cells than the data has
    /// pair occurrences: one dense triangle whose rows are cut into blocks of equal work, each
    /// block counted on the rayon pool by one pass over the transactions. The passes stream
    /// the data, the counters a block writes are its own, and the rows of the items met most
    /// stay in cache.
    Blocks,
    /// Otherwise: partner rows, one item at a time from that item's transactions, items in
    /// parallel, in a scratch array of `m` counters.
    Partners,
}

#[derive(Debug, Clone)]
enum PairStore {
    Dense(Vec<u32>),
    Rows(PartnerRows),
}

/// Compressed rows: item `a`'s partners `b > a` are `partners[offsets[a]..offsets[a + 1]]`,
/// ascending, and `counts` beside them.
#[derive(Debug, Clone)]
struct PartnerRows {
    offsets: Vec<usize>,
    partners: Vec<ItemId>,
    counts: Vec<u32>,
}

/// Index of pair `(i, j)`, `i < j`, in the row-major upper triangle of an `m × m` matrix.
fn triangle_index(m: usize, i: usize, j: usize) -> usize {
    debug_assert!(i < j && j < m);
    i * (2 * m - i - 1) / 2 + (j - i - 1)
}

impl PairCounts {
    /// Counts `db`.
    pub fn new(db: &TransactionDb) -> Self {
        Self::counted(db, Counting::of(db))
    }

    /// Counts `db` the way `counting` says, whatever its size.
    pub(crate) fn counted(db: &TransactionDb, counting: Counting) -> Self {
        let counts = match counting {
            Counting::PerThread => PairStore::Dense(per_thread_triangles(db)),
            Counting::Blocks => PairStore::Dense(triangle_by_blocks(db)),
            Counting::Partners => PairStore::Rows(PartnerRows::new(db)),
        };
        Self { transactions: db.len(), supports: db.supports().to_vec(), counts }
    }

    /// True when every pair has a counter (the dense triangle): reading a pair is then as
    /// cheap as visiting the pairs that occur.
    pub(crate) fn is_dense(&self) -> bool {
        matches!(self.counts, PairStore::Dense(_))
    }

    /// Number of transactions counted.
    pub fn transactions(&self) -> usize {
        self.transactions
    }

    /// Number of items.
    pub fn items(&self) -> usize {
        self.supports.len()
    }

    /// Support of `item`.
    pub fn support(&self, item: ItemId) -> u32 {
        self.supports[item as usize]
    }

    /// Number of transactions containing both `a` and `b` (`a ≠ b`; order does not matter).
    pub fn pair(&self, a: ItemId, b: ItemId) -> u32 {
        let (i, j) = if a < b { (a, b) } else { (b, a) };
        assert!(i != j, "a pair needs two distinct items");
        match &self.counts {
            PairStore::Dense(c) => c[triangle_index(self.items(), i as usize, j as usize)],
            PairStore::Rows(rows) => {
                let (partners, counts) = rows.row(i);
                partners.binary_search(&j).map_or(0, |k| counts[k])
            }
        }
    }

    /// Calls `visit(b, count)` for every item `b > a` that occurs with `a`, ascending.
    pub fn for_partners(&self, a: ItemId, mut visit: impl FnMut(ItemId, u32)) {
        match &self.counts {
            PairStore::Dense(c) => {
                let (m, i) = (self.items(), a as usize);
                if i + 1 >= m {
                    return;
                }
                let start = triangle_index(m, i, i + 1);
                let row = &c[start..start + (m - i - 1)];
                for (k, &count) in row.iter().enumerate().filter(|&(_, &count)| count > 0) {
                    visit((i + 1 + k) as ItemId, count);
                }
            }
            PairStore::Rows(rows) => {
                let (partners, counts) = rows.row(a);
                partners.iter().zip(counts).for_each(|(&b, &count)| visit(b, count));
            }
        }
    }

    /// The anatomy paper's `φ²(a, b)` (eq. 4) from these counts.
    pub fn phi2(&self, a: ItemId, b: ItemId) -> f64 {
        let n = self.transactions.max(1) as f64;
        crate::phi::phi2_transaction(
            f64::from(self.support(a)) / n,
            f64::from(self.support(b)) / n,
            f64::from(self.pair(a, b)) / n,
        )
    }
}

impl Counting {
    /// The way [`PairCounts::new`] counts `db`.
    fn of(db: &TransactionDb) -> Self {
        let m = db.num_items();
        let cells = m * m.saturating_sub(1) / 2;
        if m <= PER_THREAD_MAX_ITEMS {
            Self::PerThread
        } else if m <= DENSE_MAX_ITEMS && {
            // Saturating: only the comparison with the cells matters.
            let occurrences = db
                .iter()
                .map(|t| t.len() * t.len().saturating_sub(1) / 2)
                .fold(0usize, usize::saturating_add);
            cells <= occurrences
        } {
            Self::Blocks
        } else {
            Self::Partners
        }
    }
}

/// The upper triangle of pair counts, chunks of transactions counted into a triangle each.
fn per_thread_triangles(db: &TransactionDb) -> Vec<u32> {
    let (m, n) = (db.num_items(), db.len());
    let len = m * m.saturating_sub(1) / 2;
    let chunk = n.div_ceil(rayon::current_num_threads() * 4).max(1024);
    let ranges: Vec<(usize, usize)> =
        (0..n).step_by(chunk).map(|s| (s, (s + chunk).min(n))).collect();
    ranges
        .par_iter()
        .map(|&(s, e)| {
            let mut c = vec![0u32; len];
            for t in (s..e).map(|i| db.transaction(i)) {
                for (k, &a) in t.iter().enumerate() {
                    let (a, row) = (a as usize, a as usize * (2 * m - a as usize - 1) / 2);
                    for &b in &t[k + 1..] {
                        c[row + (b as usize - a - 1)] += 1;
                    }
                }
            }
            c
        })
        .reduce_with(|mut x, y| {
            x.iter_mut().zip(&y).for_each(|(a, b)| *a += b);
            x
        })
        .unwrap_or_else(|| vec![0; len])
}

/// The upper triangle of pair counts, in blocks of rows of equal work, each block counted by
/// one pass over the transactions.
fn triangle_by_blocks(db: &TransactionDb) -> Vec<u32> {
    let m = db.num_items();
    // Row `a`'s work: the occurrences of pairs `(a, b > a)`.
    let mut work = vec![0usize; m];
    for t in db.iter() {
        for (k, &a) in t.iter().enumerate() {
            work[a as usize] += t.len() - k - 1;
        }
    }
    let per_block = work.iter().sum::<usize>().div_ceil(rayon::current_num_threads() * 4).max(1);
    let mut counts = vec![0u32; m * m.saturating_sub(1) / 2];
    // (first row, end row, their cells)
    let mut blocks: Vec<(usize, usize, &mut [u32])> = Vec::new();
    let mut rest = counts.as_mut_slice();
    let (mut first, mut block_work) = (0, 0);
    for (a, &row_work) in work.iter().enumerate().take(m.saturating_sub(1)) {
        block_work += row_work;
        if block_work >= per_block || a + 2 == m {
            let cells = (first..=a).map(|r| m - r - 1).sum();
            let (block, tail) = rest.split_at_mut(cells);
            blocks.push((first, a + 1, block));
            rest = tail;
            (first, block_work) = (a + 1, 0);
        }
    }
    blocks.into_par_iter().for_each(|(first, end, block)| {
        let base = triangle_index(m, first, first + 1);
        for t in db.iter() {
            for (k, &a) in t.iter().enumerate().skip(t.partition_point(|&a| (a as usize) < first)) {
                let a = a as usize;
                if a >= end {
                    break;
                }
                let row = triangle_index(m, a, a + 1) - base;
                for &b in &t[k + 1..] {
                    block[row + (b as usize - a - 1)] += 1;
                }
            }
        }
    });
    counts
}

impl PartnerRows {
    fn new(db: &TransactionDb) -> Self {
        let m = db.num_items();
        let index = ItemIndex::new(db);
        // Each row is counted in a scratch array of `m` counters, zeroed again as the row is
        // read out. A row with work for a good part of the array reads the array out whole; a
        // lighter row notes the partners as first met, so that the rows of a large universe
        // do not cost `m` each.
        let rows: Vec<(Vec<ItemId>, Vec<u32>)> = (0..m as ItemId)
            .into_par_iter()
            .map_init(
                || vec![0u32; m],
                |scratch, a| {
                    let suffixes = || {
                        index.transactions(a).iter().map(move |&t| {
                            let t = db.transaction(t as usize);
                            &t[t.partition_point(|&b| b <= a)..]
                        })
                    };
                    let work: usize = suffixes().map(<[ItemId]>::len).sum();
                    if work >= m / 4 {
                        for suffix in suffixes() {
                            for &b in suffix {
                                scratch[b as usize] += 1;
                            }
                        }
                        let mut row = (Vec::new(), Vec::new());
                        for (b, slot) in scratch.iter_mut().enumerate().skip(a as usize + 1) {
                            if *slot > 0 {
                                row.0.push(b as ItemId);
                                row.1.push(std::mem::take(slot));
                            }
                        }
                        return row;
                    }
                    let mut met: Vec<ItemId> = Vec::new();
                    for suffix in suffixes() {
                        for &b in suffix {
                            let slot = &mut scratch[b as usize];
                            if *slot == 0 {
                                met.push(b);
                            }
                            *slot += 1;
                        }
                    }
                    met.sort_unstable();
                    let counts = met.iter().map(|&b| std::mem::take(&mut scratch[b as usize]));
                    let counts = counts.collect();
                    (met, counts)
                },
            )
            .collect();
        let mut offsets = Vec::with_capacity(m + 1);
        offsets.push(0);
        let total: usize = rows.iter().map(|(p, _)| p.len()).sum();
        let (mut partners, mut counts) = (Vec::with_capacity(total), Vec::with_capacity(total));
        for (p, c) in rows {
            partners.extend_from_slice(&p);
            counts.extend_from_slice(&c);
            offsets.push(partners.len());
        }
        Self { offsets, partners, counts }
    }

    /// Item `a`'s partners above it, ascending, and the counts of the pairs.
    fn row(&self, a: ItemId) -> (&[ItemId], &[u32]) {
        let range = self.offsets[a as usize]..self.offsets[a as usize + 1];
        (&self.partners[range.clone()], &self.counts[range])
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::{prop, prop_assert_eq, proptest};

    use super::*;

    proptest! {
        /// Each way of counting against a count of each pair over the rows.
        #[test]
        fn both_layouts_count_every_pair(
            ts in prop::collection::vec(prop::collection::btree_set(0u32..40, 0..12), 1..60),
        ) {
            let rows: Vec<Vec<u32>> = ts.iter().map(|t| t.iter().copied().collect()).collect();
            let db = TransactionDb::from_int_transactions(rows);
            let m = db.num_items() as ItemId;
            let ways = [Counting::PerThread, Counting::Blocks, Counting::Partners];
            let ways = ways.map(|counting| PairCounts::counted(&db, counting));
            for a in 0..m {
                let mut partners = Vec::new();
                for b in a + 1..m {
                    let both =
                        db.iter().filter(|t| t.contains(&a) && t.contains(&b)).count() as u32;
                    for counts in &ways {
                        prop_assert_eq!(counts.pair(a, b), both);
                        prop_assert_eq!(counts.pair(b, a), both);
                    }
                    if both > 0 {
                        partners.push((b, both));
                    }
                }
                for counts in &ways {
                    let mut visited = Vec::new();
                    counts.for_partners(a, |b, both| visited.push((b, both)));
                    prop_assert_eq!(&visited, &partners);
                }
            }
        }
    }

    #[test]
    fn the_counting_follows_items_and_pair_occurrences() {
        let db = TransactionDb::from_int_transactions(vec![vec![1u32, 2], vec![3]]);
        assert_eq!(Counting::of(&db), Counting::PerThread);
        // 12,000 items seen once each: 72 million cells for one pair occurrence.
        let mut rows: Vec<Vec<u32>> = (0..12_000).map(|i| vec![i]).collect();
        rows.push(vec![0, 1]);
        assert_eq!(
            Counting::of(&TransactionDb::from_int_transactions(rows.clone())),
            Counting::Partners
        );
        // The same items in one long transaction too: as many occurrences as cells.
        rows.push((0..12_000).collect());
        assert_eq!(Counting::of(&TransactionDb::from_int_transactions(rows)), Counting::Blocks);
        // Beyond the dense bound, whatever the occurrences.
        let db = TransactionDb::from_int_transactions(vec![(0..40_000u32).collect::<Vec<_>>()]);
        assert_eq!(Counting::of(&db), Counting::Partners);
    }
}
