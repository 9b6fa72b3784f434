/**
 * Cue words: what signals a change ("now", "no longer", "migrated", "现在", "不再", "改成"...)
 * and the values a text says no longer hold ("no longer X", "不再是 X", the A of "from A to B").
 * Pure.
 */

import { simplifyHan } from '../../language/han-variants.js'
import { hasContent, unique } from './claim-text.js'
import { stripValueEdges } from './claim-kinds.js'

const EN_CUES = [
  'now', 'no longer', 'not anymore', 'moved', 'migrated', 'switched', 'changed', 'replaced', 'instead',
  'upgraded', 'downgraded', 'bumped', 'renamed', 'became', 'has become', 'these days', 'from now on', 'going forward', 'as of today',
  'correction', 'corrected', 'update', 'updated', 'started', 'adopted', 'bought', 'quit', 'again', 'turned on', 'turned off', 'switched on', 'switched off', 'back to',
  'went up', 'went down', 'increased', 'decreased', 'raised', 'lowered', 'retired', 'rolled out', 'handed over', 'took over', 'taken over', 'is gone',
  'no more', 'dropped', 'ditched', 'stopped using', 'reverted', 'rolled back', 'swapped', 'moved off', 'moved back', 'cancelled', 'canceled', 'discontinued', 'deprecated', 'effective',
]
const EN_CUE = new RegExp(`\\b(?:${EN_CUES.map((c) => c.replace(/ /g, '\\s+')).join('|')})\\b`, 'giu')
const ZH_CUE =
  /现在|如今|目前|眼下|不再|改成|换成|改为|改用|换用|迁移到|迁移至|迁到|切换到|切换成|切到|换到|升级到|升级为|降级到|变成|变为|调整为|调整到|改到|搬到|搬去|已经|开始|更正|纠正|订正|更新为|从此|领养了|买了|辞职|离职|更换为|更换成|重新|恢复|换回|换了|被升级|升级成|早就|退掉|不用[^，。；,.;！!？?]{0,16}了|改去|改由|停用|下线|取消了|调成|调到|涨到|涨价|降到|降价|上调|下调|延长到|缩短到|改到|换到|换用|改(?=乘坐|搭乘|步行|走路|坐|乘|搭|骑|开车|打车)|跳槽/gu
/** "from A to B" (and its Chinese form): A no longer holds. */
const EN_FROM_TO = /\bfrom\s+(.+?)\s+(?:to|into)\s+(.+)$/iu
const ZH_FROM_TO = /从(.+?)(?:改成|换成|改为|改用|换用|迁移到|迁移至|迁到|切换到|切换成|切到|换到|升级到|升级为|降级到|变成|变为|调整为|调整到|改到|搬到|到)(.+)$/u

/** Cues of change in a text, lower-case, in order of appearance. */
export function changeCues(text: string): string[] {
  // "said again", "asked again": the saying is repeated, not the fact changed.
  const t = simplifyHan(text.normalize('NFKC')).replace(REPEATED_SAYING, ' ')
  const found: string[] = []
  for (const m of t.matchAll(EN_CUE)) found.push(m[0].toLowerCase().replace(/\s+/g, ' '))
  for (const m of t.matchAll(ZH_CUE)) found.push(m[0])
  return unique(found)
}

const REPEATED_SAYING = /\b(?:said|says|mentioned|mentions|asked|asks|noted|notes|repeated|confirmed|stated|told\s+\w+|reminded\s+\w+)\s+again\b/giu

export function retiredIn(clause: string): string[] {
  const out: string[] = []
  const en = /\b(?:no longer|not any ?more|never again)\s+(?:is\s+|are\s+|a\s+|an\s+|uses?\s+|eats?\s+|runs? on\s+|lives? in\s+)?(.+)$/iu.exec(clause)
  if (en !== null) out.push(stripValueEdges(en[1] as string))
  const en2 = /^(.+?)\s+(?:any ?more|no more)$/iu.exec(clause)
  if (en2 !== null && /\b(?:not|n't|no)\b/iu.test(clause)) out.push(stripValueEdges((en2[1] as string).replace(/^.*\b(?:not|n't)\s+(?:be\s+|use\s+|eat\s+)?/iu, '')))
  const instead = /\b(?:instead of|rather than|replacing|in place of)\s+(.+)$/iu.exec(clause)
  if (instead !== null) out.push(stripValueEdges(instead[1] as string))
  const zh = /不再(?:是|用|使用|采用|吃|住在|在)?(.+)$/u.exec(clause)
  if (zh !== null) out.push(stripValueEdges(zh[1] as string))
  const not = /^(?:not|rather than|instead of)\s+(.+)$/iu.exec(clause)
  if (not !== null) out.push(stripValueEdges(not[1] as string))
  const left = /从(.+?)(?:离职|辞职|离开|搬走|搬出|退出|下线)/u.exec(clause)
  if (left !== null) out.push(stripValueEdges(left[1] as string))
  const zh2 = /(?:而不是|取代了?|替换了?|代替了?)(.+)$/u.exec(clause)
  if (zh2 !== null) out.push(stripValueEdges(zh2[1] as string))
  const from = EN_FROM_TO.exec(clause) ?? ZH_FROM_TO.exec(clause)
  if (from !== null) out.push(stripValueEdges(from[1] as string))
  return out.filter((v) => v !== '' && hasContent(v))
}

/** Words that add a value beside the others rather than replace them ("also", "too", "也", "还支持"). */
export const ADDITIVE = /\b(?:too|also|as well|in addition|additionally|besides|alongside|on top of)\b|也|还(?:支持|有|用|会|养了|加了)|另外|此外|新增|同时|以及/iu
