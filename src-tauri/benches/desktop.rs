//! The desktop benchmark: cold start to first paint and idle memory of Countersign's window,
//! side by side with a hello-world Tauri app built from the same Tauri versions
//! (benches/hello-tauri). Runs under Xvfb and a session bus (`make bench` sets both up).
//!
//! Each app is started through tauri-driver, the way the end-to-end tests start it, so both
//! pay the same launcher. Cold start is measured from the app process's start (its
//! `/proc/<pid>/stat` start time) to the page's first contentful paint as WebKit itself
//! records it (`performance.timeOrigin` + the paint entry); the goal takes each app's fastest
//! of seven launches (see `main` for why), the median is shown beside it. Idle memory is the
//! median resident set of the app and every process under it (WebKit's web and network
//! processes), five seconds after that paint. Writes target/bench/desktop.json, which the
//! main benchmark adds to its table.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use nix::time::{ClockId, clock_gettime};
use serde_json::{Value, json};

/// Rounds per app after one warm-up each.
const ROUNDS: usize = 7;

/// How long each app sits idle after its first paint before its memory is read.
const IDLE: Duration = Duration::from_secs(5);
const WAIT: Duration = Duration::from_secs(30);
/// The goal: at most this times the hello-world app, on both measures.
const GOAL: f64 = 1.2;
/// The goal for idle memory with one artifact preview open.
const PREVIEW_GOAL: f64 = 1.3;

struct Subject {
    name: &'static str,
    bin: PathBuf,
    /// A fresh data directory per launch, for Countersign.
    fresh_data_dir: bool,
    /// Open the dashboard artifact's preview after the first paint and measure it.
    preview: bool,
}

struct Sample {
    start_ms: f64,
    /// From the process's start to the app's first frame with the UI rendered (its
    /// `app-painted` mark; the first paint is the frame index.html draws while the script
    /// loads). None for the hello-world app, which has no script.
    rendered_ms: Option<f64>,
    rss_kib: u64,
    /// Countersign only: the dashboard artifact's preview, from the click that opens its page
    /// to the frame's first paint, the idle memory with that preview open, and after leaving
    /// its page for the inbox.
    preview: Option<(f64, u64, u64)>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let release = root().join("target/release");
    let subjects = [
        Subject {
            name: "hello-tauri",
            bin: release.join("hello-tauri"),
            fresh_data_dir: false,
            preview: false,
        },
        Subject {
            name: "countersign",
            bin: release.join("countersign-desktop"),
            fresh_data_dir: true,
            preview: true,
        },
    ];
    // `DESKTOP_BENCH_ONLY=history`: only the history scroll, printed, nothing written.
    if std::env::var("DESKTOP_BENCH_ONLY").as_deref() == Ok("history") {
        let h = history_scroll().await;
        eprintln!(
            "history: longest frame {:.0} ms over {} decisions scrolled (first launch ever {:.0} ms); \
             earliest shown in {:.0} ms",
            h.longest_frame_ms, h.scrolled, h.first_launch_longest_ms, h.earliest_ms
        );
        return;
    }
    // `DESKTOP_BENCH_ONLY=idle`: only the idle measurement, printed, nothing written.
    if std::env::var("DESKTOP_BENCH_ONLY").as_deref() == Ok("idle") {
        let (empty, many) = (idle_cpu(0).await, idle_cpu(IDLE_PENDING).await);
        eprintln!(
            "idle CPU: {:.2} % empty, {:.2} % with {IDLE_PENDING} pending; RSS {:.0} → {:.0} MiB; \
             first cards {:?} ms (first launch {:?} ms); arrival {:?} ms; burst input to paint {:?}; key to card {:?} ms; \
             list scroll longest frame {:?} ms",
            empty.cpu,
            many.cpu,
            empty.rss_mib,
            many.rss_mib,
            many.first_card_ms,
            many.first_card_first_launch_ms,
            many.arrival_ms,
            many.burst_input_ms,
            many.key_to_card_ms,
            many.list_scroll_ms
        );
        return;
    }
    // `DESKTOP_BENCH_ONLY=preview`: three launches with the preview, printed, nothing written.
    if std::env::var("DESKTOP_BENCH_ONLY").as_deref() == Ok("preview") {
        for _ in 0..3 {
            let x = launch(&subjects[1]).await;
            if let Some((paint, with, left)) = x.preview {
                eprintln!(
                    "preview: idle {} MiB; with the preview {} MiB (first paint {paint:.0} ms); after leaving it {} MiB",
                    x.rss_kib / 1024,
                    with / 1024,
                    left / 1024
                );
            }
        }
        return;
    }
    // `DESKTOP_BENCH_ONLY=agents`: only many agents at once, printed, nothing written.
    if std::env::var("DESKTOP_BENCH_ONLY").as_deref() == Ok("agents") {
        many_agents_rows(&many_agents().await);
        return;
    }
    // `DESKTOP_BENCH_ONLY=installed`: only the installed package's cold start, printed.
    if std::env::var("DESKTOP_BENCH_ONLY").as_deref() == Ok("installed") {
        match installed_cold_start(&subjects[0]).await {
            Some(row) => eprintln!("{row:#}"),
            None => eprintln!("no installed package at {INSTALLED}"),
        }
        return;
    }
    for s in &subjects {
        assert!(
            s.bin.exists(),
            "{} is missing: `make bench` builds it (cargo build --release -p countersign-desktop -p hello-tauri)",
            s.bin.display()
        );
    }
    // Warm the page cache for both, then alternate so drift on a shared machine hits both.
    for s in &subjects {
        launch(s).await;
    }
    let mut samples: [Vec<Sample>; 2] = [Vec::new(), Vec::new()];
    for round in 0..ROUNDS {
        for (i, s) in subjects.iter().enumerate() {
            let sample = launch(s).await;
            eprintln!(
                "round {round}: {} first paint {:.0} ms, idle RSS {} MiB",
                s.name,
                sample.start_ms,
                sample.rss_kib / 1024
            );
            samples[i].push(sample);
        }
    }
    let sorted = |f: &dyn Fn(&Sample) -> f64, i: usize| {
        let mut v: Vec<f64> = samples[i].iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let start_ms = |x: &Sample| x.start_ms;
    let rss_mib = |x: &Sample| x.rss_kib as f64 / 1024.0;
    let (start, base_start) = (sorted(&start_ms, 1), sorted(&start_ms, 0));
    let (rss, base_rss) = (sorted(&rss_mib, 1), sorted(&rss_mib, 0));
    let median = |v: &[f64]| v[v.len() / 2];
    let row = |name: &str, ours: f64, base: f64, unit: &str, goal: bool| {
        let ratio = ours / base;
        let met = !goal || ratio <= GOAL;
        eprintln!("{name}: {ours:.1} {unit} vs {base:.1} (×{ratio:.2})");
        json!({
            "name": name, "value": ours, "unit": unit,
            "baseline_name": "hello-world Tauri app", "baseline_value": base,
            "ratio": ratio,
            "goal": if goal { format!("≤ {GOAL} × hello-world") } else { "informational".into() },
            "met": met,
        })
    };
    // Launched under WebDriver, an app whose main loop starts a few tens of milliseconds
    // later sometimes has its page held ~480 ms for the driver's connection (the hello-world
    // app does the same once its setup sleeps 40 ms; launched directly, neither ever does).
    // So cold start takes each app's fastest launch, and shows the medians beside it.
    let rows = vec![
        row(
            "desktop_cold_start_to_first_paint_best",
            start[0],
            base_start[0],
            "ms",
            true,
        ),
        row(
            "desktop_cold_start_to_first_paint_median",
            median(&start),
            median(&base_start),
            "ms",
            false,
        ),
        {
            // The frame index.html draws paints first; this is the app's own first frame.
            let mut rendered: Vec<f64> = samples[1].iter().filter_map(|x| x.rendered_ms).collect();
            rendered.sort_by(f64::total_cmp);
            let value = rendered
                .get(rendered.len() / 2)
                .copied()
                .unwrap_or(f64::NAN);
            eprintln!("desktop_cold_start_to_app_rendered_median: {value:.1} ms ({rendered:.0?})");
            json!({
                "name": "desktop_cold_start_to_app_rendered_median", "value": value, "unit": "ms",
                "baseline_name": "hello-world Tauri app's first paint", "baseline_value": median(&base_start),
                "ratio": value / median(&base_start),
                "goal": "informational: the UI's own first frame (the first paint is the page's frame)",
                "met": true,
            })
        },
        row(
            "desktop_idle_rss",
            median(&rss),
            median(&base_rss),
            "MiB",
            true,
        ),
    ];
    // `DESKTOP_BENCH_ONLY=launch`: only the launches beside hello-world's, printed above.
    if std::env::var("DESKTOP_BENCH_ONLY").as_deref() == Ok("launch") {
        return;
    }
    let previews: Vec<(f64, u64, u64)> = samples[1].iter().filter_map(|x| x.preview).collect();
    let mut paint: Vec<f64> = previews.iter().map(|p| p.0).collect();
    paint.sort_by(f64::total_cmp);
    let mut preview_rss: Vec<f64> = previews.iter().map(|p| p.1 as f64 / 1024.0).collect();
    preview_rss.sort_by(f64::total_cmp);
    let paint_ms = median(&paint);
    eprintln!("desktop_preview_first_paint: {paint_ms:.0} ms (all: {paint:?})");
    let mut rows = rows;
    rows.push(json!({
        "name": "desktop_preview_first_paint_300_line_dashboard",
        "value": paint_ms, "unit": "ms",
        "baseline_name": null, "baseline_value": null, "ratio": null,
        "goal": "≤ 300 ms after the page opens (median)",
        "met": paint_ms <= 300.0,
    }));
    let mut left_rss: Vec<f64> = previews.iter().map(|p| p.2 as f64 / 1024.0).collect();
    left_rss.sort_by(f64::total_cmp);
    let (left, without) = (median(&left_rss), median(&rss));
    eprintln!(
        "desktop_idle_rss_after_leaving_preview: {left:.1} MiB (×{:.2} the window without one)",
        left / without
    );
    rows.push(json!({
        "name": "desktop_idle_rss_after_leaving_preview",
        "value": left, "unit": "MiB",
        "baseline_name": "the window before the preview", "baseline_value": without,
        "ratio": left / without,
        "goal": "≤ 1.1 × the window before the preview",
        "met": left / without <= 1.1,
    }));
    let with_preview = median(&preview_rss);
    let ratio = with_preview / median(&base_rss);
    eprintln!("desktop_idle_rss_with_preview: {with_preview:.1} MiB (×{ratio:.2})");
    rows.push(json!({
        "name": "desktop_idle_rss_with_preview",
        "value": with_preview, "unit": "MiB",
        "baseline_name": "hello-world Tauri app", "baseline_value": median(&base_rss),
        "ratio": ratio,
        "goal": format!("≤ {PREVIEW_GOAL} × hello-world"),
        "met": ratio <= PREVIEW_GOAL,
    }));
    // A window at rest: the app's whole process tree, 0 and 10,000 pending approvals.
    let (empty_rest, many_rest) = (idle_cpu(0).await, idle_cpu(IDLE_PENDING).await);
    let (empty, many) = (empty_rest.cpu, many_rest.cpu);
    eprintln!(
        "desktop_idle_cpu: {empty:.2} % of a core empty, {many:.2} % with {IDLE_PENDING} pending"
    );
    let first = many_rest.first_card_ms.unwrap_or(f64::INFINITY);
    // The first launch ever is stated, not held to the goal (README, Performance).
    eprintln!(
        "desktop_first_cards_10000_pending on the first launch ever: {:?} ms",
        many_rest.first_card_first_launch_ms
    );
    let arrived = many_rest.arrival_ms.unwrap_or(f64::INFINITY);
    let grew = many_rest.rss_mib - empty_rest.rss_mib;
    let (burst_ms, presses) = many_rest.burst_input_ms.unwrap_or((f64::INFINITY, 0));
    let key_ms = many_rest.key_to_card_ms.unwrap_or(f64::INFINITY);
    let scroll_ms = many_rest.list_scroll_ms.unwrap_or(f64::INFINITY);
    for (name, value, unit, goal, met, base) in [
        (
            "desktop_first_cards_10000_pending",
            first,
            "ms",
            "first list rows and the first whole card ≤ 300 ms from the window's page start",
            first <= 300.0,
            None,
        ),
        (
            "desktop_key_to_next_card_10000_pending",
            key_ms,
            "ms",
            "≤ 50 ms from a j/k press to the next card painted",
            key_ms <= 50.0,
            None,
        ),
        (
            "desktop_inbox_list_scroll_10000_pending",
            scroll_ms,
            "ms",
            "no frame over 50 ms while the list is flicked down fast",
            scroll_ms <= 50.0,
            None,
        ),
        (
            "desktop_arrival_shown_10000_pending",
            arrived,
            "ms",
            "≤ 50 ms after its 202",
            arrived <= 50.0,
            None,
        ),
        (
            "desktop_burst_1000_input_to_paint_max",
            burst_ms,
            "ms",
            "≤ 100 ms from a key press to its frame while 1,000 submissions arrive in 1 s",
            burst_ms <= 100.0 && presses >= 8,
            None,
        ),
        (
            "desktop_rss_10000_pending",
            many_rest.rss_mib,
            "MiB",
            "≤ empty inbox + 150 MiB",
            grew <= 150.0,
            Some(empty_rest.rss_mib),
        ),
    ] {
        eprintln!("{name}: {value:.1} {unit}");
        rows.push(json!({
            "name": name, "value": value, "unit": unit,
            "baseline_name": base.map(|_| "empty inbox"), "baseline_value": base,
            "ratio": null, "goal": goal, "met": met,
        }));
    }
    for (name, value) in [
        ("desktop_idle_cpu_empty_inbox", empty),
        ("desktop_idle_cpu_10000_pending", many),
    ] {
        rows.push(json!({
            "name": name, "value": value, "unit": "% of one core",
            "baseline_name": if name.ends_with("pending") { json!("empty inbox") } else { json!(null) },
            "baseline_value": if name.ends_with("pending") { json!(empty) } else { json!(null) },
            "ratio": null,
            "goal": format!("≤ {IDLE_CPU_GOAL} % of one core at rest"),
            "met": value <= IDLE_CPU_GOAL,
        }));
    }
    // History over 1,000,000 decisions: scrolled through, then its end in one step.
    let h = history_scroll().await;
    // The first launch ever is stated, not held to the goal (README, Performance).
    eprintln!(
        "desktop_history_1m: longest frame {:.0} ms over {} decisions scrolled (first launch ever \
         {:.0} ms); earliest shown in {:.0} ms",
        h.longest_frame_ms, h.scrolled, h.first_launch_longest_ms, h.earliest_ms
    );
    rows.push(json!({
        "name": "desktop_history_1m_longest_frame",
        "value": h.longest_frame_ms, "unit": "ms",
        "baseline_name": null, "baseline_value": null, "ratio": null,
        "goal": format!(
            "no frame over {HISTORY_FRAME_GOAL} ms while scrolling {} decisions of 1,000,000 and jumping to the earliest",
            h.scrolled
        ),
        "met": h.longest_frame_ms <= HISTORY_FRAME_GOAL && h.scrolled >= HISTORY_SCROLL_AT_LEAST,
    }));
    rows.push(json!({
        "name": "desktop_history_1m_earliest_shown",
        "value": h.earliest_ms, "unit": "ms",
        "baseline_name": null, "baseline_value": null, "ratio": null,
        "goal": "informational", "met": true,
    }));
    // Eight agents at once beside the open window.
    rows.extend(many_agents_rows(&many_agents().await));
    if let Some(row) = installed_cold_start(&subjects[0]).await {
        rows.push(row);
    }
    let out = root().join("target/bench");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(
        out.join("desktop.json"),
        serde_json::to_string_pretty(&rows).unwrap(),
    )
    .unwrap();
}

/// The window the `.deb` installs.
const INSTALLED: &str = "/usr/bin/countersign-desktop";

/// The installed package's cold start against the same hello-world app, launches alternating,
/// each app's fastest as for the build tree's row; None when the package is not installed
/// (`make deb`, then `apt install ./target/release/bundle/deb/*.deb`).
async fn installed_cold_start(hello: &Subject) -> Option<Value> {
    let bin = PathBuf::from(INSTALLED);
    if !bin.exists() {
        eprintln!("desktop_installed_cold_start: {INSTALLED} is not installed; row left out");
        return None;
    }
    let installed = Subject {
        name: "installed",
        bin,
        fresh_data_dir: true,
        preview: false,
    };
    launch(&installed).await;
    let (mut ours, mut base) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        base.push(launch(hello).await.start_ms);
        ours.push(launch(&installed).await.start_ms);
    }
    ours.sort_by(f64::total_cmp);
    base.sort_by(f64::total_cmp);
    let ratio = ours[0] / base[0];
    eprintln!(
        "desktop_installed_cold_start_to_first_paint_best: {:.1} ms vs {:.1} (×{ratio:.2})",
        ours[0], base[0]
    );
    Some(json!({
        "name": "desktop_installed_cold_start_to_first_paint_best",
        "value": ours[0], "unit": "ms",
        "baseline_name": "hello-world Tauri app", "baseline_value": base[0],
        "ratio": ratio,
        "goal": format!("≤ {GOAL} × hello-world"),
        "met": ratio <= GOAL,
    }))
}

/// Starts tauri-driver on `port` in its own process group (so stopping it ends WebKitWebDriver
/// too), with fresh WebKit data and caches under `home`: a cold start, nothing left in $HOME.
fn driver(home: &Path, port: u16) -> Child {
    Command::new("tauri-driver")
        .process_group(0)
        .env("XDG_DATA_HOME", home.join("xdg-data"))
        .env("XDG_CACHE_HOME", home.join("xdg-cache"))
        .env("XDG_CONFIG_HOME", home.join("xdg-config"))
        .args([
            "--port",
            &port.to_string(),
            "--native-port",
            &free_port().to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tauri-driver on PATH (make deps installs it)")
}

/// Where the console of data directory `dir` listens, and its token, as an agent finds them.
fn agent(dir: &Path) -> (String, String) {
    let conn: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("connection.json")).unwrap())
            .unwrap();
    let token = Command::new(root().join("target/release/countersign"))
        .args(["token", "--data-dir"])
        .arg(dir)
        .output()
        .unwrap();
    let token = String::from_utf8(token.stdout).unwrap().trim().to_owned();
    (conn["url"].as_str().unwrap().to_owned(), token)
}

/// Starts `s` under tauri-driver, waits for its first paint and the idle time, measures, quits.
async fn launch(s: &Subject) -> Sample {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut driver = driver(data.path(), port);
    let args: Vec<Value> = if s.fresh_data_dir {
        vec![json!("--data-dir"), json!(data.path().join("countersign"))]
    } else {
        Vec::new()
    };
    let caps = json!({
        "browserName": "wry",
        "tauri:options": { "application": s.bin, "args": args },
    });
    let client = session(port, caps.as_object().unwrap().clone()).await;
    let painted = first_paint(&client).await;
    let pid = app_pid(&s.bin);
    let start_ms = painted - process_start_epoch_ms(pid);
    // Where the time went: the page's navigation start, and its milestones after it.
    let milestones = client
        .execute(
            "const n = performance.getEntriesByType('navigation')[0];
             const mark = (m) => performance.getEntriesByName(m)[0]?.startTime ?? null;
             return [performance.timeOrigin, n.domContentLoadedEventEnd, n.loadEventEnd,
                     n.responseEnd, mark('app-script')];",
            vec![],
        )
        .await
        .unwrap();
    let navigation = milestones[0].as_f64().unwrap() - process_start_epoch_ms(pid);
    eprintln!(
        "  {}: navigation {navigation:.0} ms after start; page read +{:.0}, script runs +{}, DOM ready +{:.0}, loaded +{:.0}, first paint +{:.0}",
        s.name,
        milestones[3].as_f64().unwrap_or(f64::NAN),
        milestones[4]
            .as_f64()
            .map_or("–".into(), |t| format!("{t:.0}")),
        milestones[1].as_f64().unwrap_or(f64::NAN),
        milestones[2].as_f64().unwrap_or(f64::NAN),
        painted - milestones[0].as_f64().unwrap()
    );
    let rendered_ms = app_rendered(&client)
        .await
        .map(|t| t - process_start_epoch_ms(pid));
    if let Some(r) = rendered_ms {
        eprintln!("  {}: the app rendered {r:.0} ms after start", s.name);
    }
    tokio::time::sleep(IDLE).await;
    let rss_kib = tree_rss_kib(pid);
    // `DESKTOP_BENCH_ONLY=preview` also says which process holds the memory, and for how long.
    let explain = std::env::var("DESKTOP_BENCH_ONLY").as_deref() == Ok("preview");
    if explain {
        eprintln!("  idle: {}", rss_by_process(pid));
    }
    let preview = if s.preview {
        let paint = open_preview(&client, &data.path().join("countersign")).await;
        tokio::time::sleep(IDLE).await;
        let with_preview = tree_rss_kib(pid);
        if explain {
            eprintln!("  with the preview: {}", rss_by_process(pid));
        }
        // Then the person leaves the artifact page: what the preview held should be let go.
        client.enter_parent_frame().await.unwrap();
        go_to(&client, "inbox").await;
        tokio::time::sleep(IDLE).await;
        let left = tree_rss_kib(pid);
        if explain {
            eprintln!("  {IDLE:?} after leaving: {}", rss_by_process(pid));
            tokio::time::sleep(Duration::from_secs(25)).await;
            eprintln!("  +25 s more: {}", rss_by_process(pid));
            // Held for good, or kept for reuse: the same preview opened and left again.
            for again in 2..=4 {
                open_preview(&client, &data.path().join("countersign")).await;
                tokio::time::sleep(IDLE).await;
                let with = tree_rss_kib(pid) / 1024;
                client.enter_parent_frame().await.unwrap();
                go_to(&client, "inbox").await;
                tokio::time::sleep(IDLE).await;
                eprintln!(
                    "  opened again ({again} of 4): {with} MiB; left: {} MiB",
                    tree_rss_kib(pid) / 1024
                );
            }
        }
        Some((paint, with_preview, left))
    } else {
        None
    };
    let _ = tokio::time::timeout(WAIT, client.close()).await;
    stop(&mut driver, pid).await;
    Sample {
        start_ms,
        rendered_ms,
        rss_kib,
        preview,
    }
}

/// Pending approvals for the idle measurement.
const IDLE_PENDING: usize = 10_000;
/// The goal for a window at rest, in percent of one core.
const IDLE_CPU_GOAL: f64 = 1.0;
/// How long the window sits untouched before, and then while, its CPU time is read.
const REST: Duration = Duration::from_secs(10);

/// Fills a fresh data directory with `pending` approvals (as agents' submissions, each a
/// different command, open for a day), starts the app on it, waits until the inbox shows them,
/// leaves it alone for [`REST`], then returns the CPU its process tree used over the next
/// [`REST`], in percent of one core.
/// A window at rest with some pending approvals.
struct Rest {
    /// CPU of the process tree, in percent of one core.
    cpu: f64,
    /// Resident memory of the process tree, in MiB.
    rss_mib: f64,
    /// From the window's page starting to its first cards painted, in ms (none for an empty
    /// inbox): the median of three launches after the first, as every launch but the first is.
    first_card_ms: Option<f64>,
    /// The same on the very first launch, with nothing cached yet (none for an empty inbox).
    first_card_first_launch_ms: Option<f64>,
    /// From a submission's 202 to the page showing it, in ms (none for an empty inbox).
    arrival_ms: Option<f64>,
    /// The slowest key press to the frame showing it while 1,000 submissions arrive in one
    /// second, in ms, and how many presses were timed (none for an empty inbox).
    burst_input_ms: Option<(f64, usize)>,
    /// The slowest `j`/`k` press to the frame showing the next card, with nothing arriving,
    /// in ms (none for an empty inbox).
    key_to_card_ms: Option<f64>,
    /// The longest frame while the list is flicked down fast, in ms (none for an empty inbox).
    list_scroll_ms: Option<f64>,
}

async fn idle_cpu(pending: usize) -> Rest {
    let data = tempfile::tempdir().unwrap();
    let dir = countersign_engine::data_dir::DataDir::at(data.path().join("countersign"))
        .create()
        .unwrap();
    {
        let store = countersign_store::Store::open(&dir.prepare_db().unwrap())
            .await
            .unwrap();
        let console = countersign_engine::console::Console::new(store.clone());
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..pending {
            let console = console.clone();
            tasks.spawn(async move {
                let body = json!({
                    "tool": "bench.shell",
                    "requester": { "name": "bench agent", "session": format!("s{}", i % 50) },
                    "call": { "card": "terminal", "title": "Run a command",
                              "command": format!("cargo test --package crate{i}") },
                    "expires_in_s": 86_400,
                });
                console
                    .submit(serde_json::from_value(body).unwrap())
                    .await
                    .unwrap();
            });
            if tasks.len() >= 256 {
                tasks.join_next().await;
            }
        }
        while tasks.join_next().await.is_some() {}
        console.close();
        store.close().await;
    }
    let bin = root().join("target/release/countersign-desktop");
    let caps = json!({
        "browserName": "wry",
        "tauri:options": { "application": bin, "args": ["--data-dir", dir.root()] },
    });
    // The very first launch compiles and caches what later launches find ready (Mesa's
    // software renderer compiles its shaders, WebKit fills its caches): measured once, then
    // the window is opened again, as a person opens it every day.
    // Launches before the measured one: the first ever, then two more, each timed to its first
    // cards painted.
    let mut launches = Vec::new();
    for _ in 0..if pending > 0 { 3 } else { 0 } {
        let port = free_port();
        let mut driver = driver(data.path(), port);
        let client = session(port, caps.as_object().unwrap().clone()).await;
        wait_for(
            &client,
            "return performance.getEntriesByName('inbox-first-card').length > 0;",
        )
        .await;
        let first = client
            .execute(
                "return performance.getEntriesByName('inbox-first-card')[0].startTime;",
                vec![],
            )
            .await
            .unwrap()
            .as_f64();
        let pid = app_pid(&bin);
        let _ = tokio::time::timeout(WAIT, client.close()).await;
        stop(&mut driver, pid).await;
        launches.push(first.unwrap_or(f64::INFINITY));
    }
    eprintln!("  {pending} pending, launches before: first cards at {launches:.0?} ms");
    let first_card_first_launch_ms = launches.first().copied();
    let port = free_port();
    let mut driver = driver(data.path(), port);
    let client = session(port, caps.as_object().unwrap().clone()).await;
    let shown = if pending == 0 {
        "return !!document.querySelector('[data-testid=empty-inbox]');".to_owned()
    } else {
        format!(
            "const b = document.querySelector('[data-testid=pending-badge]');
             return !!b && b.textContent.replace(/\\D/g, '') === '{pending}'
                 && !!document.querySelector('[data-testid=approval-card]');"
        )
    };
    let started = Instant::now();
    while client.execute(&shown, vec![]).await.unwrap() != json!(true) {
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "the inbox never showed {pending} pending approvals"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!(
        "  {pending} pending shown after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let pid = app_pid(&bin);
    tokio::time::sleep(REST).await;
    let per_process = |pid: u32| -> Vec<(u32, String, u64)> {
        tree(pid)
            .into_iter()
            .filter_map(|p| {
                let f = stat_fields(p)?;
                let name = std::fs::read_to_string(format!("/proc/{p}/comm")).ok()?;
                Some((
                    p,
                    name.trim().to_owned(),
                    f[11].parse::<u64>().ok()? + f[12].parse::<u64>().ok()?,
                ))
            })
            .collect()
    };
    let first = per_process(pid);
    let before = (tree_cpu_ticks(pid), Instant::now());
    tokio::time::sleep(REST).await;
    let after = (tree_cpu_ticks(pid), Instant::now());
    // Where the time went, by process.
    for (p, name, ticks) in per_process(pid) {
        let was = first.iter().find(|(q, ..)| *q == p).map_or(0, |x| x.2);
        eprintln!("    {name} ({p}): {} ticks", ticks.saturating_sub(was));
    }
    let hz = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .unwrap()
        .unwrap() as f64;
    let busy = (after.0 - before.0) as f64 / hz;
    let rss_mib = tree_rss_kib(pid) as f64 / 1024.0;
    let marks = client
        .execute(
            "return performance.getEntriesByType('mark')
                .map((m) => m.name + ' ' + m.startTime.toFixed(1)).join(', ');",
            vec![],
        )
        .await
        .unwrap();
    eprintln!("  {pending} pending, the page's marks (ms from its start): {marks}");
    let (first_card_ms, arrival_ms, list_scroll_ms, burst_input_ms) = if pending > 0 {
        let painted = client
            .execute(
                "const m = performance.getEntriesByName('inbox-first-card')[0];
                 return m ? m.startTime : null;",
                vec![],
            )
            .await
            .unwrap()
            .as_f64()
            .expect("the inbox marks its first cards");
        let arrived = arrival(&client, dir.root()).await;
        let scrolled = list_scroll(&client).await;
        (
            // The median of the three launches after the first.
            Some({
                let mut three = [launches[1], launches[2], painted];
                three.sort_by(f64::total_cmp);
                three[1]
            }),
            Some(arrived),
            Some(scrolled),
            Some(burst(&client, dir.root()).await),
        )
    } else {
        (None, None, None, None)
    };
    // Where it goes: the same window on another page (the inbox unmounted, its data kept).
    if pending > 0 {
        go_to(&client, "settings").await;
        tokio::time::sleep(REST).await;
        let t0 = (tree_cpu_ticks(pid), Instant::now());
        tokio::time::sleep(REST).await;
        let t1 = (tree_cpu_ticks(pid), Instant::now());
        eprintln!(
            "  on Settings with {pending} pending: {:.2} % of a core",
            (t1.0 - t0.0) as f64 / hz / (t1.1 - t0.1).as_secs_f64() * 100.0
        );
    }
    let _ = tokio::time::timeout(WAIT, client.close()).await;
    stop(&mut driver, pid).await;
    Rest {
        cpu: busy / (after.1 - before.1).as_secs_f64() * 100.0,
        rss_mib,
        first_card_ms,
        first_card_first_launch_ms,
        arrival_ms,
        burst_input_ms: burst_input_ms.map(|(slowest, presses, _)| (slowest, presses)),
        key_to_card_ms: burst_input_ms.map(|(.., at_rest)| at_rest),
        list_scroll_ms,
    }
}

/// The longest frame History may take while it scrolls, in ms.
const HISTORY_FRAME_GOAL: f64 = 50.0;
/// How many decisions the scroll must at least pass through for the row to count.
const HISTORY_SCROLL_AT_LEAST: u64 = 500;

/// History over a large store, as a person scrolls it.
struct HistoryScroll {
    /// The longest time between two frames of the page while it scrolled and jumped, in ms.
    longest_frame_ms: f64,
    /// How many decisions the list held when the scroll ended.
    scrolled: u64,
    /// From choosing "Earliest first" to the earliest decision shown, in ms.
    earliest_ms: f64,
    /// The longest frame of the same visit on the first launch ever, with nothing cached.
    first_launch_longest_ms: f64,
}

/// Fills a data directory with 1,000,000 decided approvals, opens History, scrolls down for
/// ten seconds (older decisions are read as the list nears the end of what it holds), then
/// shows the earliest first: the longest frame the page took throughout, as the page itself
/// measures the time between its frames.
///
/// The window is opened twice on the same data and caches, and the second visit is measured:
/// on the first launch ever, Mesa's software renderer compiles the shaders History's first
/// scroll needs (one frame of 700–860 ms here, gone once its shader cache holds them; README,
/// Performance), as the first cards' row states its first launch.
async fn history_scroll() -> HistoryScroll {
    let data = tempfile::tempdir().unwrap();
    let dir = countersign_engine::data_dir::DataDir::at(data.path().join("countersign"))
        .create()
        .unwrap();
    {
        let store = countersign_store::Store::open(&dir.prepare_db().unwrap())
            .await
            .unwrap();
        let call =
            r#"{"card":"terminal","title":"Run a command","command":"cargo test --workspace"}"#;
        let mut tx = store.write().await.unwrap();
        sqlx::query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
             INSERT INTO approvals (id, tool, requester_name, call_view, digest, hidden_marks,
                 status, decided_by, created_at, expires_at, decided_at)
             SELECT 'apr_' || printf('%026d', i), 'claude-code.Bash', 'bench agent', ?,
                 'sha256:00', 0, CASE i % 3 WHEN 0 THEN 'declined' ELSE 'approved' END, 'person',
                 1700000000000 + i * 1000, 1700000600000 + i * 1000, 1700000010000 + i * 1000
             FROM n",
        )
        .bind(call)
        .execute(tx.sqlite().unwrap())
        .await
        .unwrap();
        tx.commit().await.unwrap();
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(store.read().await.unwrap().sqlite().unwrap())
            .await
            .unwrap();
        store.close().await;
    }
    let first = history_visit(data.path(), dir.root()).await;
    eprintln!(
        "  history: the first launch ever, nothing cached: longest frame {:.0} ms",
        first.longest_frame_ms
    );
    let visit = history_visit(data.path(), dir.root()).await;
    HistoryScroll {
        first_launch_longest_ms: first.longest_frame_ms,
        ..visit
    }
}

/// One launch of the window on `home`'s caches and the data directory `dir`: History opened,
/// scrolled, and shown earliest first, as [`history_scroll`] describes.
async fn history_visit(home: &Path, dir: &Path) -> HistoryScroll {
    let port = free_port();
    let mut driver = driver(home, port);
    let bin = root().join("target/release/countersign-desktop");
    let caps = json!({
        "browserName": "wry",
        "tauri:options": { "application": bin, "args": ["--data-dir", dir] },
    });
    let client = session(port, caps.as_object().unwrap().clone()).await;
    let pid = app_pid(&bin);
    let wait_for = |js: &'static str| {
        let client = client.clone();
        async move {
            let started = Instant::now();
            while client.execute(js, vec![]).await.unwrap() != json!(true) {
                assert!(started.elapsed() < WAIT, "never true: {js}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    wait_for("return !!document.querySelector('[data-testid=nav-history]');").await;
    client
        .find(fantoccini::Locator::Css("[data-testid=nav-history]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        "return !!document.querySelector('[data-testid=history-list] [data-testid=history-row]');",
    )
    .await;
    // The page records the longest gap between its frames from now on.
    client
        .execute(
            "window.__longest = 0;
             let last = performance.now();
             window.__gaps = [];
             const tick = (t) => {
               if (t - last > 50) window.__gaps.push([Math.round(t), Math.round(t - last), document.querySelector('[data-testid=history-list]')?.dataset.count]);
               window.__longest = Math.max(window.__longest, t - last); last = t; requestAnimationFrame(tick);
             };
             requestAnimationFrame((t) => { last = t; requestAnimationFrame(tick); });
             // Whether a long frame is the page's own work: how long its scroll handling takes
             // (window's capture listener first, the list's own after the page's), and the
             // longest the page's thread was busy, by a 10 ms timer's lateness.
             window.__scrollJs = 0; let s0 = 0;
             const hl = document.querySelector('[data-testid=history-list]');
             window.addEventListener('scroll', () => { s0 = performance.now(); }, true);
             hl.addEventListener('scroll', () => { window.__scrollJs = Math.max(window.__scrollJs, performance.now() - s0); });
             let beat = performance.now(); window.__busy = 0;
             setInterval(() => { const n = performance.now(); window.__busy = Math.max(window.__busy, n - beat - 10); beat = n; }, 10);
             return true;",
            vec![],
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    // A person flicking down through History: two screens' height every 50 ms for ten seconds.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        client
            .execute(
                "const m = document.querySelector('[data-testid=history-list]'); m.scrollTop += 2 * m.clientHeight; return true;",
                vec![],
            )
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let scrolled = client
        .execute(
            "return Number(document.querySelector('[data-testid=history-list]').dataset.count);",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap_or(0);
    let scrolling = client
        .execute(
            "const l = window.__longest; window.__longest = 0; return l;",
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap_or(f64::INFINITY);
    eprintln!("  history: longest frame while scrolling {scrolling:.0} ms");
    eprintln!(
        "  history: frames over 50 ms while scrolling (at, took, decisions held): {}",
        client
            .execute("return JSON.stringify(window.__gaps.slice(0, 12));", vec![])
            .await
            .unwrap()
    );
    eprintln!(
        "  history: the page's thread busy at most {} ms at a time, its scroll handling at most {} ms",
        client
            .execute("return Math.round(window.__busy);", vec![])
            .await
            .unwrap(),
        client
            .execute("return Math.round(window.__scrollJs);", vec![])
            .await
            .unwrap()
    );
    // The other end of 1,000,000 in one step.
    client
        .execute(
            "window.__asked = performance.now();
             document.querySelector('[data-testid=history-oldest_first]').click();
             return true;",
            vec![],
        )
        .await
        .unwrap();
    let earliest = "const c = document.querySelector('[data-testid=history-card] .card');
                    if (!c || !c.textContent.includes('Run a command')) return null;
                    return document.querySelector('[data-testid=history-oldest_first]').getAttribute('aria-pressed') === 'true'
                        && Number(document.querySelector('[data-testid=history-list]').dataset.count) <= 100
                        ? performance.now() - window.__asked : null;";
    let started = Instant::now();
    let earliest_ms = loop {
        if let Some(ms) = client.execute(earliest, vec![]).await.unwrap().as_f64() {
            break ms;
        }
        assert!(
            started.elapsed() < WAIT,
            "the earliest decisions never showed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let jumping = client
        .execute("return window.__longest;", vec![])
        .await
        .unwrap()
        .as_f64()
        .unwrap_or(f64::INFINITY);
    eprintln!("  history: longest frame while showing the earliest {jumping:.0} ms");
    let longest_frame_ms = scrolling.max(jumping);
    let _ = tokio::time::timeout(WAIT, client.close()).await;
    stop(&mut driver, pid).await;
    HistoryScroll {
        longest_frame_ms,
        scrolled,
        earliest_ms,
        first_launch_longest_ms: longest_frame_ms,
    }
}

/// The page's own timing of key presses: each press's time to the frame after it, in
/// `window.__presses` (the event's own time, when the page has it, counts the wait in the
/// queue too).
const PRESSES_TIMED: &str = "window.__presses = []; window.__pressedAt = [];
     window.addEventListener('keydown', (e) => {
       const now = performance.now();
       const t0 = e.timeStamp > 0 && e.timeStamp <= now ? e.timeStamp : now;
       requestAnimationFrame(() => setTimeout(() => {
         window.__presses.push(performance.now() - t0);
         window.__pressedAt.push(performance.timeOrigin + t0);
       }, 0));
     }, true);";

/// Opens one of the window's pages from the sidebar, as a person would.
async fn go_to(client: &Client, page: &str) {
    client
        .find(fantoccini::Locator::Css(&format!(
            "[data-testid=nav-{page}]"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// The wall clock, in Unix milliseconds, as the page's `performance.timeOrigin` counts.
fn unix_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

/// Prints the time on `CLOCK_MONOTONIC`, to read a profile of one part of the run:
/// `perf record -k CLOCK_MONOTONIC -a -g` beside the bench, then `perf report --time START,END`
/// with the seconds two marks print.
fn profile_mark(what: &str) {
    if let Ok(t) = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC) {
        eprintln!(
            "  [{what} at {}.{:06} s monotonic]",
            t.tv_sec(),
            t.tv_nsec() / 1_000
        );
    }
}

/// How many submissions the burst sends, over one second.
const BURST: usize = 1_000;

/// Flicks the inbox's list down fast (two screens every 50 ms for five seconds, then back to the
/// top) and returns the longest time between two frames meanwhile, in ms.
async fn list_scroll(client: &Client) -> f64 {
    client
        .execute(
            "window.__longest = 0;
             let last = performance.now();
             const tick = (t) => { window.__longest = Math.max(window.__longest, t - last); last = t; requestAnimationFrame(tick); };
             requestAnimationFrame((t) => { last = t; requestAnimationFrame(tick); });
             return true;",
            vec![],
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    profile_mark("flick starts");
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        client
            .execute(
                "const l = document.querySelector('[data-testid=inbox-list]'); l.scrollTop += 2 * l.clientHeight; return true;",
                vec![],
            )
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    client
        .execute(
            "document.querySelector('[data-testid=inbox-list]').scrollTop = 0; return true;",
            vec![],
        )
        .await
        .unwrap();
    profile_mark("flick ends");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let longest = client
        .execute("return window.__longest;", vec![])
        .await
        .unwrap()
        .as_f64()
        .unwrap_or(f64::INFINITY);
    eprintln!("  inbox list flicked down: longest frame {longest:.0} ms");
    longest
}

/// Sends [`BURST`] submissions over one second while pressing `j` and `k` in the inbox every
/// 100 ms, and returns the slowest press's time from the key event to the frame after it (as
/// the page records it), how many presses were timed, and the slowest press at rest before.
async fn burst(client: &Client, dir: &Path) -> (f64, usize, f64) {
    client
        .execute(&format!("{PRESSES_TIMED} return true;"), vec![])
        .await
        .unwrap();
    let body = client.find(fantoccini::Locator::Css("body")).await.unwrap();
    // At rest first: the same presses with nothing arriving.
    for key in ["j", "k", "j", "k"] {
        body.send_keys(key).await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let at_rest: Vec<f64> = serde_json::from_value(
        client
            .execute(
                "const p = window.__presses; window.__presses = []; window.__pressedAt = []; return p;",
                vec![],
            )
            .await
            .unwrap(),
    )
    .unwrap();
    eprintln!("  at rest, presses to paint (ms): {at_rest:.0?}");
    let (url, token) = agent(dir);
    let http = reqwest::Client::new();
    let flood = tokio::spawn(async move {
        let mut sent = tokio::task::JoinSet::new();
        let started = Instant::now();
        for i in 0..BURST {
            // Paced evenly over the second.
            let at = started + Duration::from_secs(1) * i as u32 / BURST as u32;
            tokio::time::sleep_until(at.into()).await;
            let req = http
                .post(format!("{url}/v1/approvals"))
                .bearer_auth(&token)
                .json(&json!({
                    "tool": "bench.shell", "requester": { "name": "runaway agent" },
                    "call": { "card": "terminal", "title": "Run a command",
                              "command": format!("echo burst {i}") },
                    "expires_in_s": 86_400,
                }));
            sent.spawn(async move { req.send().await.map(|r| r.status().as_u16()) });
        }
        let mut accepted = 0;
        while let Some(r) = sent.join_next().await {
            if matches!(r, Ok(Ok(202))) {
                accepted += 1;
            }
        }
        (accepted, started.elapsed())
    });
    profile_mark("burst starts");
    let started = Instant::now();
    let mut key = 'j';
    while started.elapsed() < Duration::from_millis(1_200) {
        body.send_keys(&key.to_string()).await.unwrap();
        key = if key == 'j' { 'k' } else { 'j' };
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (accepted, took) = flood.await.unwrap();
    profile_mark("burst ends");
    assert_eq!(
        accepted, BURST,
        "every submission of the burst was accepted"
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    let presses: Vec<f64> = serde_json::from_value(
        client
            .execute("return window.__presses;", vec![])
            .await
            .unwrap(),
    )
    .unwrap();
    eprintln!(
        "  burst of {BURST} sent in {:.2} s; presses to paint (ms): {presses:.0?}",
        took.as_secs_f64()
    );
    let slowest = presses.iter().copied().fold(0.0, f64::max);
    let at_rest = if at_rest.is_empty() {
        f64::INFINITY
    } else {
        at_rest.iter().copied().fold(0.0, f64::max)
    };
    (slowest, presses.len(), at_rest)
}

/// Submits one more call as an agent would and returns the milliseconds from its 202 to the
/// page showing it (the "new requests" bar counting it), as the page itself records it.
async fn arrival(client: &Client, dir: &Path) -> f64 {
    client
        .execute(
            "window.__arrived = null;
             const seen = () => {
               const b = document.querySelector('[data-testid=new-requests]');
               if (b && window.__arrived === null) window.__arrived = performance.timeOrigin + performance.now();
             };
             new MutationObserver(seen).observe(document.body, { childList: true, subtree: true, characterData: true });
             return true;",
            vec![],
        )
        .await
        .unwrap();
    let (url, token) = agent(dir);
    let resp = reqwest::Client::new()
        .post(format!("{url}/v1/approvals"))
        .bearer_auth(token)
        .json(&json!({
            "tool": "bench.shell", "requester": { "name": "bench agent" },
            "call": { "card": "terminal", "title": "Run a command", "command": "echo arrived" },
        }))
        .send()
        .await
        .unwrap();
    let answered = unix_ms();
    assert_eq!(resp.status(), 202);
    let started = Instant::now();
    loop {
        let t = client
            .execute("return window.__arrived;", vec![])
            .await
            .unwrap();
        if let Some(t) = t.as_f64() {
            return (t - answered).max(0.0);
        }
        assert!(started.elapsed() < WAIT, "the arrival never showed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The CPU time (user + system, in clock ticks) of `pid` and every process below it.
fn tree_cpu_ticks(pid: u32) -> u64 {
    tree(pid)
        .iter()
        .filter_map(|p| {
            let f = stat_fields(*p)?;
            Some(f[11].parse::<u64>().ok()? + f[12].parse::<u64>().ok()?)
        })
        .sum()
}

/// Saves the 300-line dashboard as an agent would, opens its page as a person would, and
/// returns the milliseconds from that click to the preview frame's first paint.
async fn open_preview(client: &Client, dir: &Path) -> f64 {
    let (url, token) = agent(dir);
    let saved: Value = reqwest::Client::new()
        .post(format!("{url}/v1/artifacts"))
        .bearer_auth(token)
        .json(&json!({
            "title": "Revenue dashboard",
            "code": include_str!("../../tests/fixtures/dashboard.jsx"),
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let item = format!(
        "[data-testid=artifact-item][data-id='{}']",
        saved["id"].as_str().unwrap()
    );
    wait_for(
        client,
        &format!("return !!document.querySelector(\"{item}\");"),
    )
    .await;
    let clicked = client
        .execute(
            &format!(
                "const t = performance.timeOrigin + performance.now();
                 document.querySelector(\"{item}\").click(); return t;"
            ),
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    // The page records its own times: nothing polls it while it loads (WebDriver commands
    // compete for the page's one thread, and inside a frame still laying out its first render
    // they can stall the display).
    tokio::time::sleep(Duration::from_secs(3)).await;
    wait_for(
        client,
        "return !!document.querySelector('[data-testid=artifact-preview][data-ready=true]');",
    )
    .await;
    let frame = client
        .find(fantoccini::Locator::Css("[data-testid=artifact-frame]"))
        .await
        .unwrap();
    frame.enter_frame().await.unwrap();
    // The runtime marks the frame after its first render, once painted (WebKit records no
    // paint timing for frames).
    wait_for(
        client,
        "return !!document.querySelector('.recharts-surface') &&
            performance.getEntriesByName('artifact-painted').length > 0;",
    )
    .await;
    let painted = client
        .execute(
            "return performance.timeOrigin +
                performance.getEntriesByName('artifact-painted')[0].startTime;",
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    let marks = client
        .execute(
            "return [performance.timeOrigin, ...['runtime-start', 'render-asked',
                'artifact-committed', 'artifact-painted'].map((n) => Math.round(performance.getEntriesByName(n)[0].startTime))];",
            vec![],
        )
        .await
        .unwrap();
    eprintln!(
        "  preview: frame navigation {:.0} ms after the click; runtime ready, render asked, \
         committed, painted at {} ms after it",
        marks[0].as_f64().unwrap() - clicked,
        marks.as_array().unwrap()[1..]
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    client.enter_parent_frame().await.unwrap();
    painted - clicked
}

/// Polls `script` until it returns true.
async fn wait_for(client: &Client, script: &str) {
    let started = Instant::now();
    while client.execute(script, vec![]).await.unwrap() != json!(true) {
        assert!(started.elapsed() < WAIT, "timed out: {script}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn session(port: u16, caps: serde_json::Map<String, Value>) -> Client {
    let started = Instant::now();
    loop {
        let mut builder = ClientBuilder::native();
        builder.capabilities(caps.clone());
        match builder.connect(&format!("http://127.0.0.1:{port}")).await {
            Ok(c) => return c,
            Err(e) => {
                assert!(started.elapsed() < WAIT, "no WebDriver session: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// The page's first contentful paint, in Unix milliseconds, as WebKit records it.
async fn first_paint(client: &Client) -> f64 {
    let script = "const p = performance.getEntriesByName('first-contentful-paint')[0];
        return p ? performance.timeOrigin + p.startTime : null;";
    let started = Instant::now();
    loop {
        if let Some(t) = client.execute(script, vec![]).await.unwrap().as_f64() {
            return t;
        }
        assert!(started.elapsed() < WAIT, "no first paint within {WAIT:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// When the page's `app-painted` mark fell (epoch ms), waiting for it; None for a page
/// without one (hello-world's), seen by its having no script.
async fn app_rendered(client: &Client) -> Option<f64> {
    let script = "if (document.scripts.length === 0) return -1;
        const m = performance.getEntriesByName('app-painted')[0];
        return m ? performance.timeOrigin + m.startTime : null;";
    let started = Instant::now();
    loop {
        match client.execute(script, vec![]).await.unwrap().as_f64() {
            Some(t) if t < 0.0 => return None,
            Some(t) => return Some(t),
            None => {}
        }
        assert!(
            started.elapsed() < WAIT,
            "no app-painted mark within {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The one running process whose executable is `bin`.
fn app_pid(bin: &Path) -> u32 {
    let bin = bin.canonicalize().unwrap();
    let found: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|pid: &u32| {
            std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == bin)
        })
        .collect();
    assert_eq!(found.len(), 1, "one {} running", bin.display());
    found[0]
}

/// Fields of /proc/<pid>/stat after the command name (which may hold spaces).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// When the process started, in Unix milliseconds: its start in clock ticks since boot, moved
/// onto the wall clock by the current distance between the two clocks.
fn process_start_epoch_ms(pid: u32) -> f64 {
    let ticks: f64 = stat_fields(pid).unwrap()[19].parse().unwrap();
    let hz = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .unwrap()
        .unwrap() as f64;
    let ms = |t: nix::sys::time::TimeSpec| t.tv_sec() as f64 * 1000.0 + t.tv_nsec() as f64 / 1e6;
    let boot_to_epoch = ms(clock_gettime(ClockId::CLOCK_REALTIME).unwrap())
        - ms(clock_gettime(ClockId::CLOCK_BOOTTIME).unwrap());
    boot_to_epoch + ticks / hz * 1000.0
}

/// `pid` and every process below it.
fn tree(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(|p: u32| Some((p, stat_fields(p)?[1].parse().ok()?)))
        .collect();
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    tree
}

/// Resident memory of `pid` and every process below it, in KiB.
fn tree_rss_kib(pid: u32) -> u64 {
    tree(pid)
        .iter()
        .filter_map(|p| {
            let status = std::fs::read_to_string(format!("/proc/{p}/status")).ok()?;
            let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .sum()
}

/// Each process of `pid`'s tree by name, with its resident memory split into anonymous pages,
/// file pages and shared memory, in MiB.
fn rss_by_process(pid: u32) -> String {
    let mut parts = Vec::new();
    for p in tree(pid) {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{p}/status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                .map_or(0, |kib| kib / 1024)
        };
        let name = field_text(&status, "Name:");
        parts.push(format!(
            "{name} {} (anon {}, file {}, shmem {})",
            field("VmRSS:"),
            field("RssAnon:"),
            field("RssFile:"),
            field("RssShmem:")
        ));
    }
    parts.join("; ")
}

fn field_text(status: &str, name: &str) -> String {
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .map_or_else(String::new, |v| v.trim().to_owned())
}

/// Ends the driver (its whole process group) and waits until the app has gone.
async fn stop(driver: &mut Child, pid: u32) {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let group = Pid::from_raw(-i32::try_from(driver.id()).unwrap());
    let _ = kill(group, Signal::SIGKILL);
    let _ = driver.wait();
    let app = Pid::from_raw(i32::try_from(pid).unwrap());
    let started = Instant::now();
    while Path::new(&format!("/proc/{pid}")).exists() {
        let elapsed = started.elapsed();
        if elapsed > Duration::from_secs(10) {
            let _ = kill(app, Signal::SIGKILL);
        } else if elapsed > Duration::from_secs(2) {
            let _ = kill(app, Signal::SIGTERM);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Let the session bus notice the closed connection before the next launch.
    tokio::time::sleep(Duration::from_millis(300)).await;
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Agents at once beside the open window: how many, how often each submits, for how long.
const AGENTS: usize = 8;
const AGENT_EVERY: Duration = Duration::from_millis(100);
const AGENTS_FOR: Duration = Duration::from_secs(60);
/// What each agent's hook call may take over `true` on a rule's hit (p99), in ms.
const AGENT_HOOK_OVER_TRUE: f64 = 15.0;

/// Each supported agent's hook: its arguments, a payload in the agent's documented shape with
/// `@COMMAND@` for the command it asks to run, and what its answer holds when a rule decides
/// (the same payloads as the main bench's hook rows: benches/countersign/scenarios.rs).
const AGENT_HOOKS: [(&[&str], &str, &str); 5] = [
    (
        &["claude-code"],
        r#"{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"@COMMAND@"},"tool_use_id":"t"}"#,
        "\"allow\"",
    ),
    // Codex asks only to go beyond its sandbox, which no approve rule covers: a decline rule.
    (
        &["codex"],
        r#"{"session_id":"s","turn_id":"1","transcript_path":null,"cwd":"/","hook_event_name":"PermissionRequest","model":"m","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"@COMMAND@"}}"#,
        "\"deny\"",
    ),
    (
        &["gemini"],
        r#"{"session_id":"s","cwd":"/","hook_event_name":"BeforeTool","timestamp":"t","tool_name":"run_shell_command","tool_input":{"command":"@COMMAND@"}}"#,
        "\"allow\"",
    ),
    (
        &["cursor"],
        r#"{"conversation_id":"c","generation_id":"g","hook_event_name":"beforeShellExecution","workspace_roots":["/"],"command":"@COMMAND@","cwd":"/"}"#,
        "\"allow\"",
    ),
    (
        &["copilot", "--event", "preToolUse"],
        r#"{"sessionId":"s","timestamp":1,"cwd":"/","toolName":"bash","toolArgs":"{\"command\":\"@COMMAND@\"}"}"#,
        "\"allow\"",
    ),
];

/// Many agents at once, as a person with several of them meets it.
struct ManyAgents {
    /// A rule's hit through the agent's real hook process, p99, and `true`'s p99 beside it.
    hook_hit_p99_ms: f64,
    true_p99_ms: f64,
    hits: usize,
    /// A call asked of the person: from its 202 to its agent's chip in the window, the longest.
    shown_max_ms: f64,
    shown: usize,
    /// A key press to its frame, the longest, and how many presses.
    key_max_ms: f64,
    presses: usize,
    /// The window's whole process tree while they ran, in % of one core, and of that the
    /// app's own process (the console serving the agents, and the shell).
    console_cpu: f64,
    app_cpu: f64,
}

/// Runs one hook process: its wall time and what it printed.
async fn run_hook(bin: PathBuf, args: Vec<String>, payload: String) -> (f64, String) {
    use tokio::io::AsyncWriteExt as _;
    let started = Instant::now();
    let mut child = tokio::process::Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // `true` may exit before reading; a closed pipe is fine.
    let _ = stdin.write_all(payload.as_bytes()).await;
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    (
        started.elapsed().as_secs_f64() * 1000.0,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn p99(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get((v.len() * 99 / 100).min(v.len().saturating_sub(1)))
        .copied()
        .unwrap_or(f64::INFINITY)
}

/// Eight agents, each a real hook process of one of the supported agents, each submitting a
/// call every 100 ms for 60 s, every call covered by a rule, while the window is open on
/// the inbox; meanwhile a probe agent asks a call of the person every 2 s and a person presses
/// j/k every 250 ms. The rules are made first, on a console run in this process, as a person
/// makes them: each agent's first call answered "approve (or decline) and don't ask again".
async fn many_agents() -> ManyAgents {
    let hook_bin = root().join("target/release/countersign");
    let data = tempfile::tempdir().unwrap();
    let dir = countersign_engine::data_dir::DataDir::at(data.path().join("countersign"))
        .create()
        .unwrap();
    let args_for = |hook: &[&str], wait: &str| -> Vec<String> {
        std::iter::once("hook")
            .chain(hook.iter().copied())
            .chain(["--wait", wait, "--data-dir"])
            .map(str::to_owned)
            .chain([dir.root().display().to_string()])
            .collect()
    };
    {
        let server = countersign_engine::server::Server::start(&dir, 0)
            .await
            .unwrap();
        for (hook, payload, answer) in AGENT_HOOKS {
            let asked = tokio::spawn(run_hook(
                hook_bin.clone(),
                args_for(hook, "30"),
                payload.replace("@COMMAND@", "ls"),
            ));
            let pending = loop {
                if let Some(a) = server.console.pending().await.unwrap().pop() {
                    break a;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            };
            let rule = if answer.contains("deny") {
                countersign_domain::approval::Decision::DeclineAlways {
                    reason: None,
                    scope: None,
                }
            } else {
                countersign_domain::approval::Decision::ALWAYS
            };
            server
                .console
                .decide(&pending.id, &pending.digest, rule)
                .await
                .unwrap();
            assert!(asked.await.unwrap().1.contains(answer), "{hook:?}");
        }
        server.stop().await;
    }
    let bin = root().join("target/release/countersign-desktop");
    let caps = json!({
        "browserName": "wry",
        "tauri:options": { "application": bin, "args": ["--data-dir", dir.root()] },
    });
    // A person's window has been opened before: the measured launch is the second on the same
    // data and caches (decision 0022). On a window's first launch ever, key presses in the
    // agents' first two seconds waited 0.12–1.1 s for a frame (likely Mesa's software renderer
    // compiling its shaders as the inbox's first rows are drawn).
    warm_up(&caps, data.path(), &bin, dir.root()).await;
    let (mut driver, client, pid) = on_empty_inbox(&caps, data.path(), &bin).await;
    client
        .execute(
            &format!("{PRESSES_TIMED}
             window.__shown = {{}};
             new MutationObserver(() => {{
               for (const c of document.querySelectorAll('[data-testid=group-chip]')) {{
                 const m = /probe(\\d+)z/.exec(c.textContent);
                 if (m && !(m[1] in window.__shown)) window.__shown[m[1]] = performance.timeOrigin + performance.now();
               }}
             }}).observe(document.body, {{ childList: true, subtree: true, characterData: true }});
             // The page's own thread: each time a 50 ms timer fires more than 30 ms late,
             // when (Unix ms) and by how much, with the inbox's rows then.
             window.__late = [];
             let due = performance.now() + 50;
             setInterval(() => {{
               const now = performance.now();
               if (now - due > 30) window.__late.push([performance.timeOrigin + due, now - due,
                 document.querySelectorAll('[data-testid=inbox-row]').length]);
               due = now + 50;
             }}, 50);
             return true;"),
            vec![],
        )
        .await
        .unwrap();
    let hz = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .unwrap()
        .unwrap() as f64;
    let cpu_before = (tree_cpu_ticks(pid), Instant::now());
    let own_before = own_cpu_ticks(pid);
    let (machine_before, children_before) = (machine_ticks(), children_ticks());
    let started = Instant::now();
    let started_ms = unix_ms();
    let mut agents = tokio::task::JoinSet::new();
    for a in 0..AGENTS {
        let (hook, payload, answer) = AGENT_HOOKS[a % AGENT_HOOKS.len()];
        let hit = args_for(hook, "1");
        let hook_bin = hook_bin.clone();
        agents.spawn(async move {
            let mut calls = tokio::task::JoinSet::new();
            let mut i = 0u32;
            // Staggered, so the agents' calls do not all start on the same tick.
            let first = started + AGENT_EVERY * a as u32 / AGENTS as u32;
            while first + AGENT_EVERY * i < started + AGENTS_FOR {
                tokio::time::sleep_until((first + AGENT_EVERY * i).into()).await;
                let (bin, args) = (hook_bin.clone(), hit.clone());
                let payload = payload.replace("@COMMAND@", "ls");
                calls.spawn(async move {
                    let (ms, out) = run_hook(bin, args, payload).await;
                    assert!(out.contains(answer), "a rule's hit answered {out}");
                    ms
                });
                i += 1;
            }
            let mut hits = Vec::new();
            while let Some(r) = calls.join_next().await {
                hits.push(r.unwrap());
            }
            hits
        });
    }
    // `true` beside them, as often as one agent: the process floor under the same load.
    let truth = tokio::spawn(async move {
        let mut floor = Vec::new();
        while started.elapsed() < AGENTS_FOR {
            floor.push(
                run_hook(PathBuf::from("/bin/true"), Vec::new(), "{}".into())
                    .await
                    .0,
            );
            tokio::time::sleep(AGENT_EVERY).await;
        }
        floor
    });
    // The probe agent: a call asked of the person every 2 s, its 202 timed here.
    let (url, token) = agent(dir.root());
    let http = reqwest::Client::new();
    let mut answered = std::collections::BTreeMap::new();
    let body = client.find(fantoccini::Locator::Css("body")).await.unwrap();
    let mut probe = 0u32;
    let mut key = 'j';
    let mut next_probe = Instant::now() + Duration::from_secs(2);
    while started.elapsed() < AGENTS_FOR {
        if Instant::now() >= next_probe {
            let resp = http
                .post(format!("{url}/v1/approvals"))
                .bearer_auth(&token)
                .json(&json!({
                    "tool": "bench.shell",
                    "requester": { "name": format!("probe{probe}z"), "cwd": "/srv/probe" },
                    "call": { "card": "terminal", "title": "Run a command",
                              "command": format!("echo probe {probe}") },
                    "expires_in_s": 5,
                }))
                .send()
                .await
                .unwrap();
            let at = unix_ms();
            assert_eq!(resp.status(), 202);
            answered.insert(probe.to_string(), at);
            probe += 1;
            next_probe += Duration::from_secs(2);
        }
        body.send_keys(&key.to_string()).await.unwrap();
        key = if key == 'j' { 'k' } else { 'j' };
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let mut hits = Vec::new();
    while let Some(r) = agents.join_next().await {
        hits.extend(r.unwrap());
    }
    let cpu_after = (tree_cpu_ticks(pid), Instant::now());
    let own_after = own_cpu_ticks(pid);
    let (machine_after, children_after) = (machine_ticks(), children_ticks());
    let floor = truth.await.unwrap();
    let seconds = (cpu_after.1 - cpu_before.1).as_secs_f64();
    let share = |ticks: u64| ticks as f64 / hz / seconds * 100.0;
    let (busy, all) = (
        machine_after.0 - machine_before.0,
        machine_after.1 - machine_before.1,
    );
    let mut sorted = hits.clone();
    sorted.sort_by(f64::total_cmp);
    eprintln!(
        "  agents: the machine {:.0} % busy; CPU in % of one core: the window {:.0}, the hook processes (and `true`) {:.0}; hook p50 {:.1} ms",
        busy as f64 / all.max(1) as f64 * 100.0,
        share(cpu_after.0 - cpu_before.0),
        share(children_after - children_before),
        sorted
            .get(sorted.len() / 2)
            .copied()
            .unwrap_or(f64::INFINITY)
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    let shown: std::collections::BTreeMap<String, f64> = serde_json::from_value(
        client
            .execute("return window.__shown;", vec![])
            .await
            .unwrap(),
    )
    .unwrap();
    let presses: Vec<f64> = serde_json::from_value(
        client
            .execute("return window.__presses;", vec![])
            .await
            .unwrap(),
    )
    .unwrap();
    // Where the slow presses fall: after the agents' start, beside the page's late timers.
    let at = |v: Value| -> Vec<Value> { serde_json::from_value(v).unwrap_or_default() };
    let pressed_at = at(client
        .execute("return window.__pressedAt || [];", vec![])
        .await
        .unwrap());
    let slow: Vec<String> = presses
        .iter()
        .zip(&pressed_at)
        .filter(|(ms, _)| **ms > 100.0)
        .map(|(ms, t)| {
            format!(
                "{ms:.0} ms at +{:.0}",
                t.as_f64().unwrap_or(0.0) - started_ms
            )
        })
        .collect();
    let late = at(client
        .execute("return window.__late;", vec![])
        .await
        .unwrap());
    let latest = late
        .iter()
        .filter_map(|l| l[1].as_f64())
        .fold(0.0, f64::max);
    // Those in the agents' first 3 s, where the slow presses fall.
    let early: Vec<String> = late
        .iter()
        .map(|l| (l[0].as_f64().unwrap_or(0.0) - started_ms, l))
        .filter(|(t, _)| *t < 3_000.0)
        .map(|(t, l)| {
            format!(
                "{:.0} ms at +{t:.0} ({} rows)",
                l[1].as_f64().unwrap_or(0.0),
                l[2]
            )
        })
        .collect();
    eprintln!(
        "  agents: slow presses {slow:?}; the page's 50 ms timer late by over 30 ms {} times, at most \
         {latest:.0} ms; in the first 3 s: {early:?}",
        late.len()
    );
    let delays: Vec<f64> = answered
        .iter()
        .map(|(p, at)| shown.get(p).map_or(f64::INFINITY, |t| (t - at).max(0.0)))
        .collect();
    eprintln!(
        "  agents: {} rule hits, hook p99 {:.1} ms (`true` p99 {:.1}); probes shown after (ms) {delays:.0?}; presses to paint (ms) {presses:.0?}",
        hits.len(),
        p99(hits.clone()),
        p99(floor.clone())
    );
    let _ = tokio::time::timeout(WAIT, client.close()).await;
    stop(&mut driver, pid).await;
    ManyAgents {
        hook_hit_p99_ms: p99(hits.clone()),
        true_p99_ms: p99(floor),
        hits: hits.len(),
        shown_max_ms: delays.iter().copied().fold(0.0, f64::max),
        shown: delays.len(),
        key_max_ms: presses.iter().copied().fold(0.0, f64::max),
        presses: presses.len(),
        console_cpu: (cpu_after.0 - cpu_before.0) as f64
            / hz
            / (cpu_after.1 - cpu_before.1).as_secs_f64()
            * 100.0,
        app_cpu: (own_after - own_before) as f64 / hz / (cpu_after.1 - cpu_before.1).as_secs_f64()
            * 100.0,
    }
}

/// The CPU ticks of `pid` alone (user and system).
fn own_cpu_ticks(pid: u32) -> u64 {
    stat_fields(pid)
        .and_then(|f| Some(f[11].parse::<u64>().ok()? + f[12].parse::<u64>().ok()?))
        .unwrap_or(0)
}

/// A launch before the measured one: the window on `dir`'s inbox, three calls asked of the
/// person and walked with j/k, then left to expire, then the window closed.
async fn warm_up(caps: &Value, home: &Path, bin: &Path, dir: &Path) {
    let (mut driver, client, pid) = on_empty_inbox(caps, home, bin).await;
    let (url, token) = agent(dir);
    let http = reqwest::Client::new();
    for i in 0..3 {
        let resp = http
            .post(format!("{url}/v1/approvals"))
            .bearer_auth(&token)
            .json(&json!({
                "tool": "bench.shell",
                "requester": { "name": "warm-up", "cwd": "/srv/probe" },
                "call": { "card": "terminal", "title": "Run a command",
                          "command": format!("echo warm-up {i}") },
                "expires_in_s": 3,
            }))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 202);
    }
    wait_for(
        &client,
        "return document.querySelectorAll('[data-testid=inbox-row]').length === 3;",
    )
    .await;
    let body = client.find(fantoccini::Locator::Css("body")).await.unwrap();
    for key in "jjkk".chars() {
        body.send_keys(&key.to_string()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    wait_for(&client, EMPTY_INBOX).await;
    let _ = tokio::time::timeout(WAIT, client.close()).await;
    stop(&mut driver, pid).await;
}

const EMPTY_INBOX: &str = "return !!document.querySelector('[data-testid=empty-inbox]');";

/// The window `caps` names, started under a driver of its own, once its inbox shows empty:
/// the driver, the session and the app's process id.
async fn on_empty_inbox(caps: &Value, home: &Path, bin: &Path) -> (Child, Client, u32) {
    let port = free_port();
    let driver = driver(home, port);
    let client = session(port, caps.as_object().unwrap().clone()).await;
    wait_for(&client, EMPTY_INBOX).await;
    (driver, client, app_pid(bin))
}

/// The whole machine's CPU ticks from /proc/stat: (busy, all).
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap();
    let cpu: Vec<u64> = stat
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let all: u64 = cpu.iter().sum();
    // idle and iowait
    (all - cpu[3] - cpu[4], all)
}

/// The CPU ticks of this process's children that have ended (the hook processes).
fn children_ticks() -> u64 {
    let f = stat_fields(std::process::id()).unwrap();
    f[13].parse::<u64>().unwrap() + f[14].parse::<u64>().unwrap()
}

/// The rows of [`many_agents`].
fn many_agents_rows(m: &ManyAgents) -> Vec<Value> {
    let row =
        |name: &str, value: f64, unit: &str, goal: String, met: bool, base: Option<(&str, f64)>| {
            eprintln!("{name}: {value:.1} {unit}");
            json!({
                "name": name, "value": value, "unit": unit,
                "baseline_name": base.map(|b| b.0), "baseline_value": base.map(|b| b.1),
                "ratio": null, "goal": goal, "met": met,
            })
        };
    vec![
        row(
            "desktop_agents_8_hook_rule_hit_p99",
            m.hook_hit_p99_ms,
            "ms",
            format!("≤ `true` p99 + {AGENT_HOOK_OVER_TRUE} ms ({} hits)", m.hits),
            m.hook_hit_p99_ms <= m.true_p99_ms + AGENT_HOOK_OVER_TRUE && m.hits > 1_000,
            Some(("`true` p99", m.true_p99_ms)),
        ),
        row(
            "desktop_agents_8_asked_shown_max",
            m.shown_max_ms,
            "ms",
            format!("≤ 50 ms after its 202 ({} calls asked)", m.shown),
            m.shown_max_ms <= 50.0 && m.shown >= 20,
            None,
        ),
        row(
            "desktop_agents_8_key_to_frame_max",
            m.key_max_ms,
            "ms",
            format!(
                "≤ 100 ms from a key press to its frame throughout ({} presses)",
                m.presses
            ),
            m.key_max_ms <= 100.0 && m.presses >= 100,
            None,
        ),
        row(
            "desktop_agents_8_console_cpu",
            m.console_cpu,
            "% of one core",
            "≤ 5 % of one core: the window's processes while the agents' calls hit rules".into(),
            m.console_cpu <= 5.0,
            None,
        ),
        row(
            "desktop_agents_8_app_process_cpu",
            m.app_cpu,
            "% of one core",
            "informational: of that, the app's own process (the console serving the agents)".into(),
            true,
            None,
        ),
    ]
}
