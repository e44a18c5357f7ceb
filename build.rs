//! Embeds what `make ui` built from `ui/` when it is there: the preview's compiler and runtime,
//! for the MCP Apps view of an artifact, and the team's page (`team.html` and the files under
//! `assets/`), which `serve --page-name` serves to a team's people. Without them the command
//! still builds: the view says the preview was not built, and `serve` that the page was not.

use std::fmt::Write as _;
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
    let page = team_page();
    if let Err(e) = std::fs::write(Path::new(&out).join("team_page.rs"), page) {
        println!("cargo:warning=could not embed the team's page: {e}");
    }
}

/// `&[(path, bytes)]` of the team's page's files, as Rust source: empty when the page was not
/// built.
fn team_page() -> String {
    println!("cargo:rerun-if-changed=ui/dist");
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dist = Path::new(&root).join("ui/dist");
    // team.html and the files it loads, and the files those load (a chunk names another as
    // `./name.js`): never the window's own bundle.
    let mut files: Vec<String> = Vec::new();
    let mut todo = vec!["team.html".to_owned()];
    let assets: Vec<String> = std::fs::read_dir(dist.join("assets"))
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    while let Some(file) = todo.pop() {
        let Ok(text) = std::fs::read(dist.join(&file)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&text);
        files.push(file);
        for name in &assets {
            let path = format!("assets/{name}");
            if text.contains(name.as_str()) && !files.contains(&path) && !todo.contains(&path) {
                todo.push(path);
            }
        }
    }
    files.sort();
    let mut src = String::from("&[\n");
    for f in &files {
        let path = dist.join(f);
        let _ = writeln!(
            src,
            "    ({f:?}, include_bytes!({:?}) as &[u8]),",
            path.display().to_string()
        );
    }
    src.push(']');
    src
}
