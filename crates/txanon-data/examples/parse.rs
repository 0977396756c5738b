//! Parses a file N times; for profiling the reader (`cargo run --release --example parse FILE`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: parse FILE [REPEAT]");
    let repeat: usize = std::env::args().nth(2).map_or(10, |s| s.parse().expect("a number"));
    let bytes = std::fs::read(&path).expect("readable");
    let start = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..repeat {
        let (db, _) =
            txanon_data::read_bytes(&bytes, txanon_data::Format::Fimi, true).expect("valid");
        n += db.len();
    }
    let secs = start.elapsed().as_secs_f64() / repeat as f64;
    println!(
        "{n} transactions; {:.1} ms per parse, {:.0} MB/s",
        secs * 1e3,
        bytes.len() as f64 / secs / 1e6
    );
}
