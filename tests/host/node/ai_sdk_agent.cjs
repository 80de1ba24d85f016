// The Vercel AI SDK as its users drive it: @ai-sdk/openai's Responses provider (store at
// its default, so later requests refer to stored items by id), a generateText tool loop
// with two tools of its own, then a second turn of the same chat. Run by
// tests/host/test_serve_agents.py against serve; prints one JSON line per turn.
//
// usage: node ai_sdk_agent.cjs NODE_MODULES BASE_URL API_KEY WORK_DIR
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const { execFileSync } = require("node:child_process");

const [modules, baseURL, apiKey, work] = process.argv.slice(2);
const load = (name) => require(require.resolve(name, { paths: [modules] }));
const { generateText, tool, jsonSchema, stepCountIs } = load("ai");
const { createOpenAI } = load("@ai-sdk/openai");

const openai = createOpenAI({ baseURL, apiKey });
const tools = {
  // Named like Cursor's own tools on purpose: serve offers them as host_read, host_bash.
  read: tool({
    description: "Read a file",
    inputSchema: jsonSchema({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    }),
    execute: async ({ path: file }) => fs.readFileSync(path.resolve(work, file), "utf8"),
  }),
  bash: tool({
    description: "Run a shell command",
    inputSchema: jsonSchema({
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    }),
    execute: async ({ command }) =>
      execFileSync("bash", ["-c", command], { cwd: work, encoding: "utf8" }),
  }),
};

async function main() {
  const model = openai.responses("composer-2.5");
  const messages = [{ role: "user", content: "Read note.txt, then run a command" }];
  const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
  console.log(JSON.stringify({ turn: 1, text: first.text, steps: first.steps.length }));
  // AI SDK 7: every step's messages (result.response holds only the last step's).
  messages.push(...first.responseMessages, { role: "user", content: "Say it again" });
  const second = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
  console.log(JSON.stringify({ turn: 2, text: second.text, steps: second.steps.length }));
}

main().catch((error) => {
  console.error(String(error && error.stack ? error.stack : error));
  process.exit(1);
});
