// Starts an agent through the real Squad SDK with squadmem's hook (templates/squad-sdk.mjs), its
// Copilot runtime the stand-in beside this file. Arguments: the SDK's package folder, the hook file,
// the repository, the agent, its task, and the path: "client" (SquadClient.createSession with the
// hooks) or "fan-out" (the coordinator's spawnParallel with a session factory wrapped by squadmem).
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [sdk, hook, repo, agent, task, path] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(file).href);
const { SquadClient, EventBus, SessionPool } = await load(join(sdk, "dist/client/index.js"));
const { spawnParallel } = await load(join(sdk, "dist/coordinator/index.js"));
const { squadmemHooks, withSquadmem } = await load(hook);

const runtime = join(dirname(fileURLToPath(import.meta.url)), "squad_sdk_runtime.js");
const client = new SquadClient({ cliPath: runtime, cwd: repo, autoReconnect: false, logLevel: "error" });
const approve = () => ({ kind: "approve-once" });
if (path === "client") {
  const session = await client.createSession({
    systemMessage: { mode: "append", content: `You are ${agent}.` },
    workingDirectory: repo,
    onPermissionRequest: approve,
    hooks: squadmemHooks(agent, { cwd: repo }),
  });
  await session.sendMessage({ prompt: task });
  await session.sendMessage({ prompt: "and now the follow-up" });
} else {
  const createSession = withSquadmem((config) => client.createSession({ ...config, onPermissionRequest: approve }), {
    cwd: repo,
  });
  const [result] = await spawnParallel([{ agentName: agent, task, context: "sprint 12" }], {
    compileCharter: async () => ({ name: agent, prompt: `You are ${agent}.` }),
    resolveModel: async () => "claude-sonnet-4.5",
    createSession,
    sessionPool: new SessionPool(),
    eventBus: new EventBus(),
  });
  if (result.status !== "success") throw new Error(`spawn failed: ${result.error}`);
}
await client.disconnect();
process.exit(0); // the coordinator's pool keeps timers for the sessions it tracks
