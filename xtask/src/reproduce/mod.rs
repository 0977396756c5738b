//! `cargo xtask reproduce`: a registry of experiments, each a named function producing tables
//! and figures, and the writers that turn them into CSV, JSON, SVG and `REPORT.md`.
//!
//! Adding an experiment is writing one function `fn(&Context) -> Result<Output>` and one line in
//! [`EXPERIMENTS`].

mod adult;
mod anatomy;
mod cahd;
mod claims;
mod coherence;
mod context;
mod datasets;
mod head_to_head;
mod km;
mod learners;
mod mining;
mod output;
mod plot;
mod quest;
mod rows;
mod scaling;
mod slicing;
mod swap;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use clap::Args;

pub use context::Context;
pub use output::{Figure, FigureKind, Legend, Output, Picture, ResultTable, Series, Value};

/// One registered experiment.
#[derive(Debug, Clone, Copy)]
pub struct Experiment {
    /// Name used by `--only` and for the output files.
    pub name: &'static str,
    /// One line saying what it measures.
    pub title: &'static str,
    /// The paper's figure or table it reproduces.
    pub paper: &'static str,
    /// The experiment.
    pub run: fn(&Context) -> Result<Output>,
    /// Run only when named with `--only` (it takes far longer than the rest together).
    pub on_request: bool,
}

/// Every experiment, in report order.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        name: "datasets",
        title: "Dataset statistics beside the manifest's and the papers' figures",
        paper: "anatomy paper Table II (Connect, T40I10D100K); CAHD Table I (BMS-WebView-1/2)",
        run: datasets::run,
        on_request: false,
    },
    Experiment {
        name: "quest",
        title: "The Quest generator against T40I10D100K",
        paper: "Agrawal & Srikant, VLDB 1994; T40I10D100K as the anatomy paper uses it",
        run: quest::run,
        on_request: false,
    },
    Experiment {
        name: "mining",
        title: "Frequent itemsets and rules: counts and times beside pyfim",
        paper: "anatomy paper (Apriori, rules of 2-4 items); swap paper (FP-Growth); Borgelt's pyfim as reference",
        run: mining::run,
        on_request: false,
    },
    Experiment {
        name: "anatomy",
        title: "Multi-dimension anatomy: reachable l, rules kept, AR, faked records, time, scaling",
        paper: "anatomy paper, Figures 3-7 (Connect p = 10; T40I10D100K p = 20), both readings of its l-diversity",
        run: anatomy::run,
        on_request: false,
    },
    Experiment {
        name: "cahd",
        title: "CAHD: band matrices, reconstruction error and time against p, re-identification risk, the reimplementation's timing",
        paper: "CAHD (ICDE 2008) Figure 9 and Table II on BMS-WebView-1/2 (and retail); document 003's timing table",
        run: cahd::run,
        on_request: false,
    },
    Experiment {
        name: "coherence",
        title: "(h,k,p)-coherence: items suppressed, nuggets retained and time against p, k and h; counting beside enumeration",
        paper: "coherence paper (ICDM 2008): its greedy (Figure 2) and border-based counting (Section 6); the paper reports no experiments (\"not included in this paper due to the space\"), so the data (BMS-WebView-1/2, retail) and the settings (p = 3, k = 10, h = 40%, k′ = 0.1%, varied one at a time) are ours",
        run: coherence::run,
        on_request: false,
    },
    Experiment {
        name: "swap",
        title: "Hiding personal tendency: frequent itemsets, their similarity U, Diss and time per method; PartSwap against n",
        paper: "swap paper (Future Internet 2019) Table 3 and Figures 3-6 on data of its sizes (5,000 records of each BMS file, drawn as the paper does not say: ours are BMS-WebView-1's first 5,000 and 5,000 of BMS-WebView-2 at random; Quest in the WarpDrive log's shape), then the whole BMS files and retail",
        run: swap::run,
        on_request: false,
    },
    Experiment {
        name: "slicing",
        title: "Slicing beside Mondrian and Anatomy: which l each reaches, classification accuracy (naive Bayes, decision tree) for a sensitive and a quasi-identifier target, membership disclosure, time",
        paper: "slicing (TKDE 2012) as document 001 summarizes it: utility against generalization and bucketization, l-diversity, membership disclosure by matching buckets; 001's classification figure names Disease as the target, so the study here (Adult, Occupation and Education as targets, l = 5 and 8) is ours",
        run: slicing::run,
        on_request: false,
    },
    Experiment {
        name: "km",
        title: "kᵐ-anonymity by generalization: information loss and time of AA against k, m and the hierarchy's fanout, DA beside AA, a co-occurrence hierarchy beside the balanced one, the greedy cuts against the exhaustive optimum",
        paper: "Terrovitis, Mamoulis, Kalnis, PVLDB 1(1) 2008: its running example, and its experiments' data (BMS-WebView-1 and -2) and axes (k, m, fanout)",
        run: km::run,
        on_request: false,
    },
    Experiment {
        name: "head-to-head",
        title: "Every transaction family at matched levels under one adversary and one utility yardstick: the privacy-utility frontier, which points no other beats, and each family's guarantee checked by the common adversary",
        paper: "no paper compares them: the CAHD papers' convention (10 random sensitive items) on BMS-WebView-1/2, retail and the T40 sample; each family's own guarantee (CAHD's p, coherence's h and k, swapping's hidden tendency) as the claims",
        run: head_to_head::run,
        on_request: false,
    },
    Experiment {
        name: "scaling",
        title: "Ten million transactions: every transaction family end to end (time, peak memory, fitted exponent of time against n) on Quest basket data and kosarak-shaped data at 10⁵, 10⁶ and 10⁷, and the shardable families on 2, 4 and 8 shards",
        paper: "no paper: the published data sets stop at 0.5 million transactions (kosarak 990,002; BMS-WebView-1 59,602); issue 19's targets (under 60 s and 8 GB at 10⁷, coherence p = 3 under 5 minutes, exponent at most 1.15)",
        run: scaling::run,
        on_request: true,
    },
];

/// Arguments of `cargo xtask reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Use the embedded data only (examples and generated data); finishes in under two minutes.
    #[arg(long)]
    quick: bool,
    /// Also run the slow references (the coherence enumeration engine at p = 4 and on
    /// retail); the full run takes about 10 minutes without them (docs/PERFORMANCE.md).
    #[arg(long)]
    slow_references: bool,
    /// Run only this experiment (repeatable); `scaling` runs only when named here.
    #[arg(long, value_name = "NAME")]
    only: Vec<String>,
    /// Where to write the results.
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Seed for every random choice of the experiments.
    #[arg(long, default_value_t = 20_081_212)]
    seed: u64,
    /// Compare every table with the committed reference in `xtask/reference/<mode>/` (volatile
    /// columns such as times left out) and fail on any difference.
    #[arg(long)]
    check: bool,
    /// The transaction counts of the `scaling` experiment, at least two, ascending, each from
    /// 1,000 to 100,000,000 (its references are for the default).
    #[arg(
        long,
        value_delimiter = ',',
        default_values_t = [100_000u64, 1_000_000, 10_000_000],
        value_parser = clap::value_parser!(u64).range(1_000..=100_000_000)
    )]
    scaling_sizes: Vec<u64>,
    /// The data shapes of the `scaling` experiment: Quest baskets (whose largest file is also
    /// cut into shards) and kosarak's shape (when the kosarak sample is found).
    #[arg(long, value_delimiter = ',', default_values_t = [ScalingShape::Quest, ScalingShape::Kosarak])]
    scaling_shapes: Vec<ScalingShape>,
    /// The families of the `scaling` experiment, by the first word of their names (read, mine,
    /// anatomy, cahd, coherence, km, swap); all by default. Shards are cut only when every
    /// family runs.
    #[arg(long, value_delimiter = ',')]
    scaling_families: Vec<String>,
    /// The sensitive (CAHD) and private (coherence) items drawn for the `scaling` experiment's
    /// families that mark items, one run per count: 10 (the references' setting) and, say,
    /// 270 (5% of the Quest items) to measure both.
    #[arg(
        long,
        value_delimiter = ',',
        default_values_t = [scaling::DEFAULT_SENSITIVE as u64],
        value_parser = clap::value_parser!(u64).range(1..=1_000_000)
    )]
    scaling_sensitive: Vec<u64>,
    /// Write the tables of this run as the new references.
    #[arg(long, conflicts_with = "check")]
    bless: bool,
}

/// A data shape of the `scaling` experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScalingShape {
    /// Quest basket data (T10 I4 N5000), and the shards of its largest file.
    Quest,
    /// The kosarak sample's item distribution, scaled up.
    Kosarak,
}

impl std::fmt::Display for ScalingShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Quest => "quest",
            Self::Kosarak => "kosarak",
        })
    }
}

/// Runs the selected experiments and writes their outputs and the report.
pub fn run(args: ReproduceArgs) -> Result<()> {
    for name in &args.only {
        if !EXPERIMENTS.iter().any(|e| e.name == name) {
            let known: Vec<_> = EXPERIMENTS.iter().map(|e| e.name).collect();
            bail!("unknown experiment {name:?}; known: {}", known.join(", "));
        }
    }
    let out = if args.out.is_absolute() {
        args.out.clone()
    } else {
        crate::project_root().join(&args.out)
    };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let ctx = context(&args)?;
    let done = run_experiments(&args, &ctx, &out)?;
    let report = output::write_report(&out, &ctx, &done)?;
    eprintln!("report: {}", report.display());
    let reference = crate::project_root().join("xtask/reference").join(if args.quick {
        "quick"
    } else {
        "full"
    });
    if args.bless {
        bless(&reference, &done)?;
    }
    if args.check {
        check(&reference, &done)?;
    }
    Ok(())
}

/// An experiment that ran: what it produced and its seconds.
type Done = (&'static Experiment, Output, f64);

/// The context the experiments share, from the arguments.
fn context(args: &ReproduceArgs) -> Result<Context> {
    if args.scaling_sizes.len() < 2 || args.scaling_sizes.windows(2).any(|w| w[0] >= w[1]) {
        bail!("--scaling-sizes: at least two sizes, ascending (got {:?})", args.scaling_sizes);
    }
    let mut ctx = Context::new(args.quick, args.seed, args.slow_references);
    ctx.scaling_sizes = args.scaling_sizes.iter().map(|&n| n as usize).collect();
    ctx.scaling_shapes = args.scaling_shapes.clone();
    for family in &args.scaling_families {
        if !scaling::family_words().contains(&family.as_str()) {
            bail!(
                "--scaling-families: unknown family {family:?}; known: {}",
                scaling::family_words().join(", ")
            );
        }
    }
    ctx.scaling_families = args.scaling_families.clone();
    ctx.scaling_sensitive = args.scaling_sensitive.iter().map(|&n| n as usize).collect();
    Ok(ctx)
}

/// Runs the experiments the arguments select, writing each one's results under `out`.
fn run_experiments(args: &ReproduceArgs, ctx: &Context, out: &Path) -> Result<Vec<Done>> {
    let mut done = Vec::new();
    for exp in EXPERIMENTS.iter().filter(|e| {
        if args.only.is_empty() { !e.on_request } else { args.only.iter().any(|o| o == e.name) }
    }) {
        eprintln!("== {}: {}", exp.name, exp.title);
        let started = Instant::now();
        let mut result = (exp.run)(ctx).with_context(|| format!("experiment {}", exp.name))?;
        let seconds = started.elapsed().as_secs_f64();
        if result.data.is_empty() {
            result.data = used_data(&result);
        }
        if !result.refusals.is_empty() {
            // Which settings a family refuses is a result: checked like any table.
            result.tables.push(rows::table(&refusals_table(exp.name), &result.refusals, &[]));
        }
        if let Some(beside) =
            claims::PaperValues::of(exp.name)?.beside_ours(exp.name, &result.tables)
        {
            result.tables.push(beside);
        }
        output::write_experiment(out, exp, &result)?;
        eprintln!("   done in {seconds:.2} s");
        done.push((exp, result, seconds));
    }
    Ok(done)
}

/// Writes every table of `done` as the reference.
fn bless(reference: &Path, done: &[Done]) -> Result<()> {
    std::fs::create_dir_all(reference)?;
    for (_, result, _) in done {
        for t in result.tables.iter().filter(|t| !t.rows.is_empty()) {
            output::write(reference.join(format!("{}.csv", t.name)), t.stable_csv())?;
        }
    }
    eprintln!("references written to {}", reference.display());
    Ok(())
}

/// Compares every table of `done` with its reference, and every reference with a table.
fn check(reference: &Path, done: &[Done]) -> Result<()> {
    let mut differences = Vec::new();
    for (exp, result, _) in done {
        for stale in unproduced_references(reference, exp, result)? {
            differences.push(format!("{stale}: in the references, not produced by this run"));
        }
        for t in result.tables.iter().filter(|t| !t.rows.is_empty()) {
            let path = reference.join(format!("{}.csv", t.name));
            match std::fs::read_to_string(&path) {
                Ok(expected) if expected == t.stable_csv() => {}
                Ok(expected) => differences.push(format!(
                    "{}: differs from {}\n--- reference\n{expected}--- this run\n{}",
                    t.name,
                    path.display(),
                    t.stable_csv()
                )),
                Err(_) => {
                    differences.push(format!("{}: no reference at {}", t.name, path.display()))
                }
            }
        }
    }
    if !differences.is_empty() {
        bail!("--check failed:\n{}", differences.join("\n"));
    }
    eprintln!("--check: every table matches its reference");
    Ok(())
}

/// The table of the settings `experiment`'s families refused.
fn refusals_table(experiment: &str) -> String {
    format!("{experiment}-refusals")
}

/// Reference tables of `exp` (named `<exp>.csv` or `<exp>-….csv`) that `result` did not produce.
fn unproduced_references(
    reference: &std::path::Path,
    exp: &Experiment,
    result: &Output,
) -> Result<Vec<String>> {
    let Ok(entries) = std::fs::read_dir(reference) else { return Ok(Vec::new()) };
    let mut stale = Vec::new();
    for entry in entries {
        let name = entry?.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".csv") else { continue };
        let mine = stem == exp.name
            || stem.strip_prefix(exp.name).is_some_and(|rest| rest.starts_with('-'));
        // Another experiment's name can extend this one's ("quest" and "quest-…" are both
        // quest's; no experiment is named with another's prefix and a dash).
        let other = EXPERIMENTS.iter().any(|e| {
            e.name != exp.name && e.name.len() > exp.name.len() && stem.starts_with(e.name)
        });
        if mine && !other && !result.tables.iter().any(|t| t.name == stem && !t.rows.is_empty()) {
            stale.push(stem.to_string());
        }
    }
    stale.sort();
    Ok(stale)
}

/// The distinct values of the first table's first column named `dataset` or `data`: what an
/// experiment that does not say which data it used ran on.
fn used_data(result: &Output) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for t in &result.tables {
        let Some(j) = t.columns.iter().position(|c| c == "dataset" || c == "data") else {
            continue;
        };
        for row in &t.rows {
            if let Value::Text(name) = &row[j]
                && !seen.contains(name)
            {
                seen.push(name.clone());
            }
        }
        break;
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::EXPERIMENTS;

    /// Every family of the registry has its experiment, named as the registry names it.
    #[test]
    fn every_registered_family_has_its_experiment() {
        for family in txanon_data::FamilyName::ALL {
            assert!(
                EXPERIMENTS.iter().any(|e| e.name == family.as_str()),
                "no experiment for {family}"
            );
        }
    }
}
