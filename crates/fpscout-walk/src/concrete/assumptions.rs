//! Fast-math assumptions watched during a concrete evaluation: the first operation whose
//! `nnan` or `ninf` flag a NaN or an infinity breaks (an operand or its result), where
//! LLVM's semantics make the result poison and the machine code may compute anything.

use super::is_nan;
use crate::domain::OpSite;
use fpscout_ir::{FastMath, FloatTy};

/// The first operation whose fast-math assumption an evaluation broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssumptionBroken {
    pub site: OpSite,
    /// `nnan` (a NaN met it) or `ninf` (an infinity met it).
    pub flag: &'static str,
}

/// Per-op fast-math flags of the module and the first break seen.
#[derive(Clone, Debug)]
pub(crate) struct AssumptionWatch {
    fmf: Vec<FastMath>,
    pub(crate) first: Option<AssumptionBroken>,
}

fn is_inf(ty: FloatTy, b: u64) -> bool {
    match ty {
        FloatTy::F32 => b & 0x7fff_ffff == 0x7f80_0000,
        FloatTy::F64 => b & 0x7fff_ffff_ffff_ffff == 0x7ff0_0000_0000_0000,
    }
}

impl AssumptionWatch {
    pub(crate) fn new(fmf: Vec<FastMath>) -> AssumptionWatch {
        AssumptionWatch { fmf, first: None }
    }

    /// Checks the float operands and result of the operation at `site`.
    pub(crate) fn check(&mut self, site: OpSite, values: &[(FloatTy, u64)]) {
        if self.first.is_some() {
            return;
        }
        let Some(fmf) = self.fmf.get(site.op.0 as usize) else {
            return;
        };
        let flag = if fmf.nnan && values.iter().any(|&(t, b)| is_nan(t, b)) {
            "nnan"
        } else if fmf.ninf && values.iter().any(|&(t, b)| is_inf(t, b)) {
            "ninf"
        } else {
            return;
        };
        self.first = Some(AssumptionBroken { site, flag });
    }
}
