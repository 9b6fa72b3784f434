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
import { ZH_SYNONYM_GROUPS } from './zh-synonyms.js'

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

/**
 * The subject term list: words and phrases that name one thing in a subject, in English and
 * Chinese, read as one term (the group's name), so that "the DB" and "数据库", "my wife" and
 * "我老婆", "the backend service" and "the API" give one subject. A group holds words a person uses
 * for the same thing, never broader or related ones (宠物 is not 猫). Measured by
 * `npm run bench:subject-terms`: how many revision pairs of the development claim sets it joins
 * and how many look-alike pairs (another subject, another attribute) it wrongly joins.
 */
export const SUBJECT_TERM_GROUPS: Readonly<Record<string, readonly string[]>> = {
  database: ['database', 'db', 'datastore', '数据库', '主库'],
  api: ['api', 'backend', 'backend service', 'backend server', 'api service', 'api server', 'api 服务', 'api 服务器', '接口服务', '后端', '后端服务', '服务端', '接口'],
  frontend: ['frontend', 'front end', 'front-end', 'web frontend', '前端'],
  cert: ['certificate', 'cert', 'tls certificate', 'ssl certificate', 'ssl cert', 'tls cert', '证书', 'ssl 证书', 'tls 证书'],
  dns: ['dns', 'dns hosting', '域名解析', 'dns 解析'],
  lb: ['load balancer', 'lb', 'slb', 'elb', '负载均衡'],
  healthcheck: ['health check', 'healthcheck', '健康检查'],
  environment: ['environment', 'env', '环境'],
  port: ['port', '端口'],
  version: ['version', '版本'],
  cache: ['cache', '缓存'],
  domain: ['domain', '域名'],
  password: ['password', '密码'],
  email: ['email', 'e-mail', 'mailbox', '邮箱', '电子邮件'],
  phone: ['phone', 'mobile', 'cell', ...ZH_SYNONYM_GROUPS.zhPhone ?? [], '手机'],
  address: ['address', '地址'],
  branch: ['branch', '分支'],
  cluster: ['cluster', '集群'],
  timeout: ['timeout', '超时', '超时时间'],
  ttl: ['ttl', 'expiry', 'time to live', '有效期', '过期时间'],
  region: ['region', '区域', '地域'],
  budget: ['budget', '预算'],
  price: ['price', 'cost', '价格', '费用', '售价'],
  rent: ['rent', ...ZH_SYNONYM_GROUPS.zhRent ?? []],
  user: ['user', '用户'],
  team: ['team', '团队'],
  manager: ['manager', 'boss', 'supervisor', 'line manager', 'direct manager', '直属领导', '直属上级', '经理', ...ZH_SYNONYM_GROUPS.zhBoss ?? []],
  doctor: ['doctor', 'gp', 'physician', '医生', '大夫'],
  wife: ['wife', ...ZH_SYNONYM_GROUPS.zhWife ?? [], '爱人'],
  husband: ['husband', ...ZH_SYNONYM_GROUPS.zhHusband ?? []],
  mother: ['mother', 'mom', 'mum', ...ZH_SYNONYM_GROUPS.zhMother ?? []],
  father: ['father', 'dad', ...ZH_SYNONYM_GROUPS.zhFather ?? []],
  parents: ['parents', ...ZH_SYNONYM_GROUPS.zhParents ?? []],
  daughter: ['daughter', ...ZH_SYNONYM_GROUPS.zhDaughter ?? []],
  son: ['son', ...ZH_SYNONYM_GROUPS.zhSon ?? []],
  child: ['child', 'kid', 'children', 'kids', ...ZH_SYNONYM_GROUPS.zhChild ?? []],
  cat: ['cat', 'kitty', ...ZH_SYNONYM_GROUPS.zhCat ?? []],
  dog: ['dog', 'doggy', ...ZH_SYNONYM_GROUPS.zhDog ?? []],
  car: ['car', 'vehicle', ...ZH_SYNONYM_GROUPS.zhCar ?? []],
  birthday: ['birthday', 'date of birth', ...ZH_SYNONYM_GROUPS.zhBirthday ?? []],
  office: ['office', 'workplace', 'hq', 'headquarters', '办公室', '办公地点'],
  retention: ['retention', '保留期', '保留时间', '保留'],
  log: ['log', 'logs', '日志'],
  broadband: ['broadband', 'internet plan', '宽带'],
  gym: ['gym', '健身房'],
  // The attribute names claim-subject.ts gives a subject, in both languages.
  diet: ['diet', '饮食'],
  home: ['home', '住址'],
  job: ['job', '职业'],
  employer: ['employer', '单位'],
  pet: ['pet', '宠物'],
  name: ['name', '名字'],
  age: ['age', ...ZH_SYNONYM_GROUPS.zhAge ?? []],
  timezone: ['timezone', '时区'],
  language: ['language', '语言'],
  commute: ['commute', '通勤'],
}

const GROUP_NAMES = new Set(Object.keys(SUBJECT_TERM_GROUPS))
const MEMBERS = Object.entries(SUBJECT_TERM_GROUPS).flatMap(([name, members]) => members.map((m) => ({ name, m: m.toLowerCase() })))
const byLength = (a: { m: string }, b: { m: string }) => b.m.length - a.m.length
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')
/** Chinese members, longest first: matched whole, before a Chinese run is split into characters. */
const ZH_MEMBERS = MEMBERS.filter((x) => /\p{Script=Han}/u.test(x.m)).sort(byLength)
const ZH_MEMBER = new RegExp(ZH_MEMBERS.map((x) => escape(x.m).replace(/ /gu, '\\s*')).join('|'), 'gu')
const ZH_MEMBER_NAME = new Map(ZH_MEMBERS.map((x) => [x.m.replace(/\s+/gu, ''), x.name]))
/** English phrases of several words, longest first: replaced by their group's name before words are read. */
const EN_PHRASES = MEMBERS.filter((x) => !/\p{Script=Han}/u.test(x.m) && /[\s-]/u.test(x.m)).sort(byLength)
const EN_PHRASE = new RegExp(`\\b(?:${EN_PHRASES.map((x) => escape(x.m).replace(/[ -]/gu, '[\\s-]+')).join('|')})s?\\b`, 'gu')
/** A cheap test before the phrases are looked for: the first word of one of them is in the text. */
const PHRASE_START = new RegExp(`\\b(?:${[...new Set(EN_PHRASES.map((x) => escape(x.m.split(/[\\s-]/u)[0] as string)))].join('|')})[\\s-]`, 'u')
const HAN = /\p{Script=Han}/u
const EN_PHRASE_NAME = new Map(EN_PHRASES.map((x) => [x.m.replace(/[\s-]+/gu, ' '), x.name]))

const CJK_RUN = /[\p{Script=Han}]+/gu
/** Chinese attribute and relation words kept whole: one term each, as an English word is. */
const ZH_WORDS = /使用|部署|监听|住址|语言|存储|指向|偏好|饮食|单位|职业|有效期|时间|数量|负责|名字|年龄|时区|宠物|学校|办公地点|版本|端口|地址|域名|密码|邮箱|电话|路径|目录|分支|节点|集群|超时|限制|上限|内存|大小|频率|周期/gu
const WORD = /[\p{L}\p{N}][\p{L}\p{N}+#.-]*/gu
/** Chinese glue inside a subject: dropped before 2-grams are taken. */
const ZH_GLUE = /[的之把被将了着过在是]/u

function fold(word: string, withList = true): string {
  const w = word.replace(/[.-]+$/u, '')
  if (withList && GROUP_NAMES.has(w)) return w
  const spelled = SPELLED[w] ?? w
  if (/\d/u.test(spelled)) return spelled
  // "generated" and "generation", "named" and "names": one stem.
  const s = stem(spelled)
  const folded = s.length > 6 && s.endsWith('ion') ? s.slice(0, -3) : s
  return (withList ? EN_WORD_NAME.get(folded) : undefined) ?? folded
}

/** English one-word members, as fold spells them, to their group's name. */
const EN_WORD_NAME: ReadonlyMap<string, string> = new Map(
  MEMBERS.filter((x) => /^[a-z0-9]+$/u.test(x.m)).map((x) => {
    const st = stem(SPELLED[x.m] ?? x.m)
    return [st.length > 6 && st.endsWith('ion') ? st.slice(0, -3) : st, x.name]
  }),
)

/** The subject's terms, deduplicated, sorted; `withList` false reads them without the subject term list (for its measurement). */
export function subjectTerms(subject: string, withList = true): string[] {
  return termsInOrder(subject, withList).sort()
}

/** The terms of a text in the order they stand, deduplicated: a statement names its subject first. */
export function termsInOrder(text: string, withList = true): string[] {
  const plain = simplifyHan(text.normalize('NFKC').toLowerCase())
  const lower = !withList || !PHRASE_START.test(plain) ? plain : plain.replace(EN_PHRASE, (p) => ` ${EN_PHRASE_NAME.get(p.replace(/[\s-]+/gu, ' ').replace(/s$/u, '')) ?? p} `)
  const found: Array<{ at: number; term: string }> = []
  // Matched on one copy, blanked on another, so that positions stay those of the text.
  let rest = lower
  for (const m of withList && HAN.test(lower) ? lower.matchAll(ZH_MEMBER) : []) {
    found.push({ at: m.index, term: ZH_MEMBER_NAME.get(m[0].replace(/\s+/gu, '')) ?? m[0] })
    rest = rest.slice(0, m.index) + ' '.repeat(m[0].length) + rest.slice(m.index + m[0].length)
  }
  for (const m of rest.matchAll(ZH_WORDS)) found.push({ at: m.index, term: m[0] })
  rest = rest.replace(ZH_WORDS, (w) => ' '.repeat(w.length))
  for (const m of rest.matchAll(CJK_RUN)) {
    let at = m.index
    for (const ch of Array.from(m[0])) {
      if (!ZH_GLUE.test(ch)) found.push({ at, term: ch })
      at += ch.length
    }
  }
  for (const m of rest.replace(CJK_RUN, (w) => ' '.repeat(w.length)).matchAll(WORD)) {
    const w = fold(m[0], withList)
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

/** Terms that name a person: a subject one of them widens is another person's (nearSubjectTerms). */
const PERSON_TERMS = new Set([
  ...['wife', 'husband', 'mother', 'father', 'parents', 'daughter', 'son', 'child', 'manager', 'doctor'],
  ...'brother sister grandma grandmother grandpa grandfather friend colleague partner spouse boyfriend girlfriend uncle aunt cousin neighbor neighbour roommate'.split(' ').map((w) => stem(w)),
  ...Array.from('哥姐弟妹爷奶叔姨舅婶'),
])

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
  // "user home" and "user mother home" are two people's homes, not one subject said wider.
  if (large.some((t) => PERSON_TERMS.has(t) && !small.includes(t))) return false
  return small.every((t) => RELATION_TERMS.has(t) || large.includes(t))
}
