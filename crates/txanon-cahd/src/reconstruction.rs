//! The reconstruction error of the CAHD paper: how well the published groups answer group-by
//! queries on a sensitive item.

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use txanon_data::{ItemId, ItemIndex, ParamError, TransactionDb};
use txanon_metrics::kl_divergence;

use crate::error::CahdError;
use crate::publish::PublishedGroups;

/// How a query's QID items are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QidDraw {
    /// Uniformly among the QID items (the paper's "r random QID items"). On sparse data most
    /// items are rare, and most transactions then fall in the all-absent cell.
    Uniform,
    /// In proportion to their support, without replacement: queries about the items people
    /// actually hold.
    BySupport,
}

/// A workload of group-by queries; build with [`Workload::new`], validate with
/// [`Workload::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    r: usize,
    queries: usize,
    seed: u64,
    draw: QidDraw,
}

/// Checked [`Workload`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidWorkload(Workload);

impl Workload {
    /// Queries over `r` QID items each (the paper's r = 2…8, default 4), 100 queries, seed 0.
    pub fn new(r: usize) -> Self {
        Self { r, queries: 100, seed: 0, draw: QidDraw::Uniform }
    }

    /// How QID items are drawn (default [`QidDraw::Uniform`]).
    pub fn draw(mut self, draw: QidDraw) -> Self {
        self.draw = draw;
        self
    }

    /// Number of queries averaged (default 100).
    pub fn queries(mut self, queries: usize) -> Self {
        self.queries = queries;
        self
    }

    /// Seed of the query draws (default 0: the same queries for every method compared).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Validates the workload.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `r` outside 1..=16 (2^r cells) or no query.
    pub fn check(self) -> Result<ValidWorkload, ParamError> {
        if !(1..=16).contains(&self.r) {
            return Err(ParamError::OutOfRange {
                name: "r",
                value: self.r.to_string(),
                reason: "a query groups by 1 to 16 QID items (2^r cells)",
            });
        }
        if self.queries == 0 {
            return Err(ParamError::OutOfRange {
                name: "queries",
                value: "0".into(),
                reason: "average over at least one query",
            });
        }
        Ok(ValidWorkload(self))
    }
}

/// A published group over the original's item ids: its QID itemsets and its sensitive counts.
type GroupOverIds = (Vec<Vec<ItemId>>, Vec<(ItemId, usize)>);

/// The mean reconstruction error of a workload, and its spread.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ReconstructionError {
    /// Mean KL-divergence over the queries, in nats.
    pub mean: f64,
    /// The largest of the queries' divergences.
    pub max: f64,
    /// Queries averaged.
    pub queries: usize,
}

/// The CAHD paper's reconstruction error. A query is a sensitive item `s` (uniform among the
/// published sensitive items present in `original`) and `r` distinct QID items (among the items
/// of `original` that are not sensitive, drawn as the workload's [`QidDraw`] says). Its cells are the `2^r` combinations of
/// presence and absence of those items. In the original, `Act_C` counts the transactions of
/// cell `C` that hold `s`. From the publication, a group `G` whose transactions fall `a_{G,C}`
/// times in cell `C` and that holds `s` `b_G` times contributes `a_{G,C}·b_G/|G|` to `Est_C`:
/// each of its transactions is equally likely to hold each occurrence. The error is
/// `KL(Act‖Est) = Σ_C Act_C · ln(Act_C / Est_C)` over both distributions normalized to sum 1,
/// averaged over the queries.
///
/// Empty cells: a cell with `Act_C = 0` contributes 0. `Est_C = 0` with `Act_C > 0` cannot
/// occur for a faithful publication (the group of a transaction of `C` holding `s` has
/// `a_{G,C} ≥ 1` and `b_G ≥ 1`); should it, [`kl_divergence`]'s floor keeps the term finite.
/// Both totals equal the support of `s`, so the normalization divides both by the same number.
///
/// # Complexity
/// `O(Σ|t| · log)` to map the publication's labels to ids (a dictionary lookup per label) and
/// index the original by item, then per query `O(Σ_{t ∋ s}|t| + Σ_{G ∋ s}Σ_{t∈G}|t| + 2^r)`: the
/// original's transactions holding `s` and the published QID itemsets of the groups holding it.
///
/// # Errors
/// [`CahdError::Mismatch`] when a published label is not an item of `original`, no published
/// sensitive item occurs in `original`, or fewer than `r` QID items exist.
pub fn reconstruction_error(
    original: &TransactionDb,
    published: &PublishedGroups,
    workload: &ValidWorkload,
) -> Result<ReconstructionError, CahdError> {
    let Workload { r, queries, seed, draw } = workload.0.clone();
    // Each item of the publication's table as an item of the original, looked up once.
    let at = published.ids_in(original).map_err(|label| {
        CahdError::Mismatch(format!("{label:?} is not an item of the original"))
    })?;
    let find = |k: u32| {
        at.get(k as usize).copied().ok_or_else(|| {
            CahdError::Mismatch(format!("item index {k} is outside the publication's table"))
        })
    };
    let mut is_sensitive = vec![false; original.num_items()];
    let mut sensitive = Vec::new();
    for &k in &published.sensitive {
        let s = find(k)?;
        is_sensitive[s as usize] = true;
        if original.supports()[s as usize] > 0 {
            sensitive.push(s);
        }
    }
    // The queries draw from the sensitive items in the order of their labels (as text), so
    // the workload is the same whatever order a publication lists them in.
    sensitive.sort_by_cached_key(|&s| original.label(s).to_string());
    if sensitive.is_empty() {
        return Err(CahdError::Mismatch(
            "no published sensitive item occurs in the original".into(),
        ));
    }
    let qid_pool: Vec<ItemId> = (0..original.num_items() as ItemId)
        .filter(|&i| !is_sensitive[i as usize] && original.supports()[i as usize] > 0)
        .collect();
    if qid_pool.len() < r {
        return Err(CahdError::Mismatch(format!(
            "{} QID items, fewer than r = {r}",
            qid_pool.len()
        )));
    }
    // The publication over the original's ids: per group, its QID itemsets and its counts.
    let mut groups: Vec<GroupOverIds> = Vec::new();
    for g in &published.groups {
        let qid = g
            .qid
            .iter()
            .map(|t| t.iter().map(|&k| find(k)).collect::<Result<Vec<_>, _>>())
            .collect::<Result<Vec<_>, _>>()?;
        let counts = g
            .sensitive
            .iter()
            .map(|&(k, c)| Ok((find(k)?, c)))
            .collect::<Result<Vec<_>, CahdError>>()?;
        groups.push((qid, counts));
    }
    let index = ItemIndex::new(original);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bit = vec![0u32; original.num_items()];
    let (mut total, mut max) = (0.0, 0.0f64);
    for _ in 0..queries {
        let s = *sensitive.choose(&mut rng).expect("non-empty");
        let chosen: Vec<usize> = match draw {
            QidDraw::Uniform => rand::seq::index::sample(&mut rng, qid_pool.len(), r).into_vec(),
            QidDraw::BySupport => rand::seq::index::sample_weighted(
                &mut rng,
                qid_pool.len(),
                |k| original.supports()[qid_pool[k] as usize] as f64,
                r,
            )
            .expect("positive supports, at least r items")
            .into_vec(),
        };
        for (k, &at) in chosen.iter().enumerate() {
            bit[qid_pool[at] as usize] = 1 << k;
        }
        let cell = |items: &mut dyn Iterator<Item = ItemId>| -> usize {
            items.map(|i| bit[i as usize] as usize).fold(0, |c, b| c | b)
        };
        let mut actual = vec![0.0; 1 << r];
        for &t in index.transactions(s) {
            actual[cell(&mut original.transaction(t as usize).iter().copied())] += 1.0;
        }
        let mut estimate = vec![0.0; 1 << r];
        for (qid, counts) in &groups {
            let Some(&(_, b)) = counts.iter().find(|(i, _)| *i == s) else { continue };
            let share = b as f64 / qid.len() as f64;
            for t in qid {
                estimate[cell(&mut t.iter().copied())] += share;
            }
        }
        let kl = kl_divergence(&actual, &estimate)
            .map_err(|e| CahdError::Mismatch(format!("query on item {s}: {e}")))?;
        total += kl;
        max = max.max(kl);
        for &at in &chosen {
            bit[qid_pool[at] as usize] = 0;
        }
    }
    Ok(ReconstructionError { mean: total / queries as f64, max, queries })
}
