//! The independent checkers of the three publications: slicing's buckets, Mondrian's
//! generalized classes and Anatomy's two tables, each against the original microdata and the
//! diversity the auditor names. They work from the published text, the original tuples and the
//! definitions alone, and import nothing from the algorithms (a tidy test says so).

mod bucketized;
mod generalized;
mod sliced;

use std::fmt;

use serde::Serialize;
use txanon_data::ParamError;
use txanon_data::audit::Violations;

pub use bucketized::{AnatomyBaselineAuditReport, audit_anatomy};
pub use generalized::{MondrianAuditReport, audit_generalized};
pub use sliced::{SlicingAuditReport, audit};

/// The guarantee an auditor wants verified: no tuple's sensitive value inferred with
/// probability above `1/ℓ` (slicing, Anatomy), and with `k`, classes of at least `k` tuples
/// (Mondrian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SlicingClaim {
    l: u64,
    k: Option<u64>,
}

impl SlicingClaim {
    /// ℓ-diversity.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `l < 2`, which protects nothing.
    pub fn new(l: u64) -> Result<Self, ParamError> {
        if l < 2 {
            return Err(ParamError::OutOfRange {
                name: "l",
                value: l.to_string(),
                reason: "ℓ-diversity protects only for ℓ ≥ 2",
            });
        }
        Ok(Self { l, k: None })
    }

    /// ℓ-diversity and `k`-anonymity (Mondrian's classes).
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `l < 2` or `k < 2`.
    pub fn with_k(l: u64, k: u64) -> Result<Self, ParamError> {
        if k < 2 {
            return Err(ParamError::OutOfRange {
                name: "k",
                value: k.to_string(),
                reason: "k-anonymity protects only for k ≥ 2",
            });
        }
        Ok(Self { k: Some(k), ..Self::new(l)? })
    }

    /// ℓ.
    pub fn l(&self) -> u64 {
        self.l
    }

    /// k, if claimed.
    pub fn k(&self) -> Option<u64> {
        self.k
    }
}

/// A way a publication of the slicing family breaks the claim. Tuples are numbered from 1 in
/// the original's order; buckets and groups by their published ids.
#[derive(Debug, Clone, PartialEq, Serialize)]
// Serialized with its kind, as front ends hand violations over as objects (Python).
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SlicingViolation {
    /// The publication's sensitive attribute is not the original's.
    SensitiveAttribute {
        /// Named by the publication.
        found: String,
        /// The original's.
        expected: String,
    },
    /// The sensitive attribute is not in the last column of a sliced table.
    SensitiveNotLast,
    /// The published attributes are not the original's.
    Attributes {
        /// Published.
        published: Vec<String>,
        /// Original.
        original: Vec<String>,
    },
    /// Another number of rows than the original has tuples.
    RowCount {
        /// Published rows.
        published: usize,
        /// Original tuples.
        original: usize,
    },
    /// A column whose values over the whole publication are not the original tuples' (a value
    /// invented, dropped or repeated; for the sensitive attribute's column, its values with
    /// the sensitive one).
    ColumnValues {
        /// The column (0-based).
        column: usize,
    },
    /// An original tuple that cannot be placed in any bucket holding all its column values
    /// (with the other tuples placed): the buckets are not a partition of the tuples.
    NoBucketFor {
        /// The tuple.
        tuple: usize,
    },
    /// Far more published rows equal an original tuple of their bucket than independent
    /// permutations of the columns would give: the columns were not permuted.
    Unpermuted {
        /// Rows equal to an original tuple of their bucket.
        identical: u64,
        /// What independent permutations give on average.
        expected: f64,
        /// The largest count accepted.
        threshold: f64,
    },
    /// A tuple whose sensitive value is inferred above `1/ℓ`.
    Inference {
        /// The tuple.
        tuple: usize,
        /// The sensitive value.
        value: String,
        /// `p(t, s)`.
        probability: f64,
        /// The claim's ℓ.
        l: u64,
    },
    /// A Mondrian class (or an Anatomy group) of fewer than `k` tuples.
    ClassTooSmall {
        /// The class's cells, or the group's id.
        class: String,
        /// Its size.
        size: u64,
        /// The claim's `k`.
        k: u64,
    },
    /// A class or group in which one sensitive value exceeds `1/ℓ`.
    ShareAboveBound {
        /// The class's cells, or the group's id.
        class: String,
        /// The value's count.
        count: u64,
        /// The class's size.
        size: u64,
        /// The claim's ℓ.
        l: u64,
    },
    /// An original tuple covered by no Mondrian class with room for its sensitive value.
    NotCovered {
        /// The tuple.
        tuple: usize,
    },
    /// The published sensitive values are not the original's.
    SensitiveValues,
    /// An Anatomy group counting a sensitive value another number of times than the tuples its
    /// QIT rows stand for can hold it: where a quasi-identifier identifies its tuples, exactly
    /// their values.
    GroupSensitive {
        /// The group.
        group: u32,
        /// The sensitive value.
        value: String,
        /// The group's count.
        published: u64,
        /// The fewest its tuples can hold.
        least: u64,
        /// The most.
        most: u64,
    },
    /// An Anatomy group whose sensitive counts do not add up to its QIT rows.
    GroupSize {
        /// The group.
        group: u32,
        /// The counts' sum.
        values: u64,
        /// Its QIT rows.
        rows: u64,
    },
    /// The Anatomy tables do not hold the original tuples' quasi-identifiers.
    TablesNotFromOriginal,
}

impl fmt::Display for SlicingViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SensitiveAttribute { found, expected } => {
                write!(f, "sensitive attribute {found:?}, the original's is {expected:?}")
            }
            Self::SensitiveNotLast => {
                write!(f, "the sensitive attribute is not in the last column")
            }
            Self::Attributes { published, original } => {
                write!(f, "published attributes {published:?}, original {original:?}")
            }
            Self::RowCount { published, original } => {
                write!(f, "{published} rows published for {original} tuples")
            }
            Self::ColumnValues { column } => write!(
                f,
                "column {column}: the published values are not the original tuples' values"
            ),
            Self::NoBucketFor { tuple } => write!(
                f,
                "tuple {tuple} fits no bucket: the buckets are not a partition of the original tuples"
            ),
            Self::Unpermuted { identical, expected, threshold } => write!(
                f,
                "{identical} published rows equal an original tuple of their bucket; permuted columns give {expected:.1} on average (accepted up to {threshold:.1}): the columns were not permuted"
            ),
            Self::Inference { tuple, value, probability, l } => {
                write!(f, "tuple {tuple} has p(t, {value:?}) = {probability:.6} > 1/{l}")
            }
            Self::ClassTooSmall { class, size, k } => {
                write!(f, "class {class} has {size} tuples, fewer than k = {k}")
            }
            Self::ShareAboveBound { class, count, size, l } => write!(
                f,
                "class {class}: one sensitive value in {count} of {size} tuples, more than 1/{l}"
            ),
            Self::NotCovered { tuple } => {
                write!(f, "tuple {tuple} is covered by no class with its sensitive value left")
            }
            Self::SensitiveValues => write!(f, "the sensitive values are not the original's"),
            Self::GroupSensitive { group, value, published, least, most } => write!(
                f,
                "group {group}: {value:?} counted {published} times, where its tuples in the original hold it {}",
                if least == most {
                    format!("{least} times")
                } else {
                    format!("{least} to {most} times")
                }
            ),
            Self::GroupSize { group, values, rows } => {
                write!(f, "group {group}: {values} sensitive values for {rows} QIT rows")
            }
            Self::TablesNotFromOriginal => {
                write!(f, "the tables do not hold the original tuples")
            }
        }
    }
}

/// The family's violations, as the error carries them.
pub type SlicingViolations = Violations<SlicingViolation>;
