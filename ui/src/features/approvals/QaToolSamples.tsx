// The QA workbench's "Tool interaction samples" (UI-12): one approval card per file tool (and a
// sensitive read, an MCP call and a skill script), shown about 1.8 s after "Run sample" as a real tool's
// preparation would take a moment, and answered in memory only: no Host, no model, no file, no
// trash. The read-only page-text sample lives with the tab samples (../tabs/QaTabs.tsx).
import { useEffect, useState } from "react";
import { ApprovalCard, type Outcome } from "./ApprovalCard";
import { sampleCanonical } from "./sample";
import type { CurrentFile } from "./currentFile";

/** How long a sample "prepares" before its card appears. */
export const SAMPLE_DELAY_MS = 1800;

interface Sample {
  id: string;
  tool: string;
  /** A heading other than the tool's name. */
  title?: string;
  arguments: Record<string, unknown>;
  /** The in-memory "preview" of the file a write or replace is bound to. */
  current?: CurrentFile;
  /** The card's other option, when the Host would offer one (a script's full access). */
  alternative?: Record<string, unknown>;
}

/** In-memory stand-ins for the Host's content digests: clearly not real SHA-256 values. */
const fakeSha = (name: string) => `qa-sample-sha-${name}-`.padEnd(64, "0");
const APP_TS = "export const name = \"app\";\nconst retries = 3;\nexport default retries;\n";

export const SAMPLES: Sample[] = [
  {
    id: "write", tool: "files_write",
    arguments: { path: "notes/todo.md", content: "# Todo\n- ship the UI\n- write tests\n", creates: false, replaces: fakeSha("todo") },
    current: { state: "loaded", content: "# Todo\n- ship the UI\n", sha256: fakeSha("todo") },
  },
  {
    id: "replace", tool: "files_replace",
    arguments: { path: "src/app.ts", oldText: "const retries = 3;", newText: "const retries = 5;", sha256: fakeSha("app"), line: 2 },
    current: { state: "loaded", content: APP_TS, sha256: fakeSha("app") },
  },
  // The file changed after the request was prepared: the card says so and shows no diff
  // against a file the change is not bound to.
  {
    id: "replace-stale", tool: "files_replace", title: "files_replace — the file changed after the request / 请求之后文件已被修改",
    arguments: { path: "src/app.ts", oldText: "const retries = 3;", newText: "const retries = 5;", sha256: fakeSha("app"), line: 2 },
    current: { state: "loaded", content: APP_TS.replace("3", "4"), sha256: fakeSha("app-edited") },
  },
  // A read of a file that looks like credentials: path, size and why, never the content.
  { id: "read-secret", tool: "files_read", arguments: { path: ".env", size: 214, offset: 0, end: 214, sensitive: "env_file", reason: "an environment file, which often holds API keys and passwords" } },
  { id: "mkdir", tool: "files_mkdir", arguments: { path: "docs/guides" } },
  { id: "move", tool: "files_move", arguments: { source: "drafts", target: "docs/drafts", files: 3, folders: 2, fingerprint: "qa-sample-fingerprint-".padEnd(64, "0") } },
  { id: "trash", tool: "files_trash", arguments: { path: "old/logs", files: 3, folders: 1 } },
  { id: "mcp", tool: "weather__forecast", arguments: { city: "Hangzhou", days: 3 } },
  {
    id: "skill-script",
    tool: "skills_run_script",
    arguments: {
      skill: "tidy",
      skillFolder: "/home/qa/.agents/skills/tidy",
      script: "scripts/tidy.py",
      sha256: fakeSha("tidy.py"),
      content: 'import sys\nprint("tidying", sys.argv[1:])\nopen("tidied.txt", "w").write("tidy\\n")\n',
      interpreter: "/usr/bin/python3",
      args: ["--all"],
      cwd: "/home/qa/project",
      env: ["PATH", "HOME", "LANG"],
      timeLimitSeconds: 120,
      access: { mode: "confined", writes: ["the working folder", "a new temporary folder (TMPDIR), removed after the run"], network: "none" },
    },
    alternative: {
      skill: "tidy",
      skillFolder: "/home/qa/.agents/skills/tidy",
      script: "scripts/tidy.py",
      sha256: fakeSha("tidy.py"),
      content: 'import sys\nprint("tidying", sys.argv[1:])\nopen("tidied.txt", "w").write("tidy\\n")\n',
      interpreter: "/usr/bin/python3",
      args: ["--all"],
      cwd: "/home/qa/project",
      env: ["PATH", "HOME", "LANG", "TMPDIR"],
      timeLimitSeconds: 120,
      access: { mode: "full", why: "you chose full access on this card instead of a confined run" },
    },
  },
];

/** The in-memory digest of a sample: clearly not the Host's. */
const fakeDigest = (s: Sample) => `qa-sample-${s.id}-`.padEnd(64, "0");

export function ToolSample({ sample }: { sample: Sample }) {
  const [phase, setPhase] = useState<"idle" | "running" | "asking" | "done">("idle");
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  useEffect(() => {
    if (phase !== "running") return;
    const timer = setTimeout(() => setPhase("asking"), SAMPLE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [phase]);
  return (
    <section data-sample={sample.id}>
      <h2>{sample.title ?? sample.tool}</h2>
      <div className="qa-row">
        <button onClick={() => { setOutcome(null); setPhase("running"); }} disabled={phase === "running" || phase === "asking"}>
          Run sample (in memory)
        </button>
        {phase === "running" && <span className="muted">preparing…</span>}
        {outcome && <span role="status">memory state: {outcome}</span>}
      </div>
      {(phase === "asking" || phase === "done") && (
        <ApprovalCard
          request={{ approvalId: sample.id, tool: sample.tool, arguments: sample.arguments, canonical: sampleCanonical(sample.arguments), digest: fakeDigest(sample), state: "pending", alternative: sample.alternative && { arguments: sample.alternative, canonical: sampleCanonical(sample.alternative), digest: `qa-sample-${sample.id}-full-`.padEnd(64, "0") } }}
          currentFile={sample.current}
          onDecide={async (d) => {
            const o: Outcome = d === "approve" ? "approved" : "rejected";
            setOutcome(o);
            setPhase("done");
            return o;
          }}
        />
      )}
    </section>
  );
}
