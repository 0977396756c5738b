//! Settings that explode: counted exactly, refused cleanly when listed.

use txanon_data::datasets;
use txanon_data::{ReadOptions, read_path};
use txanon_mining::{
    Algorithm, MinSupport, MiningError, MiningParams, count_itemsets, frequent_itemsets,
};

#[test]
fn bms1_at_five_hundredths_percent_is_counted_not_listed() {
    let Some(path) = datasets::for_test("bms1") else { return };
    let (db, _) = read_path(&path, &ReadOptions::new()).unwrap();
    let params = MiningParams::new(MinSupport::Fraction(0.0005)).limit(10_000_000).check().unwrap();
    // pyfim 6.28, fim.fpgrowth(report='#'): 35,349,566,550,691.
    assert_eq!(count_itemsets(&db, &params).unwrap().total(), Some(35_349_566_550_691));
    for algorithm in Algorithm::ALL {
        let err = frequent_itemsets(&db, algorithm, &params).unwrap_err();
        assert!(matches!(err, MiningError::LimitExceeded { .. }), "{algorithm:?}: {err}");
    }
}
