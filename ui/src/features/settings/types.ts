// Settings → Model on the wire: aliases of the types generated from the Host's API document
// (../../types.ts says how they are made).
import type { Schemas } from "../../types";

export type ModelSettings = Schemas["Settings"];
export type UpdateSettings = Schemas["UpdateSettings"];
export type ConnectionTest = Schemas["ConnectionTest"];
export type Failure = Schemas["Failure"];
/** A problem of the model settings or the secret store: a failure like any other. */
export type Problem = Failure;
export type RunModel = Schemas["RunModel"];

export type Provider = ModelSettings["provider"];
export type ThinkingMode = ModelSettings["thinking"];
export type Effort = NonNullable<ModelSettings["reasoningEffort"]>;
export type KeyStorage = Schemas["KeyStorage"];
export type SettingSource = Schemas["SettingSource"];

export type PriceTable = ModelSettings["prices"];
export type ModelPrice = PriceTable["models"][string];
