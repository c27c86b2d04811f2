// Settings → Local MCP in jsdom against a fake of the Host's MCP calls (the fake keeps the
// secret values the page sent, the way the Host does, and never hands them back): the list
// shows commands as argument lists and variables by name only; the form sends arguments as
// separate strings, never shows old values and says what a save does to them; trusting is a
// confirmation the page never focuses or answers by itself; errors appear where they happened.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { ApiError } from "../../api";
import { I18n, translator } from "../../i18n";
import { SettingsDialog } from "../../components/Dialogs";
import { ApprovalCard } from "../approvals/ApprovalCard";
import { labelsOf, McpToolLabels, type ToolLabel } from "./labels";
import { McpSettingsPage, POLL_MS, type McpApi } from "./McpSettings";
import type { ImportProposal, ImportRequest, McpServer, ServerBody } from "./types";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const CANARY = "sk-canary-value-7f3a";

const echo: McpServer = {
  id: "7d1c3e9a-0000-4000-8000-000000000001",
  name: "Echo",
  command: "/usr/bin/node",
  args: ["/srv/echo server.js", "--mode", "fast"],
  cwd: "/srv",
  env: [
    { name: "ECHO_TOKEN", storage: "keyring" },
    { name: "ECHO_PIN", storage: "session" },
  ],
  enabled: false,
  status: "disabled",
  error: null,
  tools: [],
  unsupportedTools: [],
  protocolVersion: null,
  callLimitSecs: 300,
};

class FakeHost implements McpApi {
  servers: McpServer[] = [structuredClone(echo)];
  /** What the Host would keep in its secret store, by server id. */
  secrets: Record<string, ServerBody["env"]> = { [echo.id]: [{ name: "ECHO_TOKEN", value: CANARY, storage: "keyring" }] };
  calls: string[] = [];
  bodies: ServerBody[] = [];
  imports: ImportRequest[] = [];
  listed = 0;
  /** What the Host's model settings say of the secret store. */
  keyringProblem: { kind: string } | null = null;
  settings = async () => ({ keyringProblem: this.keyringProblem });
  /** The next add/update fails with this once. */
  failSave: ApiError | null = null;
  failActivate: ApiError | null = null;
  activation: Partial<McpServer> = {
    status: "active",
    enabled: true,
    tools: [
      { modelName: "mcp_7d1c3e9a_1a2b3c4d", originalName: "echo", description: "Echoes its text back." },
      { modelName: "mcp_7d1c3e9a_5e6f7a8b", originalName: "add", description: "" },
    ],
  };
  proposals: ImportProposal[] = [
    { id: "p1", source: "claude_desktop", file: "/home/me/.config/Claude/claude_desktop_config.json", name: "github", command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], cwd: null, env: ["GITHUB_TOKEN"], unsupported: null },
    { id: "p2", source: "cursor", file: "/home/me/.cursor/mcp.json", name: "remote", command: "", args: [], cwd: null, env: [], unsupported: "a remote (HTTP) server" },
    { id: "p3", source: "vs_code", file: "/work/p/.vscode/mcp.json", name: "files", command: "/usr/bin/files-mcp", args: [], cwd: null, env: [], unsupported: null },
  ];

  private find(id: string) {
    const s = this.servers.find((x) => x.id === id);
    if (!s) throw new ApiError(404, "not_found", "no such server");
    return s;
  }
  mcpServers = async () => {
    this.listed++;
    return structuredClone(this.servers);
  };
  addMcpServer = async (b: ServerBody) => {
    this.bodies.push(structuredClone(b));
    if (this.failSave) {
      const e = this.failSave;
      this.failSave = null;
      throw e;
    }
    const s: McpServer = { id: `id-${this.servers.length + 1}`, name: b.name, command: b.command, args: b.args, cwd: b.cwd ?? null, env: (b.env ?? []).map(({ name, storage }) => ({ name, storage })), enabled: false, status: "disabled", error: null, tools: [], unsupportedTools: [], protocolVersion: null, callLimitSecs: b.callLimitSecs ?? 300 };
    this.servers.push(s);
    this.secrets[s.id] = b.env;
    return structuredClone(s);
  };
  updateMcpServer = async (id: string, b: ServerBody) => {
    this.bodies.push(structuredClone(b));
    if (this.failSave) {
      const e = this.failSave;
      this.failSave = null;
      throw e;
    }
    const s = this.find(id);
    Object.assign(s, { name: b.name, command: b.command, args: b.args, cwd: b.cwd ?? null, enabled: false, status: "disabled", tools: [], callLimitSecs: b.callLimitSecs ?? 300 });
    if (b.env) s.env = b.env.map(({ name, storage }) => ({ name, storage }));
    return structuredClone(s);
  };
  deleteMcpServer = async (id: string) => {
    this.calls.push(`delete ${id}`);
    this.servers = this.servers.filter((s) => s.id !== id);
  };
  activateMcpServer = async (id: string) => {
    this.calls.push(`activate ${id}`);
    if (this.failActivate) throw this.failActivate;
    Object.assign(this.find(id), structuredClone(this.activation));
    return structuredClone(this.find(id));
  };
  disableMcpServer = async (id: string) => {
    this.calls.push(`disable ${id}`);
    Object.assign(this.find(id), { enabled: false, status: "disabled", tools: [] });
  };
  refreshMcpServer = async (id: string) => {
    this.calls.push(`refresh ${id}`);
    this.find(id).tools.push({ modelName: "mcp_7d1c3e9a_99999999", originalName: "new_tool", description: "" });
  };
  importErrors: string[] = ["/home/me/.cursor/mcp.json: expected an object at line 1"];
  mcpImportProposals = async () => structuredClone({ proposals: this.proposals, errors: this.importErrors });
  importMcp = async (r: ImportRequest) => {
    this.imports.push(structuredClone(r));
    for (const id of r.ids) {
      const p = this.proposals.find((x) => x.id === id)!;
      this.servers.push({ id: `imp-${id}-${this.servers.length}`, name: p.name, command: p.command, args: p.args, cwd: p.cwd, env: p.env.map((name) => ({ name, storage: "keyring" })), enabled: false, status: "disabled", error: null, tools: [], unsupportedTools: [], protocolVersion: null, callLimitSecs: 300 });
    }
    return [];
  };
}

async function page(host: FakeHost, lang: "en" | "zh" = "en") {
  render(
    <I18n.Provider value={translator(lang)}>
      <McpSettingsPage api={host} />
    </I18n.Provider>,
  );
  await act(async () => {});
}

const click = async (el: HTMLElement) => {
  await act(async () => {
    fireEvent.click(el);
  });
};
const button = (name: string | RegExp, root: HTMLElement = document.body) => within(root).getByRole("button", { name });
const item = (name: string) => screen.getByRole("listitem", { name });
const type = (label: string | RegExp, value: string, root: HTMLElement = document.body) => fireEvent.change(within(root).getByLabelText(label), { target: { value } });

describe("Settings → Local MCP", () => {
  it("lists a server with its command as separate arguments, its working directory and variable names, never values", async () => {
    const host = new FakeHost();
    await page(host);
    const echoItem = item("Echo");
    const argv = within(echoItem).getByRole("list", { name: "Command and arguments" });
    // One entry per argument; the one with a space stays one argument.
    expect(within(argv).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["/usr/bin/node", "/srv/echo server.js", "--mode", "fast"]);
    expect(echoItem.textContent).toContain("Working directory: /srv");
    expect(within(echoItem).getByTestId("mcp-env").textContent).toBe("Environment variables: ECHO_TOKEN (OS secret store), ECHO_PIN (only for this session)");
    expect(within(echoItem).getByTestId("mcp-status").textContent).toBe("Disabled");
    expect(document.body.innerHTML).not.toContain(CANARY);
  });

  it("shows each status: active with its tools by server and original name, failed with the Host's error", async () => {
    const host = new FakeHost();
    host.servers[0] = { ...host.servers[0]!, enabled: true, status: "active", tools: host.activation.tools! };
    host.servers.push({ ...structuredClone(echo), id: "id-2", name: "Broken", command: "nodex", env: [], status: "failed", error: 'the program "nodex" was not found on PATH; use its absolute path' });
    await page(host);
    expect(within(item("Echo")).getByTestId("mcp-status").textContent).toBe("Active · 2 tools");
    const tools = within(item("Echo")).getByRole("list", { name: "Tools of Echo" });
    const rows = within(tools).getAllByRole("listitem");
    expect(rows[0]!.querySelector(".mcp-tool-name")!.textContent).toBe("Echo · echo");
    expect(rows[0]!.textContent).toContain("mcp_7d1c3e9a_1a2b3c4d");
    expect(rows[0]!.textContent).toContain("Echoes its text back.");
    expect(rows[1]!.querySelector(".mcp-tool-name")!.textContent).toBe("Echo · add");
    expect(within(item("Broken")).getByTestId("mcp-status").textContent).toBe('Failed: the program "nodex" was not found on PATH; use its absolute path');
    // A running server offers Disable and Refresh, not Trust.
    expect(within(item("Echo")).queryByRole("button", { name: "Trust and activate…" })).toBeNull();
    await click(button("Refresh tools", item("Echo")));
    expect(host.calls).toEqual([`refresh ${echo.id}`]);
    expect(within(item("Echo")).getByTestId("mcp-status").textContent).toBe("Active · 3 tools");
    await click(button("Disable", item("Echo")));
    expect(host.calls).toEqual([`refresh ${echo.id}`, `disable ${echo.id}`]);
    expect(within(item("Echo")).getByTestId("mcp-status").textContent).toBe("Disabled");
    expect(within(item("Echo")).queryByRole("list", { name: "Tools of Echo" })).toBeNull();
  });

  it("lists the tools it cannot call apart, with why, and shows the protocol and the call limit", async () => {
    const host = new FakeHost();
    const why = 'it can only run as an MCP task (execution.taskSupport "required"), and Wisp does not support tasks';
    host.servers[0] = {
      ...host.servers[0]!,
      enabled: true,
      status: "active",
      tools: host.activation.tools!,
      unsupportedTools: [{ originalName: "simulate-research-query", description: "Simulates research.", reason: why }],
      protocolVersion: "2025-11-25",
      callLimitSecs: 600,
    };
    await page(host);
    const unsupported = within(item("Echo")).getByRole("list", { name: "Tools of Echo that cannot be called" });
    const row = within(unsupported).getByRole("listitem");
    expect(row.querySelector(".mcp-tool-name")!.textContent).toBe("Echo · simulate-research-query");
    expect(row.textContent).toContain(`Not offered: ${why}`);
    // Not among the offered tools, which the status counts.
    const offered = within(item("Echo")).getByRole("list", { name: "Tools of Echo" });
    expect(offered.textContent).not.toContain("simulate-research-query");
    expect(within(item("Echo")).getByTestId("mcp-status").textContent).toBe("Active · 2 tools");
    expect(within(item("Echo")).getByTestId("mcp-call-limit").textContent).toBe("Longest call: 600 s while it reports progress · Protocol: 2025-11-25");
  });

  it("sends a call limit only when one is entered, and keeps a server's own on an edit", async () => {
    const host = new FakeHost();
    host.servers = [];
    await page(host);
    await click(button("Add a server"));
    let form = screen.getByRole("form", { name: "New server" });
    type("Name", "Slow", form);
    type("Command", "/usr/bin/slow", form);
    type("Longest call", "900", form);
    await click(button("Add server", form));
    expect(host.bodies[0]!.callLimitSecs).toBe(900);
    expect(within(item("Slow")).getByTestId("mcp-call-limit").textContent).toBe("Longest call: 900 s while it reports progress");
    await click(button("Edit", item("Slow")));
    form = screen.getByRole("form", { name: "Edit Slow" });
    expect((within(form).getByLabelText("Longest call") as HTMLInputElement).value).toBe("900");
    type("Longest call", "", form);
    await click(button("Save server", form));
    expect("callLimitSecs" in host.bodies[1]!).toBe(false);
  });

  it("adds a server with arguments as separate fields, reordered and removed, and variables with their storage", async () => {
    const host = new FakeHost();
    host.servers = [];
    await page(host);
    expect(screen.getByText("No server yet. Add one, or import from another app.")).toBeTruthy();
    await click(button("Add a server"));
    const form = screen.getByRole("form", { name: "New server" });
    type("Name", "  Files ", form);
    type("Command", " /usr/bin/node ", form);
    for (let i = 0; i < 3; i++) await click(button("Add argument", form));
    // A freshly added field has the focus.
    expect(document.activeElement).toBe(within(form).getByLabelText("Argument 3"));
    type("Argument 1", "--root", form);
    type("Argument 2", "/home/me/my files", form);
    type("Argument 3", "x; rm -rf ~", form);
    await click(button("Move argument 2 up", form));
    expect((within(form).getByLabelText("Argument 1") as HTMLInputElement).value).toBe("/home/me/my files");
    await click(button("Remove argument 3", form));
    await click(button("Add variable", form));
    await click(button("Add variable", form));
    type("Variable 1 name", "FILES_TOKEN", form);
    type("Variable 1 value", "tok-1", form);
    type("Variable 2 name", "FILES_PIN", form);
    type("Variable 2 value", "4242", form);
    fireEvent.change(within(form).getByLabelText("Variable 2 kept in"), { target: { value: "session" } });
    expect((within(form).getByLabelText("Variable 1 value") as HTMLInputElement).type).toBe("password");
    expect(within(form).getByText(/forgotten when Wisp stops/)).toBeTruthy();
    expect(within(form).getByText("Saving leaves the server disabled: it runs only after you trust and activate it.")).toBeTruthy();
    await click(button("Add server", form));
    expect(host.bodies).toEqual([
      {
        name: "Files",
        command: "/usr/bin/node",
        args: ["/home/me/my files", "--root"],
        cwd: null,
        env: [
          { name: "FILES_TOKEN", value: "tok-1", storage: "keyring" },
          { name: "FILES_PIN", value: "4242", storage: "session" },
        ],
      },
    ]);
    expect(screen.queryByRole("form")).toBeNull();
    expect(screen.getByRole("status").textContent).toBe("Saved Files. It is disabled until you trust and activate it.");
    expect(within(item("Files")).getByTestId("mcp-status").textContent).toBe("Disabled");
    expect(document.body.innerHTML).not.toContain("tok-1");
    expect(document.body.innerHTML).not.toContain("4242");
    // The focus goes back to the button that opened the form.
    expect(document.activeElement).toBe(button("Add a server"));
  });

  it("edits without showing an old value: keeps the set, replaces it, or clears it, and says a new command drops it", async () => {
    const host = new FakeHost();
    await page(host);
    await click(button("Edit", item("Echo")));
    let form = screen.getByRole("form", { name: "Edit Echo" });
    expect((within(form).getByLabelText("Command") as HTMLInputElement).value).toBe("/usr/bin/node");
    expect((within(form).getByLabelText("Argument 1") as HTMLInputElement).value).toBe("/srv/echo server.js");
    expect((within(form).getByLabelText("Working directory") as HTMLInputElement).value).toBe("/srv");
    // No variable row, no value: only the names that are kept.
    expect(within(form).queryByLabelText("Variable 1 value")).toBeNull();
    expect(within(form).getByTestId("mcp-env-kept").textContent).toBe("Kept as they are: ECHO_TOKEN (OS secret store), ECHO_PIN (only for this session).");
    expect(within(form).getByText("Stored values are never shown here.")).toBeTruthy();
    expect(document.body.innerHTML).not.toContain(CANARY);
    type("Name", "Echo 2", form);
    await click(button("Save server", form));
    expect(host.bodies.at(-1)).toEqual({ name: "Echo 2", command: "/usr/bin/node", args: echo.args, cwd: "/srv" });

    // Replace, with an empty list: clears the set.
    await click(button("Edit", item("Echo 2")));
    form = screen.getByRole("form", { name: "Edit Echo 2" });
    fireEvent.click(within(form).getByLabelText("Replace the variables"));
    expect(within(form).getByText(/Saving replaces the whole set/).textContent).toContain("an empty list clears them all");
    await click(button("Save server", form));
    expect(host.bodies.at(-1)!.env).toEqual([]);
    expect(within(item("Echo 2")).getByTestId("mcp-env").textContent).toBe("Environment variables: none");
  });

  it("says a changed command does not carry old values over, and sends a new set", async () => {
    const host = new FakeHost();
    await page(host);
    await click(button("Edit", item("Echo")));
    const form = screen.getByRole("form", { name: "Edit Echo" });
    expect(within(form).queryByTestId("mcp-env-dropped")).toBeNull();
    type("Command", "/opt/other/bin/echo", form);
    expect(within(form).getByTestId("mcp-env-dropped").textContent).toContain("the stored values of ECHO_TOKEN, ECHO_PIN are not carried over");
    expect(within(form).queryByLabelText("Replace the variables")).toBeNull();
    await click(button("Save server", form));
    expect(host.bodies.at(-1)).toEqual({ name: "Echo", command: "/opt/other/bin/echo", args: echo.args, cwd: "/srv", env: [] });
  });

  it("treats a reordered argument list as a new launch too", async () => {
    const host = new FakeHost();
    await page(host);
    await click(button("Edit", item("Echo")));
    const form = screen.getByRole("form", { name: "Edit Echo" });
    await click(button("Move argument 3 up", form));
    expect(within(form).getByTestId("mcp-env-dropped")).toBeTruthy();
  });

  it("trusts and activates only after a confirmation that states the risk, which it never focuses or answers by itself", async () => {
    const host = new FakeHost();
    await page(host);
    const opener = button("Trust and activate…", item("Echo"));
    opener.focus();
    await click(opener);
    expect(host.calls).toEqual([]);
    const confirm = within(item("Echo")).getByRole("group", { name: "Trust and activate Echo?" });
    expect(confirm.textContent).toContain("with your rights on this computer");
    expect(confirm.textContent).toContain("its working directory is not a sandbox");
    expect(confirm.textContent).toContain("each of its tool calls still needs your approval");
    expect(opener.getAttribute("aria-expanded")).toBe("true");
    // The focus stays where the person put it; keys that would answer a default button do nothing.
    expect(document.activeElement).toBe(opener);
    for (const key of ["Enter", " ", "a", "y"]) {
      fireEvent.keyDown(document.activeElement!, { key });
      fireEvent.keyDown(document, { key });
    }
    await act(async () => {});
    expect(host.calls).toEqual([]);
    expect(confirm.querySelector("[autofocus]")).toBeNull();
    expect(confirm.closest("form")).toBeNull();
    // Cancel closes it and returns the focus to the opener.
    await click(button("Cancel", confirm));
    expect(within(item("Echo")).queryByRole("group")).toBeNull();
    expect(document.activeElement).toBe(opener);
    expect(host.calls).toEqual([]);

    await click(opener);
    await click(button("Trust and activate", item("Echo")));
    expect(host.calls).toEqual([`activate ${echo.id}`]);
    expect(within(item("Echo")).getByTestId("mcp-status").textContent).toBe("Active · 2 tools");
    expect(within(item("Echo")).getByRole("list", { name: "Tools of Echo" })).toBeTruthy();
  });

  it("shows a refused activation next to that server", async () => {
    const host = new FakeHost();
    host.servers.push({ ...structuredClone(echo), id: "id-2", name: "Other" });
    host.failActivate = new ApiError(409, "mcp_activation_failed", "the session-only value of ECHO_PIN is gone after a restart: edit the server and enter it again");
    await page(host);
    await click(button("Trust and activate…", item("Echo")));
    await click(button("Trust and activate", item("Echo")));
    expect(within(item("Echo")).getByRole("alert").textContent).toBe(host.failActivate.message);
    expect(within(item("Other")).queryByRole("alert")).toBeNull();
  });

  it("deletes only after a confirmation that says the stored secrets go too", async () => {
    const host = new FakeHost();
    await page(host);
    await click(button("Delete…", item("Echo")));
    const confirm = within(item("Echo")).getByRole("group", { name: "Delete Echo?" });
    expect(confirm.textContent).toContain("stored secret values are removed");
    await click(button("Cancel", confirm));
    expect(host.calls).toEqual([]);
    await click(button("Delete…", item("Echo")));
    await click(button("Delete", item("Echo")));
    expect(host.calls).toEqual([`delete ${echo.id}`]);
    expect(screen.queryByRole("listitem", { name: "Echo" })).toBeNull();
    expect(screen.getByRole("status").textContent).toBe("Deleted Echo and its stored values.");
    expect(document.activeElement).toBe(button("Add a server"));
  });

  it("shows the Host's refusal inside the form, and offers the session-only choice when there is no secret store", async () => {
    const host = new FakeHost();
    host.servers = [];
    await page(host);
    await click(button("Add a server"));
    const form = screen.getByRole("form", { name: "New server" });
    type("Name", "S", form);
    type("Command", "server", form);
    type("Working directory", "relative/dir", form);
    host.failSave = new ApiError(400, "invalid_config", 'the working directory "relative/dir" is not an absolute path');
    await click(button("Add server", form));
    expect(within(form).getByRole("alert").textContent).toBe('the working directory "relative/dir" is not an absolute path');
    expect(within(form).queryByRole("button", { name: "Keep the values only for this session" })).toBeNull();

    type("Working directory", "", form);
    await click(button("Add variable", form));
    type("Variable 1 name", "TOKEN", form);
    type("Variable 1 value", "v", form);
    host.failSave = new ApiError(503, "secret_store_unavailable", "no secret store");
    await click(button("Add server", form));
    expect(within(form).getByRole("alert").textContent).toContain("The system's secret store cannot be reached");
    await click(button("Keep the values only for this session", form));
    expect((within(form).getByLabelText("Variable 1 kept in") as HTMLSelectElement).value).toBe("session");
    await click(button("Add server", form));
    expect(host.bodies.at(-1)!.env).toEqual([{ name: "TOKEN", value: "v", storage: "session" }]);
    expect(within(item("S")).getByTestId("mcp-env").textContent).toBe("Environment variables: TOKEN (only for this session)");
    // The refusal speaks of the server's values, not of "the key" (the model page's words).
    expect(document.body.textContent).not.toContain("Keep the key");

    // From now on the page knows: a new variable is kept for this session unless chosen
    // otherwise, and the store is not offered.
    await click(button("Add a server"));
    const next = screen.getByRole("form", { name: "New server" });
    await click(button("Add variable", next));
    const storage = within(next).getByLabelText("Variable 1 kept in") as HTMLSelectElement;
    expect(storage.value).toBe("session");
    expect((within(next).getByRole("option", { name: "OS secret store" }) as HTMLOptionElement).disabled).toBe(true);
    expect(next.textContent).toContain("new variables are kept for this session only");
  });

  it("starts with this session as the place for values when the Host already found no secret store", async () => {
    const host = new FakeHost();
    host.keyringProblem = { kind: "secret_store_unavailable" };
    await page(host);
    await click(button("Add a server"));
    const form = screen.getByRole("form", { name: "New server" });
    await click(button("Add variable", form));
    expect((within(form).getByLabelText("Variable 1 kept in") as HTMLSelectElement).value).toBe("session");
    // Not known: the OS store is the default, as before.
    cleanup();
    await page(new FakeHost());
    await click(button("Add a server"));
    const plain = screen.getByRole("form", { name: "New server" });
    await click(button("Add variable", plain));
    expect((within(plain).getByLabelText("Variable 1 kept in") as HTMLSelectElement).value).toBe("keyring");
  });

  it("imports the picked proposals, disabled, and asks where their values go instead of choosing", async () => {
    const host = new FakeHost();
    await page(host);
    await click(button("Import from other apps…"));
    const panel = screen.getByRole("form", { name: "Import servers from other apps" });
    const github = within(panel).getByRole("checkbox", { name: /github/ }) as HTMLInputElement;
    expect(github.closest("li")!.textContent).toContain("Claude Desktop · /home/me/.config/Claude/claude_desktop_config.json");
    // The Host names VS Code's source `vs_code`: the panel words it, never shows the key.
    const files = within(panel).getByRole("checkbox", { name: /files/ });
    expect(files.closest("li")!.textContent).toContain("VS Code (this project) · /work/p/.vscode/mcp.json");
    expect(within(github.closest("li")!).getAllByRole("listitem").map((l) => l.textContent)).toEqual(["npx", "-y", "@modelcontextprotocol/server-github"]);
    expect(github.closest("li")!.textContent).toContain("Environment variables: GITHUB_TOKEN");
    expect((within(panel).getByRole("checkbox", { name: /remote/ }) as HTMLInputElement).disabled).toBe(true);
    expect(panel.textContent).toContain("Cannot be imported: a remote (HTTP) server");
    expect(panel.textContent).toContain("Not read: /home/me/.cursor/mcp.json: expected an object at line 1");
    expect((button("Import 0 servers", panel) as HTMLButtonElement).disabled).toBe(true);
    // A proposal without variables needs no choice.
    fireEvent.click(within(panel).getByRole("checkbox", { name: /files/ }));
    expect(within(panel).queryByRole("radio")).toBeNull();
    await click(button("Import 1 server", panel));
    expect(host.imports).toEqual([{ ids: ["p3"] }]);
    expect(screen.getByRole("status").textContent).toBe("Imported 1 server, disabled.");
    expect(within(item("files")).getByTestId("mcp-status").textContent).toBe("Disabled");

    // With variables: nothing is chosen for the person, and import waits for their choice.
    await click(button("Import from other apps…"));
    const again = screen.getByRole("form", { name: "Import servers from other apps" });
    fireEvent.click(within(again).getByRole("checkbox", { name: /github/ }));
    const radios = within(again).getAllByRole("radio") as HTMLInputElement[];
    expect(radios.map((r) => [r.labels![0]!.textContent, r.checked])).toEqual([
      ["Copy them into the OS secret store", false],
      ["Keep them only for this session", false],
    ]);
    expect((button("Import 1 server", again) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(radios[1]!);
    await click(button("Import 1 server", again));
    expect(host.imports[1]).toEqual({ ids: ["p1"], envStorage: "session" });
    expect(within(item("github")).getByTestId("mcp-status").textContent).toBe("Disabled");
  });

  it("asks the Host again while a server runs, so tools that changed by themselves show, and not otherwise", async () => {
    vi.useFakeTimers();
    const idle = new FakeHost();
    await page(idle);
    const before = idle.listed;
    await act(async () => {
      vi.advanceTimersByTime(POLL_MS * 3);
    });
    expect(idle.listed).toBe(before);
    cleanup();

    const host = new FakeHost();
    host.servers[0] = { ...host.servers[0]!, enabled: true, status: "active", tools: [] };
    await page(host);
    expect(within(item("Echo")).getByTestId("mcp-status").textContent).toBe("Active · 0 tools");
    const started = host.listed;
    host.servers[0]!.tools = host.activation.tools!;
    await act(async () => {
      vi.advanceTimersByTime(POLL_MS);
    });
    expect(host.listed).toBe(started + 1);
    expect(within(item("Echo")).getByTestId("mcp-status").textContent).toBe("Active · 2 tools");
  });

  it("speaks Chinese", async () => {
    const host = new FakeHost();
    await page(host, "zh");
    expect(within(item("Echo")).getByTestId("mcp-status").textContent).toBe("已禁用");
    await click(button("信任并激活…", item("Echo")));
    expect(within(item("Echo")).getByRole("group").textContent).toContain("工作目录也不是沙箱");
  });
});

describe("Settings navigation", () => {
  it("shows one section at a time as tabs that arrows move between", async () => {
    render(
      <SettingsDialog
        open
        lang="auto"
        theme="system"
        onLang={() => {}}
        onTheme={() => {}}
        onClose={() => {}}
        sections={[
          { id: "model", label: "Model", content: <p>model page</p> },
          { id: "mcp", label: "Local MCP", content: <p>mcp page</p> },
        ]}
      />,
    );
    const tabs = screen.getAllByRole("tab");
    expect(tabs.map((x) => [x.textContent, x.getAttribute("aria-selected"), x.tabIndex])).toEqual([
      ["Model", "true", 0],
      ["Local MCP", "false", -1],
    ]);
    expect(screen.getByRole("tabpanel").textContent).toBe("model page");
    tabs[0]!.focus();
    fireEvent.keyDown(tabs[0]!, { key: "ArrowRight" });
    expect(screen.getByRole("tabpanel", { name: "Local MCP" }).textContent).toBe("mcp page");
    expect(document.activeElement).toBe(tabs[1]);
    // Language stays reachable whichever section is shown.
    expect(screen.getByRole("combobox", { name: "Language" })).toBeTruthy();
    fireEvent.keyDown(tabs[1]!, { key: "ArrowRight" });
    expect(screen.getByRole("tabpanel").textContent).toBe("model page");
  });

  it("words its own closing button in the person's language", () => {
    render(
      <I18n.Provider value={translator("zh")}>
        <SettingsDialog open lang="zh" theme="system" onLang={() => {}} onTheme={() => {}} onClose={() => {}} />
      </I18n.Provider>,
    );
    expect(screen.getByRole("button", { name: "确定" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "OK" })).toBeNull();
  });
});

describe("MCP tools in approvals (UI-08)", () => {
  const request = { approvalId: "a1", tool: "mcp_1a2b3c4d_echo_092c79e8", arguments: { text: "hello from wisp" }, canonical: '{"text":"hello from wisp"}', digest: "d".repeat(64), state: "pending" as const };
  const card = (labels: Map<string, ToolLabel>) =>
    render(
      <McpToolLabels.Provider value={labels}>
        <ApprovalCard request={request} onDecide={async () => "approved"} />
      </McpToolLabels.Provider>,
    );

  it("names the tool by its server and original name, the model's name in the tooltip", () => {
    const server: McpServer = { ...echo, name: "Test server", enabled: true, status: "active", tools: [{ modelName: request.tool, originalName: "echo", description: "" }] };
    card(labelsOf([server]));
    const group = screen.getByRole("group", { name: "Approve Test server · echo?" });
    const origin = group.querySelector(".origin")!;
    expect(origin.textContent).toBe("MCP server Test server");
    expect(origin.getAttribute("title")).toBe(request.tool);
    expect(group.textContent).toContain("hello from wisp");
  });

  it("shows the server's description and each argument above the exact text, the IDs under Details", () => {
    const wrapped = {
      ...request,
      callId: "call_7",
      arguments: { server: "Test server", serverId: "3f1c", tool: "echo", toolListVersion: 2, arguments: { text: "two\nlines\u202e", times: 3 } },
      canonical: '{"arguments":{"n":12345678901234567891,"text":"two\\nlines\u202e","times":-0.0},"server":"Test server","serverId":"3f1c","tool":"echo","toolListVersion":2}',
    };
    const server: McpServer = { ...echo, name: "Test server", enabled: true, status: "active", tools: [{ modelName: request.tool, originalName: "echo", description: "Echoes the text back." }] };
    render(
      <McpToolLabels.Provider value={labelsOf([server])}>
        <ApprovalCard request={wrapped} onDecide={async () => "approved"} />
      </McpToolLabels.Provider>,
    );
    const group = screen.getByRole("group", { name: "Approve Test server · echo?" });
    const details = group.querySelector(".mcp-details")!;
    expect(details.querySelector(".mcp-description")!.textContent).toBe("The server describes this tool as: Echoes the text back.");
    const shown = [...details.querySelectorAll(".mcp-arguments > div")].map((d) => [d.querySelector("dt")!.textContent, d.querySelector("dd")!.textContent]);
    // A string argument as text (its newline a line break, its hidden character marked), the
    // rest as written; no wrapper field among them.
    // Numbers as the exact text writes them: every digit, the sign of -0.0.
    expect(shown).toEqual([
      ["n", "12345678901234567891"],
      ["text", "two\nlines⟨U+202E⟩"],
      ["times", "-0.0"],
    ]);
    // The exact text is still all there, wrapper included.
    expect(group.querySelector(".exact-arguments")!.textContent).toContain('"serverId":"3f1c"');
    const meta = group.querySelector(".card-meta")!;
    expect(meta.textContent).not.toContain("d".repeat(64));
    fireEvent.click(screen.getByRole("button", { name: "Details" }));
    expect(meta.textContent).toContain("d".repeat(64));
    expect(meta.textContent).toContain("call_7");
    expect(meta.textContent).toContain("a1");
  });

  it("never calls an unlabelled MCP tool built in", () => {
    card(new Map());
    const group = screen.getByRole("group", { name: `Approve ${request.tool}?` });
    expect(group.querySelector(".origin")!.textContent).toBe("Local MCP tool (its server is not active now)");
    expect(group.textContent).not.toContain("Built-in tool");
  });
});
