//! The IBM Quest market-basket generator (Agrawal & Srikant, VLDB 1994), deterministic per seed.
//!
//! The generator first draws `patterns` *potentially large itemsets*: sizes `1 + Poisson(I − 1)`,
//! a fraction of each pattern's items taken from the previous pattern (`size · correlation ·
//! Exp(1)`, rounded, so that patterns share items as real baskets do), the rest drawn from an
//! item distribution with exponentially distributed weights; each pattern gets an exponentially
//! distributed weight and a *confidence* drawn from `Normal(confidence, confidence_var)`.
//! A transaction of target size `1 + Poisson(T − 1)` is then filled with weighted random patterns,
//! each *corrupted* by dropping items while a uniform draw exceeds its confidence; a pattern that
//! would overflow the transaction is, in half of the cases, put back for the next transaction.
//! Empty transactions are drawn again. This follows the published description and the behaviour
//! of IBM's `gen lit` program; the random number generator is ChaCha8, so the output is
//! reproducible from the seed but not bit-identical to IBM's files.
//!
//! With `T = 40, I = 10, N = 1000, |D| = 100,000` and the paper's `|L| = 2000` it produces data
//! whose size, mean length and number of items present match T40I10D100K (see the tests).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp1, Normal, Poisson};

use crate::db::{RawDb, TransactionDb};
use crate::error::ParamError;

/// Parameters of the Quest generator; build with [`QuestParams::new`] and check with
/// [`QuestParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct QuestParams {
    transactions: usize,
    avg_len: f64,
    pattern_len: f64,
    items: u32,
    patterns: usize,
    correlation: f64,
    confidence: f64,
    confidence_var: f64,
    seed: u64,
}

/// The most items the generator accepts.
const MAX_ITEMS: u32 = 10_000_000;
/// The most potentially large itemsets (patterns) it accepts.
const MAX_PATTERNS: usize = 10_000_000;
/// The most item occurrences it builds (about 8 GB of compressed rows).
const MAX_OCCURRENCES: f64 = 2e9;

/// Checked [`QuestParams`], ready to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidQuestParams(QuestParams);

impl QuestParams {
    /// The mandatory sizes: `|D|` transactions, mean transaction length `|T|`, mean pattern length
    /// `|I|`, and `N` items.
    pub fn new(transactions: usize, avg_len: f64, pattern_len: f64, items: u32) -> Self {
        Self {
            transactions,
            avg_len,
            pattern_len,
            items,
            patterns: 2000,
            correlation: 0.25,
            confidence: 0.75,
            confidence_var: 0.1,
            seed: 0,
        }
    }

    /// Number of potentially large itemsets `|L|` (default 2000, the value of the VLDB'94 paper).
    ///
    /// IBM's program defaulted to 10,000. At T40I10, N = 1000, |D| = 100,000 (seed 0) that leaves
    /// only 16 items unused (984 present), where 2000 gives 922 to 941 over the seeds tried and
    /// T40I10D100K has 942: fewer patterns concentrate the exponential item weights on fewer
    /// items.
    pub fn patterns(mut self, patterns: usize) -> Self {
        self.patterns = patterns;
        self
    }

    /// Correlation between consecutive patterns (default 0.25, as IBM's program).
    pub fn correlation(mut self, correlation: f64) -> Self {
        self.correlation = correlation;
        self
    }

    /// Mean and variance of the pattern confidence (defaults 0.75 and 0.1: a mean corruption
    /// level of 0.25, as IBM's program).
    pub fn confidence(mut self, mean: f64, variance: f64) -> Self {
        self.confidence = mean;
        self.confidence_var = variance;
        self
    }

    /// The seed (default 0).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for zero transactions or items, a mean length below 1, a pattern
    /// length below 1, no patterns, a correlation or mean confidence outside `[0, 1]`, or a confidence
    /// variance below 0 or infinite; [`ParamError::OutOfBounds`] for a length above the items.
    pub fn check(self) -> Result<ValidQuestParams, ParamError> {
        let range =
            |name, value: String, reason| Err(ParamError::OutOfRange { name, value, reason });
        if self.transactions == 0 {
            return range("transactions", "0".into(), "must be at least 1");
        }
        if !(1..=MAX_ITEMS).contains(&self.items) {
            return range(
                "items",
                self.items.to_string(),
                "choose between 1 and 10,000,000 (the generator keeps per-item tables)",
            );
        }
        if !(self.avg_len >= 1.0 && self.avg_len <= f64::from(self.items)) {
            return Err(ParamError::OutOfBounds {
                name: "avg-len",
                value: self.avg_len.to_string(),
                min: 1,
                max: self.items.into(),
                what: "the items (a transaction holds each item once)",
            });
        }
        if !(self.pattern_len >= 1.0 && self.pattern_len <= f64::from(self.items)) {
            return Err(ParamError::OutOfBounds {
                name: "pattern-len",
                value: self.pattern_len.to_string(),
                min: 1,
                max: self.items.into(),
                what: "the items (a pattern holds each item once)",
            });
        }
        if self.transactions as f64 * self.avg_len > MAX_OCCURRENCES {
            return range(
                "transactions",
                self.transactions.to_string(),
                "|D| · |T| (transactions times their mean length) must stay below 2·10⁹ occurrences: the database is built in memory",
            );
        }
        if !(1..=MAX_PATTERNS).contains(&self.patterns) {
            return range("patterns", self.patterns.to_string(), "choose between 1 and 10,000,000");
        }
        if !(0.0..=1.0).contains(&self.correlation) {
            return range("correlation", self.correlation.to_string(), "must lie in [0, 1]");
        }
        if !(0.0..=1.0).contains(&self.confidence) {
            return range(
                "confidence",
                self.confidence.to_string(),
                "the mean pattern confidence is a probability: choose it in [0, 1]",
            );
        }
        if !(self.confidence_var >= 0.0 && self.confidence_var.is_finite()) {
            return range(
                "confidence-var",
                self.confidence_var.to_string(),
                "must be a finite number ≥ 0",
            );
        }
        Ok(ValidQuestParams(self))
    }
}

/// A Poisson draw of mean `mean`, or 0 when the mean is 0 (rand_distr rejects a zero mean).
fn poisson(mean: f64, rng: &mut ChaCha8Rng) -> usize {
    if mean <= 0.0 {
        return 0;
    }
    let d = Poisson::new(mean).expect("positive finite mean");
    let x: f64 = d.sample(rng);
    x as usize
}

/// Draws index `i` with probability proportional to its weight, from cumulative weights.
fn weighted(cumulative: &[f64], rng: &mut ChaCha8Rng) -> usize {
    let total = *cumulative.last().expect("non-empty");
    let r = rng.random::<f64>() * total;
    cumulative.partition_point(|&c| c <= r).min(cumulative.len() - 1)
}

/// Chooses `k` of the positions `0..n` at random (partial Fisher–Yates into `scratch`).
fn choose<'s>(
    n: usize,
    k: usize,
    scratch: &'s mut Vec<usize>,
    rng: &mut ChaCha8Rng,
) -> &'s [usize] {
    scratch.clear();
    scratch.extend(0..n);
    for i in 0..k {
        let j = rng.random_range(i..n);
        scratch.swap(i, j);
    }
    &scratch[..k]
}

struct Pattern {
    items: Vec<u32>,
    confidence: f64,
}

/// What every transaction is drawn from: the patterns and their weights (the items' weights
/// only choose the patterns' items).
struct Model {
    patterns: Vec<Pattern>,
    pattern_cum: Vec<f64>,
}

impl ValidQuestParams {
    /// Generates the database. Item labels are `0..N` (as in IBM's files); items never drawn are
    /// simply absent from the dictionary.
    ///
    /// # Complexity
    /// `O(|L|·I + |D|·T·log|L|)` time, `O(|L|·I + N)` extra space besides the output.
    pub fn generate(&self) -> TransactionDb {
        let mut rng = ChaCha8Rng::seed_from_u64(self.0.seed);
        let model = self.model(&mut rng);
        self.draw(&model, &mut rng)
    }

    /// Part `part` of a Quest database too large for one process: `|D|` transactions (the
    /// part's size) drawn from the same items' weights and patterns as [`generate`] draws from
    /// (the model is the seed's), each part from a ChaCha8 stream of its own (stream `part + 1`
    /// of the seed's key; [`generate`] draws from stream 0). Parts are independent and can be
    /// made in any order, anywhere: their union is a Quest database of the same model,
    /// not the bytes [`generate`] makes for the union's size.
    ///
    /// [`generate`]: ValidQuestParams::generate
    pub fn generate_part(&self, part: u64) -> TransactionDb {
        let mut rng = ChaCha8Rng::seed_from_u64(self.0.seed);
        let model = self.model(&mut rng);
        rng.set_stream(part.wrapping_add(1));
        rng.set_word_pos(0);
        self.draw(&model, &mut rng)
    }

    fn model(&self, rng: &mut ChaCha8Rng) -> Model {
        let p = &self.0;
        let mut scratch = Vec::new();
        let mut item_cum: Vec<f64> = Vec::with_capacity(p.items as usize);
        let mut acc = 0.0;
        for _ in 0..p.items {
            let w: f64 = Exp1.sample(rng);
            acc += w;
            item_cum.push(acc);
        }

        let confidence = Normal::new(p.confidence, p.confidence_var.sqrt()).expect("checked");
        let mut patterns: Vec<Pattern> = Vec::with_capacity(p.patterns);
        let mut pattern_cum: Vec<f64> = Vec::with_capacity(p.patterns);
        acc = 0.0;
        for i in 0..p.patterns {
            let size = 1 + poisson(p.pattern_len - 1.0, rng);
            let mut items = Vec::with_capacity(size);
            if i > 0 && p.correlation > 0.0 {
                let prev = &patterns[i - 1].items;
                let e: f64 = Exp1.sample(rng);
                let same =
                    ((size as f64 * p.correlation * e + 0.5) as usize).min(prev.len()).min(size);
                for &pos in choose(prev.len(), same, &mut scratch, rng) {
                    items.push(prev[pos]);
                }
            }
            while items.len() < size {
                items.push(weighted(&item_cum, rng) as u32);
            }
            let w: f64 = Exp1.sample(rng);
            acc += w;
            pattern_cum.push(acc);
            patterns.push(Pattern { items, confidence: confidence.sample(rng) });
        }
        Model { patterns, pattern_cum }
    }

    fn draw(&self, model: &Model, rng: &mut ChaCha8Rng) -> TransactionDb {
        let p = &self.0;
        let Model { patterns, pattern_cum } = model;
        let mut scratch = Vec::new();
        let mut raw = RawDb::default();
        let mut in_transaction = vec![false; p.items as usize];
        let mut held_back: Option<usize> = None;
        while raw.len() < p.transactions {
            let target = 1 + poisson(p.avg_len - 1.0, rng);
            let start = raw.items.len();
            let mut drawn = 0;
            while raw.items.len() - start < target && drawn < p.patterns {
                drawn += 1;
                let k = held_back.take().unwrap_or_else(|| weighted(pattern_cum, rng));
                let pat = &patterns[k];
                let mut keep = pat.items.len();
                while keep > 0 && rng.random::<f64>() > pat.confidence {
                    keep -= 1;
                }
                if keep + (raw.items.len() - start) > target && rng.random::<f64>() > 0.5 {
                    held_back = Some(k);
                    break;
                }
                for &pos in choose(pat.items.len(), keep, &mut scratch, rng) {
                    let item = pat.items[pos];
                    if !in_transaction[item as usize] {
                        in_transaction[item as usize] = true;
                        raw.items.push(item);
                    }
                }
            }
            for &item in &raw.items[start..] {
                in_transaction[item as usize] = false;
            }
            if raw.items.len() == start {
                continue; // IBM's program draws an empty transaction again
            }
            raw.close_transaction();
        }
        raw.finish_int()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_per_seed() {
        let p = QuestParams::new(500, 10.0, 4.0, 200).seed(7).check().unwrap();
        assert_eq!(p.generate(), p.generate());
        let q = QuestParams::new(500, 10.0, 4.0, 200).seed(8).check().unwrap();
        assert_ne!(p.generate(), q.generate());
    }

    /// The items of `db` by decreasing support, as labels: the model's shape.
    fn top_items(db: &TransactionDb, count: usize) -> std::collections::HashSet<String> {
        let mut items: Vec<crate::ItemId> = (0..db.num_items() as crate::ItemId).collect();
        items.sort_by_key(|&i| std::cmp::Reverse(db.supports()[i as usize]));
        items.iter().take(count).map(|&i| db.label(i).to_string()).collect()
    }

    #[test]
    fn parts_are_their_own_streams_of_one_model() {
        let p = QuestParams::new(20_000, 8.0, 4.0, 1000).seed(5).check().unwrap();
        let (a, b) = (p.generate_part(0), p.generate_part(1));
        assert_eq!(a, p.generate_part(0), "a part repeats");
        assert_ne!(a, b);
        assert_ne!(a, p.generate(), "a part is not the whole's stream");
        assert!(a.len() == 20_000 && b.len() == 20_000);
        assert!(a.iter().chain(b.iter()).all(|t| !t.is_empty()));
        // One model: the parts' most frequent items are the whole's; another seed's model puts
        // its weight on other items.
        let (top_a, top_b, top_whole) =
            (top_items(&a, 30), top_items(&b, 30), top_items(&p.generate(), 30));
        let other = QuestParams::new(20_000, 8.0, 4.0, 1000).seed(6).check().unwrap();
        let top_other = top_items(&other.generate_part(0), 30);
        assert!(top_a.intersection(&top_b).count() >= 24, "{top_a:?} {top_b:?}");
        assert!(top_a.intersection(&top_whole).count() >= 24);
        assert!(top_a.intersection(&top_other).count() <= 10, "{top_other:?}");
        // Streams are by part number: the last part is valid too.
        assert!(!p.generate_part(u64::MAX - 1).is_empty());
    }

    #[test]
    fn no_empty_transactions_and_labels_in_range() {
        let db = QuestParams::new(300, 3.0, 2.0, 50).seed(1).check().unwrap().generate();
        assert_eq!(db.len(), 300);
        assert!(db.iter().all(|t| !t.is_empty()));
        let crate::ItemLabels::Int(labels) = db.labels() else { panic!("integer labels") };
        assert!(labels.iter().all(|&l| l < 50));
    }

    #[test]
    fn validation() {
        assert_eq!(QuestParams::new(0, 10.0, 4.0, 10).check().unwrap_err().name(), "transactions");
        assert_eq!(QuestParams::new(10, 0.5, 4.0, 10).check().unwrap_err().name(), "avg-len");
        assert_eq!(
            QuestParams::new(10, 10.0, f64::NAN, 10).check().unwrap_err().name(),
            "pattern-len"
        );
        assert_eq!(QuestParams::new(10, 10.0, 4.0, 0).check().unwrap_err().name(), "items");
        assert_eq!(
            QuestParams::new(10, 10.0, 4.0, 10).patterns(0).check().unwrap_err().name(),
            "patterns"
        );
        assert_eq!(
            QuestParams::new(10, 10.0, 4.0, 10).correlation(1.5).check().unwrap_err().name(),
            "correlation"
        );
    }

    /// Values a flag can hold that would abort, panic or hang are refused by name.
    #[test]
    fn absurd_sizes_are_refused_naming_the_rule() {
        let refused = |p: QuestParams| p.check().expect_err("refused").name();
        assert_eq!(refused(QuestParams::new(10, 1e20, 4.0, 1000)), "avg-len");
        assert_eq!(refused(QuestParams::new(10, 20.0, 4.0, 10)), "avg-len");
        assert_eq!(refused(QuestParams::new(10, 10.0, 4.0, u32::MAX)), "items");
        assert_eq!(refused(QuestParams::new(10, 10.0, 1e9, 1000)), "pattern-len");
        assert_eq!(refused(QuestParams::new(usize::MAX, 10.0, 4.0, 1000)), "transactions");
        assert_eq!(refused(QuestParams::new(10, 10.0, 4.0, 1000).patterns(usize::MAX)), "patterns");
        assert!(QuestParams::new(10_000_000, 10.0, 4.0, 5000).check().is_ok());
    }
}
