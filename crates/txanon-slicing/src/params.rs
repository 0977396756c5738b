//! Parameters of the three methods.

use txanon_data::ParamError;

/// How attributes are grouped into columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnSpec {
    /// `c` columns found by PAM k-medoids on `1 − φ²` (the paper's attribute partitioning).
    Count(usize),
    /// `c − 1` columns of the non-sensitive attributes by PAM k-medoids on `1 − φ²`, and the
    /// sensitive attribute alone in the last. When the attributes that correlate with the
    /// sensitive one share its column, their values predict it and no bucketing can be
    /// ℓ-diverse (the case of Adult's Occupation); alone, it is matched on nothing.
    SensitiveAlone(usize),
    /// Columns given by attribute names; every attribute exactly once.
    Explicit(Vec<Vec<String>>),
}

/// What the tuple partition does when the cut along the widest attribute fails the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CutPolicy {
    /// The paper's Algorithm 1: the bucket becomes final.
    #[default]
    FirstCut,
    /// Try the cut along the next widest attribute, and so on; the bucket is final when none
    /// passes. More checks, smaller buckets.
    AnyCut,
}

/// Parameters of [`anonymize`](crate::anonymize); build with [`SlicingParams::new`], validate with
/// [`SlicingParams::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlicingParams {
    columns: ColumnSpec,
    l: usize,
    bins: usize,
    generalize: Option<usize>,
    cut: CutPolicy,
    seed: Option<u64>,
    cross_check: bool,
}

/// Checked [`SlicingParams`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidSlicingParams(SlicingParams);

impl SlicingParams {
    /// `columns` and diversity `l`; numeric attributes cut into 10 intervals for φ², no column
    /// generalization, a seed from the operating system.
    pub fn new(columns: ColumnSpec, l: usize) -> Self {
        Self {
            columns,
            l,
            bins: 10,
            generalize: None,
            cut: CutPolicy::FirstCut,
            seed: None,
            cross_check: false,
        }
    }

    /// Intervals of a numeric attribute when φ² is computed (default 10; see
    /// [`Microdata::discretized`](crate::Microdata::discretized)).
    pub fn bins(mut self, bins: usize) -> Self {
        self.bins = bins;
        self
    }

    /// Column generalization: every column value made to occur at least `k` times (off by
    /// default).
    pub fn generalize(mut self, k: Option<usize>) -> Self {
        self.generalize = k;
        self
    }

    /// What happens when a bucket's first cut fails the check (default: the paper's).
    pub fn cut(mut self, cut: CutPolicy) -> Self {
        self.cut = cut;
        self
    }

    /// Seed of the ChaCha20 generator behind the permutations and the bucket order; `None`
    /// (the default) seeds it from the operating system.
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// Test aid: after every split decision, compare the incremental diversity check with the
    /// naive one over all buckets, and panic if they differ. Quadratic; for small tables only.
    #[doc(hidden)]
    pub fn cross_check(mut self, on: bool) -> Self {
        self.cross_check = on;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `l < 2` (which protects nothing), fewer than 2 columns, an empty column,
    /// `bins < 2`, or a generalization `k < 1`.
    pub fn check(self) -> Result<ValidSlicingParams, ParamError> {
        if self.l < 2 {
            return Err(out_of_range("l", self.l, "at least 2: ℓ = 1 protects nothing"));
        }
        match &self.columns {
            ColumnSpec::Count(c) | ColumnSpec::SensitiveAlone(c) if *c < 2 => {
                return Err(out_of_range("columns", *c, "at least 2 (one column is not slicing)"));
            }
            ColumnSpec::Explicit(cols) if cols.len() < 2 => {
                return Err(out_of_range("columns", cols.len(), "at least 2 columns"));
            }
            ColumnSpec::Explicit(cols) if cols.iter().any(Vec::is_empty) => {
                return Err(out_of_range("columns", cols.len(), "no empty column"));
            }
            _ => {}
        }
        if self.bins < 2 {
            return Err(out_of_range("bins", self.bins, "at least 2"));
        }
        if let Some(k) = self.generalize
            && k < 1
        {
            return Err(out_of_range("generalize", k, "at least 1"));
        }
        Ok(ValidSlicingParams(self))
    }
}

impl ValidSlicingParams {
    /// The column specification.
    pub fn columns(&self) -> &ColumnSpec {
        &self.0.columns
    }

    /// Diversity `l`.
    pub fn l(&self) -> usize {
        self.0.l
    }

    /// Intervals of numeric attributes for φ².
    pub fn bins(&self) -> usize {
        self.0.bins
    }

    /// Column generalization's `k`.
    pub fn generalize(&self) -> Option<usize> {
        self.0.generalize
    }

    /// The cut policy.
    pub fn cut(&self) -> CutPolicy {
        self.0.cut
    }

    /// The seed.
    pub fn seed(&self) -> Option<u64> {
        self.0.seed
    }

    pub(crate) fn cross_check(&self) -> bool {
        self.0.cross_check
    }
}

/// Parameters of the two baselines: `k` (Mondrian's k-anonymity; Anatomy ignores it) and `l`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaselineParams {
    k: usize,
    l: usize,
    seed: Option<u64>,
}

/// Checked [`BaselineParams`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidBaselineParams(BaselineParams);

impl BaselineParams {
    /// k-anonymity `k` (Mondrian only) and diversity `l`, seeded from the operating system.
    pub fn new(k: usize, l: usize) -> Self {
        Self { k, l, seed: None }
    }

    /// Seed of the publication's shuffles; `None` (the default) seeds from the OS.
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// Validates.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `k < 1` or `l < 2` (which protects nothing).
    pub fn check(self) -> Result<ValidBaselineParams, ParamError> {
        if self.k < 1 {
            return Err(out_of_range("k", self.k, "at least 1"));
        }
        if self.l < 2 {
            return Err(out_of_range("l", self.l, "at least 2: ℓ = 1 protects nothing"));
        }
        Ok(ValidBaselineParams(self))
    }
}

impl ValidBaselineParams {
    /// k.
    pub fn k(&self) -> usize {
        self.0.k
    }

    /// l.
    pub fn l(&self) -> usize {
        self.0.l
    }

    /// The seed.
    pub fn seed(&self) -> Option<u64> {
        self.0.seed
    }
}

/// The ChaCha20 generator of a publication: seeded when asked, else from the operating system.
/// Relative tolerance of the bound `p(t, s) ≤ 1/ℓ` on floating-point sums: part of what
/// ℓ-diversity means here, shared by the algorithm's check and the audit.
pub(crate) const TOLERANCE: f64 = 1e-9;

pub(crate) use txanon_data::publication_rng;

fn out_of_range(name: &'static str, value: usize, reason: &'static str) -> ParamError {
    ParamError::OutOfRange { name, value: value.to_string(), reason }
}
