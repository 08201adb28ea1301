//! Where an input came from: the one vocabulary of phases that every mode's findings and witnesses carry.

use fpscout_ir::ExceptionKind;
use fpscout_toolchain::BuildKind;
use serde::{Deserialize, Serialize};

/// The phase that produced an input. Ordered by what the phase says about the input: a
/// target several phases raised is credited to the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// A model of Z3 (or a float near it).
    Z3,
    /// A model of the fallback solver (or a float near it).
    Fallback,
    /// A solution of the float solver (or a float near it).
    FloatSolver,
    /// A seed input: special values, the function's constants (see `seeds`).
    Seed,
    /// The sweep of a one-parameter function's whole input space.
    Sweep,
    Random,
}

impl Phase {
    /// As `--json` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Z3 => "z3",
            Phase::Fallback => "fallback",
            Phase::FloatSolver => "float_solver",
            Phase::Seed => "seed",
            Phase::Sweep => "sweep",
            Phase::Random => "random",
        }
    }
}

/// One of the two compared builds, as reports spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Build {
    #[serde(rename = "P")]
    P,
    #[serde(rename = "P'")]
    PPrime,
}

impl Build {
    pub fn label(self) -> &'static str {
        match self {
            Build::P => "P",
            Build::PPrime => "P'",
        }
    }
}

impl From<BuildKind> for Build {
    fn from(b: BuildKind) -> Build {
        match b {
            BuildKind::P => Build::P,
            BuildKind::PPrime => Build::PPrime,
        }
    }
}

/// The exception condition a solving phase solved for: which build raises which kind
/// at which operation (`op`, the module's `FpOpId`); the input is `steps` neighbours
/// away from the solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Aim {
    pub build: Build,
    pub op: u32,
    pub kind: ExceptionKind,
    pub steps: usize,
}

/// Where an input came from: its phase and, for a solving phase, what it aimed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Origin {
    pub phase: Phase,
    #[serde(flatten)]
    pub aim: Option<Aim>,
}

impl Origin {
    /// An input of `phase` that aimed at nothing in particular.
    pub fn of(phase: Phase) -> Origin {
        Origin { phase, aim: None }
    }

    /// A solution of `phase` for `aim`.
    pub fn aimed(phase: Phase, aim: Aim) -> Origin {
        Origin {
            phase,
            aim: Some(aim),
        }
    }

    /// The same origin for a point `steps` neighbours from its candidate (aimed origins
    /// count them; the others are their own points).
    pub fn at_steps(self, steps: usize) -> Origin {
        Origin {
            aim: self.aim.map(|a| Aim { steps, ..a }),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aimed_origin_is_one_flat_json_object_and_reads_back() {
        let origin = Origin::aimed(
            Phase::Z3,
            Aim {
                build: Build::PPrime,
                op: 7,
                kind: ExceptionKind::DivByZero,
                steps: 2,
            },
        );
        let text = serde_json::to_string(&origin).unwrap();
        assert_eq!(
            text,
            r#"{"phase":"z3","build":"P'","op":7,"kind":"divbyzero","steps":2}"#
        );
        assert_eq!(serde_json::from_str::<Origin>(&text).unwrap(), origin);
        let random = Origin::of(Phase::Random);
        let text = serde_json::to_string(&random).unwrap();
        assert_eq!(text, r#"{"phase":"random"}"#);
        assert_eq!(serde_json::from_str::<Origin>(&text).unwrap(), random);
        assert_eq!(origin.at_steps(0).aim.map(|a| a.steps), Some(0));
        assert_eq!(random.at_steps(3), random);
    }
}
