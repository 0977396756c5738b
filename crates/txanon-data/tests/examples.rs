//! The papers' worked examples in `datasets/examples/` read as the papers print them.

use txanon_data::{ReadOptions, read_path};

use crate::common::root;

#[test]
fn anatomy_table_one() {
    let (db, report) =
        read_path(&root().join("datasets/examples/anatomy-table1.csv"), &ReadOptions::new())
            .unwrap();
    assert!(report.skipped_lines >= 1, "comment lines are skipped");
    assert_eq!(db.len(), 10);
    let show = |i: usize| {
        db.transaction(i).iter().map(|&x| db.label(x).to_string()).collect::<Vec<_>>().join("")
    };
    let expected =
        ["abcdefgh", "abdeh", "abcfh", "abfh", "abcd", "abce", "aefg", "bfh", "fh", "dg"];
    for (i, e) in expected.iter().enumerate() {
        assert_eq!(show(i), *e, "t{}", i + 1);
    }
}
