//! Builds the Tauri context, and embeds the artifact preview's runtime (built from `ui/` by
//! `make ui`) when it is there. Without it the window still builds, and the preview says
//! that its runtime is missing.

use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    for (name, embedded) in [
        ("runtime.js", "preview-runtime.js"),
        ("compiler.js", "preview-compiler.js"),
    ] {
        let built = Path::new("../ui/dist-preview").join(name);
        println!("cargo:rerun-if-changed={}", built.display());
        let script = std::fs::read(&built).unwrap_or_else(|_| MISSING.as_bytes().to_vec());
        if let Err(e) = std::fs::write(Path::new(&out).join(embedded), script) {
            println!("cargo:warning=could not embed the preview's {name}: {e}");
        }
    }
    tauri_build::build();
}

/// What the frame runs when the runtime was not built: it says so, in place of the artifact.
const MISSING: &str = r#"document.getElementById("root").textContent =
  "The preview runtime is not part of this build: run `make ui`, then rebuild the window.";
parent.postMessage({ type: "error", message: "the preview runtime is missing", stack: "" }, "*");
"#;
