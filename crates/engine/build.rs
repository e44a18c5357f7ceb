//! Embeds the scripts built from `ui/` by `make ui` when they are there: the first-render
//! check and the preview's compiler it runs. Without them the engine still builds, and every
//! check answers "skipped": the check fails open.

use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    for (built, name) in [
        ("../../ui/dist-check/check.js", "check.js"),
        ("../../ui/dist-preview/compiler.js", "compiler.js"),
    ] {
        println!("cargo:rerun-if-changed={built}");
        let script = std::fs::read_to_string(built).unwrap_or_default();
        if let Err(e) = std::fs::write(Path::new(&out).join(name), script) {
            println!("cargo:warning=could not embed the render check's {name}: {e}");
        }
    }
}
