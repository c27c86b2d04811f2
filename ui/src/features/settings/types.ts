// Settings → Model on the wire (crates/wisp-protocol/src/settings.rs); keep the two in step.

export type Provider = "simulation" | "deepseek" | "openai_compatible";
export type ThinkingMode = "enabled" | "disabled";
export type Effort = "high" | "max";
export type KeyStorage = "keyring" | "process" | "env";
export type SettingSource = "env" | "flag" | "stored" | "default";

export interface ModelPrice { cacheHit: number; cacheMiss: number; output: number }
export interface PriceTable { currency: string; source: string; asOf: string; models: Record<string, ModelPrice> }
export interface Problem { kind: string; message: string; params: Record<string, string> }
export interface RunModel { provider: Provider; name: string }

export interface ModelSettings {
  provider: Provider;
  baseUrl: string;
  model: string;
  thinking: ThinkingMode;
  reasoningEffort: Effort | null;
  apiKey: { set: boolean; storage: KeyStorage | null };
  prices: PriceTable;
  sources: Record<"provider" | "baseUrl" | "model" | "thinking" | "reasoningEffort" | "apiKey" | "prices", SettingSource>;
  keyringProblem: Problem | null;
}

export interface UpdateSettings {
  provider: Provider;
  baseUrl: string | null;
  model: string;
  thinking: ThinkingMode;
  reasoningEffort: Effort | null;
  prices?: PriceTable | null;
}

export interface ConnectionTest { ok: boolean; problem: Problem | null; models: string[] }
