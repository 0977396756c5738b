//! Coherence's side of the family contract ([`txanon_data::Family`]).

use txanon_data::audit::Violations;
use txanon_data::{Family, FamilyName, MarkedDb, TransactionDb};

use crate::{
    CoherenceAuditReport, CoherenceClaim, CoherenceError, CoherencePublication, CoherenceViolation,
    ValidCoherenceParams,
};

/// (h,k,p)-coherence, as a [`Family`]: its input marks the private items.
#[derive(Debug, Clone, Copy)]
pub struct Coherence;

impl Family for Coherence {
    const NAME: FamilyName = FamilyName::Coherence;
    type Params = ValidCoherenceParams;
    type Input<'a> = MarkedDb<'a>;
    type Publication = CoherencePublication;
    type Claim = CoherenceClaim;
    type Published<'a> = &'a TransactionDb;
    /// The original, when the auditor holds it.
    type AuditInputs<'a> = Option<&'a TransactionDb>;
    type AuditReport = CoherenceAuditReport;
    type Violation = CoherenceViolation;
    type Error = CoherenceError;

    fn anonymize(
        input: MarkedDb<'_>,
        params: &ValidCoherenceParams,
    ) -> Result<CoherencePublication, CoherenceError> {
        crate::anonymize(input.db, input.marked, params)
    }

    fn audit(
        published: &TransactionDb,
        claim: &CoherenceClaim,
        original: Option<&TransactionDb>,
    ) -> Result<CoherenceAuditReport, CoherenceError> {
        crate::audit(published, claim, original)
    }

    fn published(publication: &CoherencePublication) -> &TransactionDb {
        &publication.published
    }

    fn report(publication: &CoherencePublication) -> &CoherenceAuditReport {
        &publication.audit
    }

    fn claim(
        params: &ValidCoherenceParams,
        input: MarkedDb<'_>,
    ) -> Result<CoherenceClaim, CoherenceError> {
        let private = input.marked.iter().map(|&s| input.db.label(s).to_string()).collect();
        Ok(CoherenceClaim::new(params.h(), u64::from(params.k()), params.p() as u64)?
            .private(private))
    }

    fn audit_inputs<'a>(
        input: MarkedDb<'a>,
        _: &'a CoherencePublication,
    ) -> Option<&'a TransactionDb> {
        Some(input.db)
    }

    fn violations(error: &CoherenceError) -> Option<&Violations<CoherenceViolation>> {
        match error {
            CoherenceError::Audit(v) => Some(v),
            _ => None,
        }
    }
}
