//! Errors of border operations.

/// Errors of border construction and counting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BorderError {
    /// A count beyond what 128 bits hold (2¹²⁷ for signed tallies).
    #[error(
        "a count exceeds 128 bits (over 1.7·10³⁸ itemsets): bound the length or raise the support"
    )]
    Overflow,
    /// The two collections do not form a border.
    #[error("not a border: {0}")]
    NotABorder(String),
}
