//! Mining time per algorithm and mode on the settings: T40I10D100K sample at 0.5%,
//! BMS-WebView-1 at 0.1%, connect at 80% (real files when found), and always a Quest T40I10D10K
//! stand-in at 1% so that the bench runs without data. Also the rule generation that follows
//! (rules of 2 to 4 items, as the anatomy paper counts them: unbounded rules are output-bound).
//!
//! `mine-at-scale` counts a million Quest baskets (T10I4, 5,000 items) at 0.1%, the `scaling`
//! experiment's mining row at a tenth of its size, where the tree outgrows the caches.
//!
//! The side-by-side table against pyfim comes from `cargo xtask reproduce --only mining`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_data::{QuestParams, ReadOptions, TransactionDb, datasets, read_path};
use txanon_mining::{
    Algorithm, MinSupport, MiningParams, RuleParams, closed_itemsets, count_itemsets,
    frequent_itemsets, maximal_itemsets, rules,
};

fn inputs() -> Vec<(String, TransactionDb, f64)> {
    let quest =
        QuestParams::new(10_000, 40.0, 10.0, 1000).seed(0).check().expect("valid").generate();
    let mut inputs = vec![("quest-T40I10D10K@1%".to_string(), quest, 0.01)];
    for (name, fraction) in [("t40-sample", 0.005), ("bms1", 0.001), ("connect", 0.8)] {
        match datasets::locate_verified(name) {
            Ok(Some(p)) => {
                let (db, _) = read_path(&p, &ReadOptions::new()).expect("readable");
                inputs.push((format!("{name}@{}%", fraction * 100.0), db, fraction));
            }
            _ => eprintln!("{name} not found: not benchmarked"),
        }
    }
    inputs
}

fn mining(c: &mut Criterion) {
    let mut group = c.benchmark_group("mine");
    group.sample_size(10);
    for (name, db, fraction) in inputs() {
        let params = MiningParams::new(MinSupport::Fraction(fraction)).check().expect("valid");
        let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        group.bench_with_input(BenchmarkId::new("fpgrowth-count", &name), &db, |b, db| {
            b.iter(|| count_itemsets(black_box(db), &params).expect("counts"))
        });
        group.bench_with_input(BenchmarkId::new("fpgrowth-count-1-thread", &name), &db, |b, db| {
            b.iter(|| {
                one_thread.install(|| count_itemsets(black_box(db), &params).expect("counts"))
            })
        });
        group.bench_with_input(BenchmarkId::new("fpgrowth-list", &name), &db, |b, db| {
            b.iter(|| {
                frequent_itemsets(black_box(db), Algorithm::FpGrowth, &params).expect("lists")
            })
        });
        group.bench_with_input(BenchmarkId::new("apriori-list", &name), &db, |b, db| {
            b.iter(|| frequent_itemsets(black_box(db), Algorithm::Apriori, &params).expect("lists"))
        });
        group.bench_with_input(BenchmarkId::new("maximal", &name), &db, |b, db| {
            b.iter(|| maximal_itemsets(black_box(db), &params).expect("lists"))
        });
        group.bench_with_input(BenchmarkId::new("closed", &name), &db, |b, db| {
            b.iter(|| closed_itemsets(black_box(db), &params).expect("lists"))
        });
        let found = frequent_itemsets(&db, Algorithm::FpGrowth, &params).expect("lists");
        let rule_params = RuleParams::new(0.8).max_len(Some(4)).check().expect("valid");
        group.bench_with_input(BenchmarkId::new("rules-0.8-len-2-4", &name), &found, |b, found| {
            b.iter(|| rules::count(black_box(found), &rule_params, false))
        });
    }
    group.finish();
}

fn mining_at_scale(c: &mut Criterion) {
    let mut group = c.benchmark_group("mine-at-scale");
    group.sample_size(10);
    let db =
        QuestParams::new(1_000_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let params = MiningParams::new(MinSupport::Fraction(0.001)).check().expect("valid");
    group.bench_function("fpgrowth-count/quest-1M@0.1%", |b| {
        b.iter(|| count_itemsets(black_box(&db), &params).expect("counts"))
    });
    group.finish();
}

criterion_group!(benches, mining, mining_at_scale);
criterion_main!(benches);
