//! Parameters of (h,k,p)-coherence.

use txanon_data::ParamError;
use txanon_data::progress::Progress;

/// How the numbers of moles and nuggets holding each item are counted and kept up to date. All
/// three give the same counts, hence the same suppressions in the same order (a test says so);
/// they differ in cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    /// Through the mole border's two sides, without enumerating moles: the itemsets below its
    /// maximal side `L` (those that occur) are counted per item by FP-Growth at support 1 with
    /// length at most `p`, and those among them containing no minimal mole of `U` (the
    /// non-moles, few: they are frequent at support `k`) are subtracted. After suppressing
    /// `v`, the same counts on the transactions holding `v` give the losers. Nuggets are
    /// counted by FP-Growth at support `k′`, and listed by the same search while there are at
    /// most 2²⁰ (a suppression then deletes those holding its item; past that, it counts them
    /// on the transactions holding the item). The default.
    Counting,
    /// The paper's Section 6: the mole border's edges `⟨α, β⟩`, `W` over them without double
    /// counting, and Compute-δ over the edges holding `v` after suppressing `v`. Nuggets as in
    /// [`Engine::Counting`]: their length is unbounded, where inclusion-exclusion over the
    /// nugget border's edges is exponential.
    BorderEdges,
    /// The reference: every mole and every nugget materialized (listed with its support), the
    /// counts updated by deleting those holding the suppressed item. For `p ≤ 4`.
    Enumerate,
}

/// Parameters of [`anonymize`](crate::anonymize); build with [`CoherenceParams::new`],
/// validate with [`CoherenceParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct CoherenceParams {
    h: f64,
    k: u32,
    p: usize,
    nugget_support: u32,
    engine: Engine,
    enumeration_limit: u64,
    max_itemsets: u64,
    seed: Option<u64>,
    progress: Option<Progress>,
}

/// The default [`CoherenceParams::max_itemsets`]: 10¹² public itemsets of at most `p` items,
/// counted with repeats. Kosarak-shaped data at 10⁷ transactions and p = 3 is about 2·10¹¹ and
/// takes three minutes; 10¹² is hours of work, and one transaction of 1.5 million items at
/// p = 2 (1.1·10¹² pairs) is refused before it fills the memory.
pub const DEFAULT_MAX_ITEMSETS: u64 = 1_000_000_000_000;

/// Checked [`CoherenceParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct ValidCoherenceParams(CoherenceParams);

impl CoherenceParams {
    /// `(h, k, p)`: an attacker who knows at most `p` public items of a person must find at
    /// least `k` matching transactions, and must not infer any private item with probability
    /// above `h`; nuggets are itemsets in at least `nugget_support` (the paper's `k′`)
    /// transactions.
    pub fn new(h: f64, k: u32, p: usize, nugget_support: u32) -> Self {
        Self {
            h,
            k,
            p,
            nugget_support,
            engine: Engine::Counting,
            enumeration_limit: 300_000_000,
            max_itemsets: DEFAULT_MAX_ITEMSETS,
            seed: None,
            progress: None,
        }
    }

    /// Where the method reports its phases (the pre-step, the non-moles, the itemsets that
    /// occur, the per-item counts, the greedy loop as items suppressed out of those holding
    /// moles, the audit) for a front end to draw; none by default. It changes nothing in the
    /// result.
    pub fn progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The counting engine (default [`Engine::Counting`]).
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = engine;
        self
    }

    /// With [`Engine::Enumerate`], refuse inputs whose public itemsets of length at most `p`,
    /// counted with repeats (`Σ_t Σ_{i≤p} C(|t|, i)`), exceed this (default 300 million, a few
    /// GB of memory).
    pub fn enumeration_limit(mut self, limit: u64) -> Self {
        self.enumeration_limit = limit;
        self
    }

    /// Refuse, before the work, inputs whose public itemsets of at most `p` items (after the
    /// pre-step) exceed this many: counted with repeats over the transactions, `Σ_t Σ_{i≤p}
    /// C(|t|, i)`, each length capped by the itemsets the public items can form (default
    /// [`DEFAULT_MAX_ITEMSETS`]). The work and the memory of every engine grow with it.
    pub fn max_itemsets(mut self, limit: u64) -> Self {
        self.max_itemsets = limit;
        self
    }

    /// Seed of the ChaCha20 shuffle of the published transactions; `None` (the default) seeds
    /// it from the operating system. The suppressions themselves are deterministic.
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `h` outside `[0, 1)`, `k` below 2, `p` or `k′` below 1, or the
    /// enumeration engine with `p` above 4.
    pub fn check(self) -> Result<ValidCoherenceParams, ParamError> {
        let bad = |name, value: String, reason| Err(ParamError::OutOfRange { name, value, reason });
        if !(0.0..1.0).contains(&self.h) {
            return bad(
                "h",
                self.h.to_string(),
                "a probability bound in [0, 1): h ≥ 1 bounds nothing",
            );
        }
        if self.k < 2 {
            return bad("k", self.k.to_string(), "at least 2: k = 1 forbids nothing");
        }
        if self.p < 1 {
            return bad("p", "0".into(), "an attacker knows at least one item");
        }
        if self.nugget_support < 1 {
            return bad("nugget-support", "0".into(), "at least 1 transaction");
        }
        if self.engine == Engine::Enumerate && self.p > 4 {
            return bad("p", self.p.to_string(), "the enumeration reference handles p ≤ 4");
        }
        Ok(ValidCoherenceParams(self))
    }
}

impl ValidCoherenceParams {
    /// Where the method reports its phases, if anywhere.
    pub fn progress_handle(&self) -> Option<&Progress> {
        self.0.progress.as_ref()
    }

    /// The breach bound `h`.
    pub fn h(&self) -> f64 {
        self.0.h
    }

    /// The cohort size `k`.
    pub fn k(&self) -> u32 {
        self.0.k
    }

    /// The attacker's power `p`.
    pub fn p(&self) -> usize {
        self.0.p
    }

    /// The nugget support `k′`.
    pub fn nugget_support(&self) -> u32 {
        self.0.nugget_support
    }

    /// The engine.
    pub fn engine(&self) -> Engine {
        self.0.engine
    }

    /// The enumeration limit.
    pub fn enumeration_limit(&self) -> u64 {
        self.0.enumeration_limit
    }

    /// The limit on the public itemsets to examine.
    pub fn max_itemsets(&self) -> u64 {
        self.0.max_itemsets
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
        assert_eq!(CoherenceParams::new(1.5, 3, 3, 4).check().unwrap_err().name(), "h");
        assert_eq!(CoherenceParams::new(-0.1, 3, 3, 4).check().unwrap_err().name(), "h");
        assert_eq!(CoherenceParams::new(0.5, 0, 3, 4).check().unwrap_err().name(), "k");
        assert_eq!(CoherenceParams::new(0.5, 1, 3, 4).check().unwrap_err().name(), "k");
        assert_eq!(CoherenceParams::new(1.0, 3, 3, 4).check().unwrap_err().name(), "h");
        assert_eq!(CoherenceParams::new(0.5, 3, 0, 4).check().unwrap_err().name(), "p");
        assert_eq!(
            CoherenceParams::new(0.5, 3, 3, 0).check().unwrap_err().name(),
            "nugget-support"
        );
        assert_eq!(
            CoherenceParams::new(0.5, 3, 5, 4)
                .engine(Engine::Enumerate)
                .check()
                .unwrap_err()
                .name(),
            "p"
        );
        assert!(CoherenceParams::new(0.5, 3, 5, 4).check().is_ok());
    }
}
