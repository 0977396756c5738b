//! The contract every anonymization family keeps, in code, and the registry of families.
//!
//! A family is one crate (`txanon-<name>`) holding validated parameters, one algorithm that
//! returns only a publication that passed its audit, and an audit that shares no code with the
//! algorithm and verifies the guarantee its auditor names from the published files alone (and
//! the original, when given). [`Family`] states that in types: each family implements it on a
//! unit type (`txanon_cahd::Cahd`, …), and code that must treat every family alike (the CLI's
//! exit codes, the tests that re-audit every publication) is written once over it.
//!
//! [`FamilyName`] is the registry: one variant per family. The CLI's exit codes and the
//! evaluation's methods match on it exhaustively, so a new variant is a compile error there
//! until the family is handled; the experiments iterate [`FamilyName::ALL`]; and tests check
//! that every family has its subcommands, its experiment and the same file layout (params,
//! audit, tests, tamper suite, benchmark, CLI module, fuzz target).

use crate::{Classify, ItemId, TransactionDb};

/// Every anonymization family of the workspace: the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FamilyName {
    /// Multi-dimension anatomy (l-diverse buckets of permuted item columns).
    Anatomy,
    /// Slicing of relational microdata, with its Mondrian and Anatomy baselines.
    Slicing,
    /// (h,k,p)-coherence by global suppression of public items.
    Coherence,
    /// CAHD: groups of at least p transactions along an RCM band, sensitive items unlinked.
    Cahd,
    /// Tendency hiding by swapping items between records of different categories.
    Swap,
    /// kᵐ-anonymity by generalization along an item hierarchy.
    Km,
}

impl FamilyName {
    /// Every family, in the order the CLI lists them.
    pub const ALL: [FamilyName; 6] = [
        FamilyName::Anatomy,
        FamilyName::Cahd,
        FamilyName::Coherence,
        FamilyName::Km,
        FamilyName::Swap,
        FamilyName::Slicing,
    ];

    /// The name subcommands, crates (`txanon-<name>`), modules and files use.
    pub fn as_str(self) -> &'static str {
        match self {
            FamilyName::Anatomy => "anatomy",
            FamilyName::Slicing => "slicing",
            FamilyName::Coherence => "coherence",
            FamilyName::Cahd => "cahd",
            FamilyName::Swap => "swap",
            FamilyName::Km => "km",
        }
    }

    /// The family named `name` (as [`FamilyName::as_str`] spells it).
    pub fn parse(name: &str) -> Option<FamilyName> {
        Self::ALL.into_iter().find(|f| f.as_str() == name)
    }

    /// Whether the family publishes transactions (every family but slicing, which publishes
    /// relational microdata).
    pub fn publishes_transactions(self) -> bool {
        !matches!(self, FamilyName::Slicing)
    }
}

impl std::fmt::Display for FamilyName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Transactions with the items their holder marks: CAHD's sensitive items, coherence's private
/// items (given by id; every other item is public).
#[derive(Debug, Clone, Copy)]
pub struct MarkedDb<'a> {
    /// The transactions.
    pub db: &'a TransactionDb,
    /// The marked items, by id.
    pub marked: &'a [ItemId],
}

/// One anonymization family: what it reads, what it publishes, and what its auditor checks.
///
/// The algorithm and the audit are separate code: [`Family::anonymize`] returns a publication
/// only after [`Family::audit`] (which shares nothing with it) passed it, and
/// [`Family::report`] is that audit's report. An auditor who is not the data holder calls
/// [`Family::audit`] on the published files with the claim they state themselves, never one
/// read from the publication.
pub trait Family {
    /// The family's entry in the registry.
    const NAME: FamilyName;
    /// The validated hyperparameters (`Valid<Family>Params`).
    type Params;
    /// What the algorithm reads: the data and what its holder names in it.
    type Input<'a>: Copy;
    /// The audited publication the algorithm returns (`<Family>Publication`): the published
    /// forms, the figures that describe them, and the audit they passed.
    type Publication;
    /// The guarantee an auditor states (`<Family>Claim`), from their own parameters.
    type Claim;
    /// The published files as the auditor reads them.
    type Published<'a>: Copy;
    /// What the auditor holds besides the publication: the original data, and what the family
    /// needs to check it (swap's secret key, kᵐ-anonymity's hierarchy).
    type AuditInputs<'a>: Copy;
    /// What a passed audit verified (`<Family>AuditReport`).
    type AuditReport: std::fmt::Debug + PartialEq;
    /// One way a publication can fail its audit (`<Family>Violation`).
    type Violation: std::fmt::Debug;
    /// The family's error (`<Family>Error`), classified by [`Classify`].
    type Error: std::error::Error + Classify + Send + Sync + 'static;

    /// Anonymizes `input` under `params`: a publication that passed its audit, or the reason
    /// there is none.
    ///
    /// # Errors
    /// Bad input, an infeasible setting, or (a bug) a publication that failed its audit; each
    /// says which through [`Classify`].
    fn anonymize(
        input: Self::Input<'_>,
        params: &Self::Params,
    ) -> Result<Self::Publication, Self::Error>;

    /// Audits the published files under `claim`, with what the auditor holds.
    ///
    /// # Errors
    /// The violations found (classified [`crate::ErrorKind::AuditFailed`]), or files that are
    /// not the family's.
    fn audit(
        published: Self::Published<'_>,
        claim: &Self::Claim,
        inputs: Self::AuditInputs<'_>,
    ) -> Result<Self::AuditReport, Self::Error>;

    /// The published files of `publication`, as [`Family::audit`] reads them.
    fn published(publication: &Self::Publication) -> Self::Published<'_>;

    /// The report of the audit `publication` passed before it was returned.
    fn report(publication: &Self::Publication) -> &Self::AuditReport;

    /// The claim a run under `params` on `input` makes, stated as its data holder would audit
    /// it.
    ///
    /// # Errors
    /// Parameters the auditor's claim does not accept.
    fn claim(params: &Self::Params, input: Self::Input<'_>) -> Result<Self::Claim, Self::Error>;

    /// What the data holder who ran `publication` from `input` gives its auditor: the original,
    /// and the family's secrets.
    fn audit_inputs<'a>(
        input: Self::Input<'a>,
        publication: &'a Self::Publication,
    ) -> Self::AuditInputs<'a>;

    /// The violations a failed audit found, when `error` is one.
    fn violations(error: &Self::Error) -> Option<&crate::audit::Violations<Self::Violation>>;
}

/// Audits `publication` again as its data holder would: the claim of `params`, every published
/// file, and the original. What the tests of every family check against [`Family::report`].
///
/// # Errors
/// As [`Family::audit`].
pub fn reaudit<'a, F: Family>(
    input: F::Input<'a>,
    params: &F::Params,
    publication: &'a F::Publication,
) -> Result<F::AuditReport, F::Error> {
    F::audit(
        F::published(publication),
        &F::claim(params, input)?,
        F::audit_inputs(input, publication),
    )
}

#[cfg(test)]
mod tests {
    use super::FamilyName;

    #[test]
    fn names_round_trip_and_are_distinct() {
        let mut seen = std::collections::HashSet::new();
        for f in FamilyName::ALL {
            assert_eq!(FamilyName::parse(f.as_str()), Some(f));
            assert!(seen.insert(f.as_str()));
        }
        assert_eq!(FamilyName::parse("Cahd"), None);
        assert_eq!(FamilyName::ALL.iter().filter(|f| f.publishes_transactions()).count(), 5);
    }
}
