/**
 * What the model tests share (test/consolidation-model.test.ts over HTTP, test/consolidation-sampling.test.ts
 * over MCP sampling): a history of free-text episodes (no key, no title) in English and Chinese,
 * with one fact said in three sessions and four sessions to summarise, and the scripted answers
 * of a model to the consolidation prompts (src/memory/consolidation/prompts.ts).
 */

export const FACT = 'The user lives in Lisbon.'
export const EN_SUMMARY = 'Set up the ruff pre-commit hook for the scraper repo; the user is based in Lisbon.'
export const ZH_SUMMARY = '修复了登录页 500 错误（cookie 路径配置问题），并决定下周把 Redis 升级到 7.2。'

/** [session, time, summary] in writing order. */
export const HISTORY: ReadonlyArray<readonly [string, string, string]> = [
  ['s1', '2026-02-02T08:30:00Z', 'User mentioned they are based in Lisbon, so a 9:00 UTC call works for them.'],
  ['s1', '2026-02-02T08:40:00Z', 'Set up the pre-commit hook for ruff in the scraper repo.'],
  ['s2', '2026-02-05T14:00:00Z', 'Scheduled the vendor sync for 10:00 Lisbon time, since that is where the user lives.'],
  ['s2', '2026-02-05T14:10:00Z', 'Drafted the release notes for v2.3.'],
  ['s3', '2026-02-09T16:00:00Z', 'Said hello to the assistant.'],
  ['s3', '2026-02-09T16:20:00Z', '用户说他住在 Lisbon，想找周末徒步的路线。'],
  ['s4', '2026-02-10T09:00:00Z', '修复了登录页面的 500 错误，原因是 cookie 路径配置错误。'],
  ['s4', '2026-02-10T09:30:00Z', '决定下周把 Redis 升级到 7.2。'],
]

/** The scripted answers: the fact for the promotion prompt, per session a summary, garbage or nothing. */
export function script(prompt: string, fact = FACT): string | null {
  if (prompt.startsWith('These notes were written in different sessions')) return JSON.stringify({ same: true, fact })
  if (!prompt.startsWith('Summarise this work session')) return null
  if (prompt.includes('ruff')) return EN_SUMMARY
  if (prompt.includes('Redis')) return ZH_SUMMARY
  // Not in its notes: a summary that invents a cluster and a version.
  if (prompt.includes('release notes')) return 'Deployed Kubernetes 1.29 to the Frankfurt cluster.'
  return ''
}

