import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from "react";

interface Request { title: ReactNode; body: string; action: string; resolve: (ok: boolean) => void }

const ConfirmContext = createContext<(title: ReactNode, body: string, action: string) => Promise<boolean>>(
  async () => false,
);

/** `const confirm = useConfirm(); if (await confirm(...))` — an in-app, keyboard-friendly dialog. */
export function useConfirm() {
  return useContext(ConfirmContext);
}

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [req, setReq] = useState<Request | null>(null);
  const ask = useCallback((title: ReactNode, body: string, action: string) =>
    new Promise<boolean>((resolve) => setReq({ title, body, action, resolve })), []);
  const answer = (ok: boolean) => { req?.resolve(ok); setReq(null); };
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => { if (req) cancelRef.current?.focus(); }, [req]);
  return (
    <ConfirmContext.Provider value={ask}>
      {children}
      {req && (
        <div className="overlay" onKeyDown={(e) => { if (e.key === "Escape") answer(false); }}>
          <div className="dialog" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" data-testid="confirm-dialog">
            <h2 id="confirm-title">{req.title}</h2>
            <p>{req.body}</p>
            <div className="row end">
              <button ref={cancelRef} onClick={() => answer(false)} data-testid="confirm-cancel">Cancel</button>
              <button className="danger-solid" onClick={() => answer(true)} data-testid="confirm-ok">{req.action}</button>
            </div>
          </div>
        </div>
      )}
    </ConfirmContext.Provider>
  );
}
