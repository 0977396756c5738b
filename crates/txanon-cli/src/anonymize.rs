//! `txanon anonymize` and `txanon audit`: the subcommands of every family (each in its own
//! module), and what their publications share: the output directory, `--to`, `--json`, and the
//! writers of published files.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, Subcommand};
use txanon_data::Format;

use crate::publication::Staged;

/// Anonymization methods.
#[derive(Debug, Subcommand)]
pub enum AnonymizeCommand {
    /// Multi-dimension anatomy with l-diversity: items clustered into columns, records into
    /// l-diverse buckets, columns permuted within buckets.
    Anatomy(crate::anatomy::AnatomyArgs),
    /// CAHD: transactions reordered into a band, grouped so that no sensitive item is linked
    /// to a transaction with probability above 1/p; QID items published per group with the
    /// group's sensitive-item counts.
    Cahd(crate::cahd::CahdArgs),
    /// (h,k,p)-coherence: public items suppressed until no attacker knowing p of them narrows
    /// a person to fewer than k transactions or infers a private item above h, keeping as many
    /// frequent itemsets as it can.
    Coherence(crate::coherence::CoherenceArgs),
    /// kᵐ-anonymity: every item generalized along a hierarchy to one cut, the same for every
    /// transaction, until no adversary knowing m items finds fewer than k transactions.
    Km(crate::km::KmArgs),
    /// Hiding personal tendency: each record's dominant category swapped with a dissimilar
    /// record's (or a baseline: random swapping, partial suppression, split personality).
    Swap(crate::swap::SwapArgs),
    /// Slicing of relational microdata (CSV + JSON schema): attributes grouped into columns,
    /// tuples into buckets in which every column is permuted, so that no tuple's sensitive
    /// value is inferred above 1/l; or a baseline, Mondrian generalization or Anatomy.
    Slicing(crate::slicing::SlicingArgs),
}

/// Independent checkers of published outputs.
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Verify an anatomized table (table.json) from the table alone.
    Anatomy(crate::anatomy::AuditAnatomyArgs),
    /// Verify CAHD's published groups (groups.json) from the groups alone.
    Cahd(crate::cahd::AuditCahdArgs),
    /// Verify (h,k,p)-coherence of a transaction file, given its private items.
    Coherence(crate::coherence::AuditCoherenceArgs),
    /// Verify kᵐ-anonymity of a generalized transaction file over the auditor's hierarchy.
    Km(crate::km::AuditKmArgs),
    /// Verify a swap publication against the original: items, true swaps, exposed tendencies.
    Swap(crate::swap::AuditSwapArgs),
    /// Verify a slicing, Mondrian or Anatomy publication against the original microdata.
    Slicing(crate::slicing::AuditSlicingArgs),
}

/// Where a publication goes.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output directory: the publication with its manifest.json, created whole or not at all;
    /// it must be absent or empty.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: PathBuf,
    /// Replace an existing output directory, atomically: a reader sees the old publication or
    /// the new one, never a mix.
    #[arg(long)]
    pub force: bool,
}

/// `--json`: how a run reports what it published.
#[derive(Debug, Clone, Args)]
pub struct RunReport {
    /// Print what the run did as one JSON object on standard output (`summary`: summary.json;
    /// `outcome`: records, items and item occurrences in and published, what the method did,
    /// the guarantee audited, the warnings; numbers as numbers) instead of the few lines for
    /// people on standard error beside summary.json on standard output.
    #[arg(long)]
    pub json: bool,
}

/// `--to`: the format of a publication's transaction files.
#[derive(Debug, Clone, Args)]
pub struct PublishedFormat {
    /// The format of the published transaction files: fimi (.dat; basket-wide .csv when the
    /// labels are text, as generalized items are), basket-wide or basket-long (.csv), parquet
    /// (.parquet) or arrow (.arrow: Arrow IPC) [default: fimi].
    #[arg(long = "to", value_name = "FORMAT")]
    pub to: Option<Format>,
}

impl OutputArgs {
    /// Checks the output directory and starts the publication (before any computation):
    /// `inputs` are the files the run reads, which a replaced directory must not hold.
    pub fn prepare(&self, inputs: &[Option<&Path>]) -> Result<Staged> {
        let inputs: Vec<&Path> = inputs.iter().flatten().copied().collect();
        crate::publication::prepare(&self.out, self.force, &inputs)
    }
}

/// Runs `txanon anonymize`.
pub fn run(cmd: AnonymizeCommand) -> Result<()> {
    match cmd {
        AnonymizeCommand::Anatomy(args) => crate::anatomy::run(args),
        AnonymizeCommand::Cahd(args) => crate::cahd::run(args),
        AnonymizeCommand::Coherence(args) => crate::coherence::run(args),
        AnonymizeCommand::Km(args) => crate::km::run(args),
        AnonymizeCommand::Swap(args) => crate::swap::run(args),
        AnonymizeCommand::Slicing(args) => crate::slicing::run(args),
    }
}

pub(crate) use txanon_publish::TRANSACTION_FILES;

/// Runs `txanon audit`.
pub fn run_audit(cmd: AuditCommand) -> Result<()> {
    match cmd {
        AuditCommand::Anatomy(args) => crate::anatomy::run_audit(args),
        AuditCommand::Cahd(args) => crate::cahd::run_audit(args),
        AuditCommand::Coherence(args) => crate::coherence::run_audit(args),
        AuditCommand::Km(args) => crate::km::run_audit(args),
        AuditCommand::Swap(args) => crate::swap::run_audit(args),
        AuditCommand::Slicing(args) => crate::slicing::run_audit(args),
    }
}

#[cfg(test)]
mod tests {
    use txanon_data::FamilyName;

    /// `anonymize` and `audit` each have one subcommand per family of the registry, named as
    /// the registry names it, and no other.
    #[test]
    fn one_subcommand_per_registered_family() {
        let root = crate::command();
        for parent in ["anonymize", "audit"] {
            let command = root.find_subcommand(parent).unwrap();
            let mut names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
            let mut registered: Vec<&str> = FamilyName::ALL.iter().map(|f| f.as_str()).collect();
            names.sort_unstable();
            registered.sort_unstable();
            assert_eq!(names, registered, "txanon {parent}");
        }
    }
}
