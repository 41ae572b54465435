//! Renames that survive a power cut: a renamed file is durable only once its directory entry
//! is, so the directory is fsynced after every rename into it.

use std::path::Path;

/// Flushes a directory's entries (a rename into it, a new or removed file) to disk.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    std::fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Renames `from` to `to` and makes the new entry durable.
pub fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::rename(from, to)?;
    match to.parent() {
        Some(dir) => sync_dir(dir),
        None => Ok(()),
    }
}
