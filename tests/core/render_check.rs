//! The first-render check at save time, through the real API: a throw is refused with its
//! message and component stack and nothing is saved; a chart part outside its container is
//! named; an endless render is cut off while the console keeps answering; an engine that cannot
//! finish lets the save through and says so.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{assert_error, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_render_that_throws_is_refused_with_its_stack() {
    let s = server().await;
    let before = s.fingerprint().await;
    let code = r#"
function Revenue({ rows }) {
  return <Table><TableBody>{rows.map((r) => <TableRow key={r.id}><TableCell>{r.total}</TableCell></TableRow>)}</TableBody></Table>;
}
export default function Dashboard() {
  return <Card><CardHeader><CardTitle>Revenue</CardTitle></CardHeader><CardContent><Revenue /></CardContent></Card>;
}"#;
    let got = s
        .post("/v1/artifacts", &json!({ "title": "Broken", "code": code }))
        .await;
    assert_eq!(got.0, StatusCode::UNPROCESSABLE_ENTITY, "{}", got.1);
    let msg = assert_error(
        &got,
        StatusCode::UNPROCESSABLE_ENTITY,
        "artifact_render_failed",
    );
    assert!(msg.contains("map"), "the real message: {msg}");
    let stack = got.1["error"]["component_stack"].as_str().unwrap();
    assert!(
        stack.contains("Revenue") && stack.contains("Dashboard"),
        "React's component stack: {stack}"
    );
    assert_eq!(s.fingerprint().await, before, "nothing was saved");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chart_part_outside_its_container_is_named() {
    let s = server().await;
    let code = "export default () => <ChartTooltipContent active payload={[]} />;";
    let got = s
        .post("/v1/artifacts", &json!({ "title": "Chart", "code": code }))
        .await;
    let msg = assert_error(
        &got,
        StatusCode::UNPROCESSABLE_ENTITY,
        "artifact_render_failed",
    );
    assert!(msg.contains("ChartContainer"), "{msg}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_dashboard_data_and_tools_pass() {
    let s = server().await;
    let dashboard = r##"
import { Bar, BarChart, CartesianGrid, XAxis } from "recharts";
import { TrendingUp } from "lucide-react";
const data = [{ month: "Jan", sales: 186 }, { month: "Feb", sales: 305 }];
const config = { sales: { label: "Sales", color: "#2563eb" } };
export default function Sales() {
  const [live, setLive] = useState(null);
  useEffect(() => { tools.crm.sales.list().then(setLive).catch(() => setLive([])); }, []);
  return (
    <Card>
      <CardHeader><CardTitle>Sales <TrendingUp /></CardTitle></CardHeader>
      <CardContent>
        <ChartContainer config={config}>
          <BarChart data={live ?? data}><CartesianGrid vertical={false} /><XAxis dataKey="month" />
            <ChartTooltip content={<ChartTooltipContent />} /><Bar dataKey="sales" fill="var(--color-sales)" />
          </BarChart>
        </ChartContainer>
      </CardContent>
    </Card>
  );
}"##;
    let fixture = include_str!("../fixtures/dashboard.jsx");
    for code in [dashboard, fixture, r#"{"rows": [1, 2, 3]}"#] {
        let (status, a) = s
            .post("/v1/artifacts", &json!({ "title": "Sales", "code": code }))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{a}");
        assert_eq!(a["render_check"], json!({ "status": "passed" }), "{a}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_render_is_cut_off_and_the_console_keeps_answering() {
    let s = server().await;
    let endless = "export default function Spin() { while (true) {} return null; }";
    let url = format!("{}/v1/artifacts", s.url);
    let req = s
        .request(reqwest::Method::POST, "/v1/artifacts")
        .json(&json!({ "title": "Spin", "code": endless }));
    let spin = tokio::spawn(async move { req.send().await.unwrap() });
    // While the render spins, the console answers other requests.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let (status, _) = s.get("/v1/artifacts").await;
    assert_eq!(status, StatusCode::OK);
    let resp = spin.await.unwrap();
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY, "{url}");
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], "artifact_render_failed");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not finish"),
        "{body}"
    );
    // The next check runs on a fresh engine.
    let (status, a) = s
        .post(
            "/v1/artifacts",
            &json!({ "title": "Fine", "code": "export default () => <p>ok</p>;" }),
        )
        .await;
    assert_eq!(
        (status, &a["render_check"]["status"]),
        (StatusCode::CREATED, &json!("passed"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_cannot_finish_lets_the_save_through() {
    let s = server().await;
    // Past the engine's memory cap: the check cannot run, so it fails open.
    // 64 MiB at a time, so the cap is reached in a handful of steps on any machine, well
    // inside the render budget.
    let hungry = "const big = []; for (let i = 0; i < 1e3; i++) big.push(new ArrayBuffer(1 << 26));\n\
                  export default () => <p>{big.length}</p>;";
    let (status, a) = s
        .post(
            "/v1/artifacts",
            &json!({ "title": "Hungry", "code": hungry }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{a}");
    assert_eq!(a["render_check"]["status"], "skipped", "{a}");
    assert!(
        a["render_check"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("memory")),
        "{a}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recursion_without_end_is_refused_and_the_console_lives() {
    let s = server().await;
    let code = "function Deep({ n }) { return <Deep n={n + 1} />; }\n\
                function down(n) { return down(n + 1) + 1; }\n\
                export default function App() { return <p>{down(0)}<Deep n={0} /></p>; }";
    let got = s
        .post("/v1/artifacts", &json!({ "title": "Deep", "code": code }))
        .await;
    let msg = assert_error(
        &got,
        StatusCode::UNPROCESSABLE_ENTITY,
        "artifact_render_failed",
    );
    assert!(msg.to_lowercase().contains("stack"), "{msg}");
    let (status, _) = s.get("/v1/artifacts").await;
    assert_eq!(status, StatusCode::OK, "the console still answers");
}

/// An artifact's code runs in the check's engine, which stays warm for later checks: what it
/// changes there never reaches what a later save compiles (the preview runs that), nor the
/// check's answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_artifact_cannot_change_what_later_checks_compile_or_answer() {
    use countersign_domain::artifact::ArtifactDraft;
    let t = crate::support::console().await;
    let draft = |code: &str| ArtifactDraft {
        artifact_id: None,
        title: Some("Board".into()),
        description: None,
        code: code.into(),
    };
    let clean = "export default () => <Card>Clean</Card>;";
    let first = t.console.save_artifact(draft(clean)).await.unwrap();
    let expected = t
        .console
        .shown_artifact(&first.artifact.id)
        .await
        .unwrap()
        .compiled
        .expect("compiled");

    let poison = r#"
const evil = '{"ok":true,"kind":"component"}';
const tries = [
  () => { String.prototype.replace = function () { return "poisoned"; }; },
  () => { Array.prototype.join = function () { return "poisoned"; }; },
  () => { JSON.stringify = () => evil; },
  () => { JSON.parse = () => ({ kind: "module", body: "poisoned" }); },
  () => { globalThis.countersignCheck = () => evil; },
  () => { Object.defineProperty(globalThis, "countersignCheck", { value: () => evil }); },
  () => { globalThis.countersignCompileJson = () => '{"kind":"module","body":"poisoned"}'; },
  () => { globalThis.countersignCompile = () => ({ kind: "module", body: "poisoned" }); },
];
for (const t of tries) { try { t(); } catch (e) {} }
export default () => <p>Innocent</p>;"#;
    t.console.save_artifact(draft(poison)).await.unwrap();

    let again = t.console.save_artifact(draft(clean)).await.unwrap();
    let compiled = t
        .console
        .shown_artifact(&again.artifact.id)
        .await
        .unwrap()
        .compiled
        .expect("compiled");
    assert_eq!(compiled, expected, "the same source compiles the same");
    // A render that throws is still refused: the answer is not the poisoned one.
    let broken = t
        .console
        .save_artifact(draft(
            "export default () => { throw new Error('really broken'); };",
        ))
        .await;
    let err = broken.expect_err("refused");
    assert!(format!("{err:?}").contains("really broken"), "{err:?}");
}
