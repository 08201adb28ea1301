//! The mathematical reference of a function (`--reference EXPR`, an FPCore input's body): parsed against its parameters, evaluated at an input, and a build's result measured against it.

use crate::InputError;
use fpscout_fpcore::{measure, CFloat, Measured, Precision, Reference, ReferenceValue};
use fpscout_ir::{FloatTy, Function, Param, ScalarTy, Type};
use fpscout_native::SweepReference;
use fpscout_walk::concrete::ArgBits;
use fpscout_walk::shadow::float_value;
use std::sync::Arc;

/// A reference as the user gave it, before the function is known.
#[derive(Clone, Debug)]
pub enum ReferenceSpec {
    /// An FPCore expression over the function's parameter names (`--reference`).
    Expression(String),
    /// Already parsed (an FPCore's body), with the text reports show.
    Parsed {
        text: String,
        reference: Arc<Reference>,
    },
}

impl ReferenceSpec {
    /// The user's `--reference`, else an FPCore function's own body; `None` without
    /// either (or for an FPCore whose body cannot be a reference).
    pub fn chosen(
        expression: Option<&str>,
        core: Option<&crate::sources::FpCoreFunction>,
    ) -> Option<ReferenceSpec> {
        if let Some(text) = expression {
            return Some(ReferenceSpec::Expression(text.to_string()));
        }
        let (text, reference) = core?.reference.as_ref().ok()?;
        Some(ReferenceSpec::Parsed {
            text: text.clone(),
            reference: reference.clone(),
        })
    }
}

/// A reference parsed for one function returning a float.
#[derive(Clone, Debug)]
pub struct FunctionReference {
    /// The expression as reports show it.
    pub text: String,
    reference: Arc<Reference>,
    ty: FloatTy,
}

impl FunctionReference {
    /// The reference of `f`: a clear error for a function it cannot measure (no float
    /// result, a pointer parameter) or an expression that does not parse.
    pub fn of(spec: &ReferenceSpec, f: &Function) -> Result<FunctionReference, InputError> {
        let Some(ty) = f.ret.float_ty() else {
            return Err(InputError(format!(
                "--reference measures a returned float; {} returns {}",
                f.display_name, f.ret
            )));
        };
        if let Some(p) = f.params.iter().find(|p| !matches!(p.ty, Type::Scalar(_))) {
            return Err(InputError(format!(
                "--reference takes number parameters; {}'s parameter {} is {}",
                f.display_name, p.name, p.ty
            )));
        }
        let (text, reference) = match spec {
            ReferenceSpec::Parsed { text, reference } => (text.clone(), reference.clone()),
            ReferenceSpec::Expression(text) => {
                let names: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
                let parsed = Reference::parse(text, &names)
                    .map_err(|e| InputError(format!("--reference {text:?}: {e}")))?;
                (text.clone(), Arc::new(parsed))
            }
        };
        if reference.params().len() != f.params.len() {
            return Err(InputError(format!(
                "the reference {text} takes {} arguments; {} has {} parameters",
                reference.params().len(),
                f.display_name,
                f.params.len()
            )));
        }
        Ok(FunctionReference {
            text,
            reference,
            ty,
        })
    }

    /// The reference of `f` when there is one: an explicit `--reference` that does not
    /// fit `f` is an error, an FPCore body that does not (a boolean core) is left out.
    pub fn for_function(
        spec: Option<&ReferenceSpec>,
        f: &Function,
    ) -> Result<Option<FunctionReference>, InputError> {
        match spec {
            None => Ok(None),
            Some(spec @ ReferenceSpec::Expression(_)) => FunctionReference::of(spec, f).map(Some),
            Some(spec @ ReferenceSpec::Parsed { .. }) => Ok(FunctionReference::of(spec, f).ok()),
        }
    }

    /// The reference as the C functions of the exhaustive sweep (`double` and `long
    /// double`); an error naming the operation when C's libm lacks one.
    pub fn sweep_reference(&self) -> Result<SweepReference, InputError> {
        let c = |name: &str, ty: CFloat| {
            self.reference.to_c(name, ty).map_err(|e| {
                InputError(format!(
                    "the exhaustive search computes the reference {} in C first: {e}",
                    self.text
                ))
            })
        };
        Ok(SweepReference {
            double_c: c("fps_ref_d", CFloat::Double)?,
            long_double_c: c("fps_ref_l", CFloat::LongDouble)?,
        })
    }

    /// The reference as the `long double fps_ref_l(...)` of the native scan; an error
    /// naming the operation when C's libm lacks one.
    pub fn long_double_c(&self) -> Result<String, InputError> {
        self.reference
            .to_c("fps_ref_l", CFloat::LongDouble)
            .map_err(|e| {
                InputError(format!(
                    "the reference {} has no C equivalent: {e}",
                    self.text
                ))
            })
    }

    /// The result type it is rounded to.
    pub fn ty(&self) -> FloatTy {
        self.ty
    }

    /// The mathematical value at `args` (parameters in order: floats by value,
    /// integers as numbers), correctly rounded to the result type.
    pub fn value(&self, params: &[Param], args: &[ArgBits]) -> ReferenceValue {
        let inputs: Vec<f64> = params
            .iter()
            .zip(args)
            .map(|(p, a)| match (p.ty, a) {
                (Type::Scalar(ScalarTy::Float(t)), ArgBits::Scalar(b)) => float_value(t, *b),
                (Type::Scalar(ScalarTy::Int(w)), ArgBits::Scalar(b)) => {
                    fpscout_ir::sign_extend(*b, w) as f64
                }
                _ => f64::NAN,
            })
            .collect();
        self.reference.evaluate(&inputs, precision_of(self.ty))
    }

    /// The error of a result's `bits` against `value`; `None` when the reference's
    /// rounding could not be decided.
    pub fn measure(&self, bits: u64, value: &ReferenceValue) -> Option<Measured> {
        measure(float_value(self.ty, bits), value, precision_of(self.ty))
    }
}

/// Why a reference gave no value to measure against.
pub fn undecided_reason() -> String {
    format!(
        "the reference's rounding could not be decided within {} bits",
        fpscout_fpcore::MAX_PRECISION
    )
}

/// A reference value as one binary64 number: the correctly rounded value, ±infinity,
/// NaN where undefined, the best approximation where undecided.
pub fn as_f64(value: &ReferenceValue) -> f64 {
    match *value {
        ReferenceValue::Finite { value, .. } => value,
        ReferenceValue::Infinite { negative: true, .. } => f64::NEG_INFINITY,
        ReferenceValue::Infinite { .. } => f64::INFINITY,
        ReferenceValue::Undefined => f64::NAN,
        ReferenceValue::Undecided { approx } => approx,
    }
}

fn precision_of(ty: FloatTy) -> Precision {
    match ty {
        FloatTy::F64 => Precision::Binary64,
        FloatTy::F32 => Precision::Binary32,
    }
}
