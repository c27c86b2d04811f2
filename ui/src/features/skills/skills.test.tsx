// Skills in the UI (FILE-05): the card of skills_run_script shows everything that runs and
// the whole script with hidden characters made visible, answered only by a click; Settings →
// Skills shows the Host's lists and its switch as the Host reports it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { ApprovalCard } from "../approvals/ApprovalCard";
import { sampleCanonical } from "../approvals/sample";
import { I18n, translator } from "../../i18n";
import { SkillsSettingsPage, type SkillsApi } from "./SkillsSettings";
import { ProjectSkillsNotice } from "./ProjectSkillsNotice";
import type { Schemas } from "../../types";

afterEach(cleanup);

const script = {
  skill: "tidy",
  skillFolder: "/home/p/.agents/skills/tidy",
  script: "scripts/tidy.py",
  sha256: "ab".repeat(32),
  content: "import os\nos.remove('old.txt')  # \u202eevil\n",
  interpreter: "/usr/bin/python3",
  args: ["--all", "a\u200bb"],
  cwd: "/home/p/project",
  env: ["PATH", "HOME", "LANG"],
  timeLimitSeconds: 120,
  access: { mode: "full", why: "it cannot be confined here: this Host was started without its confinement helper" },
};

const show = (args: Record<string, unknown>, onDecide = vi.fn(async () => "approved" as const), lang: "en" | "zh" = "en") => {
  render(
    <I18n.Provider value={translator(lang)}>
      <ApprovalCard request={{ approvalId: "ap_1", tool: "skills_run_script", arguments: args, canonical: sampleCanonical(args), digest: "d".repeat(64), state: "pending" }} onDecide={onDecide} />
    </I18n.Provider>,
  );
  return onDecide;
};

describe("the skills_run_script card", () => {
  it("says it runs with the person's rights and shows each thing that runs, the script marked", () => {
    const decide = show(script);
    const card = screen.getByRole("group", { name: "Run this skill script with your rights?" });
    expect(screen.getAllByRole("note").map((n) => n.textContent)).toContain(
      "Full access: this script runs with your rights, outside the project's file sandbox. It can read and change any of your files and use the network. Not confined because it cannot be confined here: this Host was started without its confinement helper",
    );
    const text = card.textContent ?? "";
    for (const part of ["tidy", "scripts/tidy.py", "/usr/bin/python3", "/home/p/project", "PATH, HOME, LANG", "120 s, then it is ended with everything it started", "ab".repeat(32)]) {
      expect(text).toContain(part);
    }
    // Each argument on its own, the hidden one made visible.
    const items = [...card.querySelectorAll(".inst-args li")].map((li) => li.textContent);
    expect(items).toEqual(["--all", "a⟨U+200B⟩b"]);
    // The whole script, its direction mark shown rather than obeyed.
    const code = screen.getByRole("region", { name: "Text of the script scripts/tidy.py" });
    expect(code.textContent).toContain("os.remove('old.txt')  # ⟨U+202E⟩evil");
    expect(decide).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: /approve/i }));
    expect(decide).toHaveBeenCalledWith("approve", "d".repeat(64));
  });

  it("says when the script is confined, and then claims no full access", () => {
    show({ ...script, access: { mode: "confined", writes: [], network: "none" } });
    const notes = screen.getAllByRole("note").map((n) => n.textContent ?? "");
    expect(notes).toContain("Confined: this script can write only in the working folder and in a new temporary folder, and has no network. It can still read your files.");
    expect(notes.some((n) => n.startsWith("Full access"))).toBe(false);
  });

  it("offers full access as the person's own choice: the card then shows, and approves, exactly that option", () => {
    const confined = { ...script, access: { mode: "confined", writes: [], network: "none", modelAsked: "full" } };
    const full = { ...script, access: { mode: "full", why: "you chose full access on this card instead of a confined run", modelAsked: "full" } };
    const decide = vi.fn(async () => "approved" as const);
    render(
      <I18n.Provider value={translator("en")}>
        <ApprovalCard
          request={{ approvalId: "ap_1", tool: "skills_run_script", arguments: confined, canonical: sampleCanonical(confined), digest: "c".repeat(64), state: "pending", alternative: { arguments: full, canonical: sampleCanonical(full), digest: "f".repeat(64) } }}
          onDecide={decide}
        />
      </I18n.Provider>,
    );
    const exact = () => screen.getByText((_, el) => el?.tagName === "PRE" && (el.textContent ?? "").includes('"access"')).textContent ?? "";
    const first = screen.getByRole("radio", { name: "Confined (no network, writes only in the project)" }) as HTMLInputElement;
    const other = screen.getByRole("radio", { name: "Full access (your rights and network)" }) as HTMLInputElement;
    expect([first.checked, other.checked]).toEqual([true, false]);
    expect(screen.getAllByRole("note").map((n) => n.textContent)).toContain("The model asked for full access. It runs confined unless you choose full access here.");
    expect(exact()).toContain('"mode":"confined"');
    fireEvent.click(other);
    expect(other.checked).toBe(true);
    expect(exact()).toContain('"mode":"full"');
    expect(exact()).not.toContain('"mode":"confined"');
    expect(screen.getAllByRole("note").some((n) => (n.textContent ?? "").startsWith("Full access"))).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: /details/i }));
    expect(screen.getByText("f".repeat(64))).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: /approve/i }));
    expect(decide).toHaveBeenCalledWith("approve", "f".repeat(64));
  });

  it("approves the first option unless the person chose the other", () => {
    const confined = { ...script, access: { mode: "confined", writes: [], network: "none" } };
    const decide = vi.fn(async () => "approved" as const);
    render(
      <I18n.Provider value={translator("en")}>
        <ApprovalCard
          request={{ approvalId: "ap_1", tool: "skills_run_script", arguments: confined, canonical: sampleCanonical(confined), digest: "c".repeat(64), state: "pending", alternative: { arguments: script, canonical: sampleCanonical(script), digest: "f".repeat(64) } }}
          onDecide={decide}
        />
      </I18n.Provider>,
    );
    fireEvent.click(screen.getByRole("button", { name: /approve/i }));
    expect(decide).toHaveBeenCalledWith("approve", "c".repeat(64));
  });

  it("in Chinese", () => {
    show(script, undefined, "zh");
    expect(screen.getByRole("group", { name: "以你的权限运行这个技能脚本？" })).toBeTruthy();
    expect(screen.getAllByRole("note").some((n) => /^完全访问/.test(n.textContent ?? ""))).toBe(true);
  });
});

describe("Settings → Skills", () => {
  const view = (scriptsAllowed: boolean): Schemas["SkillsView"] => ({
    scriptsAllowed,
    folders: ["/home/p/.agents/skills", "/home/p/.local/share/wisp/skills"],
    skills: [{ name: "tidy", description: "Tidies the project.", folder: "/home/p/.agents/skills/tidy", digest: "c".repeat(64), files: 2 }],
    invalid: [{ folder: "/home/p/.agents/skills/Bad_Name", reason: "name: lowercase letters, digits and hyphens only" }],
    notes: [],
    off: [],
    projects: [],
    importFrom: null,
    importable: [],
  });

  it("shows the Host's lists and switch, and the switch as the Host answers it", async () => {
    const puts: unknown[] = [];
    let allowed = false;
    const api: SkillsApi = {
      skills: async () => view(allowed),
      updateSkills: async (body) => {
        puts.push(body);
        allowed = body.scriptsAllowed;
        return view(allowed);
      },
      trustSkill: async () => view(allowed),
      enableSkill: async () => { throw new Error("not asked"); },
      importSkills: async () => view(allowed),
    };
    render(
      <I18n.Provider value={translator("en")}>
        <SkillsSettingsPage api={api} />
      </I18n.Provider>,
    );
    await act(async () => {});
    const box = screen.getByRole("checkbox", { name: "Allow skill scripts to run" }) as HTMLInputElement;
    expect(box.checked).toBe(false);
    expect(box.getAttribute("aria-describedby")).toBeTruthy();
    expect(document.getElementById(box.getAttribute("aria-describedby")!)!.textContent).toMatch(/with your full rights: it can then read and change any of your files/);
    expect(screen.getByRole("list", { name: "1 skill the model is told of" }).textContent).toContain("Tidies the project.");
    expect(screen.getByRole("list", { name: "1 folder not used" }).textContent).toContain("lowercase letters");
    await act(async () => void fireEvent.click(box));
    expect(puts).toEqual([{ scriptsAllowed: true }]);
    expect((screen.getByRole("checkbox", { name: "Allow skill scripts to run" }) as HTMLInputElement).checked).toBe(true);
  });

  it("turns one of the person's skills off and on as the Host answers, and says what off means", async () => {
    const asked: Schemas["EnableSkill"][] = [];
    let off: string[] = [];
    const api: SkillsApi = {
      skills: async () => ({ ...view(false), off }),
      updateSkills: async () => ({ ...view(false), off }),
      trustSkill: async () => ({ ...view(false), off }),
      enableSkill: async (body) => {
        asked.push(body);
        off = body.enabled ? [] : [body.name];
        return { ...view(false), off };
      },
      importSkills: async () => ({ ...view(false), off }),
    };
    render(
      <I18n.Provider value={translator("en")}>
        <SkillsSettingsPage api={api} />
      </I18n.Provider>,
    );
    await act(async () => {});
    const use = screen.getByRole("checkbox", { name: "Use tidy" }) as HTMLInputElement;
    expect(use.checked).toBe(true);
    await act(async () => void fireEvent.click(use));
    expect(asked).toEqual([{ name: "tidy", enabled: false }]);
    expect((screen.getByRole("checkbox", { name: "Use tidy" }) as HTMLInputElement).checked).toBe(false);
    // Still listed, said to be off; the heading counts what the model is told of.
    const list = screen.getByRole("list", { name: "0 skills the model is told of" });
    expect(list.textContent).toContain("Off: the model is not told of it, so it is neither read nor run.");
    await act(async () => void fireEvent.click(screen.getByRole("checkbox", { name: "Use tidy" })));
    expect(asked[1]).toEqual({ name: "tidy", enabled: true });
    expect(screen.getByRole("list", { name: "1 skill the model is told of" }).textContent).not.toContain("Off:");
  });

  it("a refused switch says why and shows what the Host holds", async () => {
    const api: SkillsApi = {
      skills: async () => view(false),
      updateSkills: async () => {
        throw new Error("the setting could not be stored");
      },
      trustSkill: async () => view(false),
      enableSkill: async () => { throw new Error("not asked"); },
      importSkills: async () => view(false),
    };
    render(
      <I18n.Provider value={translator("en")}>
        <SkillsSettingsPage api={api} />
      </I18n.Provider>,
    );
    await act(async () => {});
    await act(async () => void fireEvent.click(screen.getByRole("checkbox", { name: "Allow skill scripts to run" })));
    expect(screen.getByRole("alert").textContent).toBe("the setting could not be stored");
    expect((screen.getByRole("checkbox", { name: "Allow skill scripts to run" }) as HTMLInputElement).checked).toBe(false);
  });
});

describe("Settings → Skills: a project's own skills", () => {
  const skill = (name: string, trust: Schemas["SkillTrust"], changes: string[] = []): Schemas["ProjectSkill"] => ({
    name,
    description: `Does ${name} things.`,
    folder: `/p/project/.agents/skills/${name}`,
    digest: name.padEnd(64, "0").slice(0, 64).replace(/[^0-9a-f]/g, "a"),
    files: 2,
    trust,
    changes,
  });
  const view = (skills: Schemas["ProjectSkill"][]): Schemas["SkillsView"] => ({
    scriptsAllowed: false,
    folders: [],
    skills: [],
    invalid: [],
    notes: [],
    off: [],
    projects: [{ projectId: "p_1", root: "/p/project", skills, invalid: [{ folder: "/p/project/.agents/skills/leaks", reason: "data: a link to /etc/passwd, outside the skill" }] }],
    importFrom: null,
    importable: [],
  });

  it("says each one's trust and what changed, and trusts exactly the contents shown with a click", async () => {
    const asked: Schemas["TrustSkill"][] = [];
    let skills = [skill("deploy", "untrusted"), skill("lint", "changed", ["changed scripts/run.sh", "added scripts/x.py"]), skill("fmt", "trusted")];
    const api: SkillsApi = {
      skills: async () => view(skills),
      updateSkills: async () => view(skills),
      trustSkill: async (body) => {
        asked.push(body);
        skills = skills.map((s) => (s.name === body.name ? { ...s, trust: body.trusted ? "trusted" : "untrusted", changes: [] } : s));
        return view(skills);
      },
      enableSkill: async () => { throw new Error("not asked"); },
      importSkills: async () => view(skills),
    };
    render(
      <I18n.Provider value={translator("en")}>
        <SkillsSettingsPage api={api} />
      </I18n.Provider>,
    );
    await act(async () => {});
    const region = screen.getByRole("region", { name: "Skills of the project /p/project" });
    expect(region.textContent).toContain("Not trusted: not used.");
    expect(region.textContent).toContain("Trusted: used in this project.");
    expect(region.textContent).toContain("Changed since you trusted it: not used until you trust it again.");
    expect(screen.getByRole("list", { name: "What changed in lint" }).textContent).toBe("changed scripts/run.shadded scripts/x.py");
    expect(region.textContent).toContain("outside the skill");
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Trust lint as it is" })));
    expect(asked).toEqual([{ projectId: "p_1", name: "lint", digest: skill("lint", "changed").digest, trusted: true }]);
    expect(screen.getByRole("button", { name: "Stop trusting lint" })).toBeTruthy();
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Stop trusting fmt" })));
    expect(asked[1]).toMatchObject({ name: "fmt", trusted: false });
    expect(screen.getByRole("button", { name: "Trust fmt as it is" })).toBeTruthy();
  });
});

describe("Settings → Skills: importing Claude's personal skills", () => {
  it("offers each one and imports it as shown with a click", async () => {
    const pdf = { name: "pdf", description: "Fills PDF forms.", folder: "/home/p/.claude/skills/pdf", digest: "d".repeat(64), files: 3 };
    const asked: Schemas["ImportSkills"][] = [];
    let imported = false;
    const view = (): Schemas["SkillsView"] => ({
      scriptsAllowed: false,
      folders: [],
      skills: imported ? [{ ...pdf, folder: "/home/p/.local/share/wisp/skills/pdf" }] : [],
      invalid: [],
      notes: [],
    off: [],
      projects: [],
      importFrom: "/home/p/.claude/skills",
      importable: imported ? [] : [pdf],
    });
    const api: SkillsApi = {
      skills: async () => view(),
      updateSkills: async () => view(),
      trustSkill: async () => view(),
      enableSkill: async () => { throw new Error("not asked"); },
      importSkills: async (body) => {
        asked.push(body);
        imported = true;
        return view();
      },
    };
    render(
      <I18n.Provider value={translator("en")}>
        <SkillsSettingsPage api={api} />
      </I18n.Provider>,
    );
    await act(async () => {});
    const region = screen.getByRole("region", { name: "Claude's personal skills in /home/p/.claude/skills" });
    expect(region.textContent).toContain("Fills PDF forms.");
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Import pdf into Wisp's skills" })));
    expect(asked).toEqual([{ skills: [{ name: "pdf", digest: "d".repeat(64) }] }]);
    expect(region.textContent).toContain("Nothing to import");
    expect(screen.getByRole("list", { name: "1 skill the model is told of" }).textContent).toContain("Fills PDF forms.");
  });
});

describe("the session's notice of a project's untrusted skills", () => {
  const withSkills = (trusts: Schemas["SkillTrust"][]): Schemas["SkillsView"] => ({
    scriptsAllowed: false,
    folders: [],
    skills: [],
    invalid: [],
    notes: [],
    off: [],
    importFrom: null,
    importable: [],
    projects: [
      {
        projectId: "p_1",
        root: "/p",
        invalid: [],
        skills: trusts.map((trust, i) => ({ name: `s${i}`, description: "", folder: `/p/.agents/skills/s${i}`, digest: "a".repeat(64), files: 1, trust, changes: [] })),
      },
    ],
  });

  it("counts the untrusted and the changed, offers the review, and shows nothing when all are trusted", async () => {
    let view = withSkills(["untrusted", "untrusted", "changed", "trusted"]);
    const review = vi.fn();
    const { rerender } = render(
      <I18n.Provider value={translator("en")}>
        <ProjectSkillsNotice api={{ skills: async () => view }} projectId="p_1" version={0} onReview={review} />
      </I18n.Provider>,
    );
    await act(async () => {});
    expect(screen.getByRole("note").textContent).toBe(
      "This project brings 2 skills you have not trusted: runs do not use them. 1 trusted skill of this project changed since: not used until you trust it again. Review in Settings → Skills",
    );
    fireEvent.click(screen.getByRole("button", { name: "Review in Settings → Skills" }));
    expect(review).toHaveBeenCalledTimes(1);
    // Read again when Settings closed: all trusted now, no notice.
    view = withSkills(["trusted"]);
    rerender(
      <I18n.Provider value={translator("en")}>
        <ProjectSkillsNotice api={{ skills: async () => view }} projectId="p_1" version={1} onReview={review} />
      </I18n.Provider>,
    );
    await act(async () => {});
    expect(screen.queryByRole("note")).toBeNull();
    // Another project's skills are not this session's.
    view = withSkills(["untrusted"]);
    rerender(
      <I18n.Provider value={translator("en")}>
        <ProjectSkillsNotice api={{ skills: async () => view }} projectId="p_2" version={1} onReview={review} />
      </I18n.Provider>,
    );
    await act(async () => {});
    expect(screen.queryByRole("note")).toBeNull();
  });
});
