//! An audit's distinct rows (`txanon_data::audit::distinct_rows`) and its rows' order
//! (`RowOrder::of`) on two million Quest baskets (10 items on average over 5,000, the scaling
//! experiment's shape): whole baskets, nearly all distinct, and baskets cut to their first two
//! items, most of them repeated (a heavily suppressed publication's shape).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use txanon_data::audit::{RowOrder, distinct_rows};
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
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
