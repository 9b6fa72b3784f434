/**
 * Resident injection over both stores: the project store's memories first, then a short section of
 * the personal store's (preferences and identity follow the person into every project), under one
 * heading and within the one character budget, token budget and line cap (profileTopN) of the
 * project store's configuration. The personal
 * section takes at most a third of the budget and only what it needs; the project store gets the
 * rest. Synchronous and never throws, as injectionText (memory/reading/inject.ts), which renders each part.
 */

import { loadConfigSync } from '../memory/settings/config.js'
import { INJECT_MAX_BUDGET, INJECT_MIN_BUDGET, INJECTION_FRAME, INJECTION_HEADING, injectionText, injectionTokens, type InjectionOptions, type InjectionResult } from '../memory/reading/inject.js'
import type { MemoryBackend } from '../store/backend.js'

/** The label over the personal store's lines. */
export const PERSONAL_LABEL = '个人记忆（personal store，每个项目都可见）：'
/** The personal section's share of the budget at most. */
const PERSONAL_SHARE = 1 / 3
const HEAD = `${INJECTION_HEADING}\n${INJECTION_FRAME}`

/** The personal store's lines under PERSONAL_LABEL, at most `chars` long; undefined when there are none or the share is too small. */
function personalSection(user: MemoryBackend, chars: number, tokens: number, options: InjectionOptions): { text: string; result: InjectionResult } | undefined {
  // injectionText's own heading is swapped for the label, so its budgets count the heading in.
  const budgetChars = chars - PERSONAL_LABEL.length + HEAD.length
  if (budgetChars < INJECT_MIN_BUDGET) return undefined
  const tokenBudget = tokens === 0 ? 0 : Math.max(1, tokens - injectionTokens(PERSONAL_LABEL) + injectionTokens(HEAD))
  const result = injectionText(user, { ...options, enabled: true, budgetChars, tokenBudget })
  if (!result.text.startsWith(`${HEAD}\n`)) return undefined
  return { text: `${PERSONAL_LABEL}\n${result.text.slice(HEAD.length + 1)}`, result }
}

/** The injection of the project store and, when there is one, the personal store, in one budget. */
export function residentInjection(project: MemoryBackend, user: MemoryBackend | undefined, options: InjectionOptions = {}): InjectionResult {
  if (user === undefined) return injectionText(project, options)
  let budgetChars: number
  let tokenBudget: number
  let maxMemories: number
  try {
    const config = loadConfigSync(project)
    if (!(options.enabled ?? config.injectEnabled)) return injectionText(project, options)
    budgetChars = Math.min(INJECT_MAX_BUDGET, Math.max(INJECT_MIN_BUDGET, Math.round(options.budgetChars ?? config.injectBudgetChars)))
    tokenBudget = options.tokenBudget ?? config.injectTokenBudget
    maxMemories = options.maxMemories ?? config.profileTopN
  } catch {
    // No readable configuration: the project store alone, which reports its own trouble.
    return injectionText(project, options)
  }
  const personal = personalSection(user, Math.floor(budgetChars * PERSONAL_SHARE), Math.floor(tokenBudget * PERSONAL_SHARE), { ...options, maxMemories })
  if (personal === undefined) return injectionText(project, { ...options, budgetChars })
  // One cap and one token budget for both: the project store gets what the personal section left.
  const own = injectionText(project, {
    ...options,
    budgetChars: budgetChars - personal.text.length - 1,
    tokenBudget: tokenBudget === 0 ? 0 : Math.max(1, tokenBudget - injectionTokens(personal.text)),
    maxMemories: Math.max(0, maxMemories - personal.result.included),
  })
  const p = personal.result
  const warnings = [...(own.injectionWarnings ?? []), ...(p.injectionWarnings ?? [])]
  return {
    text: `${own.text === '' ? HEAD : own.text}\n${personal.text}`,
    included: own.included + p.included,
    indexed: own.indexed + p.indexed,
    omitted: own.omitted + p.omitted,
    staleSkipped: own.staleSkipped + p.staleSkipped,
    budgetChars,
    ...(warnings.length > 0 ? { injectionWarnings: warnings } : {}),
  }
}
