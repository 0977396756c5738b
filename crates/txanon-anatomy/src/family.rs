//! Anatomy's side of the family contract ([`txanon_data::Family`]).

use txanon_data::audit::Violations;
use txanon_data::{Family, FamilyName, TransactionDb};

use crate::{
    AnatomizedTable, AnatomyAuditReport, AnatomyClaim, AnatomyError, AnatomyPublication,
    AnatomyViolation, ValidAnatomyParams,
};

/// Multi-dimension anatomy, as a [`Family`].
#[derive(Debug, Clone, Copy)]
pub struct Anatomy;

/// Anatomy's published files as its auditor reads them.
#[derive(Debug, Clone, Copy)]
pub struct AnatomyFiles<'a> {
    /// The anatomized table (`anatomized.json`).
    pub table: &'a AnatomizedTable,
    /// The flattened records (`anonymized.*`), checked against the table when given.
    pub flattened: Option<&'a TransactionDb>,
}

impl Family for Anatomy {
    const NAME: FamilyName = FamilyName::Anatomy;
    type Params = ValidAnatomyParams;
    type Input<'a> = &'a TransactionDb;
    type Publication = AnatomyPublication;
    type Claim = AnatomyClaim;
    type Published<'a> = AnatomyFiles<'a>;
    /// The original, when the auditor holds it.
    type AuditInputs<'a> = Option<&'a TransactionDb>;
    type AuditReport = AnatomyAuditReport;
    type Violation = AnatomyViolation;
    type Error = AnatomyError;

    fn anonymize(
        db: &TransactionDb,
        params: &ValidAnatomyParams,
    ) -> Result<AnatomyPublication, AnatomyError> {
        crate::anonymize(db, params)
    }

    fn audit(
        published: AnatomyFiles<'_>,
        claim: &AnatomyClaim,
        original: Option<&TransactionDb>,
    ) -> Result<AnatomyAuditReport, AnatomyError> {
        crate::audit(published.table, claim, published.flattened, original)
    }

    fn published(publication: &AnatomyPublication) -> AnatomyFiles<'_> {
        AnatomyFiles { table: &publication.table, flattened: Some(&publication.flattened) }
    }

    fn report(publication: &AnatomyPublication) -> &AnatomyAuditReport {
        &publication.audit
    }

    fn claim(params: &ValidAnatomyParams, _: &TransactionDb) -> Result<AnatomyClaim, AnatomyError> {
        Ok(AnatomyClaim::new(params.l() as u64, params.diversity())?)
    }

    fn audit_inputs<'a>(
        db: &'a TransactionDb,
        _: &'a AnatomyPublication,
    ) -> Option<&'a TransactionDb> {
        Some(db)
    }

    fn violations(error: &AnatomyError) -> Option<&Violations<AnatomyViolation>> {
        match error {
            AnatomyError::Audit(v) => Some(v),
            _ => None,
        }
    }
}
