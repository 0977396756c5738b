//! Occurring public itemsets of at most three items, counted per item from co-occurrence
//! bitsets: the fast path of [`Engine::Counting`](crate::Engine::Counting) for `p ≤ 3`.

use rayon::prelude::*;

use crate::working::Working;

/// Largest bitset memory used (`n` transactions × `⌈P/64⌉` words); beyond it, FP-Growth counts.
pub(crate) const BITSET_BYTES: usize = 256 << 20;

/// `x.pipe(f) = f(x)`, to finish a fold.
trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}

impl<T> Pipe for T {}

/// Each transaction's current public items as a bitset.
#[derive(Debug)]
pub(crate) struct Bitsets {
    words: usize,
    bits: Vec<u64>,
}

impl Bitsets {
    /// The bitsets of `w` for itemsets of at most `p` items, or `None` when they would take
    /// more than [`BITSET_BYTES`]. For `p ≤ 2` no bitset is needed (an item's neighbours are
    /// enough) and none is built.
    pub fn new(w: &Working, p: usize) -> Option<Self> {
        if p <= 2 {
            return Some(Self { words: 0, bits: Vec::new() });
        }
        let words = w.public_items().div_ceil(64).max(1);
        if w.public.len().saturating_mul(words).saturating_mul(8) > BITSET_BYTES {
            return None;
        }
        let mut bits = vec![0u64; w.public.len() * words];
        for (t, items) in w.public.iter().enumerate() {
            for &i in items {
                bits[t * words + i as usize / 64] |= 1 << (i % 64);
            }
        }
        Some(Self { words, bits })
    }

    fn row(&self, t: u32) -> &[u64] {
        &self.bits[t as usize * self.words..(t as usize + 1) * self.words]
    }

    /// Clears item `v` from every transaction that held it.
    pub fn suppress(&mut self, w: &Working, v: u32) {
        if self.words == 0 {
            return;
        }
        for &t in &w.tids[v as usize] {
            self.bits[t as usize * self.words + v as usize / 64] &= !(1 << (v % 64));
        }
    }

    /// For `anchor`'s current transactions: per co-occurring item `w`, the OR of the
    /// transactions holding both (`acc[w]`), and the items touched. `acc` is `P × words`,
    /// zero on entry for the touched items' rows.
    fn neighbourhoods(&self, w: &Working, anchor: u32, acc: &mut [u64], touched: &mut Vec<u32>) {
        touched.clear();
        for &t in &w.tids[anchor as usize] {
            let items = &w.public[t as usize];
            if items.binary_search(&anchor).is_err() {
                continue;
            }
            let row = self.row(t);
            for &x in items {
                if x == anchor {
                    continue;
                }
                let slot = &mut acc[x as usize * self.words..(x as usize + 1) * self.words];
                if slot.iter().all(|&b| b == 0) {
                    touched.push(x);
                }
                for (a, b) in slot.iter_mut().zip(row) {
                    *a |= b;
                }
            }
        }
    }

    /// The items co-occurring with `anchor` in its current transactions, into `touched`;
    /// `mark` is all false on entry and on return.
    fn neighbours(w: &Working, anchor: u32, mark: &mut [bool], touched: &mut Vec<u32>) {
        touched.clear();
        for &t in &w.tids[anchor as usize] {
            let items = &w.public[t as usize];
            if items.binary_search(&anchor).is_err() {
                continue;
            }
            for &x in items {
                if x != anchor && !mark[x as usize] {
                    mark[x as usize] = true;
                    touched.push(x);
                }
            }
        }
        for &x in touched.iter() {
            mark[x as usize] = false;
        }
    }

    /// Per public item `u`, the occurring public itemsets of length `1..=p` (`p ≤ 3`) holding
    /// it: `{u}`, `{u, w}` for each co-occurring `w`, and `{u, w, x}` for each pair of items
    /// co-occurring with `u` in one transaction; the last are counted from the OR of the
    /// transactions holding `u` and `w`, each pair twice (once from each of its items).
    ///
    /// Also returns the number of occurring itemsets in all: each pair is seen from its two
    /// items, each triple from its three.
    ///
    /// # Complexity
    /// `O(Σ_t |t|² · ⌈P/64⌉)` word operations, rayon over items; `P · ⌈P/64⌉` words per worker.
    pub fn occurring(&self, w: &Working, p: usize) -> (Vec<u128>, u128) {
        if p <= 2 {
            let per_item: Vec<(u128, u128)> = (0..w.public_items() as u32)
                .into_par_iter()
                .map_init(
                    || (vec![false; w.public_items()], Vec::new()),
                    |(mark, touched), u| {
                        if p < 2 {
                            return (1, 0);
                        }
                        Self::neighbours(w, u, mark, touched);
                        (1 + touched.len() as u128, touched.len() as u128)
                    },
                )
                .collect();
            let pairs: u128 = per_item.iter().map(|&(_, n)| n).sum();
            return (
                per_item.iter().map(|&(c, _)| c).collect(),
                per_item.len() as u128 + pairs / 2,
            );
        }
        (0..w.public_items() as u32)
            .into_par_iter()
            .map_init(
                || (vec![0u64; w.public_items() * self.words], Vec::new()),
                |(acc, touched), u| {
                    self.neighbourhoods(w, u, acc, touched);
                    let mut count = 1u128 + if p >= 2 { touched.len() as u128 } else { 0 };
                    let mut twice = 0u128;
                    for &x in touched.iter() {
                        let slot = &mut acc[x as usize * self.words..(x as usize + 1) * self.words];
                        // The OR holds u and x themselves.
                        twice += slot.iter().map(|b| b.count_ones() as u128).sum::<u128>() - 2;
                        slot.iter_mut().for_each(|b| *b = 0);
                    }
                    if p >= 3 {
                        count += twice / 2;
                    }
                    (count, touched.len() as u128, twice / 2)
                },
            )
            .collect::<Vec<_>>()
            .into_iter()
            .fold(
                (Vec::new(), [0u128; 3]),
                |(mut per_item, mut by_len), (count, pairs, triples)| {
                    per_item.push(count);
                    by_len[0] += 1;
                    by_len[1] += pairs;
                    by_len[2] += triples;
                    (per_item, by_len)
                },
            )
            .pipe(|(per_item, by_len)| {
                let total = by_len[0]
                    + if p >= 2 { by_len[1] / 2 } else { 0 }
                    + if p >= 3 { by_len[2] / 3 } else { 0 };
                (per_item, total)
            })
    }

    /// Per public item `u ≠ v`, the occurring public itemsets of length `1..=p` (`p ≤ 3`)
    /// holding both `v` and `u`: `{v, u}` and `{v, u, x}` for each `x` co-occurring with both.
    pub fn with(&self, w: &Working, v: u32, p: usize) -> Vec<u128> {
        let mut out = vec![0u128; w.public_items()];
        if p < 2 {
            return out;
        }
        if p == 2 {
            let mut touched = Vec::new();
            Self::neighbours(w, v, &mut vec![false; w.public_items()], &mut touched);
            for &u in &touched {
                out[u as usize] = 1;
            }
            return out;
        }
        let mut acc = vec![0u64; w.public_items() * self.words];
        let mut touched = Vec::new();
        self.neighbourhoods(w, v, &mut acc, &mut touched);
        for &u in &touched {
            let slot = &mut acc[u as usize * self.words..(u as usize + 1) * self.words];
            let triples = slot.iter().map(|b| b.count_ones() as u128).sum::<u128>() - 2;
            out[u as usize] = 1 + if p >= 3 { triples } else { 0 };
            slot.iter_mut().for_each(|b| *b = 0);
        }
        out
    }
}
