//! `txanon anonymize cahd` and `txanon audit cahd`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use txanon_band::GraphKind;
use txanon_cahd::{BandOrder, CahdClaim, CahdParams, PublishedGroups, audit, audit_qid_file};

use crate::anonymize::OutputArgs;
use crate::input::{InputArgs, SensitiveArgs};

/// Arguments of `txanon anonymize cahd`.
#[derive(Debug, Args)]
pub struct CahdArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    sensitive: SensitiveArgs,
    /// Privacy degree p: no sensitive item linked to a transaction with probability above 1/p.
    #[arg(long, short = 'p', value_parser = crate::numbers::whole(2usize, usize::MAX))]
    p: usize,
    /// Candidate factor α: α·p non-conflicting neighbours on each side are considered.
    #[arg(long, default_value_t = 3, value_parser = crate::numbers::positive::<usize>())]
    alpha: usize,
    /// Transaction order: `aat` (RCM on transactions sharing QID items, the paper's),
    /// `sym-pad` (RCM on A + Aᵀ of the padded matrix) or `none` (input order, the baseline).
    #[arg(long, value_enum, default_value_t = BandArg::Aat)]
    band: BandArg,
    /// Seed of the publication's shuffles (and of --sensitive-random); by default the OS seeds
    /// ChaCha20, so two runs publish differently.
    /// A secret, like a key: keyed with a digest of the input, it repeats the run byte for
    /// byte; it is never written into the publication.
    #[arg(long, value_parser = crate::numbers::any::<u64>())]
    seed: Option<u64>,
    /// The publication: groups.json, qid.dat (QID items, group after group; .csv for text
    /// labels), summary.json and manifest.json.
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    report: crate::anonymize::RunReport,
    #[command(flatten)]
    format: crate::anonymize::PublishedFormat,
}

/// `--band`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum BandArg {
    /// RCM on the pattern of A·Aᵀ over the QID items.
    Aat,
    /// RCM on A + Aᵀ of A padded to a square.
    SymPad,
    /// The input order (baseline).
    None,
}

/// Arguments of `txanon audit cahd`.
#[derive(Debug, Args)]
pub struct AuditCahdArgs {
    /// The published groups (groups.json).
    groups: PathBuf,
    /// The privacy degree p to verify (the file's own claim is printed, never used).
    #[arg(long, short = 'p', value_parser = crate::numbers::whole(2u64, u64::MAX))]
    p: u64,
    /// The items the auditor considers sensitive (labels, blank- or comma-separated): none may
    /// appear among the QID items, whatever the file declares.
    #[arg(long, value_name = "FILE")]
    sensitive: PathBuf,
    /// The original transactions: the groups must hold exactly their QID itemsets and their
    /// sensitive items' occurrences.
    #[arg(long, value_name = "FILE")]
    original: Option<PathBuf>,
    /// Refuse (exit 2) a --sensitive entry that names no item of the publication or the
    /// original, instead of warning.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    manifest: crate::publication::ManifestArgs,
}

/// Runs `txanon anonymize cahd`.
pub fn run(args: CahdArgs) -> Result<()> {
    let inputs = [Some(args.input.input.as_path()), args.sensitive.file()];
    let staged = args.output.prepare(&inputs)?;
    let (db, _) = args.input.read()?;
    let sensitive = args.sensitive.resolve(&db, &args.input.input, args.seed)?;
    let progress = txanon_data::progress::Progress::new();
    let params = CahdParams::new(args.p)
        .alpha(args.alpha)
        .order(match args.band {
            BandArg::Aat => BandOrder::Rcm(GraphKind::SharedItems),
            BandArg::SymPad => BandOrder::Rcm(GraphKind::SymmetrizedPadded),
            BandArg::None => BandOrder::Input,
        })
        .seed(args.seed)
        .progress(progress.clone())
        .check()?;
    let mut release = {
        let _meter = crate::progress::Spinner::follow(&progress);
        txanon_publish::cahd::release(
            &args.input.input.display().to_string(),
            &db,
            &sensitive,
            &params,
        )?
    };
    if args.sensitive.drawn() {
        release = release.with_drawn_sensitive(&db, &sensitive);
    }
    crate::publication::commit(&release, staged, args.format.to, &inputs)?;
    let reported = crate::outcome::report(release.outcome(), release.summary(), args.report.json);
    // The process ends here: freeing the groups' rows one by one (a vector per published
    // transaction, ten million at 10⁷) took a second or more the operating system saves.
    std::mem::forget(release);
    reported
}

/// Runs `txanon audit cahd`.
pub fn run_audit(args: AuditCahdArgs) -> Result<()> {
    let claim = format!(
        "privacy degree p = {} for the sensitive items of {} in {}",
        args.p,
        args.sensitive.display(),
        args.groups.display()
    );
    let json = args.manifest.json;
    crate::publication::conclude(&claim, json, audited_cahd(args))
}

fn audited_cahd(args: AuditCahdArgs) -> Result<serde_json::Value> {
    use crate::publication::{check_publication, read_published, sibling, unreadable};
    let manifest = check_publication(&args.groups, args.manifest.no_manifest)?;
    let text = txanon_data::read_text(&args.groups).map_err(|e| unreadable(&args.groups, e))?;
    let published = PublishedGroups::from_json(&text).map_err(|e| {
        // A file of another format version fails to parse before its tag is compared: say
        // which version it is rather than which field did not fit.
        let tag = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("format").and_then(|f| f.as_str()).map(str::to_string));
        match tag {
            Some(tag) if tag != txanon_cahd::GROUPS_FORMAT => unreadable(
                &args.groups,
                format!(
                    "format {tag:?}, this audit reads {:?} (items named by index into one \
                 label table): publish the data again with this version",
                    txanon_cahd::GROUPS_FORMAT
                ),
            ),
            _ => unreadable(&args.groups, e),
        }
    })?;
    let sensitive = txanon_data::read_label_list(&args.sensitive)?;
    let original = args.original.as_deref().map(crate::input::read_transactions).transpose()?;
    let in_table: std::collections::HashSet<&str> =
        published.items.iter().map(String::as_str).collect();
    crate::publication::unknown_entries(
        "--sensitive",
        &args.sensitive,
        &sensitive,
        |label| {
            in_table.contains(label)
                || original.as_ref().is_some_and(|db| db.labels().find(label).is_some())
        },
        args.strict,
    )?;
    let claim = CahdClaim::new(args.p, sensitive)?;
    // The QID file is part of the publication: it must be the groups' QID itemsets.
    if let Some(qid) = sibling(
        &args.groups,
        &manifest,
        &crate::anonymize::TRANSACTION_FILES.map(|ext| format!("qid.{ext}")),
    ) {
        audit_qid_file(&published, &read_published(&qid)?)
            .with_context(|| format!("auditing {}", qid.display()))?;
    }
    let report = audit(&published, &claim, original.as_ref())
        .with_context(|| format!("auditing {}", args.groups.display()))?;
    crate::publication::report_value(&report, &manifest)
}
