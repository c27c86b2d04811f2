#!/usr/bin/env node
// A tiny MCP server over stdio (newline-delimited JSON-RPC 2.0) with one tool, `echo`.
// Plain JavaScript, no dependencies: Wisp's install tests and the simulator's demo registry
// serve it as an npm package. It answers only what it implements (-32601 otherwise) and never
// answers a notification or a line it could not parse.
'use strict';

const readline = require('readline');

const SUPPORTED = ['2025-06-18', '2025-03-26', '2024-11-05'];

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function handle(request) {
  switch (request.method) {
    case 'initialize': {
      const asked = request.params && request.params.protocolVersion;
      return {
        protocolVersion: SUPPORTED.includes(asked) ? asked : SUPPORTED[0],
        capabilities: { tools: {} },
        serverInfo: { name: 'wisp-demo-mcp', version: '1.0.0' },
      };
    }
    case 'ping':
      return {};
    case 'tools/list':
      return {
        tools: [
          {
            name: 'echo',
            description: 'Returns the text it was given.',
            inputSchema: {
              type: 'object',
              properties: { text: { type: 'string', description: 'What to echo' } },
              required: ['text'],
              additionalProperties: false,
            },
          },
        ],
      };
    case 'tools/call': {
      const params = request.params || {};
      if (params.name !== 'echo') {
        throw { code: -32602, message: 'unknown tool: ' + params.name };
      }
      const text = params.arguments && params.arguments.text;
      if (typeof text !== 'string') {
        return { content: [{ type: 'text', text: 'echo needs a string "text"' }], isError: true };
      }
      return { content: [{ type: 'text', text: text }] };
    }
    default:
      throw { code: -32601, message: 'method not found: ' + request.method };
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    process.stderr.write('wisp-demo-mcp: skipped a line that is not JSON\n');
    return;
  }
  if (request === null || typeof request !== 'object' || request.id === undefined) {
    return; // a notification (or junk): never answered
  }
  try {
    send({ jsonrpc: '2.0', id: request.id, result: handle(request) });
  } catch (error) {
    send({ jsonrpc: '2.0', id: request.id, error: { code: error.code || -32603, message: error.message || String(error) } });
  }
});
