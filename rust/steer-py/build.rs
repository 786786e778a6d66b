//! Copies the shipped data folders (templates/, rubrics/) into OUT_DIR so that
//! maturin's `include = [{ from = "out-dir", ... }]` packs them into the wheel
//! under `steer/_data/`. The Python side finds them through importlib.resources.

use std::path::{Path, PathBuf};
use std::{env, fs, io};

const DATA_DIRS: [&str; 2] = ["templates", "rubrics"];

fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// The checkout's commit, for run metadata ("unknown" in an sdist or without git).
fn git_revision(root: &Path) -> String {
    if !root.join(".git").exists() {
        return "unknown".into();
    }
    // Rebuild when HEAD moves: a checkout changes HEAD, a commit the branch's ref.
    let head = fs::read_to_string(root.join(".git/HEAD")).unwrap_or_default();
    let mut watched = vec![".git/HEAD".to_string(), ".git/packed-refs".to_string()];
    if let Some(branch) = head.trim().strip_prefix("ref: ") {
        watched.push(format!(".git/{branch}"));
    }
    // Only files that exist: cargo reruns the script every build for a missing one.
    for path in watched
        .iter()
        .map(|name| root.join(name))
        .filter(|p| p.exists())
    {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

fn main() {
    // The folders sit beside the workspace Cargo.toml, two levels up, both in a
    // checkout and in the sdist (pyproject's `format = "sdist"` includes put them
    // at its root).
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("../..");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets it"));
    println!("cargo:rustc-env=STEER_GIT_REVISION={}", git_revision(&root));
    for name in DATA_DIRS {
        let src = root.join(name);
        println!("cargo:rerun-if-changed={}", src.display());
        // A missing folder would build a wheel that fails only at run time.
        assert!(
            src.is_dir(),
            "{} not found: steer's data folders must sit at the top of the source tree",
            src.display()
        );
        let dst = out.join(name);
        // Start clean so files deleted from the source tree leave the wheel too.
        let _ = fs::remove_dir_all(&dst);
        copy_tree(&src, &dst).unwrap_or_else(|e| panic!("copying {}: {e}", src.display()));
    }
}
