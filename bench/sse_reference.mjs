// Reference for the SSE benchmark: the same work as wisp_model::StreamDecoder in Node —
// eventsource-parser for framing, JSON.parse per chunk, aggregation of content and tool-call
// fragments by index — over the same file in the same slice sizes (512–8192 bytes, decoded
// with a streaming TextDecoder). Usage: node sse_reference.mjs FILE [ITERATIONS]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../tools/node/package.json"));
const { createParser } = require("eventsource-parser");

const [file, iterationsArg] = process.argv.slice(2);
const bytes = readFileSync(file);
const iterations = Number(iterationsArg ?? 7);

function sliceSizes(len, state) {
  const out = [];
  let covered = 0;
  while (covered < len) {
    state ^= state << 13n; state &= 0xffffffffffffffffn;
    state ^= state >> 7n;
    state ^= state << 17n; state &= 0xffffffffffffffffn;
    const n = 512 + Number(state % 7681n);
    out.push(n);
    covered += n;
  }
  return [out, state];
}

function decode(sizes) {
  let text = "", reasoning = "", events = 0, finish = null, usage = null, done = false;
  const calls = [];
  const parser = createParser({
    onEvent(e) {
      if (e.data === "[DONE]") { done = true; return; }
      events++;
      const chunk = JSON.parse(e.data);
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        if (choice.index !== 0) continue;
        const d = choice.delta ?? {};
        if (d.reasoning_content) reasoning += d.reasoning_content;
        if (d.content) text += d.content;
        for (const tc of d.tool_calls ?? []) {
          const c = (calls[tc.index] ??= { id: "", name: "", arguments: "" });
          if (tc.id) c.id = tc.id;
          if (tc.function?.name) c.name += tc.function.name;
          if (tc.function?.arguments) c.arguments += tc.function.arguments;
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    },
  });
  const decoder = new TextDecoder();
  let at = 0;
  for (const n of sizes) {
    const end = Math.min(at + n, bytes.length);
    parser.feed(decoder.decode(bytes.subarray(at, end), { stream: true }));
    at = end;
  }
  parser.feed(decoder.decode());
  if (!done) throw new Error("no [DONE]");
  return { events, key: `${text.length}|${reasoning.length}|${JSON.stringify(calls)}|${finish}|${JSON.stringify(usage)}` };
}

let state = 0x9e3779b97f4a7c15n;
let total = 0, best = Infinity, expected = null, events = 0;
for (let i = 0; i <= iterations; i++) {
  const [sizes, next] = sliceSizes(bytes.length, state);
  state = next;
  const t0 = process.hrtime.bigint();
  const r = decode(sizes);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  if (expected === null) expected = r.key;
  if (r.key !== expected) throw new Error(`iteration ${i}: aggregate differs`);
  events = r.events;
  if (i > 0) { total += secs; best = Math.min(best, secs); }
}
const mean = total / iterations;
console.log(JSON.stringify({ impl: "node", events, bytes: bytes.length, iterations,
  chunks_per_s: Math.round(events / mean), best_chunks_per_s: Math.round(events / best), mb_per_s: +(bytes.length / mean / 1e6).toFixed(1) }));
