//! kᵐ-anonymization in memory on BMS-WebView-1 and -2 (the paper's data) over the balanced
//! hierarchy of fanout 5: AA at k = 100 and m = 4 (issue 20's target on BMS-WebView-2: under
//! 5 s end to end), DA beside it at m = 2 (at m = 4 it is refused), the audit of AA's
//! publication, and the two hierarchy builders. Quest data stands in when the files are
//! missing.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_data::{QuestParams, TransactionDb, datasets};
use txanon_km::{Algorithm, Hierarchy, KmClaim, KmParams, anonymize, audit};

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
        group.bench_function(BenchmarkId::new("hierarchy-balanced", format!("{name}/f=5")), |b| {
            b.iter(|| Hierarchy::balanced(black_box(&db), 5).expect("items"))
        });
        group.bench_function(
            BenchmarkId::new("hierarchy-cooccurrence", format!("{name}/f=5")),
            |b| b.iter(|| Hierarchy::by_cooccurrence(black_box(&db), 5).expect("items")),
        );
    }
    group.finish();
}

criterion_group!(benches, km);
criterion_main!(benches);
