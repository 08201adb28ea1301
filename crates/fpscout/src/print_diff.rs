//! Printing of `fpscout diff` reports as text (`--json` records: `fpscout_search::records`).

use crate::listing::{left_out, Listing};
use fpscout_ir::FloatTy;
use fpscout_report::args::{decimal, hex_float};
use fpscout_report::replay::Replay;
use fpscout_search::attribution::{FileSafeFlags, SafeFlags};
use fpscout_search::diff::{DiffReport, Finding, Observation, ResultClass, Summary};
use fpscout_search::origin::{Origin, Phase};
use fpscout_search::run::{format_value, native_trace_records};
use fpscout_search::verdict::{coverage_text, diff_coverage, tally_reasons, Verdict};
use fpscout_walk::concrete::ArgBits;
use std::io::Write;

fn inputs_text(report: &DiffReport, input: &[ArgBits]) -> String {
    fpscout_report::args::inputs_text(&report.params, input)
}

fn trace_text(o: &Observation) -> String {
    if o.trace.events.is_empty() {
        return "none".into();
    }
    let text = native_trace_records(&o.trace)
        .iter()
        .map(|e| {
            // file:line:col → line:col (the file is the one being analysed).
            let at = e
                .loc
                .as_deref()
                .and_then(|l| {
                    l.rsplitn(3, ':')
                        .collect::<Vec<_>>()
                        .get(..2)
                        .map(|v| format!(" {}:{}", v[1], v[0]))
                })
                .unwrap_or_default();
            format!("{} {}{}", e.kind, e.insn, at)
        })
        .collect::<Vec<_>>();
    // A loop raising the same exception each iteration reads as one entry with a count.
    let mut runs: Vec<(String, usize)> = Vec::new();
    for entry in text {
        match runs.last_mut() {
            Some((last, n)) if *last == entry => *n += 1,
            _ => runs.push((entry, 1)),
        }
    }
    let mut text = runs
        .into_iter()
        .map(|(e, n)| if n > 1 { format!("{e} (×{n})") } else { e })
        .collect::<Vec<_>>()
        .join(", ");
    if o.trace.truncated {
        text.push_str(", ... (truncated)");
    }
    text
}

/// One finding in full: its kinds, status and origin, inputs, both builds' results, flags
/// and traces.
fn print_finding(
    out: &mut impl Write,
    report: &DiffReport,
    n: usize,
    x: &Finding,
    replay: &Replay,
) {
    let kinds: Vec<String> = x
        .kinds
        .iter()
        .map(|k| format!("{k:?}").to_lowercase())
        .collect();
    let origin = origin_text(&x.origin);
    let status = if x.confirmed {
        if x.ftz_only {
            "confirmed natively (FTZ/DAZ only: gone when both builds run without it)"
        } else {
            "confirmed natively"
        }
    } else {
        "NOT confirmed"
    };
    let _ = writeln!(out, "\n#{n} [{}] {status}; from {origin}", kinds.join(", "));
    if let Some(r) = &x.unconfirmed_reason {
        let _ = writeln!(out, "   reason: {r}");
    }
    let _ = writeln!(out, "   inputs: {}", inputs_text(report, &x.input));
    let _ = writeln!(
        out,
        "   replay: {}",
        replay.command(&report.summary.function, &report.params, &x.input)
    );
    let hang_ms = report.summary.hang_limit_ms;
    let res = |o: &Observation| match o.result {
        _ if o.class == ResultClass::Hang => {
            format!("does not terminate (killed after {hang_ms} ms)")
        }
        _ if o.end.is_some() => o.end.as_ref().map(|e| e.to_string()).unwrap_or_default(),
        Some(b) => {
            let (h, d) = format_value(b, report.ret);
            match d {
                Some(d) => format!("{d} ({h})"),
                None => h,
            }
        }
        None => "-".into(),
    };
    let _ = writeln!(out, "   {:<8} {:<44} P'", "", "P");
    let _ = writeln!(
        out,
        "   {:<8} {:<44} {}",
        "result",
        res(&x.p),
        res(&x.p_prime)
    );
    let _ = writeln!(
        out,
        "   {:<8} {:<44} {}",
        "flags", x.p.flags, x.p_prime.flags
    );
    // Traces get a line per build: they are as long as the program makes them.
    let _ = writeln!(out, "   {:<8} {}", "P trace", trace_text(&x.p));
    let _ = writeln!(out, "   {:<8} {}", "P' trace", trace_text(&x.p_prime));
    if let Some(note) = &x.fast_math_note {
        let _ = writeln!(out, "   {:<8} {note}", "note");
    }
    match (&x.attribution, &x.attribution_note) {
        (Some(a), _) => {
            let _ = writeln!(
                out,
                "   {:<8} {}",
                "cause",
                fpscout_search::attribution::needs_text(a, &x.attribution_alone)
            );
        }
        (None, Some(why)) => {
            let _ = writeln!(out, "   {:<8} not attributed: {why}", "cause");
        }
        (None, None) => {}
    }
    if let (Some(why), true) = (&x.model_unchecked, x.confirmed) {
        let _ = writeln!(
            out,
            "   {:<8} not replayed by the interpreter: {why}",
            "model"
        );
    } else if !x.model_agrees && x.confirmed {
        let _ = writeln!(
            out,
            "   {:<8} the interpreter disagrees with an executable here (the finding is \
             the executables')",
            "model"
        );
    }
    if let Some(u) = x.ulps {
        let _ = writeln!(out, "   {:<8} {u} ulps apart", "");
    }
    if let Some(r) = &x.reference {
        let loss = r.fast_math_loss();
        let verdict = match r.closer {
            "P'" => format!(
                "P' is closer: fast-math made it better by {} ulps",
                ulps_text(-loss)
            ),
            "P" => format!(
                "P is closer: fast-math made it worse by {} ulps",
                ulps_text(loss)
            ),
            _ => "equally close".to_string(),
        };
        let _ = writeln!(
            out,
            "   {:<8} {:e}: P {} ulps, P' {} ulps off; {verdict}",
            "exact",
            r.exact.0,
            ulps_text(r.p_ulps.0),
            ulps_text(r.p_prime_ulps.0)
        );
    }
}

/// A count of ulps: plainly up to a million, in scientific notation above.
fn ulps_text(ulps: f64) -> String {
    if ulps.abs() < 1e6 {
        let plain = format!("{ulps:.3}");
        plain
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{ulps:.3e}")
    }
}

/// `P overflow -inf / P' none finite`: what both builds did, as the summary counts it.
fn signature_text(x: &Finding) -> String {
    format!(
        "P {} {} / P' {} {}",
        x.p.flags,
        x.p.class.name(),
        x.p_prime.flags,
        x.p_prime.class.name()
    )
}

pub fn print_text(
    out: &mut impl Write,
    report: &DiffReport,
    show_unconfirmed: bool,
    listing: Listing,
    replay: &Replay,
) {
    let s = &report.summary;
    let _ = writeln!(out, "fpscout diff: {}", s.function);
    if let Some(r) = &s.reference {
        let _ = writeln!(
            out,
            "results compared with the mathematical function {r}, correctly rounded"
        );
    }
    // Findings keep their numbers (#n, as in the JSON order) and are listed by signature,
    // a few in full each: hundreds of findings share a handful of signatures.
    let mut groups: Vec<(String, Vec<(usize, &Finding)>)> = Vec::new();
    let listed = report
        .findings
        .iter()
        .filter(|x| x.confirmed || show_unconfirmed);
    for (i, x) in listed.enumerate() {
        let signature = signature_text(x);
        match groups.iter_mut().find(|g| g.0 == signature) {
            Some(group) => group.1.push((i + 1, x)),
            None => groups.push((signature, vec![(i + 1, x)])),
        }
    }
    // With a reference, the signatures where fast-math made the result worst come first.
    if report.summary.reference.is_some() {
        let loss = |g: &(String, Vec<(usize, &Finding)>)| {
            g.1.iter()
                .filter_map(|(_, x)| x.reference.as_ref().map(|r| r.fast_math_loss()))
                .fold(f64::NEG_INFINITY, f64::max)
        };
        groups.sort_by(|a, b| loss(b).total_cmp(&loss(a)));
        for group in &mut groups {
            group.1.sort_by(|(_, a), (_, b)| {
                let l = |x: &Finding| {
                    x.reference
                        .as_ref()
                        .map_or(f64::NEG_INFINITY, |r| r.fast_math_loss())
                };
                l(b).total_cmp(&l(a))
            });
        }
    }
    let n: usize = groups.iter().map(|g| g.1.len()).sum();
    if listing.quiet && n > 0 {
        let _ = writeln!(
            out,
            "\n{n} findings with {} signatures (--quiet: none listed; --json and --jsonl keep every one)",
            groups.len()
        );
    }
    let (mut shown, mut hidden, mut hidden_groups) = (0, 0, 0);
    let mut hidden_signatures = Vec::new();
    for (signature, members) in groups.iter().filter(|_| !listing.quiet) {
        if shown >= listing.max_findings {
            hidden += members.len();
            hidden_groups += 1;
            hidden_signatures.push(format!("   {} × {signature}", members.len()));
            continue;
        }
        let attributions =
            fpscout_search::diff::distinct_attributions(members.iter().map(|(_, x)| *x));
        let needs: String = attributions
            .iter()
            .map(|a| {
                let names: Vec<&str> = a.needs.iter().map(String::as_str).collect();
                let alone: Vec<&str> = a.or_alone.iter().map(String::as_str).collect();
                let text = fpscout_search::attribution::needs_text(&names, &alone);
                if attributions.len() > 1 {
                    format!("; {text} ({})", a.findings)
                } else {
                    format!("; {text}")
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "\n== {} {} with signature {signature}{needs}",
            members.len(),
            if members.len() == 1 {
                "finding"
            } else {
                "findings"
            }
        );
        // One witness in full per signature: hundreds of findings share a few.
        let take = 1.min(listing.max_findings - shown);
        for (k, x) in members.iter().take(take) {
            print_finding(out, report, *k, x, replay);
            shown += 1;
        }
        if members.len() > take {
            let _ = writeln!(
                out,
                "   … {} more with this signature",
                members.len() - take
            );
        }
    }
    let what = format!("findings with {hidden_groups} more signatures");
    if let Some(line) = left_out(hidden, &what) {
        let _ = writeln!(out, "\n{line}:");
        for signature in &hidden_signatures {
            let _ = writeln!(out, "{signature}");
        }
    }
    if n == 0 {
        let _ = writeln!(out, "\nno confirmed difference between P and P'.");
        match report.verdict() {
            Verdict::Unknown => {
                let _ = writeln!(
                    out,
                    "unknown: the solver could not walk every path of P or P' (see coverage)."
                );
            }
            Verdict::Unmeasured => {
                let _ = writeln!(out, "nothing measured: no input ran on both builds.");
            }
            Verdict::Clean | Verdict::Found => {}
        }
    }
    for input in &report.non_terminating {
        let _ = writeln!(
            out,
            "\ndoes not terminate in either build (both executables killed after {} ms, twice): {}",
            s.hang_limit_ms,
            inputs_text(report, input)
        );
    }
    print_table(out, s);
    if let Some(safe) = &s.safe_flags {
        let _ = writeln!(
            out,
            "\nsafe flags: {} ({}{}; {})",
            safe.command,
            turned_off_text(safe),
            if safe.verified {
                ", checked natively"
            } else {
                ", NOT confirmed: a witness still differs under it"
            },
            safe.searched
        );
    }
    if let Some(r) = &s.recall {
        let _ = writeln!(
            out,
            "\nrecall against {}: {} of {} difference signatures ({:.0} %)",
            if r.exhaustive {
                "every input"
            } else {
                "a sample of the inputs"
            },
            r.found,
            r.existing,
            r.recall * 100.0
        );
        for (sig, o) in &r.missed {
            let _ = writeln!(
                out,
                "   missed: P {} {}, P' {} {} ({} inputs, e.g. bits {:x?})",
                sig.0,
                sig.2.name(),
                sig.1,
                sig.3.name(),
                o.count,
                o.witness
            );
        }
        for sig in &r.spurious {
            let _ = writeln!(
                out,
                "   reported but never seen{}: P {} {}, P' {} {}",
                if r.exhaustive { "" } else { " in the sample" },
                sig.0,
                sig.2.name(),
                sig.1,
                sig.3.name()
            );
        }
    }
    if let Some(w) = &s.worst {
        let ft = report.ret.float_ty().unwrap_or(FloatTy::F64);
        let _ = writeln!(
            out,
            "\nlargest divergence: {} ulps at {}",
            w.ulps,
            inputs_text(report, &w.input)
        );
        let _ = writeln!(
            out,
            "   replay: {}",
            replay.command(&s.function, &report.params, &w.input)
        );
        let _ = writeln!(out, "   P  = {} ({})", decimal(w.p, ft), hex_float(w.p, ft));
        let _ = writeln!(
            out,
            "   P' = {} ({})",
            decimal(w.p_prime, ft),
            hex_float(w.p_prime, ft)
        );
        match (&w.exact, w.closer) {
            (Some(e), Some(c)) => {
                let _ = writeln!(out, "   exact = {e}; closer: {c}");
            }
            _ => {
                let _ = writeln!(
                    out,
                    "   exact value not available (the function is not rational)"
                );
            }
        }
    }
    let _ = writeln!(out, "\n{}", coverage_text(&diff_coverage(s)));
    if !s.stopped.is_empty() {
        // The same limit met on many paths reads as one entry with a count.
        let limits: Vec<String> = tally_reasons(s.stopped.iter().cloned())
            .into_iter()
            .map(|r| match r.count {
                1 => r.reason,
                n => format!("{} ({n} times)", r.reason),
            })
            .collect();
        let _ = writeln!(out, "limits reached: {}", limits.join("; "));
    }
}

pub fn print_table(out: &mut impl Write, s: &Summary) {
    let _ = writeln!(
        out,
        "\n{:<16} {:>11} {:>11} {:>9} {:>8} {:>7} {:>9} {:>11} {:>10} {:>8}",
        "function",
        "constraints",
        "(P, P')",
        "sat",
        "unknown",
        "inputs",
        "diff",
        "unconfirmed",
        "signatures",
        "wall s"
    );
    let _ = writeln!(
        out,
        "{:<16} {:>11} {:>11} {:>9} {:>8} {:>7} {:>9} {:>11} {:>10} {:>8.2}",
        s.function,
        s.unique_constraints,
        format!("({}, {})", s.constraints_p, s.constraints_pprime),
        s.satisfiable,
        s.unknown,
        s.unique_inputs,
        s.diff_confirmed,
        s.diff_unconfirmed,
        s.signatures,
        s.wall_seconds
    );
    let ph = &s.phases;
    let _ = writeln!(
        out,
        "phases (s): compile {:.2}, collect {:.2}, solve {:.2}, float solver {:.2}, search {:.2} (of which sweep {:.2}), random {:.2} ({} inputs), confirm {:.2}; paths P {} P' {}",
        ph.compile, ph.collect, ph.solve, ph.refine, ph.search, ph.sweep, ph.random, s.random_inputs, ph.confirm, s.paths_p, s.paths_pprime
    );
    let _ = writeln!(
        out,
        "compiling: {:.2} s spent ({} steps from the compile cache, {} compiled)",
        s.compile_seconds, s.cache_hits, s.cache_misses
    );
    let _ = writeln!(
        out,
        "signatures only the solver phase reached: {}",
        s.solver_only_signatures
    );
    if !s.signature_inputs.is_empty() {
        let seen: Vec<String> = s
            .signature_inputs
            .iter()
            .map(|c| {
                format!(
                    "P {} {} / P' {} {}: {}{}",
                    c.p_flags,
                    c.p_class.name(),
                    c.p_prime_flags,
                    c.p_prime_class.name(),
                    c.inputs,
                    if c.confirmed {
                        ""
                    } else {
                        " (no confirmed finding)"
                    }
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "inputs tried per signature (rarest first): {}",
            seen.join("; ")
        );
    }
    if !s.backend_rewrites_pprime.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            backend_rewrite_note(
                "P'",
                &s.backend_rewrites_pprime,
                "such differences are left unconfirmed, never reported as findings"
            )
        );
    }
    if s.float_solver_targets > 0 {
        let _ = writeln!(
            out,
            "float solver: {} exception condition(s) no Z3 model raised; {} solution(s) searched around; {} proved raised by no float input within the loop bound",
            s.float_solver_targets, s.float_solver_candidates, s.float_solver_infeasible
        );
    }
    if s.not_attempted > 0 {
        let _ = writeln!(
            out,
            "queries left unsolved (the solve budget of {:.1} s ran out, or differential queries were given up: see the limits; raise it with --solve-budget): {}",
            s.solve_budget_s, s.not_attempted
        );
    }
}

/// Why the interpreter's values of a build may differ from its executable's.
pub fn backend_rewrite_note(build: &str, rewrites: &[String], consequence: &str) -> String {
    format!(
        "note: in {build}, LLVM's backend rewrote floating-point operations after instruction \
         selection (MachineCombiner reassociation or commuted min/max) in a way fpscout could \
         not carry into the IR, in: {}. Its {build} values there may differ from the \
         executable's; {consequence}.",
        rewrites.join("; ")
    )
}

/// How the text report says where an input came from.
fn origin_text(origin: &Origin) -> String {
    let solved = |what: &str, from: &str| {
        origin.aim.map_or(what.to_string(), |a| {
            format!(
                "{what}: {} condition of {} op#{}, {} step(s) from {from}",
                a.kind.name(),
                a.build.label(),
                a.op,
                a.steps
            )
        })
    };
    match origin.phase {
        Phase::Z3 => solved("solver", "the model"),
        Phase::Fallback => solved("fallback solver", "the model"),
        Phase::FloatSolver => solved("float solver", "its solution"),
        Phase::Random => "random phase".into(),
        Phase::Sweep => "sweep over the input space".into(),
        Phase::Seed => "seed inputs (special values, the function's constants)".into(),
    }
}

/// The file's safe flag set of a whole-file run, in words: one line, before the total.
pub(crate) fn file_safe_flags_text(file: &FileSafeFlags) -> String {
    let safe = &file.set;
    let mut text = format!(
        "safe flags for the file: {} ({}",
        safe.command,
        turned_off_text(safe)
    );
    if safe.verified {
        text.push_str(", checked natively on every function's witnesses");
    }
    if !file.still_differ.is_empty() {
        text.push_str(&format!(
            ", NOT confirmed: a witness of {} still differs under it",
            file.still_differ.join(", ")
        ));
    }
    if !file.without_set.is_empty() {
        text.push_str(&format!(
            ", says nothing of {} (differences without an attribution)",
            file.without_set.join(", ")
        ));
    }
    text.push_str(&format!("; {})\n", safe.searched));
    text
}

/// What a safe set turns off, in words.
fn turned_off_text(safe: &SafeFlags) -> String {
    if safe.disabled.is_empty() {
        "every fast-math sub-option kept".to_string()
    } else {
        format!("turns off {}", safe.disabled.join(", "))
    }
}
