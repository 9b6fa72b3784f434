/**
 * The words of a subject, as two phrasings of one subject share them: "the staging DB host" and
 * "staging database host", "token TTL of the auth service" and "auth service's token TTL",
 * "用户的默认 shell" and "用户默认shell". Latin words lower-cased and stemmed, a few
 * abbreviations spelled out, filler words ("system", "setup") dropped; Chinese as characters (a
 * subject is short, and "发票生成日" must stay near "发票生成"), grammar characters dropped. Used to
 * find memories about the same subject (index-view.ts) and to compare subjects (revise.ts,
 * verify.ts). Traditional Chinese is read as Simplified (language/han-variants.ts). Pure.
 */

import { simplifyHan } from './han-variants.js'
import { stem } from './tokenizer.js'

const SPELLED: Readonly<Record<string, string>> = {
  db: 'database', dbs: 'database', k8s: 'kubernetes', env: 'environment', envs: 'environment', prod: 'production',
  config: 'configuration', cfg: 'configuration', repo: 'repository', repos: 'repository', msg: 'message', mq: 'queue',
  ttl: 'ttl', tz: 'timezone', pw: 'password', pwd: 'password', num: 'number', addr: 'address', dir: 'directory',
  '2fa': 'two-factor', mfa: 'two-factor', ci: 'ci', cd: 'cd', os: 'os', ui: 'ui', vm: 'vm', id: 'id',
}

/** Words that never tell two subjects apart. */
const FILLER = new Set(
  (
    'the a an of for its it their our my your his her this that these those to in on at by with from and or ' +
    'system setup settings tool tooling thing stuff value current currently default main now used use uses using project ' +
    'is are was were be been being has have had do does did will would'
  ).split(' '),
)

const CJK_RUN = /[\p{Script=Han}]+/gu
/** Chinese attribute and relation words kept whole: one term each, as an English word is. */
const ZH_WORDS = /使用|部署|监听|住址|语言|存储|指向|偏好|饮食|单位|职业|有效期|时间|数量|负责|名字|年龄|时区|宠物|学校|办公地点|版本|端口|地址|域名|密码|邮箱|电话|路径|目录|分支|节点|集群|超时|限制|上限|内存|大小|频率|周期/gu
const WORD = /[\p{L}\p{N}][\p{L}\p{N}+#.-]*/gu
/** Chinese glue inside a subject: dropped before 2-grams are taken. */
const ZH_GLUE = /[的之把被将了着过在是]/u

function fold(word: string): string {
  const w = word.replace(/[.-]+$/u, '')
  const spelled = SPELLED[w] ?? w
  if (/\d/u.test(spelled)) return spelled
  // "generated" and "generation", "named" and "names": one stem.
  const s = stem(spelled)
  return s.length > 6 && s.endsWith('ion') ? s.slice(0, -3) : s
}

/** The subject's terms, deduplicated, sorted. */
export function subjectTerms(subject: string): string[] {
  return termsInOrder(subject).sort()
}

/** The terms of a text in the order they stand, deduplicated: a statement names its subject first. */
export function termsInOrder(text: string): string[] {
  const lower = simplifyHan(text.normalize('NFKC').toLowerCase())
  const found: Array<{ at: number; term: string }> = []
  for (const m of lower.matchAll(ZH_WORDS)) found.push({ at: m.index, term: m[0] })
  const rest = lower.replace(ZH_WORDS, (w) => ' '.repeat(w.length))
  for (const m of rest.matchAll(CJK_RUN)) {
    let at = m.index
    for (const ch of Array.from(m[0])) {
      if (!ZH_GLUE.test(ch)) found.push({ at, term: ch })
      at += ch.length
    }
  }
  for (const m of rest.replace(CJK_RUN, (w) => ' '.repeat(w.length)).matchAll(WORD)) {
    const w = fold(m[0])
    if (w !== '' && !FILLER.has(w)) found.push({ at: m.index, term: w })
  }
  return [...new Set(found.sort((a, b) => a.at - b.at).map((f) => f.term))]
}

/**
 * Terms of the relation verbs subjects are given (claim-extract.ts RELATION_LABEL), as subjectTerms
 * spells them. The attribute nouns it gives (home, diet, job, 住址, 饮食, 职业...) are not here:
 * they name what a subject is about, and "用户 饮食" is no near subject of "用户 名字".
 */
const RELATION_TERMS = new Set(
  ['uses', 'runs on', 'listens on', 'points to', 'prefers', 'has', 'enabled']
    .flatMap((w) => w.split(' '))
    .map((w) => fold(w))
    .concat(['使用', '部署', '监听', '指向', '偏好', '负责', '启用']),
)

/** One subject in two phrasings: the same terms. */
export function sameSubjectTerms(a: readonly string[], b: readonly string[]): boolean {
  return a.length > 0 && a.length === b.length && a.every((t, i) => t === b[i])
}

/**
 * Near subjects: all terms of one are terms of the other, which has at most `extra` more ("team
 * standup" and "standup"). Used only where the text also says what changed.
 */
export function nearSubjectTerms(a: readonly string[], b: readonly string[], extra = 1): boolean {
  // The relation words a subject was given ("uses", "使用") tell no subject apart from a near one.
  // Counted and looked up in place: a write compares its subject with every memory sharing its
  // rarest word, and subjects are a few terms long.
  const coreLength = (t: readonly string[]) => t.reduce((n, x) => (RELATION_TERMS.has(x) ? n : n + 1), 0)
  const [small, large] = coreLength(a) <= coreLength(b) ? [a, b] : [b, a]
  const smallLength = coreLength(small)
  if (smallLength === 0 || coreLength(large) - smallLength > extra) return false
  return small.every((t) => RELATION_TERMS.has(t) || large.includes(t))
}
