//! write → read gives back the same database, in every format, plain and gzip.

use std::io::Write;

use proptest::prelude::*;
use txanon_data::{Format, TransactionDb, read_bytes, write_db};

fn int_db() -> impl Strategy<Value = TransactionDb> {
    let item = prop_oneof![0u32..50, any::<u32>()];
    proptest::collection::vec(proptest::collection::vec(item, 0..12), 1..40)
        .prop_map(TransactionDb::from_int_transactions)
}

fn str_db() -> impl Strategy<Value = TransactionDb> {
    // Labels with commas, quotes, blanks inside, '#' and non-ASCII: everything CSV must survive.
    // Not a column name the reader knows ("tid", "t id", "item", …): a first basket holding
    // one reads as a header, or is refused as ambiguous, by design.
    let label = "[a-z#,\" éß0-9]{0,6}[a-zé]"
        .prop_filter("a known column name", |l| !txanon_data::is_known_column_name(l));
    proptest::collection::vec(proptest::collection::vec(label, 1..8), 1..30)
        .prop_map(TransactionDb::from_str_transactions)
}

fn roundtrip(db: &TransactionDb, format: Format, gzip: bool) -> TransactionDb {
    let mut buf = Vec::new();
    write_db(db, format, &mut buf).unwrap();
    if gzip {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&buf).unwrap();
        buf = enc.finish().unwrap();
    }
    read_bytes(&buf, format, true).unwrap().0
}

proptest! {
    #[test]
    fn integer_labels_roundtrip(db in int_db(), gzip in any::<bool>()) {
        for format in [Format::Fimi, Format::Spmf, Format::BasketWide, Format::Parquet, Format::ArrowIpc] {
            prop_assert_eq!(&roundtrip(&db, format, gzip), &db, "{}", format);
        }
        // Long form cannot represent an empty transaction: compare without them.
        prop_assert_eq!(roundtrip(&db, Format::BasketLong, gzip), db.without_empty());
    }

    #[test]
    fn text_labels_roundtrip(db in str_db()) {
        prop_assert_eq!(&roundtrip(&db, Format::BasketWide, false), &db);
        prop_assert_eq!(&roundtrip(&db, Format::BasketLong, true), &db);
        prop_assert_eq!(&roundtrip(&db, Format::Parquet, false), &db);
        prop_assert_eq!(&roundtrip(&db, Format::ArrowIpc, false), &db);
    }

    /// The model's invariants hold whatever the input order: sorted unique items, supports that
    /// count transactions, labels ascending.
    #[test]
    fn model_invariants(db in int_db()) {
        let mut counted = vec![0u32; db.num_items()];
        for t in db.iter() {
            prop_assert!(t.windows(2).all(|w| w[0] < w[1]));
            for &i in t {
                counted[i as usize] += 1;
            }
        }
        prop_assert_eq!(counted.as_slice(), db.supports());
        prop_assert!(db.supports().iter().all(|&s| s > 0), "only present items are in the dictionary");
    }
}

proptest! {
    /// The lexicographic order is the stable sort of the rows themselves (the key on the first
    /// items only decides earlier), over small ids (many ties on the key) and the largest.
    #[test]
    fn lexicographic_order_is_the_stable_sort_of_the_rows(
        rows in proptest::collection::vec(
            proptest::collection::vec(prop_oneof![0u32..4, Just(u32::MAX), Just(u32::MAX - 1)], 0..8),
            0..60,
        ),
    ) {
        let db = TransactionDb::from_int_transactions(rows);
        let mut expected: Vec<u32> = (0..db.len() as u32).collect();
        expected.sort_by(|&a, &b| db.transaction(a as usize).cmp(db.transaction(b as usize)));
        prop_assert_eq!(db.lexicographic_order(), expected);
    }

    /// Prefix keys order rows as the rows order themselves, and tie only on rows that agree on
    /// the items the keys hold, at every width.
    #[test]
    fn prefix_keys_keep_the_lexicographic_order(
        a in proptest::collection::btree_set(0u32..70, 0..20),
        b in proptest::collection::btree_set(0u32..70, 0..20),
        num_items in prop_oneof![70usize..200, Just(u32::MAX as usize)],
    ) {
        let (a, b): (Vec<u32>, Vec<u32>) = (a.into_iter().collect(), b.into_iter().collect());
        let bits = txanon_data::prefix_key_bits(num_items);
        prop_assert!(u64::from(num_items as u32) < 1u64 << bits);
        let (ka, kb) = (txanon_data::prefix_key(&a, bits), txanon_data::prefix_key(&b, bits));
        let held = (128 / bits) as usize;
        let (pa, pb) = (&a[..a.len().min(held)], &b[..b.len().min(held)]);
        prop_assert_eq!(ka.cmp(&kb), pa.cmp(pb));
        if ka != kb {
            prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
        }
    }
}

/// The names the roundtrip's labels avoid are the reader's, compared as it compares them.
#[test]
fn known_column_names_are_the_readers() {
    assert!(txanon_data::is_known_column_name("tid"));
    assert!(txanon_data::is_known_column_name("T id"));
    assert!(txanon_data::is_known_column_name("order_id"));
    assert!(txanon_data::is_known_column_name("Item"));
    assert!(!txanon_data::is_known_column_name("tide"));
    assert!(!txanon_data::is_known_column_name("é"));
    // A first basket holding one is refused as ambiguous, which is why the roundtrip avoids it.
    let db = TransactionDb::from_str_transactions([vec!["tid", "bread"], vec!["milk", "bread"]]);
    let mut buf = Vec::new();
    write_db(&db, Format::BasketWide, &mut buf).unwrap();
    assert!(read_bytes(&buf, Format::BasketWide, true).is_err());
}
