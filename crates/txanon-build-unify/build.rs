//! Empty: its build-dependencies put the proc-macros' features in line (see Cargo.toml).

fn main() {}
