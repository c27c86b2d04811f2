// UI-17's QA samples, in memory only: "Conversation install → activate MCP" walks the install
// card, a disabled QA config in Settings → Local MCP, then the separate activation card (reject:
// the config stays disabled; approve: a simulated tool list); "Register existing MCP" saves a
// disabled QA config and says it installed nothing. Nothing contacts a registry, runs npm or
// starts a process: the configs live in a MemoryMcp.
import { useMemo, useState } from "react";
import { ApprovalCard, type Outcome } from "../approvals/ApprovalCard";
import { sampleCanonical } from "../approvals/sample";
import { McpSettingsPage } from "./McpSettings";
import { MemoryMcp } from "./memory";

const QA_DIR = "/qa-memory/mcp-installs/qa-sample-digest";
const QA_BIN = `${QA_DIR}/node_modules/wisp-demo-mcp/server.js`;

const installArgs = {
  package: "wisp-demo-mcp",
  version: "1.0.0",
  spec: "wisp-demo-mcp@1.0.0",
  bin: "wisp-demo-mcp",
  args: [],
  source: "the public npm registry (https://registry.npmjs.org/) — QA sample, nothing is contacted",
  registry: "https://registry.npmjs.org/",
  publicRegistry: true,
  installDir: QA_DIR,
  alreadyInstalled: false,
  node: "/usr/bin/node",
  npm: "/usr/bin/npm",
  impact:
    "QA sample (in memory): the real card says that npm runs twice with install scripts disabled into the folder above and that a DISABLED config is saved. Here nothing runs.",
  disclosure: "The npm registry does not certify that software is trustworthy.",
};

const digest = (id: string) => `qa-sample-${id}-`.padEnd(64, "0");

function Card({ id, tool, args, onDecide }: { id: string; tool: string; args: Record<string, unknown>; onDecide: (approved: boolean) => Promise<void> }) {
  return (
    <ApprovalCard
      request={{ approvalId: id, tool, arguments: args, canonical: sampleCanonical(args), digest: digest(id), state: "pending" }}
      onDecide={async (d) => {
        const o: Outcome = d === "approve" ? "approved" : "rejected";
        await onDecide(d === "approve");
        return o;
      }}
    />
  );
}

export function InstallQaSample() {
  const api = useMemo(() => new MemoryMcp(), []);
  const [phase, setPhase] = useState<"idle" | "install" | "activate" | "done">("idle");
  const [configId, setConfigId] = useState<string | null>(null);
  const [note, setNote] = useState("");
  // Settings reloads its list when this changes.
  const [version, setVersion] = useState(0);
  const reset = () => {
    void api.mcpServers().then((all) => Promise.all(all.map((s) => api.deleteMcpServer(s.id)))).then(() => {
      setConfigId(null);
      setNote("");
      setVersion((v) => v + 1);
      setPhase("install");
    });
  };
  return (
    <section data-sample="install">
      <h2>Conversation install → activate MCP (memory only) / 对话安装 → 激活 MCP（仅内存）</h2>
      <p className="qa-label">
        In memory only: no registry is contacted, npm never runs, no process starts. Not an acceptance test of the app. /
        仅内存：不访问 registry、不运行 npm、不启动进程。
      </p>
      <div className="qa-row">
        <button onClick={reset} disabled={phase === "install" || phase === "activate"}>
          Run sample (in memory)
        </button>
        {note && <span role="status">memory state: {note}</span>}
      </div>
      {phase === "install" && (
        <Card
          id="qa-install"
          tool="mcp_install_npm"
          args={installArgs}
          onDecide={async (approved) => {
            if (!approved) {
              setNote("install rejected: nothing installed, no config");
              setPhase("done");
              return;
            }
            const s = await api.addMcpServer({ name: "wisp-demo-mcp 1.0.0 (QA sample)", command: "/usr/bin/node", args: [QA_BIN] });
            setConfigId(s.id);
            setNote("install approved (simulated): a disabled QA config was saved");
            setVersion((v) => v + 1);
            setPhase("activate");
          }}
        />
      )}
      {phase === "activate" && configId && (
        <Card
          id="qa-activate"
          tool="mcp_activate_service"
          args={{ id: configId, name: "wisp-demo-mcp 1.0.0 (QA sample)", command: "/usr/bin/node", args: [QA_BIN], cwd: null, variables: [], configDigest: digest("qa-config") }}
          onDecide={async (approved) => {
            if (approved) {
              await api.activateMcpServer(configId);
              setNote("activation approved (simulated): the QA config is active with a sample tool list");
            } else {
              setNote("activation rejected: the QA config stays disabled");
            }
            setVersion((v) => v + 1);
            setPhase("done");
          }}
        />
      )}
      {phase !== "idle" && <McpSettingsPage key={version} api={api} label="Local MCP — install sample / 本地 MCP — 安装样例" />}
    </section>
  );
}

export function RegisterQaSample() {
  const api = useMemo(() => new MemoryMcp(), []);
  const [asking, setAsking] = useState(false);
  const [note, setNote] = useState("");
  const [version, setVersion] = useState(0);
  const args = { name: "weather-server", command: "/opt/weather/bin/weather-server", args: ["--stdio"], cwd: null, impact: "Saves a DISABLED config only." };
  return (
    <section data-sample="register">
      <h2>Register existing MCP (memory only) / 注册已有 MCP（仅内存）</h2>
      <p className="qa-label">Registers only: nothing is installed, downloaded or started. / 仅注册：不安装、不下载、不启动。</p>
      <div className="qa-row">
        <button onClick={() => { setNote(""); setAsking(true); }} disabled={asking}>
          Run sample (in memory)
        </button>
        {note && <span role="status">memory state: {note}</span>}
      </div>
      {asking && (
        <Card
          id="qa-register"
          tool="mcp_register"
          args={args}
          onDecide={async (approved) => {
            if (approved) {
              await api.addMcpServer({ name: args.name, command: args.command, args: args.args });
              setNote("registered a disabled QA config; nothing was installed or run");
            } else setNote("register rejected: no config");
            setVersion((v) => v + 1);
            setAsking(false);
          }}
        />
      )}
      {version > 0 && <McpSettingsPage key={version} api={api} label="Local MCP — register sample / 本地 MCP — 注册样例" />}
    </section>
  );
}
