//! Files as independent readers see them: Python packages nobody here wrote (c2pa-python for
//! Content Credentials, OpenTimelineIO for timelines, pysubs2 and webvtt-py for captions),
//! installed into target/py by scripts/setup-test.sh, never the Rust code that wrote them.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

/// Runs the test tools' Python with `args` from the repository's root: its output.
pub fn python(args: &[&OsStr]) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join("target/py/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup-test.sh",
        python.display()
    );
    let output = std::process::Command::new(python)
        .current_dir(root)
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// The ZIP `bytes` unpacked by Python's `zipfile`: the folder holding what it holds (kept
/// until the returned handle drops).
pub fn unzipped(bytes: &[u8]) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    let zip = folder.path().join("package.zip");
    std::fs::write(&zip, bytes).unwrap();
    python(&[
        "-m".as_ref(),
        "zipfile".as_ref(),
        "-e".as_ref(),
        zip.as_os_str(),
        folder.path().as_os_str(),
    ]);
    std::fs::remove_file(&zip).unwrap();
    folder
}

/// What c2pa-python reads of `file` (`tests/python/read_credentials.py`'s JSON).
pub fn independent(file: &Path) -> Value {
    let read = python(&[
        "tests/python/read_credentials.py".as_ref(),
        file.as_os_str(),
    ]);
    serde_json::from_slice(&read).unwrap()
}
