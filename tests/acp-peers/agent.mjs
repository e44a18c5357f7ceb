#!/usr/bin/env node
// An ACP agent built on the official TypeScript SDK (after the SDK's own example agent): on
// each prompt it announces a tool call, asks `session/request_permission` for it in the shape
// a real agent sends (ACP_SHAPE names one in ../fixtures/acp-requests.json, ACP_CALL the call:
// execute or edit), and on an allow option reports the call's output as that agent does.
//
// ACP_AGENT_NAME sets `agentInfo.name` in the initialize answer (none when unset).
// Any other request is answered with its own params (`_meta` and all), any notification is
// sent back as `_test/echoed`: what the editor sent, as the agent got it.
import { agent, ndJsonStream } from "@agentclientprotocol/sdk";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";

const shapes = JSON.parse(
  readFileSync(new URL("../fixtures/acp-requests.json", import.meta.url), "utf8"),
);
const shape = shapes[process.env.ACP_SHAPE ?? "gemini"];
const call = process.env.ACP_CALL ?? "execute";
const name = process.env.ACP_AGENT_NAME;
const sessions = new Map();

const app = agent({ name: "countersign-test-agent" })
  .onRequest("initialize", ({ params }) => ({
    protocolVersion: params.protocolVersion,
    agentCapabilities: { loadSession: false },
    ...(name ? { agentInfo: { name, version: "1.0.0" } } : {}),
  }))
  .onRequest("session/new", () => {
    const sessionId = `sess-${sessions.size + 1}`;
    sessions.set(sessionId, {});
    return { sessionId };
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    const sessionId = params.sessionId;
    const request = structuredClone(shape[call]);
    request.sessionId = sessionId;
    const { toolCallId, title, kind, content, locations, rawInput } = request.toolCall;
    await client.notify("session/update", {
      sessionId,
      update: {
        sessionUpdate: "tool_call",
        toolCallId,
        title,
        kind,
        status: "pending",
        ...(content ? { content } : {}),
        ...(locations ? { locations } : {}),
        ...(rawInput ? { rawInput } : {}),
      },
    });
    const answer = await client.request("session/request_permission", request);
    const said = (text) =>
      client.notify("session/update", {
        sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
      });
    if (answer.outcome.outcome === "cancelled") {
      await said("outcome: cancelled");
      return { stopReason: "cancelled" };
    }
    const chosen = request.options.find((o) => o.optionId === answer.outcome.optionId);
    await said(`outcome: ${chosen ? chosen.kind : "unknown option " + answer.outcome.optionId}`);
    const reason = answer._meta?.countersign?.reason;
    if (reason) {
      await said(`reason: ${reason}`);
    }
    if (chosen && chosen.kind.startsWith("allow")) {
      const done = structuredClone(shape[`${call}_done`]);
      done.sessionId = sessionId;
      done.update.toolCallId = toolCallId;
      await client.notify("session/update", done);
    }
    return { stopReason: "end_turn" };
  })
  .onNotification("session/cancel", () => {})
  .onRequest("*", ({ params }) => params ?? {})
  .onNotification("*", ({ method, params, client }) =>
    client.notify("_test/echoed", { method, params }),
  );

app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
