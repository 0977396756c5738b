//! (h,k,p)-coherence in memory at the paper's default setting (h = 40%, k = 10, p = 3,
//! k′ = 0.1%, a random 10% of the items private): the counting engine end to end on
//! BMS-WebView-1 and -2 (and at p = 2), the paper's border-edge engine at p = 2 on
//! BMS-WebView-1, and the audit of the publication, alone and against the original. Quest data stands in when the files are missing.
//! And Quest baskets with 5% of the items private, where suppressions dominate; and the
//! union audit's count of one shard, by labels and keyed by ids for an engine's parts; and the
//! scaling setting on a million baskets, whose rows are read out of cache, and the audit of a
//! publication of them that keeps half the occurrences.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_coherence::sharded::{ShardRequest, count_shard};
use txanon_coherence::{
    CoherenceClaim, CoherenceParams, Engine, anonymize, audit, shard_itemsets, shard_keyed_itemsets,
};
use txanon_data::{QuestParams, TransactionDb, datasets, random_items};

fn inputs() -> Vec<(String, TransactionDb)> {
    datasets::for_bench(&["bms1", "bms2"], || {
        let quest =
            QuestParams::new(60_000, 2.5, 2.0, 500).seed(0).check().expect("valid").generate();
        ("quest-T2.5I2D60K".into(), quest)
    })
}

fn coherence(c: &mut Criterion) {
    let mut group = c.benchmark_group("coherence");
    group.sample_size(10);
    for (name, db) in inputs() {
        let private = random_items(&db, db.num_items() / 10, 1).expect("enough items");
        let k2 = (db.len() as f64 * 0.001).ceil() as u32;
        let params = |p, engine| {
            CoherenceParams::new(0.4, 10, p, k2).engine(engine).seed(Some(1)).check().unwrap()
        };
        let counting = params(3, Engine::Counting);
        group.bench_function(BenchmarkId::new("counting", format!("{name}/p=3")), |b| {
            b.iter(|| anonymize(black_box(&db), &private, &counting).expect("coherent"))
        });
        let pairs = params(2, Engine::Counting);
        group.bench_function(BenchmarkId::new("counting", format!("{name}/p=2")), |b| {
            b.iter(|| anonymize(black_box(&db), &private, &pairs).expect("coherent"))
        });
        if name == "bms1" {
            let edges = params(2, Engine::BorderEdges);
            group.bench_function(BenchmarkId::new("border-edges", format!("{name}/p=2")), |b| {
                b.iter(|| anonymize(black_box(&db), &private, &edges).expect("coherent"))
            });
        }
        let published = anonymize(&db, &private, &counting).expect("coherent").published;
        let labels: Vec<String> = private.iter().map(|&s| db.label(s).to_string()).collect();
        let claim = CoherenceClaim::new(0.4, 10, 3).expect("valid").private(labels);
        group.bench_function(BenchmarkId::new("audit", format!("{name}/p=3")), |b| {
            b.iter(|| audit(black_box(&published), &claim, None).expect("coherent"))
        });
        group.bench_function(BenchmarkId::new("audit-with-original", format!("{name}/p=3")), |b| {
            b.iter(|| audit(black_box(&published), &claim, Some(&db)).expect("coherent"))
        });
    }
    group.finish();
}

/// The scaling experiment's baskets (Quest, 10 items on average over 5,000) at 200,000
/// records with 270 items private (5% of the universe, issue 45's share): most public items
/// are suppressed, each suppression mining the nuggets its transactions lose.
fn coherence_many_private(c: &mut Criterion) {
    let mut group = c.benchmark_group("coherence");
    group.sample_size(10);
    let db = QuestParams::new(200_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let private = random_items(&db, 270, 1).expect("enough items");
    let params = CoherenceParams::new(0.4, 10, 2, 200).seed(Some(1)).check().unwrap();
    group.bench_function(BenchmarkId::new("counting", "quest-200K-270-private/p=2"), |b| {
        b.iter(|| anonymize(black_box(&db), &private, &params).expect("coherent"))
    });
    group.finish();
}

/// One shard's public itemsets of at most two items counted with their private items for the
/// union's audit (txanon.spark's one suppression set): the scaling experiment's baskets at
/// 500,000 records (a shard of 10⁷ over twenty; the 10⁷ publication keeps 76% of the
/// occurrences, so the unsuppressed baskets stand in), 10 items private. By labels (rows of
/// strings for an engine to sum) and keyed by the shard's ids, cut into 12 parts; and the
/// search's count of the same itemsets (its itemsets request).
fn coherence_union_shard(c: &mut Criterion) {
    let mut group = c.benchmark_group("coherence");
    group.sample_size(10);
    let db = QuestParams::new(500_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let private = random_items(&db, 10, 1).expect("enough items");
    let labels: Vec<String> = private.iter().map(|&s| db.label(s).to_string()).collect();
    let claim = CoherenceClaim::new(0.4, 10, 2).expect("valid").private(labels);
    group.bench_function(BenchmarkId::new("union-shard-by-label", "quest-500K/p=2"), |b| {
        b.iter(|| shard_itemsets(black_box(&db), &claim))
    });
    group.bench_function(BenchmarkId::new("union-shard-keyed", "quest-500K/p=2"), |b| {
        b.iter(|| shard_keyed_itemsets(black_box(&db), &claim).expect("p = 2").pieces(12))
    });
    // The one suppression set's itemsets request on the same shard (the algorithm's count,
    // every item public but the private ones).
    let public: Vec<String> = (0..db.num_items() as u32)
        .filter(|i| !private.contains(i))
        .map(|i| db.label(i).to_string())
        .collect();
    let request = ShardRequest::Itemsets { public, private: claim.private_items().to_vec(), p: 2 };
    group.bench_function(BenchmarkId::new("shard-itemsets-request", "quest-500K/p=2"), |b| {
        b.iter(|| count_shard(black_box(&db), &request).expect("p = 2"))
    });
    group.finish();
}

/// The scaling experiment's setting (h = 40%, k = 10, p = 2, k′ = 0.1%, 10 items private) on a
/// million of its baskets, where the rows no longer fit in cache and every row read in a
/// non-mole's transaction order is a cache miss: the counting engine end to end. (Its
/// publication keeps 1.5% of the occurrences, so its audit is no measure of the audit at
/// 10⁷, which keeps 76%.)
fn coherence_scattered_rows(c: &mut Criterion) {
    let mut group = c.benchmark_group("coherence");
    group.sample_size(10);
    let db =
        QuestParams::new(1_000_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let private = random_items(&db, 10, 1).expect("enough items");
    let params = CoherenceParams::new(0.4, 10, 2, 1000).seed(Some(1)).check().unwrap();
    group.bench_function(BenchmarkId::new("counting", "quest-1M/p=2"), |b| {
        b.iter(|| anonymize(black_box(&db), &private, &params).expect("coherent"))
    });
    // At k = 2 the publication keeps 48% of the occurrences: the audit's search reads the
    // rows of every pair's transactions, most holding no private item.
    let params = CoherenceParams::new(0.4, 2, 2, 1000).seed(Some(1)).check().unwrap();
    let published = anonymize(&db, &private, &params).expect("coherent").published;
    let labels: Vec<String> = private.iter().map(|&s| db.label(s).to_string()).collect();
    let claim = CoherenceClaim::new(0.4, 2, 2).expect("valid").private(labels);
    group.bench_function(BenchmarkId::new("audit", "quest-1M-k2/p=2"), |b| {
        b.iter(|| audit(black_box(&published), &claim, None).expect("coherent"))
    });
    // With the original: its comparison runs beside the distinct rows and the search.
    group.bench_function(BenchmarkId::new("audit-with-original", "quest-1M-k2/p=2"), |b| {
        b.iter(|| audit(black_box(&published), &claim, Some(&db)).expect("coherent"))
    });
    group.finish();
}

criterion_group!(
    benches,
    coherence,
    coherence_many_private,
    coherence_union_shard,
    coherence_scattered_rows
);
criterion_main!(benches);
