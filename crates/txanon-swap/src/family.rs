//! Swap's side of the family contract ([`txanon_data::Family`]).

use txanon_data::audit::Violations;
use txanon_data::{Categorized, Family, FamilyName, TransactionDb};

use crate::{
    SwapAuditReport, SwapClaim, SwapError, SwapPublication, SwapViolation, ValidSwapParams,
};

/// Tendency hiding by swapping, as a [`Family`].
#[derive(Debug, Clone, Copy)]
pub struct Swap;

/// What swap's auditor holds besides the publication: both are the data holder's (the key is
/// secret and never published), so swap's audit is the data holder's own.
#[derive(Debug, Clone, Copy)]
pub struct SwapAuditInputs<'a> {
    /// The original records with their items' categories.
    pub original: Categorized<'a>,
    /// The secret key: for each published record, the original record it was swapped from.
    pub key: &'a [u32],
}

impl Family for Swap {
    const NAME: FamilyName = FamilyName::Swap;
    type Params = ValidSwapParams;
    type Input<'a> = Categorized<'a>;
    type Publication = SwapPublication;
    type Claim = SwapClaim;
    type Published<'a> = &'a TransactionDb;
    type AuditInputs<'a> = SwapAuditInputs<'a>;
    type AuditReport = SwapAuditReport;
    type Violation = SwapViolation;
    type Error = SwapError;

    fn anonymize(
        input: Categorized<'_>,
        params: &ValidSwapParams,
    ) -> Result<SwapPublication, SwapError> {
        crate::anonymize(input, params)
    }

    fn audit(
        published: &TransactionDb,
        claim: &SwapClaim,
        inputs: SwapAuditInputs<'_>,
    ) -> Result<SwapAuditReport, SwapError> {
        crate::audit(inputs.original, published, inputs.key, claim)
    }

    fn published(publication: &SwapPublication) -> &TransactionDb {
        &publication.published
    }

    fn report(publication: &SwapPublication) -> &SwapAuditReport {
        &publication.audit
    }

    fn claim(params: &ValidSwapParams, _: Categorized<'_>) -> Result<SwapClaim, SwapError> {
        Ok(params.claim())
    }

    fn audit_inputs<'a>(
        input: Categorized<'a>,
        publication: &'a SwapPublication,
    ) -> SwapAuditInputs<'a> {
        SwapAuditInputs { original: input, key: publication.key() }
    }

    fn violations(error: &SwapError) -> Option<&Violations<SwapViolation>> {
        match error {
            SwapError::Audit(v) => Some(v),
            _ => None,
        }
    }
}
