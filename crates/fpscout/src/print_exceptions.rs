//! Printing of `fpscout exceptions` reports as text (`--json` records: `fpscout_search::records`).

use crate::listing::{left_out, Listing};
use fpscout_report::args::inputs_text;
use fpscout_report::replay::Replay;
use fpscout_search::exceptions::{ExceptionFinding, ExceptionsReport, Summary};
use fpscout_search::run::format_value;
use fpscout_search::verdict::{coverage_text, exceptions_coverage, tally_reasons, Verdict};
use std::collections::HashSet;
use std::io::Write;

fn location(x: &ExceptionFinding) -> String {
    x.location
        .as_ref()
        .map_or("(no source line)".to_string(), |l| l.to_string())
}

/// The one-line summary of a function, as the whole-library run prints it.
pub fn summary_line(s: &Summary) -> String {
    format!(
        "{:<32} {:>3}/{:<5} {:>3} avoidable  targets {:>3}/{:<3}  z3 {}/{}/{}  fallback {}/{}  {:.1} s",
        s.function,
        s.locations,
        s.pairs,
        s.avoidable,
        s.targets_confirmed,
        s.targets,
        s.queries.z3_sat,
        s.queries.z3_unsat,
        s.queries.z3_unknown,
        s.queries.fallback_sat,
        s.queries.fallback_unknown,
        s.wall_seconds
    )
}

/// The report of one function: findings by location and kind (a few witnesses each, at
/// most `listing.max_findings` of them), the coverage line, then the counts.
pub fn print_text(
    out: &mut impl Write,
    report: &ExceptionsReport,
    listing: Listing,
    replay: &Replay,
) {
    let s = &report.summary;
    let _ = writeln!(
        out,
        "exceptions of {} (build {}, {} paths, loop bound {}{})",
        s.function,
        s.build,
        s.paths,
        s.loop_bound,
        if s.integers.is_empty() {
            String::new()
        } else {
            format!(", integers {}", s.integers.join(" "))
        }
    );
    match report.verdict() {
        Verdict::Found => {}
        Verdict::Clean => {
            let _ = writeln!(out, "  none found within these bounds");
        }
        Verdict::Unknown => {
            let _ = writeln!(
                out,
                "  none found, but unknown: the solver could not walk every path (see coverage)"
            );
        }
        Verdict::Unmeasured => {
            let _ = writeln!(
                out,
                "  nothing measured: no run of the executable completed"
            );
        }
    }
    if listing.quiet && !report.findings.is_empty() {
        let _ = writeln!(
            out,
            "  {} findings at {} locations (--quiet: none listed; --json and --jsonl keep every one)",
            report.findings.len(),
            s.locations
        );
    }
    let shown = if listing.quiet {
        0
    } else {
        listing.max_findings.min(report.findings.len())
    };
    for x in &report.findings[..shown] {
        let class = x.class.describe();
        let _ = writeln!(
            out,
            "  {}  {} {}{}{}{}",
            location(x),
            x.operation,
            x.kind.name(),
            if class.is_empty() {
                String::new()
            } else {
                format!(" ({class})")
            },
            x.in_function
                .as_ref()
                .filter(|n| **n != s.function)
                .map(|n| format!(" in {n}"))
                .unwrap_or_default(),
            // The machine instruction the executable's trace names, when it is not the
            // operation's own name.
            if x.instruction.is_empty() || x.instruction == x.operation {
                String::new()
            } else {
                format!(" [{}]", x.instruction)
            }
        );
        for w in x.witnesses.iter().take(listing.per_group) {
            let result = w
                .result
                .map(|b| format_value(b, report.ret).0)
                .unwrap_or_else(|| format!("{:?}", w.class).to_lowercase());
            let _ = writeln!(
                out,
                "      {} -> {} [{}]",
                inputs_text(&report.params, &w.input),
                result,
                w.source.name(),
            );
            let _ = writeln!(
                out,
                "        replay: {}",
                replay.command(&s.function, &report.params, &w.input)
            );
        }
        if x.inputs_seen > x.witnesses.len().min(listing.per_group) {
            let _ = writeln!(out, "      ({} inputs raised it in all)", x.inputs_seen);
        }
    }
    let hidden = &report.findings[shown..];
    if !listing.quiet {
        let locations: HashSet<_> = hidden.iter().map(|x| &x.location).collect();
        let what = format!("findings at {} locations", locations.len());
        if let Some(line) = left_out(hidden.len(), &what) {
            let _ = writeln!(out, "  {line}");
        }
    }
    let avoidable = match &s.reference {
        Some(r) => format!(
            "{} spurious (the mathematical function {r} is an ordinary number where they were raised)",
            s.avoidable
        ),
        None => format!("{} potentially avoidable", s.avoidable),
    };
    let _ = writeln!(
        out,
        "x/y: {}/{} (operation locations / (input, location) pairs); {} findings, {avoidable}",
        s.locations, s.pairs, s.findings
    );
    let _ = writeln!(out, "{}", coverage_text(&exceptions_coverage(s)));
    let _ = writeln!(
        out,
        "targets: {} (operation, kind) pairs over {} conditions; {} raised at their operation{}",
        s.targets,
        s.conditions,
        s.targets_confirmed,
        if s.targets_raised_by.is_empty() {
            String::new()
        } else {
            format!(
                " (by {})",
                s.targets_raised_by
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    let q = &s.queries;
    let _ = writeln!(
        out,
        "queries: Z3 {} sat, {} unsat, {} unknown; fallback {} sat, {} unknown; {} skipped (already raised), {} not attempted",
        q.z3_sat, q.z3_unsat, q.z3_unknown, q.fallback_sat, q.fallback_unknown, q.already_witnessed, q.not_attempted
    );
    let r = &s.float_solver;
    if r.targets > 0 {
        let _ = writeln!(
            out,
            "float solver on the targets still missed: {} asked, {} witnessed, {} proved infeasible, {} unknown",
            r.targets, r.witnessed, r.infeasible, r.unknown
        );
        for proof in &r.proofs {
            let _ = writeln!(out, "  proved: {proof}");
        }
        // Hundreds of targets may stay open for one reason: a line per reason.
        for open in &r.open_reasons {
            let _ = writeln!(out, "  {}", open.text("open"));
        }
    }
    for (reason, n) in &s.failed_candidates {
        let _ = writeln!(out, "candidates that failed: {n} {reason}");
    }
    for why in tally_reasons(s.stopped.iter().cloned()) {
        match why.count {
            1 => {
                let _ = writeln!(out, "stopped: {}", why.reason);
            }
            n => {
                let _ = writeln!(out, "stopped ({n} times): {}", why.reason);
            }
        }
    }
    let p = &s.phases;
    let _ = writeln!(
        out,
        "time: {:.1} s (compile {:.1}, collect {:.1}, solve {:.1}, search {:.1}, float solver {:.1}, random {:.1}, confirm {:.1}); {} native runs, {} traced",
        s.wall_seconds, p.compile, p.collect, p.solve, p.search, p.refine, p.random, p.confirm, s.native_runs, s.traced_runs
    );
    let _ = writeln!(
        out,
        "compiling: {:.2} s spent ({} steps from the compile cache, {} compiled)",
        s.compile_seconds, s.cache_hits, s.cache_misses
    );
}
