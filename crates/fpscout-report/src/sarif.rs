//! SARIF 2.1.0 for any mode's findings: a rule per kind of finding, each result at its
//! source location with the witness inputs and the builds' runs in `properties`, the
//! exception traces as code flows, and a fingerprint that survives moved lines.

use crate::finding::{Finding, Rule};
use crate::ledger::{Keyed, SourceLines, SARIF_FINGERPRINT_KEY};
use fpscout_ir::SourceLoc;
use serde_json::{json, Value};
use std::collections::HashMap;

/// The SARIF version written, and where its schema lives.
pub const VERSION: &str = "2.1.0";
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// A SARIF log with one run of fpscout holding `findings`, fingerprinted from their
/// source files as they are now.
pub fn log(findings: &[Finding], tool_version: &str) -> Value {
    let mut sources = SourceLines::default();
    let keyed: Vec<Keyed> = findings.iter().map(|f| sources.key(f.clone())).collect();
    log_keyed(&keyed, tool_version)
}

/// A SARIF log of findings already fingerprinted (read from findings files, whose
/// sources may be elsewhere).
pub fn log_keyed(findings: &[Keyed], tool_version: &str) -> Value {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.id(),
                "name": rule_name(*r),
                "shortDescription": {"text": r.description()},
                "fullDescription": {"text": r.description()},
                "defaultConfiguration": {"level": "warning"},
                "help": {"text": format!("{} Each result carries the input that shows it (`properties.run_args`, replayable with `fpscout run --args`; `properties.replay` is the whole command, run from the directory fpscout ran in).", r.description())},
            })
        })
        .collect();
    let index: HashMap<Rule, usize> = Rule::ALL.iter().enumerate().map(|(i, r)| (*r, i)).collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|k| result(&k.finding, &k.fingerprint, index[&k.finding.rule]))
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "fpscout",
                "version": tool_version,
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// `fast-math-flags-differ` → `FastMathFlagsDiffer`.
fn rule_name(r: Rule) -> String {
    r.id()
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|first| first.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// A relative path stays a relative reference (resolved against the checkout, as code
/// scanning expects); an absolute one becomes a `file://` URI.
fn uri(file: &str) -> String {
    let file = file.replace('\\', "/");
    if file.starts_with('/') {
        format!("file://{file}")
    } else {
        file
    }
}

fn physical(loc: &SourceLoc) -> Value {
    let mut region = serde_json::Map::new();
    if loc.line > 0 {
        region.insert("startLine".into(), json!(loc.line));
        if loc.col > 0 {
            region.insert("startColumn".into(), json!(loc.col));
        }
    }
    let mut physical = json!({"artifactLocation": {"uri": uri(&loc.file)}});
    if !region.is_empty() {
        physical["region"] = Value::Object(region);
    }
    physical
}

fn result(f: &Finding, fingerprint: &str, rule_index: usize) -> Value {
    let locations: Vec<Value> = f
        .location
        .iter()
        .map(|l| json!({"physicalLocation": physical(l)}))
        .collect();
    let code_flows: Vec<Value> = f
        .runs
        .iter()
        .filter(|run| run.trace.iter().any(|s| s.location.is_some()))
        .map(|run| {
            let steps: Vec<Value> = run
                .trace
                .iter()
                .filter_map(|s| {
                    let loc = s.location.as_ref()?;
                    Some(json!({"location": {
                        "physicalLocation": physical(loc),
                        "message": {"text": s.message},
                    }}))
                })
                .collect();
            json!({
                "message": {"text": format!("build {}: {} (flags {})", run.build, run.outcome, run.flags)},
                "threadFlows": [{"locations": steps}],
            })
        })
        .collect();
    let mut properties = json!({
        "mode": f.mode,
        "function": f.function,
        "inputs": crate::args::inputs_json(&f.params, &f.input),
        "run_args": crate::args::run_args(&f.params, &f.input),
        "builds": f.runs,
        "also": f.also.iter().map(|r| r.id()).collect::<Vec<_>>(),
    });
    if let (Some(command), Value::Object(into)) = (&f.replay, &mut properties) {
        into.insert("replay".into(), Value::String(command.clone()));
    }
    let detail = serde_json::to_value(&f.detail).unwrap_or(Value::Null);
    if let (Value::Object(into), Value::Object(extra)) = (&mut properties, &detail) {
        for (k, v) in extra {
            into.insert(k.clone(), v.clone());
        }
    }
    let mut out = json!({
        "ruleId": f.rule.id(),
        "ruleIndex": rule_index,
        "level": "warning",
        "message": {"text": f.message},
        "partialFingerprints": {SARIF_FINGERPRINT_KEY: fingerprint},
        "properties": properties,
    });
    if !locations.is_empty() {
        out["locations"] = Value::Array(locations);
    }
    if !code_flows.is_empty() {
        out["codeFlows"] = Value::Array(code_flows);
    }
    out
}
