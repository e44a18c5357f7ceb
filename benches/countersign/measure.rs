//! Timing helpers and the results files.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One line of the results table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub name: String,
    pub value: f64,
    pub unit: String,
    pub baseline_name: Option<String>,
    pub baseline_value: Option<f64>,
    pub ratio: Option<f64>,
    pub goal: String,
    pub met: bool,
}

impl Row {
    /// A measurement with its goal.
    pub fn new(name: &str, value: f64, unit: &str, goal: &str, met: bool) -> Self {
        eprintln!(
            "{name}: {value:.3} {unit} (goal {goal}: {})",
            if met { "met" } else { "NOT met" }
        );
        Row {
            name: name.into(),
            value,
            unit: unit.into(),
            baseline_name: None,
            baseline_value: None,
            ratio: None,
            goal: goal.into(),
            met,
        }
    }

    /// Adds the baseline it was compared with.
    pub fn against(mut self, baseline: &str, value: f64) -> Self {
        self.baseline_name = Some(baseline.into());
        self.baseline_value = Some(value);
        self.ratio = (value != 0.0).then(|| self.value / value);
        self
    }
}

/// The q-quantile of durations, in milliseconds.
pub fn quantile_ms(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// Writes the JSON and markdown results, with the desktop benchmark's rows when it ran first
/// (`make bench` runs it under Xvfb and it writes target/bench/desktop.json). An unoptimised
/// build (`cargo test --all-targets` runs this binary as a smoke test) writes to
/// target/bench/debug instead, so its figures never stand in for real ones.
pub fn write(rows: &[Row]) {
    let bench = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    let dir = if cfg!(debug_assertions) {
        bench.join("debug")
    } else {
        bench.clone()
    };
    std::fs::create_dir_all(&dir).unwrap();
    let mut rows = rows.to_vec();
    if let Ok(text) = std::fs::read_to_string(bench.join("desktop.json"))
        && !cfg!(debug_assertions)
    {
        let desktop: Vec<Row> = serde_json::from_str(&text).unwrap();
        rows.extend(desktop);
    }
    std::fs::write(
        dir.join("results.json"),
        serde_json::to_string_pretty(&rows).unwrap(),
    )
    .unwrap();
    let mut md = String::from(
        "| benchmark | value | baseline | ratio | goal | met |\n|---|---|---|---|---|---|\n",
    );
    for r in &rows {
        let base = match (&r.baseline_name, r.baseline_value) {
            (Some(n), Some(v)) => format!("{n}: {v:.3}"),
            _ => "—".into(),
        };
        let ratio = r.ratio.map_or("—".into(), |x| format!("{x:.2}"));
        md.push_str(&format!(
            "| {} | {:.3} {} | {} | {} | {} | {} |\n",
            r.name,
            r.value,
            r.unit,
            base,
            ratio,
            r.goal,
            if r.met { "yes" } else { "**no**" }
        ));
    }
    std::fs::write(dir.join("results.md"), &md).unwrap();
    println!("{md}");
}
