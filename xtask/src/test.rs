//! `cargo xtask test`: every test of the project in one command, Rust then Python.
//!
//! The Rust tests are `cargo test --workspace --release`. The Python package's tests need the
//! extension built as Python loads it (an abi3 wheel, by maturin) and the libraries whose data it
//! takes (pyarrow, polars, pandas, DuckDB): they run in a virtual environment of their own,
//! `target/python-venv`, made on first use from `requirements-test.txt`, with the wheel built
//! from this checkout installed into it, and compare with the CLI this run built.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Arguments of `cargo xtask test`.
#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// Only the Python package's tests (the Rust tests are `cargo test --workspace --release`).
    #[arg(long)]
    python_only: bool,
    /// Arguments for pytest (after `--`): `-k audit`, `-x`, …
    #[arg(last = true)]
    pytest: Vec<String>,
}

/// Runs `command`, its output shown as it comes, and fails naming it unless it succeeds.
fn run(command: &mut Command) -> Result<()> {
    let shown = format!("{command:?}");
    eprintln!("xtask test: {shown}");
    let status = command.status().with_context(|| format!("starting {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}

/// Runs `cargo xtask test`.
pub fn run_tests(args: TestArgs) -> Result<()> {
    let root = crate::project_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    if !args.python_only {
        run(Command::new(&cargo).args(["test", "--workspace", "--release"]).current_dir(&root))?;
    }
    // The CLI the Python tests compare each publication with. Its dependencies have the
    // features `cargo test --workspace` gave them (crates/txanon-build-unify), so after the
    // Rust tests only the binaries link.
    run(Command::new(&cargo)
        .args(["build", "--release", "--workspace", "--bins"])
        .current_dir(&root))?;
    let python = environment(&root)?;
    let wheel = build_wheel(&root, &python)?;
    run(Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps"])
        .arg(&wheel))?;
    let package = root.join("crates/txanon-py");
    run(Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(package.join("python/tests"))
        .args(&args.pytest)
        .env("TXANON_BIN", root.join("target/release/txanon"))
        .current_dir(&package))
}

/// The tests' virtual environment, made and filled on first use (and refilled when the
/// requirements change); returns its interpreter.
fn environment(root: &Path) -> Result<PathBuf> {
    let venv = root.join("target/python-venv");
    let python = venv.join("bin/python");
    if !python.is_file() {
        let system = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        run(Command::new(system).args(["-m", "venv"]).arg(&venv))?;
    }
    let requirements = root.join("crates/txanon-py/python/requirements-test.txt");
    let wanted = std::fs::read_to_string(&requirements)
        .with_context(|| format!("reading {}", requirements.display()))?;
    let stamp = venv.join("requirements-installed.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        run(Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
            .arg(&requirements))?;
        std::fs::write(&stamp, &wanted).with_context(|| format!("writing {}", stamp.display()))?;
    }
    Ok(python)
}

/// Builds the abi3 wheel in release mode with maturin; returns its path.
fn build_wheel(root: &Path, python: &Path) -> Result<PathBuf> {
    let out = root.join("target/wheels");
    if out.is_dir() {
        for entry in std::fs::read_dir(&out)?.flatten() {
            if entry.file_name().to_string_lossy().starts_with("txanon-") {
                std::fs::remove_file(entry.path())?;
            }
        }
    }
    let maturin = python.with_file_name("maturin");
    run(Command::new(&maturin)
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(root.join("crates/txanon-py/Cargo.toml"))
        .arg("--out")
        .arg(&out)
        .arg("--interpreter")
        .arg(python))?;
    let wheels: Vec<PathBuf> = std::fs::read_dir(&out)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("txanon-")))
        .collect();
    match wheels.as_slice() {
        [wheel] => Ok(wheel.clone()),
        _ => {
            bail!("maturin left {} txanon wheels in {}, expected one", wheels.len(), out.display())
        }
    }
}
