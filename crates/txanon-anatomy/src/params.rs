//! Parameters of multi-dimension anatomy.

use txanon_correlate::SwapAlgorithm;
use txanon_data::ParamError;

/// Parameters of [`anatomize`](crate::anatomize); build with [`AnatomyParams::new`], validate
/// with [`AnatomyParams::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnatomyParams {
    columns: usize,
    l: usize,
    seed: Option<u64>,
    swap: SwapAlgorithm,
}

/// Checked [`AnatomyParams`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidAnatomyParams(AnatomyParams);

impl AnatomyParams {
    /// `columns` item columns (the paper's p) and diversity `l`.
    pub fn new(columns: usize, l: usize) -> Self {
        Self { columns, l, seed: None, swap: SwapAlgorithm::FastPam1 }
    }

    /// Seed of every random choice that reaches the published data (scan order, leftover
    /// placement, bucket order, the permutations). Default: drawn from the operating system, so
    /// two runs publish differently; give one only to reproduce a run.
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// The k-medoids SWAP search for the item partition (default FastPAM1; PAM gives the same
    /// columns, slower).
    pub fn swap(mut self, swap: SwapAlgorithm) -> Self {
        self.swap = swap;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for fewer than 2 columns or `l` below 2.
    pub fn check(self) -> Result<ValidAnatomyParams, ParamError> {
        if self.columns < 2 {
            return Err(ParamError::OutOfRange {
                name: "columns",
                value: self.columns.to_string(),
                reason: "anatomy needs at least 2 columns",
            });
        }
        if self.l < 2 {
            return Err(ParamError::OutOfRange {
                name: "l",
                value: self.l.to_string(),
                reason: "l-diversity needs l of at least 2 (l = 1 protects nothing)",
            });
        }
        Ok(ValidAnatomyParams(self))
    }
}

impl ValidAnatomyParams {
    /// Number of columns p.
    pub fn columns(&self) -> usize {
        self.0.columns
    }

    /// Diversity l.
    pub fn l(&self) -> usize {
        self.0.l
    }

    /// The seed, if one was given.
    pub fn seed(&self) -> Option<u64> {
        self.0.seed
    }

    /// The SWAP search.
    pub fn swap(&self) -> SwapAlgorithm {
        self.0.swap
    }
}
