//! The work list of a run without `--function`, the same for every mode: which functions, this shard's part of them, in worker processes or in this one, with a line per function and a total.

use crate::outputs::{json_line, FindingOutputs, FindingSink, ShardArg};
use fpscout_ir::{Function, Module, ScalarTy, Type};
use fpscout_report::finding::{Finding, Mode};
use fpscout_report::ledger::Shard;
use fpscout_report::repro::ReproBuilds;
use fpscout_report::InputError;
use fpscout_search::libraries::LinkInput;
use fpscout_search::records::{Total, UnsupportedLine};
use fpscout_search::session::{BackendModel, FtzDazChoice, Session};
use fpscout_search::sources::FpCoreInputs;
use fpscout_search::verdict::{Verdict, Verdicts};
use fpscout_toolchain::{BuildFlags, BuildKind, SourceKind, SourceSet};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Worker records the parent reads and never prints: a finding of the model (for the
/// findings file, SARIF, HTML and reproducers), a function done, a function that failed.
const FINDING_MODEL: &str = "finding_model";
const FUNCTION_DONE: &str = "function_done";
const FUNCTION_FAILED: &str = "function_failed";

/// What a mode makes of a function in a whole-file run.
pub(crate) enum Choice {
    Analyse,
    /// In the work list, reported as not analysed for this reason.
    Skip(String),
    /// Not in the work list (not exported, or no parameter the mode searches).
    Ignore,
}

/// The usual choice of `exceptions`, `diff` and `reach`: exported, every parameter a
/// number, at least one of them a float.
pub(crate) fn number_parameters(f: &Function) -> Choice {
    let number = |t: Type| matches!(t, Type::Scalar(ScalarTy::Float(_) | ScalarTy::Int(_)));
    let analysable = f.external
        && f.params.iter().all(|p| number(p.ty))
        && f.params
            .iter()
            .any(|p| matches!(p.ty, Type::Scalar(ScalarTy::Float(_))));
    if analysable {
        Choice::Analyse
    } else {
        Choice::Ignore
    }
}

/// One function of the work list.
#[derive(Clone, Debug)]
pub(crate) struct Item {
    /// The C name the modes take.
    pub(crate) name: String,
    /// What the lines show: an FPCore's `:name`, else the C name.
    pub(crate) label: String,
    pub(crate) skip: Option<String>,
}

/// The functions of one run (this shard's, if one).
pub(crate) struct WorkList {
    pub(crate) items: Vec<Item>,
    shard: Option<Shard>,
    /// FPCores that could not be translated: (label, reason), reported by the first shard.
    unsupported: Vec<(String, String)>,
    /// A library given as one IR file: each function gets a session of what it reaches
    /// (its executable then compiles that, not the whole library).
    per_function_session: bool,
}

impl WorkList {
    /// The functions of `module` the mode `choose`s: the FPCore functions in file order for
    /// FPCore files, else sorted by name; then `shard`'s part.
    fn select(
        module: &Module,
        sources: &SourceSet,
        fpcore: &FpCoreInputs,
        shard: &ShardArg,
        choose: impl Fn(&Function) -> Choice,
    ) -> Result<WorkList, InputError> {
        let shard = shard.parse()?;
        let mut chosen: Vec<(String, Option<String>)> = module
            .functions
            .iter()
            .filter_map(|f| match choose(f) {
                Choice::Analyse => Some((f.display_name.clone(), None)),
                Choice::Skip(reason) => Some((f.display_name.clone(), Some(reason))),
                Choice::Ignore => None,
            })
            .collect();
        chosen.sort();
        chosen.dedup_by(|a, b| a.0 == b.0);
        let mut items: Vec<Item> = if fpcore.only_fpcore {
            fpcore
                .functions
                .iter()
                .filter_map(|f| {
                    let (_, skip) = chosen.iter().find(|(n, _)| *n == f.c_name)?;
                    Some(Item {
                        name: f.c_name.clone(),
                        label: f.label().to_string(),
                        skip: skip.clone(),
                    })
                })
                .collect()
        } else {
            chosen
                .into_iter()
                .map(|(name, skip)| Item {
                    label: name.clone(),
                    name,
                    skip,
                })
                .collect()
        };
        let unsupported: Vec<(String, String)> = fpcore
            .unsupported
            .iter()
            .map(|u| (u.label(), u.reason.clone()))
            .collect();
        if items.is_empty() && unsupported.is_empty() {
            return Err(InputError(format!(
                "{} exports no function with a floating-point parameter (and only numbers as parameters; give one with --function)",
                sources.describe()
            )));
        }
        if let Some(shard) = shard {
            items = shard.select(&items);
        }
        let per_function_session = sources.files.len() == 1
            && SourceKind::of(&sources.files[0].path).is_ok_and(|k| k.is_ir());
        Ok(WorkList {
            items,
            shard,
            unsupported: if shard.is_none_or(|s| s.index == 0) {
                unsupported
            } else {
                Vec::new()
            },
            per_function_session,
        })
    }

    fn analysed(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.skip.is_none())
    }
}

/// A function analysed: what `--json` prints of it (JSON lines), its text line, its
/// findings, and what it adds to the total.
pub(crate) struct Analysed<T> {
    pub(crate) records: Vec<String>,
    pub(crate) line: String,
    pub(crate) findings: Vec<Finding>,
    pub(crate) tally: T,
}

/// Functions of a run analysed, and not (skipped, failed, or untranslated FPCores).
#[derive(Clone, Copy, Default)]
pub(crate) struct Counts {
    pub(crate) analysed: usize,
    pub(crate) not_analysed: usize,
}

/// A mode's part in a whole-file run.
pub(crate) trait WholeRun {
    /// What each function adds to the total (passed from the workers as JSON).
    type Tally: Total;
    const MODE: Mode;
    /// Width of the function column of the text lines.
    const NAME_WIDTH: usize;
    /// The first line of the text table.
    fn header(&self) -> String;
    /// Runs the mode on `item` in this process; `quiet` in a worker (no progress display).
    fn analyse(
        &self,
        session: &Session,
        item: &Item,
        quiet: bool,
    ) -> Result<Analysed<Self::Tally>, InputError>;
    /// The total as a text line.
    fn total_text(&self, counts: Counts, total: &Self::Tally) -> String;
    /// Completes the total once every function's part is in (`diff`'s file-wide safe
    /// flag set); `open` opens a session focused on one function.
    fn finish(
        &self,
        _whole: &Session,
        _open: &dyn Fn(&str) -> Result<Session, InputError>,
        _total: &mut Self::Tally,
    ) {
    }
    /// The run's verdict from its functions' and the number not analysed (one rule for
    /// every mode; `error` overrides it, as it never answers unknown).
    fn overall(&self, verdicts: Verdicts, not_analysed: usize) -> Verdict {
        verdicts.overall(not_analysed)
    }
}

/// How many functions run at once when `--jobs` is not given.
#[derive(Clone, Copy)]
pub(crate) enum DefaultJobs {
    /// A worker process per core.
    AllCores,
    /// One after the other in this process (each function may use every core).
    InProcess,
}

/// The command line's part in a whole-file run.
pub(crate) struct Options<'a> {
    pub(crate) outputs: &'a FindingOutputs,
    pub(crate) json: bool,
    pub(crate) jobs: Option<usize>,
    pub(crate) default_jobs: DefaultJobs,
    pub(crate) shard: &'a ShardArg,
    /// `--worker I/N`: this process is worker I of N.
    pub(crate) worker: Option<&'a str>,
}

/// The program of a whole-file run, as the command line gave it.
pub(crate) struct Program<'a> {
    pub(crate) sources: &'a SourceSet,
    pub(crate) fpcore: &'a FpCoreInputs,
    pub(crate) flags: BuildFlags,
    pub(crate) libraries: Vec<LinkInput>,
    /// The builds the mode compiles; the work list is the first one's functions.
    pub(crate) builds: &'a [BuildKind],
    pub(crate) ftz_daz: FtzDazChoice,
}

/// Runs `mode` over the functions of `program` it `choose`s (see [`run`]).
pub(crate) fn run_program<M: WholeRun>(
    mode: &M,
    program: Program,
    choose: impl Fn(&Function) -> Choice,
    options: &Options,
) -> Result<ExitCode, InputError> {
    let open_modelled = |focus: Option<&str>, backend: BackendModel| {
        Session::open_modelled(
            program.sources,
            program.flags.clone(),
            &program.libraries,
            program.builds,
            focus,
            backend,
        )
    };
    let open = |focus: Option<&str>| open_modelled(focus, BackendModel::MatchMachine);
    // A parent of worker processes only lists the functions and says how the program was
    // built: the workers analyse, so it need not model what the backend did to P'.
    let parent_only = options.worker.is_none() && worker_count(options).is_some();
    let session = if parent_only {
        open_modelled(None, BackendModel::IrOnly)?
    } else {
        open(None)?
    };
    let listed = program
        .builds
        .first()
        .ok_or_else(|| InputError("a whole-file run needs a build".into()))?;
    let list = WorkList::select(
        session.module(*listed)?,
        program.sources,
        program.fpcore,
        options.shard,
        choose,
    )?;
    // The workers' findings are reproduced as this session builds the program.
    let builds = || {
        session.repro_builds(
            program.sources,
            program.ftz_daz,
            &program.fpcore.temporary_dirs(),
        )
    };
    run(
        mode,
        &list,
        options,
        &session,
        &|name| open(Some(name)),
        builds,
    )
}

/// Runs `mode` over `list`: as worker I of N (its records on stdout), or as the parent of
/// `--jobs` workers, or in this process; `whole` is the session of the whole program and
/// `open` opens one focused on a function.
fn run<M: WholeRun>(
    mode: &M,
    list: &WorkList,
    options: &Options,
    whole: &Session,
    open: &dyn Fn(&str) -> Result<Session, InputError>,
    builds: impl FnOnce() -> ReproBuilds,
) -> Result<ExitCode, InputError> {
    if let Some(worker) = options.worker {
        let (i, n) = parse_worker(worker)?;
        return worker_run(mode, list, options, whole, open, i, n);
    }
    let mut sink = options.outputs.start(
        M::MODE,
        &list
            .items
            .iter()
            .map(|i| i.name.clone())
            .collect::<Vec<_>>(),
        list.shard,
    )?;
    let mut parent = Parent::<M> {
        json: options.json,
        counts: Counts::default(),
        total: M::Tally::default(),
        finished: HashSet::new(),
    };
    let mut out = std::io::stdout().lock();
    if !options.json {
        let _ = writeln!(out, "{}", mode.header());
    }
    // FPCores that could not be translated, and functions skipped, before the others.
    for (label, reason) in &list.unsupported {
        parent.counts.not_analysed += 1;
        if options.json {
            let _ = writeln!(out, "{}", json_line(&UnsupportedLine::new(label, reason)));
        } else {
            let _ = writeln!(
                out,
                "{label:<width$} not supported: {reason}",
                width = M::NAME_WIDTH
            );
        }
    }
    for item in &list.items {
        if let Some(reason) = &item.skip {
            parent.take(
                &mut out,
                &mut sink,
                Message::Failed {
                    function: item.name.clone(),
                    label: item.label.clone(),
                    reason: reason.clone(),
                },
            )?;
        }
    }
    let analysed = list.analysed().count();
    match worker_count(options) {
        None => {
            for item in list.analysed() {
                for message in analyse_one(mode, list, whole, open, item, false) {
                    parent.take(&mut out, &mut sink, message)?;
                }
            }
        }
        Some(jobs) => {
            let jobs = jobs.clamp(1, analysed.max(1));
            let workers = spawn_workers(jobs, options.jobs.is_none())?;
            for line in workers.iter() {
                if let Some(message) = Message::parse(&line) {
                    parent.take(&mut out, &mut sink, message)?;
                }
            }
            let statuses = workers.wait();
            // A worker that died (a crash in a library function) leaves its functions
            // without a line: they are named, not silently dropped.
            for (k, item) in list.analysed().enumerate() {
                if !parent.finished.contains(&item.name) {
                    let reason = format!(
                        "its worker process ended before analysing it ({})",
                        statuses[k % statuses.len()]
                    );
                    parent.take(
                        &mut out,
                        &mut sink,
                        Message::Failed {
                            function: item.name.clone(),
                            label: item.label.clone(),
                            reason,
                        },
                    )?;
                }
            }
        }
    }
    mode.finish(whole, open, &mut parent.total);
    // One rule for every mode: the functions' verdicts, and those not analysed.
    let verdict = mode.overall(parent.total.verdicts(), parent.counts.not_analysed);
    let counts = parent.counts;
    if options.json {
        let total = parent.total.line(counts.analysed, counts.not_analysed);
        let _ = writeln!(out, "{}", json_line(&total));
    } else {
        let _ = writeln!(out, "{}", mode.total_text(counts, &parent.total));
    }
    drop(out);
    sink.finish(builds, options.json, verdict)
}

/// How many worker processes analyse the functions; `None`: this process does.
fn worker_count(options: &Options) -> Option<usize> {
    match (options.jobs, options.default_jobs) {
        (None, DefaultJobs::InProcess) => None,
        (Some(jobs), _) => Some(jobs),
        (None, DefaultJobs::AllCores) => Some(
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
        ),
    }
}

/// One function's outcome, in the parent or passed from a worker.
enum Message<T> {
    /// A record `--json` prints as it is (a JSON line).
    Print(String),
    Findings(Vec<Finding>),
    Done {
        function: String,
        line: String,
        tally: T,
    },
    Failed {
        function: String,
        label: String,
        reason: String,
    },
}

impl<T: Serialize + DeserializeOwned> Message<T> {
    /// The message as worker output lines.
    fn lines(&self) -> Vec<String> {
        match self {
            Message::Print(record) => vec![record.clone()],
            Message::Findings(findings) => findings
                .iter()
                .map(|f| json!({"type": FINDING_MODEL, "data": f}).to_string())
                .collect(),
            Message::Done {
                function,
                line,
                tally,
            } => vec![json!({"type": FUNCTION_DONE, "data": {
                "function": function, "line": line, "tally": tally,
            }})
            .to_string()],
            Message::Failed {
                function,
                label,
                reason,
            } => vec![json!({"type": FUNCTION_FAILED, "data": {
                "function": function, "label": label, "reason": reason,
            }})
            .to_string()],
        }
    }

    /// A worker's line; `None` for one that is not a record (nothing a worker writes).
    fn parse(line: &str) -> Option<Message<T>> {
        let record: Value = serde_json::from_str(line).ok()?;
        let data = &record["data"];
        let text = |key: &str| data[key].as_str().unwrap_or("?").to_string();
        Some(match record["type"].as_str() {
            Some(FINDING_MODEL) => match serde_json::from_value(data.clone()) {
                Ok(finding) => Message::Findings(vec![finding]),
                Err(e) => {
                    eprintln!("fpscout: warning: a worker's finding is unreadable: {e}");
                    return None;
                }
            },
            Some(FUNCTION_DONE) => match serde_json::from_value(data["tally"].clone()) {
                Ok(tally) => Message::Done {
                    function: text("function"),
                    line: text("line"),
                    tally,
                },
                Err(e) => Message::Failed {
                    function: text("function"),
                    label: text("function"),
                    reason: format!("its worker's summary is unreadable: {e}"),
                },
            },
            Some(FUNCTION_FAILED) => Message::Failed {
                function: text("function"),
                label: text("label"),
                reason: text("reason"),
            },
            _ => Message::Print(line.to_string()),
        })
    }
}

/// The parent of a whole-file run: prints each function's line and adds up the total.
struct Parent<M: WholeRun> {
    json: bool,
    counts: Counts,
    total: M::Tally,
    /// Functions done or failed (C names).
    finished: HashSet<String>,
}

impl<M: WholeRun> Parent<M> {
    fn take(
        &mut self,
        out: &mut impl Write,
        sink: &mut FindingSink,
        message: Message<M::Tally>,
    ) -> Result<(), InputError> {
        match message {
            Message::Print(record) => {
                if self.json {
                    let _ = writeln!(out, "{record}");
                }
            }
            Message::Findings(findings) => sink.found(&findings)?,
            Message::Done {
                function,
                line,
                tally,
            } => {
                sink.covered(&function, None)?;
                self.counts.analysed += 1;
                self.total.add(tally);
                if !self.json {
                    let _ = writeln!(out, "{line}");
                }
                self.finished.insert(function);
            }
            Message::Failed {
                function,
                label,
                reason,
            } => {
                sink.covered(&function, Some(reason.clone()))?;
                self.counts.not_analysed += 1;
                if self.json {
                    let _ = writeln!(out, "{}", json_line(&UnsupportedLine::new(&label, &reason)));
                } else {
                    let _ = writeln!(
                        out,
                        "{label:<width$} not analysed: {reason}",
                        width = M::NAME_WIDTH
                    );
                }
                self.finished.insert(function);
            }
        }
        let _ = out.flush();
        Ok(())
    }
}

/// Runs `item` in this process: its messages, in the order a worker sends them (the
/// function's line last, when everything of it is in).
fn analyse_one<M: WholeRun>(
    mode: &M,
    list: &WorkList,
    whole: &Session,
    open: &dyn Fn(&str) -> Result<Session, InputError>,
    item: &Item,
    quiet: bool,
) -> Vec<Message<M::Tally>> {
    let analysed = if list.per_function_session {
        open(&item.name).and_then(|own| mode.analyse(&own, item, quiet))
    } else {
        mode.analyse(whole, item, quiet)
    };
    match analysed {
        Ok(a) => {
            let mut messages: Vec<Message<M::Tally>> =
                a.records.into_iter().map(Message::Print).collect();
            messages.push(Message::Findings(a.findings));
            messages.push(Message::Done {
                function: item.name.clone(),
                line: a.line,
                tally: a.tally,
            });
            messages
        }
        Err(e) => vec![Message::Failed {
            function: item.name.clone(),
            label: item.label.clone(),
            reason: e.to_string(),
        }],
    }
}

fn parse_worker(text: &str) -> Result<(usize, usize), InputError> {
    let bad = || InputError(format!("--worker expects I/N with I < N, got '{text}'"));
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n) = (
        i.parse::<usize>().map_err(|_| bad())?,
        n.parse::<usize>().map_err(|_| bad())?,
    );
    if i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// A worker: every N-th function of the work list from the I-th, one after the other in
/// this process (the program is compiled once), as JSON Lines on stdout.
fn worker_run<M: WholeRun>(
    mode: &M,
    list: &WorkList,
    options: &Options,
    whole: &Session,
    open: &dyn Fn(&str) -> Result<Session, InputError>,
    i: usize,
    n: usize,
) -> Result<ExitCode, InputError> {
    let mut out = std::io::stdout().lock();
    // The findings of the model are only for the parent's files: not sent when unwanted.
    let findings_wanted = options.outputs.wanted();
    for item in list.analysed().skip(i).step_by(n) {
        for message in analyse_one(mode, list, whole, open, item, true) {
            if matches!(message, Message::Findings(_)) && !findings_wanted {
                continue;
            }
            for line in message.lines() {
                let _ = writeln!(out, "{line}");
            }
        }
        let _ = out.flush();
    }
    Ok(ExitCode::SUCCESS)
}

/// The worker processes of a run and their output lines, merged as they come.
struct Workers {
    children: Vec<std::process::Child>,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Workers {
    fn iter(&self) -> impl Iterator<Item = String> + '_ {
        self.lines.iter()
    }

    /// Waits for every worker: how each ended.
    fn wait(self) -> Vec<String> {
        self.children
            .into_iter()
            .map(|mut child| match child.wait() {
                Ok(status) => status.to_string(),
                Err(e) => format!("not awaited: {e}"),
            })
            .collect()
    }
}

/// Starts `jobs` workers, each this command line with `--worker I/N` (and one solver
/// thread each when `one_thread`, so that they share the cores).
fn spawn_workers(jobs: usize, one_thread: bool) -> Result<Workers, InputError> {
    let exe = std::env::current_exe()
        .map_err(|e| InputError(format!("cannot find the fpscout executable: {e}")))?;
    let own: Vec<String> = std::env::args().skip(1).collect();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let mut children = Vec::new();
    for i in 0..jobs {
        let mut cmd = std::process::Command::new(&exe);
        cmd.args(&own)
            .arg("--worker")
            .arg(format!("{i}/{jobs}"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit());
        if one_thread {
            cmd.arg("--jobs").arg("1");
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| InputError(format!("cannot start a worker: {e}")))?;
        let Some(stdout) = child.stdout.take() else {
            return Err(InputError("a worker has no output pipe".into()));
        };
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        children.push(child);
    }
    Ok(Workers {
        children,
        lines: rx,
    })
}
