//! The installed package: the app from `/usr/bin`, its link handler registered by the
//! package's `.desktop` entry, and a link opened the way the OS opens one. Run by
//! `scripts/install-test.sh` once it has installed the `.deb`; ignored otherwise, since the
//! package is not on a machine that has only built the source.

use std::process::Command;

use crate::app::{App, app_bin, cli_bin, id, terminal};

/// What an empty configuration directory says: only the package's own entry decides which
/// program opens countersign:// links, never a registration left by a build tree.
fn xdg(program: &str, config: &std::path::Path) -> Command {
    let mut c = Command::new(program);
    c.env("XDG_CONFIG_HOME", config);
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the installed package: scripts/install-test.sh installs it and runs this"]
async fn installed_app_opens_a_link_given_to_xdg_open() {
    assert!(
        app_bin().starts_with("/usr/bin/") && cli_bin().starts_with("/usr/bin/"),
        "the installed binaries, not the build tree's: {} {}",
        app_bin(),
        cli_bin()
    );
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let data = tmp.path().join("data");
    let app = App::launch(&data).await;
    let (_, a) = app
        .submit(&terminal(
            "installed.deploy",
            "make deploy # opened by xdg-open",
        ))
        .await;
    // Somewhere else, so only the link can bring the approval up.
    app.click("[data-testid=nav-history]").await;

    let handler = xdg("xdg-mime", &config)
        .args(["query", "default", "x-scheme-handler/countersign"])
        .output()
        .unwrap();
    let handler = String::from_utf8_lossy(&handler.stdout).trim().to_owned();
    assert_eq!(
        handler, "Countersign.desktop",
        "the package's entry handles the scheme"
    );

    let open = |link: &str| {
        let opened = xdg("xdg-open", &config)
            .arg(link)
            .env("COUNTERSIGN_DATA_DIR", &data)
            .status()
            .unwrap();
        assert!(opened.success(), "xdg-open {link}: {opened}");
    };
    open(&format!("countersign://approvals/{}", id(&a)));
    let card = format!("[data-testid=approval-card][data-id='{}']", id(&a));
    app.el(&card).await;
    assert!(
        app.text(&format!("{card} [data-testid=command]"))
            .await
            .contains("make deploy # opened by xdg-open")
    );
    app.screenshot("installed-xdg-open").await;

    // A hostile link through the same door changes nothing and says so.
    let before = app.fingerprint().await;
    open(&format!(
        "countersign://approvals/{}?decision=approve",
        id(&a)
    ));
    app.text_contains("[data-testid=notice]", "Unsupported link")
        .await;
    assert_eq!(app.fingerprint().await, before, "the link changed nothing");
    app.quit().await;
}
