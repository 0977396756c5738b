//! `txanon evaluate`: every method at matched privacy levels on one file, attacked and measured
//! on one yardstick; the report written as one directory, whole or not at all.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use txanon_attack::AttackParams;
use txanon_data::{random_categories, read_categories};
use txanon_evaluate::{EvaluateParams, Method, evaluate};

use crate::anonymize::OutputArgs;
use crate::exit::UsageError;
use crate::input::{InputArgs, SensitiveArgs, emit};
use crate::publication::Source;

/// `txanon evaluate`.
#[derive(Debug, Args)]
pub struct EvaluateArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    sensitive: SensitiveArgs,
    /// Item → category file (one `item category` pair per line): swapping hides the tendency
    /// over these categories (the swap paper's C); without categories swapping is reported out
    /// of reach.
    #[arg(long, value_name = "FILE", conflicts_with = "random_categories")]
    categories: Option<PathBuf>,
    /// The swap paper's artificial categorization instead: N categories sharing the items at
    /// random in equal shares (from --seed, else 0).
    #[arg(long, value_name = "N", value_parser = crate::numbers::positive::<usize>())]
    random_categories: Option<usize>,
    /// Methods to compare, comma-separated: anatomy, cahd, coherence, km, swap.
    #[arg(long, value_delimiter = ',', default_value = "anatomy,cahd,coherence,km,swap")]
    methods: Vec<String>,
    /// Privacy levels L, comma-separated, each matched as "one in L": anatomy's l, CAHD's p,
    /// coherence's k with h = 1/L, km's k (2 to 1,000,000).
    #[arg(long, value_delimiter = ',', default_value = "4,8,16", value_parser = crate::numbers::whole(2usize, usize::MAX))]
    levels: Vec<usize>,
    /// Numbers q of a target's public items the adversary knows, comma-separated (1 to 32).
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4", value_parser = crate::numbers::positive::<usize>())]
    known: Vec<usize>,
    /// Random draws of the q known items per target (1 to 10,000).
    #[arg(long, default_value_t = 10, value_parser = crate::numbers::positive::<usize>())]
    draws: usize,
    /// Attack a random sample of this many targets instead of every one.
    #[arg(long, value_name = "N", value_parser = crate::numbers::positive::<usize>())]
    targets: Option<usize>,
    /// Minimum supports of the frequent itemsets compared, as shares, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0.01,0.005", value_parser = crate::numbers::share())]
    supports: Vec<f64>,
    /// Count queries in the utility workload (1 to 1,000,000).
    #[arg(long, default_value_t = 1000, value_parser = crate::numbers::positive::<usize>())]
    queries: usize,
    /// Anatomy's number of item columns (the paper's p), at most the data's items [default: 10,
    /// or the number of items when fewer].
    #[arg(long, value_name = "P", value_parser = crate::numbers::whole(2usize, usize::MAX))]
    anatomy_columns: Option<usize>,
    /// Coherence's p: the most public items its adversary knows.
    #[arg(long, default_value_t = 2, value_parser = crate::numbers::positive::<usize>())]
    coherence_p: usize,
    /// kᵐ-anonymity's m: the most items its adversary knows (1 to 4).
    #[arg(long, default_value_t = 2, value_parser = crate::numbers::positive::<usize>())]
    km_m: usize,
    /// Seed of every publication, of the attack's draws and of the workload (publications from
    /// the operating system without it; the draws and the workload from 0).
    #[arg(long, value_parser = crate::numbers::any::<u64>())]
    seed: Option<u64>,
    /// The threats to decide against, comma-separated: reidentification, sensitive (inference
    /// of a sensitive item), tendency; with --max-risk, the report recommends a publication.
    #[arg(long, value_delimiter = ',', requires = "max_risk", value_name = "THREAT")]
    threat: Vec<String>,
    /// The largest mean risk accepted against each --threat, for every --known q (above 0, at
    /// most 1): the recommendation keeps the most utility within it.
    #[arg(long, requires = "threat", value_name = "RISK", value_parser = crate::numbers::share())]
    max_risk: Option<f64>,
    /// Write the recommended publication to DIR in the same run, audited, with its manifest
    /// (absent or empty, as `anonymize -o`; randomness as a normal run's: --seed's, else the
    /// operating system's). Nothing is written there when none qualifies.
    #[arg(long, value_name = "DIR", requires = "max_risk")]
    publish: Option<PathBuf>,
    #[command(flatten)]
    output: OutputArgs,
}

/// The first value `values` holds twice, for a list option that must not repeat one (a level or
/// a method given twice would be run and charted twice).
fn repeated<T: PartialEq + std::fmt::Display>(option: &str, values: &[T]) -> Result<()> {
    for (i, v) in values.iter().enumerate() {
        if values[..i].contains(v) {
            return Err(UsageError(format!("{option}: {v} is given twice: name each once")).into());
        }
    }
    Ok(())
}

/// Runs `txanon evaluate`.
pub fn run(args: EvaluateArgs) -> Result<()> {
    repeated("--methods", &args.methods.iter().map(|m| m.trim().to_string()).collect::<Vec<_>>())?;
    repeated("--levels", &args.levels)?;
    repeated("--known", &args.known)?;
    repeated("--supports", &args.supports)?;
    if let Some(c) = args.anatomy_columns.filter(|&c| c < 2) {
        return Err(UsageError(format!(
            "--anatomy-columns: {c} is out of range 2..=the number of items: anatomy splits the items into at least two columns"
        ))
        .into());
    }
    let threats = args
        .threat
        .iter()
        .map(|t| {
            txanon_evaluate::decision::threat(t.trim()).ok_or_else(|| {
                UsageError(format!(
                    "--threat: unknown threat {t:?}: choose among reidentification, sensitive, tendency"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    repeated("--threat", &args.threat)?;
    let methods = args
        .methods
        .iter()
        .map(|m| {
            Method::parse(m.trim()).ok_or_else(|| {
                UsageError(format!(
                    "--methods: unknown method {m:?}: choose among anatomy, cahd, coherence, km, swap"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let params = EvaluateParams::new()
        .methods(methods)
        .levels(args.levels.clone())
        .attack(
            AttackParams::new()
                .known(args.known.clone())
                .draws(args.draws)
                .sample(args.targets)
                .seed(args.seed.unwrap_or(0)),
        )
        .supports(args.supports.clone())
        .queries(args.queries)
        .anatomy_columns(args.anatomy_columns)
        .coherence_p(args.coherence_p)
        .km_m(args.km_m)
        .seed(args.seed)
        .check()?;
    let staged = args.output.prepare(&[
        Some(&args.input.input),
        args.sensitive.file(),
        args.categories.as_deref(),
    ])?;
    let publish = match &args.publish {
        Some(dir) => Some(crate::publication::prepare(
            dir,
            false,
            &[Some(args.input.input.as_path()), args.sensitive.file(), args.categories.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>(),
        )?),
        None => None,
    };
    let (db, _) = args.input.read()?;
    let sensitive = args.sensitive.resolve(&db, &args.input.input, args.seed)?;
    let categories = match (&args.categories, args.random_categories) {
        (Some(path), _) => Some(read_categories(path, &db)?.0),
        (None, Some(n)) => Some(
            random_categories(&db, n, args.seed.unwrap_or(0))
                .with_context(|| args.input.input.display().to_string())?,
        ),
        (None, None) => None,
    };
    let bar = progress_bar();
    let evaluation = evaluate(&db, &sensitive, categories.as_ref(), &params, &mut |p| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        bar.set_message(p.what);
    })?;
    bar.finish_and_clear();
    let mut evaluation = evaluation;
    if let Some(max_risk) = args.max_risk {
        let decision = txanon_evaluate::decision::decide(
            &evaluation,
            &txanon_evaluate::decision::Budget { threats, max_risk },
        );
        let context = txanon_evaluate::decision::CommandContext {
            input: args.input.input.display().to_string(),
            sensitive: match (args.sensitive.file(), args.sensitive.drawn()) {
                (Some(path), _) => Some(format!("--sensitive {}", path.display())),
                // The drawn items, written beside the report: the same items protected.
                (None, true) => Some(format!(
                    "--sensitive {}",
                    args.output.out.join(txanon_publish::SENSITIVE_FILE).display()
                )),
                (None, false) => None,
            },
            categories: match (&args.categories, args.random_categories) {
                (Some(path), _) => Some(format!("--categories {}", path.display())),
                (None, Some(n)) => Some(format!("--random-categories {n}")),
                (None, None) => None,
            },
            anatomy_columns: args.anatomy_columns.unwrap_or(evaluation.data.items.min(10)),
            coherence_p: args.coherence_p,
            km_m: args.km_m,
        };
        evaluation.command = decision.recommended.as_ref().and_then(|c| {
            txanon_evaluate::decision::command(c, &evaluation, &context, "published/")
        });
        emit(&format!("{}\n", decision.text))?;
        if let Some(command) = &evaluation.command {
            emit(&format!("publish it with: {command}\n"))?;
        }
        if let (Some(staged), Some(choice)) = (publish, &decision.recommended) {
            let mut release =
                recommended_release(&args, &db, &sensitive, categories.as_ref(), choice)?;
            if args.sensitive.drawn() && matches!(choice.method.as_str(), "cahd" | "coherence") {
                release = release.with_drawn_sensitive(&db, &sensitive);
            }
            let inputs = [Some(args.input.input.as_path())];
            crate::publication::commit(&release, staged, None, &inputs)?;
        }
        evaluation.decision = Some(decision);
    }
    let points = evaluation.points.len();
    let report = txanon_publish::EvaluationReport::new(
        evaluation,
        &txanon_publish::EvaluationParameters {
            methods: args.methods.clone(),
            levels: args.levels.clone(),
            known: args.known.clone(),
            draws: args.draws,
            targets: args.targets,
            supports: args.supports.clone(),
            queries: args.queries,
            anatomy_columns: args.anatomy_columns,
            coherence_p: args.coherence_p,
            km_m: args.km_m,
            random_categories: args.random_categories,
            threat: args.threat.clone(),
            max_risk: args.max_risk,
            drawn_sensitive: args.sensitive.drawn(),
        },
        args.seed.is_some(),
    )?;
    let mut inputs: Vec<&Path> = vec![&args.input.input];
    inputs.extend(args.sensitive.file());
    inputs.extend(args.categories.as_deref());
    let sources: Vec<Source<'_>> = inputs.into_iter().map(Source::File).collect();
    let committed = report.commit(staged, &sources)?;
    crate::publication::said_published(&committed);
    emit(&format!(
        "{}: report.html, results.json, results.csv ({} points)\n",
        args.output.out.display(),
        points
    ))
}

/// The recommended publication, made with the setting the evaluation ran it at (the same
/// as the printed command's) and the run's seed.
fn recommended_release(
    args: &EvaluateArgs,
    db: &txanon_data::TransactionDb,
    sensitive: &[txanon_data::ItemId],
    categories: Option<&txanon_data::ItemCategories>,
    choice: &txanon_evaluate::decision::Choice,
) -> Result<txanon_publish::Release> {
    let input = args.input.input.display().to_string();
    let level = || {
        choice
            .level
            .ok_or_else(|| anyhow::anyhow!("{} was evaluated without a level", choice.method))
    };
    let release = match Method::parse(&choice.method) {
        Some(Method::Anatomy) => {
            let columns = args.anatomy_columns.unwrap_or(db.num_items().min(10));
            let params =
                txanon_anatomy::AnatomyParams::new(columns, level()?).seed(args.seed).check()?;
            txanon_publish::anatomy::release(&input, db, &params)?
        }
        Some(Method::Cahd) => {
            let params = txanon_cahd::CahdParams::new(level()?).seed(args.seed).check()?;
            txanon_publish::cahd::release(&input, db, sensitive, &params)?
        }
        Some(Method::Coherence) => {
            let l = level()?;
            let k = u32::try_from(l)?;
            let nugget = txanon_evaluate::coherence_nugget_support(db.len(), l);
            let params =
                txanon_coherence::CoherenceParams::new(1.0 / l as f64, k, args.coherence_p, nugget)
                    .seed(args.seed)
                    .check()?;
            txanon_publish::coherence::release(&input, db, sensitive, &params)?
        }
        Some(Method::Km) => {
            let fanout = txanon_evaluate::KM_FANOUT;
            let hierarchy = txanon_km::Hierarchy::balanced(db, fanout)?;
            let params = txanon_km::KmParams::new(u32::try_from(level()?)?, args.km_m)
                .seed(args.seed)
                .check()?;
            let described = format!("balanced, fanout {fanout}");
            txanon_publish::km::release(&input, db, &hierarchy, &described, &params)?
        }
        Some(Method::Swap) => {
            let categories = categories
                .ok_or_else(|| UsageError("--publish swap needs the categories".into()))?;
            let params = txanon_swap::SwapParams::new(txanon_swap::Method::PartSwap)
                .ties(txanon_swap::Ties::All)
                .max_exposed(db.len())
                .seed(args.seed)
                .check()?;
            let from = match args.random_categories {
                Some(n) => txanon_publish::swap::CategoriesFrom::Random(n),
                None => txanon_publish::swap::CategoriesFrom::File,
            };
            txanon_publish::swap::release(&input, db, categories, from, &params, false)?.0
        }
        None => anyhow::bail!("{} is not a method", choice.method),
    };
    Ok(release)
}

/// A bar with the step and its rate on a terminal; nothing elsewhere.
fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} ({elapsed}, about {eta} left)")
            .expect("valid template"),
    );
    bar
}
