//! Errors of correlation and clustering.

use txanon_data::ParamError;

/// Errors of correlation and clustering.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CorrelateError {
    /// A parameter outside its valid range (k = 0, say).
    #[error(transparent)]
    Params(#[from] ParamError),
    /// More clusters asked for than there are points.
    #[error(
        "cannot form {k} clusters from {points} points: k must be at most the number of points"
    )]
    TooManyClusters {
        /// The number of clusters asked for.
        k: usize,
        /// The number of points.
        points: usize,
    },
    /// Two inputs that must have the same length do not.
    #[error("{what}: lengths {left} and {right} differ")]
    LengthMismatch {
        /// What was compared.
        what: &'static str,
        /// First length.
        left: usize,
        /// Second length.
        right: usize,
    },
    /// A distance that is negative or not finite.
    #[error("distance {value} between points {i} and {j} is not a finite number ≥ 0")]
    BadDistance {
        /// First point.
        i: usize,
        /// Second point.
        j: usize,
        /// The value.
        value: f64,
    },
    /// A matrix too large to hold.
    #[error(
        "{items} items need a {entries}-entry distance matrix: too large (at most {max} items)"
    )]
    TooManyItems {
        /// Number of items.
        items: usize,
        /// Entries the condensed matrix would need.
        entries: u128,
        /// The largest supported number of items.
        max: usize,
    },
}

impl txanon_data::Classify for CorrelateError {
    /// Every correlation error is about the caller's parameters.
    fn kind(&self) -> txanon_data::ErrorKind {
        txanon_data::ErrorKind::BadInput
    }
}
