//! Parameters of kᵐ-anonymization.

use txanon_data::ParamError;
use txanon_data::progress::Progress;

/// The largest `m` accepted: the paper's range (1 to 4). The combinations a transaction
/// contributes grow as `C(|t|, m)`, and the counters pack an itemset of at most four node ids
/// into one 128-bit key.
pub const MAX_M: usize = 4;

/// The largest `max_combinations` accepted: at about 37 bytes a counter (a 128-bit key and its
/// count in a hash table), 5·10⁸ counters are some 18 GB, what one 24 GB machine holds.
pub const MAX_COUNTERS: u64 = 500_000_000;

/// Which of the paper's algorithms searches the cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// Apriori Anonymization (AA, the paper's Section 5): for `i = 1 … m`, the `i`-itemsets
    /// of the data generalized by the cut so far are counted and each one in fewer than `k`
    /// transactions is fixed by the cheapest raise of the cut. The default.
    Apriori,
    /// Direct Anonymization (DA, the paper's Section 4.2): every itemset of at most `m` items
    /// counted at once and fixed in the count tree's order, without AA's level-wise shrinking.
    Direct,
    /// Optimal Anonymization (OA, the paper's Section 4.1): every cut of the hierarchy
    /// considered, the kᵐ-anonymous one of least information loss returned. Exponential in
    /// the hierarchy; for small inputs and as the tests' exact reference.
    Optimal,
}

/// Parameters of [`anonymize`](crate::anonymize); build with [`KmParams::new`], validate with
/// [`KmParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct KmParams {
    k: u32,
    m: usize,
    algorithm: Algorithm,
    max_cuts: u64,
    max_combinations: u64,
    seed: Option<u64>,
    progress: Option<Progress>,
}

/// Checked [`KmParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct ValidKmParams(KmParams);

impl KmParams {
    /// `(k, m)`: an adversary who knows at most `m` items of a person's transaction finds at
    /// least `k` published transactions holding (generalizations of) them.
    pub fn new(k: u32, m: usize) -> Self {
        Self {
            k,
            m,
            algorithm: Algorithm::Apriori,
            max_cuts: 1_000_000,
            max_combinations: 200_000_000,
            seed: None,
            progress: None,
        }
    }

    /// The algorithm (default [`Algorithm::Apriori`]).
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// With [`Algorithm::Optimal`], refuse hierarchies with more cuts than this (default one
    /// million).
    pub fn max_cuts(mut self, max_cuts: u64) -> Self {
        self.max_cuts = max_cuts;
        self
    }

    /// With AA and DA, refuse a counting pass that could hold more distinct itemsets than this
    /// (bounded by the combinations of the distinct generalized transactions and by those of
    /// the nodes that occur; default 200 million, a few GB of counters). DA counts every itemset
    /// of at most `m` items of the raw data at once: on BMS-WebView-2 at m = 4 that is far
    /// beyond it, which is why AA exists.
    pub fn max_combinations(mut self, max_combinations: u64) -> Self {
        self.max_combinations = max_combinations;
        self
    }

    /// Seed of the ChaCha20 shuffle of the published transactions; `None` (the default) seeds
    /// it from the operating system. The cut itself is deterministic.
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// Where the search reports its phases (the counting passes, the fixes, the publication)
    /// for a front end to draw; none by default. It changes nothing in the result.
    pub fn progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `k` below 2, `m` outside `1..=`[`MAX_M`], a cut limit of
    /// 0, or a counter limit outside `1..=`[`MAX_COUNTERS`].
    pub fn check(self) -> Result<ValidKmParams, ParamError> {
        let bad = |name, value: String, reason| Err(ParamError::OutOfRange { name, value, reason });
        if self.k < 2 {
            return bad("k", self.k.to_string(), "at least 2: k = 1 forbids nothing");
        }
        if !(1..=MAX_M).contains(&self.m) {
            return bad(
                "m",
                self.m.to_string(),
                "1 to 4: an adversary knows at least one item, and the paper's range ends at 4",
            );
        }
        if self.max_cuts == 0 {
            return bad("max-cuts", "0".into(), "at least 1");
        }
        if !(1..=MAX_COUNTERS).contains(&self.max_combinations) {
            return bad(
                "max-combinations",
                self.max_combinations.to_string(),
                "1 to 5·10⁸ counters: more would not fit in one machine's memory",
            );
        }
        Ok(ValidKmParams(self))
    }
}

impl ValidKmParams {
    /// The cohort size `k`.
    pub fn k(&self) -> u32 {
        self.0.k
    }

    /// The adversary's knowledge `m`.
    pub fn m(&self) -> usize {
        self.0.m
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.0.algorithm
    }

    /// The optimal search's limit on cuts.
    pub fn max_cuts(&self) -> u64 {
        self.0.max_cuts
    }

    /// The limit on the itemsets of one counting pass.
    pub fn max_combinations(&self) -> u64 {
        self.0.max_combinations
    }

    /// Where the search reports its phases, if anywhere.
    pub fn progress_handle(&self) -> Option<&Progress> {
        self.0.progress.as_ref()
    }

    /// The seed of the publication shuffle.
    pub fn seed(&self) -> Option<u64> {
        self.0.seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_refuses() {
        assert_eq!(KmParams::new(0, 2).check().unwrap_err().name(), "k");
        assert_eq!(KmParams::new(1, 2).check().unwrap_err().name(), "k");
        assert_eq!(KmParams::new(2, 0).check().unwrap_err().name(), "m");
        assert_eq!(KmParams::new(2, 5).check().unwrap_err().name(), "m");
        assert_eq!(KmParams::new(2, usize::MAX).check().unwrap_err().name(), "m");
        assert_eq!(KmParams::new(2, 2).max_cuts(0).check().unwrap_err().name(), "max-cuts");
        for limit in [0, MAX_COUNTERS + 1, u64::MAX] {
            let refused = KmParams::new(2, 2).max_combinations(limit).check().unwrap_err();
            assert_eq!(refused.name(), "max-combinations");
        }
        assert!(KmParams::new(2, 2).max_combinations(MAX_COUNTERS).check().is_ok());
        assert!(KmParams::new(2, 4).check().is_ok());
        assert!(KmParams::new(u32::MAX, 1).check().is_ok());
    }
}
