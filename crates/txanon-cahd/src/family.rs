//! CAHD's side of the family contract ([`txanon_data::Family`]).

use txanon_data::audit::Violations;
use txanon_data::{Family, FamilyName, MarkedDb, TransactionDb};

use crate::{
    CahdAuditReport, CahdClaim, CahdError, CahdPublication, CahdViolation, PublishedGroups,
    ValidCahdParams,
};

/// CAHD, as a [`Family`]: its input marks the sensitive items.
#[derive(Debug, Clone, Copy)]
pub struct Cahd;

impl Family for Cahd {
    const NAME: FamilyName = FamilyName::Cahd;
    type Params = ValidCahdParams;
    type Input<'a> = MarkedDb<'a>;
    type Publication = CahdPublication;
    type Claim = CahdClaim;
    type Published<'a> = &'a PublishedGroups;
    /// The original, when the auditor holds it.
    type AuditInputs<'a> = Option<&'a TransactionDb>;
    type AuditReport = CahdAuditReport;
    type Violation = CahdViolation;
    type Error = CahdError;

    fn anonymize(
        input: MarkedDb<'_>,
        params: &ValidCahdParams,
    ) -> Result<CahdPublication, CahdError> {
        crate::anonymize(input.db, input.marked, params)
    }

    fn audit(
        published: &PublishedGroups,
        claim: &CahdClaim,
        original: Option<&TransactionDb>,
    ) -> Result<CahdAuditReport, CahdError> {
        crate::audit(published, claim, original)
    }

    fn published(publication: &CahdPublication) -> &PublishedGroups {
        &publication.published
    }

    fn report(publication: &CahdPublication) -> &CahdAuditReport {
        &publication.audit
    }

    fn claim(params: &ValidCahdParams, input: MarkedDb<'_>) -> Result<CahdClaim, CahdError> {
        let labels = input.marked.iter().map(|&s| input.db.label(s).to_string());
        Ok(CahdClaim::new(params.p() as u64, labels)?)
    }

    fn audit_inputs<'a>(input: MarkedDb<'a>, _: &'a CahdPublication) -> Option<&'a TransactionDb> {
        Some(input.db)
    }

    fn violations(error: &CahdError) -> Option<&Violations<CahdViolation>> {
        match error {
            CahdError::Audit(v) => Some(v),
            _ => None,
        }
    }
}
