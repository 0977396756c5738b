//! [`Engine::Enumerate`](crate::Engine::Enumerate): every mole and every nugget listed, the
//! reference the other engines are checked against.

use rustc_hash::FxHashMap;
use txanon_mining::{Algorithm, MinSupport, MiningParams, frequent_itemsets};

use crate::engines::Counter;
use crate::error::CoherenceError;
use crate::working::{Working, breaches, public_index};

/// An itemset of at most four public indices in one integer: item `+ 1` in each 32-bit lane.
type Key = u128;

fn key(items: &[u32]) -> Key {
    items.iter().enumerate().fold(0, |k, (lane, &i)| k | ((i as u128 + 1) << (32 * lane)))
}

fn unkey(k: Key) -> Vec<u32> {
    (0..4)
        .map(|lane| ((k >> (32 * lane)) & 0xFFFF_FFFF) as u32)
        .take_while(|&x| x > 0)
        .map(|x| x - 1)
        .collect()
}

/// Calls `f` with every subset of `items` of length `1..=p`.
fn subsets(items: &[u32], p: usize, f: &mut impl FnMut(&[u32])) {
    fn go(items: &[u32], p: usize, from: usize, chosen: &mut Vec<u32>, f: &mut impl FnMut(&[u32])) {
        for j in from..items.len() {
            chosen.push(items[j]);
            f(chosen);
            if chosen.len() < p {
                go(items, p, j + 1, chosen, f);
            }
            chosen.pop();
        }
    }
    go(items, p, 0, &mut Vec::with_capacity(p), f);
}

/// Every listed itemset with its items, whether it is still alive, and per item the ids of
/// those holding it.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    sets: Vec<Vec<u32>>,
    alive: Vec<bool>,
    by_item: Vec<Vec<u32>>,
    /// Per item, the listed itemsets alive holding it.
    pub counts: Vec<u128>,
}

impl Listing {
    pub(crate) fn new(sets: Vec<Vec<u32>>, items: usize) -> Self {
        let mut by_item = vec![Vec::new(); items];
        let mut counts = vec![0u128; items];
        for (id, s) in sets.iter().enumerate() {
            for &u in s {
                by_item[u as usize].push(id as u32);
                counts[u as usize] += 1;
            }
        }
        let alive = vec![true; sets.len()];
        Self { sets, alive, by_item, counts }
    }

    /// Deletes the listed itemsets holding `v`.
    pub(crate) fn remove(&mut self, v: u32) {
        for &id in &self.by_item[v as usize] {
            if std::mem::replace(&mut self.alive[id as usize], false) {
                for &u in &self.sets[id as usize] {
                    self.counts[u as usize] -= 1;
                }
            }
        }
    }
}

/// Every mole of length at most `p` (public itemsets that occur, with support below `k` or
/// breach probability above `h`), found by listing every public itemset of length at most `p`
/// of every transaction and counting its support; breach probabilities from the transactions
/// of each itemset with support at least `k`, and from its subsets.
#[derive(Debug)]
pub(crate) struct ListedMoles(Listing);

impl ListedMoles {
    /// # Errors
    /// [`CoherenceError::TooLarge`] when more than `limit` itemsets (with repeats) would be
    /// listed.
    pub fn new(w: &Working, h: f64, k: u32, p: usize, limit: u64) -> Result<Self, CoherenceError> {
        let listed: u64 =
            w.public.iter().map(|t| (1..=p).map(|i| binomial(t.len(), i)).sum::<u64>()).sum();
        if listed > limit {
            return Err(CoherenceError::TooLarge { subsets: listed, limit });
        }
        let mut support: FxHashMap<Key, u32> = FxHashMap::default();
        for t in &w.public {
            subsets(t, p, &mut |s| *support.entry(key(s)).or_insert(0) += 1);
        }
        // Breach for itemsets with support ≥ k, shortest first so that subsets are known.
        let mut frequent: Vec<Vec<u32>> =
            support.iter().filter(|&(_, &c)| c >= k).map(|(&k, _)| unkey(k)).collect();
        frequent.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)));
        let mut exceeds: FxHashMap<Key, bool> = FxHashMap::default();
        let mut counts = vec![0u32; w.private_ids.len()];
        for gamma in &frequent {
            // Transactions holding gamma: intersect its items' lists.
            let mut tids: Vec<u32> = w.tids.transactions(gamma[0]).to_vec();
            for &i in &gamma[1..] {
                tids.retain(|t| w.tids.transactions(i).binary_search(t).is_ok());
            }
            let mut worst = 0;
            for &t in &tids {
                for &s in &w.private[t as usize] {
                    counts[s as usize] += 1;
                    worst = worst.max(counts[s as usize]);
                }
            }
            for &t in &tids {
                for &s in &w.private[t as usize] {
                    counts[s as usize] = 0;
                }
            }
            let mut above = breaches(worst, tids.len() as u32, h);
            if gamma.len() > 1 && !above {
                above = (0..gamma.len()).any(|drop| {
                    let sub: Vec<u32> = gamma
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != drop)
                        .map(|(_, &i)| i)
                        .collect();
                    exceeds[&key(&sub)]
                });
            }
            exceeds.insert(key(gamma), above);
        }
        let mut moles: Vec<Vec<u32>> = support
            .iter()
            .filter(|&(key, &c)| c < k || exceeds.get(key).copied().unwrap_or(false))
            .map(|(&k, _)| unkey(k))
            .collect();
        moles.sort_unstable();
        Ok(Self(Listing::new(moles, w.public_items())))
    }
}

fn binomial(n: usize, k: usize) -> u64 {
    txanon_border::binomial(n, k).map_or(u64::MAX, |c| c.min(u64::MAX as u128) as u64)
}

impl Counter for ListedMoles {
    fn counts(&self) -> &[u128] {
        &self.0.counts
    }

    fn suppress(&mut self, _: &Working, v: u32) -> Result<(), CoherenceError> {
        self.0.remove(v);
        Ok(())
    }

    fn reads_rows(&self) -> bool {
        false
    }
}

/// Every nugget listed by FP-Growth, each as its public indices (private items dropped: only
/// public ones are ever suppressed).
#[derive(Debug)]
pub(crate) struct ListedNuggets(Listing, u128);

impl ListedNuggets {
    pub fn new(w: &Working, support: u32) -> Result<Self, CoherenceError> {
        let db = w.full_db();
        let params = MiningParams::new(MinSupport::Count(support)).check()?;
        let found = frequent_itemsets(&db, Algorithm::FpGrowth, &params)?;
        let public = w.public_items();
        let total = found.len() as u128;
        let sets = found
            .iter()
            .map(|(items, _)| items.iter().filter_map(|&i| public_index(&db, i, public)).collect())
            .collect();
        Ok(Self(Listing::new(sets, w.public_items()), total))
    }

    /// The nuggets of `w` when listed, in all.
    pub fn total(&self) -> u128 {
        self.1
    }
}

impl Counter for ListedNuggets {
    fn counts(&self) -> &[u128] {
        &self.0.counts
    }

    fn suppress(&mut self, _: &Working, v: u32) -> Result<(), CoherenceError> {
        self.0.remove(v);
        Ok(())
    }

    fn reads_rows(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_subsets_are_all_listed() {
        for s in [vec![], vec![0], vec![3, 9], vec![0, 1, 2, 4_000_000]] {
            assert_eq!(unkey(key(&s)), s);
        }
        let mut seen = Vec::new();
        subsets(&[1, 2, 3], 2, &mut |s| seen.push(s.to_vec()));
        assert_eq!(seen, vec![vec![1], vec![1, 2], vec![1, 3], vec![2], vec![2, 3], vec![3]]);
    }
}
