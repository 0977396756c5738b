//! Benchmarks of kᵐ-anonymization.
fn main() {}
