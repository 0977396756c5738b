//! Apriori (Agrawal & Srikant, VLDB 1994): level-wise candidate generation and counting.
//!
//! Level `k` candidates are joined from frequent `(k−1)`-itemsets sharing a `(k−2)`-prefix and
//! pruned unless every `(k−1)`-subset is frequent (binary search in the sorted level). Pairs are
//! counted in a triangular array when it fits in 64 MiB; longer candidates in a prefix tree that
//! each transaction walks by merging its sorted items with the children of a node. After every
//! level the transactions keep only the items of some candidate, and identical ones merge.
//! Transactions are counted in parallel chunks, each with its own counters.
//!
//! No perfect-extension pruning here: Apriori is the textbook algorithm the anatomy paper mines
//! with. Its candidates are bounded by the listing limit.

use std::ops::ControlFlow;

use rayon::prelude::*;
use txanon_data::ItemId;

use crate::class::{ItemsetClass, ItemsetVisitor};
use crate::error::MiningError;
use crate::recode::RecodedDb;

/// Weighted transactions over codes, flat.
#[derive(Debug, Default)]
struct Baskets {
    offsets: Vec<usize>,
    codes: Vec<u32>,
    weights: Vec<u32>,
}

impl Baskets {
    fn len(&self) -> usize {
        self.weights.len()
    }

    fn get(&self, i: usize) -> (&[u32], u32) {
        (&self.codes[self.offsets[i]..self.offsets[i + 1]], self.weights[i])
    }

    /// Keeps the items with `keep[code]`, drops transactions shorter than `min_len`, merges
    /// duplicates.
    fn reduce(&self, keep: &[bool], min_len: usize) -> Baskets {
        let mut spans = Vec::with_capacity(self.len());
        let mut codes = Vec::with_capacity(self.codes.len());
        let mut weights = Vec::with_capacity(self.len());
        for i in 0..self.len() {
            let (t, w) = self.get(i);
            let start = codes.len();
            codes.extend(t.iter().copied().filter(|&c| keep[c as usize]));
            if codes.len() - start < min_len {
                codes.truncate(start);
            } else {
                spans.push((start, codes.len()));
                weights.push(w);
            }
        }
        let mut order: Vec<usize> = (0..spans.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            codes[spans[a].0..spans[a].1].cmp(&codes[spans[b].0..spans[b].1])
        });
        let mut out = Baskets { offsets: vec![0], ..Baskets::default() };
        let mut previous: Option<usize> = None;
        for i in order {
            let (s, e) = spans[i];
            if let Some(p) = previous
                && codes[spans[p].0..spans[p].1] == codes[s..e]
            {
                *out.weights.last_mut().expect("previous basket") += weights[i];
                continue;
            }
            out.codes.extend_from_slice(&codes[s..e]);
            out.offsets.push(out.codes.len());
            out.weights.push(weights[i]);
            previous = Some(i);
        }
        out
    }
}

/// Candidates of one length `k`, sorted lexicographically, as a prefix tree: depth `d` holds the
/// distinct prefixes of length `d + 1`; the children of node `x` at depth `d` are
/// `child_start[d][x]..child_start[d][x + 1]` at depth `d + 1`.
#[derive(Debug)]
struct CandidateTrie {
    items: Vec<Vec<u32>>,
    child_start: Vec<Vec<u32>>,
}

impl CandidateTrie {
    fn new(flat: &[u32], k: usize) -> Self {
        let mut items: Vec<Vec<u32>> = vec![Vec::new(); k];
        let mut child_start: Vec<Vec<u32>> = vec![Vec::new(); k - 1];
        let mut previous: Option<&[u32]> = None;
        for c in flat.chunks_exact(k) {
            let common =
                previous.map_or(0, |p| p.iter().zip(c).take_while(|(a, b)| a == b).count());
            for d in common..k {
                if d + 1 < k {
                    child_start[d].push(items[d + 1].len() as u32);
                }
                items[d].push(c[d]);
            }
            previous = Some(c);
        }
        for d in 0..k - 1 {
            child_start[d].push(items[d + 1].len() as u32);
        }
        Self { items, child_start }
    }

    /// Adds `weight` to the counter of every candidate contained in `t` (sorted).
    fn count(&self, t: &[u32], weight: u32, counts: &mut [u32]) {
        let k = self.items.len();
        if t.len() >= k {
            self.count_below(0, 0, self.items[0].len(), t, weight, counts);
        }
    }

    fn count_below(
        &self,
        depth: usize,
        from: usize,
        to: usize,
        t: &[u32],
        weight: u32,
        counts: &mut [u32],
    ) {
        let k = self.items.len();
        let nodes = &self.items[depth][from..to];
        // An item at this depth needs k − depth − 1 more items after it.
        let usable = t.len() + depth + 1 - k;
        let (mut i, mut j) = (0, 0);
        while i < nodes.len() && j < usable {
            match nodes[i].cmp(&t[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let node = from + i;
                    if depth + 1 == k {
                        counts[node] += weight;
                    } else {
                        let starts = &self.child_start[depth];
                        let (a, b) = (starts[node] as usize, starts[node + 1] as usize);
                        self.count_below(depth + 1, a, b, &t[j + 1..], weight, counts);
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
    }
}

/// Sums per-chunk counter arrays of `len` counters filled by `count_chunk`.
fn count_in_parallel(
    baskets: &Baskets,
    len: usize,
    parallel: bool,
    count_one: impl Fn(&[u32], u32, &mut [u32]) + Sync,
) -> Vec<u32> {
    let count_range = |range: std::ops::Range<usize>| {
        let mut counts = vec![0u32; len];
        for i in range {
            let (t, w) = baskets.get(i);
            count_one(t, w, &mut counts);
        }
        counts
    };
    let n = baskets.len();
    if !parallel || n < 2048 {
        return count_range(0..n);
    }
    let chunk = n.div_ceil(rayon::current_num_threads() * 4).max(1024);
    (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| count_range(c * chunk..((c + 1) * chunk).min(n)))
        .reduce_with(|mut a, b| {
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            a
        })
        .unwrap_or_else(|| vec![0; len])
}

/// Joins the sorted frequent `(k−1)`-itemsets `level` into sorted `k`-candidates, pruned.
fn candidates(level: &[u32], k: usize, limit: u64) -> Result<Vec<u32>, MiningError> {
    let prev = k - 1;
    let sets: Vec<&[u32]> = level.chunks_exact(prev).collect();
    let is_frequent = |s: &[u32]| sets.binary_search(&s).is_ok();
    let mut out = Vec::new();
    let mut subset = vec![0u32; prev];
    let mut group_start = 0;
    while group_start < sets.len() {
        let prefix = &sets[group_start][..prev - 1];
        let group_end = group_start
            + sets[group_start..].iter().take_while(|s| &s[..prev - 1] == prefix).count();
        for a in group_start..group_end {
            for b in a + 1..group_end {
                let (x, y) = (sets[a][prev - 1], sets[b][prev - 1]);
                // Subsets that drop one prefix item; the two that drop x or y are sets a and b.
                let all_frequent = (0..prev - 1).all(|drop| {
                    let mut w = 0;
                    for (p, &item) in prefix.iter().enumerate() {
                        if p != drop {
                            subset[w] = item;
                            w += 1;
                        }
                    }
                    subset[w] = x;
                    subset[w + 1] = y;
                    is_frequent(&subset)
                });
                if all_frequent {
                    out.extend_from_slice(prefix);
                    out.push(x);
                    out.push(y);
                    if (out.len() / k) as u64 > limit {
                        return Err(MiningError::LimitExceeded { limit, what: "candidates" });
                    }
                }
            }
        }
        group_start = group_end;
    }
    Ok(out)
}

/// Mines `db` level by level, reporting every frequent itemset to `visitor`.
pub(crate) fn mine<V: ItemsetVisitor>(
    db: &RecodedDb,
    min_count: u32,
    min_len: usize,
    max_len: usize,
    limit: u64,
    parallel: bool,
    visitor: &mut V,
) -> Result<(), MiningError> {
    if db.transactions < min_count {
        return Ok(());
    }
    let mut decoded: Vec<ItemId> = Vec::new();
    let mut report = |codes: &[u32], support: u32, visitor: &mut V| {
        decoded.clear();
        decoded.extend(codes.iter().map(|&c| db.decode[c as usize]));
        visitor.visit(&ItemsetClass {
            base: &decoded,
            perfect: &[],
            support,
            min_len,
            max_len,
            leaf: false,
        })
    };
    if report(&[], db.transactions, visitor).is_break() {
        return Ok(());
    }
    let m = db.decode.len();
    let mut level: Vec<u32> = (0..m as u32).collect();
    for (code, &s) in db.supports.iter().enumerate() {
        if report(&[code as u32], s, visitor).is_break() {
            return Ok(());
        }
    }
    let mut baskets = Baskets {
        offsets: db.offsets.clone(),
        codes: db.codes.clone(),
        weights: db.weights.clone(),
    };
    let mut k = 2;
    while k <= max_len && level.len() >= k {
        let mut keep = vec![false; m];
        level.iter().for_each(|&c| keep[c as usize] = true);
        baskets = baskets.reduce(&keep, k);
        let (cands, counts) = if k == 2 && m * m / 2 <= 16 << 20 {
            count_pairs(&level, &baskets, m, parallel, limit)?
        } else {
            let cands = candidates(&level, k, limit)?;
            if cands.is_empty() {
                break;
            }
            let trie = CandidateTrie::new(&cands, k);
            let counts = count_in_parallel(&baskets, cands.len() / k, parallel, |t, w, c| {
                trie.count(t, w, c)
            });
            (cands, counts)
        };
        let mut next = Vec::new();
        for (c, &count) in cands.chunks_exact(k).zip(&counts) {
            if count >= min_count {
                next.extend_from_slice(c);
                if let ControlFlow::Break(()) = report(c, count, visitor) {
                    return Ok(());
                }
            }
        }
        level = next;
        k += 1;
    }
    Ok(())
}

/// Every pair of frequent items with its count, from a triangular array.
fn count_pairs(
    items: &[u32],
    baskets: &Baskets,
    m: usize,
    parallel: bool,
    limit: u64,
) -> Result<(Vec<u32>, Vec<u32>), MiningError> {
    if (m * (m - 1) / 2) as u64 > limit {
        return Err(MiningError::LimitExceeded { limit, what: "candidates" });
    }
    let row = |a: usize| a * (2 * m - a - 1) / 2;
    let counts = count_in_parallel(baskets, m * (m - 1) / 2, parallel, |t, w, counts| {
        for (i, &a) in t.iter().enumerate() {
            let base = row(a as usize);
            for &b in &t[i + 1..] {
                counts[base + (b - a - 1) as usize] += w;
            }
        }
    });
    let mut cands = Vec::with_capacity(m * (m - 1));
    for (i, &a) in items.iter().enumerate() {
        for &b in &items[i + 1..] {
            cands.push(a);
            cands.push(b);
        }
    }
    Ok((cands, counts))
}
