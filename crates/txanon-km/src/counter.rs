//! A worker's counters for one count-tree branch: dense pair and triple tables, column
//! bitsets for the long rows' triples, a hash table for the rest.

use rustc_hash::FxHashMap;

use crate::combinations::each_combination_from;
use crate::rows::PackedRows;

/// When a branch counts its 3-itemsets in a dense table: at most 16 MiB of `u32` cells, and
/// no more cells than four times the branch's pairs of ranks (zeroing and scanning a sparse
/// table would cost more than hashing).
pub(crate) const TRIPLE_TABLE: TripleTable = TripleTable {
    max_cells: 1 << 22,
    cells_per_pair: 4,
    bitset_rows: Some(BitsetRows { min_len: 16, width_share: 6, increments_per_word: 1 }),
};

#[derive(Debug, Clone, Copy)]
pub(crate) struct TripleTable {
    pub(crate) max_cells: usize,
    pub(crate) cells_per_pair: u64,
    /// Which rows a dense table counts through column bitsets (`None`: none).
    pub(crate) bitset_rows: Option<BitsetRows>,
}

/// The rows of a branch whose triples are counted as a Gram matrix of column bitsets (the
/// popcount of each pair of columns' AND) rather than an increment per triple: those of
/// weight one whose tail after the branch's rank holds at least `min_len` ranks and a
/// `width_share`-th of the branch's columns. A long row costs `L²/2` increments, and all of
/// them together `D²/2` words per 64 rows over their `D` columns: in kosarak-shaped 10⁷
/// transactions' publication the rows of 40 items or more (of 314) are 5.5% of the distinct
/// rows and hold 93% of the triples. The branch takes the bitsets only when the increments
/// they save are at least `increments_per_word` times the words the Gram reads
/// (docs/PERFORMANCE.md, km, has the sweep behind the rule).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BitsetRows {
    pub(crate) min_len: usize,
    pub(crate) width_share: usize,
    pub(crate) increments_per_word: u64,
}

/// A worker's counters for one count-tree branch at a time: dense arrays over the ranks that
/// occur after the branch's rank where they fit (an addition each, in the caches), a hash
/// table for the rest.
pub(crate) struct BranchCounter {
    /// Per rank, its column in this branch (`u32::MAX` when absent); reset after each branch.
    pub(crate) column: Vec<u32>,
    /// The ranks of the columns.
    pub(crate) ranks: Vec<u32>,
    pub(crate) pairs: Vec<u32>,
    pub(crate) triples: Vec<u32>,
    /// Per column, its line of [`BranchCounter::bitsets`] (`u32::MAX`: none).
    pub(crate) bitset_line: Vec<u32>,
    /// Per bitset line, its column.
    pub(crate) bitset_columns: Vec<u32>,
    /// Per bitset line, `bitset_words` words: bit `j` is whether the `j`-th bitset row holds
    /// the line's column ([`BitsetRows`]).
    pub(crate) bitsets: Vec<u64>,
    pub(crate) bitset_words: usize,
    /// The branch's rows from its rank on.
    pub(crate) local: PackedRows,
    pub(crate) triple_table: TripleTable,
}

impl BranchCounter {
    pub(crate) fn new(ranks: usize, triple_table: TripleTable) -> Self {
        Self {
            triple_table,
            column: vec![u32::MAX; ranks],
            ranks: Vec::new(),
            pairs: Vec::new(),
            triples: Vec::new(),
            bitset_line: Vec::new(),
            bitset_columns: Vec::new(),
            bitsets: Vec::new(),
            bitset_words: 0,
            local: PackedRows::default(),
        }
    }

    /// The keys of the itemsets of `sizes` items with smallest rank `a`, held by `holding`
    /// (rows of `rows` holding `a`) in fewer than `k` transactions, ascending.
    pub(crate) fn rare(
        &mut self,
        a: u32,
        holding: &[u32],
        rows: &PackedRows,
        sizes: std::ops::RangeInclusive<usize>,
        k: u32,
    ) -> Vec<u128> {
        let mut found = Vec::new();
        self.each_count(a, holding, rows, sizes, |key, count| {
            if count < k {
                found.push(key);
            }
        });
        found.sort_unstable();
        found
    }

    /// Every itemset of `sizes` items with smallest rank `a` that `holding` (rows of `rows`
    /// holding `a`) holds, with its support capped at `k`, ascending by key: a shard's answer
    /// to a count of the union ([`crate::sharded`]), where an itemset frequent here makes it
    /// frequent there.
    pub(crate) fn capped(
        &mut self,
        a: u32,
        holding: &[u32],
        rows: &PackedRows,
        sizes: std::ops::RangeInclusive<usize>,
        k: u32,
    ) -> Vec<(u128, u32)> {
        let mut found = Vec::new();
        self.each_count(a, holding, rows, sizes, |key, count| found.push((key, count.min(k))));
        found.sort_unstable_by_key(|&(key, _)| key);
        found
    }

    /// Calls `emit` with the key and support of each itemset of `sizes` items with smallest
    /// rank `a` that `holding` holds, in no order.
    ///
    /// Long as one function: a branch's hot loop over its rows, pairs, triples and bitsets; apart,
    /// its tables would be borrowed anew per row.
    fn each_count(
        &mut self,
        a: u32,
        holding: &[u32],
        rows: &PackedRows,
        sizes: std::ops::RangeInclusive<usize>,
        mut emit: impl FnMut(u128, u32),
    ) {
        if *sizes.end() <= 2 {
            return self.each_pair_count(a, holding, rows, sizes, emit);
        }
        // The branch's rows from `a` on, copied out in one pass (a fetch each): the counting
        // below reads them twice more.
        self.ranks.clear();
        self.local.words.clear();
        let mut pair_work = 0u64;
        for (after, w) in rows.tails(holding) {
            pair_work += (after.len() * after.len()) as u64;
            for &r in after {
                if self.column[r as usize] == u32::MAX {
                    self.column[r as usize] = self.ranks.len() as u32;
                    self.ranks.push(r);
                }
            }
            self.local.words.push(a);
            self.local.push(after, w);
        }
        let width = self.ranks.len();
        let cells = width.saturating_mul(width);
        let dense_triples = sizes.contains(&3)
            && cells <= self.triple_table.max_cells
            && cells as u64 <= pair_work.saturating_mul(self.triple_table.cells_per_pair);
        let single = u128::from(a + 1) << 96;
        let mut alone = 0u32;
        self.pairs.clear();
        self.pairs.resize(width, 0);
        self.triples.clear();
        if dense_triples {
            self.triples.resize(width * width, 0);
        }
        // A hash table per branch: clearing a worker's would cost its largest capacity for
        // every branch.
        let mut hashed = FxHashMap::<u128, u32>::default();
        let hashed_sizes: Vec<usize> =
            sizes.clone().filter(|&s| s == 4 || (s == 3 && !dense_triples)).collect();
        let local = std::mem::take(&mut self.local);
        let bitset_len = if dense_triples { self.bitset_rows_len(&local) } else { None };
        let is_bitset_row =
            |after: &[u32], w: u32| bitset_len.is_some_and(|min| w == 1 && after.len() >= min);
        // A row's columns, looked up once: the triples' loop is quadratic in the row.
        let mut columns: Vec<u32> = Vec::new();
        let mut bitset_row = 0usize;
        for (from_a, w) in local.iter() {
            let after = &from_a[1..];
            alone += w;
            columns.clear();
            columns.extend(after.iter().map(|&r| self.column[r as usize]));
            if is_bitset_row(after, w) {
                // Its triples are added from the bitsets below.
                let (word, bit) = (bitset_row / 64, 1u64 << (bitset_row % 64));
                for &cb in &columns {
                    self.pairs[cb as usize] += w;
                    let line = self.bitset_line[cb as usize] as usize;
                    self.bitsets[line * self.bitset_words + word] |= bit;
                }
                bitset_row += 1;
            } else {
                for (x, &cb) in columns.iter().enumerate() {
                    let cb = cb as usize;
                    self.pairs[cb] += w;
                    if dense_triples {
                        let line = &mut self.triples[cb * width..(cb + 1) * width];
                        for &cc in &columns[x + 1..] {
                            line[cc as usize] += w;
                        }
                    }
                }
            }
            for &size in &hashed_sizes {
                each_combination_from(from_a, size, |key| {
                    *hashed.entry(key).or_insert(0) += w;
                });
            }
        }
        self.local = local;
        if bitset_row > 0 {
            self.add_bitset_triples();
        }
        self.each_single_and_pair_count(a, alone, &sizes, &mut emit);
        if dense_triples {
            for (cell, &count) in self.triples.iter().enumerate() {
                if count > 0 {
                    let (b, c) = (self.ranks[cell / width], self.ranks[cell % width]);
                    emit(single | u128::from(b + 1) << 64 | u128::from(c + 1) << 32, count);
                }
            }
        }
        for (&key, &count) in &hashed {
            emit(key, count);
        }
        self.release_columns();
    }

    /// Emits `a` alone (counted `alone` times) and `a` with each column's rank (in `pairs`)
    /// when `sizes` asks for them and they occur.
    fn each_single_and_pair_count(
        &self,
        a: u32,
        alone: u32,
        sizes: &std::ops::RangeInclusive<usize>,
        emit: &mut impl FnMut(u128, u32),
    ) {
        let single = u128::from(a + 1) << 96;
        if sizes.contains(&1) && alone > 0 {
            emit(single, alone);
        }
        if sizes.contains(&2) {
            for (&b, &count) in self.ranks.iter().zip(&self.pairs) {
                if count > 0 {
                    emit(single | u128::from(b + 1) << 64, count);
                }
            }
        }
    }

    /// Leaves `column` as it was found: no rank has a column.
    pub(crate) fn release_columns(&mut self) {
        for &r in &self.ranks {
            self.column[r as usize] = u32::MAX;
        }
    }

    /// The least tail length of the branch's rows (in `local`, the columns assigned) counted
    /// through bitsets ([`BitsetRows`]), with the bitsets set up for them, zero; `None` when
    /// none is, or they would cost more than their increments.
    pub(crate) fn bitset_rows_len(&mut self, local: &PackedRows) -> Option<usize> {
        let rule = self.triple_table.bitset_rows?;
        let width = self.ranks.len();
        let min_len = rule.min_len.max(width / rule.width_share.max(1));
        self.bitset_line.clear();
        self.bitset_line.resize(width, u32::MAX);
        self.bitset_columns.clear();
        let (mut rows, mut increments) = (0u64, 0u64);
        for (from_a, w) in local.iter() {
            let after = &from_a[1..];
            if w != 1 || after.len() < min_len {
                continue;
            }
            rows += 1;
            let len = after.len() as u64;
            increments += len * len.saturating_sub(1) / 2;
            for &r in after {
                let cb = self.column[r as usize] as usize;
                if self.bitset_line[cb] == u32::MAX {
                    self.bitset_line[cb] = self.bitset_columns.len() as u32;
                    self.bitset_columns.push(cb as u32);
                }
            }
        }
        let lines = self.bitset_columns.len() as u64;
        let words = rows.div_ceil(64);
        let gram_words = lines * lines.saturating_sub(1) / 2 * words * 2;
        if rows == 0 || increments < gram_words.saturating_mul(rule.increments_per_word) {
            return None;
        }
        self.bitset_words = words as usize;
        self.bitsets.clear();
        self.bitsets.resize(self.bitset_columns.len() * self.bitset_words, 0);
        Some(min_len)
    }

    /// Adds to the triple table the pairs' counts among the bitset rows: per pair of bitset
    /// lines the popcount of their AND, in blocks of words that stay in the caches.
    pub(crate) fn add_bitset_triples(&mut self) {
        const BLOCK: usize = 256;
        let (width, words) = (self.ranks.len(), self.bitset_words);
        let lines = self.bitset_columns.len();
        let mut from = 0;
        while from < words {
            let to = words.min(from + BLOCK);
            for x in 0..lines {
                let bx = &self.bitsets[x * words + from..x * words + to];
                let cx = self.bitset_columns[x] as usize;
                for y in x + 1..lines {
                    let by = &self.bitsets[y * words + from..y * words + to];
                    let count: u32 = bx.iter().zip(by).map(|(p, q)| (p & q).count_ones()).sum();
                    if count > 0 {
                        let cy = self.bitset_columns[y] as usize;
                        // The cell's line is the column of the smaller rank.
                        let cell = if self.ranks[cx] < self.ranks[cy] {
                            cx * width + cy
                        } else {
                            cy * width + cx
                        };
                        self.triples[cell] += count;
                    }
                }
            }
            from = to;
        }
    }

    /// [`BranchCounter::each_count`] for itemsets of at most two items: the rows are read once,
    /// so they are counted where they lie, not copied out first.
    fn each_pair_count(
        &mut self,
        a: u32,
        holding: &[u32],
        rows: &PackedRows,
        sizes: std::ops::RangeInclusive<usize>,
        mut emit: impl FnMut(u128, u32),
    ) {
        self.ranks.clear();
        self.pairs.clear();
        let mut alone = 0u32;
        for (after, w) in rows.tails(holding) {
            for &r in after {
                let column = &mut self.column[r as usize];
                if *column == u32::MAX {
                    *column = self.ranks.len() as u32;
                    self.ranks.push(r);
                    self.pairs.push(0);
                }
                self.pairs[*column as usize] += w;
            }
            alone += w;
        }
        self.each_single_and_pair_count(a, alone, &sizes, &mut emit);
        self.release_columns();
    }
}
