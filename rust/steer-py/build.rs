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

fn main() {
    // The folders sit beside the workspace Cargo.toml, two levels up, both in a
    // checkout and in the sdist (pyproject's `format = "sdist"` includes put them
    // at its root).
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("../..");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets it"));
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
