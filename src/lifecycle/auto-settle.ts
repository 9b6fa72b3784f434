/**
 * Auto-settle, the rules: which host messages a person typed, and which of their sentences are
 * facts or preferences worth a suggested memory. Pure and rule-based (no LLM, no network).
 *
 * Owns the host message shapes it reads, the user-typed whitelist, and the seed's ordered
 * extraction rules. It must never write anything (auto-settle-writer.ts is the one place
 * candidates become memories) and never mutate a host message: they are deep-frozen objects
 * shared with the host. The word lists are deliberately conservative: a missed fact costs one
 * memory, a wrong one pollutes the store.
 */

import { INJECTION_HEADING } from '../memory/reading/inject.js'
import { collapseWhitespace, sha1 } from '../text.js'

/** The seven content block types of a host message; only `text` is ever read here. */
export type HostBlockType = 'text' | 'reasoning' | 'image' | 'file' | 'tool-call' | 'tool-addition' | 'tool-removal'

export interface HostContentBlock {
  readonly type: HostBlockType
  readonly text?: string
}

/**
 * Who produced a message. The host puts its own injections (agent instructions, runtime context,
 * skill catalog, time, approvals) into user-role messages too; `kind` and `rpcId` tell them apart.
 */
export interface HostMessageSource {
  readonly kind: string
  readonly rpcId?: string
}

/** The part of a host message (`session.deriveMessages()`) that auto-settle reads. */
export interface HostMessage {
  readonly role: string
  readonly content: readonly HostContentBlock[]
  readonly source?: HostMessageSource
}

export { INJECTION_HEADING }

/**
 * The whitelist: a user-role message typed into the chat box. With a source this is the host's
 * own rule (hasPromptRequest): kind "user" and a non-empty rpcId, so kind filters out the
 * injections and rpcId the other producers of kind "user" (/plan prompts, sub-agent resumes,
 * SDK submissions). Without a source (older hosts) only text free of our injection heading.
 */
export function isUserTyped(message: HostMessage): boolean {
  if (message.role !== 'user') return false
  const source = message.source
  if (source === undefined || source === null) return !messageText(message).includes(INJECTION_HEADING)
  return source.kind === 'user' && typeof source.rpcId === 'string' && source.rpcId !== ''
}

/** The text blocks of a message joined by newlines; reasoning, files, images and tools are left out. */
export function messageText(message: HostMessage): string {
  if (!Array.isArray(message.content)) return ''
  const parts: string[] = []
  for (const block of message.content) {
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text)
  }
  return parts.join('\n')
}

export interface UserTypedMessage {
  /** Stable across calls and index shifts: the rpcId and the text, hashed. */
  key: string
  /** The whole message text, the raw of any memory settled from it. */
  text: string
}

/** The user-typed messages of a session, oldest first. */
export function userTypedMessages(messages: readonly HostMessage[]): UserTypedMessage[] {
  const out: UserTypedMessage[] = []
  for (const message of messages) {
    if (!isUserTyped(message)) continue
    const text = messageText(message)
    out.push({ key: sha1(`${message.source?.rpcId ?? ''}\u0000${text}`), text })
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Extraction rules, in the seed's order: strip code and URLs, length >= 12, no question mark,
// no Chinese question particle, no imperative opening, at least one strong signal.

/** The five signal classes; the ones a sentence hits become its tags. */
export const SIGNAL_CLASSES = ['记住', '偏好', '约定', '环境', '身份'] as const
export type SignalClass = (typeof SIGNAL_CLASSES)[number]

export const AUTO_SETTLE_TAG = 'auto-settle'
export const MIN_SENTENCE_CHARS = 12

/** The seed's list: opinions asked for without a question mark are still questions. */
export const QUESTION_PARTICLES = ['好不好', '能不能', '够不够', '是不是', '行不行', '要不要', '有没有', '怎么样', '如何'] as const

/**
 * Beyond the seed's list (which is Chinese only): a sentence ending in 吗, and English sentences
 * that open like a question. Both only drop more, which is the safe direction.
 */
const QUESTION_ENDING = /吗[\s。.!！~～…]*$/u
const ENGLISH_QUESTION_OPENING =
  /^(?:what|why|how|when|where|which|who|whose|whom|is|are|am|was|were|does|did|do(?!\s+not\b)|should|shall|any idea|i wonder)\b/i

/** Requests to do work, not knowledge. 记住 is deliberately absent: "记住…" states a fact to keep. */
const IMPERATIVE_OPENINGS_ZH = [
  '帮我', '帮忙', '请', '麻烦', '看下', '看一下', '看看', '查一下', '查下', '查查', '搜一下', '试一下', '试试',
  '给我', '你去', '你帮', '去把', '先把', '运行一下', '跑一下', '改一下', '修一下', '写一个', '写个',
] as const
const IMPERATIVE_OPENING_EN =
  /^(?:please|pls|plz|kindly|can you|could you|would you|will you|can u|help me|let's|let us|lets|go ahead|try|check|look at|take a look|run|fix|make|add|create|write|show me|tell me|give me|find|search|update|change|delete|remove|rename|refactor|implement|continue)\b/i

interface SignalRules {
  words: readonly string[]
  patterns: readonly RegExp[]
}

// Identity needs a concrete noun after the user's own "我的 / my": the bare "我的…是" shape would
// also catch "我的意思是 / 我的问题是", which are ways of speaking, not statements about oneself.
// "我们的" is the team's, not the user's: it stays with the other classes.
const IDENTITY_NOUNS_ZH = '名字|电脑|机器|手机|项目|账号|账户|环境|系统|版本|工作区'
const IDENTITY_NOUNS_EN = 'name|computer|laptop|desktop|machine|phone|project|account|username|environment|system|os|version|workspace'
const NOT_IDENTITY_ZH = '意思|问题|想法|看法|观点|建议|理解|意见|需求|目的|目标|疑问|重点|结论'
const NOT_IDENTITY_EN = 'point|question|idea|guess|concern|thought|bad|understanding|goal|issue'

const SIGNALS: Readonly<Record<SignalClass, SignalRules>> = {
  记住: {
    words: ['记住', '记一下', '记下来', '别忘了', '别忘记', '不要忘了', '不要忘记', '牢记'],
    patterns: [/^remember\b/i, /\bremember (?:that|this)\b/i, /\bremember:/i, /\bkeep in mind\b/i, /\b(?:don'?t|do not) forget\b/i, /\bfor future reference\b/i, /\bfor the record\b/i],
  },
  偏好: {
    words: ['喜欢', '偏好', '偏爱', '习惯用', '习惯于', '倾向于', '更愿意', '宁可', '宁愿', '讨厌', '首选', '不要用', '不想用'],
    patterns: [
      /(?<!特)别用/u, // 别用 "don't use", not 特别用 "especially"
      /\bprefer(?:s|red|ence|ences)?\b/i,
      /\bI(?:'d| would) rather\b/i,
      /\bI (?:really |much |strongly )?(?:like|love|hate|dislike|don'?t like|do not like)\b/i,
      /\bmy (?:favou?rite|go-to)\b/i,
      /\bI (?:always|usually|normally|never) use\b/i,
      /\b(?:don'?t|do not) use\b/i,
    ],
  },
  约定: {
    words: ['约定', '规定', '一律', '统一用', '统一使用', '以后都', '今后都', '从现在起', '从今以后', '永远不要', '绝对不要', '不允许', '禁止', '都必须', '必须用', '必须使用', '代码规范', '命名规范'],
    patterns: [
      /\bconventions?\b/i,
      /\bwe (?:agreed|decided)\b/i,
      /\b(?:the|our|team|house) rules? (?:is|are)\b/i,
      /\bfrom now on\b/i,
      /\bgoing forward\b/i,
      /\b(?:always|never) (?:use|write|commit|push|merge|deploy|run)\b/i,
      /\b(?:must|should) (?:always|never)\b/i,
      /\bstyle guide\b/i,
    ],
  },
  环境: {
    words: ['环境', '部署在', '部署到', '运行在', '跑在', '数据库用', '数据库是', '服务器是', '服务器用', '服务器在', '操作系统', '集群是', '集群在'],
    patterns: [
      /\benvironment\b/i,
      /\b(?:deployed|hosted|running|runs) (?:on|to|in|at)\b/i,
      /\bin (?:production|prod|staging)\b/i,
      /\b(?:production|prod|staging|dev) (?:server|cluster|database|db|box|machine)s?\b/i,
      /\b(?:our|the) (?:database|db|server|cluster) (?:is|runs|uses)\b/i,
      /\boperating system\b/i,
    ],
  },
  身份: {
    words: [],
    patterns: [
      new RegExp(`我(?:的(?!${NOT_IDENTITY_ZH})|这台|那台|自己的|用的)[^是，。,；;！!]{0,12}?(?:${IDENTITY_NOUNS_ZH})`, 'u'),
      new RegExp(`\\bmy (?!(?:${NOT_IDENTITY_EN})\\b)(?:(?!(?:is|was|are)\\b)[\\w.-]+ ){0,2}?(?:${IDENTITY_NOUNS_EN})\\b`, 'i'),
    ],
  },
}

export type DropReason = 'too-short' | 'question-mark' | 'question-particle' | 'imperative' | 'no-signal'
export type Judgement = { kept: true; classes: SignalClass[] } | { kept: false; reason: DropReason }

export interface Candidate {
  /** The sentence, code and URLs stripped: the summary of the memory. */
  text: string
  /** The signal classes it hit, in SIGNAL_CLASSES order. */
  classes: SignalClass[]
}

/** Fenced code first (it may span lines and hold backticks), then inline code, then URLs. */
function stripCodeAndUrls(text: string): string {
  return text
    .replace(/(```|~~~)[\s\S]*?(?:\1|$)/g, '\n')
    .replace(/`[^`\n]*`/g, ' ')
    .replace(/\b(?:https?|ftp|file):\/\/[\x21-\x7e]*/gi, ' ')
    .replace(/\bwww\.[\x21-\x7e]+/gi, ' ')
}

/**
 * Sentences of a message: split after Chinese and English sentence punctuation (a period only
 * before whitespace, so 22.04 and Fly.io stay whole) and at newlines. Terminators stay attached,
 * so rule 3 still sees a question mark. List, quote and heading markers are dropped.
 */
function splitSentences(text: string): string[] {
  return text
    .split(/\n|(?<=[。！？!?；;…])|(?<=\.)(?=\s)/u)
    .map((s) => collapseWhitespace(s).replace(/^(?:[-*+•>#]+\s*|\d{1,3}(?:[.)]\s+|、\s*))+/u, ''))
    .filter((s) => s !== '')
}

/** Rules 2 to 6 for one stripped sentence; the first rule it fails names the drop. */
function judgeSentence(sentence: string): Judgement {
  if (Array.from(sentence).length < MIN_SENTENCE_CHARS) return { kept: false, reason: 'too-short' }
  if (/[?？]/u.test(sentence)) return { kept: false, reason: 'question-mark' }
  if (QUESTION_PARTICLES.some((p) => sentence.includes(p)) || QUESTION_ENDING.test(sentence) || ENGLISH_QUESTION_OPENING.test(sentence))
    return { kept: false, reason: 'question-particle' }
  if (IMPERATIVE_OPENINGS_ZH.some((w) => sentence.startsWith(w)) || IMPERATIVE_OPENING_EN.test(sentence))
    return { kept: false, reason: 'imperative' }
  const classes = SIGNAL_CLASSES.filter((c) => {
    const rules = SIGNALS[c]
    return rules.words.some((w) => sentence.includes(w)) || rules.patterns.some((p) => p.test(sentence))
  })
  return classes.length === 0 ? { kept: false, reason: 'no-signal' } : { kept: true, classes }
}

/** Every sentence of a message (code and URLs stripped) with the rule that kept or dropped it. */
export function judgeMessage(text: string): { sentence: string; judgement: Judgement }[] {
  return splitSentences(stripCodeAndUrls(text)).map((sentence) => ({ sentence, judgement: judgeSentence(sentence) }))
}

/** The sentences of a message that pass every rule, in message order. */
export function extractCandidates(text: string): Candidate[] {
  const out: Candidate[] = []
  for (const { sentence, judgement } of judgeMessage(text)) {
    if (judgement.kept) out.push({ text: sentence, classes: judgement.classes })
  }
  return out
}
