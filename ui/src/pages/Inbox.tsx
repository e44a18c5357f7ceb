import { useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { Presented } from "../api/types/Presented";
import { ApprovalCard, type CardActions } from "../components/ApprovalCard";

/** Pending approvals, newest first. j/k move, a approve, A don't ask again, d decline, Enter open. */
export function Inbox({ items, actions, now }: { items: Presented[]; actions: CardActions; now: number }) {
  const [selected, setSelected] = useState(0);
  const [declining, setDeclining] = useState<string | null>(null);
  const index = Math.min(selected, Math.max(items.length - 1, 0));
  const current = items[index];

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
      if (e.ctrlKey || e.metaKey || e.altKey || !current) return;
      const a = current.approval;
      switch (e.key) {
        case "j": setSelected(Math.min(index + 1, items.length - 1)); break;
        case "k": setSelected(Math.max(index - 1, 0)); break;
        case "a": void actions.decide(a.id, { decision: "approve" }).catch((err: Error) => actions.report(err.message)); break;
        case "A":
          if (a.hidden_marks > 0) {
            actions.report("“Don't ask again” is off for this call: it carries hidden characters. Press a to approve it once.");
          } else {
            void actions.decide(a.id, { decision: "approve_always" }).catch((err: Error) => actions.report(err.message));
          }
          break;
        case "d": setDeclining(a.id); break;
        case "Enter": actions.openApproval?.(a.id); break;
        default: return;
      }
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [current, index, items.length, actions]);

  if (items.length === 0) return <EmptyInbox />;
  return (
    <div className="page inbox">
      <h1>Inbox <span className="muted count">{items.length} waiting</span></h1>
      <p className="muted hint"><kbd>j</kbd>/<kbd>k</kbd> move · <kbd>a</kbd> approve · <kbd>A</kbd> approve &amp; don't ask again · <kbd>d</kbd> decline · <kbd>Enter</kbd> open</p>
      {items.map((p, i) => (
        <div key={p.approval.id} onClick={() => setSelected(i)}>
          <ApprovalCard p={p} selected={i === index} actions={actions} now={now}
            declining={declining === p.approval.id}
            setDeclining={(on) => setDeclining(on ? p.approval.id : null)} />
        </div>
      ))}
    </div>
  );
}

function EmptyInbox() {
  const [cli, setCli] = useState("countersign");
  useEffect(() => { void api.settings().then((s) => setCli(s.cli)).catch(() => {}); }, []);
  const quoted = /\s/.test(cli) ? `'${cli}'` : cli;
  return (
    <div className="page empty" data-testid="empty-inbox">
      <h1>Nothing to approve</h1>
      <p>When an agent asks before running a tool call, it appears here, exactly as it would run.</p>
      <h3>Try it</h3>
      <pre className="mono command" data-testid="try-it">{quoted} request --tool demo.Bash --command "echo hello"</pre>
      <h3>Connect an agent</h3>
      <p>Agents find this console through <code>connection.json</code> in the data directory and
        authenticate with the token from <code>{quoted} token</code> (see Settings), then
        <code> POST /v1/approvals</code> and wait on <code>GET /v1/approvals/&lt;id&gt;?wait=60</code>.</p>
    </div>
  );
}
