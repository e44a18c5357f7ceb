//! Artifacts: agents create, update in place, list, search and read; a person renames and
//! deletes, and a deletion takes the artifact's grants and pending requests with it.

use countersign_domain::approval::{Decision, Status};
use countersign_domain::ids::{ApprovalId, ArtifactId};
use reqwest::StatusCode;
use serde_json::json;

use crate::support::DecideSeen as _;
use crate::support::{assert_error, server, terminal};

#[tokio::test]
async fn create_update_in_place_list_search_rename_delete() {
    let s = server().await;
    let code = "export default () => <div>\u{00e9}t\u{00e9}  \n\ttabs\r\n</div>;\n";
    let (status, created) = s
        .post(
            "/v1/artifacts",
            &json!({ "title": "Sales dashboard", "description": "weekly revenue by region", "code": code }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let id = ArtifactId::parse(created["id"].as_str().unwrap()).unwrap();
    assert_eq!(created["link"], format!("countersign://artifacts/{id}"));
    assert_eq!(created["code"], code, "code is kept byte for byte");
    assert_eq!(created["owner"], "user");

    let (_, other) = s
        .post(
            "/v1/artifacts",
            &json!({ "title": "Todo list", "code": "export default () => <p>Todo</p>" }),
        )
        .await;
    assert_eq!(other["description"], "");

    // Times are milliseconds: the update must come in a later one than the creation above
    // for "most recently updated" to tell them apart (equal times fall back to the id).
    s.console
        .clock()
        .advance(std::time::Duration::from_millis(1));
    let (status, updated) = s
        .post(
            "/v1/artifacts",
            &json!({ "artifact_id": id, "title": "Sales dashboard v2", "description": "weekly revenue by region", "code": "export default () => <p>V2</p>" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(updated["id"], id.as_str(), "the id is kept");
    assert_eq!(updated["code"], "export default () => <p>V2</p>");
    assert_eq!(updated["created_at"], created["created_at"]);

    let (_, list) = s.get("/v1/artifacts").await;
    let titles: Vec<_> = list["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].clone())
        .collect();
    assert_eq!(
        titles,
        [json!("Sales dashboard v2"), json!("Todo list")],
        "most recently updated first"
    );
    assert!(
        list["artifacts"][0].get("code").is_none(),
        "lists leave the code out"
    );

    // Search covers title and description, by word prefix, and ignores FTS syntax.
    for (q, expect) in [
        ("revenue", 1),
        ("dash", 1),
        ("REGION sales", 1),
        ("todo", 1),
        ("nothing", 0),
        ("\"NEAR(", 0),
        ("*", 2),
    ] {
        let (status, found) = s
            .send(
                s.request(reqwest::Method::GET, "/v1/artifacts")
                    .query(&[("q", q)]),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{q}");
        assert_eq!(
            found["artifacts"].as_array().unwrap().len(),
            expect,
            "query {q:?}: {found}"
        );
    }

    // Rename is the person's; the search index follows.
    let renamed = s
        .console
        .rename_artifact(&id, "Revenue board")
        .await
        .unwrap();
    assert_eq!(renamed.title, "Revenue board");
    assert_eq!(s.console.artifacts(Some("board")).await.unwrap().len(), 1);
    assert_eq!(
        s.console.artifacts(Some("dashboard")).await.unwrap().len(),
        0
    );
    assert!(s.console.rename_artifact(&id, "   ").await.is_err());

    let (status, one) = s.get(&format!("/v1/artifacts/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(one["title"], "Revenue board");

    s.console.delete_artifact(&id).await.unwrap();
    assert_error(
        &s.get(&format!("/v1/artifacts/{id}")).await,
        StatusCode::NOT_FOUND,
        "artifact_not_found",
    );
    assert_eq!(s.console.artifacts(Some("revenue")).await.unwrap().len(), 0);
    assert!(s.console.delete_artifact(&id).await.is_err());
}

#[tokio::test]
async fn deleting_an_artifact_revokes_its_grants_and_cancels_its_requests() {
    let s = server().await;
    let (_, art) = s
        .post(
            "/v1/artifacts",
            &json!({ "title": "Board", "code": "export default () => <p>B</p>" }),
        )
        .await;
    let (_, keep) = s
        .post(
            "/v1/artifacts",
            &json!({ "title": "Keep", "code": "export default () => <p>K</p>" }),
        )
        .await;
    let for_art = |artifact: &serde_json::Value, cmd: &str| {
        let mut b = terminal("github.user.me.issues.create", cmd);
        b["artifact_id"] = artifact["id"].clone();
        b
    };
    let (_, granted) = s.post("/v1/approvals", &for_art(&art, "one")).await;
    let granted_id = ApprovalId::parse(granted["id"].as_str().unwrap()).unwrap();
    s.console
        .decide_seen(&granted_id, Decision::ALWAYS)
        .await
        .unwrap();
    let (_, other_grant) = s.post("/v1/approvals", &for_art(&keep, "one")).await;
    s.console
        .decide_seen(
            &ApprovalId::parse(other_grant["id"].as_str().unwrap()).unwrap(),
            Decision::ALWAYS,
        )
        .await
        .unwrap();
    let mut pending_body = for_art(&art, "two");
    pending_body["tool"] = json!("github.user.me.issues.close");
    let (_, pending) = s.post("/v1/approvals", &pending_body).await;
    let pending_id = ApprovalId::parse(pending["id"].as_str().unwrap()).unwrap();
    assert_eq!(s.console.grants().await.unwrap().len(), 2);

    let art_id = ArtifactId::parse(art["id"].as_str().unwrap()).unwrap();
    s.console.delete_artifact(&art_id).await.unwrap();

    let live = s.console.grants().await.unwrap();
    assert_eq!(live.len(), 1, "only the other artifact's grant stays");
    assert_eq!(
        live[0].artifact_id.as_ref().map(|a| a.as_str()),
        keep["id"].as_str()
    );
    let revoked = s.console.grant_lists().await.unwrap().revoked;
    assert_eq!(revoked.len(), 1);
    assert_eq!(revoked[0].artifact_id.as_ref(), Some(&art_id));
    let cancelled = s.console.approval(&pending_id).await.unwrap();
    assert_eq!(cancelled.status, Status::Cancelled);
    assert_eq!(cancelled.reason.as_deref(), Some("artifact deleted"));
    // History keeps the approvals of a deleted artifact.
    assert_eq!(
        s.console.approval(&granted_id).await.unwrap().status,
        Status::Approved
    );

    // The artifact is gone: an approval naming it is refused, not stored.
    let before = s.fingerprint().await;
    let got = s.post("/v1/approvals", &for_art(&art, "one")).await;
    assert_error(&got, StatusCode::NOT_FOUND, "artifact_not_found");
    assert_eq!(s.fingerprint().await, before);
}

/// An update in place replaces the code, keeps what it leaves out, keeps the id, link and
/// grants, and keeps every earlier source as a version a person can restore.
#[tokio::test]
async fn an_update_keeps_what_it_leaves_out_and_every_version() {
    let s = server().await;
    let (code, created) = s
        .post(
            "/v1/artifacts",
            &json!({ "title": "Revenue", "description": "weekly revenue", "code": "export default () => <p>V1</p>" }),
        )
        .await;
    assert_eq!(code, StatusCode::CREATED);
    assert_eq!(created["version"], 1);
    let id = created["id"].as_str().unwrap().to_owned();
    // A title is required to create, not to update.
    let got = s
        .post(
            "/v1/artifacts",
            &json!({ "code": "export default () => <p>X</p>" }),
        )
        .await;
    let msg = assert_error(&got, StatusCode::BAD_REQUEST, "invalid_request");
    assert!(msg.starts_with("title:"), "{msg}");

    let (code, updated) = s
        .post(
            "/v1/artifacts",
            &json!({ "artifact_id": id, "code": "export default () => <p>V2</p>" }),
        )
        .await;
    assert_eq!(code, StatusCode::OK, "{updated}");
    assert_eq!(
        (
            &updated["title"],
            &updated["description"],
            &updated["code"],
            &updated["version"],
            &updated["link"]
        ),
        (
            &json!("Revenue"),
            &json!("weekly revenue"),
            &json!("export default () => <p>V2</p>"),
            &json!(2),
            &created["link"]
        )
    );
    let (_, renamed) = s
        .post(
            "/v1/artifacts",
            &json!({ "artifact_id": id, "title": "Revenue 2", "code": "export default () => <p>V3</p>" }),
        )
        .await;
    assert_eq!(
        (
            &renamed["title"],
            &renamed["description"],
            &renamed["version"]
        ),
        (&json!("Revenue 2"), &json!("weekly revenue"), &json!(3))
    );
    let (_, got) = s.get(&format!("/v1/artifacts/{id}")).await;
    assert_eq!(
        (&got["code"], &got["version"]),
        (&json!("export default () => <p>V3</p>"), &json!(3))
    );
    // The same code again is no new version and needs no check; the new labels are kept.
    let (code, same) = s
        .post(
            "/v1/artifacts",
            &json!({ "artifact_id": id, "description": "by week", "code": "export default () => <p>V3</p>" }),
        )
        .await;
    assert_eq!(code, StatusCode::OK, "{same}");
    assert_eq!(
        (
            &same["title"],
            &same["description"],
            &same["version"],
            &same["render_check"]["status"]
        ),
        (
            &json!("Revenue 2"),
            &json!("by week"),
            &json!(3),
            &json!("not_run")
        )
    );

    let art = countersign_domain::ids::ArtifactId::parse(&id).unwrap();
    let versions: Vec<u32> = s
        .console
        .artifact_versions(&art)
        .await
        .unwrap()
        .iter()
        .map(|v| v.version)
        .collect();
    assert_eq!(versions, [3, 2, 1]);
    let diff = s.console.version_diff(&art, 1, 3).await.unwrap();
    assert_eq!((diff.rendered.added, diff.rendered.removed), (1, 1));
    let restored = s.console.restore_version(&art, 1).await.unwrap();
    assert_eq!(
        (restored.code.as_str(), restored.version),
        ("export default () => <p>V1</p>", 4)
    );
    let latest = &s.console.artifact_versions(&art).await.unwrap()[0];
    assert_eq!(latest.restored_from, Some(1));
    assert_eq!(
        latest.saved_by,
        countersign_domain::artifact::Author::Person
    );
    let err = s.console.restore_version(&art, 9).await.unwrap_err();
    assert_eq!(err.code().as_str(), "version_not_found");

    // Versions go with their artifact (the list is empty, which reads as not found).
    s.console.delete_artifact(&art).await.unwrap();
    let err = s.console.artifact_versions(&art).await.unwrap_err();
    assert_eq!(err.code().as_str(), "artifact_not_found");
}

/// The preview runs what the first-render check rendered: the compiled source is kept with its
/// version and handed out with the artifact, a restore brings it back with the source, and what
/// another check script compiled (before an upgrade) is not handed out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_preview_gets_what_the_check_compiled() {
    use countersign_domain::artifact::ArtifactDraft;
    let t = crate::support::console().await;
    let draft = |id: Option<ArtifactId>, code: &str| ArtifactDraft {
        artifact_id: id,
        title: Some("Board".into()),
        description: None,
        code: code.into(),
    };
    let v1 = t
        .console
        .save_artifact(draft(None, "export default () => <Card>One</Card>;"))
        .await
        .unwrap();
    let id = v1.artifact.id.clone();
    let first = t.console.shown_artifact(&id).await.unwrap();
    let compiled = first.compiled.expect("the check compiled it");
    assert!(
        compiled.contains("__scope") && compiled.contains("One"),
        "{compiled}"
    );

    t.console
        .save_artifact(draft(
            Some(id.clone()),
            "export default () => <Card>Two</Card>;",
        ))
        .await
        .unwrap();
    let second = t.console.shown_artifact(&id).await.unwrap();
    assert!(second.compiled.as_deref().unwrap().contains("Two"));

    t.console.restore_version(&id, 1).await.unwrap();
    let restored = t.console.shown_artifact(&id).await.unwrap();
    assert_eq!(restored.artifact.version, 3);
    assert_eq!(restored.compiled.as_deref(), Some(compiled.as_str()));

    // Data is shown as data: nothing compiled.
    let data = t
        .console
        .save_artifact(draft(None, r#"{"rows": [1, 2]}"#))
        .await
        .unwrap();
    let shown = t.console.shown_artifact(&data.artifact.id).await.unwrap();
    assert_eq!(shown.compiled, None);

    // Compiled by another check script: the preview compiles afresh.
    let store = countersign_store::Store::open(&t.dir.path().join("countersign.db"))
        .await
        .unwrap();
    {
        let mut tx = store.write().await.unwrap();
        sqlx::query("UPDATE artifact_versions SET compiled_by = 'an older check'")
            .execute(tx.sqlite().unwrap())
            .await
            .unwrap();
        tx.commit().await.unwrap();
    }
    store.close().await;
    assert_eq!(t.console.shown_artifact(&id).await.unwrap().compiled, None);
}

/// A card or a grant names its artifact by id, however many the library holds: the 501st
/// artifact (beyond the sidebar's 500 newest) is still named, a deleted one is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_artifact_is_named_by_id_however_many_there_are() {
    use countersign_domain::artifact::ArtifactDraft;
    let t = crate::support::console().await;
    let mut ids = Vec::new();
    for i in 0..501 {
        let saved = t
            .console
            .save_artifact(ArtifactDraft {
                artifact_id: None,
                title: Some(format!("Board {i}")),
                description: None,
                code: "export default () => <p>x</p>;".into(),
            })
            .await
            .unwrap();
        ids.push(saved.artifact.id);
        t.console
            .clock()
            .advance(std::time::Duration::from_millis(1));
    }
    let listed = t.console.artifacts(None).await.unwrap();
    assert_eq!(listed.len(), 500);
    assert!(
        !listed.iter().any(|a| a.id == ids[0]),
        "the oldest is past the list"
    );
    t.console.delete_artifact(&ids[1]).await.unwrap();
    let named = t
        .console
        .artifact_titles(&[ids[0].clone(), ids[1].clone(), ArtifactId::generate()])
        .await
        .unwrap();
    assert_eq!(named.len(), 1);
    assert_eq!(named[0].artifact.title, "Board 0");
    let too_many = vec![ids[0].clone(); 501];
    assert!(t.console.artifact_titles(&too_many).await.is_err());
}
