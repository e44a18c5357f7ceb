// Generated from crates/engine/src/console/events.rs by `cargo test`. Do not edit.
export const CHANGE_EVENT = "countersign://change";
export const NAVIGATE_EVENT = "countersign://navigate";
