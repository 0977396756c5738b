//! `txanon anonymize coherence` and `txanon audit coherence`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use txanon_coherence::{CoherenceClaim, CoherenceParams, Engine, audit_with_progress};
use txanon_mining::MinSupport;

use crate::anonymize::OutputArgs;
use crate::exit::UsageError;
use crate::input::{InputArgs, SensitiveArgs};

/// Arguments of `txanon anonymize coherence`.
#[derive(Debug, Args)]
pub struct CoherenceArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    sensitive: SensitiveArgs,
    /// Seed of --sensitive-random and of the ChaCha20 shuffle of the published transactions
    /// (default: from the operating system).
    /// A secret, like a key: keyed with a digest of the input, it repeats the run byte for
    /// byte; it is never written into the publication.
    #[arg(long, value_parser = crate::numbers::any::<u64>())]
    seed: Option<u64>,
    #[command(flatten)]
    setting: Setting,
    /// Nugget support k′: itemsets at least this frequent are the utility kept; a percentage
    /// (0.1%), a fraction (0.001) or a count (78), as every support.
    #[arg(long, value_name = "K2", value_parser = |s: &str| s.parse::<MinSupport>())]
    nugget_support: MinSupport,
    /// Count with the enumeration reference (every mole and nugget listed) instead of FP-Growth
    /// through the border.
    #[arg(long, conflicts_with = "edges")]
    reference: bool,
    /// Count with the paper's border edges and Compute-δ.
    #[arg(long)]
    edges: bool,
    /// Refuse, before the work, an input whose public itemsets of at most p items (counted with
    /// repeats over the transactions, after the pre-step) exceed N: the work and the memory grow
    /// with them, and a transaction of a million items at p = 2 would take days.
    #[arg(long, value_name = "N", default_value_t = txanon_coherence::DEFAULT_MAX_ITEMSETS,
          value_parser = crate::numbers::positive::<u64>())]
    max_itemsets: u64,
    /// The publication: published.dat (or .csv), suppressed.json, summary.json and
    /// manifest.json.
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    report: crate::anonymize::RunReport,
    #[command(flatten)]
    format: crate::anonymize::PublishedFormat,
}

/// Arguments of `txanon audit coherence`.
#[derive(Debug, Args)]
pub struct AuditCoherenceArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The sensitive (the paper's private) item labels. `--private` is the same option.
    #[arg(long, visible_alias = "private", value_name = "FILE")]
    sensitive: PathBuf,
    #[command(flatten)]
    setting: Setting,
    /// The original transactions: the publication must be them less some public items,
    /// each suppressed everywhere, private items untouched.
    #[arg(long, value_name = "FILE")]
    original: Option<PathBuf>,
    /// Refuse (exit 2) a --sensitive entry that names no item of the publication or the
    /// original, instead of warning.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    manifest: crate::publication::ManifestArgs,
}

/// The (h, k, p) both subcommands take.
#[derive(Debug, Clone, Copy, Args)]
struct Setting {
    /// Breach bound h: no private item inferred with probability above h.
    #[arg(long, value_parser = crate::numbers::real(0.0, crate::numbers::End::Closed, 1.0, crate::numbers::End::Open))]
    h: f64,
    /// Cohort size k: every known itemset must match at least k transactions.
    #[arg(long, value_parser = crate::numbers::whole(2u64, u64::from(u32::MAX)))]
    k: u64,
    /// Attacker's power p: at most p public items known.
    #[arg(long, value_parser = crate::numbers::positive::<usize>())]
    p: usize,
}

/// Runs `txanon anonymize coherence`.
pub fn run(args: CoherenceArgs) -> Result<()> {
    let inputs = [Some(args.input.input.as_path()), args.sensitive.file()];
    let staged = args.output.prepare(&inputs)?;
    let (db, _) = args.input.read()?;
    let private = args.sensitive.resolve(&db, &args.input.input, args.seed)?;
    let engine = if args.reference {
        Engine::Enumerate
    } else if args.edges {
        Engine::BorderEdges
    } else {
        Engine::Counting
    };
    let Setting { h, k, p } = args.setting;
    let k = u32::try_from(k).expect("clap bounds k by u32::MAX");
    let nugget_support = args.nugget_support.count(db.len());
    let progress = txanon_data::progress::Progress::new();
    let params = CoherenceParams::new(h, k, p, nugget_support)
        .engine(engine)
        .max_itemsets(args.max_itemsets)
        .seed(args.seed)
        .progress(progress.clone())
        .check()?;
    let mut release = {
        let _meter = crate::progress::Spinner::follow(&progress);
        txanon_publish::coherence::release(
            &args.input.input.display().to_string(),
            &db,
            &private,
            &params,
        )?
    };
    if args.sensitive.drawn() {
        release = release.with_drawn_sensitive(&db, &private);
    }
    crate::publication::commit(&release, staged, args.format.to, &inputs)?;
    crate::outcome::report(release.outcome(), release.summary(), args.report.json)
}

/// Runs `txanon audit coherence`.
pub fn run_audit(args: AuditCoherenceArgs) -> Result<()> {
    let claim = format!(
        "(h, k, p)-coherence with h = {}, k = {}, p = {} for the private items of {} in {}",
        args.setting.h,
        args.setting.k,
        args.setting.p,
        args.sensitive.display(),
        args.input.input.display()
    );
    let json = args.manifest.json;
    crate::publication::conclude(&claim, json, audited_coherence(args))
}

fn audited_coherence(args: AuditCoherenceArgs) -> Result<serde_json::Value> {
    use crate::publication::{check_publication, published_or, unreadable};
    let manifest = check_publication(&args.input.input, args.manifest.no_manifest)?;
    let (db, _) = args.input.read().map_err(|e| unreadable(&args.input.input, e))?;
    let private =
        published_or(&args.sensitive, &manifest, txanon_data::read_label_list(&args.sensitive))?;
    if private.is_empty() {
        return Err(UsageError(format!(
            "{}: no sensitive (private) item",
            args.sensitive.display()
        ))
        .into());
    }
    let Setting { h, k, p } = args.setting;
    let claim = CoherenceClaim::new(h, k, p as u64)?;
    let original = args.original.as_deref().map(crate::input::read_transactions).transpose()?;
    crate::publication::unknown_entries(
        "--sensitive",
        &args.sensitive,
        &private,
        |label| {
            db.labels().find(label).is_some()
                || original.as_ref().is_some_and(|o| o.labels().find(label).is_some())
        },
        args.strict,
    )?;
    let progress = txanon_data::progress::Progress::new();
    let report = {
        let _meter = crate::progress::Spinner::follow(&progress);
        audit_with_progress(&db, &claim.private(private), original.as_ref(), &progress)
    }
    .with_context(|| format!("auditing {}", args.input.input.display()))?;
    crate::publication::report_value(&report, &manifest)
}
