//! Parameters of k-medoids.

use txanon_data::ParamError;

/// How the first medoids are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Init {
    /// PAM's BUILD: greedily add the point that lowers the total distance most.
    Build,
    /// `k` distinct points drawn uniformly with ChaCha8 from the seed (what the anatomy paper
    /// describes: "first randomly select k objects").
    Random,
}

/// How the SWAP phase of PAM searches for the medoid exchange to make (PAM's SWAP step, not
/// the swap family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MedoidSearch {
    /// Kaufman & Rousseeuw's PAM: every (medoid, non-medoid) pair, each costed over all points,
    /// `O(k (n − k) n)` per swap.
    Pam,
    /// Schubert & Rousseeuw's FastPAM1 (2019): the same best swap, with the cost change of all
    /// `k` medoids for one candidate found in one pass over the points, `O((n − k) n)` per swap.
    FastPam1,
}

/// Parameters of [`KMedoids`](crate::KMedoids); build with [`KMedoidsParams::new`], validate
/// with [`KMedoidsParams::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KMedoidsParams {
    k: usize,
    init: Init,
    medoid_search: MedoidSearch,
    max_swaps: usize,
    seed: u64,
}

/// Checked [`KMedoidsParams`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidKMedoidsParams(KMedoidsParams);

impl KMedoidsParams {
    /// `k` clusters.
    pub fn new(k: usize) -> Self {
        Self {
            k,
            init: Init::Build,
            medoid_search: MedoidSearch::FastPam1,
            max_swaps: 10_000,
            seed: 0,
        }
    }

    /// The initialization (default [`Init::Build`]).
    pub fn init(mut self, init: Init) -> Self {
        self.init = init;
        self
    }

    /// The SWAP search (default [`MedoidSearch::FastPam1`]; both give the same result).
    pub fn medoid_search(mut self, search: MedoidSearch) -> Self {
        self.medoid_search = search;
        self
    }

    /// Most swaps before stopping (default 10,000; PAM converges long before on real inputs).
    pub fn max_swaps(mut self, max_swaps: usize) -> Self {
        self.max_swaps = max_swaps;
        self
    }

    /// The seed of [`Init::Random`] (default 0; unused by BUILD, which is deterministic).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Validates the parameters; `k` against the number of points is checked when fitting.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `k = 0`.
    pub fn check(self) -> Result<ValidKMedoidsParams, ParamError> {
        if self.k == 0 {
            return Err(ParamError::OutOfRange {
                name: "k",
                value: "0".into(),
                reason: "at least one cluster is needed",
            });
        }
        Ok(ValidKMedoidsParams(self))
    }
}

impl ValidKMedoidsParams {
    /// Number of clusters.
    pub fn k(&self) -> usize {
        self.0.k
    }

    /// The initialization.
    pub fn init(&self) -> Init {
        self.0.init
    }

    /// The SWAP search.
    pub fn medoid_search(&self) -> MedoidSearch {
        self.0.medoid_search
    }

    /// Most swaps.
    pub fn max_swaps(&self) -> usize {
        self.0.max_swaps
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.0.seed
    }
}
