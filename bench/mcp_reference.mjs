// Reference for the MCP benchmark: the official TypeScript SDK's Client over its
// StdioClientTransport, calling the server's echo tool N times in sequence after the same
// warm-up as examples/mcp_bench.rs. Prints one JSON line: mean_us, p99_us, calls_per_s.
// Usage: node mcp_reference.mjs N SERVER_CMD [ARGS...]
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../tools/node/package.json"));
const load = (m) => import(pathToFileURL(require.resolve(m)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");

const [nArg, command, ...args] = process.argv.slice(2);
const n = Number(nArg);
const client = new Client({ name: "wisp-bench-reference", version: "1.0.0" }, { capabilities: {} });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const { tools } = await client.listTools();
const echo = tools.find((t) => t.name === "echo");
const schema = echo.inputSchema;
const property = (schema.required ?? []).find((p) => schema.properties?.[p]?.type === "string");
const call = (i) => client.callTool({ name: "echo", arguments: { [property]: `hello ${i}` } });

const warmup = Math.min(Math.max(Math.floor(n / 10), 10), 500);
for (let i = 0; i < warmup; i++) await call(i);
const samples = new Float64Array(n);
for (let i = 0; i < n; i++) {
  const started = process.hrtime.bigint();
  const out = await call(i);
  samples[i] = Number(process.hrtime.bigint() - started) / 1000;
  if (out.isError || !JSON.stringify(out.content).includes("hello")) {
    throw new Error(`unexpected echo result: ${JSON.stringify(out)}`);
  }
}
await client.close();
const total = samples.reduce((a, b) => a + b, 0);
const sorted = Array.from(samples).sort((a, b) => a - b);
const p99 = sorted[Math.min(n - 1, Math.ceil(n * 0.99) - 1)];
console.log(JSON.stringify({ mean_us: total / n, p99_us: p99, calls_per_s: n / (total / 1e6) }));
