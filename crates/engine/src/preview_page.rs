//! The page the preview runtime runs in: the same in the window's frame (`src-tauri`'s
//! `preview:` scheme) and in the MCP Apps view (`countersign mcp`). Its policy, a root, and
//! Tailwind's dark variant keyed to the `dark` class the runtime sets for the theme.

/// The page with policy `csp`, `waiting` in the root until the artifact renders, then `scripts`.
pub fn page(csp: &str, waiting: &str, scripts: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style type="text/tailwindcss">@custom-variant dark (&:where(.dark, .dark *));</style>
<style>
html, body {{ margin: 0; background: transparent; }}
body {{ padding: 16px; font: 14px/1.45 system-ui, sans-serif; color: #1c2128; }}
html.dark body {{ color: #e6edf3; }}
</style>
</head><body><div id="root">{waiting}</div>
{scripts}</body></html>
"#
    )
}
