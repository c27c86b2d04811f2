// The approval cards of the install tools (UI-17, INST-04/05/08/10): what the person
// must see before npm runs or a program starts, and that only their own act answers the card.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { ApprovalCard } from "./ApprovalCard";
import { sampleCanonical } from "./sample";
import { I18n, translator } from "../../i18n";

afterEach(cleanup);

const request = (tool: string, args: Record<string, unknown>) => ({
  approvalId: `ap-${tool}`,
  tool,
  arguments: args,
  canonical: sampleCanonical(args),
  digest: "d".repeat(64),
  state: "pending" as const,
});

const show = (tool: string, args: Record<string, unknown>, onDecide = vi.fn(async () => "approved" as const), lang: "en" | "zh" = "en") => {
  render(
    <I18n.Provider value={translator(lang)}>
      <ApprovalCard request={request(tool, args)} onDecide={onDecide} />
    </I18n.Provider>,
  );
  return onDecide;
};

const install = {
  package: "@acme/weather-mcp",
  version: "2.3.4",
  spec: "@acme/weather-mcp@2.3.4",
  bin: "weather-mcp",
  args: ["--units", "metric"],
  source: "the public npm registry (https://registry.npmjs.org/)",
  registry: "https://registry.npmjs.org/",
  publicRegistry: true,
  installDir: "/home/p/.local/share/wisp/mcp-installs/ab12",
  alreadyInstalled: false,
  impact: "Runs npm twice with install scripts disabled, then saves a DISABLED config.",
};

describe("the install tools are Wisp's own", () => {
  // Their names start with `mcp_` like a local MCP server's tools, but no server has them.
  it.each(["mcp_install_npm", "mcp_register", "mcp_activate_service"])("%s's card says built-in, not an MCP server that is not active", (tool) => {
    show(tool, install);
    expect(document.querySelector(".approval .origin")?.textContent).toBe("Built-in tool");
  });
});

describe("mcp_install_npm card (UI-17)", () => {
  it("shows the exact package@version, bin, args, source, folder, impact and the disclosure", () => {
    show("mcp_install_npm", install);
    expect(screen.getByRole("group", { name: "Approve mcp_install_npm?" })).toBeTruthy();
    expect(screen.getByText("@acme/weather-mcp@2.3.4")).toBeTruthy();
    expect(screen.getByText("weather-mcp")).toBeTruthy();
    expect(screen.getByText("--units")).toBeTruthy();
    expect(screen.getByText("metric")).toBeTruthy();
    expect(screen.getByText(/registry\.npmjs\.org/, { selector: ".field span" })).toBeTruthy();
    expect(screen.getByText("/home/p/.local/share/wisp/mcp-installs/ab12")).toBeTruthy();
    expect(screen.getByText(/install scripts disabled/, { selector: ".inst-impact" })).toBeTruthy();
    expect(screen.getByRole("note").textContent).toMatch(/does not certify/);
    expect(screen.getByText(/Settings → Local MCP/)).toBeTruthy();
    expect(screen.queryByText(/Already installed/)).toBeNull();
  });

  it("shows what the registry says about the version, install scripts said to stay off", () => {
    show("mcp_install_npm", {
      ...install,
      description: "Weather tools for MCP",
      license: "MIT",
      repository: "git+https://github.com/acme/weather-mcp.git",
      published: "2026-09-01T22:46:36.382Z",
      dependencies: 3,
      integrity: "sha512-abc==",
      installScripts: ["postinstall"],
      installScriptsNote: "It declares install scripts (postinstall). They stay OFF: npm runs with --ignore-scripts.",
    });
    expect(screen.getByText("What the registry says about this exact version")).toBeTruthy();
    expect(screen.getByText("Weather tools for MCP")).toBeTruthy();
    expect(screen.getByText("MIT")).toBeTruthy();
    expect(screen.getByText("git+https://github.com/acme/weather-mcp.git")).toBeTruthy();
    expect(screen.getByText("2026-09-01T22:46:36.382Z")).toBeTruthy();
    expect(screen.getByText("3")).toBeTruthy();
    expect(screen.getByText("sha512-abc==")).toBeTruthy();
    const facts = document.querySelector(".inst-facts")?.textContent ?? "";
    expect(facts).toMatch(/Install scripts\s*It declares install scripts \(postinstall\)\. They stay OFF/);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("says first when a clean-up deletes an unfinished attempt", () => {
    show("mcp_install_npm", { ...install, cleanUp: true });
    expect(screen.getByRole("alert").textContent).toMatch(/Deletes the unfinished install folder/);
    cleanup();
    show("mcp_install_npm", { ...install, cleanUp: true }, undefined, "zh");
    expect(screen.getByRole("alert").textContent).toMatch(/先删除之前未完成的安装文件夹/);
  });

  it("says when npm will not run again, and no args as none", () => {
    show("mcp_install_npm", { ...install, args: [], alreadyInstalled: true });
    expect(screen.getByText(/Already installed/)).toBeTruthy();
    expect(screen.getByText("none")).toBeTruthy();
  });

  it("is answered by a click on its button, never by a key on a card nobody moved to", () => {
    const decide = show("mcp_install_npm", install);
    const card = screen.getByRole("group", { name: "Approve mcp_install_npm?" });
    fireEvent.keyDown(card, { key: "a" });
    expect(decide).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: /approve/i }));
    expect(decide).toHaveBeenCalledWith("approve", "d".repeat(64));
  });

  it("in Chinese", () => {
    show("mcp_install_npm", install, undefined, "zh");
    expect(screen.getByText("安装文件夹")).toBeTruthy();
    expect(screen.getByRole("note").textContent).toMatch(/不认证软件可信/);
  });
});

describe("mcp_register and mcp_activate_service cards", () => {
  it("register only saves a disabled config and claims no install (INST-04)", () => {
    show("mcp_register", { name: "srv", command: "/opt/srv/bin/srv", args: ["--stdio"], cwd: "/opt/srv" });
    expect(screen.getByText("/opt/srv/bin/srv")).toBeTruthy();
    expect(screen.getByText("--stdio")).toBeTruthy();
    expect(screen.getByText("/opt/srv")).toBeTruthy();
    expect(screen.getByText(/Only saves a disabled config\. Nothing is installed/)).toBeTruthy();
  });

  it("activation shows the config as saved, variable names only, and when tools count (INST-08, INST-21)", () => {
    show("mcp_activate_service", {
      id: "u-1",
      name: "weather",
      command: "/usr/bin/node",
      args: ["/x/server.js"],
      cwd: null,
      variables: ["WEATHER_KEY"],
      configDigest: "c0ffee".padEnd(64, "0"),
    });
    expect(screen.getByText("weather (u-1)")).toBeTruthy();
    expect(screen.getByText("/x/server.js")).toBeTruthy();
    expect(screen.getByText("WEATHER_KEY")).toBeTruthy();
    expect(screen.getByText("c0ffee0000000000…")).toBeTruthy();
    expect(screen.getByText(/from your next message/)).toBeTruthy();
  });
});
