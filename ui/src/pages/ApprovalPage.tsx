import { useEffect, useState } from "react";

import { api, CommandError } from "../api/ipc";
import type { Effect } from "../api/types/Effect";
import type { Presented } from "../api/types/Presented";
import { ApprovalCard, type CardActions } from "../components/ApprovalCard";
import { useArming } from "../lib/arming";

/** One approval, pending or decided, opened from a link, a notification or the inbox. */
export function ApprovalPage({ id, version, actions }: { id: string; version: number; actions: CardActions }) {
  const [p, setP] = useState<Presented | null>(null);
  const [missing, setMissing] = useState(false);
  const [declining, setDeclining] = useState(false);
  const [choosing, setChoosing] = useState<Effect | null>(null);
  const { armed } = useArming(p?.approval.id ?? "");
  useEffect(() => {
    setMissing(false);
    api.approval(id).then(setP).catch((e: unknown) => {
      if (e instanceof CommandError && e.code === "approval_not_found") setMissing(true);
    });
  }, [id, version]);
  if (missing) {
    return (
      <div className="page" data-testid="not-found">
        <h1>Approval not found</h1>
        <p>No approval <code className="mono">{id}</code> is on record.</p>
      </div>
    );
  }
  if (!p) return <div className="page"><p className="muted">Loading…</p></div>;
  return (
    <div className="page approval-page">
      {/* One card per approval: what was picked on one is never carried to the next. */}
      <ApprovalCard key={p.approval.id} p={p} selected actions={actions} armed={armed} declining={declining} setDeclining={setDeclining}
        choosing={choosing} setChoosing={setChoosing} />
    </div>
  );
}
