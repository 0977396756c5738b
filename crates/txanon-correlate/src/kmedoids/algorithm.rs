//! PAM's BUILD and SWAP, and FastPAM1's SWAP.
//!
//! Distances are quantized to integers (`round(d / max · 2³¹)`) before clustering and every cost
//! change is summed exactly in `i64`: PAM and FastPAM1 then compute the same change for every
//! candidate swap, break ties the same way (smallest candidate, then smallest medoid slot) and
//! so reach the same medoids, which floating-point sums in different orders would not
//! guarantee. The reported cost is summed from the original distances.

use rand::SeedableRng;
use rand::seq::index::sample;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::params::{Init, MedoidSearch, ValidKMedoidsParams};
use crate::distance::CondensedMatrix;
use crate::error::CorrelateError;

const FAR: i64 = i64::MAX / 4;

/// The result of k-medoids.
#[derive(Debug, Clone, PartialEq)]
pub struct Clustering {
    /// The medoid of each cluster (a point index), cluster `c` at position `c`.
    pub medoids: Vec<usize>,
    /// The cluster of each point (its nearest medoid; ties to the lower cluster, except that
    /// a medoid is always in its own).
    pub labels: Vec<usize>,
    /// Total distance of every point to its medoid.
    pub cost: f64,
    /// Swaps performed after initialization.
    pub swaps: usize,
}

/// k-medoids with validated parameters.
#[derive(Debug, Clone)]
pub struct KMedoids {
    params: ValidKMedoidsParams,
}

/// Square matrix of quantized distances, rows contiguous.
struct Quantized {
    n: usize,
    q: Vec<i64>,
}

impl Quantized {
    fn new(d: &CondensedMatrix) -> Self {
        let n = d.len();
        let max = d.entries().iter().copied().fold(0.0f64, f64::max);
        let scale = if max > 0.0 { f64::from(1u32 << 31) / max } else { 0.0 };
        let mut q = vec![0i64; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let v = (d.get(i, j) * scale).round() as i64;
                q[i * n + j] = v;
                q[j * n + i] = v;
            }
        }
        Self { n, q }
    }

    fn row(&self, i: usize) -> &[i64] {
        &self.q[i * self.n..(i + 1) * self.n]
    }
}

/// Each point's nearest medoid slot, its distance, and the distance to the second nearest.
struct Assignment {
    nearest: Vec<usize>,
    near: Vec<i64>,
    second: Vec<i64>,
}

impl Assignment {
    fn new(q: &Quantized, medoids: &[usize]) -> Self {
        let mut a =
            Assignment { nearest: vec![0; q.n], near: vec![FAR; q.n], second: vec![FAR; q.n] };
        for o in 0..q.n {
            let row = q.row(o);
            for (slot, &m) in medoids.iter().enumerate() {
                let d = row[m];
                if d < a.near[o] {
                    a.second[o] = a.near[o];
                    a.near[o] = d;
                    a.nearest[o] = slot;
                } else if d < a.second[o] {
                    a.second[o] = d;
                }
            }
        }
        a
    }
}

impl KMedoids {
    /// k-medoids with `params`.
    pub fn new(params: ValidKMedoidsParams) -> Self {
        Self { params }
    }

    /// Clusters the points of `distances`.
    ///
    /// # Errors
    /// [`CorrelateError::TooManyClusters`] when `k` exceeds the number of points;
    /// [`CorrelateError::BadDistance`] for a negative or non-finite distance.
    pub fn fit(&self, distances: &CondensedMatrix) -> Result<Clustering, CorrelateError> {
        let n = distances.len();
        let k = self.params.k();
        if k > n {
            return Err(CorrelateError::TooManyClusters { k, points: n });
        }
        distances.check()?;
        let q = Quantized::new(distances);
        let mut medoids = match self.params.init() {
            Init::Build => build(&q, k),
            Init::Random => {
                let mut rng = ChaCha8Rng::seed_from_u64(self.params.seed());
                sample(&mut rng, n, k).into_vec()
            }
        };
        let mut swaps = 0;
        while swaps < self.params.max_swaps() {
            let assignment = Assignment::new(&q, &medoids);
            let best = match self.params.medoid_search() {
                MedoidSearch::Pam => best_swap_pam(&q, &medoids, &assignment),
                MedoidSearch::FastPam1 => best_swap_fastpam1(&q, &medoids, &assignment),
            };
            match best {
                Some((delta, slot, candidate)) if delta < 0 => {
                    medoids[slot] = candidate;
                    swaps += 1;
                }
                _ => break,
            }
        }
        let mut labels = Assignment::new(&q, &medoids).nearest;
        // A medoid at distance 0 from an earlier one would join that one's cluster by the tie
        // rule and leave its own empty: every medoid labels its own cluster, so k clusters are
        // never fewer (its distance to itself is 0, no more than to any other).
        for (slot, &m) in medoids.iter().enumerate() {
            labels[m] = slot;
        }
        let cost = (0..n).map(|o| distances.get(o, medoids[labels[o]])).sum();
        Ok(Clustering { medoids, labels, cost, swaps })
    }
}

/// PAM's BUILD: the point of least total distance, then repeatedly the point whose addition
/// lowers the total distance most (ties to the smallest index).
fn build(q: &Quantized, k: usize) -> Vec<usize> {
    let n = q.n;
    let first =
        (0..n).into_par_iter().map(|x| (q.row(x).iter().sum::<i64>(), x)).min().map(|(_, x)| x);
    let mut medoids = vec![first.expect("k ≥ 1 and n ≥ k")];
    let mut near: Vec<i64> = q.row(medoids[0]).to_vec();
    while medoids.len() < k {
        let chosen = (0..n)
            .into_par_iter()
            .filter(|c| !medoids.contains(c))
            .map(|c| {
                let gain: i64 =
                    q.row(c).iter().zip(&near).map(|(&d, &best)| (best - d).max(0)).sum();
                // Largest gain first, then smallest index.
                (std::cmp::Reverse(gain), c)
            })
            .min()
            .map(|(_, c)| c)
            .expect("k ≤ n leaves a candidate");
        for (best, &d) in near.iter_mut().zip(q.row(chosen)) {
            *best = (*best).min(d);
        }
        medoids.push(chosen);
    }
    medoids
}

/// The best (most negative change, then smallest candidate, then smallest slot) swap of a medoid
/// slot for a non-medoid, costing every pair over every point.
fn best_swap_pam(q: &Quantized, medoids: &[usize], a: &Assignment) -> Option<(i64, usize, usize)> {
    (0..q.n)
        .into_par_iter()
        .filter(|c| !medoids.contains(c))
        .map(|c| {
            let to_c = q.row(c);
            (0..medoids.len())
                .map(|slot| {
                    let delta: i64 = (0..q.n)
                        .map(|o| {
                            let d = to_c[o];
                            if a.nearest[o] == slot {
                                d.min(a.second[o]) - a.near[o]
                            } else {
                                (d - a.near[o]).min(0)
                            }
                        })
                        .sum();
                    (delta, c, slot)
                })
                .min()
                .expect("k ≥ 1")
        })
        .min()
        .map(|(delta, c, slot)| (delta, slot, c))
}

/// FastPAM1: for one candidate, the change of all `k` slots in one pass. A point closer to the
/// candidate than to its medoid moves to the candidate whichever slot is removed (a change shared
/// by all slots); otherwise only the removal of its own medoid moves it, to the candidate or its
/// second nearest.
fn best_swap_fastpam1(
    q: &Quantized,
    medoids: &[usize],
    a: &Assignment,
) -> Option<(i64, usize, usize)> {
    let k = medoids.len();
    (0..q.n)
        .into_par_iter()
        .filter(|c| !medoids.contains(c))
        .map_init(
            || vec![0i64; k],
            |own, c| {
                own.iter_mut().for_each(|x| *x = 0);
                let mut shared = 0i64;
                for (o, &d) in q.row(c).iter().enumerate() {
                    let near = a.near[o];
                    if d < near {
                        shared += d - near;
                    } else {
                        own[a.nearest[o]] += d.min(a.second[o]) - near;
                    }
                }
                let (delta, slot) = own
                    .iter()
                    .enumerate()
                    .map(|(slot, &x)| (x + shared, slot))
                    .min()
                    .expect("k ≥ 1");
                (delta, c, slot)
            },
        )
        .min()
        .map(|(delta, c, slot)| (delta, slot, c))
}
