// Drives the Wisp simulator with the official `openai` npm client: a real client nobody here
// wrote. Usage: node openai-check.mjs BASE_URL API_KEY. Prints one JSON line; exits 1 on the
// first failed expectation.
import OpenAI from "openai";

const [baseURL, apiKey] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 2 });
const model = "deepseek-v4-flash";
const tools = ["files_list", "files_read", "files_write"].map((name) => ({
  type: "function",
  function: { name, description: name, parameters: { type: "object", properties: { path: { type: "string" } } } },
}));
const passed = [];

function expect(cond, what) {
  if (!cond) {
    console.log(JSON.stringify({ ok: false, failed: what, passed }));
    process.exit(1);
  }
}

// GET /models
const models = [];
for await (const m of client.models.list()) models.push(m.id);
expect(models.includes(model), `models.list offers ${model}: ${models}`);
passed.push("models");

// Non-streaming plain answer, with DeepSeek's extra reasoning field.
const plain = await client.chat.completions.create({ model, messages: [{ role: "user", content: "hello" }] });
expect(plain.choices[0].message.content.includes("Wisp simulator"), "plain answer names the simulator");
expect(typeof plain.choices[0].message.reasoning_content === "string", "plain answer has reasoning_content");
expect(plain.usage.prompt_tokens > 0, "plain answer has usage");
passed.push("non-stream");

// Raw stream: chunks iterate, tool-call fragments assemble by index, usage on the last chunk.
const stream = await client.chat.completions.create({
  model, stream: true, stream_options: { include_usage: true }, tools,
  messages: [{ role: "user", content: "[demo:multi] look" }],
});
const calls = [];
let usage = null;
let finish = null;
for await (const chunk of stream) {
  if (chunk.usage) usage = chunk.usage;
  for (const choice of chunk.choices) {
    if (choice.finish_reason) finish = choice.finish_reason;
    for (const tc of choice.delta.tool_calls ?? []) {
      calls[tc.index] ??= { id: "", name: "", arguments: "" };
      if (tc.id) calls[tc.index].id = tc.id;
      if (tc.function?.name) calls[tc.index].name += tc.function.name;
      if (tc.function?.arguments) calls[tc.index].arguments += tc.function.arguments;
    }
  }
}
expect(finish === "tool_calls", `raw stream finish_reason ${finish}`);
expect(calls.length === 2 && calls[0].name === "files_list" && calls[1].name === "files_read", "raw stream has two calls");
expect(calls.every((c) => JSON.parse(c.arguments) && c.id), "raw stream call arguments are JSON");
expect(usage && usage.total_tokens > 0, "raw stream usage on the last chunk");
passed.push("stream");

// The SDK's stream helper, which validates chunk shapes as it accumulates, then a second
// request with the tool results and the reasoning passed back.
const messages = [{ role: "user", content: "[demo:multi] look" }];
const runner = client.chat.completions.stream({ model, tools, messages });
const first = await runner.finalChatCompletion();
const msg = first.choices[0].message;
expect(msg.tool_calls.length === 2, "stream helper assembled two calls");
const reasoning = msg.reasoning_content ?? "";
messages.push({ role: "assistant", content: msg.content ?? "", reasoning_content: reasoning, tool_calls: msg.tool_calls });
for (const tc of msg.tool_calls) messages.push({ role: "tool", tool_call_id: tc.id, content: `result of ${tc.function.name}` });
const second = await client.chat.completions.stream({ model, tools, messages }).finalChatCompletion();
expect(second.choices[0].finish_reason === "stop", "continuation finishes");
expect(second.choices[0].message.content.includes("result of files_read"), "continuation uses the results");
passed.push("stream-helper");

// A wrong key is the SDK's AuthenticationError.
try {
  await new OpenAI({ baseURL, apiKey: "sk-wrong", maxRetries: 0 }).chat.completions.create({ model, messages });
  expect(false, "a wrong key was accepted");
} catch (e) {
  expect(e instanceof OpenAI.AuthenticationError && e.status === 401, `wrong key gave ${e}`);
}
passed.push("auth");

// The SDK retries a 429 (Retry-After) and a 500 on its own; the simulator then answers.
for (const fault of ["429-once", "500-once"]) {
  const r = await client.chat.completions.create({ model, messages: [{ role: "user", content: `hi [fault:${fault}]` }] });
  expect(r.choices[0].message.content.includes("Wisp simulator"), `answer after ${fault}`);
}
passed.push("retry");

console.log(JSON.stringify({ ok: true, passed }));
