#!/usr/bin/env node
// An ACP client built on the official TypeScript SDK (after the SDK's own example client): it
// starts the agent command given after `--`, initializes, opens a session in its own working
// directory, prompts once and prints what happened as JSON lines on stdout:
// {"initialized"}, {"session"}, {"asked"} when its own permission prompt is asked (it answers
// with the option of kind ACP_CLIENT_ANSWER, default reject_once), {"update"} for each session
// update, {"notification"} for any other, {"stop"} with the prompt's stop reason, {"exit"}.
//
// ACP_ECHO=1 first sends `_test/echo` (a method ACP does not define) with `_meta` and a large
// payload, and a notification `_test/note`, and prints what came back ({"echoed"}).
// ACP_CANCEL_AFTER_MS sends `session/cancel` that long after the prompt.
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const argv = process.argv.slice(2);
const command = argv[0] === "--" ? argv.slice(1) : argv;
const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
const out = (event) => process.stdout.write(JSON.stringify(event) + "\n");
const answer = process.env.ACP_CLIENT_ANSWER ?? "reject_once";

const app = client({ name: "countersign-test-client" })
  .onRequest("session/request_permission", ({ params }) => {
    out({ asked: params });
    const option = params.options.find((o) => o.kind === answer);
    return option
      ? { outcome: { outcome: "selected", optionId: option.optionId } }
      : { outcome: { outcome: "cancelled" } };
  })
  .onNotification("session/update", ({ params }) => out({ update: params }))
  .onNotification("*", ({ method, params }) => out({ notification: method, params }));

const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      _meta: { "countersign.test": { from: "client" } },
    });
    out({ initialized: init });
    if (process.env.ACP_ECHO) {
      const params = {
        _meta: { trace: "abc", nested: { "x-y": [1, 2, { z: null }] } },
        text: "é ✓ \u2028 \\n",
        big: "x".repeat(3 * 1024 * 1024),
      };
      const echoed = await ctx.request("_test/echo", params);
      out({ echoed: echoed.text === params.text && echoed.big === params.big
        && JSON.stringify(echoed._meta) === JSON.stringify(params._meta) });
      await ctx.notify("_test/note", { _meta: { n: 1 }, note: "hello" });
    }
    const { sessionId } = await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
    out({ session: sessionId });
    const prompt = ctx.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "run the tests" }],
    });
    const wait = Number(process.env.ACP_CANCEL_AFTER_MS ?? "");
    if (wait > 0) {
      setTimeout(() => ctx.notify("session/cancel", { sessionId }), wait);
    }
    const response = await prompt;
    out({ stop: response.stopReason });
  });
} catch (e) {
  out({ error: String(e && e.message ? e.message : e) });
}
child.stdin.end();
out({ exit: await exited });
process.exit(0);
