// Settings → Skills (FILE-05): the folders skills are read from, the person's skills, each with
// its own switch (one turned off is listed but in no run's catalogue), the skills a run is told of,
// the folders not used with the rule each breaks, the switch of the managed skill-script mode
// with a plain statement of what it means, and each project's own skills, which a run uses only
// once the person trusts them as they are (a change makes one untrusted again, and says what
// changed); trusting is a click on the skill's own button, quoting the contents shown. The page holds no truth of its own: it shows
// what the Host reports, also after the switch (the Host's answer, not the click).
import { useCallback, useEffect, useId, useState } from "react";
import { useT } from "../../i18n";
import { Reveal } from "../../components/Reveal";
import { errorText } from "../mcp/errors";
import type { Schemas } from "../../types";

type SkillsView = Schemas["SkillsView"];

/** The calls this page makes (the Host's `Api` has them). */
export interface SkillsApi {
  skills(): Promise<SkillsView>;
  updateSkills(body: Schemas["UpdateSkills"]): Promise<SkillsView>;
  trustSkill(body: Schemas["TrustSkill"]): Promise<SkillsView>;
  enableSkill(body: Schemas["EnableSkill"]): Promise<SkillsView>;
  importSkills(body: Schemas["ImportSkills"]): Promise<SkillsView>;
}

export function SkillsSettingsPage({ api }: { api: SkillsApi }) {
  const t = useT();
  const [view, setView] = useState<SkillsView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const explained = useId();

  const reload = useCallback(async () => {
    try {
      setView(await api.skills());
      setError(null);
    } catch (e) {
      setError(errorText(t, e));
    }
  }, [api, t]);
  useEffect(() => void reload(), [reload]);

  const toggle = async (on: boolean) => {
    setSaving(true);
    try {
      setView(await api.updateSkills({ scriptsAllowed: on }));
      setError(null);
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setSaving(false);
    }
  };

  const trust = async (projectId: string, skill: Schemas["ProjectSkill"], trusted: boolean) => {
    setSaving(true);
    try {
      setView(await api.trustSkill({ projectId, name: skill.name, digest: skill.digest, trusted }));
      setError(null);
    } catch (e) {
      setError(errorText(t, e));
      // What the Host holds now (a skill that changed since it was shown, say).
      await reload();
    } finally {
      setSaving(false);
    }
  };

  const use = async (name: string, enabled: boolean) => {
    setSaving(true);
    try {
      setView(await api.enableSkill({ name, enabled }));
      setError(null);
    } catch (e) {
      setError(errorText(t, e));
      await reload();
    } finally {
      setSaving(false);
    }
  };

  const importOne = async (skill: Schemas["SkillEntry"]) => {
    setSaving(true);
    try {
      setView(await api.importSkills({ skills: [{ name: skill.name, digest: skill.digest }] }));
      setError(null);
    } catch (e) {
      setError(errorText(t, e));
      await reload();
    } finally {
      setSaving(false);
    }
  };

  const used = view ? view.skills.filter((s) => !view.off.includes(s.name)).length : 0;
  return (
    <section className="mcp-settings skills-settings" aria-label={t("skillsSettings")}>
      <h3>{t("skillsSettings")}</h3>
      <p className="muted small">{t("skillsIntro")}</p>
      {error && <p role="alert">{error}</p>}
      {view && (
        <>
          <label className="mcp-check">
            <input type="checkbox" checked={view.scriptsAllowed} aria-describedby={explained} aria-busy={saving} onChange={(e) => void toggle(e.currentTarget.checked)} />{" "}
            {t("skillsScriptsSwitch")}
          </label>
          <p id={explained} className="small">
            {t("skillsScriptsMeaning")}
          </p>
          <h4>{t("skillsFolders")}</h4>
          <ul className="small">
            {view.folders.map((f) => (
              <li key={f}>
                <code>
                  <Reveal text={f} />
                </code>
              </li>
            ))}
          </ul>
          <h4>{t("skillsFound", { n: used })}</h4>
          {view.skills.length === 0 ? (
            <p className="muted">{t("skillsNone")}</p>
          ) : (
            <ul className="mcp-servers" aria-label={t("skillsFound", { n: used })}>
              {view.skills.map((s) => (
                <li key={s.folder} className={view.off.includes(s.name) ? "mcp-server skill-off" : "mcp-server"}>
                  <label className="mcp-check">
                    <input type="checkbox" checked={!view.off.includes(s.name)} disabled={saving} aria-label={t("skillsUse", { name: s.name })} onChange={(e) => void use(s.name, e.currentTarget.checked)} />
                    <strong>
                      <Reveal text={s.name} />
                    </strong>{" "}
                    <span className="small">
                      <Reveal text={s.description} />
                    </span>
                  </label>
                  {view.off.includes(s.name) && <p className="mcp-detail small">{t("skillsOff")}</p>}
                  <p className="mcp-detail small muted">
                    <code>
                      <Reveal text={s.folder} />
                    </code>{" "}
                    {t("skillsFiles", { n: s.files })}
                  </p>
                </li>
              ))}
            </ul>
          )}
          {view.invalid.length > 0 && (
            <>
              <h4>{t("skillsInvalid", { n: view.invalid.length })}</h4>
              <ul className="mcp-servers" aria-label={t("skillsInvalid", { n: view.invalid.length })}>
                {view.invalid.map((s) => (
                  <li key={s.folder} className="mcp-server">
                    <code>
                      <Reveal text={s.folder} />
                    </code>
                    <p className="mcp-detail small">
                      <Reveal text={s.reason} />
                    </p>
                  </li>
                ))}
              </ul>
            </>
          )}
          {view.importFrom && (
            <section aria-label={t("skillsImportFrom", { folder: view.importFrom })}>
              <h4>{t("skillsImportFrom", { folder: view.importFrom })}</h4>
              {view.importable.length === 0 ? (
                <p className="muted small">{t("skillsImportNone")}</p>
              ) : (
                <ul className="mcp-servers">
                  {view.importable.map((s) => (
                    <li key={s.folder} className="mcp-server">
                      <strong>
                        <Reveal text={s.name} />
                      </strong>{" "}
                      <span className="small">
                        <Reveal text={s.description} />
                      </span>
                      <div className="buttons">
                        <button type="button" disabled={saving} onClick={() => void importOne(s)}>
                          {t("skillsImport", { name: s.name })}
                        </button>
                      </div>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )}
          {view.projects.map((project) => (
            <section key={project.projectId} aria-label={t("skillsOfProject", { root: project.root })}>
              <h4>
                {t("skillsProjectHeading")}{" "}
                <code>
                  <Reveal text={project.root} />
                </code>
              </h4>
              <p className="muted small">{t("skillsProjectNote")}</p>
              {project.skills.length === 0 && project.invalid.length === 0 && <p className="muted small">{t("skillsProjectNone")}</p>}
              <ul className="mcp-servers">
                {project.skills.map((s) => (
                  <li key={s.folder} className="mcp-server" data-trust={s.trust}>
                    <strong>
                      <Reveal text={s.name} />
                    </strong>{" "}
                    <span className="small">
                      <Reveal text={s.description} />
                    </span>
                    <p className="mcp-detail small">
                      <span className={s.trust === "trusted" ? "" : "muted"}>{t(`skillTrust_${s.trust}`)}</span>{" "}
                      <code>
                        <Reveal text={s.folder} />
                      </code>{" "}
                      {t("skillsFiles", { n: s.files })}
                    </p>
                    {s.changes.length > 0 && (
                      <ul className="small" aria-label={t("skillsChanges", { name: s.name })}>
                        {s.changes.map((c) => (
                          <li key={c}>
                            <code>
                              <Reveal text={c} />
                            </code>
                          </li>
                        ))}
                      </ul>
                    )}
                    <div className="buttons">
                      <button type="button" disabled={saving} onClick={() => void trust(project.projectId, s, s.trust !== "trusted")}>
                        {s.trust === "trusted" ? t("skillsUntrust", { name: s.name }) : t("skillsTrust", { name: s.name })}
                      </button>
                    </div>
                  </li>
                ))}
                {project.invalid.map((s) => (
                  <li key={s.folder} className="mcp-server">
                    <code>
                      <Reveal text={s.folder} />
                    </code>
                    <p className="mcp-detail small">
                      <Reveal text={s.reason} />
                    </p>
                  </li>
                ))}
              </ul>
            </section>
          ))}
          {view.notes.map((n) => (
            <p key={n} className="muted small">
              <Reveal text={n} />
            </p>
          ))}
        </>
      )}
    </section>
  );
}
