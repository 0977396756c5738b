//! Swapping in memory on BMS-WebView-2 (77,512 records) with 50 random categories: PartSwap
//! with the indexed search (the target: under 5 s end to end), the baselines, and the
//! paper's exhaustive search on the first 5,000 records (the size the paper used). Quest data
//! stands in when the file is missing. Then the paper's search against `--window 64` on the
//! kosarak sample, whose heavy items make the paper's search read most candidates per source,
//! the paper's search on retail, and a million Quest baskets, anonymized and audited.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_data::{
    Categorized, QuestParams, ReadOptions, TransactionDb, datasets, random_categories, read_path,
};
use txanon_swap::{Method, Search, SwapParams, anonymize, audit};

fn input() -> (String, TransactionDb) {
    match datasets::locate_verified("bms2") {
        Ok(Some(path)) => {
            ("bms2".into(), read_path(&path, &ReadOptions::new()).expect("readable").0)
        }
        _ => {
            eprintln!("bms2 not found: Quest data instead");
            let quest =
                QuestParams::new(77_512, 4.6, 2.0, 3340).seed(0).check().expect("valid").generate();
            ("quest-T4.6I2D77K".into(), quest)
        }
    }
}

fn head(db: &TransactionDb, n: usize) -> TransactionDb {
    TransactionDb::from_str_transactions(
        db.iter().take(n).map(|t| t.iter().map(|&i| db.label(i).to_string()).collect::<Vec<_>>()),
    )
}

/// Benchmarks anonymizing `db` under `categories` with `params`, audit included.
fn bench_anonymize(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    db: &TransactionDb,
    categories: &txanon_data::ItemCategories,
    params: &txanon_swap::ValidSwapParams,
) {
    group.bench_function(id, |b| {
        b.iter(|| {
            anonymize(Categorized::new(black_box(db), categories).expect("covers"), params)
                .expect("audited")
        })
    });
}

fn swap(c: &mut Criterion) {
    let mut group = c.benchmark_group("swap");
    group.sample_size(10);
    let (name, db) = input();
    let categories = random_categories(&db, 50, 1).expect("enough items");
    for method in [Method::PartSwap, Method::RandSwap, Method::PartSupp, Method::SplitPerson] {
        // Time, not the claim: RandSwap leaves records showing their tendency, which the
        // default allowance (none) refuses.
        let params =
            SwapParams::new(method).seed(Some(1)).max_exposed(usize::MAX).check().expect("valid");
        bench_anonymize(
            &mut group,
            BenchmarkId::new(method.name(), &name),
            &db,
            &categories,
            &params,
        );
    }
    let small = head(&db, 5000);
    let categories = random_categories(&small, 50, 1).expect("enough items");
    for (search, label) in [(Search::Indexed, "indexed"), (Search::Exhaustive, "exhaustive")] {
        let params =
            SwapParams::new(Method::PartSwap).search(search).seed(Some(1)).check().expect("valid");
        let id = BenchmarkId::new(format!("partswap-{label}"), format!("{name}/5000"));
        bench_anonymize(&mut group, id, &small, &categories, &params);
    }
    match datasets::locate_verified("kosarak-sample") {
        Ok(Some(path)) => {
            let skewed = read_path(&path, &ReadOptions::new()).expect("readable").0;
            let categories = random_categories(&skewed, 50, 1).expect("enough items");
            let window = Search::Window(std::num::NonZeroUsize::new(64).expect("not zero"));
            for (search, label) in [(Search::Indexed, "indexed"), (window, "window-64")] {
                let params = SwapParams::new(Method::PartSwap)
                    .search(search)
                    .seed(Some(1))
                    .check()
                    .expect("valid");
                let id = BenchmarkId::new(format!("partswap-{label}"), "kosarak-sample");
                bench_anonymize(&mut group, id, &skewed, &categories, &params);
            }
        }
        _ => eprintln!("kosarak-sample not found: the window's comparison is not run"),
    }
    // A million Quest baskets (the `scaling` experiment's shape): the records' order, the
    // pairing, the exchanges and the publication's order, then the audit on its own.
    let quest =
        QuestParams::new(1_000_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let categories = random_categories(&quest, 50, 1).expect("enough items");
    let params = SwapParams::new(Method::PartSwap).seed(Some(1)).check().expect("valid");
    bench_anonymize(
        &mut group,
        BenchmarkId::new("partswap", "quest-1M"),
        &quest,
        &categories,
        &params,
    );
    let data = Categorized::new(&quest, &categories).expect("covers");
    let published = anonymize(data, &params).expect("audited");
    group.bench_function(BenchmarkId::new("audit-partswap", "quest-1M"), |b| {
        b.iter(|| audit(data, black_box(&published.published), published.key(), &params.claim()))
    });
    // Retail: the records left late in the order share a popular item with most others, so
    // the paper's search counts overlaps through the index for most sources.
    match datasets::locate_verified("retail") {
        Ok(Some(path)) => {
            let retail = read_path(&path, &ReadOptions::new()).expect("readable").0;
            let categories = random_categories(&retail, 50, 1).expect("enough items");
            let params = SwapParams::new(Method::PartSwap).seed(Some(1)).check().expect("valid");
            let id = BenchmarkId::new("partswap-indexed", "retail");
            bench_anonymize(&mut group, id, &retail, &categories, &params);
        }
        _ => eprintln!("retail not found: its PartSwap is not run"),
    }
    group.finish();
}

criterion_group!(benches, swap);
criterion_main!(benches);
