/**
 * Value typing for the claim readers: the kinds of thing a value names (MySQL is a database,
 * Redis a cache), a person's categories (diet, home, pet, job...), a value's edges (when-words,
 * a joined second statement), the noun a value hands to its subject ("port 9090"), and places.
 * Pure.
 */

import type { Raw } from './claim-text.js'
import { hasHan, unique, words } from './claim-text.js'

export interface Category {
  en: string
  zh: string
  /** Words of a value or predicate that put a statement in this category. */
  cue: RegExp
  /** A person has several at once (pets): a new one is added beside the others, not instead. */
  several?: true
}

/** Kinds of thing a tool or service is: "uses MySQL" is about a database. */
export const KINDS: readonly Category[] = [
  { en: 'database', zh: '数据库', cue: /\b(?:postgres(?:ql)?|mysql|mariadb|sqlite|mongo(?:db)?|dynamodb|cassandra|oracle db|mssql|sql server|cockroach(?:db)?|tidb|clickhouse|oceanbase|couchdb|neo4j)\b/iu },
  { en: 'cache', zh: '缓存', cue: /\b(?:redis|memcached?|valkey|varnish)\b/iu },
  { en: 'message queue', zh: '消息队列', cue: /\b(?:rabbitmq|kafka|sqs|nats|pulsar|activemq|zeromq|rocketmq|nsq)\b/iu },
  { en: 'search engine', zh: '搜索引擎', cue: /\b(?:elasticsearch|opensearch|solr|meilisearch|typesense|lucene)\b/iu },
  { en: 'editor', zh: '编辑器', cue: /\b(?:vim|neovim|nvim|emacs|vs ?code|visual studio code|intellij|webstorm|pycharm|sublime(?: text)?|helix|zed)\b/iu },
  { en: 'issue tracker', zh: '项目管理工具', cue: /\b(?:jira|linear|asana|trello|youtrack|clickup|shortcut|pivotal tracker)\b|禅道|tapd/iu },
  { en: 'CI', zh: 'CI', cue: /\b(?:jenkins|github actions|gitlab ci|circleci|travis(?: ci)?|buildkite|drone|teamcity)\b/iu },
  { en: 'cloud', zh: '云', cue: /\b(?:aws|gcp|google cloud|azure|digitalocean|hetzner|linode|vercel|netlify|heroku|fly\.io)\b|阿里云|腾讯云|华为云/iu },
  { en: 'frontend framework', zh: '前端框架', cue: /\b(?:react|vue|angular|svelte|solid(?:js)?|preact|next\.?js|nuxt)\b/iu },
  { en: 'package manager', zh: '包管理器', cue: /\b(?:npm|yarn|pnpm|bun|pip|poetry|uv|cargo|maven|gradle)\b/iu },
  { en: 'email provider', zh: '邮件服务商', cue: /\b(?:postmark|sendgrid|mailgun|ses|mailchimp|mandrill|sparkpost)\b/iu },
  { en: 'operating system', zh: '操作系统', cue: /\b(?:linux|macos|mac os|windows|ubuntu|debian|fedora|arch linux|centos)\b/iu },
  { en: 'language', zh: '语言', cue: /\b(?:python|golang|go|rust|java|typescript|javascript|ruby|kotlin|swift|php|scala|elixir|haskell|c\+\+|c#)\b/iu },
]

/** A person's categories: the only way a statement about a person becomes a slot. */
export const PERSONAL: readonly Category[] = [
  // Only the relation commuteForm gives, or the word itself: "上班" alone says where someone works.
  { en: 'commute', zh: '通勤', cue: /\bcommutes by\b|通勤|\bcommut(?:e|es|ing)\b/iu },
  { en: 'diet', zh: '饮食', cue: /素食|吃素|纯素|荤|吃肉|不吃|吃|饮食|肉|vegetarian|vegan|pescatarian|\bmeat\b|\beats?\b|\beating\b|\bdiet\b/iu },
  { en: 'home', zh: '住址', cue: /住在|住|搬到|搬去|居住|所在城市|城市|在[\p{Script=Han}]{1,3}[市省区县州京海圳都国岛港湾镇村城]$|\blives? in\b|\bliving in\b|\bmoved to\b|\bbased in\b|\bhome\b|\bcity\b/iu },
  // Before the name: "I have a cat named Tom" names the cat, not the user.
  { en: 'pet', zh: '宠物', cue: /宠物|猫|狗|仓鼠|鹦鹉|\bpets?\b|\bcats?\b|\bdogs?\b|\bkittens?\b|\bpupp(?:y|ies)\b|\bhamsters?\b/iu, several: true },
  { en: 'name', zh: '名字', cue: /名字|叫做|叫|\bname is\b|\bnamed\b|\bcalled\b/iu },
  { en: 'age', zh: '年龄', cue: /\d+\s*岁|[一二三四五六七八九十]+岁|\byears? old\b/iu },
  { en: 'employer', zh: '公司', cue: /(?<![现正存实所])在.+?(?:工作|上班)|就职|入职|\bworks? (?:at|for)\b|\bemployer\b/iu },
  {
    en: 'job',
    zh: '职业',
    cue: /工程师|程序员|设计师|医生|护士|老师|教师|学生|经理|律师|会计|厨师|记者|警察|作家|研究员|分析师|建筑师|药剂师|牙医|飞行员|自由职业|\b(?:engineer|developer|programmer|designer|doctor|nurse|teacher|student|manager|lawyer|accountant|chef|journalist|pharmacist|dentist|pilot|architect|analyst|freelancer)\b|\bworks? as\b/iu,
  },
  { en: 'timezone', zh: '时区', cue: /时区|\btime ?zone\b|\butc[+-]\d|\bgmt[+-]\d/iu },
  { en: 'language', zh: '语言', cue: /说中文|说英文|中文|英文|日语|德语|法语|\bspeaks?\b|\b(?:english|german|chinese|french|japanese|spanish|korean|mandarin)\b/iu },
  ...KINDS,
]

/**
 * A subject of a person's category that holds several values at once ("user pet", "用户 宠物"):
 * a new value stands beside the others; only a text that retires one replaces it.
 */
export function holdsSeveral(subject: string): boolean {
  const last = subject.replace(/\s*\[[^\]]*\]$/u, '').split(/\s+/u).pop() ?? ''
  return PERSONAL.some((c) => c.several === true && (last === c.en || last === c.zh))
}

/** Nouns that move from a value into its subject: "listens on port 9090" is about the port. */
export const EN_VALUE_NOUN = /^(?:on\s+|at\s+|in\s+)?(port|version|release|tag|branch|region|zone|plan|tier|channel|namespace|bucket|cluster|node|database|db|schema|table|queue|topic|floor|room|level|stage|step)\s+(.+)$/iu
export const ZH_VALUE_NOUN_AFTER = /^(.+?)\s*(端口|版本|分支|区域|机房|集群|数据库|队列)$/u
export const ZH_VALUE_NOUN_BEFORE = /^(端口|版本|分支|区域|机房|集群)\s*(?:号|为|是)?\s*(.+)$/u

/** When-words at a value's end: they say when it changed, not what it is. */
const VALUE_TAIL =
  /(?:\s+(?:over the weekend|yesterday|today|tonight|last (?:week|month|year|night|sprint)|this (?:week|month|year|sprint|morning)|(?:starting |from |as of |effective )?next (?:week|month|year|quarter|sprint|monday|tuesday|wednesday|thursday|friday)|(?:starting |from |effective )?tomorrow|in (?:january|february|march|april|may|june|july|august|september|october|november|december)|recently|again|for now|from now on|going forward|now|anymore|any more|as well|too)|\s*(?:了|啦|去年|今年|上周|上个月|昨天|今天|最近|以后|了呢|下周起|下个月起|下周开始|下个月开始))+$/iu

/** A second statement joined to the value ("vegetarian and doesn't eat meat"): not part of it. */
const JOINED_STATEMENT = /\s+(?:and|but|while|so|which)\s+(?:is|are|was|were|does|doesn't|do|don't|did|didn't|has|have|had|no longer|not|never|will|won't|can|can't|it|they|we|i)\b.*$/iu

export function stripValueEdges(v: string): string {
  return v
    .replace(JOINED_STATEMENT, '')
    .replace(/[\s"'“”‘’「」『』《》.。,，;；!！?？…]+$/gu, '')
    .replace(VALUE_TAIL, '')
    .replace(/^[\s"'“”‘’「」『』《》]+|[\s"'“”‘’「」『』《》.。,，;；!！?？…]+$/gu, '')
    .replace(/[了啦啊呀哦嘛吧]+$/u, '')
    .replace(/^(?:now|currently|still|also|actually|already|just|现在|目前|如今|已经|开始|也|都|还|就|改成)\s*/iu, '')
    .trim()
}

/** The kind of thing a value names ("MySQL" is a database), in English; null when none is known. */
export function kindOfValue(value: string): string | null {
  return categoryFor(value, KINDS)?.en ?? null
}

/** Every known thing of a kind a text names ("we host on GCP" names the cloud GCP), lower-case. */
export function kindMentions(text: string, kind: string): string[] {
  const c = KINDS.find((k) => k.en === kind)
  if (c === undefined) return []
  return unique([...text.matchAll(new RegExp(c.cue.source, 'giu'))].map((m) => m[0].toLowerCase()))
}

export function categoryFor(text: string, list: readonly Category[]): Category | null {
  for (const c of list) if (c.cue.test(text)) return c
  return null
}

export function named(subject: string, c: Category): boolean {
  const s = subject.toLowerCase()
  return s.includes(c.en.toLowerCase()) || s.includes(c.zh)
}

export function withCategory(subject: string, c: Category): string {
  return `${subject} ${hasHan(subject) ? c.zh : c.en}`
}

/** Moves a value's leading or trailing noun into the subject: "port 9090" -> subject "... port", value "9090". */
export function promoteValueNoun(subject: string, value: string): { subject: string; value: string } | null {
  // "pandas 1.5.3": a package and its version; the package is what the version is of.
  const pkg = /^([a-z][\w.+-]*)\s+v?(\d+(?:\.\d+)+)$/u.exec(value)
  if (pkg !== null && kindOfValue(pkg[1] as string) === null) return { subject: `${subject} ${pkg[1]}`, value: pkg[2] as string }
  const en = EN_VALUE_NOUN.exec(value)
  if (en !== null && /[\p{N}]|^[\w.-]+$/u.test(en[2] as string) && words(en[2] as string).length <= 2) {
    const noun = (en[1] as string).toLowerCase()
    return { subject: subject.toLowerCase().endsWith(noun) ? subject : `${subject} ${noun}`, value: en[2] as string }
  }
  const after = ZH_VALUE_NOUN_AFTER.exec(value)
  if (after !== null && /\p{N}/u.test(after[1] as string)) return { subject: subject.endsWith(after[2] as string) ? subject : `${subject} ${after[2]}`, value: after[1] as string }
  const before = ZH_VALUE_NOUN_BEFORE.exec(value)
  if (before !== null) return { subject: subject.endsWith(before[1] as string) ? subject : `${subject} ${before[1]}`, value: before[2] as string }
  return null
}

/** A place as people write one: a proper name ("Frankfurt", "São Paulo") or a region code ("us-central1", "eu-west-1"). */
const PLACE = /^(?:the\s+)?(?:\p{Lu}[\p{L}.'-]*(?:\s+\p{Lu}[\p{L}.'-]*){0,2}|[a-z]{2,}(?:-[a-z]+)+-?\d+[a-z]?)$/u

/** Capitalised, but a time: "in June", "in Q3", "in Spring". */
const CALENDAR = /^(?:the\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|spring|summer|autumn|fall|winter|christmas|easter|q[1-4]\b|h[12]\b)/iu

/**
 * "X is in Frankfurt" says where X is, as "X is located in Frankfurt" does: the same slot. Only a
 * place reads so; "is in June", "is in progress" and "is in review" stay a plain value.
 */
export function locatedIn(raw: Raw): Raw {
  // "I am in Berlin this week": where a person is today, not where they live.
  if (raw.relation !== 'copula' || raw.form !== 'relation' || /^(?:i|we|he|she|they|you)$/iu.test(raw.subject.trim())) return raw
  const m = /^in\s+(.+)$/u.exec(stripValueEdges(raw.value))
  return m !== null && PLACE.test(m[1] as string) && !CALENDAR.test(m[1] as string) ? { ...raw, relation: 'lives in', value: m[1] as string } : raw
}

/** Single words that name an attribute, not a speaker, before a colon ("Region: eu-west-1"). */
export const ATTRIBUTE_WORDS = new Set(
  (
    'region zone owner status deadline version port host hostname branch env environment timezone language editor database db cache queue ' +
    'broker provider vendor plan tier price budget limit quota timeout ttl schedule cron endpoint url domain bucket cluster namespace ' +
    'runtime framework os shell theme font locale currency stack ci cd registry image tag release platform model manager lead oncall'
  ).split(' '),
)

/** A value that reads as a value (a number, an identifier, a known kind of thing), not as a line of talk. */
export function valueLike(v: string): boolean {
  return /\d|[-_./@#]\S/u.test(v) || categoryFor(v, KINDS) !== null
}
