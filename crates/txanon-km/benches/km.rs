//! kᵐ-anonymization in memory on BMS-WebView-1 and -2 (the paper's data) over the balanced
//! hierarchy of fanout 5: AA at k = 100 and m = 4 (issue 20's target on BMS-WebView-2: under
//! 5 s end to end), DA beside it at m = 2 (at m = 4 it is refused), the audit of AA's
//! publication, a shard's itemsets for the union's audit (by label, hashed, and by node, projected), the two hierarchy builders, and a
//! shard's answers to the requests of the search over shards (`txanon.spark`'s): the pairs
//! under the leaves' cut, and the capped supports of 100,000 itemsets of a leaf and another
//! item's ancestor; the same two on a shard of 5·10⁵ Quest baskets. Quest data stands in when
//! the files are missing.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_data::{QuestParams, TransactionDb, datasets};
use txanon_km::sharded::{ShardRequest, count_shard};
use txanon_km::{
    Algorithm, Hierarchy, KmClaim, KmParams, NodeId, anonymize, audit, shard_itemsets,
    shard_node_itemsets,
};

fn inputs() -> Vec<(String, TransactionDb)> {
    datasets::for_bench(&["bms1", "bms2"], || {
        let quest =
            QuestParams::new(60_000, 2.5, 2.0, 500).seed(0).check().expect("valid").generate();
        ("quest-T2.5I2D60K".into(), quest)
    })
}

fn km(c: &mut Criterion) {
    let mut group = c.benchmark_group("km");
    group.sample_size(10);
    for (name, db) in inputs() {
        let hierarchy = Hierarchy::balanced(&db, 5).expect("items");
        let params = |m, algorithm| {
            KmParams::new(100, m).algorithm(algorithm).seed(Some(1)).check().expect("valid")
        };
        let aa = params(4, Algorithm::Apriori);
        group.bench_function(BenchmarkId::new("aa", format!("{name}/k=100/m=4")), |b| {
            b.iter(|| anonymize(black_box(&db), &hierarchy, &aa).expect("anonymous"))
        });
        for m in [2, 3] {
            let aa = params(m, Algorithm::Apriori);
            group.bench_function(BenchmarkId::new("aa", format!("{name}/k=100/m={m}")), |b| {
                b.iter(|| anonymize(black_box(&db), &hierarchy, &aa).expect("anonymous"))
            });
            let da = params(m, Algorithm::Direct);
            group.bench_function(BenchmarkId::new("da", format!("{name}/k=100/m={m}")), |b| {
                b.iter(|| anonymize(black_box(&db), &hierarchy, &da).expect("anonymous"))
            });
        }
        let result = anonymize(&db, &hierarchy, &aa).expect("anonymous");
        let claim = KmClaim::new(100, 4).expect("valid");
        group.bench_function(BenchmarkId::new("audit", format!("{name}/k=100/m=4")), |b| {
            b.iter(|| {
                audit(
                    black_box(&result.published),
                    &hierarchy,
                    &claim,
                    Some(&result.cut),
                    Some(&db),
                )
                .expect("anonymous")
            })
        });
        // A shard's itemsets for the union's audit (`txanon.spark`'s km audit), on AA's
        // publication at m = 3, as each shard counts them.
        let claim3 = KmClaim::new(100, 3).expect("valid");
        let published3 = anonymize(&db, &hierarchy, &params(3, Algorithm::Apriori))
            .expect("anonymous")
            .published;
        group.bench_function(
            BenchmarkId::new("audit-shard-itemsets", format!("{name}/k=100/m=3")),
            |b| b.iter(|| shard_itemsets(black_box(&published3), &claim3)),
        );
        group.bench_function(BenchmarkId::new("hierarchy-balanced", format!("{name}/f=5")), |b| {
            b.iter(|| Hierarchy::balanced(black_box(&db), 5).expect("items"))
        });
        group.bench_function(
            BenchmarkId::new("hierarchy-cooccurrence", format!("{name}/f=5")),
            |b| b.iter(|| Hierarchy::by_cooccurrence(black_box(&db), 5).expect("items")),
        );
        let pairs = ShardRequest::Itemsets {
            cut: hierarchy.leaves().to_vec(),
            smallest: 2,
            largest: 2,
            fresh: None,
            k: 100,
            max_combinations: u64::MAX,
        };
        group.bench_function(BenchmarkId::new("shard-itemsets", format!("{name}/k=100/2")), |b| {
            b.iter(|| count_shard(black_box(&db), &hierarchy, &pairs).expect("counted"))
        });
        // Itemsets as a fix's candidates are: a leaf beside an ancestor of another leaf.
        let leaves = hierarchy.leaves();
        let itemsets: Vec<Vec<NodeId>> = (0..100_000u64)
            .map(|j| {
                let a = leaves[(txanon_data::mix64(j) % leaves.len() as u64) as usize];
                let b = leaves[(txanon_data::mix64(j ^ 0x5555) % leaves.len() as u64) as usize];
                let up = (txanon_data::mix64(j ^ 0xaaaa) % 3) as usize;
                let b = hierarchy.ancestors_or_self(b).nth(up).unwrap_or(b);
                let mut set = vec![a, b];
                set.sort_unstable();
                set.dedup();
                set
            })
            .collect();
        let supports = ShardRequest::Supports { itemsets, k: 100 };
        group.bench_function(
            BenchmarkId::new("shard-supports", format!("{name}/k=100/100000")),
            |b| b.iter(|| count_shard(black_box(&db), &hierarchy, &supports).expect("counted")),
        );
    }
    group.finish();
}

/// A shard of the Spark bench's size class: 5·10⁵ Quest baskets at the scaling experiment's
/// settings (a fifth of the ten-million run's shards), where a candidate's transaction lists
/// are long: the supports of 20,000 three-node candidates (a leaf and two other leaves'
/// ancestors, one or two levels up), a pass's count of every triple, and the union audit's
/// itemsets of AA's publication.
fn km_shard(c: &mut Criterion) {
    let mut group = c.benchmark_group("km");
    group.sample_size(10);
    let db = QuestParams::new(500_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let name = "quest-500K";
    let hierarchy = Hierarchy::balanced(&db, 5).expect("items");
    let leaves = hierarchy.leaves();
    let pick = |j: u64| leaves[(txanon_data::mix64(j) % leaves.len() as u64) as usize];
    let itemsets: Vec<Vec<NodeId>> = (0..20_000u64)
        .map(|j| {
            let up = |v: NodeId, salt: u64| {
                let levels = 1 + (txanon_data::mix64(j ^ salt) % 2) as usize;
                hierarchy.ancestors_or_self(v).nth(levels).unwrap_or(v)
            };
            let mut set = vec![pick(j), up(pick(j ^ 0x5555), 1), up(pick(j ^ 0xaaaa), 2)];
            set.sort_unstable();
            set.dedup();
            set
        })
        .collect();
    let supports = ShardRequest::Supports { itemsets, k: 100 };
    group.bench_function(BenchmarkId::new("shard-supports", format!("{name}/k=100/20000")), |b| {
        b.iter(|| count_shard(black_box(&db), &hierarchy, &supports).expect("counted"))
    });
    // A pass's full count of the triples, the cut still at the leaves (the most there are).
    let triples = ShardRequest::Itemsets {
        cut: leaves.to_vec(),
        smallest: 3,
        largest: 3,
        fresh: None,
        k: 100,
        max_combinations: u64::MAX,
    };
    group.bench_function(BenchmarkId::new("shard-itemsets", format!("{name}/k=100/3")), |b| {
        b.iter(|| count_shard(black_box(&db), &hierarchy, &triples).expect("counted"))
    });
    let params = KmParams::new(100, 3).seed(Some(1)).check().expect("valid");
    // AA end to end at the scaling experiment's settings: each pass's generalized rows, the
    // transaction lists, the publication and its audit.
    group.bench_function(BenchmarkId::new("aa", format!("{name}/k=100/m=3")), |b| {
        b.iter(|| anonymize(black_box(&db), &hierarchy, &params).expect("anonymous"))
    });
    let result = anonymize(&db, &hierarchy, &params).expect("anonymous");
    let claim = KmClaim::new(100, 3).expect("valid");
    // The audit of that publication with its cut and the original: its itemsets (a cut of
    // some hundred nodes, counted in one sweep of the rows), distinct rows and comparison.
    group.bench_function(BenchmarkId::new("audit", format!("{name}/k=100/m=3")), |b| {
        b.iter(|| {
            audit(black_box(&result.published), &hierarchy, &claim, Some(&result.cut), Some(&db))
                .expect("anonymous")
        })
    });
    let published = result.published;
    group.bench_function(
        BenchmarkId::new("audit-shard-itemsets", format!("{name}/k=100/m=3")),
        |b| b.iter(|| shard_itemsets(black_box(&published), &claim)),
    );
    // The same itemsets keyed by node, as `txanon.spark`'s union audit sends them: counted by
    // projection, where `shard_itemsets` above hashes every subset (the comparison of the two
    // in one run is docs/PERFORMANCE.md's).
    group.bench_function(
        BenchmarkId::new("audit-shard-node-itemsets", format!("{name}/k=100/m=3")),
        |b| {
            b.iter(|| {
                shard_node_itemsets(black_box(&published), &hierarchy, &claim).expect("nodes")
            })
        },
    );
    group.finish();
}

criterion_group!(benches, km, km_shard);
criterion_main!(benches);
