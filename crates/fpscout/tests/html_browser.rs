//! The HTML report in a real browser: headless Chromium loads every page from disk and the test checks there are no console messages, every plot is drawn, the sort works and every link lands on a page and an element that exist.

mod common;

use common::cli::{records, run, write};
use scraper::{Html, Selector};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Debian's `chromium` (scripts/setup.sh installs it), or FPSCOUT_CHROMIUM.
fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("FPSCOUT_CHROMIUM") {
        return PathBuf::from(path);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "this test needs headless Chromium: install Debian's chromium package (scripts/setup.sh does) or set FPSCOUT_CHROMIUM to a Chromium binary"
            )
        })
}

/// A page as the browser built it after its scripts ran, and what it logged to the
/// console (Chromium writes console messages to stderr as `INFO:CONSOLE...`).
struct Loaded {
    dom: Html,
    console: Vec<String>,
}

fn load(browser: &Path, url: &str) -> Loaded {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish loading {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (dom, log) = (out.join().unwrap(), err.join().unwrap());
    assert!(dom.contains("<html"), "no DOM for {url}: {log}");
    Loaded {
        dom: Html::parse_document(&dom),
        console: log
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_string)
            .collect(),
    }
}

fn select<'a>(dom: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    dom.select(&Selector::parse(css).unwrap()).collect()
}

fn text(e: &scraper::ElementRef) -> String {
    e.text().collect::<String>()
}

/// The column `index` of every row of the findings table, in page order.
fn column(dom: &Html, index: usize) -> Vec<String> {
    select(dom, "table#findings tbody tr")
        .iter()
        .map(|row| text(&select_in(row, "td")[index]))
        .collect()
}

fn select_in<'a>(e: &scraper::ElementRef<'a>, css: &str) -> Vec<scraper::ElementRef<'a>> {
    e.select(&Selector::parse(css).unwrap()).collect()
}

#[test]
fn the_report_loads_cleanly_draws_its_plots_sorts_and_links() {
    let browser = chromium();
    let dir = tempfile::tempdir().unwrap();
    let lib = write(
        dir.path(),
        "lib.c",
        "double av(double x, double y) { return (x + y) / 2.0; }\ndouble ratio(double a, double b) {\n  return a / b;\n}\n",
    );
    let shift = write(
        dir.path(),
        "shift.c",
        "double shift(double x) {\n  return (x + 1e308) - 1e308;\n}\n",
    );
    let file = |name: &str| dir.path().join(name).display().to_string();
    let quick = ["--random", "2000", "--time-budget", "20", "--jobs", "1"];
    let exceptions = run(&[
        &["exceptions", &lib, "--jsonl", &file("e.jsonl")][..],
        &quick,
    ]
    .concat());
    assert_eq!(exceptions.code, 1, "{}", exceptions.stderr);
    // A mode's own --html goes through the same writer as report's.
    let diff = run(&[
        &["diff", &shift, "-f", "shift", "--jsonl", &file("d.jsonl")][..],
        &["--html", &file("diff-html")],
        &quick,
    ]
    .concat());
    assert_eq!(diff.code, 1, "{}", diff.stderr);
    assert!(Path::new(&file("diff-html")).join("index.html").is_file());
    let html = dir.path().join("html");
    let report = run(&[
        "report",
        &file("e.jsonl"),
        &file("d.jsonl"),
        "--html",
        &html.display().to_string(),
        "--json",
    ]);
    assert_eq!(report.code, 1, "{}", report.stderr);
    let findings = records(&report.stdout)
        .iter()
        .filter(|r| r["type"] == "finding")
        .count();

    let url = |page: &str| format!("file://{}/{page}", html.display());
    let index = load(&browser, &url("index.html"));
    assert!(index.console.is_empty(), "{:#?}", index.console);
    assert_eq!(
        select(&index.dom, "table#findings tbody tr").len(),
        findings
    );
    let totals = text(&select(&index.dom, "#total")[0]);
    assert!(
        totals.contains(&format!("total: {findings} findings")),
        "{totals}"
    );
    for table in ["by-mode", "by-function", "by-kind"] {
        assert!(
            !select(&index.dom, &format!("table#{table} tbody tr")).is_empty(),
            "{table}"
        );
    }

    // Sorting: by kind ascending, by function descending (through the address, which
    // runs the same code as a click on the column's header).
    let unsorted = column(&index.dom, 2);
    let mut by_kind = unsorted.clone();
    by_kind.sort();
    assert_ne!(
        unsorted, by_kind,
        "the page order must differ for the sort to show"
    );
    let sorted = load(&browser, &format!("{}#sort=kind", url("index.html")));
    assert!(sorted.console.is_empty(), "{:#?}", sorted.console);
    assert_eq!(column(&sorted.dom, 2), by_kind);
    let table = &select(&sorted.dom, "table#findings")[0];
    assert_eq!(table.value().attr("data-sorted-by"), Some("kind"));
    let descending = load(
        &browser,
        &format!("{}#sort=function-desc", url("index.html")),
    );
    let functions = column(&descending.dom, 1);
    let mut expected = functions.clone();
    expected.sort_by(|a, b| b.cmp(a));
    assert_eq!(functions, expected);
    assert_eq!(functions.first().map(String::as_str), Some("shift"));

    // Every page: loads without console messages, its links land, its plots are drawn.
    let mut pages: Vec<String> = vec!["index.html".into()];
    let mut plots_seen: Vec<String> = Vec::new();
    let mut checked = 0;
    while let Some(page) = pages.pop() {
        let loaded = load(&browser, &url(&page));
        assert!(loaded.console.is_empty(), "{page}: {:#?}", loaded.console);
        for a in select(&loaded.dom, "a[href]") {
            let href = a.value().attr("href").unwrap();
            assert!(
                !href.contains("://"),
                "{page}: a link leaves the report: {href}"
            );
            let (target, anchor) = href.split_once('#').unwrap_or((href, ""));
            let target = if target.is_empty() {
                page.as_str()
            } else {
                target
            };
            assert!(html.join(target).is_file(), "{page}: broken link {href}");
            if !anchor.is_empty() {
                let body = std::fs::read_to_string(html.join(target)).unwrap();
                let doc = Html::parse_document(&body);
                assert_eq!(
                    select(&doc, &format!("[id=\"{anchor}\"]")).len(),
                    1,
                    "{page}: link {href} has no target"
                );
            }
            if target != page
                && target != "index.html"
                && !pages.contains(&target.to_string())
                && checked < 50
            {
                pages.push(target.to_string());
                checked += 1;
            }
        }
        for figure in select(&loaded.dom, "figure.plot") {
            let id = figure.value().attr("data-plot").unwrap().to_string();
            let svg = select_in(&figure, "svg");
            assert_eq!(svg.len(), 1, "{page}: plot {id} has no SVG");
            let marks = select_in(&svg[0], "circle, polyline, path").len();
            assert!(marks > 0, "{page}: plot {id} is empty");
            plots_seen.push(format!("{page}:{id}"));
        }
        if page.starts_with("fn-av-") {
            // Both of av's parameters get a plot of where its exceptions live, and the
            // flagged line is highlighted with its kinds.
            assert!(plots_seen.iter().any(|p| p.ends_with(":exceptions-x")));
            assert!(plots_seen.iter().any(|p| p.ends_with(":exceptions-y")));
            let flagged = select(&loaded.dom, "table.src tr.flagged");
            assert_eq!(flagged.len(), 1, "(x + y) and / 2.0 are on one line");
            let kinds: Vec<String> = select_in(&flagged[0], "span.kind")
                .iter()
                .map(text)
                .collect();
            assert!(kinds.contains(&"overflow".to_string()), "{kinds:?}");
            assert!(kinds.contains(&"underflow".to_string()), "{kinds:?}");
        }
        if page.starts_with("fn-shift-") {
            assert!(plots_seen.iter().any(|p| p.ends_with(":diff-classes")));
            let traces = select(&loaded.dom, "section.finding div.traces > div.trace");
            assert!(traces.iter().any(|t| text(t).contains("build P'")));
            let command = select(&loaded.dom, "input.cmd")[0]
                .value()
                .attr("value")
                .unwrap();
            assert!(
                command.starts_with("fpscout run ") && command.contains("-f shift --args"),
                "{command}"
            );
        }
    }
    assert!(checked >= 3, "pages reached through links: {checked}");
    assert!(plots_seen.len() >= 4, "{plots_seen:#?}");
}
