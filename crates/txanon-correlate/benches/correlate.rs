//! Correlation and clustering on the items of T40I10D100K: pair counting and `1 − φ²` for all
//! item pairs, then k-medoids into 20 columns (the anatomy paper's p = 20) with PAM and
//! FastPAM1. Uses the real 10,000-transaction sample when found, and always a full-size Quest
//! stand-in (100,000 transactions, about 940 items). Pair counting and the distances also run
//! on the kosarak sample when found: thousands of items and long transactions, the shape where
//! the counter's layout matters (k-medoids over its items would dominate the run, so not
//! there).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_correlate::{KMedoids, KMedoidsParams, MedoidSearch, PairCounts, item_distances};
use txanon_data::{QuestParams, ReadOptions, TransactionDb, datasets, read_path};

fn inputs() -> Vec<(String, TransactionDb)> {
    let quest =
        QuestParams::new(100_000, 40.0, 10.0, 1000).seed(0).check().expect("valid").generate();
    let mut inputs = vec![("quest-T40I10D100K".to_string(), quest)];
    match datasets::locate_verified("t40-sample") {
        Ok(Some(p)) => inputs.push((
            "T40I10D100K-sample".into(),
            read_path(&p, &ReadOptions::new()).expect("readable").0,
        )),
        _ => eprintln!("T40I10D100K-sample not found: benchmarking generated data only"),
    }
    inputs
}

fn many_items() -> Option<(String, TransactionDb)> {
    match datasets::locate_verified("kosarak-sample") {
        Ok(Some(p)) => {
            Some(("kosarak-sample".into(), read_path(&p, &ReadOptions::new()).expect("readable").0))
        }
        _ => {
            eprintln!("kosarak-sample not found: no many-item pair counting");
            None
        }
    }
}

fn correlate(c: &mut Criterion) {
    let mut group = c.benchmark_group("correlate");
    group.sample_size(10);
    for (name, db) in inputs() {
        group.bench_with_input(BenchmarkId::new("pair-counts", &name), &db, |b, db| {
            b.iter(|| PairCounts::new(black_box(db)))
        });
        group.bench_with_input(BenchmarkId::new("item-distances", &name), &db, |b, db| {
            b.iter(|| item_distances(black_box(db)).expect("few items"))
        });
        let d = item_distances(&db).expect("few items");
        for search in [MedoidSearch::Pam, MedoidSearch::FastPam1] {
            let params = KMedoidsParams::new(20).medoid_search(search).check().expect("valid");
            group.bench_with_input(
                BenchmarkId::new(format!("kmedoids-20-{search:?}"), &name),
                &d,
                |b, d| {
                    b.iter(|| KMedoids::new(params.clone()).fit(black_box(d)).expect("clusters"))
                },
            );
        }
    }
    if let Some((name, db)) = many_items() {
        group.bench_with_input(BenchmarkId::new("pair-counts", &name), &db, |b, db| {
            b.iter(|| PairCounts::new(black_box(db)))
        });
        group.bench_with_input(BenchmarkId::new("item-distances", &name), &db, |b, db| {
            b.iter(|| item_distances(black_box(db)).expect("few items"))
        });
    }
    group.finish();
}

criterion_group!(benches, correlate);
criterion_main!(benches);
