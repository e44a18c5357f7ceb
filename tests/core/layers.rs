//! The layers as the compiler sees them: each workspace crate may depend only on the crates
//! below it, and never on the libraries that belong to another layer. Read from `cargo
//! metadata`, so a dependency added across the layers fails the suite, not a review.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// One layer: the workspace crates it may use, and the libraries it must not link.
struct Layer {
    uses: &'static [&'static str],
    never: &'static [&'static str],
}

/// I/O, servers, databases, SDKs and the GUI: none belongs in the domain.
const NOT_PURE: &[&str] = &[
    "tokio",
    "sqlx",
    "axum",
    "hyper",
    "tower",
    "tower-http",
    "reqwest",
    "rmcp",
    "tauri",
    "keyring",
    "nix",
    "libc",
    "dirs",
    "rquickjs",
    "tracing-subscriber",
];

/// The architecture, bottom up.
fn layers() -> BTreeMap<&'static str, Layer> {
    BTreeMap::from([
        (
            "countersign-domain",
            Layer {
                uses: &[],
                never: NOT_PURE,
            },
        ),
        (
            "countersign-store",
            Layer {
                uses: &["countersign-domain"],
                never: &["axum", "hyper", "reqwest", "rmcp", "tauri", "rquickjs"],
            },
        ),
        (
            "countersign-port",
            Layer {
                uses: &["countersign-domain"],
                never: &["sqlx", "reqwest", "rmcp", "tauri"],
            },
        ),
        (
            "countersign-integrations",
            Layer {
                uses: &["countersign-domain", "countersign-port"],
                never: &["sqlx", "tokio", "reqwest", "rmcp", "tauri", "keyring"],
            },
        ),
        (
            "countersign-engine",
            Layer {
                uses: &[
                    "countersign-domain",
                    "countersign-store",
                    "countersign-port",
                    "countersign-integrations",
                ],
                never: &["reqwest", "rmcp", "tauri"],
            },
        ),
        // The phone's front door: over the Console, like the API, never the store.
        (
            "countersign-phone",
            Layer {
                uses: &[
                    "countersign-domain",
                    "countersign-port",
                    "countersign-engine",
                ],
                never: &["sqlx", "reqwest", "rmcp", "tauri", "rquickjs", "keyring"],
            },
        ),
        // The command line: `serve --listen` serves the team listener beyond loopback as the
        // phone page is served (countersign-phone's TLS and connection limits).
        (
            "countersign",
            Layer {
                uses: &[
                    "countersign-domain",
                    "countersign-port",
                    "countersign-integrations",
                    "countersign-engine",
                    "countersign-phone",
                ],
                never: &["tauri", "sqlx"],
            },
        ),
        (
            "countersign-desktop",
            Layer {
                uses: &[
                    "countersign-domain",
                    "countersign-engine",
                    "countersign-phone",
                ],
                never: &["rmcp", "reqwest", "sqlx"],
            },
        ),
        // The baseline app the window's benchmarks compare against.
        (
            "hello-tauri",
            Layer {
                uses: &[],
                never: &[],
            },
        ),
    ])
}

/// The libraries no crate the desktop links may use directly (so the desktop links none).
const NOT_IN_DESKTOP: &[&str] = &["rmcp", "reqwest"];

/// Every way `metadata` (`cargo metadata --no-deps`) breaks the layers; empty when it holds.
fn breaches(metadata: &Value) -> Vec<String> {
    let layers = layers();
    let mut found = Vec::new();
    // Each workspace crate's normal (not dev, not build) dependencies.
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in metadata["packages"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or_default().to_owned();
        let normal: BTreeSet<String> = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str().map(str::to_owned))
            .collect();
        deps.insert(name, normal);
    }
    for (name, normal) in &deps {
        let Some(layer) = layers.get(name.as_str()) else {
            found.push(format!(
                "{name}: a workspace crate with no layer in tests/core/layers.rs"
            ));
            continue;
        };
        for d in normal {
            if d.starts_with("countersign") && !layer.uses.contains(&d.as_str()) {
                found.push(format!(
                    "{name} depends on {d}, which its layer may not use"
                ));
            }
            if layer.never.contains(&d.as_str()) {
                found.push(format!("{name} links {d}, which belongs to another layer"));
            }
        }
    }
    // What the desktop links, through the workspace's crates.
    let mut linked = BTreeSet::from(["countersign-desktop".to_owned()]);
    let mut todo = vec!["countersign-desktop".to_owned()];
    while let Some(c) = todo.pop() {
        for d in deps.get(&c).into_iter().flatten() {
            if deps.contains_key(d) && linked.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    for c in &linked {
        for d in deps.get(c).into_iter().flatten() {
            if NOT_IN_DESKTOP.contains(&d.as_str()) {
                found.push(format!("the desktop links {d} through {c}"));
            }
        }
    }
    found
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_crate_keeps_to_its_layer() {
    let m = metadata();
    let names: Vec<&str> = m["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    // The check sees the whole house, not an empty list.
    for expected in layers().keys() {
        assert!(
            names.contains(expected),
            "{expected} is not in the workspace"
        );
    }
    let found = breaches(&m);
    assert!(
        found.is_empty(),
        "the layers are broken:\n{}",
        found.join("\n")
    );
}

/// Adds a normal dependency on `dep` to `krate` in `metadata`.
fn with_dependency(mut metadata: Value, krate: &str, dep: &str) -> Value {
    for p in metadata["packages"].as_array_mut().unwrap() {
        if p["name"] == krate {
            p["dependencies"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({ "name": dep, "kind": null }));
        }
    }
    metadata
}

#[test]
fn a_dependency_across_the_layers_is_caught() {
    let m = metadata();
    let store_in_domain = breaches(&with_dependency(
        m.clone(),
        "countersign-domain",
        "countersign-store",
    ));
    assert_eq!(
        store_in_domain,
        ["countersign-domain depends on countersign-store, which its layer may not use"]
    );
    let sqlx_in_domain = breaches(&with_dependency(m.clone(), "countersign-domain", "sqlx"));
    assert_eq!(
        sqlx_in_domain,
        ["countersign-domain links sqlx, which belongs to another layer"]
    );
    // The phone's front door reaches the store only through the Console.
    let store_in_phone = breaches(&with_dependency(
        m.clone(),
        "countersign-phone",
        "countersign-store",
    ));
    assert_eq!(
        store_in_phone,
        ["countersign-phone depends on countersign-store, which its layer may not use"]
    );
    let store_in_integrations = breaches(&with_dependency(
        m.clone(),
        "countersign-integrations",
        "countersign-store",
    ));
    assert_eq!(store_in_integrations.len(), 1, "{store_in_integrations:?}");
    // rmcp reaching the desktop through a crate it links.
    let rmcp_in_engine = breaches(&with_dependency(m.clone(), "countersign-engine", "rmcp"));
    assert!(
        rmcp_in_engine.contains(&"the desktop links rmcp through countersign-engine".to_owned()),
        "{rmcp_in_engine:?}"
    );
    // A new crate must be given a layer.
    let mut stray = m;
    stray["packages"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({ "name": "countersign-stray", "dependencies": [] }));
    assert_eq!(
        breaches(&stray),
        ["countersign-stray: a workspace crate with no layer in tests/core/layers.rs"]
    );
}

/// The top-level modules of a crate's `src`, and which of them each one's files name
/// (`crate::m`, `super::m` from the crate root's own files, and `super::…` chains that reach
/// the root): the graph the files' circles are looked for in. Comments are left out, so a doc
/// link is not a dependency.
fn module_graph(src: &std::path::Path) -> BTreeMap<String, BTreeSet<String>> {
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let path_of = |file: &std::path::Path| -> Vec<String> {
        let rel = file.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(parts.as_slice(), [one] if one == "lib" || one == "main") {
            parts.clear();
        }
        if parts.last().is_some_and(|l| l == "mod") {
            parts.pop();
        }
        parts
    };
    let top: BTreeSet<String> = files
        .iter()
        .filter_map(|f| path_of(f).first().cloned())
        .collect();
    let reference = regex_lite_find;
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let at = path_of(file);
        let Some(from) = at.first().cloned() else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        for (root, names) in reference(&code) {
            // Where the path starts: the crate root, or this file's module `ups` levels up.
            let base: Vec<String> = match root {
                Root::Crate => Vec::new(),
                Root::Super(ups) => at[..at.len().saturating_sub(ups)].to_vec(),
            };
            for name in names {
                let to = match base.first() {
                    Some(first) => first.clone(),
                    None => name,
                };
                if to != from && top.contains(&to) {
                    graph.entry(from.clone()).or_default().insert(to);
                }
            }
        }
        graph.entry(from).or_default();
    }
    graph
}

enum Root {
    Crate,
    Super(usize),
}

/// Each `crate::…` and `super::…` path in `code`: where it starts, and the first names after
/// it (each of a `{…}` group).
fn regex_lite_find(code: &str) -> Vec<(Root, Vec<String>)> {
    let bytes = code.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let at = |i: usize, what: &[u8]| bytes.get(i..).is_some_and(|rest| rest.starts_with(what));
    let word = |from: usize| -> String {
        let end = (from..bytes.len())
            .find(|&k| !is_word(bytes[k]))
            .unwrap_or(bytes.len());
        String::from_utf8_lossy(&bytes[from..end]).into_owned()
    };
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start_ok = i == 0 || !is_word(bytes[i - 1]);
        let (root, mut j) = if start_ok && at(i, b"crate::") {
            (Root::Crate, i + 7)
        } else if start_ok && at(i, b"super::") {
            let mut ups = 1;
            let mut j = i + 7;
            while at(j, b"super::") {
                ups += 1;
                j += 7;
            }
            (Root::Super(ups), j)
        } else {
            i += 1;
            continue;
        };
        let mut names = Vec::new();
        if at(j, b"{") {
            let end = (j..bytes.len())
                .find(|&k| bytes[k] == b'}')
                .unwrap_or(bytes.len());
            let mut k = j + 1;
            while k < end {
                while k < end && !is_word(bytes[k]) {
                    k += 1;
                }
                let name = word(k);
                if !name.is_empty() {
                    names.push(name.clone());
                }
                // On to the next item of the group, past any path it goes on with.
                k = (k..end).find(|&x| bytes[x] == b',').map_or(end, |x| x + 1);
            }
            j = end;
        } else {
            let name = word(j);
            j += name.len();
            if !name.is_empty() {
                names.push(name);
            }
        }
        found.push((root, names));
        i = j.max(i + 1);
    }
    found
}

/// The circles among `graph`'s modules: each a list of modules that reach one another.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reaches = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if next == to {
                    return true;
                }
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        false
    };
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for m in graph.keys() {
        if done.contains(m) || !reaches(m, m) {
            continue;
        }
        let circle: Vec<String> = graph
            .keys()
            .filter(|o| *o == m || (reaches(m, o) && reaches(o, m)))
            .cloned()
            .collect();
        done.extend(circle.iter().cloned());
        found.push(circle);
    }
    found
}

/// No circles between the files of a crate: each top-level module reads from top to bottom.
#[test]
fn no_crate_has_a_circle_between_its_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut looked = 0;
    for src in [
        "src",
        "crates/domain/src",
        "crates/store/src",
        "crates/port/src",
        "crates/integrations/src",
        "crates/engine/src",
        "crates/phone/src",
        "src-tauri/src",
    ] {
        let graph = module_graph(&root.join(src));
        looked += graph.len();
        for circle in circles(&graph) {
            found.push(format!("{src}: {}", circle.join(" ↔ ")));
        }
    }
    assert!(looked > 50, "the check saw the modules ({looked})");
    assert!(
        found.is_empty(),
        "circles between files:\n{}",
        found.join("\n")
    );
}

/// The check finds a circle when one is there.
#[test]
fn a_circle_between_files_is_caught() {
    let graph = BTreeMap::from([
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["c".to_owned()])),
        ("c".to_owned(), BTreeSet::from(["a".to_owned()])),
        ("d".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]);
    assert_eq!(circles(&graph), vec![vec!["a", "b", "c"]]);
    let parsed = regex_lite_find("use super::{x, y::Z};\nlet q = crate::w::f(); super::super::v");
    let names: Vec<Vec<String>> = parsed.into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, vec![vec!["x", "y"], vec!["w"], vec!["v"]]);
}
