//! `make bench`: each goal measured side by side with its baseline in the same run, so the
//! ratio holds on a noisy shared machine. Writes target/bench/results.json and results.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod measure;
mod scenarios;

use measure::Row;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let mut rows: Vec<Row> = Vec::new();
    let want = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    if want("grant_hit") {
        rows.extend(scenarios::grant_hit().await);
    }
    if want("grant_hit_10k") || want("grant_scale") {
        rows.extend(scenarios::grant_hit_scale().await);
    }
    if want("group_commit") {
        rows.extend(scenarios::group_commit().await);
    }
    if want("wake_up") {
        rows.extend(scenarios::wake_up().await);
    }
    if want("store_scale") {
        rows.extend(scenarios::store_scale().await);
    }
    if want("history_search") {
        rows.extend(scenarios::history_search().await);
    }
    if want("diff") {
        rows.extend(scenarios::diff());
    }
    if want("render_check") {
        rows.extend(scenarios::render_check().await);
    }
    if want("hook") {
        rows.extend(scenarios::hook().await);
    }
    if want("mcp") {
        rows.extend(scenarios::mcp().await);
    }
    if want("acp_proxy") {
        rows.extend(scenarios::acp_proxy().await);
    }
    if want("postgres") {
        rows.extend(scenarios::postgres().await);
    }
    measure::write(&rows);
}
