//! The adversaries: a few of the target's public items known, drawn at random, and what the
//! view then tells about the target.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use txanon_data::sets::{intersection, intersection_len};
use txanon_data::{ItemId, ParamError, mix64};

use crate::error::ViewError;
use crate::view::{Own, View, Weigher};

/// A person of the original data, as the attack sees them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Target {
    /// The public (non-sensitive) items of their original record, ascending: what an adversary
    /// may know.
    pub public: Vec<ItemId>,
    /// The sensitive items of their original record, ascending.
    pub sensitive: Vec<ItemId>,
    /// Their own published record; `None` when it was not published.
    pub own: Option<Own>,
    /// The categories of their original record's tendency (empty: no tendency to infer).
    pub labels: Vec<u32>,
}

/// What an adversary who knows `known` of the target's items concludes.
#[derive(Debug, Clone, PartialEq)]
pub struct Posterior {
    /// The probability of the target's own record (0 when it is not among the records
    /// consistent with what is known).
    pub reidentification: f64,
    /// Per sensitive item of the target, the probability that the target holds it.
    pub sensitive: Vec<(ItemId, f64)>,
    /// The probability of naming a category of the target's tendency, when the target has one
    /// and the view is of records: picking uniformly among a consistent record's tendency
    /// labels.
    pub tendency: Option<f64>,
}

impl View {
    /// The adversary's conclusions about `target` from knowing it holds `known` (sorted).
    ///
    /// Known items no published record holds tell the adversary nothing and are set aside (a
    /// suppressed item is simply absent). When no record is consistent with the rest, the
    /// adversary has learnt nothing about this target: its own record is not found
    /// (re-identification 0), and sensitive items and tendency fall back to their shares in
    /// the whole publication.
    ///
    /// # Errors
    /// [`ViewError::NoSuchRecord`] or [`ViewError::TargetItemOutOfRange`] for a target that is
    /// not over this view.
    pub fn posterior(&self, target: &Target, known: &[ItemId]) -> Result<Posterior, ViewError> {
        check_target(self, 0, target)?;
        Ok(self.posterior_with(target, known, &mut Weigher::default(), &mut Vec::new()))
    }

    fn posterior_with(
        &self,
        target: &Target,
        known: &[ItemId],
        w: &mut Weigher,
        kept: &mut Vec<ItemId>,
    ) -> Posterior {
        self.read_all(known, kept);
        kept.retain(|&i| !self.holders(i).is_empty());
        let n = self.records() as f64;
        let tendency_on = self.records_only() && !target.labels.is_empty();
        let prior_sensitive = |s: ItemId| self.item_supports()[s as usize] / n;
        let prior_tendency = || target.labels.iter().map(|&c| self.label_mass(c)).sum::<f64>() / n;
        let own_weight = |w: &mut Weigher, kept: &[ItemId]| {
            target.own.as_ref().map_or(0.0, |o| self.own_weight(o, kept, w))
        };
        let fallback = |reidentification: f64| Posterior {
            reidentification,
            sensitive: target.sensitive.iter().map(|&s| (s, prior_sensitive(s))).collect(),
            tendency: tendency_on.then(prior_tendency),
        };
        let Some(rarest) = self.rarest(kept) else {
            // Nothing known that the publication shows: every record is a candidate.
            return fallback(own_weight(w, kept) / n);
        };
        if self.records_only() {
            return self.posterior_of_records(target, kept, w).unwrap_or_else(|| fallback(0.0));
        }
        // Groups (not records): only groups holding every known item can weigh anything, so
        // the candidates are the intersection of the known items' group lists; with one known
        // item its total is its support, and only the groups also holding a sensitive item are
        // weighed for it.
        self.holding_all(kept, w);
        let one = kept.len() == 1;
        let mut candidates = std::mem::take(&mut w.records);
        if one {
            candidates.clear();
            candidates.extend_from_slice(self.holders(rarest));
        }
        kept.sort_unstable();
        let total: f64 =
            if one { self.view_support(rarest) } else { self.weigh(&candidates, kept, w) };
        let mut sensitive = Vec::with_capacity(target.sensitive.len());
        let mut both = std::mem::take(&mut w.spare);
        let mut extended = std::mem::take(&mut w.extended);
        for &s in &target.sensitive {
            let read = self.read(s);
            intersection(&candidates, self.holders(read), &mut both);
            extended.clear();
            extended.extend_from_slice(kept);
            if let Err(at) = extended.binary_search(&read) {
                extended.insert(at, read);
            }
            let mass = self.weigh(&both, &extended, w);
            sensitive.push((s, mass));
        }
        w.extended = extended;
        w.records = candidates;
        w.spare = both;
        if total == 0.0 {
            return fallback(0.0);
        }
        Posterior {
            reidentification: own_weight(w, kept) / total,
            sensitive: sensitive.into_iter().map(|(s, x)| (s, x / total)).collect(),
            tendency: None,
        }
    }

    /// [`View::posterior_with`] for a view of records, where every weight is 0 or 1: the
    /// consistent records are the intersection of the known items' record lists, and each
    /// sensitive item's share an intersection count. `None` when no record is consistent.
    fn posterior_of_records(
        &self,
        target: &Target,
        kept: &mut [ItemId],
        w: &mut Weigher,
    ) -> Option<Posterior> {
        self.holding_all(kept, w);
        let one = kept.len() == 1;
        let records: &[u32] = if one { self.holders(kept[0]) } else { &w.records };
        if records.is_empty() {
            return None;
        }
        let total = records.len() as f64;
        let linked = target.own.as_ref().is_some_and(|o| records.binary_search(&o.group).is_ok());
        let tendency = (self.records_only() && !target.labels.is_empty()).then(|| {
            let named: f64 = if one {
                target.labels.iter().map(|&c| self.item_label_mass(kept[0], c)).sum()
            } else {
                records
                    .iter()
                    .map(|&g| {
                        let labels = self.labels(g);
                        let hits = labels.iter().filter(|c| target.labels.contains(c)).count();
                        if labels.is_empty() { 0.0 } else { hits as f64 / labels.len() as f64 }
                    })
                    .sum()
            };
            named / total
        });
        Some(Posterior {
            reidentification: if linked { 1.0 / total } else { 0.0 },
            sensitive: target
                .sensitive
                .iter()
                .map(|&s| (s, intersection_len(records, self.holders(self.read(s))) as f64 / total))
                .collect(),
            tendency,
        })
    }
}

impl View {
    /// Sorts `kept` rarest first and, for two or more items, leaves in `w.records` the groups
    /// holding every one of them (the intersection of their group lists).
    ///
    /// Frequent items have bitsets ([`View::holder_bits`]): when every item has one, the
    /// bitsets are ANDed word by word and the groups listed from the result (two lists of tens
    /// of thousands of groups merge in far longer); otherwise the rarest item's list is filtered,
    /// by a bit test for an item with a bitset, by intersection for one without.
    pub(crate) fn holding_all(&self, kept: &mut [ItemId], w: &mut Weigher) {
        kept.sort_unstable_by_key(|&i| self.holders(i).len());
        if kept.len() < 2 {
            return;
        }
        if let Some(first) = self.holder_bits(kept[0])
            && kept[1..].iter().all(|&i| self.holder_bits(i).is_some())
        {
            w.words.clear();
            w.words.extend_from_slice(first);
            for b in kept[1..].iter().filter_map(|&i| self.holder_bits(i)) {
                for (x, y) in w.words.iter_mut().zip(b) {
                    *x &= y;
                }
            }
            w.records.clear();
            for (k, &word) in w.words.iter().enumerate() {
                let mut rest = word;
                while rest != 0 {
                    w.records.push(k as u32 * 64 + rest.trailing_zeros());
                    rest &= rest - 1;
                }
            }
            return;
        }
        let held = |b: &[u64], g: u32| b[g as usize / 64] >> (g % 64) & 1 == 1;
        match self.holder_bits(kept[1]) {
            Some(b) => {
                w.records.clear();
                w.records.extend(self.holders(kept[0]).iter().copied().filter(|&g| held(b, g)));
            }
            None => intersection(self.holders(kept[0]), self.holders(kept[1]), &mut w.records),
        }
        for &i in &kept[2..] {
            match self.holder_bits(i) {
                Some(b) => w.records.retain(|&g| held(b, g)),
                None => {
                    intersection(&w.records, self.holders(i), &mut w.spare);
                    std::mem::swap(&mut w.records, &mut w.spare);
                }
            }
        }
    }
}

fn check_target(view: &View, at: usize, target: &Target) -> Result<(), ViewError> {
    if let Some(&item) =
        target.public.iter().chain(&target.sensitive).find(|&&i| i as usize >= view.num_items())
    {
        return Err(ViewError::TargetItemOutOfRange { target: at, item, items: view.num_items() });
    }
    if target.own.as_ref().is_some_and(|own| !view.is_valid(own)) {
        return Err(ViewError::NoSuchRecord { target: at });
    }
    Ok(())
}

/// How the adversaries are drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttackParams {
    known: Vec<usize>,
    draws: usize,
    seed: u64,
    sample: Option<usize>,
}

/// [`AttackParams`] that passed [`AttackParams::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidAttackParams(AttackParams);

impl Default for AttackParams {
    fn default() -> Self {
        Self { known: vec![1, 2, 3, 4], draws: 10, seed: 0, sample: None }
    }
}

impl AttackParams {
    /// `q` = 1…4 known items, 10 draws per target, every target, seed 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The numbers of known items `q` to attack with.
    pub fn known(mut self, known: Vec<usize>) -> Self {
        self.known = known;
        self
    }

    /// Random draws of the known items per target and `q`.
    pub fn draws(mut self, draws: usize) -> Self {
        self.draws = draws;
        self
    }

    /// The seed of the draws (the attack's randomness reaches no publication).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Attack a uniform random sample of this many targets instead of all.
    pub fn sample(mut self, sample: Option<usize>) -> Self {
        self.sample = sample;
        self
    }

    /// Validates.
    ///
    /// # Errors
    /// [`ParamError::OutOfBounds`] for no `q`, a `q` outside 1…32, draws outside 1…10,000, or a
    /// sample of 0.
    pub fn check(self) -> Result<ValidAttackParams, ParamError> {
        if self.known.is_empty() {
            return Err(bounds("known", "none", 1, 32, "at least one number of known items"));
        }
        if let Some(&q) = self.known.iter().find(|&&q| !(1..=32).contains(&q)) {
            return Err(bounds("known", &q.to_string(), 1, 32, "items an adversary knows"));
        }
        if !(1..=10_000).contains(&self.draws) {
            return Err(bounds("draws", &self.draws.to_string(), 1, 10_000, "draws per target"));
        }
        if self.sample == Some(0) {
            return Err(bounds("targets", "0", 1, u64::MAX, "targets to attack"));
        }
        Ok(ValidAttackParams(self))
    }
}

fn bounds(name: &'static str, value: &str, min: u64, max: u64, what: &'static str) -> ParamError {
    ParamError::OutOfBounds { name, value: value.to_string(), min, max, what }
}

impl ValidAttackParams {
    /// The numbers of known items.
    pub fn known(&self) -> &[usize] {
        &self.0.known
    }

    /// Draws per target and `q`.
    pub fn draws(&self) -> usize {
        self.0.draws
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.0.seed
    }

    /// The sample size, if any.
    pub fn sample(&self) -> Option<usize> {
        self.0.sample
    }
}

/// The distribution over targets of one adversary's success probability.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Risk {
    /// Targets attacked.
    pub targets: usize,
    /// The mean probability.
    pub mean: f64,
    /// The 95th percentile (nearest rank).
    pub p95: f64,
    /// The 99th percentile (nearest rank).
    pub p99: f64,
    /// The maximum.
    pub max: f64,
    /// The share of targets above 1/2.
    pub above_1_in_2: f64,
    /// The share of targets above 1/5.
    pub above_1_in_5: f64,
    /// The share of targets above 1/10.
    pub above_1_in_10: f64,
}

impl Risk {
    /// The statistics of `values` (one per target); all 0 for none.
    pub fn of(mut values: Vec<f64>) -> Self {
        let n = values.len();
        if n == 0 {
            return Self::default();
        }
        values.sort_unstable_by(f64::total_cmp);
        let rank = |p: f64| values[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        let above = |k: f64| values.iter().filter(|&&v| v * k > 1.0).count() as f64 / n as f64;
        Self {
            targets: n,
            mean: values.iter().sum::<f64>() / n as f64,
            p95: rank(0.95),
            p99: rank(0.99),
            max: values[n - 1],
            above_1_in_2: above(2.0),
            above_1_in_5: above(5.0),
            above_1_in_10: above(10.0),
        }
    }
}

/// The adversaries with `q` known items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KnownItems {
    /// `q`.
    pub known: usize,
    /// Linking the target to its own record (targets with at least `q` public items).
    pub reidentification: Risk,
    /// The probability given to the target's sensitive items (the largest of the target's,
    /// per draw; targets holding one and at least `q` public items).
    pub sensitive: Risk,
    /// Naming the target's tendency (targets with one; `None` unless the view is of records
    /// with labels).
    pub tendency: Option<Risk>,
}

/// The attack on one view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackReport {
    /// Targets attacked (all, or the sample).
    pub targets: usize,
    /// Draws of the known items per target and `q`.
    pub draws: usize,
    /// One entry per `q`, ascending as given.
    pub by_known: Vec<KnownItems>,
}

/// Attacks every target (or a seeded sample) of `view` with each `q` of `params`.
///
/// For each target with at least `q` public items, `params.draws()` sets of `q` of them are
/// drawn uniformly (ChaCha8 seeded from the seed and the target's index, so the result does not
/// depend on the threads), and each draw's [`Posterior`] computed; a target's value is the mean
/// over its draws. Targets with fewer than `q` public items are not attacked at that `q`.
///
/// # Complexity
/// Per draw, the groups holding the rarest known item, each weighed in `O(|group| · q)`
/// (through the view's inverted index); on rayon over targets.
///
/// # Errors
/// [`ViewError`] for a target not over this view.
pub fn attack(
    view: &View,
    targets: &[Target],
    params: &ValidAttackParams,
) -> Result<AttackReport, ViewError> {
    for (at, t) in targets.iter().enumerate() {
        check_target(view, at, t)?;
    }
    let chosen: Vec<usize> = match params.sample() {
        Some(m) if m < targets.len() => {
            let mut rng = ChaCha8Rng::seed_from_u64(mix64(params.seed() ^ 0x5a5a_5a5a));
            let mut picked = rand::seq::index::sample(&mut rng, targets.len(), m).into_vec();
            picked.sort_unstable();
            picked
        }
        _ => (0..targets.len()).collect(),
    };
    let known = params.known();
    // Per chosen target, per q: (reidentification, sensitive, tendency) means, if attacked.
    type Means = Vec<Option<(f64, Option<f64>, Option<f64>)>>;
    let per_target: Vec<Means> = chosen
        .par_iter()
        .map_init(
            || (Weigher::default(), Vec::new(), Vec::new()),
            |(w, kept, drawn), &t| {
                let target = &targets[t];
                let mut rng = ChaCha8Rng::seed_from_u64(mix64(params.seed() ^ mix64(t as u64)));
                known
                    .iter()
                    .map(|&q| {
                        if target.public.len() < q {
                            return None;
                        }
                        let (mut reid, mut sens, mut tend) = (0.0, 0.0, 0.0);
                        let mut has_tendency = false;
                        for _ in 0..params.draws() {
                            drawn.clear();
                            drawn.extend(
                                rand::seq::index::sample(&mut rng, target.public.len(), q)
                                    .into_iter()
                                    .map(|k| target.public[k]),
                            );
                            drawn.sort_unstable();
                            let p = view.posterior_with(target, drawn, w, kept);
                            reid += p.reidentification;
                            sens += p.sensitive.iter().map(|s| s.1).fold(0.0, f64::max);
                            if let Some(x) = p.tendency {
                                tend += x;
                                has_tendency = true;
                            }
                        }
                        let d = params.draws() as f64;
                        Some((
                            reid / d,
                            (!target.sensitive.is_empty()).then_some(sens / d),
                            has_tendency.then_some(tend / d),
                        ))
                    })
                    .collect()
            },
        )
        .collect();
    let labelled = view.records_only() && chosen.iter().any(|&t| !targets[t].labels.is_empty());
    let by_known = known
        .iter()
        .enumerate()
        .map(|(k, &q)| {
            let attacked = || per_target.iter().filter_map(|m| m[k]);
            KnownItems {
                known: q,
                reidentification: Risk::of(attacked().map(|m| m.0).collect()),
                sensitive: Risk::of(attacked().filter_map(|m| m.1).collect()),
                tendency: labelled.then(|| Risk::of(attacked().filter_map(|m| m.2).collect())),
            }
        })
        .collect();
    Ok(AttackReport { targets: chosen.len(), draws: params.draws(), by_known })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk_statistics() {
        let r = Risk::of((1..=100).map(|k| f64::from(k) / 100.0).collect());
        assert_eq!(r.targets, 100);
        assert!((r.mean - 0.505).abs() < 1e-12);
        assert_eq!(r.p95, 0.95);
        assert_eq!(r.p99, 0.99);
        assert_eq!(r.max, 1.0);
        assert_eq!(r.above_1_in_2, 0.5);
        assert_eq!(r.above_1_in_5, 0.8);
        assert_eq!(r.above_1_in_10, 0.9);
        assert_eq!(Risk::of(Vec::new()).targets, 0);
    }

    #[test]
    fn params_are_checked() {
        assert_eq!(AttackParams::new().known(vec![]).check().unwrap_err().name(), "known");
        assert_eq!(AttackParams::new().known(vec![0]).check().unwrap_err().name(), "known");
        assert_eq!(AttackParams::new().draws(0).check().unwrap_err().name(), "draws");
        assert_eq!(AttackParams::new().sample(Some(0)).check().unwrap_err().name(), "targets");
        assert!(AttackParams::new().check().is_ok());
    }
}
