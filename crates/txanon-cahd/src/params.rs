//! Parameters of CAHD.

use txanon_band::GraphKind;
use txanon_data::ParamError;
use txanon_data::progress::Progress;

/// The order in which transactions are walked and their neighbours taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BandOrder {
    /// Reverse Cuthill-McKee on the given graph over the QID items (CAHD).
    Rcm(GraphKind),
    /// The input order: the baseline that shows what the band buys.
    Input,
}

/// Parameters of [`anonymize`](crate::anonymize); build with [`CahdParams::new`], validate with
/// [`CahdParams::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CahdParams {
    p: usize,
    alpha: usize,
    order: BandOrder,
    seed: Option<u64>,
    progress: Option<Progress>,
}

/// Checked [`CahdParams`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidCahdParams(CahdParams);

impl CahdParams {
    /// Privacy degree `p`: in every published group, each sensitive item occurs in at most
    /// `1/p` of the group's transactions, so it is linked to a person with probability at most
    /// `1/p`.
    pub fn new(p: usize) -> Self {
        Self {
            p,
            alpha: 3,
            order: BandOrder::Rcm(GraphKind::SharedItems),
            seed: None,
            progress: None,
        }
    }

    /// Candidate factor α: a sensitive transaction's candidates are its `α·p` nearest
    /// non-conflicting predecessors and `α·p` successors in the band (default 3, the paper's).
    pub fn alpha(mut self, alpha: usize) -> Self {
        self.alpha = alpha;
        self
    }

    /// The order transactions are grouped in (default RCM on the `A·Aᵀ` pattern of the QID
    /// items, the paper's).
    pub fn order(mut self, order: BandOrder) -> Self {
        self.order = order;
        self
    }

    /// Seed of the publication's shuffles (default: drawn from the operating system, so the
    /// order of groups and of transactions within them carries nothing; give one only to
    /// reproduce a run). The grouping itself is deterministic.
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// Where the method reports its phases (the band order, the grouping with a count of
    /// positions, publishing and auditing) for a front end to draw; none by default. It
    /// changes nothing in the result.
    pub fn progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `p` below 2 or `α` below 1.
    pub fn check(self) -> Result<ValidCahdParams, ParamError> {
        if self.p < 2 {
            return Err(ParamError::OutOfRange {
                name: "p",
                value: self.p.to_string(),
                reason: "a privacy degree below 2 protects nothing",
            });
        }
        if self.alpha < 1 {
            return Err(ParamError::OutOfRange {
                name: "alpha",
                value: self.alpha.to_string(),
                reason: "the candidate factor must be at least 1",
            });
        }
        Ok(ValidCahdParams(self))
    }
}

impl ValidCahdParams {
    /// Where the method reports its phases, if anywhere.
    pub fn progress_handle(&self) -> Option<&Progress> {
        self.0.progress.as_ref()
    }

    /// The privacy degree.
    pub fn p(&self) -> usize {
        self.0.p
    }

    /// The candidate factor.
    pub fn alpha(&self) -> usize {
        self.0.alpha
    }

    /// The grouping order.
    pub fn order(&self) -> BandOrder {
        self.0.order
    }

    /// The seed, if given.
    pub fn seed(&self) -> Option<u64> {
        self.0.seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_below_two_is_refused() {
        assert_eq!(CahdParams::new(1).check().unwrap_err().name(), "p");
        assert!(CahdParams::new(2).check().is_ok());
    }

    #[test]
    fn alpha_zero_is_refused() {
        assert_eq!(CahdParams::new(4).alpha(0).check().unwrap_err().name(), "alpha");
        assert_eq!(CahdParams::new(4).check().unwrap().alpha(), 3);
    }
}
