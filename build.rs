//! Embeds the preview's compiler and runtime built from `ui/` by `make ui` when they are there,
//! for the MCP Apps view of an artifact. Without them the command still builds, and the view
//! says the preview was not built.

use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    for (built, name) in [
        ("ui/dist-preview/compiler.js", "compiler.js"),
        ("ui/dist-preview/runtime.js", "runtime.js"),
    ] {
        println!("cargo:rerun-if-changed={built}");
        let script = std::fs::read_to_string(built).unwrap_or_default();
        if let Err(e) = std::fs::write(Path::new(&out).join(name), script) {
            println!("cargo:warning=could not embed the preview's {name}: {e}");
        }
    }
}
