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
        (
            "countersign",
            Layer {
                uses: &[
                    "countersign-domain",
                    "countersign-port",
                    "countersign-integrations",
                    "countersign-engine",
                ],
                never: &["tauri", "sqlx"],
            },
        ),
        (
            "countersign-desktop",
            Layer {
                uses: &["countersign-domain", "countersign-engine"],
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
