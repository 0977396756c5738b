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

impl txanon_data::Classify for BorderError {
    /// A count past 128 bits is a setting this data cannot meet; a set that is not a border
    /// is the caller's.
    fn kind(&self) -> txanon_data::ErrorKind {
        match self {
            BorderError::Overflow => txanon_data::ErrorKind::Infeasible,
            BorderError::NotABorder(_) => txanon_data::ErrorKind::BadInput,
        }
    }
}
