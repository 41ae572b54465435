//! Content Credentials as an independent reader sees them: the C2PA project's c2pa-python
//! (installed into target/py by scripts/setup-test.sh), not the Rust crate that wrote them.

use std::path::Path;

use serde_json::Value;

/// What c2pa-python reads of `file` (`tests/python/read_credentials.py`'s JSON).
pub fn independent(file: &Path) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join("target/py/bin/python");
    assert!(
        python.exists(),
        "c2pa-python is missing: run scripts/setup-test.sh"
    );
    let out = std::process::Command::new(python)
        .arg(root.join("tests/python/read_credentials.py"))
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
