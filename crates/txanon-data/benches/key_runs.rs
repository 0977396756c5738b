//! Key runs (`txanon_data::key_runs`) against the raw form they replaced (16 bytes of key and 4
//! of count a record): writing and reading a million sorted triples of ranks under 6,000, the
//! shape of one part of a shard's answer to km's third-level count over Spark.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use txanon_data::key_runs::{read_runs, write_run};

/// `n` distinct sorted keys of three ranks under 6,000, packed from the top as km packs them,
/// each with a small count.
fn triples(n: usize) -> Vec<(u128, u64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut keys: Vec<u128> = (0..n)
        .map(|_| {
            let mut r: [u32; 3] = std::array::from_fn(|_| rng.random_range(0..6000));
            r.sort_unstable();
            r.iter().enumerate().fold(0u128, |k, (j, &x)| k | (u128::from(x + 1) << (96 - 32 * j)))
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter().map(|k| (k, u64::from(rng.random_range(1u32..8)))).collect()
}

fn raw(entries: &[(u128, u64)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * 20);
    for &(key, count) in entries {
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&(count as u32).to_le_bytes());
    }
    out
}

fn bench(c: &mut Criterion) {
    let entries = triples(1_000_000);
    let mut runs = Vec::new();
    write_run(&mut runs, entries.iter().copied()).unwrap();
    let raw_bytes = raw(&entries);
    eprintln!(
        "{} entries: key runs {} bytes ({:.2} a key), raw {} bytes",
        entries.len(),
        runs.len(),
        runs.len() as f64 / entries.len() as f64,
        raw_bytes.len()
    );
    let mut group = c.benchmark_group("key_runs");
    group.throughput(Throughput::Elements(entries.len() as u64));
    group.bench_function("write", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(runs.len());
            write_run(&mut out, black_box(&entries).iter().copied()).unwrap();
            out
        })
    });
    group.bench_function("write-raw", |b| b.iter(|| raw(black_box(&entries))));
    group.bench_function("read", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            read_runs(black_box(&runs), |key, count| sum = sum.wrapping_add(key as u64 ^ count))
                .unwrap();
            sum
        })
    });
    group.bench_function("read-raw", |b| {
        b.iter(|| {
            black_box(&raw_bytes)
                .chunks_exact(20)
                .map(|c| {
                    let key = u128::from_le_bytes(c[..16].try_into().unwrap());
                    key as u64 ^ u64::from(u32::from_le_bytes(c[16..].try_into().unwrap()))
                })
                .fold(0u64, u64::wrapping_add)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
