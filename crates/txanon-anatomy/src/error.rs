//! Errors of the anatomy family.

use txanon_correlate::CorrelateError;
use txanon_data::ParamError;

/// Errors of anatomization and of its audit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnatomyError {
    /// A parameter outside its valid range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// More columns asked for than there are items.
    #[error(
        "--columns {columns}: choose between 2 and {items}, the items of the input (each column holds at least one)"
    )]
    TooManyColumns {
        /// Columns asked for.
        columns: usize,
        /// Items present.
        items: usize,
    },
    /// A column whose most frequent value is held by more than `1/l` of all records: since the
    /// buckets partition the records, some bucket would hold it more than `1/l` of the time, so
    /// no partition of the records can be l-diverse.
    #[error(
        "no bucketing reaches l = {l}: column {column} ({items} items) is {value} in {share:.1}% of the records, more than 1/{l} (with this item partition at most l = {max_l} is possible); lower l or change the number of columns"
    )]
    Infeasible {
        /// The diversity asked for.
        l: usize,
        /// The column.
        column: usize,
        /// Its number of items.
        items: usize,
        /// Its most frequent value in words: `empty (none of its items)`, or its labels in
        /// braces.
        value: String,
        /// That value's share of the records, in percent.
        share: f64,
        /// The largest l any record partition could reach with these columns.
        max_l: usize,
    },
    /// Given item columns that leave items of the data out.
    #[error(
        "--item-columns: {missing} item(s) of the data are in no given column (the first: {first}); every item must be in one"
    )]
    NotInColumns {
        /// Items of the data in no column.
        missing: usize,
        /// The first of them, by label.
        first: String,
    },
    /// Records with fewer items than columns: each is empty in the columns its items cannot
    /// fill, so whatever the item partition, some column is empty (a value like any other
    /// under Definition 5) in more than `1/l` of the records.
    #[error(
        "no item partition into {columns} columns reaches l = {l}: {short:.1}% of the records hold fewer than {columns} items, so every partition leaves some column empty in at least {share:.1}% of the records, more than 1/{l} (at most l = {max_l} for any partition into {columns} columns); lower l or use fewer columns"
    )]
    TooShort {
        /// The diversity asked for.
        l: usize,
        /// The columns asked for.
        columns: usize,
        /// Records with fewer items than columns, in percent.
        short: f64,
        /// The least share of the records, in percent, that the emptiest column of any
        /// partition leaves empty.
        share: f64,
        /// The largest l any item partition into these columns could reach.
        max_l: usize,
    },
    /// Under the distinct-values reading, a column with fewer than `l` distinct values in all
    /// the records: no bucket can hold `l` of them.
    #[error(
        "column {column} ({items} items) takes only {distinct} distinct values in all the records, fewer than l = {l}: no bucket can hold {l} of them; lower l or change the number of columns"
    )]
    TooFewValues {
        /// The diversity asked for.
        l: usize,
        /// The column.
        column: usize,
        /// Its number of items.
        items: usize,
        /// Its distinct values.
        distinct: usize,
    },
    /// No l-diverse bucket can be formed: publishing would mean publishing nothing.
    #[error(
        "no {l}-diverse bucket can be formed from {records} records with {columns} columns (in some column one value, often the empty set, is too frequent): lower l or change the number of columns"
    )]
    NotDiverse {
        /// The diversity asked for.
        l: usize,
        /// Records of the input.
        records: usize,
        /// Columns.
        columns: usize,
    },
    /// Clustering failed.
    #[error(transparent)]
    Correlate(#[from] CorrelateError),
    /// A published table that breaks the claim audited.
    #[error("audit failed: {0}")]
    Audit(crate::audit::AnatomyViolations),
    /// A published table that cannot be read.
    #[error("unreadable anatomized table: {0}")]
    Json(#[from] serde_json::Error),
}

impl txanon_data::Classify for AnatomyError {
    fn kind(&self) -> txanon_data::ErrorKind {
        use txanon_data::ErrorKind;
        match self {
            AnatomyError::Infeasible { .. }
            | AnatomyError::TooShort { .. }
            | AnatomyError::TooFewValues { .. }
            | AnatomyError::NotDiverse { .. } => ErrorKind::Infeasible,
            AnatomyError::Audit(_) => ErrorKind::AuditFailed,
            AnatomyError::Correlate(e) => txanon_data::Classify::kind(e),
            AnatomyError::Params(_)
            | AnatomyError::TooManyColumns { .. }
            | AnatomyError::NotInColumns { .. }
            | AnatomyError::Json(_) => ErrorKind::BadInput,
        }
    }
}
