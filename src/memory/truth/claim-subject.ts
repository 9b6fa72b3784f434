/**
 * Subject reading: a subject cleaned so that two phrasings of one subject give one slot
 * (articles, possessives, adverbs, 的 removed; "Y of X" read as "X Y"; a person named one way),
 * and a form's raw match finished into a claim (`finish`: the relation's label, the kind of the
 * value, a person's category). Pure.
 */

import { normalizeSlot } from '../../text.js'
import { HEDGES, hasContent, hasHan, words, type DerivedClaim, type Raw } from './claim-text.js'
import { categoryFor, KINDS, locatedIn, named, PERSONAL, promoteValueNoun, stripValueEdges, withCategory } from './claim-kinds.js'

/** Words that name a person; a person's statement needs a category to be a slot. */
export const EN_PERSON: ReadonlyMap<string, string> = new Map([
  ['i', 'user'], ['me', 'user'], ['my', 'user'], ['the user', 'user'], ['user', 'user'], ['the user\'s', 'user'], ['user\'s', 'user'],
  ['we', 'team'], ['our', 'team'], ['us', 'team'], ['our team', 'team'], ['the team', 'team'],
  ['he', 'he'], ['she', 'she'], ['you', 'user'], ['your', 'user'],
])
export const ZH_PERSON: ReadonlyMap<string, string> = new Map([
  ['我', '用户'], ['我的', '用户'], ['用户', '用户'], ['用户的', '用户'], ['本人', '用户'], ['你', '用户'], ['你的', '用户'],
  ['我们', '团队'], ['团队', '团队'], ['咱们', '团队'], ['他', '他'], ['她', '她'],
])

const ARTICLES = /^(?:the|a|an|this|that|these|those|its|their|his|her|our|my|your|current|currently)\s+/iu
const EN_ADVERBS = /\b(?:now|currently|still|also|actually|already|today|presently|nowadays|officially|finally|again)\b/giu
export const ZH_ADVERBS = /当前|现行|统一|现在|如今|目前|眼下|已经|一直|仍然|依然|仍|还是|也|都|还|就|其实|开始|正式|终于|又|去年|今年|明年|上周|下周|本周|这周|上个月|下个月|这个月|最近|昨天|今天|明天|刚才|刚刚|以后|从此|后来|之后|早就|已|刚/gu

/** A subject as stored: articles, adverbs, possessives and 的 removed; "Y of X" read as "X Y"; a person named one way. */
function cleanSubject(raw: string): string | null {
  let s = raw.normalize('NFKC').replace(/(\w)['’]s?(?=\s|$)/gu, '$1').replace(/[\s"'“”‘’「」『』《》]+/gu, ' ').trim()
  s = s.replace(HEDGES, '')
  if (!hasHan(s)) {
    s = s.replace(EN_ADVERBS, ' ').replace(/\s+/g, ' ').trim()
    for (let i = 0; i < 3; i++) s = s.replace(ARTICLES, '')
    const of = /^(.+?)\s+(?:of|for)\s+(?:the\s+|a\s+|an\s+|our\s+|my\s+|its\s+)?(.+)$/iu.exec(s)
    if (of !== null && words(of[1] as string).length <= 4 && words(of[2] as string).length <= 4) s = `${of[2]} ${of[1]}`
    const head = words(s)
    const first2 = head.slice(0, 2).join(' ').toLowerCase()
    const first = (head[0] ?? '').toLowerCase()
    if (EN_PERSON.has(first2)) s = [EN_PERSON.get(first2), ...head.slice(2)].join(' ')
    else if (EN_PERSON.has(first)) s = [EN_PERSON.get(first), ...head.slice(1)].join(' ')
    s = s.trim()
    if (s === '' || words(s).length > 7) return null
    if (/^(?:it|this|that|there|they|them|which|who|what|here|one|something|everything|nothing)$/iu.test(s)) return null
    if (/\b(?:that|which|who|because|if|when|after|before|while|since|until|so)\b/iu.test(s)) return null
    // "Sounds like fun", "It must have been": a verb or a modal where a noun should end the subject.
    if (/\b(?:sounds|looks|seems|feels|must|should|would|could|might|can|will|really|very|just|d|ll|s|m|re|ve|got|get|gets|thanks|thank|wow|yeah|yes|no|oh|ok|okay|haha|lol|totally|agree)$/iu.test(s)) return null
    if (/^(?:sounds|looks|seems|feels|thanks|wow|yeah|yes|oh|ok|okay|haha|lol|hey|hi|hello|great|cool|awesome|nice|sure|totally|and|or|but|so|also|then|plus)\b/iu.test(s)) return null
  } else {
    // "我们的 X", "我们 X" is "our X": the team is no part of the subject (as "our" is not in English).
    s = s.replace(/^(?:我们|咱们)(?:的)?(?=\s*\S{2,})/u, '')
    // "日志保留期被运维改成...": the agent of a passive is no part of the subject; nor is "那边".
    s = s.replace(/被[\p{Script=Han}A-Za-z]{0,6}$/u, '').replace(/(?:那边|这边|那里|这里)$/u, '')
    s = s.replace(ZH_ADVERBS, '').replace(/的/gu, ' ').replace(/\s+/g, ' ').trim()
    for (const [word, canon] of ZH_PERSON) {
      if (s === word) s = canon
      else if (s.startsWith(word) && !s.startsWith(`${word}们`)) {
        const rest = s.slice(word.length).trim()
        if (rest !== '' && !/^[们]/u.test(rest)) s = `${canon} ${rest}`
        break
      }
    }
    if (s === '' || Array.from(normalizeSlot(s)).length > 16) return null
    if (/^(?:这|那|它|这个|那个|这里|那里|有人|大家|什么)$/u.test(s)) return null
    if (/因为|如果|虽然|但是|所以|然后|之后|之前|以后|的时候/u.test(s)) return null
  }
  if (!hasContent(s)) return null
  for (const [re, name] of ATTRIBUTE_NAMES) s = s.replace(re, name)
  return s
}

/** One name per attribute that people name several ways ("所在城市" and "住址", "city" and "home"). */
const ATTRIBUTE_NAMES: ReadonlyArray<[RegExp, string]> = [
  [/所在城市|居住城市|居住地|所在地|常住地|住的地方|家庭住址/gu, '住址'],
  [/\b(?:home city|city of residence|hometown|home town|city)\b/giu, 'home'],
  [/所在公司|工作单位|雇主/gu, '单位'],
  [/命名规则|命名方式|命名规范|命名格式/gu, '命名'],
  [/(生成|发送|执行|运行|备份|结算|发放|发布|上线)(?:日期|日|时刻)/gu, '$1 时间'],
  [/\b(?:employer|company)$/giu, 'employer'],
  [/\b(?:cloud provider|cloud vendor|cloud platform|hosting provider)\b/giu, 'cloud'],
  [/云服务商|云厂商|云平台|云服务提供商/gu, '云'],
]

function isPerson(subject: string): boolean {
  return /^(?:user|team|he|she|用户|团队|他|她)$/u.test(subject)
}

/** How a relation reads in a subject of each language. */
const RELATION_LABEL: Readonly<Record<string, { en: string; zh: string }>> = {
  uses: { en: 'uses', zh: '使用' },
  'runs on': { en: 'runs on', zh: '部署' },
  'listens on': { en: 'listens on', zh: '监听' },
  'lives in': { en: 'home', zh: '住址' },
  'written in': { en: 'language', zh: '语言' },
  'stored in': { en: 'storage', zh: '存储' },
  'points to': { en: 'points to', zh: '指向' },
  prefers: { en: 'prefers', zh: '偏好' },
  eats: { en: 'diet', zh: '饮食' },
  'works at': { en: 'employer', zh: '单位' },
  'works as': { en: 'job', zh: '职业' },
  speaks: { en: 'language', zh: '语言' },
  'expires after': { en: 'expiry', zh: '有效期' },
  'runs at': { en: 'schedule', zh: '时间' },
  has: { en: 'has', zh: '数量' },
  'owned by': { en: 'owner', zh: '负责' },
  'studies at': { en: 'school', zh: '学校' },
  office: { en: 'office', zh: '办公地点' },
  enabled: { en: 'enabled', zh: '启用' },
  'commutes by': { en: 'commute', zh: '通勤' },
}

const PORT_LABEL = { en: 'port', zh: '端口' }

/** The finished claim of a raw match, or null when the subject is not one. */
export function finish(given: Raw, wholeText: string, speaker: string | null): Omit<DerivedClaim, 'cues' | 'retired'> | null {
  const raw = locatedIn(given)
  let subject = cleanSubject(raw.subject)
  let value = stripValueEdges(raw.value)
  if (subject === null || value === '' || !hasContent(value)) return null
  // "uses MySQL as its database": the role names the attribute.
  const role = /^(.+?)\s+as\s+(?:its|the|their|our|a|an|his|her|my)?\s*(.+)$/iu.exec(value)
  if (role !== null && raw.relation !== 'copula' && words(role[2] as string).length <= 3) {
    value = role[1] as string
    subject = `${subject} ${role[2]}`
  }
  // "所有服务都托管在华为云", "everything runs on GCP": no subject but the kind of the value.
  if (/^(?:所有服务|全部服务|所有的服务|所有东西|一切|全部|everything|all services|all)$/iu.test(subject)) {
    const kind = categoryFor(value, KINDS)
    if (kind === null) return null
    subject = hasHan(subject) ? kind.zh : kind.en
  }
  const promoted = promoteValueNoun(subject, value)
  if (promoted !== null) ({ subject, value } = promoted)
  if (raw.relation === 'runs on' || raw.relation === 'lives in') value = value.replace(/\s*(?:上|里|中|上面|里面)$/u, '') || value
  if (raw.relation === 'owned by') value = value.replace(/\s*(?:负责|管理|维护|管)$/u, '') || value
  if (isPerson(subject) || subject === speaker) {
    // A person's statement is a slot only through a personal category ("用户 饮食"); a speaker is a person.
    const c = categoryFor(`${raw.relation === 'copula' ? '' : raw.relation} ${value} ${wholeText}`, PERSONAL)
    if (c === null) return null
    subject = withCategory(subject, c)
  } else if (raw.relation !== 'copula' && (raw.form === 'relation' || raw.form === 'change')) {
    const kind = categoryFor(value, KINDS)
    // "listens on 9090" names a port as "listens on port 9090" does.
    const label = raw.relation === 'listens on' && /^\d{2,5}$/u.test(value) ? PORT_LABEL : RELATION_LABEL[raw.relation] ?? { en: raw.relation, zh: raw.relation }
    if (kind !== null) subject = named(subject, kind) ? subject : withCategory(subject, kind)
    else if (promoted === null && label !== undefined) subject = `${subject} ${hasHan(subject) ? label.zh : label.en}`
  } else if (raw.form === 'change') {
    const kind = categoryFor(value, KINDS)
    if (kind !== null && !named(subject, kind)) subject = withCategory(subject, kind)
  }
  if (Array.from(normalizeSlot(subject)).length < 2 && !hasHan(subject)) return null
  return { subject: subject.replace(/\s+/g, ' ').trim(), value: value.trim(), form: raw.form, negated: raw.negated }
}
