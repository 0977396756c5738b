//! Head to head: every method on the data holder's own data, at matched privacy levels, under
//! one adversary ([`txanon_attack`]) and one utility yardstick ([`txanon_metrics`]).
//!
//! [`evaluate`] runs each method at each level (each publication audited by its family, as
//! every `anonymize` does), converts the publication into the adversary's
//! [`View`](txanon_attack::View), attacks it and measures it; the original data and the
//! original with its sensitive items removed are the two reference points. A method that
//! cannot reach a level on the data is reported with its reason, never left out.
//! [`frontier`] says which points no other beats against each adversary, [`decision`] which
//! publication to make for the threats and the risk a data holder names, and [`report::html`]
//! renders the result as one self-contained page.
//!
//! # Matching the levels
//! No two families' guarantees are the same quantity, so a level `L` is matched as each
//! guarantee's "one in `L`": anatomy's `l = L` (no column value above `1/L` of a bucket), CAHD's
//! `p = L` (no sensitive item linked above `1/L`), coherence's `k = L` and `h = 1/L` (every
//! combination of at most `p` public items in `L` transactions, no private item inferred above
//! `1/L`). Swapping has no level: it runs once and appears beside every level.
#![deny(missing_docs)]

mod chart;
pub mod decision;
mod error;
pub mod frontier;
mod methods;
pub mod report;
mod utility;

use std::time::Instant;

use serde::Serialize;
use txanon_attack::{AttackParams, AttackReport, ValidAttackParams, attack};
use txanon_data::{ItemCategories, ItemId, ParamError, TransactionDb};

pub use error::EvaluateError;
pub use methods::{KM_FANOUT, Method, coherence_nugget_support};
pub use utility::{Itemsets, MAX_ITEMSET, MAX_LISTED, QUERY_ITEMS, RULE_CONFIDENCE, Utility};

use crate::methods::{Attackable, Input, Refusal, records_of, targets};
use crate::utility::Yardstick;

/// What an evaluation runs; build with [`EvaluateParams::new`], validate with
/// [`EvaluateParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluateParams {
    methods: Vec<Method>,
    levels: Vec<usize>,
    attack: AttackParams,
    supports: Vec<f64>,
    queries: usize,
    seed: Option<u64>,
    anatomy_columns: Option<usize>,
    coherence_p: usize,
    km_m: usize,
}

/// [`EvaluateParams`] that passed [`EvaluateParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct ValidEvaluateParams {
    params: EvaluateParams,
    attack: ValidAttackParams,
}

impl Default for EvaluateParams {
    fn default() -> Self {
        Self {
            methods: Method::ALL.to_vec(),
            levels: vec![4, 8, 16],
            attack: AttackParams::new(),
            supports: vec![0.01, 0.005],
            queries: 1000,
            seed: None,
            anatomy_columns: None,
            coherence_p: 2,
            km_m: 2,
        }
    }
}

impl EvaluateParams {
    /// Every method at levels 4, 8, 16; the attack's defaults ([`AttackParams::new`]: q = 1…4
    /// known items, 10 draws, every target); supports 1% and 0.5%; 1,000 queries; anatomy with
    /// 10 columns, coherence with p = 2.
    pub fn new() -> Self {
        Self::default()
    }

    /// The methods to run.
    pub fn methods(mut self, methods: Vec<Method>) -> Self {
        self.methods = methods;
        self
    }

    /// The privacy levels (see the crate's documentation for the matching).
    pub fn levels(mut self, levels: Vec<usize>) -> Self {
        self.levels = levels;
        self
    }

    /// The adversaries: how many items they know, how many draws per target, which targets,
    /// and the draws' seed.
    pub fn attack(mut self, attack: AttackParams) -> Self {
        self.attack = attack;
        self
    }

    /// The two (or more) minimum supports of the frequent itemsets, as shares.
    pub fn supports(mut self, supports: Vec<f64>) -> Self {
        self.supports = supports;
        self
    }

    /// Queries in the workload.
    pub fn queries(mut self, queries: usize) -> Self {
        self.queries = queries;
        self
    }

    /// The seed of every publication and of the workload; `None`: publications seeded by the
    /// operating system, the workload by 0.
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// Anatomy's number of item columns (the paper's p); `None`: 10, or every item in a column
    /// of its own when the data has fewer.
    pub fn anatomy_columns(mut self, columns: Option<usize>) -> Self {
        self.anatomy_columns = columns;
        self
    }

    /// Coherence's p: the most public items its adversary knows.
    pub fn coherence_p(mut self, p: usize) -> Self {
        self.coherence_p = p;
        self
    }

    /// kᵐ-anonymity's m: the most items its adversary knows (1 to 4).
    pub fn km_m(mut self, m: usize) -> Self {
        self.km_m = m;
        self
    }

    /// Validates.
    ///
    /// # Errors
    /// [`ParamError`] naming the parameter: no method; no level or a level outside 2…1,000,000;
    /// supports outside (0, 1]; no queries or more than 10⁶; anatomy's columns or coherence's p
    /// of 0; km's m outside 1…4; the attack's own bounds ([`AttackParams::check`]).
    pub fn check(self) -> Result<ValidEvaluateParams, ParamError> {
        let bad = |name: &'static str, value: String, min: u64, max: u64, what: &'static str| {
            ParamError::OutOfBounds { name, value, min, max, what }
        };
        if self.methods.is_empty() {
            return Err(ParamError::OutOfRange {
                name: "methods",
                value: String::new(),
                reason: "name at least one of anatomy, cahd, coherence, km, swap",
            });
        }
        if self.levels.is_empty() {
            return Err(bad("levels", String::new(), 2, 1_000_000, "at least one privacy level"));
        }
        if let Some(&l) = self.levels.iter().find(|&&l| !(2..=1_000_000).contains(&l)) {
            return Err(bad(
                "levels",
                l.to_string(),
                2,
                1_000_000,
                "one in L: below 2 protects nothing",
            ));
        }
        if self.supports.is_empty() || self.supports.iter().any(|s| !(*s > 0.0 && *s <= 1.0)) {
            return Err(ParamError::OutOfRange {
                name: "supports",
                value: format!("{:?}", self.supports),
                reason: "minimum supports are shares in (0, 1]",
            });
        }
        if !(1..=1_000_000).contains(&self.queries) {
            return Err(bad("queries", self.queries.to_string(), 1, 1_000_000, "workload queries"));
        }
        if self.anatomy_columns == Some(0) {
            return Err(bad("anatomy-columns", "0".into(), 1, u64::MAX, "item columns"));
        }
        if self.coherence_p == 0 {
            return Err(bad("coherence-p", "0".into(), 1, u64::MAX, "known public items"));
        }
        if !(1..=txanon_km::MAX_M).contains(&self.km_m) {
            return Err(bad(
                "km-m",
                self.km_m.to_string(),
                1,
                txanon_km::MAX_M as u64,
                "known items, the paper's range",
            ));
        }
        let attack = self.attack.clone().check()?;
        Ok(ValidEvaluateParams { params: self, attack })
    }
}

/// The data evaluated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Data {
    /// Transactions.
    pub transactions: usize,
    /// Distinct items.
    pub items: usize,
    /// Item occurrences.
    pub occurrences: usize,
    /// The sensitive items, as labels.
    pub sensitive: Vec<String>,
    /// Transactions holding a sensitive item.
    pub holding_sensitive: usize,
    /// Number of item categories, when given.
    pub categories: Option<usize>,
}

/// The evaluation's settings, as run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    /// The levels.
    pub levels: Vec<usize>,
    /// The numbers of known items.
    pub known: Vec<usize>,
    /// Draws per target.
    pub draws: usize,
    /// Targets sampled, if not all.
    pub targets: Option<usize>,
    /// Minimum supports (shares).
    pub supports: Vec<f64>,
    /// Workload queries drawn.
    pub queries: usize,
    /// Whether a seed was given (else the publications' randomness is the operating
    /// system's). The seed itself is the data holder's secret: with the data it recomputes
    /// every publication, so it is never written into the results.
    pub seeded: bool,
    /// The seed of the attack's draws and the workload when no seed was given (0, public);
    /// `None` when they were drawn from the secret seed.
    pub draws_seed: Option<u64>,
}

/// One point of the comparison: a method at a level, or a reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// `original`, `sensitive removed`, or a method's name.
    pub method: String,
    /// The level matched; `None` for the references and swapping.
    pub level: Option<usize>,
    /// What was published, or why not.
    pub outcome: Outcome,
}

/// What a method did at a level.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// A publication, audited, attacked and measured.
    Published {
        /// The setting in words.
        setting: String,
        /// What its audit re-derived.
        audit: String,
        /// The attack.
        privacy: AttackReport,
        /// The yardstick.
        utility: Utility,
        /// Seconds to anonymize and audit.
        seconds: f64,
    },
    /// The method cannot reach the level on this data.
    Infeasible {
        /// The family's reason.
        reason: String,
    },
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// The data.
    pub data: Data,
    /// The settings.
    pub settings: Settings,
    /// What each method's guarantee means, for the methods run.
    pub guarantees: Vec<(Method, &'static str)>,
    /// The references first, then each method at each level.
    pub points: Vec<Point>,
    /// The decision, when the data holder named a budget ([`decision::decide`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<decision::Decision>,
    /// The command that publishes the recommendation, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// One publication as the common adversary reads it: its published parts, and the data
/// holder's secrets that say whose record is whose (anatomy's buckets, swap's key), which
/// exist only in memory where the publication was made.
#[derive(Debug, Clone, Copy)]
pub enum Published<'a> {
    /// Anatomy's table, and for each input record the bucket holding it (`u32::MAX`:
    /// suppressed).
    Anatomy {
        /// The table.
        table: &'a txanon_anatomy::AnatomizedTable,
        /// The secret: each input record's bucket.
        bucket_of: &'a [u32],
    },
    /// CAHD's groups.
    Cahd {
        /// The groups.
        groups: &'a txanon_cahd::PublishedGroups,
    },
    /// Coherence's published transactions.
    Coherence {
        /// The transactions.
        published: &'a TransactionDb,
    },
    /// kᵐ-anonymity's generalized transactions and the hierarchy they were generalized over.
    Km {
        /// The transactions.
        published: &'a TransactionDb,
        /// The hierarchy.
        hierarchy: &'a txanon_km::Hierarchy,
    },
    /// A swap publication, and the key: for each published record, its input record.
    Swap {
        /// The transactions, over the input's dictionary.
        published: &'a TransactionDb,
        /// The secret key.
        key: &'a [u32],
    },
}

/// The common adversary (the evaluation's, [`txanon_attack::attack`]) on one publication of
/// `db` with `sensitive` items (sorted ids) and, for a swap publication, its `categories`.
///
/// # Errors
/// [`EvaluateError::Params`] for a swap publication without categories; a publication naming
/// an item `db` lacks; the attack's parameters.
pub fn attack_published(
    db: &TransactionDb,
    sensitive: &[ItemId],
    categories: Option<&ItemCategories>,
    published: Published<'_>,
    params: &ValidAttackParams,
) -> Result<AttackReport, EvaluateError> {
    let (view, own) = match published {
        Published::Anatomy { table, bucket_of } => methods::anatomy_view(db, table, bucket_of)?,
        Published::Cahd { groups } => methods::cahd_view(db, sensitive, groups)?,
        Published::Coherence { published } => {
            // Coherence suppresses whole public items: those the publication no longer holds
            // (its dictionary may still list them).
            let gone: Vec<bool> = (0..db.num_items() as ItemId)
                .map(|i| {
                    published
                        .labels()
                        .find(&db.label(i).to_string())
                        .is_none_or(|g| published.supports()[g as usize] == 0)
                })
                .collect();
            methods::records_view(db, published, &gone)?
        }
        Published::Km { published, hierarchy } => methods::km_view(db, hierarchy, published)?,
        Published::Swap { published, key } => {
            let categories = categories.ok_or(ParamError::OutOfRange {
                name: "categories",
                value: "none".into(),
                reason: "a swap publication is attacked for the tendency over item categories: give them",
            })?;
            methods::swap_view(db, categories, published, key)?
        }
    };
    let input = Input {
        db,
        sensitive,
        categories,
        seed: None,
        anatomy_columns: 0,
        coherence_p: 0,
        km_m: 0,
    };
    Ok(attack(&view, &targets(&input, own), params)?)
}

/// Progress: `done` of `total` steps, and what is running.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Steps done.
    pub done: usize,
    /// Steps in all.
    pub total: usize,
    /// What runs now.
    pub what: String,
}

/// Evaluates every method of `params` at every level on `db` with `sensitive` items (sorted
/// ids) and, for swapping, `categories`.
///
/// # Errors
/// [`EvaluateError::Audit`] when a publication failed its audit (a bug in a family);
/// [`EvaluateError::Params`] for more anatomy columns than items, or a support so low that the
/// yardstick's listing exceeds [`MAX_LISTED`]; the errors of a
/// conversion; a level out of a method's reach is an [`Outcome::Infeasible`], not an
/// error.
///
/// Long as one function: the evaluation's steps in the order the report gives them (references,
/// each method at each level, the attack, the yardstick), with the progress between them.
pub fn evaluate(
    db: &TransactionDb,
    sensitive: &[ItemId],
    categories: Option<&ItemCategories>,
    params: &ValidEvaluateParams,
    progress: &mut dyn FnMut(Progress),
) -> Result<Evaluation, EvaluateError> {
    let p = &params.params;
    let anatomy_columns = p.anatomy_columns.unwrap_or(db.num_items().min(10));
    if p.methods.contains(&Method::Anatomy) && anatomy_columns > db.num_items() {
        return Err(ParamError::OutOfBounds {
            name: "anatomy-columns",
            value: anatomy_columns.to_string(),
            min: 1,
            max: db.num_items() as u64,
            what: "the items of the data",
        }
        .into());
    }
    let mut sensitive = sensitive.to_vec();
    sensitive.sort_unstable();
    sensitive.dedup();
    let input = Input {
        db,
        sensitive: &sensitive,
        categories,
        seed: p.seed,
        anatomy_columns,
        coherence_p: p.coherence_p,
        km_m: p.km_m,
    };
    let mut runs: Vec<(Method, Option<usize>)> = Vec::new();
    for &m in &p.methods {
        if m.has_level() {
            runs.extend(p.levels.iter().map(|&l| (m, Some(l))));
        } else {
            runs.push((m, None));
        }
    }
    let total = runs.len() + 2;
    let mut done = 0;
    let mut step = |what: String| {
        progress(Progress { done, total, what });
        done += 1;
    };
    step("the original".into());
    let original = records_of(db, categories, |_| true);
    let yardstick = Yardstick::new(
        db,
        &original.view,
        &sensitive,
        &p.supports,
        p.queries,
        p.seed.unwrap_or(0),
    )?;
    let measure = |method: String, level, started: Instant, a: Attackable| {
        let seconds = started.elapsed().as_secs_f64();
        let people = targets(&input, a.own);
        let privacy = attack(&a.view, &people, &params.attack)?;
        let utility = yardstick.measure(a.utility_view.as_ref().unwrap_or(&a.view))?;
        Ok::<_, EvaluateError>(Point {
            method,
            level,
            outcome: Outcome::Published {
                setting: a.setting,
                audit: a.audit,
                privacy,
                utility,
                seconds,
            },
        })
    };
    let mut points = Vec::with_capacity(total);
    points.push(measure(
        "original".into(),
        None,
        Instant::now(),
        Attackable { setting: "as it is".into(), audit: "nothing to audit".into(), ..original },
    )?);
    step("sensitive items removed".into());
    let removed = records_of(db, categories, |i| sensitive.binary_search(&i).is_err());
    points.push(measure(
        "sensitive removed".into(),
        None,
        Instant::now(),
        Attackable {
            setting: format!("{} sensitive items deleted", sensitive.len()),
            audit: "nothing to audit".into(),
            ..removed
        },
    )?);
    for (method, level) in runs {
        let what = match level {
            Some(l) => format!("{} at level {l}", method.name()),
            None => method.name().to_string(),
        };
        step(what);
        let started = Instant::now();
        match methods::run(method, level.unwrap_or(0), &input) {
            Ok(a) => points.push(measure(method.name().into(), level, started, a)?),
            Err(Refusal::Infeasible(reason)) => points.push(Point {
                method: method.name().into(),
                level,
                outcome: Outcome::Infeasible { reason },
            }),
            Err(Refusal::Error(e)) => return Err(e),
        }
    }
    progress(Progress { done: total, total, what: "done".into() });
    Ok(Evaluation {
        data: Data {
            transactions: db.len(),
            items: db.num_items(),
            occurrences: db.occurrences(),
            sensitive: sensitive.iter().map(|&i| db.label(i).to_string()).collect(),
            holding_sensitive: db
                .iter()
                .filter(|t| t.iter().any(|i| sensitive.binary_search(i).is_ok()))
                .count(),
            categories: categories.map(|c| c.names().len()),
        },
        settings: Settings {
            levels: p.levels.clone(),
            known: params.attack.known().to_vec(),
            draws: params.attack.draws(),
            targets: params.attack.sample(),
            draws_seed: p.seed.is_none().then(|| params.attack.seed()),
            supports: p.supports.clone(),
            queries: yardstick.queries(),
            seeded: p.seed.is_some(),
        },
        guarantees: p.methods.iter().map(|&m| (m, m.guarantee())).collect(),
        points,
        decision: None,
        command: None,
    })
}

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    /// An evaluation runs on rayon and its results go back to any thread.
    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::EvaluateParams>();
        send_sync::<super::ValidEvaluateParams>();
        send_sync::<super::Evaluation>();
        send_sync::<super::Point>();
        send_sync::<super::Outcome>();
        send_sync::<super::Settings>();
        send_sync::<super::EvaluateError>();
        send_sync::<super::Utility>();
    }
}
