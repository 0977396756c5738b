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

        // Each transaction's frequent items as ascending codes, in blocks on rayon; empty rows
        // are dropped (they hold no itemset beyond the empty one).
        let blocks: Vec<Block> = (0..db.len().div_ceil(BLOCK))
            .into_par_iter()
            .map(|block| {
                let rows = block * BLOCK..db.len().min((block + 1) * BLOCK);
                let room = rows.clone().map(|r| db.transaction(r).len()).sum();
                let mut codes = Vec::with_capacity(room);
                let mut ends = Vec::with_capacity(rows.len());
                for r in rows {
                    let start = codes.len();
                    let t = db.transaction(r);
                    codes.extend(t.iter().map(|&i| code_of[i as usize]).filter(|&c| c != NONE));
                    if codes.len() > start {
                        codes[start..].sort_unstable();
                        ends.push(codes.len() as u32);
                    }
                }
                Block { codes, ends }
            })
            .collect();
        let order = lexicographic(&blocks, Prefix::new(frequent.len()));

        let mut offsets = Vec::with_capacity(order.len() + 1);
        offsets.push(0);
        let mut merged = Vec::with_capacity(blocks.iter().map(|b| b.codes.len()).sum());
        let mut weights: Vec<u32> = Vec::new();
        let mut previous: Option<&Row> = None;
        for row in &order {
            if previous.is_some_and(|p| p.same(row, &blocks)) {
                *weights.last_mut().expect("a previous transaction") += 1;
                continue;
            }
            merged.extend_from_slice(row.codes(&blocks));
            offsets.push(merged.len());
            weights.push(1);
            previous = Some(row);
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

/// One block's rows: their codes one after the other, and where each ends.
struct Block {
    codes: Vec<u32>,
    ends: Vec<u32>,
}

/// How a row's first codes make its sort key: each code plus one in `bits` bits from the top
/// (no digit zero, so a shorter row sorts first), as many as fit above the lowest bit, which
/// says whether the row goes on past them. Keys compare as the rows do, and equal keys without
/// that bit are equal rows: only rows sharing their first `digits` codes are read to be sorted.
#[derive(Debug, Clone, Copy)]
struct Prefix {
    bits: u32,
    digits: usize,
}

impl Prefix {
    /// For codes below `codes`.
    fn new(codes: usize) -> Self {
        Self::of_bits((u64::BITS - (codes as u64).leading_zeros()).max(1))
    }

    fn of_bits(bits: u32) -> Self {
        Prefix { bits, digits: (63 / bits) as usize }
    }

    fn key(self, row: &[u32]) -> u64 {
        let head = &row[..row.len().min(self.digits)];
        let key = head.iter().enumerate().fold(0u64, |key, (d, &c)| {
            key | (u64::from(c) + 1) << (64 - self.bits * (d as u32 + 1))
        });
        key | u64::from(row.len() > self.digits)
    }
}

/// A row of a block, by its sort key.
#[derive(Debug, Clone, Copy)]
struct Row {
    key: u64,
    block: u32,
    row: u32,
}

impl Row {
    fn codes<'b>(&self, blocks: &'b [Block]) -> &'b [u32] {
        let block = &blocks[self.block as usize];
        let row = self.row as usize;
        let start = if row == 0 { 0 } else { block.ends[row - 1] as usize };
        &block.codes[start..block.ends[row] as usize]
    }

    /// Whether the two rows hold the same codes, read only when their keys cannot tell.
    fn same(&self, other: &Row, blocks: &[Block]) -> bool {
        self.key == other.key && (self.key & 1 == 0 || self.codes(blocks) == other.codes(blocks))
    }
}

/// Every row of `blocks` in lexicographic order of its codes (equal rows in any order).
fn lexicographic(blocks: &[Block], prefix: Prefix) -> Vec<Row> {
    let mut order: Vec<Row> = blocks
        .par_iter()
        .enumerate()
        .flat_map_iter(|(b, block)| {
            let mut start = 0;
            block.ends.iter().enumerate().map(move |(r, &end)| {
                let key = prefix.key(&block.codes[start as usize..end as usize]);
                start = end;
                Row { key, block: b as u32, row: r as u32 }
            })
        })
        .collect();
    // Keys first; the codes are read only for rows that share a key and go on past it.
    order.par_sort_unstable_by(|a, b| {
        a.key.cmp(&b.key).then_with(|| {
            if a.key & 1 == 0 {
                std::cmp::Ordering::Equal
            } else {
                a.codes(blocks)[prefix.digits..].cmp(&b.codes(blocks)[prefix.digits..])
            }
        })
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The order by keys is the order of the rows' codes, and equal rows are told apart
        /// from rows that differ, with keys of two codes, of three and of many: rows share
        /// their first codes often (codes below 6) and run past the key.
        #[test]
        fn rows_sort_as_their_codes(
            rows in prop::collection::vec(prop::collection::btree_set(0u32..6, 1..7), 1..80),
            bits in prop_oneof![Just(31u32), Just(21), Just(3)],
            per_block in 1usize..30,
        ) {
            let rows: Vec<Vec<u32>> = rows.into_iter().map(|r| r.into_iter().collect()).collect();
            let blocks: Vec<Block> = rows
                .chunks(per_block)
                .map(|chunk| {
                    let codes: Vec<u32> = chunk.concat();
                    let ends = chunk
                        .iter()
                        .scan(0u32, |end, r| {
                            *end += r.len() as u32;
                            Some(*end)
                        })
                        .collect();
                    Block { codes, ends }
                })
                .collect();
            let order = lexicographic(&blocks, Prefix::of_bits(bits));
            let found: Vec<&[u32]> = order.iter().map(|r| r.codes(&blocks)).collect();
            let mut expected: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
            expected.sort_unstable();
            prop_assert_eq!(&found, &expected);
            for pair in order.windows(2) {
                prop_assert_eq!(
                    pair[0].same(&pair[1], &blocks),
                    pair[0].codes(&blocks) == pair[1].codes(&blocks)
                );
            }
        }
    }
}
