/**
 * The plugin's cordis configuration (the `config:` of its row in cordis.patch.yml): a schemastery
 * schema with every field of the seed's configuration table and its default, and what it means
 * for the runtime config that handlers read. `<root>/config.json` (the panel's) is merged over
 * this, so the panel wins over the YAML, which wins over the built-in defaults. The schedule of
 * auto-settle and the lifecycle switches are read from here only (a change needs a restart).
 */

import Schema from '@deepseek-ai/schemastery'
import { AUTO_SETTLE_DEFAULTS, type AutoSettleOptions } from '../lifecycle/auto-settle-writer.js'
import { DEFAULT_CONFIG, type RuntimeConfig } from '../memory/settings/config.js'
import { INJECT_MAX_BUDGET, INJECT_MIN_BUDGET } from '../memory/reading/inject.js'

export interface PluginConfig {
  root: string | null
  userRoot: string | null
  requireConfirmation: boolean
  defaultBudget: number
  maxTopK: number
  injectEnabled: boolean
  injectBudgetChars: number
  autoSettleEnabled: boolean
  consolidateAfterEpisodes: number
  consolidateMinIntervalMinutes: number
  consolidationModel: string
  consolidateModelTokensPerRun: number
  consolidateModelTokensPerDay: number
  lifecycle: {
    enabled: boolean
    audit: boolean
    autoSettle: { enabled: boolean } & AutoSettleOptions
  }
}

/** Where the personal store lives unless configured; `~` is resolved with os.homedir() in index.ts. */
export const DEFAULT_USER_ROOT = '~/.agent/memory'

export const PluginConfig: Schema<PluginConfig> = Schema.object({
  root: Schema.union([Schema.string(), Schema.const(null)])
    .default(null)
    .description('The memory store folder; null means <cwd>/.agent/memory, a relative path is taken from the cwd.'),
  userRoot: Schema.union([Schema.string(), Schema.const(null)])
    .default(DEFAULT_USER_ROOT)
    .description('The personal store (preferences and identity, shared by every project); a leading ~ is the home folder; null serves the project store alone.'),
  requireConfirmation: Schema.boolean().default(DEFAULT_CONFIG.requireConfirmation).description('New memories wait as suggested until memory_confirm.'),
  defaultBudget: Schema.natural().min(50).max(100_000).default(DEFAULT_CONFIG.defaultBudget).description('memory_assemble token budget when the call gives none.'),
  maxTopK: Schema.natural().min(1).max(200).default(DEFAULT_CONFIG.maxTopK).description('The most hits one search returns.'),
  injectEnabled: Schema.boolean().default(DEFAULT_CONFIG.injectEnabled).description('Put the most useful memories into every turn (resident injection).'),
  injectBudgetChars: Schema.natural()
    .min(INJECT_MIN_BUDGET)
    .max(INJECT_MAX_BUDGET)
    .default(DEFAULT_CONFIG.injectBudgetChars)
    .description(`Character budget of resident injection (${INJECT_MIN_BUDGET}-${INJECT_MAX_BUDGET}).`),
  autoSettleEnabled: Schema.boolean().default(DEFAULT_CONFIG.autoSettleEnabled).description('Auto-settle: turn facts the user states into suggested memories.'),
  consolidateAfterEpisodes: Schema.natural()
    .max(100_000)
    .default(DEFAULT_CONFIG.consolidateAfterEpisodes)
    .description('Consolidate in the background (from the prompt heartbeat) after this many new episodes; 0: only when asked (memory_consolidate, the panel).'),
  consolidateMinIntervalMinutes: Schema.natural()
    .max(10_080)
    .default(DEFAULT_CONFIG.consolidateMinIntervalMinutes)
    .description('The least time between two background consolidations (minutes).'),
  consolidationModel: Schema.string()
    .default('auto')
    .description('The model consolidation may use through the host\'s LLM service: "auto" (the host\'s default model for new agents), "provider/model", or "off" (deterministic only).'),
  consolidateModelTokensPerRun: Schema.natural()
    .max(10_000_000)
    .default(DEFAULT_CONFIG.consolidateModelTokensPerRun)
    .description('Model tokens one consolidation run may spend; past it the run goes on without the model.'),
  consolidateModelTokensPerDay: Schema.natural()
    .max(100_000_000)
    .default(DEFAULT_CONFIG.consolidateModelTokensPerDay)
    .description('Model tokens consolidation may spend per day (UTC); past it runs go on without the model.'),
  lifecycle: Schema.object({
    enabled: Schema.boolean().default(false).description('Session hooks (audit only; they never delete).'),
    audit: Schema.boolean().default(true).description('Session hooks write lifecycle/attach and lifecycle/detach ledger events.'),
    autoSettle: Schema.object({
      enabled: Schema.boolean().default(false).description('The same switch as autoSettleEnabled; either turns auto-settle on.'),
      minIntervalMs: Schema.natural().default(AUTO_SETTLE_DEFAULTS.minIntervalMs).description('The least time between two attempts on a session (ms).'),
      minMessages: Schema.natural().min(1).default(AUTO_SETTLE_DEFAULTS.minMessages).description('User messages a session needs before it is looked at.'),
      maxCandidates: Schema.natural().min(1).default(AUTO_SETTLE_DEFAULTS.maxCandidates).description('The most memories one attempt writes.'),
    }).default({ enabled: false, ...AUTO_SETTLE_DEFAULTS }),
  }).default({ enabled: false, audit: true, autoSettle: { enabled: false, ...AUTO_SETTLE_DEFAULTS } }),
})

/** The runtime config this cordis config stands for, before config.json is merged over it. */
export function runtimeBase(config: PluginConfig): Partial<RuntimeConfig> {
  return {
    requireConfirmation: config.requireConfirmation,
    defaultBudget: config.defaultBudget,
    maxTopK: config.maxTopK,
    injectEnabled: config.injectEnabled,
    injectBudgetChars: config.injectBudgetChars,
    autoSettleEnabled: config.autoSettleEnabled || config.lifecycle.autoSettle.enabled,
    consolidateAfterEpisodes: config.consolidateAfterEpisodes,
    consolidateMinIntervalMinutes: config.consolidateMinIntervalMinutes,
    consolidateModelTokensPerRun: config.consolidateModelTokensPerRun,
    consolidateModelTokensPerDay: config.consolidateModelTokensPerDay,
  }
}
