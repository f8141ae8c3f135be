// A stand-in for the Copilot runtime the Squad SDK starts (`copilot --headless --stdio`): it answers
// the SDK's JSON-RPC over stdio as the runtime does for a session, and where the model would be it
// records what the SDK handed over. When a prompt is submitted it asks the client for the
// userPromptSubmitted hook's output, as the runtime does, and writes the session's system message,
// the prompt and the hook's output to the file SQUADMEM_SDK_RECORD names. No model, no network.
"use strict";
const fs = require("node:fs");

const record = { requests: [], sessions: {} };
let nextId = 1;
const waiting = new Map();
let buffer = Buffer.alloc(0);

function write(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }), "utf8");
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function save() {
  fs.writeFileSync(process.env.SQUADMEM_SDK_RECORD, JSON.stringify(record, null, 2));
}

function ask(method, params) {
  const id = `runtime-${nextId++}`;
  write({ id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

async function answer(method, params) {
  record.requests.push(method);
  if (method === "connect" || method === "ping") return { protocolVersion: 3 };
  if (method === "session.create") {
    const sessionId = params.sessionId ?? `session-${Object.keys(record.sessions).length + 1}`;
    record.sessions[sessionId] = {
      clientName: params.clientName ?? null,
      systemMessage: params.systemMessage ?? null,
      hooks: params.hooks,
      prompts: [],
    };
    save();
    return { sessionId, workspacePath: null, capabilities: {} };
  }
  if (method === "session.send") {
    const session = record.sessions[params.sessionId];
    const input = { sessionId: params.sessionId, timestamp: Date.now(), cwd: process.cwd(), prompt: params.prompt };
    const reply = session.hooks
      ? await ask("hooks.invoke", { sessionId: params.sessionId, hookType: "userPromptSubmitted", input })
      : null;
    session.prompts.push({ prompt: params.prompt, hook: reply && reply.result ? reply.result.output ?? null : null });
    save();
    return { messageId: `message-${session.prompts.length}` };
  }
  return {};
}

function dispatch(message) {
  if (message.method === undefined) {
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    if (resolve) resolve(message);
    return;
  }
  if (message.id === undefined) return; // a notification
  answer(message.method, message.params || {}).then(
    (result) => write({ id: message.id, result }),
    (error) => write({ id: message.id, error: { code: -32603, message: String(error) } }),
  );
}

process.stdin.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const length = Number(/Content-Length: *(\d+)/i.exec(buffer.subarray(0, end).toString("ascii"))[1]);
    if (buffer.length < end + 4 + length) return;
    const body = buffer.subarray(end + 4, end + 4 + length).toString("utf8");
    buffer = buffer.subarray(end + 4 + length);
    dispatch(JSON.parse(body));
  }
});
process.stdin.on("end", () => process.exit(0));
