//! The anatomy paper's claims (Figures 3-7) as predicates over the experiment's rows, and the
//! note that explains its AR against confidence.

use super::{CONFIDENCES, PAPER, ReachRow, Reading, ReasonRow, RuleRow, RunRow, T40_NAME, Tried};
use crate::reproduce::claims::Claim;

/// `values` joined by commas between `before` and `after`, or a dash when there are none.
fn listed(before: &str, values: impl Iterator<Item = String>, after: &str) -> String {
    let values: Vec<String> = values.collect();
    if values.is_empty() {
        "—".to_string()
    } else {
        format!("{before}{}{after}", values.join(", "))
    }
}

/// What moves AR with confidence, measured on the T40 sample at its first published l: the
/// rules within one column (whose values a bucket publishes exactly) against those across
/// columns (whose combinations the per-bucket permutation breaks).
pub(super) fn ar_note(reasons: &[ReasonRow]) -> Option<String> {
    let at = |c: f64| {
        reasons.iter().find(|r| {
            r.dataset == T40_NAME
                && r.reading == Reading::Definition5.name()
                && (r.confidence - c).abs() < 1e-9
        })
    };
    let (lo, hi) = (at(CONFIDENCES[0])?, at(CONFIDENCES[CONFIDENCES.len() - 1])?);
    let show = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.2}"));
    Some(format!(
        "AR against confidence, measured (`anatomy-ar-reason`, T40 sample, l = {}): rules within one column are {:.1}% of the original's at 10% confidence and {:.1}% at 90%, and are kept (AR within {} and {}): a bucket publishes each column's values exactly. Rules across columns are kept only by chance recombination, which reproduces a low-confidence rule sometimes (AR across {} at 10%) and a high-confidence one never ({} at 90%). So AR falls as confidence rises when the across-column rules that survive at low confidence outweigh the within-column share's growth, and rises otherwise; the paper does not say how it reconstructs transactions for mining (here: one random recombination per bucket).",
        lo.l,
        lo.within_share,
        hi.within_share,
        show(lo.ar_within),
        show(hi.ar_within),
        show(lo.ar_across),
        show(hi.ar_across),
    ))
}

/// The paper's Figures 3-7 as predicates over our rows (Definition 5, repaired columns).
///
/// Long as one function: each claim is a few lines reading the tables as the paper states it, in
/// the paper's order; apart, they would be twenty functions of one use each.
pub(super) fn claims(
    tried: &Tried,
    reach: &[ReachRow<'_>],
    runs: &[RunRow],
    rules: &[RuleRow],
    reasons: &[ReasonRow],
    connect: bool,
    t40: bool,
) -> Vec<Claim> {
    let def5 = Reading::Definition5;
    // Published under Definition 5 by the repaired or the diverse columns, against what the
    // partitions we have admit and what any partition can.
    let reached = |d: &str, p: usize| {
        let all: Vec<_> = tried.of(d, def5).filter(|t| t.p == p).collect();
        let diverse: Vec<usize> = tried
            .of(d, Reading::Definition5Diverse)
            .filter(|t| t.p == p && t.published)
            .map(|t| t.l)
            .collect();
        let published: Vec<usize> =
            all.iter().filter(|t| t.published || diverse.contains(&t.l)).map(|t| t.l).collect();
        let here: Vec<&ReachRow<'_>> = reach.iter().filter(|r| r.dataset == d).collect();
        let best =
            here.iter().map(|r| r.repaired.max(r.clustered).max(r.diverse.unwrap_or(0))).max();
        let bound = here.first().map(|r| r.bound);
        let single: Vec<usize> = runs
            .iter()
            .filter(|r| {
                r.dataset == d
                    && (r.reading == def5.name() || r.reading == Reading::Definition5Diverse.name())
                    && r.p == p
                    && r.buckets == 1
            })
            .map(|r| r.l)
            .collect();
        let single = if single.is_empty() {
            String::new()
        } else {
            format!(" (l = {single:?} as one bucket of every record)")
        };
        (
            format!(
                "l published {published:?}{single}; our partitions admit l ≤ {}; no partition admits l > {}",
                best.map_or("—".into(), |b| b.to_string()),
                bound.map_or("—".into(), |b| format!("{b:.1}"))
            ),
            !all.is_empty() && published.len() == all.len(),
        )
    };
    let mut claims = Vec::new();
    let (ours, all) = reached("connect", 10);
    claims.push(Claim::qualitative(
        PAPER,
        "Connect (p = 10) anonymizes at l = 5, 6, 8, 10 under its l-diversity (Definition 5, the empty set a value)",
        "all four (Fig. 4)",
        ours,
        connect.then_some(all),
    ));
    let (ours, all) = reached(T40_NAME, 20);
    claims.push(Claim::qualitative(
        PAPER,
        "T40I10D100K (p = 20) anonymizes at l = 6, 8, 10, 12",
        "all four (Figs. 3, 5-7)",
        ours,
        t40.then_some(all),
    ));
    let faked: Vec<f64> = runs
        .iter()
        .filter(|r| r.dataset == T40_NAME && r.reading == def5.name() && r.p == 20)
        .map(|r| r.ln_faked)
        .collect();
    claims.push(Claim::qualitative(
        PAPER,
        "Faked records grow with l (Fig. 3, T40I10D100K, p = 20)",
        "ln(faked) rises with l",
        listed("ln(faked records) ", faked.iter().map(|v| format!("{v:.1}")), ""),
        (t40 && faked.len() >= 2).then(|| faked.windows(2).all(|w| w[1] >= w[0])),
    ));
    // Figure 3, the other axis: at each l, ln(faked) against p.
    let mut by_p = (0, 0);
    let ls: Vec<usize> = {
        let mut v: Vec<usize> =
            runs.iter().filter(|r| r.dataset == T40_NAME).map(|r| r.l).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for l in ls {
        let mut curve: Vec<(usize, f64)> = runs
            .iter()
            .filter(|r| r.dataset == T40_NAME && r.reading == def5.name() && r.l == l)
            .map(|r| (r.p, r.ln_faked))
            .collect();
        curve.sort_by_key(|c| c.0);
        if curve.len() >= 2 {
            by_p.1 += 1;
            by_p.0 += usize::from(curve.windows(2).all(|w| w[1].1 > w[0].1));
        }
    }
    claims.push(Claim::qualitative(
        PAPER,
        "Faked records grow exponentially with p, the number of columns (Fig. 3)",
        "ln(faked) rises with p",
        if by_p.1 == 0 {
            "—".to_string()
        } else {
            format!("rises with p at {} of {} l (T40 sample, p = 5-20)", by_p.0, by_p.1)
        },
        (t40 && by_p.1 > 0).then_some(by_p.0 == by_p.1),
    ));
    // Figures 4 and 5: rules of the anonymized data against the original's, per confidence.
    let kept = |d: &str, p: usize, confidence: &dyn Fn(f64) -> bool| -> Vec<f64> {
        rules
            .iter()
            .filter(|r| r.dataset == d && r.reading == def5.name() && r.p == p)
            .filter(|r| confidence(r.confidence) && r.original > 0)
            .map(|r| r.anonymized as f64 / r.original as f64)
            .collect()
    };
    let range = |v: &[f64]| {
        let (lo, hi) =
            v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        if v.is_empty() { "—".to_string() } else { format!("{lo:.2}-{hi:.2}") }
    };
    let connect_kept = kept("connect", 10, &|_| true);
    claims.push(Claim::qualitative(
        PAPER,
        "Connect (p = 10): the anonymized data has nearly as many rules as the original (Fig. 4)",
        "\"much small\" difference",
        format!(
            "anonymized/original rules {} over confidence and published l (within 10% counts as small)",
            range(&connect_kept)
        ),
        (connect && !connect_kept.is_empty())
            .then(|| connect_kept.iter().all(|r| (r - 1.0).abs() <= 0.1)),
    ));
    let low = kept(T40_NAME, 20, &|c| c < 0.15);
    let high = kept(T40_NAME, 20, &|c| c > 0.15);
    claims.push(Claim::qualitative(
        PAPER,
        "T40I10D100K (p = 20): at 10% confidence few rules are lost; above it 40%-60% are (Fig. 5)",
        "small at 10%; 40%-60% fewer above",
        format!(
            "anonymized/original rules {} at 10%, {} above (published l)",
            range(&low),
            range(&high)
        ),
        (t40 && !low.is_empty() && !high.is_empty()).then(|| {
            low.iter().all(|r| (r - 1.0).abs() <= 0.1)
                && high.iter().all(|r| (0.4..=0.6).contains(&(1.0 - r)))
        }),
    ));
    // Figure 7: time against l on the T40 sample at p = 20 (times vary run to run).
    let mut times: Vec<(usize, f64)> = runs
        .iter()
        .filter(|r| r.dataset == T40_NAME && r.reading == def5.name() && r.p == 20)
        .map(|r| (r.l, r.seconds))
        .collect();
    times.sort_by_key(|t| t.0);
    claims.push(Claim::qualitative(
        PAPER,
        "Anonymization time rises slightly with l (Fig. 7, T40I10D100K, p = 20)",
        "rises slightly",
        listed(
            "seconds ",
            times.iter().map(|t| format!("{:.2}", t.1)),
            &format!(
                " at l = {} (times vary run to run)",
                times.iter().map(|t| t.0.to_string()).collect::<Vec<_>>().join(", ")
            ),
        ),
        (t40 && times.len() >= 2).then(|| times.windows(2).all(|w| w[1].1 >= w[0].1)),
    ));
    // Figure 6: AR against confidence on T40, the best l at each end.
    let best_at = |confidence: f64| {
        rules
            .iter()
            .filter(|r| r.dataset == T40_NAME && r.reading == def5.name())
            .filter(|r| (r.confidence - confidence).abs() < 1e-9)
            .map(|r| r.ar)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
    };
    let (lo, hi) = (best_at(CONFIDENCES[0]), best_at(CONFIDENCES[CONFIDENCES.len() - 1]));
    // The measured reason: the share of rules within one column, and each kind's AR, at the
    // first published l of the repaired columns.
    let reason_at = |confidence: f64| {
        reasons.iter().find(|r| {
            r.dataset == T40_NAME
                && r.reading == def5.name()
                && (r.confidence - confidence).abs() < 1e-9
        })
    };
    let why = match (reason_at(CONFIDENCES[0]), reason_at(CONFIDENCES[CONFIDENCES.len() - 1])) {
        (Some(a), Some(b)) => format!(
            "; rules within one column {:.0}% at 10% confidence, {:.0}% at 90% (l = {}), AR within {} vs across {} at 10%",
            a.within_share,
            b.within_share,
            a.l,
            a.ar_within.map_or("—".into(), |v| format!("{v:.2}")),
            a.ar_across.map_or("—".into(), |v| format!("{v:.2}")),
        ),
        _ => String::new(),
    };
    claims.push(Claim::qualitative(
        PAPER,
        "AR (rules kept) rises as confidence falls (Fig. 6, T40I10D100K)",
        "falls with confidence",
        match (lo, hi) {
            (Some(lo), Some(hi)) => {
                format!("AR {lo:.2} at 10% confidence, {hi:.2} at 90% (best l){why}")
            }
            _ => "—".to_string(),
        },
        if t40 { lo.zip(hi).map(|(lo, hi)| hi < lo) } else { None },
    ));
    claims
}
