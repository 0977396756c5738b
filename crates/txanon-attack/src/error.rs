//! The errors of building a view and attacking it.

use thiserror::Error;
use txanon_data::ItemId;

/// A group or target that does not describe a publication.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ViewError {
    /// A group of no record.
    #[error("group {group} has no record")]
    EmptyGroup {
        /// The group's index.
        group: usize,
    },
    /// An item id beyond the view's items.
    #[error("item id {item} is beyond the view's {items} items")]
    ItemOutOfRange {
        /// The item id.
        item: ItemId,
        /// The view's number of items.
        items: usize,
    },
    /// A value held by no record.
    #[error("group {group} has a value held by no record")]
    ZeroCount {
        /// The group's index.
        group: usize,
    },
    /// A value whose items are not strictly ascending.
    #[error("group {group} has a value whose items are not strictly ascending")]
    Unsorted {
        /// The group's index.
        group: usize,
    },
    /// A factor whose counts do not add up to the group's size.
    #[error("group {group}: a factor's counts add up to {counts}, the group has {size} records")]
    CountMismatch {
        /// The group's index.
        group: usize,
        /// The counts' sum (or the one count above the size).
        counts: u64,
        /// The group's size.
        size: u32,
    },
    /// An item in two factors of one group (its factors must be independent).
    #[error("item {item} is in two factors of group {group}")]
    SharedItem {
        /// The item.
        item: ItemId,
        /// The group's index.
        group: usize,
    },
    /// A target whose own record names no record of the view.
    #[error("target {target}'s own record is not a record of the view")]
    NoSuchRecord {
        /// The target's index.
        target: usize,
    },
    /// A target item beyond the view's items.
    #[error("target {target} holds item {item}, beyond the view's {items} items")]
    TargetItemOutOfRange {
        /// The target's index.
        target: usize,
        /// The item id.
        item: ItemId,
        /// The view's number of items.
        items: usize,
    },
}
