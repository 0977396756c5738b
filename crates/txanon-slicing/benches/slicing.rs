//! Slicing in memory on Adult's 45,222 complete tuples (both splits; the target: c = 3
//! under 10 s end to end): the paper's first-cut partition and the any-cut variant, with the
//! diversity check inside, and the two baselines; then the incremental diversity check beside
//! the paper's naive one on a 3,000-tuple sample. A generated table of the same size stands
//! in when Adult is missing.

use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_data::{Schema, Table, datasets};
use txanon_slicing::{
    BaselineParams, ColumnSpec, CutPolicy, Microdata, SlicingParams, anatomize, anonymize, mondrian,
};

fn input() -> (String, Microdata) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let schema = Schema::from_path(&root.join("datasets/adult.schema.json")).expect("schema");
    if let (Some(train), Some(test)) = (datasets::locate("adult"), datasets::locate("adult-test")) {
        let a = Table::read(&train, &schema).expect("adult");
        let text = std::fs::read_to_string(&test).expect("adult-test");
        // The test split's income labels end in a period; the bench does not care.
        let b = Table::read_from(text.as_bytes(), &test, &schema, false).expect("adult-test");
        return ("adult-45k".into(), Microdata::concat(&[&a, &b]).expect("one schema"));
    }
    eprintln!("Adult not found: a generated table instead");
    let mut csv = String::new();
    let mut x: u64 = 1;
    for _ in 0..45_222 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let v = |k: u64, m: u64| (x >> (k * 7)) % m;
        csv.push_str(&format!(
            "{},w{},{},e{},{},m{},o{},r{},a{},s{},{},{},{},c{},i{}\n",
            17 + v(1, 70),
            v(2, 7),
            10_000 + v(3, 20_000),
            v(4, 16),
            v(4, 16),
            v(5, 7),
            v(6, 14),
            v(7, 6),
            v(8, 5),
            v(1, 2),
            v(2, 100),
            v(3, 90),
            20 + v(5, 60),
            v(6, 40),
            v(7, 2)
        ));
    }
    let table = Table::read_from(csv.as_bytes(), Path::new("<generated>"), &schema, false)
        .expect("generated");
    ("generated-45k".into(), Microdata::from_table(&table).expect("one sensitive"))
}

fn slicing(c: &mut Criterion) {
    let mut group = c.benchmark_group("slicing");
    group.sample_size(10);
    let (name, data) = input();
    for (label, cut) in [("first-cut", CutPolicy::FirstCut), ("any-cut", CutPolicy::AnyCut)] {
        let params = SlicingParams::new(ColumnSpec::SensitiveAlone(3), 5)
            .cut(cut)
            .seed(Some(1))
            .check()
            .expect("valid");
        group.bench_with_input(BenchmarkId::new(label, &name), &data, |b, d| {
            b.iter(|| black_box(anonymize(d, &params).expect("feasible")))
        });
    }
    let params = BaselineParams::new(5, 5).seed(Some(1)).check().expect("valid");
    group.bench_with_input(BenchmarkId::new("mondrian", &name), &data, |b, d| {
        b.iter(|| black_box(mondrian(d, &params).expect("feasible")))
    });
    group.bench_with_input(BenchmarkId::new("anatomy", &name), &data, |b, d| {
        b.iter(|| black_box(anatomize(d, &params).expect("feasible")))
    });
    group.finish();
}

/// The incremental check against the paper's from-scratch check after every split (the
/// `cross_check` test aid runs both), on the first 3,000 tuples: the difference is the naive
/// check's cost.
fn diversity_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("diversity-check");
    group.sample_size(10);
    let (name, data) = input();
    let sample = data.rows_subset(&(0..3000).collect::<Vec<_>>());
    for (label, naive) in [("incremental", false), ("incremental+naive", true)] {
        let params = SlicingParams::new(ColumnSpec::SensitiveAlone(3), 5)
            .cut(CutPolicy::AnyCut)
            .seed(Some(1))
            .cross_check(naive)
            .check()
            .expect("valid");
        group.bench_with_input(BenchmarkId::new(label, format!("{name}-3k")), &sample, |b, d| {
            b.iter(|| black_box(anonymize(d, &params).expect("feasible")))
        });
    }
    group.finish();
}

criterion_group!(benches, slicing, diversity_check);
criterion_main!(benches);
