//! The inverted index of a million Quest baskets (5,000 items, ten a basket, the scaling
//! experiment's shape): what the band graph, anatomy, swap and the metrics build first, and
//! the transpose kᵐ-anonymity's node lists and its passes' places are made by.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use txanon_data::{ItemIndex, QuestParams};

fn index(c: &mut Criterion) {
    let db =
        QuestParams::new(1_000_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let mut group = c.benchmark_group("index");
    group.sample_size(20);
    group.throughput(Throughput::Elements(db.occurrences() as u64));
    group.bench_function("item-index/quest-1M", |b| b.iter(|| ItemIndex::new(black_box(&db))));
    group.finish();
}

criterion_group!(benches, index);
criterion_main!(benches);
