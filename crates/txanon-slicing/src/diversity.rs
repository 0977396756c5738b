//! The diversity check of ℓ-diverse slicing, kept incrementally over the tuple partition.
//!
//! For a tuple `t` and a bucket `B`, let `fᵢ` be the fraction of `B`'s tuples whose column `i`
//! value is `t`'s (for `i < c`), and `f_c` the fraction whose last column agrees with `t`'s
//! outside the sensitive attribute. Then `p(t, B) = f₁ ⋯ f_c` and `p(s | t, B)` is the share of
//! `s` among those last-column matches, so `p(t, B) · p(s | t, B) = f₁ ⋯ f_{c−1} · |B_{q,s}| /
//! |B|`. Over the buckets, `p(t, s) = Σ_B p(t, B) p(s | t, B) / Σ_B p(t, B)`, and the table is
//! ℓ-diverse when `p(t, s) ≤ 1/ℓ` for every tuple and sensitive value.
//!
//! `p(t, s)` depends on `t` only through its *key*: its values in the first `c − 1` columns and
//! its last column's non-sensitive part. The state keeps, per key, the two sums
//! `Σ_B p(t, B)` and `Σ_B p(t, B) p(s | t, B)` for every `s`. Splitting `B` into `B₁` and `B₂`
//! changes only the keys that match `B` (those of `B₁` and `B₂` are among them): their sums lose
//! `B`'s terms and gain `B₁`'s and `B₂`'s. The matching keys are found through an index from
//! each dimension's value to the keys holding it, starting from the dimension whose lists are
//! shortest for `B`'s values. So a split costs time in the keys that match the bucket, not in
//! all tuples times all buckets, which is what the paper's check costs.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::encode::Encoding;

/// Relative tolerance of `p(t, s) ≤ 1/ℓ`: the sums are floating point, so a share equal to
/// `1/ℓ` in exact arithmetic must not be refused for a rounding error. The audit uses the same.
pub(crate) use crate::params::TOLERANCE;

/// Keys (see the module documentation) and the index from values to keys.
#[derive(Debug)]
pub(crate) struct Keys {
    width: usize,
    /// Key `k`'s value in dimension `d` at `k · width + d`.
    values: Vec<u32>,
    /// Per dimension, per value, the keys holding it.
    index: Vec<Vec<Vec<u32>>>,
}

impl Keys {
    pub(crate) fn new(enc: &Encoding) -> Self {
        let width = enc.width();
        let n = enc.sensitive.len();
        let mut ids: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
        let mut values = Vec::new();
        for r in 0..n {
            let key: Vec<u32> = enc.parts.iter().map(|p| p[r]).collect();
            ids.entry(key).or_insert_with_key(|key| {
                values.extend_from_slice(key);
                (values.len() / width - 1) as u32
            });
        }
        let mut index: Vec<Vec<Vec<u32>>> =
            enc.cells.iter().map(|c| vec![Vec::new(); c.len()]).collect();
        for (k, key) in values.chunks_exact(width).enumerate() {
            for (d, &v) in key.iter().enumerate() {
                index[d][v as usize].push(k as u32);
            }
        }
        Keys { width, values, index }
    }

    pub(crate) fn len(&self) -> usize {
        self.values.len() / self.width
    }

    fn key(&self, k: u32) -> &[u32] {
        let at = k as usize * self.width;
        &self.values[at..at + self.width]
    }

    /// The keys that match bucket `b` in every dimension.
    pub(crate) fn matching(&self, b: &BucketCounts) -> Vec<u32> {
        let cost =
            |d: usize| -> usize { b.present(d).map(|v| self.index[d][v as usize].len()).sum() };
        let Some(start) = (0..self.width).min_by_key(|&d| cost(d)) else {
            return Vec::new();
        };
        b.present(start)
            .flat_map(|v| self.index[start][v as usize].iter().copied())
            .filter(|&k| self.key(k).iter().enumerate().all(|(d, &v)| d == start || b.holds(d, v)))
            .collect()
    }
}

/// A bucket's counts: of each value in the first `c − 1` dimensions, and of each sensitive
/// value per last-column part.
#[derive(Debug, Clone)]
pub(crate) struct BucketCounts {
    size: u32,
    columns: Vec<FxHashMap<u32, u32>>,
    /// Per last-column part `q`, `(s, count)` pairs.
    sensitive: FxHashMap<u32, Vec<(u32, u32)>>,
}

impl BucketCounts {
    pub(crate) fn new(enc: &Encoding, rows: &[u32]) -> Self {
        let last = enc.width() - 1;
        let mut columns = vec![FxHashMap::default(); last];
        let mut sensitive: FxHashMap<u32, Vec<(u32, u32)>> = FxHashMap::default();
        for &r in rows {
            let r = r as usize;
            for (d, counts) in columns.iter_mut().enumerate() {
                *counts.entry(enc.parts[d][r]).or_insert(0) += 1;
            }
            let list = sensitive.entry(enc.parts[last][r]).or_default();
            let s = enc.sensitive[r];
            match list.iter_mut().find(|(x, _)| *x == s) {
                Some((_, c)) => *c += 1,
                None => list.push((s, 1)),
            }
        }
        BucketCounts { size: rows.len() as u32, columns, sensitive }
    }

    fn present(&self, d: usize) -> Box<dyn Iterator<Item = u32> + '_> {
        if d < self.columns.len() {
            Box::new(self.columns[d].keys().copied())
        } else {
            Box::new(self.sensitive.keys().copied())
        }
    }

    fn holds(&self, d: usize, v: u32) -> bool {
        if d < self.columns.len() {
            self.columns[d].contains_key(&v)
        } else {
            self.sensitive.contains_key(&v)
        }
    }

    /// Adds `sign ×` this bucket's terms for `key` to `den` (`Σ p(t, B)`) and `num`
    /// (`Σ p(t, B) p(s | t, B)` per `s`).
    fn add_terms(&self, key: &[u32], sign: f64, den: &mut f64, num: &mut [f64]) {
        let size = f64::from(self.size);
        let last = key.len() - 1;
        let mut f = sign;
        for (d, &v) in key[..last].iter().enumerate() {
            match self.columns[d].get(&v) {
                Some(&c) => f *= f64::from(c) / size,
                None => return,
            }
        }
        let Some(list) = self.sensitive.get(&key[last]) else { return };
        for &(s, c) in list {
            let term = f * f64::from(c) / size;
            num[s as usize] += term;
            *den += term;
        }
    }
}

/// Per key, `Σ_B p(t, B)` and `Σ_B p(t, B) p(s | t, B)` over the current buckets.
#[derive(Debug)]
pub(crate) struct DiversityState {
    l: f64,
    s_domain: usize,
    den: Vec<f64>,
    num: Vec<f64>,
}

/// A key's sums after a split, computed before it is accepted.
type Update = (u32, f64, Vec<f64>);

impl DiversityState {
    /// The sums with the whole table as one bucket.
    pub(crate) fn new(keys: &Keys, whole: &BucketCounts, l: usize, s_domain: usize) -> Self {
        let mut den = vec![0.0; keys.len()];
        let mut num = vec![0.0; keys.len() * s_domain];
        den.par_iter_mut()
            .zip(num.par_chunks_mut(s_domain))
            .enumerate()
            .for_each(|(k, (den, num))| whole.add_terms(keys.key(k as u32), 1.0, den, num));
        DiversityState { l: l as f64, s_domain, den, num }
    }

    fn diverse(&self, den: f64, num: &[f64]) -> bool {
        diverse(self.l, den, num)
    }

    /// The largest `p(t, s)` over all keys and values.
    pub(crate) fn worst(&self) -> f64 {
        self.den
            .iter()
            .zip(self.num.chunks_exact(self.s_domain))
            .map(|(&d, num)| num.iter().fold(0.0f64, |m, &x| m.max(x / d)))
            .fold(0.0, f64::max)
    }

    /// True when every key is ℓ-diverse now.
    pub(crate) fn holds(&self) -> bool {
        self.den.iter().zip(self.num.chunks_exact(self.s_domain)).all(|(&d, n)| self.diverse(d, n))
    }

    /// Replaces bucket `whole` by `left` and `right` if every key matching `whole` stays
    /// ℓ-diverse; returns whether it did. Keys not matching `whole` do not change.
    pub(crate) fn try_split(
        &mut self,
        keys: &Keys,
        whole: &BucketCounts,
        left: &BucketCounts,
        right: &BucketCounts,
    ) -> bool {
        let affected = keys.matching(whole);
        let update = |&k: &u32| -> Option<Update> {
            let key = keys.key(k);
            let at = k as usize * self.s_domain;
            let mut den = self.den[k as usize];
            let mut num = self.num[at..at + self.s_domain].to_vec();
            whole.add_terms(key, -1.0, &mut den, &mut num);
            left.add_terms(key, 1.0, &mut den, &mut num);
            right.add_terms(key, 1.0, &mut den, &mut num);
            self.diverse(den, &num).then_some((k, den, num))
        };
        let updates: Option<Vec<Update>> = if affected.len() >= 2048 {
            affected.par_iter().map(update).collect()
        } else {
            affected.iter().map(update).collect()
        };
        let Some(updates) = updates else { return false };
        for (k, den, num) in updates {
            let at = k as usize * self.s_domain;
            self.den[k as usize] = den;
            self.num[at..at + self.s_domain].copy_from_slice(&num);
        }
        true
    }
}

/// The paper's check, from scratch: every key against every bucket. Quadratic; the reference
/// the incremental state is tested against.
pub(crate) fn naive_check(enc: &Encoding, buckets: &[Vec<u32>], l: usize) -> bool {
    let keys = Keys::new(enc);
    let counts: Vec<BucketCounts> = buckets.iter().map(|b| BucketCounts::new(enc, b)).collect();
    (0..keys.len() as u32).all(|k| {
        let mut den = 0.0;
        let mut num = vec![0.0; enc.s_domain];
        for b in &counts {
            b.add_terms(keys.key(k), 1.0, &mut den, &mut num);
        }
        diverse(l as f64, den, &num)
    })
}

/// `p(t, s) = num[s] / den ≤ 1/ℓ` for every `s`, within [`TOLERANCE`].
fn diverse(l: f64, den: f64, num: &[f64]) -> bool {
    num.iter().all(|&x| l * x <= den * (1.0 + TOLERANCE))
}
