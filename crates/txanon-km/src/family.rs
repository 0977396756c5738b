//! kᵐ-anonymity's side of the family contract ([`txanon_data::Family`]).

use txanon_data::audit::Violations;
use txanon_data::{Family, FamilyName, TransactionDb};

use crate::{
    Hierarchy, KmAuditReport, KmClaim, KmError, KmPublication, KmViolation, ValidKmParams,
};

/// kᵐ-anonymity, as a [`Family`].
#[derive(Debug, Clone, Copy)]
pub struct Km;

/// What kᵐ-anonymity reads: the transactions and the item hierarchy generalization climbs.
#[derive(Debug, Clone, Copy)]
pub struct KmInput<'a> {
    /// The transactions.
    pub db: &'a TransactionDb,
    /// The hierarchy over (at least) the transactions' items.
    pub hierarchy: &'a Hierarchy,
}

/// kᵐ-anonymity's published files as its auditor reads them.
#[derive(Debug, Clone, Copy)]
pub struct KmFiles<'a> {
    /// The generalized transactions (`published.*`).
    pub published: &'a TransactionDb,
    /// The published cut (`cut.txt`), checked against the hierarchy when given.
    pub cut: Option<&'a [String]>,
}

/// What kᵐ-anonymity's auditor holds besides the publication.
#[derive(Debug, Clone, Copy)]
pub struct KmAuditInputs<'a> {
    /// The hierarchy the publication generalizes along.
    pub hierarchy: &'a Hierarchy,
    /// The original, when the auditor holds it.
    pub original: Option<&'a TransactionDb>,
}

impl Family for Km {
    const NAME: FamilyName = FamilyName::Km;
    type Params = ValidKmParams;
    type Input<'a> = KmInput<'a>;
    type Publication = KmPublication;
    type Claim = KmClaim;
    type Published<'a> = KmFiles<'a>;
    type AuditInputs<'a> = KmAuditInputs<'a>;
    type AuditReport = KmAuditReport;
    type Violation = KmViolation;
    type Error = KmError;

    fn anonymize(input: KmInput<'_>, params: &ValidKmParams) -> Result<KmPublication, KmError> {
        crate::anonymize(input.db, input.hierarchy, params)
    }

    fn audit(
        published: KmFiles<'_>,
        claim: &KmClaim,
        inputs: KmAuditInputs<'_>,
    ) -> Result<KmAuditReport, KmError> {
        crate::audit(published.published, inputs.hierarchy, claim, published.cut, inputs.original)
    }

    fn published(publication: &KmPublication) -> KmFiles<'_> {
        KmFiles { published: &publication.published, cut: Some(&publication.cut) }
    }

    fn report(publication: &KmPublication) -> &KmAuditReport {
        &publication.audit
    }

    fn claim(params: &ValidKmParams, _: KmInput<'_>) -> Result<KmClaim, KmError> {
        Ok(KmClaim::new(u64::from(params.k()), params.m() as u64)?)
    }

    fn audit_inputs<'a>(input: KmInput<'a>, _: &'a KmPublication) -> KmAuditInputs<'a> {
        KmAuditInputs { hierarchy: input.hierarchy, original: Some(input.db) }
    }

    fn violations(error: &KmError) -> Option<&Violations<KmViolation>> {
        match error {
            KmError::Audit(v) => Some(v),
            _ => None,
        }
    }
}
