//! Occurring public itemsets of at most three items per item, the fast path of
//! [`Engine::Counting`](crate::Engine::Counting) for `p ≤ 3`: pairs from co-occurrence
//! bitsets, itemsets up to triples once each from each item's projection
//! ([`occurring_up_to_triples`]), and a suppression's losses from the bitsets.

use rayon::prelude::*;
use txanon_data::progress::{Progress, Unit};

use crate::projection::{PROJECTION_LIMIT, Projection};
use crate::working::Working;

/// Largest bitset memory used (`n` transactions × `⌈P/64⌉` words); beyond it, FP-Growth counts.
pub(crate) const BITSET_BYTES: usize = 256 << 20;

/// For `p = 3`, each transaction's current public items as a bitset (or, when those do not fit,
/// nothing: the items are read from the transactions); for `p = 2`, which items co-occur.
#[derive(Debug)]
pub(crate) struct Bitsets {
    /// Words of one item set (`⌈P/64⌉`), 0 for `p ≤ 2`.
    words: usize,
    /// Per transaction, its items (`words` words each), when they fit in [`BITSET_BYTES`].
    bits: Option<Vec<u64>>,
    /// For `p = 2` when it fits: per public item, the items it shares a transaction with
    /// (`P × ⌈P/64⌉` words). Suppressing an item removes it from transactions but never
    /// separates two others, so this stays true of the items still public.
    pairs: Option<Pairs>,
}

/// The co-occurrence of public items, and which are still public.
#[derive(Debug)]
struct Pairs {
    words: usize,
    together: Vec<u64>,
    alive: Vec<u64>,
}

impl Pairs {
    /// One pass over the transactions (the transactions cut into one share per thread, each
    /// share setting the bits into its own matrix, the matrices OR-ed: at most one matrix per
    /// thread, where a `fold` made one per split), or `None` beyond [`BITSET_BYTES`].
    fn new(w: &Working) -> Option<Self> {
        let items = w.public_items();
        let words = items.div_ceil(64).max(1);
        if items.saturating_mul(words).saturating_mul(8) > BITSET_BYTES {
            return None;
        }
        let share = w.public.len().div_ceil(rayon::current_num_threads()).max(1);
        let together = w
            .public
            .par_chunks(share)
            .map(|transactions| {
                let mut m = vec![0u64; items * words];
                for t in transactions {
                    for (j, &a) in t.iter().enumerate() {
                        for &b in &t[j + 1..] {
                            m[a as usize * words + b as usize / 64] |= 1 << (b % 64);
                            m[b as usize * words + a as usize / 64] |= 1 << (a % 64);
                        }
                    }
                }
                m
            })
            .reduce_with(|mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x |= y);
                a
            })
            .unwrap_or_else(|| vec![0u64; items * words]);
        let mut alive = vec![u64::MAX; words];
        for i in items..words * 64 {
            alive[i / 64] &= !(1 << (i % 64));
        }
        Some(Self { words, together, alive })
    }

    /// The items still public that share a transaction with `u`, ascending.
    fn neighbours(&self, u: u32) -> impl Iterator<Item = u32> + '_ {
        let row = &self.together[u as usize * self.words..(u as usize + 1) * self.words];
        row.iter().zip(&self.alive).enumerate().flat_map(|(j, (&r, &a))| {
            let mut bits = r & a;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    j as u32 * 64 + b
                })
            })
        })
    }
}

impl Bitsets {
    /// The bitsets of `w` for itemsets of at most `p ≤ 3` items, or `None` when one item's
    /// neighbourhood matrix (`P × ⌈P/64⌉` words, per worker) would take more than
    /// [`BITSET_BYTES`]. For `p ≤ 2` no transaction bitset is needed (an item's neighbours are
    /// enough): for `p = 2` the co-occurrence matrix is built when it fits, else each item's
    /// neighbours are found from its transactions when asked. For `p = 3` the transactions'
    /// bitsets are built when they fit (a million transactions of 2,000 items do not), else the
    /// neighbourhoods are set item by item from the transactions.
    pub fn new(w: &Working, p: usize) -> Option<Self> {
        if p <= 2 {
            let pairs = if p == 2 { Pairs::new(w) } else { None };
            return Some(Self { words: 0, bits: None, pairs });
        }
        let words = w.public_items().div_ceil(64).max(1);
        if w.public_items().saturating_mul(words).saturating_mul(8) > BITSET_BYTES {
            return None;
        }
        if w.public.len().saturating_mul(words).saturating_mul(8) > BITSET_BYTES {
            return Some(Self { words, bits: None, pairs: None });
        }
        let mut bits = vec![0u64; w.public.len() * words];
        for (t, items) in w.public.iter().enumerate() {
            for &i in items {
                bits[t * words + i as usize / 64] |= 1 << (i % 64);
            }
        }
        Some(Self { words, bits: Some(bits), pairs: None })
    }

    /// Whether [`with`](Self::with) reads the transactions' items for `p` ([`suppress`]
    /// (Self::suppress) never does): all but the co-occurrence matrix's `p = 2` do.
    pub fn reads_rows(&self, p: usize) -> bool {
        p >= 2 && !(p == 2 && self.pairs.is_some())
    }

    /// Transaction `t`'s items, when the transactions' bitsets were built.
    fn row(&self, t: u32) -> Option<&[u64]> {
        let bits = self.bits.as_ref()?;
        Some(&bits[t as usize * self.words..(t as usize + 1) * self.words])
    }

    /// Clears item `v` from every transaction that held it.
    pub fn suppress(&mut self, w: &Working, v: u32) {
        if let Some(pairs) = &mut self.pairs {
            pairs.alive[v as usize / 64] &= !(1 << (v % 64));
        }
        let Some(bits) = &mut self.bits else { return };
        for &t in w.tids.transactions(v) {
            bits[t as usize * self.words + v as usize / 64] &= !(1 << (v % 64));
        }
    }

    /// For `anchor`'s current transactions: per co-occurring item `w`, the OR of the
    /// transactions holding both (`acc[w]`), and the items touched. `acc` is `P × words`,
    /// zero on entry for the touched items' rows.
    fn neighbourhoods(&self, w: &Working, anchor: u32, acc: &mut [u64], touched: &mut Vec<u32>) {
        touched.clear();
        for &t in w.tids.transactions(anchor) {
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
                match row {
                    Some(row) => slot.iter_mut().zip(row).for_each(|(a, b)| *a |= b),
                    // The same bits from the transaction's items (the anchor and x among them).
                    None => {
                        for &y in items {
                            slot[y as usize / 64] |= 1 << (y % 64);
                        }
                    }
                }
            }
        }
    }

    /// The items co-occurring with `anchor` in its current transactions, into `touched`;
    /// `mark` is all false on entry and on return.
    fn neighbours(w: &Working, anchor: u32, mark: &mut [bool], touched: &mut Vec<u32>) {
        touched.clear();
        for &t in w.tids.transactions(anchor) {
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

    /// Per public item `u`, the occurring public itemsets of length `1..=p` (`p ≤ 2`) holding
    /// it: `{u}` and `{u, w}` for each co-occurring `w`; and the number of occurring itemsets
    /// in all (for `p = 3`, [`occurring_up_to_triples`]).
    pub fn occurring(&self, w: &Working, p: usize) -> (Vec<u128>, u128) {
        debug_assert!(p <= 2, "triples are counted by occurring_up_to_triples");
        let per_item: Vec<(u128, u128)> = (0..w.public_items() as u32)
            .into_par_iter()
            .map_init(
                || (vec![false; w.public_items()], Vec::new()),
                |(mark, touched), u| {
                    if p < 2 {
                        return (1, 0);
                    }
                    if let Some(pairs) = &self.pairs {
                        let together = pairs.neighbours(u).count() as u128;
                        return (1 + together, together);
                    }
                    Self::neighbours(w, u, mark, touched);
                    (1 + touched.len() as u128, touched.len() as u128)
                },
            )
            .collect();
        let pairs: u128 = per_item.iter().map(|&(_, n)| n).sum();
        (per_item.iter().map(|&(c, _)| c).collect(), per_item.len() as u128 + pairs / 2)
    }

    /// Per public item `u ≠ v`, the occurring public itemsets of length `1..=p` (`p ≤ 3`)
    /// holding both `v` and `u`: `{v, u}` and `{v, u, x}` for each `x` co-occurring with both.
    pub fn with(&self, w: &Working, v: u32, p: usize) -> Vec<u128> {
        let mut out = vec![0u128; w.public_items()];
        if p < 2 {
            return out;
        }
        if let (2, Some(pairs)) = (p, &self.pairs) {
            for u in pairs.neighbours(v) {
                out[u as usize] = 1;
            }
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

/// Per public item, the occurring public itemsets of one to three items holding it, and their
/// number: each pair and triple found once, from its smallest item `u`, as the distinct items
/// `w` after `u` and the distinct pairs `w < x` after it in `u`'s transactions (read from
/// `u`'s [`Projection`], `x` once per `w` by a mark). `None` when a projection would not fit
/// (more than [`PROJECTION_LIMIT`] words: the transactions of one item would hold four
/// billion items).
///
/// # Complexity
/// `O(Σ_t C(|t|, 3))` plus a pass over each item's transactions, rayon over items: where
/// an OR of neighbourhoods per item and co-occurring item cost `Σ_t |t|³` bit settings (six
/// times over: each triple from its three items, each pair both ways), 54 s of a p = 3 run
/// at ten million kosarak-shaped transactions.
pub(crate) fn occurring_up_to_triples(
    w: &Working,
    progress: &Progress,
) -> Option<(Vec<u128>, u128)> {
    let items = w.public_items();
    progress.begin(
        "coherence: public itemsets that occur (transactions read)",
        Unit::Items,
        (0..w.public_items() as u32).map(|u| w.tids.transactions(u).len() as u64).sum(),
    );
    struct Tally {
        /// Per public item, the pairs and triples holding it.
        holding: Vec<u64>,
        pairs: u128,
        triples: u128,
        fits: bool,
        local_of: Vec<u32>,
        locals: Vec<u32>,
        marked: Vec<u32>,
    }
    let tally = (0..items as u32)
        .into_par_iter()
        .fold(
            || Tally {
                holding: vec![0; items],
                pairs: 0,
                triples: 0,
                fits: true,
                local_of: vec![0; items],
                locals: Vec::new(),
                marked: Vec::new(),
            },
            |mut tally, u| {
                let Tally { holding, pairs, triples, fits, local_of, locals, marked } = &mut tally;
                let rows = w.tids.transactions(u).iter().map(|&t| {
                    let row = &w.public[t as usize];
                    let at = row.partition_point(|&x| x <= u);
                    // The transactions that no longer hold `u` hold none of its itemsets.
                    if at > 0 && row[at - 1] == u { &row[at..] } else { &row[..0] }
                });
                let local = |x: u32| {
                    if local_of[x as usize] == 0 {
                        locals.push(x);
                        local_of[x as usize] = locals.len() as u32;
                    }
                    local_of[x as usize]
                };
                let projection = Projection::new(rows, local, PROJECTION_LIMIT);
                for &x in locals.iter() {
                    local_of[x as usize] = 0;
                }
                let Some(projection) = projection else {
                    *fits = false;
                    locals.clear();
                    return tally;
                };
                holding[u as usize] += locals.len() as u64;
                *pairs += locals.len() as u128;
                for &x in locals.iter() {
                    holding[x as usize] += 1;
                }
                marked.clear();
                marked.resize(locals.len(), 0);
                for (x, &global_x) in locals.iter().enumerate() {
                    let mut found = 0u64;
                    projection.each_after(
                        x,
                        |y| {
                            // Marked with one more than `x`: each `y` once per `x`.
                            if marked[y as usize] != x as u32 + 1 {
                                marked[y as usize] = x as u32 + 1;
                                holding[locals[y as usize] as usize] += 1;
                                found += 1;
                            }
                        },
                        |_, _| {},
                    );
                    holding[global_x as usize] += found;
                    holding[u as usize] += found;
                    *triples += u128::from(found);
                }
                locals.clear();
                progress.advance(w.tids.transactions(u).len() as u64);
                tally
            },
        )
        .map(|t| (t.holding, t.pairs, t.triples, t.fits))
        .reduce_with(|mut a, b| {
            a.0.iter_mut().zip(&b.0).for_each(|(x, y)| *x += y);
            (a.0, a.1 + b.1, a.2 + b.2, a.3 && b.3)
        });
    let (holding, pairs, triples, fits) = tally.unwrap_or((vec![0; items], 0, 0, true));
    fits.then(|| {
        let per_item = holding.iter().map(|&h| 1 + u128::from(h)).collect();
        (per_item, items as u128 + pairs + triples)
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use txanon_data::TransactionDb;

    use super::*;
    use crate::working::Role;

    /// Per public item, the itemsets of one to `p` items of some transaction holding it, and
    /// their number: every subset of every transaction, listed.
    fn occurring_by_definition(w: &Working, p: usize) -> (Vec<u128>, u128) {
        let mut sets = std::collections::BTreeSet::new();
        for t in &w.public {
            for mask in 1u32..1 << t.len() {
                if mask.count_ones() as usize <= p {
                    sets.insert(
                        (0..t.len())
                            .filter(|j| mask & (1 << j) != 0)
                            .map(|j| t[j])
                            .collect::<Vec<_>>(),
                    );
                }
            }
        }
        let mut per_item = vec![0u128; w.public_items()];
        for s in &sets {
            for &i in s {
                per_item[i as usize] += 1;
            }
        }
        (per_item, sets.len() as u128)
    }

    proptest! {
        /// Each way of counting finds the same itemsets, before and after suppressions: for
        /// `p = 2` the co-occurrence matrix and the neighbours read from the transactions (its
        /// fallback past `BITSET_BYTES`); for `p = 3` the transactions' bitsets and the
        /// neighbourhoods set from the transactions' items (theirs). The occurring itemsets
        /// are those of the definition.
        #[test]
        fn every_way_of_counting_agrees(
            ts in prop::collection::vec(prop::collection::btree_set(0u32..70, 0..8), 1..40),
            suppress in prop::collection::vec(0u32..70, 0..6),
            p in 2usize..4,
        ) {
            let db = TransactionDb::from_int_transactions(
                ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()),
            );
            let roles: Vec<Role> = (0..db.num_items() as u32).map(Role::Public).collect();
            let mut w = Working::new(&db, &roles);
            let mut fast = Bitsets::new(&w, p).unwrap();
            let words = if p == 3 { fast.words } else { 0 };
            prop_assert!(fast.pairs.is_some() || fast.bits.is_some());
            let mut scan = Bitsets { words, bits: None, pairs: None };
            let occurring = if p == 2 {
                prop_assert_eq!(fast.occurring(&w, p), scan.occurring(&w, p));
                fast.occurring(&w, p)
            } else {
                occurring_up_to_triples(&w, &Progress::default()).unwrap()
            };
            prop_assert_eq!(occurring, occurring_by_definition(&w, p));
            let items = w.public_items() as u32;
            let mut gone = Vec::new();
            for v in suppress.into_iter().filter(|&v| v < items) {
                if gone.contains(&v) {
                    continue;
                }
                prop_assert_eq!(fast.with(&w, v, p), scan.with(&w, v, p), "item {}", v);
                fast.suppress(&w, v);
                scan.suppress(&w, v);
                w.suppress(v);
                gone.push(v);
            }
        }
    }
}
