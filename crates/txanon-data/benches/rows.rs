//! An audit's distinct rows (`txanon_data::audit::distinct_rows`) and its rows' order
//! (`RowOrder::of`) on two million Quest baskets (10 items on average over 5,000, the scaling
//! experiment's shape): whole baskets, nearly all distinct, and baskets cut to their first two
//! items, most of them repeated (a heavily suppressed publication's shape). And an audit's
//! comparison of such rows with a copy in reverse order, with the runs of equal rows that half
//! the rows hold (`unmatched_rows_and_runs`, CAHD's audit against its original).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use txanon_data::audit::{RowMultiset, RowOrder, distinct_rows, unmatched_rows_and_runs};
use txanon_data::{QuestParams, TransactionDb};

fn bench(c: &mut Criterion) {
    let whole =
        QuestParams::new(2_000_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let cut = TransactionDb::from_int_transactions(
        (0..whole.len()).map(|t| whole.transaction(t).iter().take(2).copied().collect::<Vec<_>>()),
    );
    let mut group = c.benchmark_group("rows");
    group.sample_size(10);
    for (name, db) in [("quest-2M", &whole), ("quest-2M-two-items", &cut)] {
        group.bench_function(format!("distinct/{name}"), |b| {
            b.iter(|| distinct_rows(db.len(), |r| black_box(db).transaction(r)))
        });
        group.bench_function(format!("order/{name}"), |b| b.iter(|| RowOrder::of(black_box(db))));
        let n = db.len();
        let copy = RowMultiset::from_rows(n, |r, row| row.extend(db.transaction(n - 1 - r)));
        let (a, b) = (RowOrder::of(db), RowOrder::of(&copy));
        group.bench_function(format!("unmatched-and-runs/{name}"), |bench| {
            bench.iter(|| {
                let keep = |r: u32| r.is_multiple_of(2);
                unmatched_rows_and_runs((black_box(db), &a), (&copy, &b), 20, keep)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
