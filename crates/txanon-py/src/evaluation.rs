//! `txanon.evaluate`: every method at matched privacy levels on one dataset, attacked and
//! measured on one yardstick by `txanon-evaluate`, options named and bounded as `txanon
//! evaluate`'s; the result as tables (points, frontier, guarantees), the report's HTML, and
//! `write`, the CLI's directory.

use std::path::PathBuf;

use pyo3::prelude::*;
use txanon_attack::AttackParams;
use txanon_data::progress::{Progress, Unit};
use txanon_evaluate::{EvaluateParams, Method, evaluate as run_evaluation};
use txanon_publish::{EvaluationParameters, EvaluationReport};

use crate::convert::{Int, Reading, data, sensitive, whole};
use txanon_publish::Source;

use crate::errors::{Failure, detached, watched};
use crate::publication::{Owned, sources_of};

/// The first value given twice in the list `name` (a level or a method twice would be run and
/// charted twice).
fn once<T: PartialEq + std::fmt::Display>(name: &str, values: &[T]) -> Result<(), Failure> {
    for (i, v) in values.iter().enumerate() {
        if values[..i].contains(v) {
            return Err(Failure::bad_input(format!("{name}: {v} is given twice: name each once")));
        }
    }
    Ok(())
}

/// Whole numbers of the list `name`, each in `min..=max`.
fn wholes(name: &str, values: Vec<Int>, min: usize, max: usize) -> Result<Vec<usize>, Failure> {
    values.into_iter().map(|v| whole(name, v, min, max)).collect()
}

/// An evaluation (see `txanon.evaluate`): what `txanon evaluate` writes, in memory.
#[pyclass(module = "txanon._txanon", frozen)]
#[derive(Debug)]
pub(crate) struct Evaluation {
    report: EvaluationReport,
    sources: Vec<Owned>,
}

/// `txanon.evaluate`'s native side.
#[pyfunction]
#[pyo3(signature = (data_, *, sensitive_=None, sensitive_random=None, categories=None, random_categories=None, methods=None, levels=None, known=None, draws=None, targets=None, supports=None, queries=None, anatomy_columns=None, coherence_p=None, km_m=None, threat=None, max_risk=None, progress=None, seed_=None, format=None, tid_column=None, item_column=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    sensitive_: Option<Vec<String>>,
    sensitive_random: Option<Int>,
    categories: Option<PathBuf>,
    random_categories: Option<Int>,
    methods: Option<Vec<String>>,
    levels: Option<Vec<Int>>,
    known: Option<Vec<Int>>,
    draws: Option<Int>,
    targets: Option<Int>,
    supports: Option<Vec<f64>>,
    queries: Option<Int>,
    anatomy_columns: Option<Int>,
    coherence_p: Option<Int>,
    km_m: Option<Int>,
    threat: Option<Vec<String>>,
    max_risk: Option<f64>,
    progress: Option<Bound<'_, PyAny>>,
    seed_: Option<Int>,
    format: Option<String>,
    tid_column: Option<String>,
    item_column: Option<String>,
) -> PyResult<Evaluation> {
    let seed = seed_.map(|s| whole("seed", s, 0u64, u64::MAX)).transpose()?;
    let names: Vec<String> =
        methods.unwrap_or_else(|| Method::ALL.iter().map(|m| m.name().to_string()).collect());
    once("methods", &names)?;
    let methods = names
        .iter()
        .map(|m| {
            Method::parse(m.trim()).ok_or_else(|| {
                Failure::bad_input(format!(
                    "methods: unknown method {m:?}: choose among anatomy, cahd, coherence, km, swap"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let levels = wholes(
        "levels",
        levels.unwrap_or_else(|| vec![4.into(), 8.into(), 16.into()]),
        2,
        usize::MAX,
    )?;
    once("levels", &levels)?;
    let known =
        wholes("known", known.unwrap_or_else(|| (1..=4).map(Int::from).collect()), 1, usize::MAX)?;
    once("known", &known)?;
    let supports = supports.unwrap_or_else(|| vec![0.01, 0.005]);
    if let Some(s) = supports.iter().find(|s| !(**s > 0.0 && **s <= 1.0)) {
        return Err(Failure::bad_input(format!(
            "supports: {s} is not a share, allowed above 0 up to 1"
        ))
        .into());
    }
    once("supports", &supports)?;
    let draws = whole("draws", draws.unwrap_or_else(|| Int::from(10)), 1usize, usize::MAX)?;
    let targets = targets.map(|t| whole("targets", t, 1usize, usize::MAX)).transpose()?;
    let queries = whole("queries", queries.unwrap_or_else(|| Int::from(1000)), 1usize, usize::MAX)?;
    let anatomy_columns =
        anatomy_columns.map(|c| whole("anatomy_columns", c, 2usize, usize::MAX)).transpose()?;
    let coherence_p =
        whole("coherence_p", coherence_p.unwrap_or_else(|| Int::from(2)), 1usize, usize::MAX)?;
    let km_m = whole("km_m", km_m.unwrap_or_else(|| Int::from(2)), 1usize, usize::MAX)?;
    let random_categories =
        random_categories.map(|n| whole("random_categories", n, 1usize, usize::MAX)).transpose()?;
    if categories.is_some() && random_categories.is_some() {
        return Err(Failure::bad_input(
            "categories and random_categories: give the categories' file, or draw them, not both",
        )
        .into());
    }
    let threat = threat.unwrap_or_default();
    once("threat", &threat)?;
    let threats = threat
        .iter()
        .map(|t| {
            txanon_evaluate::decision::threat(t).ok_or_else(|| {
                Failure::bad_input(format!(
                    "threat: unknown threat {t:?}: choose among reidentification, sensitive, tendency"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    match (threats.is_empty(), max_risk) {
        (true, None) => {}
        (false, Some(r)) if r > 0.0 && r <= 1.0 => {}
        (false, Some(r)) => {
            return Err(Failure::bad_input(format!(
                "max_risk = {r}: out of range, allowed above 0 up to 1"
            ))
            .into());
        }
        _ => {
            return Err(Failure::bad_input(
                "threat and max_risk: a decision needs both, the threats and the risk accepted",
            )
            .into());
        }
    }
    let params = EvaluateParams::new()
        .methods(methods)
        .levels(levels.clone())
        .attack(
            AttackParams::new()
                .known(known.clone())
                .draws(draws)
                .sample(targets)
                .seed(seed.unwrap_or(0)),
        )
        .supports(supports.clone())
        .queries(queries)
        .anatomy_columns(anatomy_columns)
        .coherence_p(coherence_p)
        .km_m(km_m)
        .seed(seed)
        .check()
        .map_err(|e| Failure::of(&e))?;
    let data = data(py, data_, &Reading { format, tid_column, item_column })?;
    let sensitive_given = sensitive_.clone();
    let items = sensitive("sensitive", &data.db, sensitive_, sensitive_random, seed)?;
    let item_categories = match (&categories, random_categories) {
        (Some(path), _) => {
            Some(detached(py, || Ok(txanon_data::read_categories(path, &data.db)?.0))?)
        }
        (None, Some(n)) => Some(
            txanon_data::random_categories(&data.db, n, seed.unwrap_or(0))
                .map_err(Failure::from)?,
        ),
        (None, None) => None,
    };
    let watch = Progress::new();
    let evaluation = watched(py, &watch, progress.as_ref(), || {
        run_evaluation(&data.db, &items, item_categories.as_ref(), &params, &mut |p| {
            // The evaluation counts its steps (a method at a level); each is a checkpoint.
            if watch.phase().0 != p.what {
                watch.begin(format!("evaluate: {}", p.what), Unit::Items, p.total as u64);
            }
            watch.set_total(p.total as u64);
            let done = watch.done();
            watch.advance((p.done as u64).saturating_sub(done));
        })
        .map_err(|e| Failure::of(&e))
    })?;
    let mut evaluation = evaluation;
    if let Some(max_risk) = max_risk {
        use txanon_evaluate::decision::{Budget, CommandContext, command, decide};
        let decision = decide(&evaluation, &Budget { threats, max_risk });
        let context = CommandContext {
            input: match data.source() {
                Source::File(path) => path.display().to_string(),
                Source::Memory { .. } => "DATA".into(),
            },
            sensitive: Some(match &sensitive_given {
                // The drawn items, as `write` puts them beside the report.
                None => format!("--sensitive {}", txanon_publish::SENSITIVE_FILE),
                Some(_) => "--sensitive FILE".into(),
            }),
            categories: match (&categories, random_categories) {
                (Some(path), _) => Some(format!("--categories {}", path.display())),
                (None, Some(n)) => Some(format!("--random-categories {n}")),
                (None, None) => None,
            },
            anatomy_columns: anatomy_columns.unwrap_or(evaluation.data.items.min(10)),
            coherence_p,
            km_m,
        };
        evaluation.command = decision
            .recommended
            .as_ref()
            .and_then(|c| command(c, &evaluation, &context, "published/"));
        evaluation.decision = Some(decision);
    }
    let report = EvaluationReport::new(
        evaluation,
        &EvaluationParameters {
            methods: names,
            levels,
            known,
            draws,
            targets,
            supports,
            queries,
            anatomy_columns,
            coherence_p,
            km_m,
            random_categories,
            threat,
            max_risk,
            drawn_sensitive: sensitive_given.is_none(),
        },
        seed.is_some(),
    )
    .map_err(Failure::from)?;
    // The manifest names the inputs as the CLI's does: the data, then the categories' file.
    let mut sources = vec![Owned::of(&data)];
    sources.extend(categories.map(Owned::File));
    Ok(Evaluation { report, sources })
}

#[pymethods]
impl Evaluation {
    /// The report's HTML page (report.html): one self-contained file.
    #[getter]
    fn html(&self) -> String {
        let (_, sources) = sources_of(&self.sources);
        let data = sources.first().cloned().unwrap_or(txanon_publish::Source::Memory {
            kind: "data".into(),
            records: self.report.evaluation().data.transactions,
        });
        self.report.html(&data)
    }

    /// A pyarrow Table of every point (results.csv): a method at a level, or a reference, and
    /// for each number of known items its risks and utility, or why it was refused.
    #[getter]
    fn points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let csv = py.import("pyarrow.csv")?;
        let bytes = pyo3::types::PyBytes::new(py, self.report.csv().as_bytes());
        let buffer = py.import("pyarrow")?.call_method1("BufferReader", (bytes,))?;
        csv.call_method1("read_csv", (buffer,))
    }

    /// A pyarrow Table of every published point against every adversary and number of known
    /// items: risk, F1, workload error, whether it is on the frontier, and what beats it.
    #[getter]
    fn frontier<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        rows(py, &self.report.frontier())
    }

    /// A pyarrow Table of what each method's guarantee means.
    #[getter]
    fn guarantees<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows: Vec<serde_json::Value> = self
            .report
            .evaluation()
            .guarantees
            .iter()
            .map(|(m, meaning)| serde_json::json!({ "method": m.name(), "guarantee": meaning }))
            .collect();
        self::rows(py, &rows)
    }

    /// The decision (when `threat` and `max_risk` were given) as a dict: the recommended
    /// point, the runner-up and why it lost, or the budget the safest would meet, the text, and
    /// the `command` that publishes the recommendation.
    #[getter]
    fn decision<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let e = self.report.evaluation();
        let Some(decision) = &e.decision else { return Ok(None) };
        let mut value = serde_json::to_value(decision)
            .map_err(|err| Failure::new(txanon_data::ErrorKind::Internal, err.to_string()))?;
        if let Some(object) = value.as_object_mut() {
            object.insert("command".into(), e.command.clone().into());
        }
        Ok(Some(py.import("json")?.call_method1("loads", (value.to_string(),))?))
    }

    /// results.json as a dict: the data, the settings and every point in full.
    #[getter]
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = self.report.json().map_err(Failure::from)?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Writes report.html, results.csv, results.json and the manifest into the directory `out`,
    /// whole or not at all, as `txanon evaluate` does. Returns the directory.
    #[pyo3(signature = (out, *, force=false))]
    fn write(&self, py: Python<'_>, out: PathBuf, force: bool) -> PyResult<String> {
        let committed = detached(py, || {
            let (inputs, sources) = sources_of(&self.sources);
            let staged = txanon_publish::prepare(&out, force, &inputs)?;
            Ok(self.report.commit(staged, &sources)?)
        })?;
        Ok(committed.path.display().to_string())
    }

    fn __repr__(&self) -> String {
        let e = self.report.evaluation();
        format!(
            "<txanon.Evaluation: {} transactions, {} points, {} published>",
            e.data.transactions,
            e.points.len(),
            self.report.published()
        )
    }
}

/// `values` (serializable rows) as a pyarrow Table.
fn rows<'py, T: serde::Serialize>(py: Python<'py>, values: &[T]) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(values)
        .map_err(|e| Failure::new(txanon_data::ErrorKind::Internal, e.to_string()))?;
    let list = py.import("json")?.call_method1("loads", (text,))?;
    py.import("pyarrow")?.getattr("Table")?.call_method1("from_pylist", (list,))
}
