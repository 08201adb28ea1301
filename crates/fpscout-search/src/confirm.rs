//! The confirmation step every mode shares: witnesses replayed traced once more, each replay handed to the mode's own judgement of what confirms it.

use crate::executable::{Executable, ExecutablePair};
use crate::InputError;
use fpscout_native::TracedOutcome;
use fpscout_walk::concrete::ArgBits;
use std::time::Instant;

/// Replays the input of each of `witnesses` (`input` says which) traced on `exe`, none
/// started after `until`, and hands `judge` each witness with its replay: `None` when
/// the deadline passed before it ran. Returns how many were replayed.
pub fn confirm_each<W>(
    exe: &Executable,
    witnesses: &mut [W],
    input: impl Fn(&W) -> &[ArgBits],
    until: Option<Instant>,
    mut judge: impl FnMut(&mut W, Option<&TracedOutcome>),
) -> Result<usize, InputError> {
    let inputs: Vec<Vec<ArgBits>> = witnesses.iter().map(|w| input(w).to_vec()).collect();
    let again = exe.traced(&inputs, until)?;
    for (i, w) in witnesses.iter_mut().enumerate() {
        judge(w, again.get(i));
    }
    Ok(again.len())
}

/// [`confirm_each`] on both executables of a pair, which replay the same inputs.
pub fn confirm_each_pair<W>(
    exes: &ExecutablePair,
    witnesses: &mut [W],
    input: impl Fn(&W) -> &[ArgBits],
    until: Option<Instant>,
    mut judge: impl FnMut(&mut W, Option<(&TracedOutcome, &TracedOutcome)>),
) -> Result<usize, InputError> {
    let inputs: Vec<Vec<ArgBits>> = witnesses.iter().map(|w| input(w).to_vec()).collect();
    let (again_p, again_q) = exes.traced(&inputs, until, &mut |_, _| {})?;
    for (i, w) in witnesses.iter_mut().enumerate() {
        judge(w, again_p.get(i).zip(again_q.get(i)));
    }
    Ok(again_p.len().min(again_q.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CommonConfig;
    use fpscout_native::NativeOutcome;

    /// An input and the results P and P' returned on its replay.
    type Witness = (Vec<ArgBits>, Option<(u64, u64)>);

    #[test]
    fn each_witness_is_judged_on_its_own_replay_or_on_none_past_the_deadline() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("half.c");
        std::fs::write(&path, "double half(double x) { return x / 2.0; }")
            .unwrap_or_else(|e| panic!("{e}"));
        let session =
            crate::session::Session::open(&path, fpscout_toolchain::BuildFlags::default())
                .unwrap_or_else(|e| panic!("{e}"));
        let common = CommonConfig::new("half", crate::config::DIFF);
        let pair =
            ExecutablePair::open(&session, &[None], &common).unwrap_or_else(|e| panic!("{e}"));
        let mut witnesses: Vec<Witness> = [3.0f64, 5.0]
            .iter()
            .map(|v| (vec![ArgBits::Scalar(v.to_bits())], None))
            .collect();
        let result = |t: &TracedOutcome| match &t.outcome {
            NativeOutcome::Returned {
                result: Some(r), ..
            } => *r,
            other => panic!("did not return: {other:?}"),
        };
        let replayed = confirm_each_pair(
            &pair,
            &mut witnesses,
            |w| &w.0,
            None,
            |w, again| {
                w.1 = again.map(|(p, q)| (result(p), result(q)));
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(replayed, 2);
        assert_eq!(witnesses[0].1, Some((1.5f64.to_bits(), 1.5f64.to_bits())));
        assert_eq!(witnesses[1].1, Some((2.5f64.to_bits(), 2.5f64.to_bits())));
        // Past the deadline nothing runs, and every witness hears so.
        let mut judged = 0;
        let replayed = confirm_each(
            &pair.p,
            &mut witnesses,
            |w| &w.0,
            Some(Instant::now()),
            |_, again| {
                assert!(again.is_none());
                judged += 1;
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((replayed, judged), (0, 2));
    }
}
