//! The benchmarks' deb-src entry is taken from the machine's own apt sources (mirror, suite, keyring), never a host name written into the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/deb-src-entry.sh")
}

fn entry_for(files: &[(&str, &str)]) -> (i32, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("sources.list.d")).expect("dir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    let out = Command::new("bash")
        .arg(script())
        .arg(dir.path())
        .output()
        .expect("bash runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_deb822_source_gives_its_mirror_suite_and_keyring() {
    let (code, entry) = entry_for(&[(
        "sources.list.d/debian.sources",
        "# a comment\nTypes: deb\nURIs: http://mirror.example.net/debian\n\
         Suites: trixie trixie-updates\nComponents: main contrib\n\
         Signed-By: /usr/share/keyrings/k.gpg\n\n\
         Types: deb\nURIs: http://other.example.net/security\nSuites: trixie-security\n\
         Components: main\n",
    )]);
    assert_eq!(code, 0);
    assert_eq!(
        entry,
        "Types: deb-src\nURIs: http://mirror.example.net/debian\nSuites: trixie\n\
         Components: main contrib\nSigned-By: /usr/share/keyrings/k.gpg\n"
    );
}

#[test]
fn a_one_line_source_gives_its_mirror_suite_and_keyring() {
    let (code, entry) = entry_for(&[(
        "sources.list",
        "# deb-src http://x/ y main\n\
         deb [arch=amd64 signed-by=/k.gpg] http://ftp.example.org/debian bookworm main non-free\n",
    )]);
    assert_eq!(code, 0);
    assert_eq!(
        entry,
        "Types: deb-src\nURIs: http://ftp.example.org/debian\nSuites: bookworm\n\
         Components: main non-free\nSigned-By: /k.gpg\n"
    );
}

#[test]
fn no_source_is_an_error_not_a_made_up_host() {
    let (code, entry) = entry_for(&[]);
    assert_eq!(code, 1);
    assert!(entry.is_empty(), "{entry}");
}
