//! Project automation. `main` only dispatches; each task is a module.
//!
//! - `cargo xtask reproduce [--quick] [--only NAME] [--out DIR]`: run the experiment matrix of the
//!   papers and write tables, charts and a report.
//! - `cargo xtask measure --memory-cap B --time-cap S -- CMD…`: one command's time and peak
//!   memory under caps (the `scaling` experiment's runner).
//! - `cargo xtask test`: every test, Rust then the Python package's (built as a wheel into a
//!   virtual environment of its own).

mod measure;
mod reproduce;
mod test;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "xtask", about = "txanon project automation")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Run the registered experiments; write `results/<name>.csv`/`.json`, SVG charts and REPORT.md.
    Reproduce(reproduce::ReproduceArgs),
    /// Run one command with an address-space cap and a time limit; print its exit, wall time
    /// and peak memory as JSON (what the `scaling` experiment measures each run with).
    Measure(measure::MeasureArgs),
    /// Every test: `cargo test --workspace --release`, then the Python package's tests (pytest)
    /// against a wheel built from this checkout, in target/python-venv.
    Test(test::TestArgs),
}

/// The workspace root, from this crate's manifest directory.
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

fn main() -> Result<()> {
    match Cli::parse().task {
        Task::Reproduce(args) => reproduce::run(args),
        Task::Measure(args) => measure::run(args),
        Task::Test(args) => test::run_tests(args),
    }
}
