//! The static HTML report of a [`Report`]: a sortable index with totals per mode, function and kind, and a page per function with its source, findings, witnesses, traces and plots.

use crate::ledger::{Merged, SourceLines};
use crate::report::{mode_name, status_name, unfinished_text, Report, Status};
use crate::InputError;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Escapes text for HTML element content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The page of `function`: a file name that is safe on any file system and unique per
/// function (C++ names carry `:`, `<` and spaces).
pub fn page_name(function: &str) -> String {
    let safe: String = function
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    let hash = function.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("fn-{safe}-{:08x}.html", hash as u32)
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;max-width:80em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
th[data-sort]{cursor:pointer;background:#eef}th[data-sort]:after{content:' \\2195';color:#88a}
.new{color:#b00;font-weight:bold}.known{color:#666}
.src td{font-family:monospace;white-space:pre;border:none;padding:0 .5em}.src .flagged{background:#ffe3e3}
.kind{display:inline-block;background:#d62728;color:#fff;border-radius:3px;padding:0 .3em;margin-left:.3em;font-family:sans-serif;font-size:80%}
.traces{display:flex;gap:1em}.traces>div{flex:1}code,.cmd{font-family:monospace}.cmd{width:100%}
figure.plot{margin:1em 0}figure.plot svg{max-width:100%;height:auto}";

/// Sorts a table by the clicked column (numbers as numbers), and by `#sort=COLUMN` in
/// the address, so a sorted view can be linked to.
const SORT_SCRIPT: &str = "function sortTable(table,col,desc){
var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=a.cells[col].getAttribute('data-key')||a.cells[col].textContent;
var y=b.cells[col].getAttribute('data-key')||b.cells[col].textContent;
var nx=parseFloat(x),ny=parseFloat(y);var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);
return desc?-c:c;});rows.forEach(function(r){body.appendChild(r);});
table.setAttribute('data-sorted-by',table.tHead.rows[0].cells[col].getAttribute('data-sort')+(desc?'-desc':''));}
function columnOf(table,name){var cells=table.tHead.rows[0].cells;
for(var i=0;i<cells.length;i++){if(cells[i].getAttribute('data-sort')===name)return i;}return -1;}
document.querySelectorAll('table.sortable').forEach(function(table){
Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){
if(!th.hasAttribute('data-sort'))return;
th.addEventListener('click',function(){var now=table.getAttribute('data-sorted-by');
sortTable(table,i,now===th.getAttribute('data-sort'));});});});
var wanted=/sort=([a-z-]+)/.exec(location.hash);
if(wanted){var name=wanted[1].replace(/-desc$/,'');var desc=/-desc$/.test(wanted[1]);
document.querySelectorAll('table.sortable').forEach(function(t){var c=columnOf(t,name);if(c>=0)sortTable(t,c,desc);});}";

fn page(title: &str, body: &str, script: bool) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head>\n<body>\n{body}{}</body></html>\n",
        esc(title),
        if script {
            format!("<script>{SORT_SCRIPT}</script>\n")
        } else {
            String::new()
        }
    )
}

/// Writes `dir/index.html` and a page per function with findings.
pub fn write(dir: &Path, report: &Report) -> Result<(), InputError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| InputError(format!("--html {}: cannot create it: {e}", dir.display())))?;
    let mut by_function: BTreeMap<&str, Vec<&(Merged, Status)>> = BTreeMap::new();
    for item in &report.findings {
        by_function
            .entry(item.0.keyed.finding.function.as_str())
            .or_default()
            .push(item);
    }
    let put = |name: &str, text: String| {
        std::fs::write(dir.join(name), text)
            .map_err(|e| InputError(format!("cannot write {}: {e}", dir.join(name).display())))
    };
    put("index.html", index(report, &by_function))?;
    let mut sources = SourceLines::default();
    for (function, items) in &by_function {
        put(
            &page_name(function),
            function_page(function, items, &mut sources),
        )?;
    }
    Ok(())
}

fn totals_table(title: &str, rows: &BTreeMap<String, (usize, usize)>, link: bool) -> String {
    let mut out = format!(
        "<table class=\"sortable totals\" id=\"by-{}\"><thead><tr><th data-sort=\"name\">{}</th><th data-sort=\"findings\">findings</th><th data-sort=\"new\">new</th></tr></thead><tbody>\n",
        esc(title),
        esc(title)
    );
    for (name, (n, new)) in rows {
        let cell = if link {
            format!("<a href=\"{}\">{}</a>", page_name(name), esc(name))
        } else {
            esc(name)
        };
        let _ = writeln!(out, "<tr><td>{cell}</td><td>{n}</td><td>{new}</td></tr>");
    }
    out + "</tbody></table>\n"
}

fn index(report: &Report, by_function: &BTreeMap<&str, Vec<&(Merged, Status)>>) -> String {
    let mut body = String::from("<h1>fpscout report</h1>\n");
    let _ = writeln!(body, "<p id=\"total\">{}</p>", esc(&report.total_text()));
    for u in &report.unfinished {
        let _ = writeln!(
            body,
            "<p class=\"new unfinished\">{}</p>",
            esc(&unfinished_text(u))
        );
    }
    for p in &report.problems {
        let _ = writeln!(body, "<p class=\"new problem\">{}</p>", esc(p));
    }
    let mut modes: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut functions: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut kinds: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (m, status) in &report.findings {
        let f = &m.keyed.finding;
        let new = usize::from(*status == Status::New);
        for (map, key) in [
            (&mut modes, mode_name(f.mode)),
            (&mut functions, f.function.clone()),
            (&mut kinds, f.rule.id().to_string()),
        ] {
            let e = map.entry(key).or_default();
            e.0 += 1;
            e.1 += new;
        }
    }
    body += "<h2>Totals</h2>\n<div class=\"traces\"><div>";
    body += &totals_table("mode", &modes, false);
    body += "</div><div>";
    body += &totals_table("function", &functions, true);
    body += "</div><div>";
    body += &totals_table("kind", &kinds, false);
    body += "</div></div>\n<h2>Findings</h2>\n";
    body += "<table class=\"sortable\" id=\"findings\"><thead><tr><th data-sort=\"mode\">mode</th><th data-sort=\"function\">function</th><th data-sort=\"kind\">kind</th><th data-sort=\"location\">location</th><th data-sort=\"status\">status</th><th>witness</th><th>fingerprint</th></tr></thead><tbody>\n";
    for (function, items) in by_function {
        for (m, status) in items {
            let f = &m.keyed.finding;
            let location = f.location.as_ref().map_or(String::new(), |l| {
                format!(
                    "{}:{}:{}",
                    l.file.rsplit('/').next().unwrap_or(&l.file),
                    l.line,
                    l.col
                )
            });
            let _ = writeln!(
                body,
                "<tr><td>{}</td><td><a href=\"{}#{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td><code>{}</code></td><td><code>{}</code></td></tr>",
                esc(&mode_name(f.mode)),
                page_name(function),
                esc(&m.keyed.fingerprint),
                esc(function),
                esc(f.rule.id()),
                esc(&location),
                status_name(*status).to_lowercase(),
                status_name(*status),
                esc(&crate::args::inputs_text(&f.params, &f.input)),
                esc(&m.keyed.fingerprint),
            );
        }
    }
    body += "</tbody></table>\n";
    page("fpscout report", &body, true)
}

/// Anchors of the source lines shown on a page, by file and line.
type Anchors = std::collections::HashMap<(String, u32), String>;

/// The source lines around the flagged ones and those the traces pass: the file when it
/// can be read, else the flagged lines as they read when found.
fn source_listing(items: &[&(Merged, Status)], sources: &mut SourceLines) -> (String, Anchors) {
    // The kinds flagged on each line, and the line's text as found.
    type Flags<'a> = (Vec<&'a str>, Option<&'a str>);
    let mut flagged: BTreeMap<(String, u32), Flags> = BTreeMap::new();
    let mut passed: std::collections::BTreeSet<(String, u32)> = Default::default();
    for (m, _) in items {
        let f = &m.keyed.finding;
        if let Some(loc) = &f.location {
            let e = flagged.entry((loc.file.clone(), loc.line)).or_default();
            e.0.push(f.rule.id());
            e.1 = m.keyed.line_text.as_deref();
        }
        for step in f.runs.iter().flat_map(|r| &r.trace) {
            if let Some(loc) = step.location.as_ref().filter(|l| l.line > 0) {
                passed.insert((loc.file.clone(), loc.line));
            }
        }
    }
    let mut out = String::new();
    let mut anchors = Anchors::new();
    let mut files: Vec<String> = flagged
        .keys()
        .map(|(f, _)| f.clone())
        .chain(passed.iter().map(|(f, _)| f.clone()))
        .collect();
    files.sort();
    files.dedup();
    for (file_index, file) in files.iter().enumerate() {
        let text = sources.file(file).map(<[String]>::to_vec);
        let wanted: Vec<u32> = flagged
            .keys()
            .chain(&passed)
            .filter(|(f, _)| f == file)
            .map(|(_, l)| *l)
            .collect();
        let shown: Vec<u32> = match &text {
            Some(all) => {
                let first = wanted.iter().min().copied().unwrap_or(1);
                let last = wanted.iter().max().copied().unwrap_or(1);
                (first.saturating_sub(5).max(1)..=(last + 5).min(all.len() as u32)).collect()
            }
            None => flagged
                .keys()
                .filter(|(f, _)| f == file)
                .map(|(_, l)| *l)
                .collect(),
        };
        if shown.is_empty() {
            continue;
        }
        let _ = writeln!(out, "<h3>{}</h3>\n<table class=\"src\">", esc(file));
        for n in shown {
            let anchor = format!("F{file_index}L{n}");
            anchors.insert((file.clone(), n), anchor.clone());
            let key = (file.clone(), n);
            let line = text
                .as_ref()
                .and_then(|all| all.get(n as usize - 1).cloned())
                .or_else(|| flagged.get(&key).and_then(|e| e.1.map(str::to_string)))
                .unwrap_or_default();
            let (class, badges) = match flagged.get(&key) {
                Some((kinds, _)) => {
                    let mut kinds = kinds.clone();
                    kinds.sort();
                    kinds.dedup();
                    let badges: String = kinds
                        .iter()
                        .map(|k| format!("<span class=\"kind\">{}</span>", esc(k)))
                        .collect();
                    (" class=\"flagged\"", badges)
                }
                None => ("", String::new()),
            };
            let _ = writeln!(
                out,
                "<tr{class} id=\"{anchor}\"><td>{n}</td><td>{}</td><td>{badges}</td></tr>",
                esc(&line)
            );
        }
        out += "</table>\n";
    }
    (out, anchors)
}

/// A link to a source line when the page shows it, else its plain text.
fn line_link(anchors: &Anchors, loc: &fpscout_ir::SourceLoc, text: &str) -> String {
    match anchors.get(&(loc.file.clone(), loc.line)) {
        Some(anchor) => format!("<a href=\"#{anchor}\">{}</a>", esc(text)),
        None => esc(text),
    }
}

fn function_page(function: &str, items: &[&(Merged, Status)], sources: &mut SourceLines) -> String {
    let mut body = format!(
        "<p><a href=\"index.html\">&larr; all findings</a></p>\n<h1>{}</h1>\n",
        esc(function)
    );
    body += "<h2>Source</h2>\n";
    let (listing, anchors) = source_listing(items, sources);
    body += &listing;
    let merged: Vec<&Merged> = items.iter().map(|(m, _)| m).collect();
    let plots = crate::plots::for_function(&merged);
    if !plots.is_empty() {
        body += "<h2>Plots</h2>\n";
    }
    for plot in &plots {
        let _ = writeln!(
            body,
            "<figure class=\"plot\" data-plot=\"{}\"><figcaption>{}</figcaption>{}</figure>",
            esc(&plot.id),
            esc(&plot.title),
            // plotters writes an XML declaration-free <svg>: it embeds as is.
            plot.svg
        );
    }
    body += "<h2>Findings</h2>\n";
    for (m, status) in items {
        let f = &m.keyed.finding;
        let badge = match status {
            Status::Found => String::new(),
            _ => format!(
                " <span class=\"{}\">{}</span>",
                status_name(*status).to_lowercase(),
                status_name(*status)
            ),
        };
        let _ = writeln!(
            body,
            "<section class=\"finding\" id=\"{}\"><h3>{}{badge}</h3><p>{}</p>",
            esc(&m.keyed.fingerprint),
            esc(f.rule.id()),
            esc(&f.message)
        );
        if let Some(loc) = &f.location {
            let _ = writeln!(
                body,
                "<p>at {}</p>",
                line_link(&anchors, loc, &loc.to_string())
            );
        }
        body += "<table class=\"witness\"><tr><th>parameter</th><th>hex</th><th>decimal</th></tr>";
        for item in crate::args::inputs_json(&f.params, &f.input)
            .as_array()
            .into_iter()
            .flatten()
        {
            let name = item["name"].as_str().unwrap_or("?");
            let shown = |v: &serde_json::Value, key: &str| {
                v.get(key)
                    .map(|x| x.as_str().map_or(x.to_string(), str::to_string))
                    .unwrap_or_default()
            };
            let values: Vec<&serde_json::Value> = match item.get("values") {
                Some(vs) => vs
                    .as_array()
                    .map(|a| a.iter().collect())
                    .unwrap_or_default(),
                None => vec![&item["value"]],
            };
            let hex: Vec<String> = values.iter().map(|v| shown(v, "hex")).collect();
            let dec: Vec<String> = values
                .iter()
                .map(|v| {
                    let d = shown(v, "decimal");
                    if d.is_empty() {
                        shown(v, "int")
                    } else {
                        d
                    }
                })
                .collect();
            let _ = write!(
                body,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                esc(name),
                esc(&hex.join(", ")),
                esc(&dec.join(", "))
            );
        }
        body += "</table>\n";
        // The command of the run that found it: every source and flag, as typed there.
        // Findings files of older versions carry none; a guessed command would not replay.
        if let Some(command) = &f.replay {
            let _ = writeln!(
                body,
                "<p>replay (from the directory fpscout ran in): <input class=\"cmd\" readonly value=\"{}\" onclick=\"this.select()\"></p>",
                esc(command)
            );
        }
        let more = m.more_inputs();
        if !more.is_empty() {
            let _ = write!(
                body,
                "<p>more witnesses ({} in all):</p><ul>",
                m.others.len() + 1
            );
            for input in &more {
                let _ = write!(
                    body,
                    "<li><code>{}</code></li>",
                    esc(&crate::args::inputs_text(&f.params, input))
                );
            }
            body += "</ul>\n";
        }
        body += "<div class=\"traces\">";
        for run in &f.runs {
            let _ = write!(
                body,
                "<div class=\"trace\"><h4>build {}: {} (flags {})</h4><ol>",
                esc(&run.build),
                esc(&run.outcome),
                esc(&run.flags.to_string())
            );
            for step in &run.trace {
                let place = step.location.as_ref().map_or(String::new(), |l| {
                    format!(" {}", line_link(&anchors, l, &format!("line {}", l.line)))
                });
                let _ = write!(body, "<li>{}{place}</li>", esc(&step.message));
            }
            body += "</ol></div>";
        }
        body += "</div></section>\n";
    }
    page(function, &body, false)
}
