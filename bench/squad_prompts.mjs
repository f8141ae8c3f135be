// The prompts Squad's own code builds from an agent's charter, for bench/squad_spawn_paths.py: the
// Squad SDK's compileCharterFull (the system message AgentLifecycleManager.spawnAgent hands a
// session) and the squad-cli shell's buildAgentPrompt (what `squad` hands an agent it starts).
// Arguments: the squad-cli package folder, then agent=charter-path pairs; prints JSON.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [cli, ...pairs] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(file).href);
const { buildAgentPrompt } = await load(join(cli, "dist/cli/shell/spawn.js"));
const sdk = join(cli, "..", "squad-sdk");
const { compileCharterFull } = await load(join(sdk, "dist/agents/charter-compiler.js"));
const out = {};
for (const pair of pairs) {
  const at = pair.indexOf("=");
  const agent = pair.slice(0, at);
  const charterPath = pair.slice(at + 1);
  const charter = readFileSync(charterPath, "utf8");
  out[agent] = {
    sdk: compileCharterFull({ agentName: agent, charterPath, charterContent: charter }).prompt,
    shell: buildAgentPrompt(charter),
  };
}
process.stdout.write(JSON.stringify(out));
process.exit(0);
