//! Fast-math's sub-options one by one (issue #31): the flags that enable exactly a chosen subset in P', and the command line that turns the others off.

use crate::{BuildFlags, BuildKind};

/// One of `-ffast-math`'s sub-options, or the flush-to-zero start-up it links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FastMathOption {
    /// `-ffinite-math-only` (`nnan`, `ninf`).
    FiniteMathOnly,
    /// `-fno-signed-zeros` (`nsz`).
    NoSignedZeros,
    /// `-freciprocal-math` (`arcp`).
    ReciprocalMath,
    /// `-fassociative-math` (`reassoc`).
    AssociativeMath,
    /// `-ffp-contract=fast` (`contract`: fused multiply-add across statements).
    FpContractFast,
    /// `-fapprox-func` (`afn`).
    ApproxFunc,
    /// `crtfastmath.o`: flush-to-zero and denormals-are-zero set at start-up.
    FtzDaz,
}

impl FastMathOption {
    pub const ALL: [FastMathOption; 7] = [
        FastMathOption::FiniteMathOnly,
        FastMathOption::NoSignedZeros,
        FastMathOption::ReciprocalMath,
        FastMathOption::AssociativeMath,
        FastMathOption::FpContractFast,
        FastMathOption::ApproxFunc,
        FastMathOption::FtzDaz,
    ];

    /// The name as clang spells the flag without its dash (`ftz-daz` for the start-up).
    pub fn name(self) -> &'static str {
        match self {
            FastMathOption::FiniteMathOnly => "finite-math-only",
            FastMathOption::NoSignedZeros => "no-signed-zeros",
            FastMathOption::ReciprocalMath => "reciprocal-math",
            FastMathOption::AssociativeMath => "associative-math",
            FastMathOption::FpContractFast => "fp-contract=fast",
            FastMathOption::ApproxFunc => "approx-func",
            FastMathOption::FtzDaz => "ftz-daz",
        }
    }

    /// The option named `name` (as [`FastMathOption::name`] spells it).
    pub fn from_name(name: &str) -> Option<FastMathOption> {
        FastMathOption::ALL.into_iter().find(|o| o.name() == name)
    }

    /// Compile flags that enable this option alone. Reassociation uses clang's cc1
    /// `-mreassociate`: the driver's `-fassociative-math` has no effect without
    /// `-fno-signed-zeros`, and the two must be told apart.
    fn enabling_flags(self) -> &'static [&'static str] {
        match self {
            FastMathOption::FiniteMathOnly => &["-ffinite-math-only"],
            FastMathOption::NoSignedZeros => &["-fno-signed-zeros"],
            FastMathOption::ReciprocalMath => &["-freciprocal-math"],
            FastMathOption::AssociativeMath => &["-Xclang", "-mreassociate"],
            FastMathOption::FpContractFast => &["-ffp-contract=fast"],
            FastMathOption::ApproxFunc => &["-fapprox-func"],
            FastMathOption::FtzDaz => &["-mdaz-ftz"],
        }
    }

    /// The flag that turns this option off after `-ffast-math`.
    pub fn disabling_flag(self) -> &'static str {
        match self {
            FastMathOption::FiniteMathOnly => "-fno-finite-math-only",
            FastMathOption::NoSignedZeros => "-fsigned-zeros",
            FastMathOption::ReciprocalMath => "-fno-reciprocal-math",
            FastMathOption::AssociativeMath => "-fno-associative-math",
            FastMathOption::FpContractFast => "-ffp-contract=off",
            FastMathOption::ApproxFunc => "-fno-approx-func",
            FastMathOption::FtzDaz => "-mno-daz-ftz",
        }
    }
}

/// Flags that turn fast-math as a whole or any of its parts on or off (and `-ffp-contract=`
/// of any value); removed before a subset is added back.
const FAST_MATH_FLAGS: &[&str] = &[
    "-ffast-math",
    "-fno-fast-math",
    "-fno-math-errno",
    "-mno-daz-ftz",
    "-funsafe-math-optimizations",
    "-ffinite-math-only",
    "-fno-honor-nans",
    "-fno-honor-infinities",
    "-fno-signed-zeros",
    "-freciprocal-math",
    "-fassociative-math",
    "-fapprox-func",
    "-mdaz-ftz",
];

impl BuildFlags {
    /// Whether P' enables fast-math as a whole (`-ffast-math`, `-Ofast`,
    /// `-funsafe-math-optimizations`), the last such flag deciding: the builds whose
    /// differences can be attributed to its sub-options.
    pub fn p_prime_is_fast_math(&self) -> bool {
        self.links_fast_math(BuildKind::PPrime)
    }

    /// These flags with P' enabling exactly `subset` of fast-math's sub-options (plus
    /// `-fno-math-errno`, which fast-math implies and which changes no value): every
    /// fast-math flag of P' is removed (`-Ofast` becomes `-O3`), contraction is off unless
    /// chosen, and each chosen option's own flag is added.
    pub fn with_fast_math_subset(&self, subset: &[FastMathOption]) -> BuildFlags {
        let mut cleaned: Vec<String> = Vec::new();
        let mut it = self.p_prime.iter();
        while let Some(f) = it.next() {
            match f.as_str() {
                "-Ofast" => cleaned.push("-O3".into()),
                // `-Xclang -mreassociate` comes from an earlier subset; other cc1 flags
                // stay with their argument.
                "-Xclang" => match it.next() {
                    Some(arg) if arg == "-mreassociate" => {}
                    Some(arg) => cleaned.extend([f.clone(), arg.clone()]),
                    None => cleaned.push(f.clone()),
                },
                _ if FAST_MATH_FLAGS.contains(&f.as_str()) || f.starts_with("-ffp-contract=") => {}
                _ => cleaned.push(f.clone()),
            }
        }
        cleaned.push("-fno-math-errno".into());
        if !subset.contains(&FastMathOption::FpContractFast) {
            cleaned.push("-ffp-contract=off".into());
        }
        let mut chosen = subset.to_vec();
        chosen.sort();
        chosen.dedup();
        for o in chosen {
            cleaned.extend(o.enabling_flags().iter().map(|s| s.to_string()));
        }
        BuildFlags {
            p_prime: cleaned,
            ..self.clone()
        }
    }

    /// P''s flags followed by what turns off every option not in `kept`: the command line
    /// a user keeps fast-math with (e.g. `-O3 -ffast-math -g -fno-finite-math-only`).
    pub fn fast_math_command(&self, kept: &[FastMathOption]) -> Vec<String> {
        let mut flags = self.p_prime.clone();
        for o in FastMathOption::ALL {
            if !kept.contains(&o) {
                flags.push(o.disabling_flag().to_string());
            }
        }
        flags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subset_replaces_every_fast_math_flag() {
        let flags = BuildFlags::with_p_prime("-Ofast -march=native -Xclang -foo -g");
        let only = flags.with_fast_math_subset(&[FastMathOption::AssociativeMath]);
        assert_eq!(
            only.p_prime,
            [
                "-O3",
                "-march=native",
                "-Xclang",
                "-foo",
                "-g",
                "-fno-math-errno",
                "-ffp-contract=off",
                "-Xclang",
                "-mreassociate"
            ]
        );
        // A subset of a subset starts from the same place.
        let again = only.with_fast_math_subset(&[FastMathOption::FpContractFast]);
        assert_eq!(
            again.p_prime,
            [
                "-O3",
                "-march=native",
                "-Xclang",
                "-foo",
                "-g",
                "-fno-math-errno",
                "-ffp-contract=fast"
            ]
        );
        assert!(!again.links_fast_math(BuildKind::PPrime));
        assert!(flags.p_prime_is_fast_math());
    }

    #[test]
    fn the_command_turns_off_what_is_not_kept() {
        let flags = BuildFlags::default();
        let kept: Vec<FastMathOption> = FastMathOption::ALL
            .into_iter()
            .filter(|o| *o != FastMathOption::FiniteMathOnly)
            .collect();
        assert_eq!(
            flags.fast_math_command(&kept),
            ["-O3", "-ffast-math", "-g", "-fno-finite-math-only"]
        );
        assert_eq!(
            FastMathOption::from_name("fp-contract=fast"),
            Some(FastMathOption::FpContractFast)
        );
    }
}
