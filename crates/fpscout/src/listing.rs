//! How much of a run's findings the text report lists (`--max-findings`, `--quiet`); the JSON and findings files keep every one.

/// The listing options of the modes that find many things (`diff`, `exceptions`).
#[derive(clap::Args, Clone, Copy, Debug)]
pub(crate) struct ListingArgs {
    /// Findings the text report shows in full, over all groups (the rest are counted;
    /// --json and --jsonl keep every one)
    #[arg(long, value_name = "N", default_value_t = 8)]
    max_findings: usize,
    /// List no findings in the text report: only the verdict, the coverage line and the
    /// summary (--json and --jsonl keep every finding)
    #[arg(long)]
    quiet: bool,
}

/// What the text printers list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Listing {
    /// Findings shown in full, over all groups.
    pub(crate) max_findings: usize,
    /// Witnesses shown in full per location and kind (`exceptions`; `diff` shows one per
    /// signature).
    pub(crate) per_group: usize,
    pub(crate) quiet: bool,
}

impl ListingArgs {
    pub(crate) fn listing(self) -> Listing {
        Listing {
            max_findings: if self.quiet { 0 } else { self.max_findings },
            per_group: 2,
            quiet: self.quiet,
        }
    }
}

/// The line that counts what the listing left out (`None` when nothing was).
/// `findings` is how many were left out, `what` says what they are (`findings with 3
/// signatures`).
pub(crate) fn left_out(findings: usize, what: &str) -> Option<String> {
    (findings > 0).then(|| {
        format!(
            "… {findings} more {what} not shown (--max-findings raises the limit; --json and --jsonl keep every one)"
        )
    })
}
