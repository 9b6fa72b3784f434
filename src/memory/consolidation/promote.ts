/**
 * Promote: which episodes say one fact that deserves to be a topic. A statement repeated in two
 * or more sessions (in other words too), or confirmed by the user, is knowledge; a one-off stays
 * an episode. A fact is a subject and what is said of it, so two episodes state the same thing when:
 *
 * - both name one subject (claim-extract.ts) with the same value (and never when the values
 *   differ: "port 8080" and "port 9090" are two facts);
 * - both name subjects of their own: never when they give different values ("订单服务监听 9001 端口",
 *   "库存服务监听 9002 端口"), nor when the subjects share a word but each has words the other
 *   statement never says (one attribute of two owners, "支付回调的超时" and "连接池的获取超时", both 30
 *   秒; or two attributes of one owner); words compare within one language only;
 * - one names a subject and a value: the other says a word or number of that value ("Scaled the
 *   Aurora PostgreSQL cluster" restates "the production database is Aurora PostgreSQL"; "给订单服务加了
 *   指标" does not restate its port);
 * - and in every case: the words they share weigh at least SAME_STATEMENT of both (IDF over the
 *   sessions of the store, strong terms, who-said-what words left out: "the user mentioned again
 *   that"), the shared words include a name, number or identifier (what a fact is about: "Neovim",
 *   "9090", "eu-west-1", "acme-tfstate"), and no number or version in one contradicts one in the
 *   other.
 *
 * A group is a set of such statements, each with every other (joined best pair first: no chain
 * a -> b -> c of three facts). A group whose value a later statement changes ("moved the lesson to
 * Thursdays", "周会改到周二") is not promoted: the new value is, once said twice or confirmed.
 * Chatter (greetings, thanks) is never a fact; reports of what was done ("Fixed a stale
 * LaunchDarkly flag") support a fact they name in passing but never make one alone. Pure: the
 * engine (consolidate.ts) writes.
 */

import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import { bigramJaccard, normalizeSlot } from '../../text.js'
import type { IndexEntry } from '../../types.js'
import { changeCues, deriveClaim, type DerivedClaim } from '../truth/claim-extract.js'
import { compareValues, valueAtoms, type ValueAtoms } from '../truth/claim-value.js'
import { sameSubject } from '../truth/verify.js'

/** Weight of the shared words that name something, over the geometric mean of both episodes' weights, for one fact. */
export const SAME_STATEMENT = 0.05
/** When only numbers are shared among the names, the share of all their words that must agree. */
export const NUMBER_ONLY = 0.3
/** A word in more than this share of the sessions (and more than COMMON_FLOOR of them) names nothing in particular. */
export const COMMON_SHARE = 0.2
export const COMMON_FLOOR = 6
/** Groups this similar (or spanning three sessions, or confirmed) are promoted active; thinner ones wait for confirmation. */
export const STRONG_STATEMENT = 0.5
/** Statements this similar (character 2-grams, who said it left out) say the same thing in nearly the same words. */
export const RESTATES = 0.6

const CHATTER =
  /^(?:(?:the\s+)?user\s+)?(?:(?:said|says|sent|wrote|greeted(?:\s+the\s+assistant)?(?:\s+with)?)\s+)?(?:hello|hi|hey|good\s+(?:morning|afternoon|evening|night)|thanks?|thank(?:ed)?\s+(?:you|the\s+assistant)|bye|goodbye|see\s+you)\b|^(?:用户)?(?:说了?|发了)?(?:你好|您好|早上好|下午好|晚上好|谢谢|感谢|多谢|再见|拜拜|晚安)/iu

/** Who said it, not what: left out of the words compared. */
const REPORTING = /^(?:said|say|says|mention|mentioned|again|told|tell|note|noted|remind|reminded|repeat|repeated|confirm|confirmed|user|users|assistant|also|still|stated|state|用户|助手)$|[说提又再]/u
/** A report of something done, not a fact: "Reviewed the payment PR", "修复了登录测试". */
const DONE_REPORT =
  /^(?:(?:we|i|the\s+team|the\s+assistant)\s+)?(?:fixed|implemented|added|removed|reviewed|merged|refactored|deployed|wrote|ran|tested|debugged|investigated|looked\s+into|discussed|set\s+up|updated|created|shipped|helped|answered|explained)\b|^(?:我们|我|助手)?(?:修复|实现|添加|删除|评审|审查|合并|重构|部署|排查|调试|讨论|帮|回答|解释)了?/iu
/**
 * Small talk told as such: that someone chatted (about a film, the weekend), the day's weather or
 * tiredness. A remark of the day, not knowledge: never promoted unless it names a subject
 * ("用户闲聊时提到自己住在杭州" does). Small talk said again in other words (sessions apart) is
 * merged: one record holds its lines word for word (consolidate.ts); a line said again word for
 * word is one memory already (the write path's dedupe).
 */
const SMALL_TALK =
  /(?:随便|简单)?聊了聊?|闲聊|寒暄|天气(?:不错|很好|真好|不好|挺好)|(?:有点|好|很)累|\b(?:chatted|chit-?chat|small\s+talk)\b|\btalked\s+about\s+(?:the\s+weather|(?:a|the)\s+(?:film|movie|book|show))\b|\bweather\s+(?:is|was)\s+(?:nice|great|lovely|bad|good)\b|\b(?:feels?|felt|feeling|is|was|am|i'm)\s+(?:a\s+bit\s+|so\s+|very\s+)?tired\b/iu
/** Both give numbers (versions, ports, amounts), and they disagree: two facts, however alike the words. */
function numbersDiffer(a: Prepared, b: Prepared): boolean {
  return compareValues({ numbers: a.numbers, words: [] }, { numbers: b.numbers, words: [] }) === 'different'
}

/**
 * The later statement announces a change ("moved the admin API to port 9090 to free 8080", "周会改到
 * 周二下午两点"), the earlier does not, and the later gives a number the earlier lacks: the new value,
 * not a restatement of the old.
 */
function newValue(earlier: Prepared, later: Prepared): boolean {
  if (later.c.entry.time <= earlier.c.entry.time || !later.changes || earlier.changes || earlier.numbers.length === 0) return false
  return later.numbers.some((n) => !earlier.numbers.some((m) => compareValues({ numbers: [n], words: [] }, { numbers: [m], words: [] }) === 'same'))
}

/** How two statements relate: one fact ({ share }), one subject given another value, or nothing (null). */
type Link = { share: number } | typeof OTHER_VALUE | null
const OTHER_VALUE = 'other-value'

const CALENDAR = /^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)|^(?:周[一二三四五六日天末]|星期|[上下]午|今天|明天|昨天|每天|月底|月初)$/u

/** The number written right after the word term begins ("iOS 17" -> "17"), or null. */
function numberAfter(term: string, text: string): string | null {
  for (const m of text.matchAll(/([\p{L}][\p{L}\d.+#-]*)\s*v?(\d[\d.]*)/gu)) if ((m[1] as string).toLowerCase().startsWith(term)) return m[2] as string
  return null
}

/** Both texts give the word a number of its own, and the numbers differ. */
function numberedDifferently(term: string, a: string, b: string): boolean {
  const x = numberAfter(term, a)
  const y = numberAfter(term, b)
  return x !== null && y !== null && x !== y
}

/** A word that names what a fact is about: with a digit, Latin inside Chinese text, capitalised past a sentence's start, or part of an identifier. */
function namesSomething(term: string, text: string): boolean {
  // A date is a value many facts share ("due April 15"), not what one is about.
  if (CALENDAR.test(term)) return false
  if (/\d/.test(term)) return true
  if (/\p{Script=Han}/u.test(term) || (/^[a-z]/.test(term) && /\p{Script=Han}/u.test(text))) return true
  for (const m of text.matchAll(/[\p{L}\d][\p{L}\d.+#-]*/gu)) {
    const word = m[0]
    if (m.index === 0 || !word.toLowerCase().startsWith(term)) continue
    if (/^\p{Lu}/u.test(word) || /\p{Ll}\p{Lu}/u.test(word)) return true
  }
  // A part of an identifier ("acme-tfstate", "pnpm-lock.yaml", "acme/platform").
  for (const m of text.matchAll(/[\p{L}\d]+(?:[-./_+][\p{L}\d]+)+/gu)) if (m[0].toLowerCase().split(/[-./_+]/u).some((part) => part.startsWith(term))) return true
  return false
}

export interface Candidate {
  entry: IndexEntry
  /** The sessions it was said in (an exact repeat in another session is the same memory with one more source). */
  sessions: string[]
  /** Confirmed by the user (memory_confirm, or written by the user). */
  confirmed: boolean
}

export interface PromotionGroup {
  /** Members, oldest first. */
  members: IndexEntry[]
  sessions: string[]
  confirmed: boolean
  /** The lowest similarity that joined two members (1 for a confirmed single statement). */
  similarity: number
  /** The member whose text the topic takes. */
  text: IndexEntry
  /** Small talk said again (SMALL_TALK): no fact; its lines are folded word for word, not promoted. */
  smallTalk: boolean
}

interface Prepared {
  c: Candidate
  terms: Set<string>
  /** What it asserts, with its value's atoms read once. */
  claim: (DerivedClaim & { atoms: ValueAtoms }) | null
  /** The numbers of its text (versions, ports, amounts), read once. */
  numbers: ValueAtoms['numbers']
  /** Small talk (SMALL_TALK, naming no subject): joins only small talk. */
  talk: boolean
  /** It announces a change (changeCues: "now", "moved", "改到"). */
  changes: boolean
  /** A report of something done (DONE_REPORT): it restates a fact in passing, never states one alone. */
  done: boolean
  /** The strong words of its claim's value (empty without a claim). */
  value: string[]
  /** The strong words of its claim's subject (empty without a claim). */
  subject: Set<string>
}

/**
 * The subjects share a word (the attribute, "超时", or the owner, "李强") and each has words of its
 * own that the other statement never uses ("支付回调" and "数据库连接池", "生日" and "爱好"): the
 * two statements are about different things, however alike the rest.
 */
function otherOwners(a: Prepared, b: Prepared): boolean {
  const [x, y] = [a.subject, b.subject]
  if (!saidSubject(a, b)) return false
  const [ownX, ownY] = [[...x].filter((t) => !y.has(t)), [...y].filter((t) => !x.has(t))]
  return ownX.length > 0 && ownY.length > 0 && !ownX.some((t) => b.terms.has(t)) && !ownY.some((t) => a.terms.has(t))
}

/** Written in Chinese (a Latin name inside, "用 GoLand 写 Go", does not make it English). */
function isChinese(p: Prepared): boolean {
  return /\p{Script=Han}/u.test(p.c.entry.summary)
}

/** Their subjects share a word said in both statements (not only a kind the claim reading added: "使用"). */
function saidSubject(a: Prepared, b: Prepared): boolean {
  return [...a.subject].some((t) => b.subject.has(t) && a.terms.has(t) && b.terms.has(t))
}

/** It names a subject and a value, and the other statement says no word or number of that value. */
function missesValue(a: Prepared, b: Prepared): boolean {
  if (a.claim === null || b.claim !== null || a.value.length === 0) return false
  return !a.value.some((t) => b.terms.has(t))
}

/** The words compared: strong terms, who said it left out. */
function strongTerms(text: string): string[] {
  return tokenize(text).filter((t) => isStrongTerm(t) && !REPORTING.test(t))
}

/** Greetings and thanks, or fewer than two words of content: not a fact. */
export function isChatter(summary: string, terms: ReadonlySet<string>): boolean {
  return CHATTER.test(summary.trim()) || terms.size < 2
}

/** A statement without who said it: "The user mentioned again that Neovim is their editor" -> "Neovim is their editor". */
export function reported(summary: string): string {
  return summary
    .trim()
    .replace(/^(?:the\s+)?user\s+(?:has\s+)?(?:said|says|mentioned|noted|stated|confirmed|repeated|reminded(?:\s+(?:me|us|the\s+assistant))?|told\s+(?:me|us|the\s+assistant))(?:\s+again)?(?:\s+that)?\s+/iu, '')
    .replace(/^用户(?:又|再次|还)?(?:说|提到|表示|强调|重申|确认)(?:过|了)?(?:一次)?[，,：:]?\s*/u, '')
}

const NARRATION = /\b(?:said|says|mentioned|mentions|noted|again|told|reminded|repeated|confirmed)\b|提到|说过|又说|再次|重申|提醒/giu

/** The member a topic is made of: one that names its subject, says least about who said it, the newest. */
function bestText(members: readonly Prepared[]): IndexEntry {
  const narration = (p: Prepared) => (p.c.entry.summary.match(NARRATION) ?? []).length
  return [...members].sort(
    (a, b) => Number(a.done) - Number(b.done) || Number(b.claim !== null) - Number(a.claim !== null) || narration(a) - narration(b) || b.c.entry.time.localeCompare(a.c.entry.time),
  )[0]?.c.entry as IndexEntry
}

/**
 * The facts among the candidates: groups of episodes that state one thing, spanning two or more
 * sessions or confirmed. Oldest group first (by its newest member), members oldest first.
 */
export function promotionGroups(candidates: readonly Candidate[]): PromotionGroup[] {
  const prepared: Prepared[] = []
  for (const c of candidates) {
    const terms = new Set(strongTerms(c.entry.summary))
    const statement = reported(c.entry.summary)
    const derived = deriveClaim(statement)
    const claim = derived === null ? null : { ...derived, atoms: valueAtoms(derived.value) }
    if (isChatter(c.entry.summary, terms)) continue
    prepared.push({ c, terms, claim, done: claim === null && DONE_REPORT.test(statement), numbers: valueAtoms(c.entry.summary).numbers, talk: claim === null && SMALL_TALK.test(statement), subject: new Set(claim === null ? [] : strongTerms(claim.subject)), value: claim === null ? [] : strongTerms(claim.value), changes: changeCues(statement).length > 0 })
  }
  const sessions = new Set(prepared.flatMap((p) => p.c.sessions))
  // Document frequency by session: a word every session uses links nothing.
  const df = new Map<string, Set<string>>()
  for (const p of prepared) for (const t of p.terms) for (const session of p.c.sessions) (df.get(t) ?? df.set(t, new Set()).get(t) as Set<string>).add(session)
  const idf = (t: string) => Math.log(1 + sessions.size / (df.get(t)?.size ?? 1))
  const weight = (terms: Iterable<string>) => [...terms].reduce((sum, t) => sum + idf(t), 0)
  // Each episode's own weight, once: every pair it is in divides by it.
  const mass = prepared.map((p) => weight(p.terms))
  // A name most sessions use ("Redis" in a store about one stack) says what the store is about, not which fact.
  const common = (t: string) => (df.get(t)?.size ?? 0) > Math.max(COMMON_FLOOR, COMMON_SHARE * sessions.size)

  // How two statements relate: one fact (with how alike they are), one subject given another
  // value (a change when the later one announces it), or nothing.
  const link = (i: number, j: number): Link => {
    const a = prepared[i] as Prepared
    const b = prepared[j] as Prepared
    // Small talk says the same as small talk only: never a fact's restatement.
    if (a.talk !== b.talk) return null
    let otherValue = false
    // Words tell two subjects or two values apart only within one language: "支付 API 超时" and
    // "payment API timeout" share no word of their own and are one fact.
    const oneLanguage = isChinese(a) === isChinese(b)
    if (a.claim !== null && b.claim !== null) {
      const values = compareValues(a.claim.atoms, b.claim.atoms)
      // Both name one subject: the same fact when the values agree, another value when they differ.
      if (sameSubject(a.claim.subject, b.claim.subject)) return a.claim.negated === b.claim.negated && values === 'same' ? { share: 1 } : OTHER_VALUE
      // One attribute of two owners, or two attributes of one owner: two facts, even with one value.
      if (oneLanguage && otherOwners(a, b)) return null
      // Two values are never one fact, whatever words they share ("订单服务监听 9001 端口" and "库存服务监听
      // 9002 端口"); when the words name one thing, the later may be its new value.
      otherValue = oneLanguage && values === 'different'
    }
    // One names a subject and its value: the other restates it only by saying something of that
    // value ("Scaled the Aurora PostgreSQL cluster" for "the production database is Aurora
    // PostgreSQL"), not by naming the subject alone ("给订单服务加了 Prometheus 指标" for "订单服务监听 9001 端口").
    if (!otherValue && oneLanguage && (a.claim === null) !== (b.claim === null)) {
      const [named, other] = a.claim !== null ? [a, b] : [b, a]
      // It says all the subject's words but none of the value's: the subject given another value.
      if (missesValue(named, other)) return named.subject.size > 0 && [...named.subject].every((t) => other.terms.has(t)) ? OTHER_VALUE : null
    }
    // What they share that names something (a name, a number, a Chinese word), weighed against both.
    const shared = [...a.terms].filter((t) => b.terms.has(t))
    const anchors = shared.filter((t) => !common(t) && (namesSomething(t, a.c.entry.summary) || namesSomething(t, b.c.entry.summary)))
    if (otherValue) return anchors.length > 0 || saidSubject(a, b) ? OTHER_VALUE : null
    // A thing done restates a fact in passing: one with a subject and a value, or one it shares a
    // name, number or identifier with ("Deployed … to Fly.io"), not a plan it shares a word with
    // ("用户下周要去深圳出差" and "帮用户订了出差期间的酒店").
    const done = (a.done && b.claim === null) || (b.done && a.claim === null)
    if (anchors.length === 0 || (done && anchors.every((t) => /\p{Script=Han}/u.test(t)))) return null
    if (newValue(a, b) || newValue(b, a)) return OTHER_VALUE
    // Numbers that disagree make two facts, unless they share a name too ("9:00 UTC" and "10:00
    // Lisbon time"), and never when the number is the name's own ("iOS 16" and "iOS 17").
    if (numbersDiffer(a, b) && (!anchors.some((t) => !/\d/.test(t)) || anchors.some((t) => numberedDifferently(t, a.c.entry.summary, b.c.entry.summary)))) return null
    const both = Math.sqrt((mass[i] as number) * (mass[j] as number))
    // A number alone ties no two statements together ("due April 15" twice): the rest of what they
    // say must agree too.
    if (anchors.every((t) => /^\d[\d.,:]*$/.test(t))) {
      const all = weight(shared) / both
      return all >= NUMBER_ONLY ? { share: all } : null
    }
    const share = weight(anchors) / both
    return share >= SAME_STATEMENT ? { share } : null
  }
  // Each pair is read once: joining groups and looking for later changes ask again.
  const links = new Map<number, Link>()
  const linked = (i: number, j: number): Link => {
    const key = Math.min(i, j) * prepared.length + Math.max(i, j)
    if (!links.has(key)) links.set(key, link(Math.min(i, j), Math.max(i, j)))
    return links.get(key) as Link
  }
  /** How alike two statements of one fact are; 0 when they are not one fact. */
  const similarity = (i: number, j: number): number => {
    const l = linked(i, j)
    return l === null || l === OTHER_VALUE ? 0 : l.share
  }
  /**
   * A later statement announces a change of what the group says ("User switched the spin class to
   * Wednesdays at 6pm" after "User's spin class is on Tuesdays at 7pm", "周会改到周二下午两点了"): the
   * old value is not promoted, whether or not the new one is.
   */
  const changedSince = (group: readonly number[], later: number): boolean => {
    const x = prepared[later] as Prepared
    if (!x.changes || group.some((m) => m === later || (prepared[m] as Prepared).c.entry.time >= x.c.entry.time)) return false
    return group.some((m) => linked(m, later) === OTHER_VALUE)
  }

  // Pairs from different sessions that state one fact, most alike first.
  const byTerm = new Map<string, number[]>()
  prepared.forEach((p, i) => p.terms.forEach((t) => (byTerm.get(t) ?? byTerm.set(t, []).get(t) as number[]).push(i)))
  const pairs: Array<[number, number, number]> = []
  for (let i = 0; i < prepared.length; i++) {
    const a = prepared[i] as Prepared
    const seen = new Set<number>()
    for (const t of a.terms) {
      for (const j of byTerm.get(t) ?? []) {
        if (j <= i || seen.has(j)) continue
        seen.add(j)
        const b = prepared[j] as Prepared
        if (a.c.sessions.every((x) => b.c.sessions.includes(x)) && b.c.sessions.every((x) => a.c.sessions.includes(x))) continue
        const s = similarity(i, j)
        if (s > 0) pairs.push([i, j, s])
      }
    }
  }
  pairs.sort((x, y) => y[2] - x[2] || x[0] - y[0] || x[1] - y[1])

  // Groups, joined best pair first; two groups join only when every member of one states the
  // fact of every member of the other (a -> b -> c by different words would make one topic of
  // three facts, and "李强的生日" would take "李强喜欢摄影" along).
  const parent = prepared.map((_, i) => i)
  const weakest = prepared.map(() => 1)
  const joined = prepared.map((_, i) => [i])
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i] as number)))
  for (const [i, j, s] of pairs) {
    const [ra, rb] = [find(i), find(j)]
    if (ra === rb) continue
    const [ma, mb] = [joined[ra] as number[], joined[rb] as number[]]
    if (!ma.every((x) => mb.every((y) => (x === i && y === j) || similarity(x, y) > 0))) continue
    parent[rb] = ra
    joined[ra] = [...ma, ...mb]
    weakest[ra] = Math.min(weakest[ra] as number, weakest[rb] as number, s)
  }

  const groups = new Map<number, number[]>()
  prepared.forEach((_, i) => (groups.get(find(i)) ?? groups.set(find(i), []).get(find(i)) as number[]).push(i))
  const out: PromotionGroup[] = []
  for (const [root, indexes] of groups) {
    const members = indexes.map((i) => prepared[i] as Prepared)
    const inSessions = [...new Set(members.flatMap((m) => m.c.sessions))]
    const confirmed = members.some((m) => m.c.confirmed)
    if (inSessions.length < 2 && !confirmed) continue
    members.sort((a, b) => a.c.entry.time.localeCompare(b.c.entry.time) || a.c.entry.id.localeCompare(b.c.entry.id))
    const smallTalk = members.every((m) => m.talk)
    // Small talk is merged, not promoted: a line said again in another session is one memory already.
    if (smallTalk && members.length < 2) continue
    // Things done are events: they support a fact someone states, they make none.
    if (members.every((m) => m.done)) continue
    // The value changed since ("the spin class moved to Wednesdays"): the old one is not promoted.
    if (prepared.some((_, x) => changedSince(indexes, x))) continue
    out.push({ members: members.map((m) => m.c.entry), sessions: inSessions, confirmed, similarity: weakest[root] as number, text: bestText(members), smallTalk })
  }
  return out.sort((a, b) => (a.members.at(-1) as IndexEntry).time.localeCompare((b.members.at(-1) as IndexEntry).time))
}

/** Whether a group is evidence enough to promote as active; thinner evidence goes through the confirmation gate. */
export function strongEvidence(g: PromotionGroup): boolean {
  return g.confirmed || g.sessions.length >= 3 || g.similarity >= STRONG_STATEMENT
}

/**
 * Whether a topic's text holds what an episode says, so that the episode may leave search without
 * losing a word of it: the episode's words are in the topic (an exchange, a topic made of its
 * text), or both state one subject with the same value, or they restate each other (RESTATES). A
 * group joined on looser grounds ("李强的生日…" and "李强喜欢摄影…") covers the others in name only:
 * those stay searchable. Pure.
 */
export function holdsStatement(topic: string, episode: string): boolean {
  const [t, e] = [reported(topic), reported(episode)]
  const said = normalizeSlot(e)
  if (said !== '' && normalizeSlot(t).includes(said)) return true
  const [x, y] = [deriveClaim(t), deriveClaim(e)]
  if (x !== null && y !== null && sameSubject(x.subject, y.subject)) return x.negated === y.negated && compareValues(valueAtoms(x.value), valueAtoms(y.value)) === 'same'
  return bigramJaccard(t, e) >= RESTATES
}
