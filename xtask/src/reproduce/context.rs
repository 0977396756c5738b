//! What every experiment gets: the mode, the seed, and loaders for data that note what is missing.

use std::cell::{OnceCell, RefCell};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result};
use txanon_data::{QuestParams, ReadOptions, TransactionDb, cache, datasets};

/// The run's settings and the data loaders.
#[derive(Debug)]
pub struct Context {
    /// Embedded data only.
    pub quick: bool,
    /// The seed of every random choice.
    pub seed: u64,
    /// Run the slow references too.
    pub slow_references: bool,
    /// The transaction counts of the `scaling` experiment, ascending.
    pub scaling_sizes: Vec<usize>,
    /// The data shapes of the `scaling` experiment.
    pub scaling_shapes: Vec<super::ScalingShape>,
    /// The families of the `scaling` experiment by the first word of their names; empty: all.
    pub scaling_families: Vec<String>,
    /// The sensitive items drawn for the `scaling` experiment's CAHD and coherence runs, one
    /// run per count.
    pub scaling_sensitive: Vec<usize>,
    cache_dir: PathBuf,
    missing: RefCell<Vec<String>>,
    quest_t40: OnceCell<TransactionDb>,
}

impl Context {
    /// A context writing to `out`.
    pub fn new(quick: bool, seed: u64, slow_references: bool) -> Self {
        let cache_dir = crate::project_root().join("target/txanon-cache");
        Self {
            quick,
            seed,
            slow_references,
            scaling_sizes: vec![100_000, 1_000_000, 10_000_000],
            scaling_shapes: vec![super::ScalingShape::Quest, super::ScalingShape::Kosarak],
            scaling_families: Vec::new(),
            scaling_sensitive: vec![super::scaling::DEFAULT_SENSITIVE],
            cache_dir,
            missing: RefCell::new(Vec::new()),
            quest_t40: OnceCell::new(),
        }
    }

    /// Loads a real dataset of the manifest (sha256-checked, through the binary cache).
    ///
    /// Returns `None`, and records it as missing, when the file is in no search directory; in
    /// `--quick` mode real data is not used at all and `None` is returned without a note.
    pub fn real(&self, name: &str) -> Result<Option<(PathBuf, TransactionDb)>> {
        let Some(path) = self.real_path(name)? else { return Ok(None) };
        let (db, _, _, _) = cache::read_cached(&path, &ReadOptions::new(), &self.cache_dir)
            .with_context(|| format!("reading {}", path.display()))?;
        Ok(Some((path, db)))
    }

    /// The data an experiment runs on: the real datasets `real` (those found), or in `--quick`
    /// mode the generated stand-in `quick` builds. The one chooser every experiment uses.
    pub fn transaction_data(
        &self,
        real: &[&str],
        quick: impl FnOnce(u64) -> Result<(String, TransactionDb)>,
    ) -> Result<Vec<(String, TransactionDb)>> {
        if self.quick {
            return Ok(vec![quick(self.seed)?]);
        }
        let mut data = Vec::new();
        for &name in real {
            if let Some((_, db)) = self.real(name)? {
                data.push((name.to_string(), db));
            }
        }
        Ok(data)
    }

    /// The path of a real dataset of the manifest (sha256-checked), with [`Context::real`]'s
    /// rules for missing files and `--quick`; for files that are not transactions (Adult).
    pub fn real_path(&self, name: &str) -> Result<Option<PathBuf>> {
        if self.quick {
            return Ok(None);
        }
        let Some(path) = datasets::locate_verified(name)? else {
            let dirs: Vec<String> =
                datasets::search_dirs().iter().map(|d| d.display().to_string()).collect();
            self.missing.borrow_mut().push(format!("{name}: not found in {}", dirs.join(", ")));
            return Ok(None);
        };
        Ok(Some(path))
    }

    /// The T40I10D100K stand-in: Quest data with T = 40, I = 10, |D| = 100,000, N = 1000,
    /// generated once per run.
    pub fn quest_t40(&self) -> &TransactionDb {
        self.quest_t40.get_or_init(|| {
            QuestParams::new(100_000, 40.0, 10.0, 1000)
                .seed(self.seed)
                .check()
                .expect("valid parameters")
                .generate()
        })
    }

    /// The worked examples of the papers, `datasets/examples/*`, read with their own formats;
    /// relational microdata (a CSV beside a `.schema.json`) is not a transaction file and is
    /// left out.
    pub fn examples(&self) -> Result<Vec<(String, TransactionDb)>> {
        let dir = crate::project_root().join("datasets/examples");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .with_context(|| format!("listing {}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| txanon_data::Format::from_path(p).is_some())
            .filter(|p| !p.with_extension("schema.json").exists())
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|p| {
                let (db, _) = txanon_data::read_path(&p, &ReadOptions::new())?;
                Ok((file_name(&p), db))
            })
            .collect()
    }

    /// The flags that select this run's mode, as typed on the command line.
    pub fn flags(&self) -> String {
        let mut f = String::new();
        if self.quick {
            f.push_str(" --quick");
        }
        if self.slow_references {
            f.push_str(" --slow-references");
        }
        f
    }

    /// What was looked for and not found.
    pub fn missing(&self) -> Vec<String> {
        self.missing.borrow().clone()
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The commit and toolchain the results come from.
pub fn provenance() -> (String, String) {
    let run = |cmd: &str, args: &[&str]| {
        Command::new(cmd)
            .args(args)
            .current_dir(crate::project_root())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map_or_else(
                || "unknown".into(),
                |o| String::from_utf8_lossy(&o.stdout).trim().to_string(),
            )
    };
    let mut commit = run("git", &["rev-parse", "--short=12", "HEAD"]);
    if !run("git", &["status", "--porcelain"]).is_empty() && commit != "unknown" {
        commit.push_str("+dirty");
    }
    (commit, run("rustc", &["--version"]))
}
