//! The frequent items of a database, recoded densely by descending support, and the database
//! reduced to them: what every miner starts from.

use rayon::prelude::*;
use txanon_data::{ItemId, TransactionDb};

/// Transactions recoded per rayon task: enough to amortize a task, few enough to share out.
const BLOCK: usize = 16_384;

/// The database restricted to its frequent items, recoded: code 0 is the most frequent item
/// (ties broken by item id, so the coding is deterministic). Transactions are sorted ascending
/// by code, identical ones merged into one with a weight, and the list sorted lexicographically.
#[derive(Debug, Clone)]
pub(crate) struct RecodedDb {
    /// Number of transactions of the original database (the support of the empty itemset).
    pub transactions: u32,
    /// Code → database item id.
    pub decode: Vec<ItemId>,
    /// Support of each code.
    pub supports: Vec<u32>,
    /// Items present in every transaction, when they were split off (`split_universal`); they
    /// are perfect extensions of the empty itemset.
    pub universal: Vec<ItemId>,
    pub offsets: Vec<usize>,
    pub codes: Vec<u32>,
    pub weights: Vec<u32>,
}

impl RecodedDb {
    /// Recodes `db` keeping the items of support at least `min_count`; with `split_universal`
    /// the items present in every transaction go to [`universal`](Self::universal) instead.
    pub fn new(db: &TransactionDb, min_count: u32, split_universal: bool) -> Self {
        let n = u32::try_from(db.len()).expect("more than 2^32 transactions");
        let supports = db.supports();
        let mut universal = Vec::new();
        let mut frequent: Vec<ItemId> = Vec::new();
        for (item, &s) in supports.iter().enumerate() {
            if s >= min_count {
                if split_universal && s == n {
                    universal.push(item as ItemId);
                } else {
                    frequent.push(item as ItemId);
                }
            }
        }
        frequent.sort_unstable_by(|&a, &b| {
            supports[b as usize].cmp(&supports[a as usize]).then(a.cmp(&b))
        });
        const NONE: u32 = u32::MAX;
        let mut code_of = vec![NONE; supports.len()];
        for (code, &item) in frequent.iter().enumerate() {
            code_of[item as usize] = code as u32;
        }

        // Each transaction's frequent items as ascending codes, in blocks on rayon joined in
        // order; empty rows are dropped (they hold no itemset beyond the empty one).
        let blocks: Vec<(Vec<u32>, Vec<usize>)> = (0..db.len().div_ceil(BLOCK))
            .into_par_iter()
            .map(|block| {
                let rows = block * BLOCK..db.len().min((block + 1) * BLOCK);
                let mut codes = Vec::new();
                let mut ends = Vec::with_capacity(rows.len());
                for r in rows {
                    let start = codes.len();
                    let t = db.transaction(r);
                    codes.extend(t.iter().map(|&i| code_of[i as usize]).filter(|&c| c != NONE));
                    if codes.len() > start {
                        codes[start..].sort_unstable();
                        ends.push(codes.len());
                    }
                }
                (codes, ends)
            })
            .collect();
        let mut codes = Vec::with_capacity(blocks.iter().map(|b| b.0.len()).sum());
        let mut starts = Vec::with_capacity(blocks.iter().map(|b| b.1.len()).sum());
        for (block_codes, ends) in blocks {
            let base = codes.len();
            let mut start = base;
            for end in ends {
                starts.push((start, base + end));
                start = base + end;
            }
            codes.extend_from_slice(&block_codes);
        }
        // Compared as code slices: prefix keys (`lexicographic_order_by`) tie throughout on
        // dense data, whose rows share their most frequent items (connect: twice the time).
        starts.par_sort_unstable_by(|a, b| codes[a.0..a.1].cmp(&codes[b.0..b.1]));

        let mut offsets = vec![0];
        let mut merged = Vec::with_capacity(codes.len());
        let mut weights: Vec<u32> = Vec::new();
        let mut previous: Option<(usize, usize)> = None;
        for &(s, e) in &starts {
            if previous.is_some_and(|(ps, pe)| codes[ps..pe] == codes[s..e]) {
                *weights.last_mut().expect("a previous transaction") += 1;
                continue;
            }
            merged.extend_from_slice(&codes[s..e]);
            offsets.push(merged.len());
            weights.push(1);
            previous = Some((s, e));
        }
        let supports = frequent.iter().map(|&i| supports[i as usize]).collect();
        Self {
            transactions: n,
            decode: frequent,
            supports,
            universal,
            offsets,
            codes: merged,
            weights,
        }
    }

    /// Number of distinct (merged) transactions.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Distinct transaction `i` (codes ascending) and how many transactions it stands for.
    pub fn get(&self, i: usize) -> (&[u32], u32) {
        (&self.codes[self.offsets[i]..self.offsets[i + 1]], self.weights[i])
    }

    /// The length of the longest transaction.
    pub fn max_len(&self) -> usize {
        self.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    }
}
