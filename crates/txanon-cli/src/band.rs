//! `txanon band`: reverse Cuthill-McKee on the transactions, bandwidth and profile before and
//! after, and the picture.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;
use txanon_band::{
    CANDIDATES, CELLS, ESTIMATED_CANDIDATES, Envelope, Explicit, GraphKind, Pattern, Permutation,
    Ranking, SharedItems, Start, reverse_cuthill_mckee_from, reverse_cuthill_mckee_reporting,
    sparsity_svg,
};
use txanon_data::write_atomic;

use crate::input::{InputArgs, emit, read_item_list};

/// Arguments of `txanon band`.
#[derive(Debug, Args)]
pub struct BandArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The graph: `aat` (transactions adjacent when they share an item, the pattern of A·Aᵀ,
    /// never built) or `sym-pad` (A padded to a square, then A + Aᵀ).
    #[arg(long, value_enum, default_value_t = GraphArg::Aat)]
    graph: GraphArg,
    /// What RCM ranks transactions by when it picks starts and orders neighbours: `auto` (what
    /// CAHD runs: exact degrees with 32 starts when they cost at most 2³⁴ visits, else the
    /// estimate with 64), `exact` degrees (quadratic in the transactions at a fixed density on
    /// `aat`) with 32 starts, or `estimated` (for `aat`, the row sums of A·Aᵀ, linear) with 64.
    #[arg(long, value_enum, default_value_t = RankingArg::Auto)]
    ranking: RankingArg,
    /// A file of sensitive item labels to leave out of the graph (CAHD reorders on the QID
    /// items only).
    #[arg(long, value_name = "FILE")]
    sensitive: Option<PathBuf>,
    /// Draw the pattern before and after (SVG, downsampled to a fixed size).
    #[arg(long, value_name = "OUT.svg")]
    plot: Option<PathBuf>,
    /// Print the figures as JSON.
    #[arg(long)]
    json: bool,
}

/// `--graph`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum GraphArg {
    /// The pattern of A·Aᵀ (CAHD's transaction similarity graph).
    Aat,
    /// A + Aᵀ of A padded to a square.
    SymPad,
}

/// `--ranking`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RankingArg {
    /// Exact degrees where affordable, else the estimate (CAHD's choice).
    Auto,
    /// Row sums of A·Aᵀ for `aat` (exact degrees for `sym-pad`).
    Estimated,
    /// Exact degrees.
    Exact,
}

impl From<GraphArg> for GraphKind {
    fn from(g: GraphArg) -> Self {
        match g {
            GraphArg::Aat => GraphKind::SharedItems,
            GraphArg::SymPad => GraphKind::SymmetrizedPadded,
        }
    }
}

#[derive(Debug, Serialize)]
struct BandReport {
    input: String,
    graph: &'static str,
    ranking: &'static str,
    vertices: usize,
    items_in_graph: usize,
    bandwidth_before: u64,
    bandwidth_after: u64,
    profile_before: u64,
    profile_after: u64,
    profile_reduction_percent: f64,
    bandwidth_reduction_percent: f64,
    rcm_seconds: f64,
}

/// Runs `txanon band`.
pub fn run(args: BandArgs) -> Result<()> {
    if let Some(plot) = &args.plot {
        crate::input::check_output("--plot", plot)?;
    }
    let (db, _) = args.input.read()?;
    let mut keep = vec![true; db.num_items()];
    if let Some(path) = &args.sensitive {
        for i in read_item_list(&db, path, &args.input.input)? {
            keep[i as usize] = false;
        }
    }
    let ranking = args.ranking;
    let (report, panels) = match GraphKind::from(args.graph) {
        GraphKind::SharedItems => {
            measure(&SharedItems::new(&db, keep.clone()), ranking, args.plot.is_some())
        }
        GraphKind::SymmetrizedPadded => {
            measure(&Explicit::symmetrized_padded(&db, &keep), ranking, args.plot.is_some())
        }
    };
    let (before, after, vertices, seconds) = report;
    let percent =
        |b: u64, a: u64| if b == 0 { 0.0 } else { 100.0 * (b as f64 - a as f64) / b as f64 };
    let report = BandReport {
        input: args.input.input.display().to_string(),
        graph: match args.graph {
            GraphArg::Aat => "aat",
            GraphArg::SymPad => "sym-pad",
        },
        ranking: match args.ranking {
            RankingArg::Auto => "auto",
            RankingArg::Estimated => "estimated",
            RankingArg::Exact => "exact",
        },
        vertices,
        items_in_graph: keep.iter().filter(|&&k| k).count(),
        bandwidth_before: before.bandwidth,
        bandwidth_after: after.bandwidth,
        profile_before: before.profile,
        profile_after: after.profile,
        profile_reduction_percent: percent(before.profile, after.profile),
        bandwidth_reduction_percent: percent(before.bandwidth, after.bandwidth),
        rcm_seconds: seconds,
    };
    if let Some(path) = &args.plot {
        let title = format!(
            "{} ({}): input order and reverse Cuthill-McKee",
            args.input.input.file_name().map_or_else(String::new, |n| n.to_string_lossy().into()),
            report.graph
        );
        let svg = sparsity_svg(&title, &panels);
        write_atomic(path, |file| -> Result<()> {
            std::io::Write::write_all(file, svg.as_bytes())?;
            Ok(())
        })
        .with_context(|| format!("writing {}", path.display()))?;
    }
    if args.json {
        return emit(&(serde_json::to_string_pretty(&report)? + "\n"));
    }
    emit(&format!(
        "{} ({} graph, {} ranking): {} vertices over {} items\n\
         bandwidth {} -> {} ({:.1}% less)\n\
         profile   {} -> {} ({:.1}% less)\n\
         RCM (degrees, ordering) in {:.3} s\n",
        report.input,
        report.graph,
        report.ranking,
        report.vertices,
        report.items_in_graph,
        report.bandwidth_before,
        report.bandwidth_after,
        report.bandwidth_reduction_percent,
        report.profile_before,
        report.profile_after,
        report.profile_reduction_percent,
        report.rcm_seconds,
    ))
}

type Measured = ((Envelope, Envelope, usize, f64), Vec<(String, Vec<Vec<u64>>)>);

fn measure(graph: &impl Pattern, ranking: RankingArg, plot: bool) -> Measured {
    let started = Instant::now();
    let progress = txanon_data::progress::Progress::new();
    progress.begin("band order (RCM: vertices searched)", txanon_data::progress::Unit::Items, 0);
    let meter = crate::progress::Spinner::follow(&progress);
    let ordering = match ranking {
        RankingArg::Auto => reverse_cuthill_mckee_reporting(graph, Some(&progress)),
        RankingArg::Exact => reverse_cuthill_mckee_from(
            graph,
            Start::SmallestProfile { candidates: CANDIDATES },
            Ranking::Exact,
        ),
        RankingArg::Estimated => reverse_cuthill_mckee_from(
            graph,
            Start::SmallestProfile { candidates: ESTIMATED_CANDIDATES },
            Ranking::Estimated,
        ),
    };
    let seconds = started.elapsed().as_secs_f64();
    drop(meter);
    let identity = Permutation::identity(graph.order());
    let before = graph.envelope(identity.position());
    let after = graph.envelope(ordering.position());
    let panels = if plot {
        vec![
            (
                format!("input order: bandwidth {}, profile {}", before.bandwidth, before.profile),
                graph.density(identity.position(), CELLS),
            ),
            (
                format!("RCM: bandwidth {}, profile {}", after.bandwidth, after.profile),
                graph.density(ordering.position(), CELLS),
            ),
        ]
    } else {
        Vec::new()
    };
    ((before, after, graph.order(), seconds), panels)
}
