//! Slicing's side of the family contract ([`txanon_data::Family`]).

use txanon_data::audit::Violations;
use txanon_data::{Family, FamilyName};

use crate::{
    Microdata, SlicedTable, SlicingAuditReport, SlicingClaim, SlicingError, SlicingPublication,
    SlicingViolation, ValidSlicingParams,
};

/// Slicing, as a [`Family`]. Its baselines ([`crate::mondrian`], [`crate::anatomize`]) return
/// publications of the same shape (the published tables and the audit they passed).
#[derive(Debug, Clone, Copy)]
pub struct Slicing;

impl Family for Slicing {
    const NAME: FamilyName = FamilyName::Slicing;
    type Params = ValidSlicingParams;
    type Input<'a> = &'a Microdata;
    type Publication = SlicingPublication;
    type Claim = SlicingClaim;
    type Published<'a> = &'a SlicedTable;
    /// The original: slicing's audit checks every original tuple's matching buckets.
    type AuditInputs<'a> = &'a Microdata;
    type AuditReport = SlicingAuditReport;
    type Violation = SlicingViolation;
    type Error = SlicingError;

    fn anonymize(
        data: &Microdata,
        params: &ValidSlicingParams,
    ) -> Result<SlicingPublication, SlicingError> {
        crate::anonymize(data, params)
    }

    fn audit(
        published: &SlicedTable,
        claim: &SlicingClaim,
        original: &Microdata,
    ) -> Result<SlicingAuditReport, SlicingError> {
        crate::audit(published, original, claim)
    }

    fn published(publication: &SlicingPublication) -> &SlicedTable {
        &publication.table
    }

    fn report(publication: &SlicingPublication) -> &SlicingAuditReport {
        &publication.audit
    }

    fn claim(params: &ValidSlicingParams, _: &Microdata) -> Result<SlicingClaim, SlicingError> {
        Ok(SlicingClaim::new(params.l() as u64)?)
    }

    fn audit_inputs<'a>(data: &'a Microdata, _: &'a SlicingPublication) -> &'a Microdata {
        data
    }

    fn violations(error: &SlicingError) -> Option<&Violations<SlicingViolation>> {
        match error {
            SlicingError::Audit(v) => Some(v),
            _ => None,
        }
    }
}
