//! `cargo xtask measure`: runs one command with its address space capped and a time limit, and
//! prints how it ended, its wall time and its peak resident memory as one JSON line. A process
//! of its own so that the peak (`getrusage(RUSAGE_CHILDREN)`) is that one command's, not the
//! largest of every command the caller ever ran.

use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use nix::sys::resource::{Resource, UsageWho, getrusage, setrlimit};
use serde::Serialize;

/// Arguments of `cargo xtask measure`.
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Address-space cap of the command, in bytes, at least 64 MiB (allocations beyond it
    /// fail).
    #[arg(long, value_parser = clap::value_parser!(u64).range(64 << 20..))]
    memory_cap: u64,
    /// Wall-clock limit in seconds, at least 1; the command is killed after it.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    time_cap: u64,
    /// The command and its arguments.
    #[arg(last = true, required = true)]
    command: Vec<String>,
}

/// What `measure` prints.
#[derive(Debug, Serialize, serde::Deserialize)]
pub struct Measured {
    /// Exit code, when it exited.
    pub exit: Option<i32>,
    /// The signal that ended it, when one did (an abort on a failed allocation, or the kill
    /// after the time cap).
    pub signal: Option<i32>,
    /// Killed after the time cap.
    pub timed_out: bool,
    /// Wall seconds.
    pub seconds: f64,
    /// Peak resident memory, kilobytes.
    pub peak_kb: i64,
}

/// Runs `cargo xtask measure`.
pub fn run(args: MeasureArgs) -> Result<()> {
    setrlimit(Resource::RLIMIT_AS, args.memory_cap, args.memory_cap)
        .context("capping the address space")?;
    let started = Instant::now();
    let mut child = Command::new(&args.command[0])
        .args(&args.command[1..])
        .spawn()
        .with_context(|| format!("running {}", args.command[0]))?;
    let limit = Duration::from_secs(args.time_cap);
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait()? {
            break (status, false);
        }
        if started.elapsed() > limit {
            child.kill().ok();
            break (child.wait()?, true);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let seconds = started.elapsed().as_secs_f64();
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN)?;
    let measured = Measured {
        exit: status.code(),
        signal: status.signal(),
        timed_out,
        seconds,
        peak_kb: usage.max_rss(),
    };
    println!("{}", serde_json::to_string(&measured)?);
    Ok(())
}
