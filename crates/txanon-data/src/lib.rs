//! The data layer of txanon: the transaction model, relational microdata, and their formats.
//!
//! Everything else in the workspace stands on this crate. It owns
//! - [`TransactionDb`], a transaction database in compressed sparse rows over dense item ids,
//!   with the dictionary back to the source's labels and optional annotations (sensitive items,
//!   item categories, read with [`read_label_list`] and [`read_categories`]), and its
//!   transpose [`ItemIndex`] (item → transactions);
//! - strict, streaming readers ([`read_path`]) for FIMI, SPMF and basket CSV (long and wide),
//!   plain or gzip, whose errors name file, line, column and reason, and Parquet and Arrow IPC
//!   ([`columnar`]); writers ([`write_db`],
//!   [`write_path`]) that round-trip the labels, and [`write_atomic`] so that no failed run
//!   leaves a partial file;
//! - a checksummed binary [`cache`] of parsed databases;
//! - [`key_runs`], ascending 128-bit keys with counts as compact bytes, the form in which an
//!   engine's tasks hand each other itemset counts;
//! - [`Table`], typed relational microdata read with a JSON [`Schema`];
//! - the IBM Quest generator ([`QuestParams`]) for data that needs no download;
//! - the contract every anonymization family keeps, and their registry ([`family`]);
//! - the manifest of the real datasets ([`datasets`]) and how to find and verify them.
//!
//! ```
//! use txanon_data::{Format, TransactionDb, read_bytes, write_db};
//!
//! let (db, report) = read_bytes(b"1 2 3\n2 3\n\n", Format::Fimi, true)?;
//! assert_eq!((db.len(), db.num_items(), report.empty_transactions), (3, 3, 1));
//! assert_eq!(db.supports(), &[1, 2, 2]);
//! let mut out = Vec::new();
//! write_db(&db, Format::Fimi, &mut out)?;
//! assert_eq!(out, b"1 2 3\n2 3\n\n");
//! # Ok::<(), txanon_data::DataError>(())
//! ```
#![deny(missing_docs)]

mod annotations;
pub mod audit;
pub mod cache;
pub mod columnar;
pub mod datasets;
mod db;
mod error;
pub mod family;
pub mod fetch;
mod fimi;
mod hash;
mod index;
pub mod key_runs;
mod labels;
pub mod parallel;
pub mod progress;
pub mod quest;
mod read;
mod rng;
pub mod sets;
pub mod source;
mod table;
mod write;

pub use annotations::{
    random_categories, random_items, read_categories, read_label_list, resolve_labels,
};
pub use db::{
    BlockRows, CategoriesMismatch, Categorized, DbStats, ItemCategories, RowWriter, TransactionDb,
    TransactionDbBuilder, Transactions, lexicographic_order_by, prefix_key, prefix_key_bits,
    prefix_key_items,
};
pub use error::{Classify, DataError, ErrorKind, Location, ParamError, Result, io_is_users};
pub use family::{Family, FamilyName, MarkedDb, reaudit};
pub use hash::{mix64, row_hash};
pub use index::{ItemIndex, PairBlocks};
pub use labels::{ItemId, ItemLabels, Label};
pub use quest::{QuestParams, ValidQuestParams};
pub use read::{
    CsvOptions, DEFAULT_MAX_LINE_BYTES, Format, ReadOptions, ReadReport, detect_format,
    is_known_column_name, open_input, read_bytes, read_from, read_path, read_path_with_progress,
    read_text, split_csv,
};
pub use rng::{DataDigest, DigestBuilder, draw_seed, publication_rng};
pub use table::{Attribute, AttributeType, Column, MissingPolicy, Role, Schema, Table};
pub use write::{
    Destination, Unpersisted, push_decimal, write_atomic, write_atomic_with_mode, write_db,
    write_json_elements, write_path, write_unpersisted,
};

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::TransactionDb>();
        send_sync::<super::Table>();
        send_sync::<super::DataError>();
        send_sync::<super::DbStats>();
    }
}
