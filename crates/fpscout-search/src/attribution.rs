//! Which of fast-math's sub-options a `diff` difference needs (issue #31): P' rebuilt with subsets of them, every confirmed witness replayed natively on each, the smallest subset that still shows it; and the largest subset under which no witness differs, checked on the command line that keeps it.
//!
//! A witness *shows* its difference under a subset when P' built with exactly that subset
//! differs from P, on the witness, in every kind the finding has (flags, trace, class,
//! ulps ...). Each subset is compiled once (the compile cache keeps it across runs) and
//! runs every witness traced at once. The attribution of a witness is, in this order:
//! empty when P' without any sub-option already shows it (the optimisation level, not
//! fast-math); the first single option that shows it; otherwise a 1-minimal subset found
//! by removing options one at a time from all seven (delta debugging). The safe set
//! starts from the options no attribution names and drops, while some witness still
//! differs in any way under it, a 1-minimal subset of what that witness needs; witnesses
//! that differ without any sub-option do not count against it.

use crate::executable::Executable;
use crate::modes::diff::{compare, DiffKind, Finding};
use crate::observe::{native_observe, Observation};
use crate::session::Session;
use fpscout_ir::Type;
use fpscout_toolchain::{BuildFlags, FastMathOption};
use fpscout_walk::concrete::ArgBits;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::Instant;

/// The largest subset of fast-math's sub-options under which no witness differs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SafeFlags {
    /// Sub-options kept, and turned off (names as clang spells them, `ftz-daz`).
    pub kept: Vec<String>,
    pub disabled: Vec<String>,
    /// P''s flags with the disabled ones turned off.
    pub command: String,
    /// The command line itself was compiled and no witness differs from P under it.
    pub verified: bool,
    /// What the set rests on: the witnesses replayed.
    pub searched: String,
}

impl SafeFlags {
    /// The set that keeps `kept` of P''s fast-math (`flags`), with its command line.
    pub fn keeping(
        kept: &[FastMathOption],
        flags: &BuildFlags,
        verified: bool,
        searched: String,
    ) -> SafeFlags {
        let names = |keep: bool| {
            FastMathOption::ALL
                .into_iter()
                .filter(|o| kept.contains(o) == keep)
                .map(|o| o.name().to_string())
                .collect()
        };
        SafeFlags {
            kept: names(true),
            disabled: names(false),
            command: flags.fast_math_command(kept).join(" "),
            verified,
            searched,
        }
    }
}

/// One function's part of a whole file's safe set: its set and the witnesses it rests
/// on, carried from the function's run to the end of the file's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionSafeSet {
    pub function: String,
    /// The sub-options its set keeps; `None`: it has confirmed differences but no set
    /// (its attribution stopped).
    pub kept: Option<Vec<String>>,
    pub verified: bool,
    /// Its confirmed witnesses.
    pub witnesses: Vec<Vec<ArgBits>>,
}

/// The safe flag set of a whole file: the sub-options every function's set keeps, and
/// the command line, on which every function's witnesses are replayed again where its
/// own set kept more.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileSafeFlags {
    /// The set and its command line; `verified`: every function's witnesses agree with
    /// P under it.
    #[serde(flatten)]
    pub set: SafeFlags,
    /// Functions whose sets it is made of.
    pub functions: usize,
    /// Functions with a confirmed difference but no set: the file's set cannot speak
    /// for them.
    pub without_set: Vec<String>,
    /// Functions whose witnesses were replayed again on the file's command line (their
    /// own set kept more than it).
    pub rechecked: Vec<String>,
    /// Functions with a witness that still differs under the file's command line.
    pub still_differ: Vec<String>,
}

impl FileSafeFlags {
    /// The options every function with a set keeps.
    pub fn kept_by_every(sets: &[FunctionSafeSet]) -> Vec<FastMathOption> {
        FastMathOption::ALL
            .into_iter()
            .filter(|o| {
                sets.iter()
                    .filter_map(|s| s.kept.as_ref())
                    .all(|kept| kept.iter().any(|k| k == o.name()))
            })
            .collect()
    }

    /// The file's set from its functions' `sets` (`None` when no function has one):
    /// P''s `flags` keeping what every set keeps. A function whose own set kept more is
    /// replayed again by `recheck` on the file's command line; the others were checked
    /// on that very command line by their own runs.
    pub fn of(
        sets: &[FunctionSafeSet],
        flags: &BuildFlags,
        mut recheck: impl FnMut(&FunctionSafeSet, &BuildFlags) -> Result<bool, String>,
    ) -> Result<Option<FileSafeFlags>, String> {
        if sets.is_empty() {
            return Ok(None);
        }
        let kept = Self::kept_by_every(sets);
        let file_flags = BuildFlags {
            p_prime: flags.fast_math_command(&kept),
            ..flags.clone()
        };
        let mut file = FileSafeFlags {
            set: SafeFlags::keeping(&kept, flags, true, String::new()),
            ..FileSafeFlags::default()
        };
        let mut witnesses = 0;
        for set in sets {
            if set.kept.is_none() {
                file.without_set.push(set.function.clone());
                file.set.verified = false;
                continue;
            }
            file.functions += 1;
            witnesses += set.witnesses.len();
            let agrees = if Self::keeps_exactly(set, &kept) || set.witnesses.is_empty() {
                set.verified || set.witnesses.is_empty()
            } else {
                file.rechecked.push(set.function.clone());
                recheck(set, &file_flags)?
            };
            if !agrees {
                file.still_differ.push(set.function.clone());
                file.set.verified = false;
            }
        }
        file.set.searched = format!(
            "the {witnesses} confirmed witnesses of {} functions replayed on each build \
             (no difference elsewhere in their input spaces is ruled out)",
            file.functions
        );
        Ok(Some(file))
    }

    /// Whether `set` was checked on exactly the options `kept` (its own command line is
    /// then the file's).
    pub fn keeps_exactly(set: &FunctionSafeSet, kept: &[FastMathOption]) -> bool {
        set.kept.as_ref().is_some_and(|k| {
            k.len() == kept.len() && kept.iter().all(|o| k.iter().any(|n| n == o.name()))
        })
    }
}

/// A set of options as bits, in [`FastMathOption::ALL`] order.
type Mask = u8;
const ALL: Mask = (1 << FastMathOption::ALL.len()) - 1;

fn bit(o: FastMathOption) -> Mask {
    let i = FastMathOption::ALL
        .iter()
        .position(|x| *x == o)
        .unwrap_or_default();
    1 << i
}

/// The options in `mask`, in [`FastMathOption::ALL`] order.
pub fn options_of(mask: u8) -> Vec<FastMathOption> {
    FastMathOption::ALL
        .into_iter()
        .filter(|o| mask & bit(*o) != 0)
        .collect()
}

/// Names of the options in `mask`, in [`FastMathOption::ALL`] order.
pub fn names(mask: u8) -> Vec<&'static str> {
    options_of(mask)
        .into_iter()
        .map(FastMathOption::name)
        .collect()
}

/// An attribution in words: `needs -ffinite-math-only`, `needs -fassociative-math and
/// -ffp-contract=fast`, `needs no fast-math sub-option (P' differs without them)`; with
/// the other options that show it alone: `needs -ffinite-math-only (or -fapprox-func
/// alone)`.
pub fn needs_text(names: &[&str], alone: &[&str]) -> String {
    if names.is_empty() {
        return "needs no fast-math sub-option (P' differs without them)".into();
    }
    let flag = |n: &str| match n {
        "ftz-daz" => "FTZ/DAZ at start-up (-mdaz-ftz)".to_string(),
        n => format!("-f{n}"),
    };
    let flags: Vec<String> = names.iter().map(|n| flag(n)).collect();
    let mut text = format!("needs {}", flags.join(" and "));
    if !alone.is_empty() {
        let others: Vec<String> = alone.iter().map(|n| flag(n)).collect();
        text.push_str(&format!(" (or {} alone)", others.join(" or ")));
    }
    text
}

/// Why the attribution stopped early.
type Stop = String;

pub(crate) struct Attributor<'a, 's> {
    session: &'s Session,
    pp: &'a Executable<'s>,
    ret: Type,
    tolerance: u64,
    inputs: Vec<Vec<ArgBits>>,
    p: Vec<Observation>,
    kinds: Vec<Vec<DiffKind>>,
    /// Each subset's observation of every witness (`None`: crashed or timed out).
    seen: HashMap<Mask, Vec<Option<Observation>>>,
    until: Instant,
    pub(crate) builds: usize,
}

impl<'a, 's> Attributor<'a, 's> {
    /// An attributor for the confirmed `findings` (their P observations are the
    /// baseline), rebuilding `pp`'s function, until `until`.
    pub(crate) fn new(
        session: &'s Session,
        pp: &'a Executable<'s>,
        findings: &[&Finding],
        ret: Type,
        tolerance: u64,
        until: Instant,
    ) -> Attributor<'a, 's> {
        Attributor {
            session,
            pp,
            ret,
            tolerance,
            inputs: findings.iter().map(|x| x.input.clone()).collect(),
            p: findings.iter().map(|x| x.p.clone()).collect(),
            kinds: findings.iter().map(|x| x.kinds.clone()).collect(),
            seen: HashMap::new(),
            until,
            builds: 0,
        }
    }

    /// An attributor that only checks command lines: witnesses `inputs` with P's
    /// observations `p` (their kinds unknown, so it attributes nothing).
    pub(crate) fn checking(
        session: &'s Session,
        pp: &'a Executable<'s>,
        inputs: Vec<Vec<ArgBits>>,
        p: Vec<Observation>,
        ret: Type,
        tolerance: u64,
        until: Instant,
    ) -> Attributor<'a, 's> {
        Attributor {
            session,
            pp,
            ret,
            tolerance,
            kinds: vec![Vec::new(); inputs.len()],
            inputs,
            p,
            seen: HashMap::new(),
            until,
            builds: 0,
        }
    }

    fn observe_with(&mut self, mask: Mask, flags: &BuildFlags) -> Result<(), Stop> {
        if self.seen.contains_key(&mask) {
            return Ok(());
        }
        if Instant::now() >= self.until {
            return Err("the attribution's time ran out".into());
        }
        let exe = self
            .pp
            .variant(self.session, flags)
            .map_err(|e| format!("P' with {:?}: {e}", names(mask)))?;
        self.builds += 1;
        let outcomes = exe
            .traced(&self.inputs, Some(self.until))
            .map_err(|e| format!("P' with {:?}: {e}", names(mask)))?;
        if outcomes.len() < self.inputs.len() {
            return Err("the attribution's time ran out".into());
        }
        let observed = outcomes
            .iter()
            .map(|o| native_observe(o, self.ret))
            .collect();
        self.seen.insert(mask, observed);
        Ok(())
    }

    /// How P' with `mask` differs from P on witness `i`.
    fn differs(&mut self, mask: Mask, i: usize) -> Result<Vec<DiffKind>, Stop> {
        let flags = self
            .session
            .flags()
            .with_fast_math_subset(&options_of(mask));
        self.observe_with(mask, &flags)?;
        Ok(self.observed_difference(mask, i))
    }

    /// How the build observed under `key` differs from P on witness `i`. A crash or hang
    /// of that build is a difference of its own, not one of these: none.
    fn observed_difference(&self, key: Mask, i: usize) -> Vec<DiffKind> {
        match self.seen.get(&key).and_then(|s| s.get(i)) {
            Some(Some(q)) => compare(&self.p[i], q, self.ret, self.tolerance).0,
            _ => Vec::new(),
        }
    }

    /// The witnesses that P' without any sub-option does not already show: the ones a
    /// safe set must keep from differing.
    fn counted(&mut self) -> Result<Vec<usize>, Stop> {
        let mut counted = Vec::new();
        for i in 0..self.inputs.len() {
            if self.differs(0, i)?.is_empty() {
                counted.push(i);
            }
        }
        Ok(counted)
    }

    fn shows(&mut self, mask: Mask, i: usize) -> Result<bool, Stop> {
        let now = self.differs(mask, i)?;
        Ok(self.kinds[i].iter().all(|k| now.contains(k)))
    }

    /// The attribution of witness `i` (see the module doc) with the other single options
    /// that show it alone, or why there is none.
    pub(crate) fn attribute(
        &mut self,
        i: usize,
    ) -> Result<Result<(Mask, Vec<Mask>), String>, Stop> {
        if self.shows(0, i)? {
            return Ok(Ok((0, Vec::new())));
        }
        let mut alone = Vec::new();
        for o in FastMathOption::ALL {
            if self.shows(bit(o), i)? {
                alone.push(bit(o));
            }
        }
        if let Some((&first, others)) = alone.split_first() {
            return Ok(Ok((first, others.to_vec())));
        }
        if !self.shows(ALL, i)? {
            return Ok(Err(
                "P' with all seven sub-options spelled out does not show it: it needs \
                 something else -ffast-math does (e.g. -fno-math-errno, __FAST_MATH__)"
                    .into(),
            ));
        }
        Ok(Ok((
            self.shrink(ALL, i, |a, mask, i| a.shows(mask, i))?,
            Vec::new(),
        )))
    }

    /// A 1-minimal subset of `mask` under which `holds` stays true.
    fn shrink(
        &mut self,
        mut mask: Mask,
        i: usize,
        holds: impl Fn(&mut Self, Mask, usize) -> Result<bool, Stop>,
    ) -> Result<Mask, Stop> {
        for o in FastMathOption::ALL {
            let without = mask & !bit(o);
            if without != mask && holds(self, without, i)? {
                mask = without;
            }
        }
        Ok(mask)
    }

    /// The safe set given the options the attributions name (see the module doc):
    /// the kept options, and whether every witness counted agrees with P under them.
    pub(crate) fn safe_set(&mut self, attributed: Mask) -> Result<Mask, Stop> {
        let mut keep = ALL & !attributed;
        let counted = self.counted()?;
        loop {
            let mut bad = None;
            for &i in &counted {
                if !self.differs(keep, i)?.is_empty() {
                    bad = Some(i);
                    break;
                }
            }
            let Some(i) = bad else {
                return Ok(keep);
            };
            let needs = self.shrink(keep, i, |a, mask, i| {
                a.differs(mask, i).map(|k| !k.is_empty())
            })?;
            keep &= !needs;
        }
    }

    /// Whether no counted witness differs from P under `flags` (the command line).
    pub(crate) fn verify(&mut self, flags: &BuildFlags) -> Result<bool, Stop> {
        // A key no subset uses: the command line is its own build.
        const COMMAND: Mask = 0x80;
        self.seen.remove(&COMMAND);
        self.observe_with(COMMAND, flags)?;
        let counted = self.counted()?;
        Ok(counted
            .into_iter()
            .all(|i| self.observed_difference(COMMAND, i).is_empty()))
    }

    pub(crate) fn witnesses(&self) -> usize {
        self.inputs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_name_options_in_order() {
        assert_eq!(names(ALL).len(), 7);
        assert_eq!(
            names(bit(FastMathOption::FtzDaz) | bit(FastMathOption::FiniteMathOnly)),
            ["finite-math-only", "ftz-daz"]
        );
        assert_eq!(names(0), Vec::<&str>::new());
    }

    fn set(function: &str, kept: Option<&[FastMathOption]>, verified: bool) -> FunctionSafeSet {
        FunctionSafeSet {
            function: function.into(),
            kept: kept.map(|k| k.iter().map(|o| o.name().to_string()).collect()),
            verified,
            witnesses: vec![vec![ArgBits::Scalar(1.0f64.to_bits())]],
        }
    }

    #[test]
    fn the_files_set_keeps_what_every_function_keeps_and_rechecks_only_the_others() {
        use FastMathOption::*;
        let all = FastMathOption::ALL;
        let without_arcp: Vec<_> = all.into_iter().filter(|o| *o != ReciprocalMath).collect();
        let without_both: Vec<_> = without_arcp
            .iter()
            .copied()
            .filter(|o| *o != AssociativeMath)
            .collect();
        let flags = BuildFlags::default();
        let sets = [
            set("tenth", Some(&without_arcp), true),
            set("scaled", Some(&without_both), true),
            set("clean", Some(&all), true),
        ];
        let mut asked = Vec::new();
        let file = FileSafeFlags::of(&sets, &flags, |s, f| {
            asked.push((s.function.clone(), f.p_prime.clone()));
            Ok(s.function != "clean")
        })
        .expect("no recheck fails")
        .expect("a set");
        assert_eq!(file.set.disabled, ["reciprocal-math", "associative-math"]);
        // `scaled` was checked on exactly this set by its own run.
        assert_eq!(file.rechecked, ["tenth", "clean"]);
        assert_eq!(asked.len(), 2);
        assert!(asked
            .iter()
            .all(|(_, p_prime)| p_prime.join(" ") == file.set.command));
        assert_eq!(file.still_differ, ["clean"]);
        assert!(!file.set.verified);

        let with_unknown = [
            set("tenth", Some(&without_arcp), true),
            set("odd", None, false),
        ];
        let file = FileSafeFlags::of(&with_unknown, &flags, |_, _| Ok(true))
            .expect("no recheck fails")
            .expect("a set");
        assert_eq!(file.set.disabled, ["reciprocal-math"]);
        assert_eq!(file.without_set, ["odd"]);
        assert!(file.rechecked.is_empty() && !file.set.verified);
        assert_eq!(FileSafeFlags::of(&[], &flags, |_, _| Ok(true)), Ok(None));
    }
}
