//! Ground truth for `diff`: every input of a one-float-parameter function run on both
//! executables, each (P flags, P' flags, P class, P' class) signature with its count and
//! first witness, and the recall of a `diff` report against it.

use crate::observe::ResultClass;
use crate::session::{native_ftz, FtzDazChoice, Session};
use crate::InputError;
use fpscout_ir::{ExceptionSet, FloatTy, ScalarTy, Type};
use fpscout_native::{decode_enumerated, NativeBuild, RunOptions};
use fpscout_toolchain::BuildKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::Duration;

/// A (P flags, P' flags, P class, P' class) signature, flags without inexact.
pub type Signature = (ExceptionSet, ExceptionSet, ResultClass, ResultClass);

/// How often a signature occurs, and the first input that has it (bits per parameter).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occurrence {
    pub count: u64,
    pub witness: Vec<u64>,
}

/// Every signature over the enumerated inputs.
#[derive(Clone, Debug, Default)]
pub struct Oracle {
    pub signatures: BTreeMap<Signature, Occurrence>,
    /// Inputs run on each build.
    pub inputs: u64,
    /// All inputs of the parameter's type were run (a `float`), not a sample.
    pub exhaustive: bool,
    /// The raw counts the signatures come from (see [`Oracle::from_codes`]).
    pub codes: Vec<CodePair>,
}

impl Oracle {
    /// The signatures in which the builds differ (flags or class): those `diff` can find.
    pub fn differences(&self) -> impl Iterator<Item = (&Signature, &Occurrence)> {
        self.signatures
            .iter()
            .filter(|(s, _)| s.0 != s.1 || s.2 != s.3)
    }
}

fn class_of(code_class: u8) -> ResultClass {
    match code_class {
        0 => ResultClass::Finite,
        1 => ResultClass::PosInf,
        2 => ResultClass::NegInf,
        3 => ResultClass::Nan,
        _ => ResultClass::Other,
    }
}

/// Runs every `float` (2^32 inputs) or a sample of 2^32 `double`s spread over every sign
/// and exponent through both executables of `function`, in parallel, as they really run
/// under `choice`.
pub fn enumerate_signatures(
    session: &Session,
    function: &str,
    choice: FtzDazChoice,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Oracle, InputError> {
    let fp = session.function(BuildKind::P, function)?;
    let fq = session.function(BuildKind::PPrime, function)?;
    let f = session.p()?.function(fp);
    let param = match f.params.as_slice() {
        [p] if matches!(p.ty, Type::Scalar(ScalarTy::Float(_))) => p.ty.float_ty(),
        _ => None,
    };
    let Some(param) = param else {
        return Err(InputError(format!(
            "the oracle enumerates functions of one float parameter; {} has {} parameters",
            f.display_name,
            f.params.len()
        )));
    };
    let native_p = session.native(BuildKind::P, fp, &[None])?;
    let native_q = session.native(BuildKind::PPrime, fq, &[None])?;
    let opts = RunOptions {
        ftz_daz: native_ftz(choice),
        ..RunOptions::default()
    };
    let all = Sweep {
        first: 0,
        count: 1 << 32,
        stride: 1,
    };
    let codes = sweep(
        &native_p,
        &native_q,
        &opts,
        all,
        Duration::from_secs(60),
        progress,
    )
    .map_err(|e| InputError(format!("enumeration failed: {e}")))?;
    Ok(Oracle::from_codes(
        &codes,
        all.count,
        param,
        param == FloatTy::F32,
    ))
}

/// Inputs of index `first + i * stride`, `i < count` (see [`input_bits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sweep {
    pub first: u64,
    pub count: u64,
    pub stride: u64,
}

/// The bits of the input of index `k` of a sweep over a parameter of type `ty`.
pub fn input_bits(k: u64, ty: FloatTy) -> u64 {
    match ty {
        FloatTy::F32 => k & 0xffff_ffff,
        FloatTy::F64 => fpscout_native::enumerated_double(k),
    }
}

/// Both executables over a sweep, in parallel: each pair of codes with its count and the
/// index of its first input. Fails when a build stops early or sends nothing for `stall`.
pub fn sweep(
    p: &NativeBuild,
    q: &NativeBuild,
    opts: &RunOptions,
    range: Sweep,
    stall: Duration,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<CodePair>, String> {
    let mut counts = vec![0u64; 1 << 16];
    let mut first_index = vec![u64::MAX; 1 << 16];
    let run = |b: &NativeBuild, tx: mpsc::SyncSender<Vec<u8>>| {
        b.enumerate(
            range.first,
            range.count,
            range.stride,
            opts,
            stall,
            &mut |c| tx.send(c.to_vec()).is_ok(),
        )
    };
    let (done, p_end, q_end) = std::thread::scope(|s| {
        let (tp, rp) = mpsc::sync_channel::<Vec<u8>>(16);
        let (tq, rq) = mpsc::sync_channel::<Vec<u8>>(16);
        let run = &run;
        let hp = s.spawn(move || run(p, tp));
        let hq = s.spawn(move || run(q, tq));
        let (mut bp, mut bq): (Vec<u8>, Vec<u8>) = (Vec::new(), Vec::new());
        let (mut ip, mut iq) = (0usize, 0usize);
        let mut done: u64 = 0;
        while done < range.count {
            if ip == bp.len() {
                match rp.recv() {
                    Ok(c) => (bp, ip) = (c, 0),
                    Err(_) => break,
                }
            }
            if iq == bq.len() {
                match rq.recv() {
                    Ok(c) => (bq, iq) = (c, 0),
                    Err(_) => break,
                }
            }
            let n = (bp.len() - ip).min(bq.len() - iq);
            for (j, (&a, &b)) in bp[ip..ip + n].iter().zip(&bq[iq..iq + n]).enumerate() {
                let key = (usize::from(a) << 8) | usize::from(b);
                counts[key] += 1;
                if first_index[key] == u64::MAX {
                    first_index[key] = range.first + (done + j as u64) * range.stride;
                }
            }
            ip += n;
            iq += n;
            done += n as u64;
            if done % (1 << 28) < n as u64 {
                progress(done, range.count);
            }
        }
        // A build that stopped early must not leave the other blocked on a full channel.
        drop(rp);
        drop(rq);
        (done, hp.join(), hq.join())
    });
    for end in [p_end, q_end] {
        match end {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e.to_string()),
            Err(_) => return Err("an enumeration thread panicked".into()),
        }
    }
    if done < range.count {
        return Err(format!(
            "the enumeration stopped after {done} of {} inputs",
            range.count
        ));
    }
    Ok(counts
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(key, &count)| CodePair {
            key: key as u16,
            count,
            first: first_index[key],
        })
        .collect())
}

/// How often one pair of enumeration codes (P's << 8 | P''s) occurred, and the index of
/// its first input (see [`input_bits`]): the oracle's raw form, which benchmarks cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodePair {
    pub key: u16,
    pub count: u64,
    pub first: u64,
}

impl Oracle {
    /// The signatures of a sweep's codes over a parameter of type `param`.
    pub fn from_codes(codes: &[CodePair], inputs: u64, param: FloatTy, exhaustive: bool) -> Oracle {
        let mut signatures = BTreeMap::new();
        for c in codes {
            let (fp_, cp) = decode_enumerated((c.key >> 8) as u8);
            let (fq_, cq) = decode_enumerated(c.key as u8);
            let bits = input_bits(c.first, param);
            signatures.insert(
                (fp_, fq_, class_of(cp), class_of(cq)),
                Occurrence {
                    count: c.count,
                    witness: vec![bits],
                },
            );
        }
        Oracle {
            signatures,
            inputs,
            exhaustive,
            codes: codes.to_vec(),
        }
    }
}

/// A sample of `samples` inputs of a function whose parameters are all floats (random
/// bit patterns: NaNs, infinities and subnormals included), run on both executables: the
/// signatures they show. An estimate, not ground truth (`exhaustive` is false).
pub fn sample_signatures(
    session: &Session,
    function: &str,
    choice: FtzDazChoice,
    samples: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Oracle, InputError> {
    use rand::{Rng, SeedableRng};
    let fp = session.function(BuildKind::P, function)?;
    let fq = session.function(BuildKind::PPrime, function)?;
    let f = session.p()?.function(fp);
    let tys: Option<Vec<FloatTy>> = f.params.iter().map(|p| p.ty.float_ty()).collect();
    let Some(tys) = tys.filter(|t| !t.is_empty() && f.params.iter().all(|p| !p.ty.is_vector()))
    else {
        return Err(InputError(format!(
            "the sampled oracle needs float parameters only; {} has others",
            f.display_name
        )));
    };
    let lens = vec![None; tys.len()];
    let native_p = session.native(BuildKind::P, fp, &lens)?;
    let native_q = session.native(BuildKind::PPrime, fq, &lens)?;
    let opts = RunOptions {
        ftz_daz: native_ftz(choice),
        ..RunOptions::default()
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut signatures: BTreeMap<Signature, Occurrence> = BTreeMap::new();
    let ret = f.ret;
    let observe = |o: &fpscout_native::NativeOutcome| {
        crate::observe::plain_observe(o, ret).map(|x| (x.flags, x.class))
    };
    let mut done = 0usize;
    while done < samples {
        let n = (samples - done).min(1 << 16);
        let inputs: Vec<Vec<u64>> = (0..n)
            .map(|_| {
                tys.iter()
                    .map(|t| match t {
                        FloatTy::F32 => u64::from(rng.gen::<u32>()),
                        FloatTy::F64 => rng.gen::<u64>(),
                    })
                    .collect()
            })
            .collect();
        let native: Vec<Vec<fpscout_native::NativeArg>> = inputs
            .iter()
            .map(|v| {
                v.iter()
                    .map(|&b| fpscout_native::NativeArg::Float(b))
                    .collect()
            })
            .collect();
        let (ps, qs) = std::thread::scope(|s| {
            let hp = s.spawn(|| native_p.run(&native, &opts));
            let hq = s.spawn(|| native_q.run(&native, &opts));
            (hp.join(), hq.join())
        });
        let (Ok(Ok(ps)), Ok(Ok(qs))) = (ps, qs) else {
            return Err(InputError("the sampled oracle's native runs failed".into()));
        };
        for ((input, p), q) in inputs.into_iter().zip(&ps).zip(&qs) {
            let (Some((pf, pc)), Some((qf, qc))) = (observe(p), observe(q)) else {
                continue;
            };
            signatures
                .entry((pf, qf, pc, qc))
                .and_modify(|o| o.count += 1)
                .or_insert(Occurrence {
                    count: 1,
                    witness: input,
                });
        }
        done += n;
        progress(done as u64, samples as u64);
    }
    Ok(Oracle {
        signatures,
        inputs: samples as u64,
        exhaustive: false,
        codes: Vec::new(),
    })
}

/// How a `diff` report compares with the oracle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recall {
    /// The oracle saw every input: `spurious` must then be empty. A sample may miss rare
    /// signatures `diff` finds.
    pub exhaustive: bool,
    /// Difference signatures that exist.
    pub existing: usize,
    /// Of those, the ones `diff` confirmed.
    pub found: usize,
    /// `found / existing` (1 when nothing exists).
    pub recall: f64,
    /// Existing signatures `diff` did not confirm, with how often they occur.
    pub missed: Vec<(Signature, Occurrence)>,
    /// Signatures `diff` confirmed that the oracle never saw (must be none when it is
    /// exhaustive).
    pub spurious: Vec<Signature>,
}

/// How many of the signatures the oracle saw are among `reported` (a search's
/// confirmed signatures, e.g. [`crate::diff::DiffReport::flag_or_class_signatures`]).
pub fn recall(oracle: &Oracle, reported: &[Signature]) -> Recall {
    let existing: Vec<(Signature, Occurrence)> =
        oracle.differences().map(|(s, o)| (*s, o.clone())).collect();
    let found = existing
        .iter()
        .filter(|(s, _)| reported.contains(s))
        .count();
    let missed = existing
        .iter()
        .filter(|(s, _)| !reported.contains(s))
        .cloned()
        .collect();
    let spurious = reported
        .iter()
        .filter(|s| !oracle.signatures.contains_key(s))
        .cloned()
        .collect();
    Recall {
        exhaustive: oracle.exhaustive,
        existing: existing.len(),
        found,
        recall: if existing.is_empty() {
            1.0
        } else {
            found as f64 / existing.len() as f64
        },
        missed,
        spurious,
    }
}
