import { useEffect, useMemo, useRef, useState } from "react";

import { api } from "../api/ipc";
import type { Effect } from "../api/types/Effect";
import type { GrantPreview } from "../api/types/GrantPreview";
import type { Presented } from "../api/types/Presented";
import type { Scope } from "../api/types/Scope";
import { endOfDay, reachWords, SETTINGS_EXCLUDED, shellWord } from "../lib/grants";
import { Verbatim } from "./Verbatim";

type What = "exact" | "command" | "path" | "any";
type HowLong = "hour" | "day" | "forever";

/**
 * "Don't ask again", narrowed: what the rule covers, where, and for how long, chosen with the
 * keyboard (arrows within a group, Tab between groups, Enter saves, Escape cancels), the
 * narrowest sensible scope preselected, and what it would have covered among earlier calls.
 */
export function GrantChooser({ p, effect, armed, onCancel, onSave }: {
  p: Presented;
  effect: Effect;
  armed: boolean;
  onCancel: () => void;
  onSave: (scope: Scope, reason: string | undefined) => Promise<void>;
}) {
  const a = p.approval;
  const offers = p.offers;
  const words = offers.words ?? [];
  const [what, setWhat] = useState<What>(offers.default.reach.kind);
  const [n, setN] = useState(Math.max(1, words.length));
  const [here, setHere] = useState(offers.default.project !== null);
  const [anyAgent, setAnyAgent] = useState(false);
  const [howLong, setHowLong] = useState<HowLong>("forever");
  const [reason, setReason] = useState("");
  const [preview, setPreview] = useState<GrantPreview | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // The keyboard starts on the preselected "what".
  useEffect(() => { form.current?.querySelector<HTMLInputElement>("input[type=radio]:checked")?.focus(); }, []);

  const scope: Scope = useMemo(() => ({
    reach: what === "exact" ? { kind: "exact", digest: a.digest }
      : what === "command" ? { kind: "command", words: words.slice(0, n) }
      : what === "path" ? { kind: "path", prefix: offers.dir ?? "" }
      : { kind: "any" },
    project: a.artifact_id || !here || effect === "deny" ? null : a.requester.cwd ?? null,
    // The expiry is fixed when saving; the preview does not depend on it.
    expires_at: null,
    // Only a command prefix or a folder may serve every agent.
    any_agent: anyAgent && offers.any_agent !== null && (what === "command" || what === "path"),
  }), [what, n, here, a, words, offers.dir, anyAgent, offers.any_agent]);

  useEffect(() => {
    let live = true;
    const t = window.setTimeout(() => {
      api.previewGrant(a.id, effect, scope)
        .then((got) => { if (live) { setPreview(got); setRefusal(null); } })
        .catch((e: Error) => { if (live) { setPreview(null); setRefusal(e.message); } });
    }, 120);
    return () => { live = false; window.clearTimeout(t); };
  }, [a.id, effect, scope]);

  const save = async () => {
    if (!armed || refusal) return;
    const now = Date.now();
    const expires_at = howLong === "hour" ? now + 3_600_000 : howLong === "day" ? endOfDay(now + 60_000) : null;
    setBusy(true);
    try { await onSave({ ...scope, expires_at }, reason.trim() || undefined); } finally { setBusy(false); }
  };
  const verb = effect === "approve" ? "Approve" : "Decline";
  const name = `grant-${a.id}`;
  const option = (group: string, value: string, checked: boolean, set: () => void, label: React.ReactNode, disabled = false) => (
    <label className={`choice ${disabled ? "off" : ""}`}>
      <input type="radio" name={`${name}-${group}`} value={value} checked={checked} disabled={disabled}
        onChange={set} data-testid={`${group}-${value}`} />
      {label}
    </label>
  );
  return (
    <form ref={form} className="chooser" data-testid="grant-chooser" data-effect={effect}
      onSubmit={(e) => { e.preventDefault(); void save(); }}
      onKeyDown={(e) => {
        if (e.key === "Escape") { e.preventDefault(); onCancel(); }
        // Enter saves from anywhere in the chooser but a button, which acts on its own.
        if (e.key === "Enter" && (e.target as HTMLElement).tagName !== "BUTTON") { e.preventDefault(); void save(); }
      }}>
      <h4>{verb} and don't ask again</h4>
      <fieldset>
        <legend>What</legend>
        {option("what", "exact", what === "exact", () => setWhat("exact"), "This exact call")}
        {a.call.card === "terminal" && option("what", "command", what === "command", () => setWhat("command"),
          offers.words ? (
            <span>Commands starting with{" "}
              <span className="prefix mono" data-testid="prefix">
                {words.map((w, i) => <span key={i} className={i < n ? "in" : "out"}>{shellWord(w)}</span>)}
              </span>
              <span className="muted" data-testid="prefix-excludes">
                {effect === "approve" ? `, ${offers.prefix_excludes ?? "nothing after these words"}`
                  : `. ${offers.decline_misses ?? ""}`}</span>
              <button type="button" className="small" aria-label="One word fewer" disabled={n <= 1}
                onClick={() => { setWhat("command"); setN(n - 1); }} data-testid="prefix-narrow">−</button>
              <button type="button" className="small" aria-label="One word more" disabled={n >= words.length}
                onClick={() => { setWhat("command"); setN(n + 1); }} data-testid="prefix-widen">+</button>
            </span>
          ) : <span>Commands starting with… <span className="muted">({offers.no_prefix})</span></span>,
          !offers.words)}
        {a.call.card === "diff" && option("what", "path", what === "path", () => setWhat("path"),
          offers.dir ? <span>Files under <code className="mono">{offers.dir}</code>
            {effect === "approve" && <span className="muted" data-testid="settings-excluded">, {SETTINGS_EXCLUDED}</span>}</span>
            : <span>Files under… <span className="muted">(they share no directory)</span></span>,
          !offers.dir)}
        {option("what", "any", what === "any", () => setWhat("any"), <>Any call to <code className="mono">{a.tool}</code></>)}
      </fieldset>
      {offers.any_agent !== null && (
        <fieldset>
          <legend>Who</legend>
          <label className={`choice ${what === "command" || what === "path" ? "" : "off"}`}>
            <input type="checkbox" checked={anyAgent} disabled={!(what === "command" || what === "path")}
              onChange={(e) => setAnyAgent(e.target.checked)} data-testid="any-agent" />
            From any agent <span className="muted">({offers.any_agent}), not only <code className="mono">{a.tool}</code>
              {what === "command" || what === "path" ? "" : " — for a command prefix or a folder"}</span>
          </label>
        </fieldset>
      )}
      <fieldset>
        <legend>Where</legend>
        {a.artifact_id ? <p className="muted">For this call's artifact only.</p>
          : effect === "deny" ? <p className="muted">Everywhere: a call cannot escape a decline rule by naming another project.</p> : <>
          {option("where", "project", here, () => setHere(true),
            a.requester.cwd ? <span>This project <code className="mono"><Verbatim text={a.requester.cwd} marks={p.marks["requester.cwd"]} /></code></span>
              : <span>This project <span className="muted">(the agent did not say which)</span></span>,
            !a.requester.cwd)}
          {option("where", "everywhere", !here, () => setHere(false), "Everywhere")}
        </>}
      </fieldset>
      <fieldset>
        <legend>How long</legend>
        {option("long", "hour", howLong === "hour", () => setHowLong("hour"), "1 hour")}
        {option("long", "day", howLong === "day", () => setHowLong("day"), "Until the end of the day")}
        {option("long", "forever", howLong === "forever", () => setHowLong("forever"), "Until revoked")}
      </fieldset>
      {effect === "deny" && (
        <label className="reason">Reason for the agent (optional)
          <input value={reason} onChange={(e) => setReason(e.target.value)} maxLength={4000} data-testid="deny-reason" />
        </label>
      )}
      <div className="preview" data-testid="grant-preview" aria-live="polite">
        {refusal ? <p className="error" data-testid="grant-refusal">{refusal}</p>
          : preview ? <>
            <p>Covers <strong>{preview.covered}</strong> of your {preview.scanned} earlier
              call{preview.scanned === 1 ? "" : "s"} to this address ({preview.approved} of them approved):
              {" "}{reachWords(scope.reach, effect)}.</p>
            {preview.examples.length > 0 && (
              <ul className="mono">{preview.examples.map((x) => <li key={x.id}>{x.summary} <span className="muted">· {x.status}</span></li>)}</ul>
            )}
          </> : <p className="muted">Checking earlier calls…</p>}
      </div>
      <div className="row">
        <button type="submit" className={effect === "approve" ? "primary" : "danger-solid"}
          disabled={busy || !armed || refusal !== null} data-testid="save-grant">
          {verb} &amp; save rule <kbd>Enter</kbd></button>
        <button type="button" onClick={onCancel}>Cancel <kbd>Esc</kbd></button>
      </div>
    </form>
  );
}
