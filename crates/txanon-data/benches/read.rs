//! Reader throughput: FIMI parsing of T40I10D100K-sized data, plain and gzip, and basket CSV;
//! the data digest a seeded publication's randomness is keyed by, beside one read; Parquet and
//! Arrow IPC beside FIMI text of the same million transactions.
//!
//! Uses the real T40I10D100K sample when it is found, and always a full-size Quest stand-in
//! (100,000 transactions, about 15 MB, the size of the real T40I10D100K.dat).

use std::hint::black_box;
use std::io::Write;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use txanon_data::{DataDigest, Format, QuestParams, TransactionDb, datasets, read_bytes, write_db};

fn encode(db: &TransactionDb, format: Format) -> Vec<u8> {
    let mut buf = Vec::new();
    write_db(db, format, &mut buf).expect("in-memory write");
    buf
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    let quest =
        QuestParams::new(100_000, 40.0, 10.0, 1000).seed(0).check().expect("valid").generate();
    let mut inputs = vec![("quest-T40I10D100K".to_string(), encode(&quest, Format::Fimi))];
    match datasets::locate_verified("t40-sample") {
        Ok(Some(p)) => {
            inputs.push(("T40I10D100K-sample".into(), std::fs::read(p).expect("readable")))
        }
        _ => eprintln!("T40I10D100K-sample not found: benchmarking generated data only"),
    }
    inputs
}

/// The obvious reader, for comparison in the same run: lines, whitespace split, `str::parse`,
/// then the same model construction.
fn naive_fimi(bytes: &[u8]) -> TransactionDb {
    let text = std::str::from_utf8(bytes).expect("ASCII");
    let transactions: Vec<Vec<u32>> = text
        .lines()
        .map(|l| l.split_ascii_whitespace().map(|t| t.parse().expect("numeric")).collect())
        .collect();
    TransactionDb::from_int_transactions(transactions)
}

fn fimi(c: &mut Criterion) {
    let mut group = c.benchmark_group("read/fimi");
    group.sample_size(20);
    for (name, bytes) in inputs() {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new("plain", &name), &bytes, |b, bytes| {
            b.iter(|| read_bytes(black_box(bytes), Format::Fimi, true).expect("valid"))
        });
        group.bench_with_input(BenchmarkId::new("naive-split-parse", &name), &bytes, |b, bytes| {
            b.iter(|| naive_fimi(black_box(bytes)))
        });
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&bytes).expect("in memory");
        let gz = enc.finish().expect("in memory");
        // Throughput stays in uncompressed bytes, so the two rows compare directly.
        group.bench_with_input(BenchmarkId::new("gzip", &name), &gz, |b, gz| {
            b.iter(|| read_bytes(black_box(gz), Format::Fimi, true).expect("valid"))
        });
    }
    group.finish();
}

fn basket_csv(c: &mut Criterion) {
    let quest =
        QuestParams::new(20_000, 10.0, 4.0, 1000).seed(0).check().expect("valid").generate();
    let mut group = c.benchmark_group("read/basket");
    group.sample_size(20);
    for format in [Format::BasketWide, Format::BasketLong] {
        let bytes = encode(&quest, format);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::new(format.name(), "quest-T10I4D20K"),
            &bytes,
            |b, bytes| b.iter(|| read_bytes(black_box(bytes), format, true).expect("valid")),
        );
    }
    group.finish();
}

/// Writes `db` in `format` to memory, its bytes the throughput.
fn bench_write(c: &mut Criterion, group: &str, name: &str, db: &TransactionDb, format: Format) {
    let size = encode(db, format).len();
    let mut group = c.benchmark_group(group);
    group.sample_size(20);
    group.throughput(Throughput::Bytes(size as u64));
    group.bench_function(name, |b| {
        b.iter(|| {
            let mut buf = Vec::with_capacity(size);
            write_db(black_box(db), format, &mut buf).expect("in memory");
            buf
        })
    });
    group.finish();
}

fn write(c: &mut Criterion) {
    let quest =
        QuestParams::new(100_000, 40.0, 10.0, 1000).seed(0).check().expect("valid").generate();
    bench_write(c, "write/fimi", "quest-T40I10D100K", &quest, Format::Fimi);
    // Text labels, as a km publication has them: a hundred labels, each met a million times.
    let labels: Vec<String> = (0..100).map(|j| format!("L2:{}-{}", 50 * j, 50 * j + 49)).collect();
    let generalized = TransactionDb::from_str_transactions(
        quest
            .iter()
            .map(|t| t.iter().map(|&i| labels[i as usize % 100].as_str()).collect::<Vec<_>>()),
    );
    let name = "quest-T40I10D100K-100-labels";
    bench_write(c, "write/basket-csv", name, &generalized, Format::BasketWide);
}

fn quest(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate/quest");
    group.sample_size(10);
    for n in [25_000usize, 100_000] {
        let params = QuestParams::new(n, 40.0, 10.0, 1000).seed(0).check().expect("valid");
        group.bench_with_input(BenchmarkId::new("T40I10", n), &params, |b, p| {
            b.iter(|| p.generate())
        });
    }
    group.finish();
}

/// The digest a seeded run computes once (labels and the multiset of rows, on rayon), against
/// parsing the same data: what keying the randomness by the data costs, in reads.
fn digest(c: &mut Criterion) {
    let mut group = c.benchmark_group("read/digest");
    group.sample_size(20);
    for (name, bytes) in inputs() {
        let db = read_bytes(&bytes, Format::Fimi, true).expect("valid").0;
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new("data_digest", &name), &db, |b, db| {
            b.iter(|| black_box(db).data_digest())
        });
        group.bench_with_input(BenchmarkId::new("read", &name), &bytes, |b, bytes| {
            b.iter(|| read_bytes(black_box(bytes), Format::Fimi, true).expect("valid"))
        });
    }
    group.finish();
}

/// Parquet and Arrow IPC against FIMI text of the same transactions, in one run: a data
/// holder's columnar export must read at least as fast as the text it replaces.
fn columnar(c: &mut Criterion) {
    let mut group = c.benchmark_group("read/columnar");
    group.sample_size(20);
    let quest =
        QuestParams::new(1_000_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let fimi = encode(&quest, Format::Fimi);
    // Throughput is the FIMI text's size for every row, so the rows compare directly.
    group.throughput(Throughput::Bytes(fimi.len() as u64));
    for format in [Format::Fimi, Format::Parquet, Format::ArrowIpc] {
        let bytes = encode(&quest, format);
        group.bench_with_input(
            BenchmarkId::new(format.name(), "quest-T10I4D1M"),
            &bytes,
            |b, bytes| b.iter(|| read_bytes(black_box(bytes), format, true).expect("valid")),
        );
    }
    group.finish();
}

criterion_group!(benches, fimi, basket_csv, write, quest, digest, columnar);
criterion_main!(benches);
