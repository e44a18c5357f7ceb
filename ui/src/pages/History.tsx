import { useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { Presented } from "../api/types/Presented";
import { ApprovalCard, type CardActions } from "../components/ApprovalCard";

/** Decided approvals, most recent first, a page at a time. */
export function History({ version, actions }: { version: number; actions: CardActions }) {
  const [items, setItems] = useState<Presented[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api.history(null).then((page) => { setItems(page); setMore(page.length === 100); setError(null); })
      .catch((e: Error) => setError(e.message));
  }, [version]);

  const loadMore = async () => {
    const last = items?.[items.length - 1]?.approval;
    if (!last || last.decided_at === null) return;
    const page = await api.history({ decided_at: last.decided_at, id: last.id });
    setItems([...(items ?? []), ...page]);
    setMore(page.length === 100);
  };

  if (error) return <div className="page"><p className="error">{error}</p></div>;
  if (items === null) return <div className="page"><p className="muted">Loading…</p></div>;
  return (
    <div className="page history">
      <h1>History</h1>
      {items.length === 0 && <p className="muted">No decisions yet.</p>}
      {items.map((p) => <ApprovalCard key={p.approval.id} p={p} actions={actions} armed={false} />)}
      {more && <button onClick={() => void loadMore()}>Load older decisions</button>}
    </div>
  );
}
