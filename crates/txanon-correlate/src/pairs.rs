//! Item and item-pair supports from one pass over the transactions.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use txanon_data::{ItemId, TransactionDb};

/// Above this many items pair counts go to a hash map: a dense triangle would take
/// `m²/2 · 4` bytes per thread (32 MiB at 4096 items).
const DENSE_MAX_ITEMS: usize = 4096;

/// Supports of every item and every pair of items that occur together, from one pass over the
/// transactions (`O(Σ|t|²)`): chunks of transactions are counted on the rayon pool, each chunk
/// into its own counters, then summed. Small universes use a dense triangle of counters, large
/// ones a hash map holding only the pairs that occur.
#[derive(Debug, Clone)]
pub struct PairCounts {
    transactions: usize,
    supports: Vec<u32>,
    counts: PairStore,
}

#[derive(Debug, Clone)]
enum PairStore {
    Dense(Vec<u32>),
    Sparse(FxHashMap<u64, u32>),
}

/// Index of pair `(i, j)`, `i < j`, in the row-major upper triangle of an `m × m` matrix.
fn triangle_index(m: usize, i: usize, j: usize) -> usize {
    debug_assert!(i < j && j < m);
    i * (2 * m - i - 1) / 2 + (j - i - 1)
}

impl PairCounts {
    /// Counts `db`.
    pub fn new(db: &TransactionDb) -> Self {
        let m = db.num_items();
        let n = db.len();
        let chunk = n.div_ceil(rayon::current_num_threads() * 4).max(1024);
        let ranges: Vec<(usize, usize)> =
            (0..n).step_by(chunk).map(|s| (s, (s + chunk).min(n))).collect();
        let counts = if m <= DENSE_MAX_ITEMS {
            let len = m * m.saturating_sub(1) / 2;
            let summed = ranges
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
                .unwrap_or_else(|| vec![0; len]);
            PairStore::Dense(summed)
        } else {
            let summed = ranges
                .par_iter()
                .map(|&(s, e)| {
                    let mut c: FxHashMap<u64, u32> = FxHashMap::default();
                    for t in (s..e).map(|i| db.transaction(i)) {
                        for (k, &a) in t.iter().enumerate() {
                            for &b in &t[k + 1..] {
                                *c.entry(u64::from(a) << 32 | u64::from(b)).or_default() += 1;
                            }
                        }
                    }
                    c
                })
                .reduce_with(|mut x, y| {
                    for (k, v) in y {
                        *x.entry(k).or_default() += v;
                    }
                    x
                })
                .unwrap_or_default();
            PairStore::Sparse(summed)
        };
        Self { transactions: n, supports: db.supports().to_vec(), counts }
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
            PairStore::Sparse(c) => {
                c.get(&(u64::from(i) << 32 | u64::from(j))).copied().unwrap_or(0)
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
