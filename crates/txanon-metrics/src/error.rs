//! Errors of the metrics.

/// Errors of the metrics.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MetricError {
    /// Two inputs that must correspond do not (record counts, distribution cells).
    #[error("{what}: {left} vs {right}; they must be equal")]
    Mismatch {
        /// What differs.
        what: &'static str,
        /// The first input's figure.
        left: usize,
        /// The second input's figure.
        right: usize,
    },
    /// A distribution that is not one: a negative or non-finite cell, or all zero.
    #[error("not a distribution: {0}")]
    NotADistribution(&'static str),
}
