//! Experiment `scaling`: every transaction family end to end, as a user runs it (the `txanon`
//! binary: read, anonymize, audit, publish), on Quest basket data at 10⁵, 10⁶ and 10⁷
//! transactions and on data in kosarak's shape; time, peak memory and the fitted exponent of
//! time against n; then the families whose guarantee survives sharding on 2, 4 and 8 random
//! shards of the largest Quest file, beside the unsharded run. Full mode only, and only when
//! named (`--only scaling`): it writes gigabytes and takes about an hour (`--scaling-sizes`
//! and `--scaling-shapes` run part of it).
//!
//! Each run is a child process (through `cargo xtask measure`) with its address space capped at
//! [`MEMORY_CAP`] and killed after [`TIME_CAP`]: a family that needs more is a row saying so,
//! never a machine out of memory. Peak memory is the run's maximum resident set.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Serialize;
use txanon_data::{ItemId, TransactionDb};

use super::rows::{table, volatile};
use super::{Context, Output, ScalingShape};
use crate::measure::Measured;

/// The Quest data's name in the tables; its largest file is the one cut into shards.
const QUEST: &str = "Quest basket (T10 I4 N5000)";

/// Shard counts of the sharding comparison.
const SHARDS: [usize; 3] = [2, 4, 8];

/// Address-space cap of one run (the machine has 24 GiB).
const MEMORY_CAP: u64 = 20 << 30;

/// The sensitive items the families that mark items draw unless `--scaling-sensitive` says
/// otherwise: the references' setting, whose rows keep the families' plain names.
pub const DEFAULT_SENSITIVE: usize = 10;

/// Wall-clock cap of one run.
const TIME_CAP: Duration = Duration::from_secs(900);

/// One family's command line, `{in}`, `{out}`, `{seed}`, `{k2}` (coherence's `k′`, 0.1% of
/// the transactions) and `{sensitive}` (the items CAHD and coherence mark) filled in per run.
struct Family {
    name: &'static str,
    args: &'static str,
    /// Run on shards too, with the figure of its summary that sharding can change. Every
    /// family's guarantee survives sharding (docs/SCALE.md); one setting per family is run,
    /// the cheaper band and the smaller p.
    sharded: Option<ShardFigure>,
}

impl Family {
    /// The row's name of a run with `sensitive` marked items: the family's own at the default.
    fn label(&self, sensitive: usize) -> String {
        if !self.args.contains("{sensitive}") || sensitive == DEFAULT_SENSITIVE {
            self.name.to_string()
        } else {
            format!("{}, {sensitive} sensitive", self.name)
        }
    }
}

/// The sensitive-item counts `family` runs at: each of `counts` when it marks items, else one
/// run.
fn sensitive_counts<'c>(family: &Family, counts: &'c [usize]) -> impl Iterator<Item = usize> + 'c {
    let marks = family.args.contains("{sensitive}");
    let once: &'c [usize] = &[DEFAULT_SENSITIVE];
    if marks { counts } else { once }.iter().copied()
}

/// A figure of a family's `summary.json`, and how the shards' figures pool into the union's.
struct ShardFigure {
    label: &'static str,
    /// JSON pointer of the figure.
    at: &'static str,
    pool: Pool,
}

/// How per-shard figures combine into the figure of the union of the shards' publications.
#[derive(Clone, Copy)]
enum Pool {
    /// Counts that add up.
    Sum,
    /// Natural logarithms of counts that add up (log-sum-exp).
    LogSum,
    /// Rates over transactions: the mean weighted by the shards' sizes.
    Mean,
}

/// The first words of the timed rows' names: what `--scaling-families` selects by. Reading and
/// mining, then every family of the registry that publishes transactions (Quest data is
/// transactions; slicing's microdata is timed by its own experiment).
pub fn family_words() -> Vec<&'static str> {
    let families = txanon_data::FamilyName::ALL.into_iter().filter(|f| f.publishes_transactions());
    ["read", "mine"].into_iter().chain(families.map(|f| f.as_str())).collect()
}

/// The row every other row's passes divide by: one read of the file.
const READ: &str = "read (stats)";

const FAMILIES: &[Family] = &[
    Family { name: READ, args: "stats {in}", sharded: None },
    Family {
        name: "mine (FP-Growth at 0.1%)",
        args: "mine fpgrowth {in} --support 0.001 --count-only",
        sharded: None,
    },
    Family {
        name: "anatomy (c 5 l 4)",
        args: "anonymize anatomy {in} -c 5 -l 4 --seed {seed} -o {out}",
        sharded: Some(ShardFigure {
            label: "ln faked records",
            at: "/ln_faked_records",
            pool: Pool::LogSum,
        }),
    },
    // On kosarak's shape one column's empty value holds 46% of the records, so no item
    // partition found there is 4-diverse and l 4 is refused: l 2 gives that shape a
    // publication to time.
    Family {
        name: "anatomy (c 5 l 2)",
        args: "anonymize anatomy {in} -c 5 -l 2 --seed {seed} -o {out}",
        sharded: None,
    },
    Family {
        name: "cahd (p 10 A·Aᵀ band)",
        args: "anonymize cahd {in} -p 10 --sensitive-random {sensitive} --seed {seed} -o {out}",
        sharded: Some(ShardFigure {
            label: "mean reconstruction error r = 4",
            at: "/reconstruction_error_r4/mean",
            pool: Pool::Mean,
        }),
    },
    Family {
        name: "cahd (p 10 sym-pad band)",
        args: "anonymize cahd {in} -p 10 --band sym-pad --sensitive-random {sensitive} --seed {seed} -o {out}",
        sharded: None,
    },
    Family {
        name: "coherence (h 0.4 k 10 p 2)",
        args: "anonymize coherence {in} --h 0.4 --k 10 --p 2 --nugget-support {k2} --sensitive-random {sensitive} --seed {seed} -o {out}",
        sharded: Some(ShardFigure {
            label: "occurrences suppressed %",
            at: "/occurrences_suppressed_percent",
            pool: Pool::Mean,
        }),
    },
    Family {
        name: "coherence (h 0.4 k 10 p 3)",
        args: "anonymize coherence {in} --h 0.4 --k 10 --p 3 --nugget-support {k2} --sensitive-random {sensitive} --seed {seed} -o {out}",
        sharded: None,
    },
    // kᵐ-anonymity's guarantee is a support threshold over the whole publication, and the
    // shards would publish under different cuts: not sharded (docs/SCALE.md).
    Family {
        name: "km (k 100 m 3 fanout 5)",
        args: "anonymize km {in} --k 100 --m 3 --seed {seed} -o {out}",
        sharded: None,
    },
    Family {
        name: "swap (50 categories)",
        args: "anonymize swap {in} --random-categories 50 --seed {seed} -o {out}",
        sharded: Some(ShardFigure {
            label: "records without a partner",
            at: "/unmatched",
            pool: Pool::Sum,
        }),
    },
    // The paper's search reads every candidate sharing an item with the source: quadratic once
    // all do, as on kosarak's shape. The window bounds it (docs/SCALE.md).
    Family {
        name: "swap (50 categories, window 64)",
        args: "anonymize swap {in} --random-categories 50 --window 64 --seed {seed} -o {out}",
        sharded: None,
    },
];

/// How one run ended.
#[derive(Debug, Clone)]
struct Run {
    seconds: f64,
    peak_mb: f64,
    outcome: String,
    summary: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct ScalingRow {
    data: String,
    family: String,
    transactions: usize,
    seconds: f64,
    #[serde(rename = "peak MB")]
    peak_mb: f64,
    #[serde(rename = "µs per transaction")]
    per_transaction: f64,
    /// The run's time as a multiple of one read of the same file (the `read` row's time): the
    /// distance to the physical limit. `None` when the read was not run.
    passes: Option<f64>,
    outcome: String,
}

/// Each row's time as a multiple of the `read` row's of the same data and size.
fn count_passes(rows: &mut [ScalingRow]) {
    let reads: Vec<(String, usize, f64)> = rows
        .iter()
        .filter(|r| r.family == READ && r.outcome == "done")
        .map(|r| (r.data.clone(), r.transactions, r.seconds))
        .collect();
    for row in rows.iter_mut() {
        let read = reads.iter().find(|(d, n, _)| *d == row.data && *n == row.transactions);
        row.passes = read.filter(|r| r.2 > 0.0).map(|r| row.seconds / r.2);
    }
}

#[derive(Serialize)]
struct ExponentRow {
    data: String,
    family: String,
    from: usize,
    to: usize,
    /// The slope of log time against log n; `None` unless both runs finished.
    exponent: Option<f64>,
}

#[derive(Serialize)]
struct ShardRow {
    family: &'static str,
    shards: usize,
    #[serde(rename = "seconds (sum)")]
    seconds: f64,
    #[serde(rename = "peak MB (largest shard)")]
    peak_mb: f64,
    utility: &'static str,
    value: Option<f64>,
    #[serde(rename = "unsharded value")]
    unsharded: Option<f64>,
    outcome: String,
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<Output> {
    let mut out = Output::default();
    if ctx.quick {
        out.notes.push(
            "Not run under --quick: it generates ten million transactions (480 MB) and runs \
             every family on them, about an hour; `cargo xtask reproduce --only scaling` runs it \
             (`--scaling-sizes` for other sizes)."
                .into(),
        );
        return Ok(out);
    }
    let binary = build_cli()?;
    let dir = crate::project_root().join("target/scaling");
    std::fs::create_dir_all(&dir)?;
    let Inputs { data, quest } = inputs(ctx, &binary, &dir, &mut out)?;
    let Timed { rows, exponents, unsharded } = timed_runs(ctx, &binary, &dir, &data, &mut out)?;
    let shards = if quest.is_empty() || !ctx.scaling_families.is_empty() {
        Vec::new()
    } else {
        sharding(&binary, ctx.seed, &dir, &quest, &unsharded)?
    };
    out.parameters = vec![
        ("Quest basket".into(), "generate quest --avg-len 10 --pattern-len 4 --items 5000".into()),
        ("memory cap".into(), format!("{} GiB of address space per run", MEMORY_CAP >> 30)),
        ("time cap".into(), format!("{} s per run", TIME_CAP.as_secs())),
        (
            "sensitive items".into(),
            format!(
                "{:?} drawn for CAHD and coherence (rows other than {DEFAULT_SENSITIVE} named so)",
                ctx.scaling_sensitive
            ),
        ),
    ];
    out.tables.push(table(
        "scaling",
        &rows,
        &[
            volatile("seconds", 2),
            volatile("peak MB", 0),
            volatile("µs per transaction", 2),
            volatile("passes", 1),
            volatile("outcome", 0),
        ],
    ));
    out.tables.push(table("scaling-exponents", &exponents, &[volatile("exponent", 2)]));
    out.tables.push(table(
        "scaling-shards",
        &shards,
        &[
            volatile("seconds (sum)", 1),
            volatile("peak MB (largest shard)", 0),
            volatile("value", 4),
            volatile("unsharded value", 4),
            volatile("outcome", 0),
        ],
    ));
    out.notes.push(
        "The exponent is the slope of log time against log n between two sizes (1 is linear). \
         Every figure is volatile: times and memory depend on the machine, so `--check` compares \
         only which runs were made."
            .into(),
    );
    out.data = data.iter().map(|(n, _)| n.clone()).collect();
    Ok(out)
}

/// The files of every size, by shape; the Quest files apart (the shards are cut from them).
struct Inputs {
    data: Vec<(String, Vec<(usize, PathBuf)>)>,
    quest: Vec<(usize, PathBuf)>,
}

/// One file per shape and size, generated once per seed and kept for the next run.
fn inputs(ctx: &Context, binary: &Path, dir: &Path, out: &mut Output) -> Result<Inputs> {
    let sizes = &ctx.scaling_sizes;
    // One file per size, generated once per seed and kept for the next run.
    let files = |stem: &str, make: &dyn Fn(usize, &Path) -> Result<()>| {
        sizes
            .iter()
            .map(|&n| {
                let path = dir.join(format!("{stem}-{n}-{}.dat", ctx.seed));
                if !path.exists() {
                    make(n, &path)?;
                }
                Ok((n, path))
            })
            .collect::<Result<Vec<(usize, PathBuf)>>>()
    };
    let mut data: Vec<(String, Vec<(usize, PathBuf)>)> = Vec::new();
    let mut quest = Vec::new();
    if ctx.scaling_shapes.contains(&ScalingShape::Quest) {
        quest = files("quest-basket", &|n, path| generate_quest(binary, n, ctx.seed, path))?;
        data.push((QUEST.into(), quest.clone()));
    }
    if !ctx.scaling_shapes.contains(&ScalingShape::Kosarak) {
        out.notes.push("kosarak-shaped data not run (`--scaling-shapes`).".into());
    } else if let Some((_, sample)) = ctx.real("kosarak-sample")? {
        let kosarak =
            files("kosarak-shaped", &|n, path| kosarak_shaped(&sample, n, ctx.seed, path))?;
        data.push(("kosarak-shaped".into(), kosarak));
    }
    Ok(Inputs { data, quest })
}

/// What the timed runs gave: a row per run, the exponents, and the largest Quest runs.
struct Timed {
    rows: Vec<ScalingRow>,
    exponents: Vec<ExponentRow>,
    unsharded: Vec<(&'static str, Run)>,
}

/// Every selected family on every file, timed through the binary.
fn timed_runs(
    ctx: &Context,
    binary: &Path,
    dir: &Path,
    data: &[(String, Vec<(usize, PathBuf)>)],
    out: &mut Output,
) -> Result<Timed> {
    let mut rows = Vec::new();
    let mut exponents = Vec::new();
    let mut unsharded = Vec::new();
    let selected = |family: &Family| {
        ctx.scaling_families.is_empty()
            || ctx
                .scaling_families
                .iter()
                .any(|w| family.name.split(' ').next() == Some(w.as_str()))
    };
    if !ctx.scaling_families.is_empty() {
        out.notes.push(format!(
            "Families run: {} (`--scaling-families`); no shards.",
            ctx.scaling_families.join(", ")
        ));
    }
    for (name, files) in data {
        for (family, sensitive) in FAMILIES
            .iter()
            .filter(|f| selected(f))
            .flat_map(|f| sensitive_counts(f, &ctx.scaling_sensitive).map(move |c| (f, c)))
        {
            let label = family.label(sensitive);
            let mut runs = Vec::new();
            for (n, path) in files {
                eprintln!("   {name}, {label}, n = {n}");
                let r = run_family(binary, family, path, *n, ctx.seed, sensitive, dir)?;
                rows.push(ScalingRow {
                    data: name.clone(),
                    family: label.clone(),
                    transactions: *n,
                    seconds: r.seconds,
                    peak_mb: r.peak_mb,
                    per_transaction: r.seconds * 1e6 / *n as f64,
                    passes: None,
                    outcome: r.outcome.clone(),
                });
                runs.push((*n, r));
            }
            exponents.extend(exponent_rows(name, &label, &runs));
            // The shards are cut from the largest Quest file: its runs are the comparison.
            if *name == QUEST
                && sensitive == DEFAULT_SENSITIVE
                && let Some((_, r)) = runs.last()
            {
                unsharded.push((family.name, r.clone()));
            }
        }
    }
    count_passes(&mut rows);
    Ok(Timed { rows, exponents, unsharded })
}

/// Builds the CLI in release mode: the experiment measures what a user runs.
fn build_cli() -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--package", "txanon-cli"])
        .current_dir(crate::project_root())
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release --package txanon-cli failed");
    }
    Ok(crate::project_root().join("target/release/txanon"))
}

fn generate_quest(binary: &Path, n: usize, seed: u64, path: &Path) -> Result<()> {
    let status = Command::new(binary)
        .args(["generate", "quest", "--avg-len", "10", "--pattern-len", "4", "--items", "5000"])
        .args(["--transactions", &n.to_string(), "--seed", &seed.to_string(), "-o"])
        .arg(path)
        .stdout(Stdio::null())
        .status()?;
    if !status.success() {
        bail!("generating {}", path.display());
    }
    Ok(())
}

/// `n` transactions in the shape of the kosarak sample: each is a random sample transaction
/// whose items are each, with probability ½, replaced by an item drawn from the sample's item
/// frequencies (duplicates merged, so a transaction can come out a little shorter). The item
/// supports keep the sample's distribution (the replacement draws from the items' marginal),
/// its heavy head included;
/// half the co-occurrence is kept, so the data is neither the sample repeated (every
/// transaction in hundreds of identical copies) nor independent items.
fn kosarak_shaped(sample: &TransactionDb, n: usize, seed: u64, path: &Path) -> Result<()> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0x6b6f_7361_7261_6b00);
    let occurrences: Vec<ItemId> = sample.iter().flatten().copied().collect();
    if occurrences.is_empty() {
        bail!("the kosarak sample is empty");
    }
    let mut rows: Vec<Vec<ItemId>> = Vec::with_capacity(n);
    for _ in 0..n {
        let t = sample.transaction(rng.random_range(0..sample.len()));
        let mut row: Vec<ItemId> = t
            .iter()
            .map(|&i| {
                if rng.random_bool(0.5) {
                    occurrences[rng.random_range(0..occurrences.len())]
                } else {
                    i
                }
            })
            .collect();
        row.sort_unstable();
        row.dedup();
        rows.push(row);
    }
    let db = TransactionDb::from_rows(rows, sample.labels().clone());
    txanon_data::write_path(&db, txanon_data::Format::Fimi, path)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Runs `family` on `input` in a child capped at [`MEMORY_CAP`] and [`TIME_CAP`]; an error only
/// when the measurement itself fails (a family's failure is the run's outcome).
fn run_family(
    binary: &Path,
    family: &Family,
    input: &Path,
    n: usize,
    seed: u64,
    sensitive: usize,
    dir: &Path,
) -> Result<Run> {
    let out = dir.join("publication");
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    let k2 = n.div_ceil(1000).max(10);
    let args: Vec<String> = family
        .args
        .split(' ')
        .map(|a| {
            a.replace("{in}", &input.display().to_string())
                .replace("{out}", &out.display().to_string())
                .replace("{seed}", &seed.to_string())
                .replace("{k2}", &k2.to_string())
                .replace("{sensitive}", &sensitive.to_string())
        })
        .collect();
    // This executable measures (`xtask measure`): the peak is that one run's.
    let me = std::env::current_exe().context("locating xtask")?;
    let output = Command::new(me)
        .args(["measure", "--memory-cap", &MEMORY_CAP.to_string()])
        .args(["--time-cap", &TIME_CAP.as_secs().to_string(), "--"])
        .arg(binary)
        .args(&args)
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .output()
        .context("running xtask measure")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The family's own stdout (its summary) comes first; the measurement is the last line.
    let last = stdout.lines().rev().find(|l| l.starts_with('{') && l.contains("peak_kb"));
    let Some(measured) = last.and_then(|l| serde_json::from_str::<Measured>(l).ok()) else {
        bail!("xtask measure printed no measurement for {}", family.name);
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    let seconds = measured.seconds;
    let peak_mb = measured.peak_kb as f64 / 1024.0;
    let outcome = if measured.timed_out {
        format!("stopped after {} s", TIME_CAP.as_secs())
    } else if measured.exit == Some(0) {
        "done".to_string()
    } else if stderr.contains("memory allocation") {
        format!("out of memory ({} GiB cap)", MEMORY_CAP >> 30)
    } else if let Some(signal) = measured.signal {
        format!("killed by signal {signal}")
    } else {
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
        format!("exit {}: {last}", measured.exit.unwrap_or(-1))
    };
    let summary = std::fs::read_to_string(out.join("summary.json"))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok());
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    Ok(Run { seconds, peak_mb, outcome, summary })
}

/// The exponent between each two consecutive sizes.
fn exponent_rows(data: &str, family: &str, runs: &[(usize, Run)]) -> Vec<ExponentRow> {
    runs.windows(2)
        .map(|pair| {
            let [(na, ra), (nb, rb)] = pair else { unreachable!("windows of two") };
            let finished = ra.outcome == "done" && rb.outcome == "done" && ra.seconds > 0.0;
            ExponentRow {
                data: data.to_string(),
                family: family.to_string(),
                from: *na,
                to: *nb,
                exponent: finished
                    .then(|| (rb.seconds / ra.seconds).ln() / (*nb as f64 / *na as f64).ln()),
            }
        })
        .collect()
}

impl ShardFigure {
    /// The figure in one run's summary, and the run's transactions (its weight).
    fn read(&self, summary: &serde_json::Value) -> Option<(f64, f64)> {
        let number = |key: &str| summary.pointer(key).and_then(serde_json::Value::as_f64);
        let size = number("/transactions").or_else(|| number("/records"))?;
        Some((number(self.at)?, size))
    }

    /// The figure of the union of the shards' publications.
    fn pooled(&self, parts: &[(f64, f64)]) -> f64 {
        match self.pool {
            Pool::LogSum => {
                let max = parts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
                max + parts.iter().map(|p| (p.0 - max).exp()).sum::<f64>().ln()
            }
            Pool::Sum => parts.iter().map(|p| p.0).sum(),
            Pool::Mean => {
                let weight: f64 = parts.iter().map(|p| p.1).sum();
                parts.iter().map(|p| p.0 * p.1).sum::<f64>() / weight.max(f64::MIN_POSITIVE)
            }
        }
    }
}

/// The sharded families on 2, 4 and 8 random shards of the largest Quest file.
fn sharding(
    binary: &Path,
    seed: u64,
    dir: &Path,
    quest: &[(usize, PathBuf)],
    unsharded: &[(&'static str, Run)],
) -> Result<Vec<ShardRow>> {
    let Some((n, largest)) = quest.last() else { return Ok(Vec::new()) };
    let (db, _) = txanon_data::read_path(largest, &txanon_data::ReadOptions::new())?;
    let mut rows = Vec::new();
    for &k in &SHARDS {
        let mut rng = ChaCha20Rng::seed_from_u64(seed.wrapping_add(k as u64));
        let mut order: Vec<usize> = (0..db.len()).collect();
        order.shuffle(&mut rng);
        let mut paths = Vec::new();
        for (s, chunk) in order.chunks(n.div_ceil(k)).enumerate() {
            let path = dir.join(format!("shard-{s}-of-{k}.dat"));
            let shard = db.select(chunk.to_vec());
            txanon_data::write_path(&shard, txanon_data::Format::Fimi, &path)?;
            paths.push((chunk.len(), path));
        }
        for family in FAMILIES {
            let Some(figure) = &family.sharded else { continue };
            eprintln!("   {} on {k} shards", family.name);
            let (mut seconds, mut peak, mut outcome) = (0.0, 0.0f64, "done".to_string());
            let mut parts = Vec::new();
            for (size, path) in &paths {
                let r = run_family(binary, family, path, *size, seed, DEFAULT_SENSITIVE, dir)?;
                seconds += r.seconds;
                peak = peak.max(r.peak_mb);
                if r.outcome != "done" {
                    outcome = r.outcome.clone();
                }
                if let Some(part) = r.summary.as_ref().and_then(|s| figure.read(s)) {
                    parts.push(part);
                }
            }
            let whole = unsharded
                .iter()
                .find(|(name, _)| *name == family.name)
                .and_then(|(_, r)| r.summary.as_ref())
                .and_then(|s| figure.read(s))
                .map(|(v, _)| v);
            rows.push(ShardRow {
                family: family.name,
                shards: k,
                seconds,
                peak_mb: peak,
                utility: figure.label,
                value: (parts.len() == paths.len()).then(|| figure.pooled(&parts)),
                unsharded: whole,
                outcome,
            });
        }
        for (_, path) in &paths {
            std::fs::remove_file(path).ok();
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Passes are a run's time over the read of the same file; none where that read did not
    /// finish, or for another data set or size.
    #[test]
    fn passes_divide_by_the_read_of_the_same_file() {
        let row = |data: &str, family: &str, n, seconds, outcome: &str| ScalingRow {
            data: data.into(),
            family: family.into(),
            transactions: n,
            seconds,
            peak_mb: 0.0,
            per_transaction: 0.0,
            passes: None,
            outcome: outcome.into(),
        };
        let mut rows = vec![
            row("q", READ, 10, 2.0, "done"),
            row("q", "km (k 100)", 10, 50.0, "done"),
            row("q", "km (k 100)", 20, 90.0, "done"),
            row("k", READ, 10, 1.0, "killed"),
            row("k", "km (k 100)", 10, 9.0, "done"),
        ];
        count_passes(&mut rows);
        let passes: Vec<Option<f64>> = rows.iter().map(|r| r.passes).collect();
        assert_eq!(passes, [Some(1.0), Some(25.0), None, None, None]);
    }

    /// `--scaling-sensitive` runs the families that mark items once per count, the default
    /// under the family's own name (the references' rows), and the others once.
    #[test]
    fn sensitive_counts_multiply_only_the_families_that_mark_items() {
        let counts = [DEFAULT_SENSITIVE, 270];
        let marking: Vec<&Family> =
            FAMILIES.iter().filter(|f| f.args.contains("{sensitive}")).collect();
        assert_eq!(marking.len(), 4, "CAHD's two bands, coherence at p 2 and 3");
        for f in FAMILIES {
            let runs: Vec<usize> = sensitive_counts(f, &counts).collect();
            let labels: Vec<String> = runs.iter().map(|&c| f.label(c)).collect();
            if f.args.contains("{sensitive}") {
                assert_eq!(labels, [f.name.to_string(), format!("{}, 270 sensitive", f.name)]);
            } else {
                assert_eq!(labels, [f.name.to_string()]);
            }
        }
    }

    /// `--scaling-families` selects by words that each name a family, and every family has one.
    #[test]
    fn family_words_name_the_families() {
        let first = |f: &Family| f.name.split(' ').next().unwrap().to_owned();
        for family in FAMILIES {
            assert!(family_words().contains(&first(family).as_str()), "{}", family.name);
        }
        for word in family_words() {
            assert!(FAMILIES.iter().any(|f| first(f) == word), "{word}");
        }
    }
}
