//! Embeds the first-render check's script (built from `ui/` by `make ui`) when it is there.
//! Without it the core still builds, and every check answers "skipped": the check fails open.

use std::path::Path;

fn main() {
    let built = Path::new("ui/dist-check/check.js");
    println!("cargo:rerun-if-changed={}", built.display());
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let target = Path::new(&out).join("check.js");
    let script = std::fs::read_to_string(built).unwrap_or_default();
    if let Err(e) = std::fs::write(&target, script) {
        println!("cargo:warning=could not embed the render check script: {e}");
    }
}
