// squadmem's memory for an agent the Squad SDK starts (@bradygaster/squad-sdk 0.13).
//
// A session hook: when the agent's task arrives (its first prompt), it runs
//   squadmem context --agent <name> --task "<the prompt>"
// and hands what it prints to the session as `additionalContext` (Copilot's
// `onUserPromptSubmitted` hook, which the SDK's `createSession({ hooks })` passes on).
//
//   import { squadmemHooks, withSquadmem } from "./squad-sdk.mjs";
//   const session = await client.createSession({ ...config, hooks: squadmemHooks("picard") });
//   // or, where the SDK creates sessions itself from a factory (its coordinator's fan-out and
//   // spawn backends name each session `squad-agent-<name>`):
//   const createSession = withSquadmem((config) => client.createSession(config));
//
// Without squadmem on PATH the agent is told to read its hot memory file instead.
import { execFile } from "node:child_process";

const AGENT_CLIENT = /^squad-agent-(.+)$/;
// the SDK's fan-out prompt: "**Task:**" then the task, then "**Context:**" and what the coordinator adds
const FAN_OUT = /^(?:\*\*Priority:\*\* [^\n]*\n)?\n\*\*Task:\*\*\n([\s\S]*?)(?:\n\n\*\*Context:\*\*\n[\s\S]*)?$/;

export function taskOf(prompt) {
  return FAN_OUT.exec(prompt)?.[1] ?? prompt;
}

export function squadmemContext(agent, task, { cwd = process.cwd(), command = "squadmem" } = {}) {
  return new Promise((resolve) => {
    const args = ["context", "--agent", agent, "--task", task];
    execFile(command, args, { cwd, maxBuffer: 1 << 22 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const why = (stderr || error.message).trim().split("\n")[0];
      resolve(`squadmem context failed (${why}): read .squad/memory/hot/${agent}.md instead.\n`);
    });
  });
}

export function squadmemHooks(agent, options = {}) {
  const started = new Set(); // a session gets the payload with its task, not with every later prompt
  return {
    onUserPromptSubmitted: async (input, invocation) => {
      if (started.has(invocation.sessionId)) return undefined;
      started.add(invocation.sessionId);
      const cwd = options.cwd ?? input.workingDirectory ?? process.cwd();
      return { additionalContext: await squadmemContext(agent, taskOf(input.prompt), { ...options, cwd }) };
    },
  };
}

export function withSquadmem(createSession, options = {}) {
  return (config = {}) => {
    const agent = options.agent ?? AGENT_CLIENT.exec(config.clientName ?? "")?.[1];
    if (!agent) return createSession(config);
    const ours = squadmemHooks(agent, options).onUserPromptSubmitted;
    const theirs = config.hooks?.onUserPromptSubmitted;
    const onUserPromptSubmitted = async (input, invocation) => {
      const before = theirs ? await theirs(input, invocation) : undefined;
      const memory = await ours(input, invocation);
      if (!memory) return before;
      const context = [before?.additionalContext, memory.additionalContext].filter(Boolean).join("\n\n");
      return { ...before, additionalContext: context };
    };
    return createSession({ ...config, hooks: { ...config.hooks, onUserPromptSubmitted } });
  };
}
