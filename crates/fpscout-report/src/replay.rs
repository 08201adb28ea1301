//! The one `fpscout run` command line that replays a finding, as every printer shows it.
//!
//! The words are those of the user's invocation (sources and paths as typed, relative ones
//! stay relative), so the command runs as printed from the directory fpscout ran in.

use fpscout_ir::Param;
use fpscout_walk::concrete::ArgBits;

/// What a replay command holds besides the function and its input: the program's sources
/// and the options that build it and run it as the search did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replay {
    /// The source arguments, as the user typed them.
    pub sources: Vec<String>,
    /// Compile, link, P' and FTZ/DAZ options, each one word (`-Iinc`, `--opt-flags=-O2`).
    pub options: Vec<String>,
}

impl Replay {
    /// `fpscout run SOURCES... -f FUNCTION --args 'INPUT' OPTIONS...`, quoted for a POSIX
    /// shell; the input is exact (hex floats, NaNs by their bits).
    pub fn command(&self, function: &str, params: &[Param], input: &[ArgBits]) -> String {
        let mut words = vec!["fpscout".to_string(), "run".to_string()];
        // A source that starts with '-' would read as an option.
        words.extend(self.sources.iter().map(|s| {
            let word = if s.starts_with('-') {
                format!("./{s}")
            } else {
                s.clone()
            };
            shell_word(&word)
        }));
        words.push("-f".into());
        words.push(shell_word(function));
        words.push("--args".into());
        // Always quoted: an input list reads better as one visible word.
        words.push(quoted(&crate::args::run_args(params, input)));
        words.extend(self.options.iter().map(|o| shell_word(o)));
        words.join(" ")
    }
}

/// `word` as a POSIX shell reads it back unchanged: plain when it has no special
/// character, else in single quotes (a quote inside as `'\''`).
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=+:,@%^".contains(c));
    if plain {
        word.to_string()
    } else {
        quoted(word)
    }
}

fn quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_survive_the_shell() {
        for word in [
            "plain.c",
            "a b.c",
            "it's",
            "",
            "$HOME",
            "[0x1p+0]",
            "-DX=\"y z\"",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf '%s' {}", shell_word(word)))
                .output()
                .expect("sh runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout), word);
        }
    }

    #[test]
    fn command_keeps_sources_and_options_in_order() {
        let replay = Replay {
            sources: vec!["src/a.c".into(), "-odd.c".into()],
            options: vec!["-Iinc dir".into(), "-DMODE=2".into()],
        };
        assert_eq!(
            replay.command("f", &[], &[]),
            "fpscout run src/a.c ./-odd.c -f f --args '' '-Iinc dir' -DMODE=2"
        );
    }
}
