/**
 * The forms a clause may state its fact in, first match wins (claim-extract.ts tries them in
 * order): `X -> Y` (arrow), `X changed/moved... to Y`, `X 改成/换成 Y` (change), `X: Y`, `X = Y`
 * (colon), shapes that name their subject elsewhere, relation verbs in both languages, a noun
 * phrase and a number, and a person's category. Each returns a raw match or null. Pure.
 */

import { stem } from '../../language/tokenizer.js'
import { hasHan, words, type Raw } from './claim-text.js'
import { ATTRIBUTE_WORDS, categoryFor, KINDS, PERSONAL, stripValueEdges, valueLike } from './claim-kinds.js'
import { ZH_ADVERBS, ZH_PERSON } from './claim-subject.js'

/** Blocked words: a relation marker inside one of these is part of a word, not a relation. */
export const ZH_BLOCKED = new Set(
  (
    '使用率 用户 应用 费用 作用 可用 常用 通用 专用 信用 引用 调用 利用 用途 用来 用于 公用 实用 适用 享用 占用 试用 禁用 备用 用量 用法 ' +
    '现在 正在 存在 在于 实在 所在 在线 好在 自在 内在 外在 潜在 在乎 在意 ' +
    '因为 为了 认为 作为 成为 行为 以为 为什么 为何 称为 视为 更为 较为 极为 最为 尤为 为止 ' +
    '就是 还是 但是 于是 是否 总是 只是 可是 凡是 要是 倒是 正是 真是 硬是 像是 算是 或是 若是 老是 都是 也是 是不是 ' +
    '叫醒 叫好'
  ).split(' '),
)

interface Marker {
  text: string
  relation: string
}
/** Chinese relation markers, longest first at any position. `copula` keeps the subject as the slot. */
const ZH_MARKERS: readonly Marker[] = [
  ...['用的是', '使用的是', '采用的是', '走的是', '装的是', '用的', '使用', '采用', '依赖', '用'].map((text) => ({ text, relation: 'uses' })),
  ...['跑在', '运行在', '部署在', '部署到', '托管在'].map((text) => ({ text, relation: 'runs on' })),
  ...['放在', '位于'].map((text) => ({ text, relation: 'copula' })),
  ...['监听在', '监听'].map((text) => ({ text, relation: 'listens on' })),
  ...['住在'].map((text) => ({ text, relation: 'lives in' })),
  ...['默认是', '默认为', '设置为', '设置成', '设为', '设成', '定为', '等于', '叫做', '是', '为', '叫'].map((text) => ({ text, relation: 'copula' })),
  ...['开启了', '启用了', '打开了', '开启', '启用', '打开', '开了'].map((text) => ({ text, relation: 'uses' })),
  ...['关闭了', '禁用了', '关掉了', '关闭', '禁用', '关掉', '停用'].map((text) => ({ text, relation: 'disabled' })),
  ...['在'].map((text) => ({ text, relation: 'copula' })),
].sort((a, b) => b.text.length - a.text.length)

/** A value that names a place or a time: it ends in a place word or holds a number ("3楼", "杭州", "A栋301", "早上 9:30"). */
const ZH_PLACE_OR_TIME = /\d|[市省区县州京海圳都国岛港湾镇村城楼层室号栋路街院园馆店厅部组]$/u

const ZH_NEGATION_BEFORE = /(不再|并不|从不|从来不|已不|没有|不|没)$/u

interface Phrase {
  words: string[]
  relation: string
}
/** English relation phrases; `copula` keeps the subject as the slot. */
const EN_PHRASES: readonly Phrase[] = (
  [
    ['copula', 'is set to|are set to|was set to|has been set to|is configured to|are configured to|defaults to|default to|is now|are now|has become|has been|have been|will be|is|are|am|was|were|equals|became|becomes|set to|\'s'],
    ['uses', 'is using|are using|relies on|rely on|depends on|depend on|is built with|is built on|are built with|built with|uses|use|used|runs|run'],
    ['copula', 'is pinned to|are pinned to|pinned to|is locked to|locked to|is capped at|capped at|is limited to|limited to|configured to|set at|costs|cost|is priced at|are priced at|sells for|is billed at'],
    ['runs on', 'is running on|are running on|runs on|run on|is hosted on|is hosted at|is hosted in|are hosted on|hosted on|is deployed to|is deployed on|are deployed to|deploys to|deployed to|deployed on|lives on'],
    ['listens on', 'is listening on|listens on|listen on|serves on|binds to|binds on'],
    ['lives in', 'lives in|live in|is living in|is located in|is based in|are based in|resides in'],
    ['written in', 'is written in|are written in|written in|is implemented in|are implemented in'],
    ['stored in', 'is stored in|are stored in|stores data in|keeps data in|is kept in|stores its data in|keeps its data in|stores everything in|persists data in|persists to|writes to'],
    ['points to', 'points to|point to|connects to|connect to|talks to'],
    ['prefers', 'prefers|likes|loves'],
    ['eats', 'eats|eat|is eating|drinks|drink'],
    ['works at', 'works at|work at|works for|work for'],
    ['works as', 'works as|work as'],
    ['speaks', 'speaks|speak'],
    ['expires after', 'expires after|expire after|expires in|expire in|times out after|time out after|lasts'],
    ['runs at', 'runs at|run at|runs every|run every|runs daily at|is scheduled for|is scheduled at|starts at|happens at'],
    ['has', 'has|have|contains|holds'],
  ] as const
).flatMap(([relation, list]) => list.split('|').map((p) => ({ words: p.split(' '), relation })))
  .sort((a, b) => b.words.length - a.words.length)

const EN_NEGATION = /^(?:does not|do not|did not|doesn't|don't|didn't|is not|are not|isn't|aren't|was not|wasn't|no longer|never|not|cannot|can't|won't|will not)$/iu

export function arrowForm(c: string): Raw | null {
  const m = /^(.+?)\s*(?:->|=>|→|⟶|➜|⇒)\s*(.+)$/u.exec(c)
  if (m === null) return null
  // "We tried: X -> Y": what stands before a colon frames the declaration.
  const subject = (m[1] as string).split(/[:：]/u).pop() as string
  return { subject, value: m[2] as string, relation: 'copula', form: 'arrow', negated: false }
}

const EN_CHANGE =
  /^(.+?)\s+(?:has\s+|have\s+|was\s+|were\s+|is\s+|are\s+|got\s+|just\s+|recently\s+|now\s+|finally\s+)*(?:been\s+)?(?:changed|moved|migrated|switched|upgraded|downgraded|bumped|updated|converted|went|goes up|goes down|go up|go down|rises|falls|jumps|drops|changes|moves|switches|migrates|move|switch|migrate|raised|lowered|increased|decreased|reduced|extended|shortened|tightened|relaxed|relocated|repointed|rescheduled|pushed|pulled|cut|capped|doubled|halved|rose|fell|jumped|dropped)\s+(?:up\s+|down\s+|back\s+|over\s+)?(?:from\s+(.+?)\s+)?(?:to|into|over to|onto)\s+(.+)$/iu
const ZH_CHANGE =
  /^(.+?)(?:已经|现在|已|刚刚|刚|如今|目前)?(?:从(.+?))?(跳槽到|跳槽去|改成|换成|改为|改用|换用|迁移到|迁移至|迁到|切换到|切换成|切到|换到|升级到|升级为|降级到|变成|变为|调整为|调整到|调整成|调成|调到|调为|改到|搬到|搬去|提高到|提升到|降低到|降到|升到|增加到|减少到|延长到|缩短到|扩容到|缩容到|扩到|缩到|收紧到|放宽到|挪到|移到|转到|交给|改由|更换为|更换成|更新为|换为|定为|升级成|调整成|设成|设为|改设为)了?(.+)$/u

/** "We raised the rate limit to 250", "I set the timeout to 30 s": the object is the subject. */
const EN_ACTOR_CHANGE =
  /^(?:we|i|they|ops|the team|our team|someone|he|she|[A-Z][a-z]+)\s+(?:have\s+|has\s+|just\s+|recently\s+|finally\s+)*(?:raised|lowered|increased|decreased|reduced|extended|shortened|tightened|relaxed|bumped|set|changed|moved|switched|upgraded|downgraded|updated|migrated|pinned|repointed|pointed|rotated|renamed|cut|capped|doubled|halved|limited)\s+(.+?)\s+(?:from\s+(.+?)\s+)?(?:to|into|at)\s+(.+)$/u
/** "把 X 改成 Y": the object of 把 is the subject. */
const ZH_BA_CHANGE =
  /^(.*?)把(.+?)(?:从(.+?))?(改成|换成|改为|改用|换用|迁移到|迁到|切换到|切换成|切到|换到|升级到|升级为|降级到|变成|变为|调整为|调整到|调成|调到|调为|改到|提高到|提升到|降低到|降到|升到|增加到|减少到|延长到|缩短到|扩容到|缩容到|扩到|缩到|设为|设成|设置为|设置成|定为|收紧到|放宽到)了?(.+)$/u

export function changeForm(c: string): Raw | null {
  const actor = EN_ACTOR_CHANGE.exec(c)
  if (actor !== null) return { subject: actor[1] as string, value: actor[3] as string, relation: 'copula', form: 'change', negated: false, ...(actor[2] !== undefined ? { from: actor[2] } : {}) }
  const ba = ZH_BA_CHANGE.exec(c)
  if (ba !== null) {
    // "用户把默认 shell 改成了 zsh": a person who acts on their own setting owns it.
    const actor = (ba[1] as string).replace(ZH_ADVERBS, '').trim()
    const owner = ZH_PERSON.has(actor) ? `${actor}的` : ''
    return { subject: `${owner}${ba[2]}`, value: ba[5] as string, relation: 'copula', form: 'change', negated: false, ...(ba[3] !== undefined ? { from: ba[3] } : {}) }
  }
  const en = EN_CHANGE.exec(c)
  if (en !== null) return { subject: en[1] as string, value: en[3] as string, relation: 'copula', form: 'change', negated: false, ...(en[2] !== undefined ? { from: en[2] } : {}) }
  const zh = ZH_CHANGE.exec(c)
  if (zh !== null) {
    const verb = zh[3] as string
    const relation =
      verb === '搬到' || verb === '搬去' ? 'lives in' : verb.startsWith('跳槽') ? 'works at' : verb === '改用' || verb === '换用' ? 'uses' : verb === '交给' || verb === '改由' ? 'owned by' : 'copula'
    return { subject: zh[1] as string, value: zh[4] as string, relation, form: 'change', negated: false, ...(zh[2] !== undefined ? { from: zh[2] } : {}) }
  }
  return null
}

export function colonForm(c: string): Raw | null {
  const m = /^([^:：=]{1,60}?)\s*(?:[:：](?!\/\/)|(?<![<>!=])=(?!=))\s*(.+)$/u.exec(c)
  if (m === null) return null
  const subject = (m[1] as string).trim()
  // "reporting service: bumped pandas from 1.5.3 to 2.2.2": the label owns what the change names.
  const bumped = /^(?:bumped|upgraded|downgraded|raised|lowered|changed|moved|switched|set|pinned|updated)\s+(.+?)\s+(?:from\s+(.+?)\s+)?to\s+(.+)$/iu.exec(m[2] as string)
  if (bumped !== null) return { subject: `${subject} ${bumped[1]}`, value: bumped[3] as string, relation: 'copula', form: 'change', negated: false, ...(bumped[2] !== undefined ? { from: bumped[2] } : {}) }
  // "Caroline: Thanks!" is a speaker and a line of talk, not a declaration about Caroline.
  if (/^\p{Lu}[\p{L}'-]*$/u.test(subject) && !ATTRIBUTE_WORDS.has(subject.toLowerCase()) && !valueLike(m[2] as string)) return null
  if (/\/\/|^\d+$/.test(m[2] as string) && /^https?$/i.test(subject)) return null
  if (/\d$/.test(subject) && /^\d/.test(m[2] as string)) return null
  if (hasHan(subject) ? Array.from(subject.replace(/\s/g, '')).length > 16 : words(subject).length > 6) return null
  return { subject, value: m[2] as string, relation: 'copula', form: 'colon', negated: false }
}

export function zhRelationForm(c: string): Raw | null {
  // Every place a marker stands (never at the start: a subject comes first), earliest first and
  // the longest marker first at one place. Markers are Han characters: one code unit each.
  const found: Array<{ at: number; m: Marker }> = []
  for (const m of ZH_MARKERS) for (let at = c.indexOf(m.text, 1); at >= 0; at = c.indexOf(m.text, at + 1)) found.push({ at, m })
  found.sort((a, b) => a.at - b.at || b.m.text.length - a.m.text.length)
  for (const { at, m } of found) {
    // Part of a longer word ("用户", "现在", "因为")? Then not a relation.
    if (ZH_BLOCKED.has(c.slice(at - 1, at + 1)) || ZH_BLOCKED.has(c.slice(at, at + 2)) || ZH_BLOCKED.has(c.slice(at - 1, at + 2))) continue
    let subject = c.slice(0, at)
    const value = c.slice(at + m.text.length)
    const neg = ZH_NEGATION_BEFORE.exec(subject)
    if (neg !== null) subject = subject.slice(0, subject.length - (neg[1] as string).length)
    if (subject.trim() === '' || value.trim() === '') continue
    // A bare 在 states where or when ("会议室在3楼", "站会在早上 9:30"); "Bart在海边放风筝" tells what
    // someone did there, which is no value of a subject.
    if (m.text === '在' && !ZH_PLACE_OR_TIME.test(stripValueEdges(value))) continue
    // "网关用的 Nginx 版本是 1.22": what is used is part of the subject, and 是 gives the value.
    const inner = m.relation === 'uses' ? /^(.{1,16}?)(?:是|为)(.+)$/u.exec(value) : null
    if (inner !== null && /\S/u.test(inner[1] as string)) return { subject: `${subject} ${inner[1]}`, value: inner[2] as string, relation: 'copula', form: 'relation', negated: neg !== null }
    // "关闭 X" is "X not enabled": one relation, two polarities.
    if (m.relation === 'disabled') return { subject, value, relation: 'uses', form: 'relation', negated: neg === null }
    return { subject, value, relation: m.relation, form: 'relation', negated: neg !== null }
  }
  return null
}

/** Irregular participles; regular ones end in -ed. */
const PARTICIPLES = new Set('written sent built run held kept set made done known shown given taken driven hidden chosen frozen spoken bound found led paid put read'.split(' '))
const PREPOSITIONS = new Set('in on at to through via with by for from into onto over under as'.split(' '))

/**
 * Shapes that name their subject somewhere other than the front: "We run CI on Jenkins", "We use
 * Sentry for error tracking", "There are 5 nodes in the staging cluster", "X has 3 nodes",
 * "数据平台归分析组负责", "我们用 Sentry 做错误监控".
 */
export function shapedForm(c: string): Raw | null {
  const actor = /^(?:we|i|they|the team|our team)\s+(?:now\s+|still\s+|currently\s+|also\s+)?(run|host|deploy|keep|store|put|send|serve|build|manage|track)s?\s+(.+?)\s+(on|in|with|at|through|via|using|to)\s+(.+)$/iu.exec(c)
  if (actor !== null) {
    const verb = (actor[1] as string).toLowerCase()
    const relation = ['keep', 'store', 'put'].includes(verb) ? 'stored in' : ['send', 'track', 'manage', 'build'].includes(verb) ? 'uses' : 'runs on'
    // "We host everything on GCP": no object to name, so the kind of the value is the subject.
    const kind = /^(?:everything|all|it|them|all of it|our (?:stuff|services|apps)|all (?:our )?services)$/iu.test(actor[2] as string) ? categoryFor(actor[4] as string, KINDS) : null
    return { subject: kind !== null ? kind.en : (actor[2] as string), value: actor[4] as string, relation: kind !== null ? 'copula' : relation, form: 'relation', negated: false }
  }
  const toggled = /^(?:we|i|they|ops|the team|someone|it)\s+(?:have\s+|has\s+|just\s+|finally\s+)*(turned on|turned off|switched on|switched off|enabled|disabled|paused|resumed|stopped|started)\s+(.+?)(?:\s+(?:for|on|in)\s+(.+))?$/iu.exec(c)
  if (toggled !== null) {
    const off = /off|disabled|paused|stopped/iu.test(toggled[1] as string)
    return { subject: toggled[2] as string, value: toggled[3] ?? 'on', relation: 'enabled', form: 'relation', negated: off }
  }
  const replaced = /^(.+?)\s+(?:has\s+|have\s+|just\s+|now\s+)*(?:replaced|swapped|swapped out)\s+(.+?)\s+(?:with|for)\s+(.+)$/iu.exec(c)
  if (replaced !== null) return { subject: replaced[1] as string, value: replaced[3] as string, relation: 'uses', form: 'change', negated: false, from: replaced[2] as string }
  const usesFor = /^(?:we|i|they|the team|our team)\s+(?:now\s+|still\s+|currently\s+)?(?:use|rely on|depend on)s?\s+(.+?)\s+(?:for|to handle|to do)\s+(.+)$/iu.exec(c)
  if (usesFor !== null) return { subject: usesFor[2] as string, value: usesFor[1] as string, relation: 'copula', form: 'relation', negated: false }
  const zhUses = /^(?:我们|我|团队|公司)?(?:现在|目前|一直)?(?:用|使用|采用)(.+?)(?:来)?(?:做|作为|当)(.+)$/u.exec(c)
  if (zhUses !== null) return { subject: zhUses[2] as string, value: zhUses[1] as string, relation: 'copula', form: 'relation', negated: false }
  const there = /^there\s+(?:are|is|were|was)\s+(?:now\s+)?(\S+)\s+(\S+)\s+(?:in|on|at|for|behind)\s+(.+)$/iu.exec(c)
  if (there !== null) return { subject: `${there[3]} ${there[2]}`, value: there[1] as string, relation: 'copula', form: 'relation', negated: false }
  const commute = commuteForm(c)
  if (commute !== null) return commute
  const works = /^(.+?)(?:现在|目前|一直|已经)?在(.+?)(上班|工作|任职|就职|实习|读书|上学|念书|办公)了?$/u.exec(c)
  // The 在 of 现在 or 正在 is no "at": "我现在改骑车上班" says nothing of where.
  if (works !== null && !ZH_BLOCKED.has(`${(works[1] as string).slice(-1)}在`)) {
    const relation = /读书|上学|念书/u.test(works[3] as string) ? 'studies at' : works[3] === '办公' ? 'office' : 'works at'
    return { subject: works[1] as string, value: works[2] as string, relation, form: 'relation', negated: false }
  }
  const expires = /^(.+?)\s*(\d+(?:\.\d+)?|[一二两三四五六七八九十百]+)\s*(毫秒|秒钟?|分钟|个?小时|天|周|个月|年)(?:后|之后|以后)?(?:失效|过期|到期|超时)$/u.exec(c)
  if (expires !== null) return { subject: expires[1] as string, value: `${expires[2]} ${expires[3]}`, relation: 'expires after', form: 'relation', negated: false }
  const owned = /^(.+?)(?:现在|目前|一直)?(?:归|由)(.+?)(?:负责|管理|维护|管)$/u.exec(c)
  if (owned !== null) return { subject: owned[1] as string, value: owned[2] as string, relation: 'owned by', form: 'relation', negated: false }
  const hasOf = /^(.+?)\s+(?:now\s+|still\s+|currently\s+)?(?:has|have)\s+(?:a|an)\s+(.+?)\s+of\s+(.+)$/iu.exec(c)
  if (hasOf !== null) return { subject: `${hasOf[1]} ${hasOf[2]}`, value: hasOf[3] as string, relation: 'copula', form: 'relation', negated: false }
  const rule = /^(.+?)(?:现在|目前|统一)?按(?:照)?(.+?)(命名|格式|规则|处理|计费|排序)$/u.exec(c)
  if (rule !== null) return { subject: `${rule[1]} ${rule[3]}`, value: rule[2] as string, relation: 'copula', form: 'relation', negated: false }
  const when = /^(.*?)((?:每天|每晚|每周[一二三四五六日天]?|每月\s*\d+\s*[号日]|每个工作日|工作日|每\s*\d+\s*(?:分钟|小时|天))[^做跑执行运行开进生]*?)(做|进行|执行|跑|运行|开|生成|发送|备份)(.*)$/u.exec(c)
  if (when !== null && /[\d一二两三四五六七八九十点号]/u.test(when[2] as string)) {
    const what = `${(when[1] as string).replace(/在$/u, '')}${when[3] === '做' || when[3] === '进行' || when[3] === '开' ? '' : when[3]}${when[4]}`.replace(/一次$/u, '')
    if (what.trim() !== '') return { subject: `${what} 时间`, value: when[2] as string, relation: 'copula', form: 'relation', negated: false }
  }
  const has = /^(.+?)\s+(?:now\s+|still\s+|currently\s+)?(?:has|have)\s+(?:now\s+)?(\d+(?:\.\d+)?)\s+([a-z][\w-]*)$/iu.exec(c)
  if (has !== null) return { subject: `${has[1]} ${has[3]}`, value: has[2] as string, relation: 'copula', form: 'relation', negated: false }
  const zhHas = /^(.+?)(?:现在|目前|一共|总共|共)?(?:有|共有)\s*(\d+|[一二两三四五六七八九十百]+)\s*(?:个|台|条|位|名|家)?(.+)$/u.exec(c)
  if (zhHas !== null && !/[，,]/u.test(zhHas[3] as string)) return { subject: `${zhHas[1]} ${zhHas[3]}`, value: zhHas[2] as string, relation: 'copula', form: 'relation', negated: false }
  return null
}

/** How one gets to work or school: the vehicle. Chinese verbs longest first; the vehicle holds no verb of its own. */
const ZH_COMMUTE =
  /^(.+?)(?:每天|每日|平时|平常|一般|通常|现在|目前|如今|已经|开始|都|也|还|就|改为|改成|改)*(不再|不|没有|没)?(乘坐|搭乘|步行|走路|坐|乘|搭|骑|开|打)([^坐乘搭骑开打走步]{0,8}?)(?:去|来|到)?(?:上班|上学|通勤|去公司|到公司|去单位)了?$/u
const EN_ADVERB_RUN = '(?:(?:now|usually|normally|mostly|always|still|currently|often|just|daily|also|have|has|started|start|to)\\s+)*'
/** "These days I ...": when, before whom. */
const EN_LEAD = '(?:(?:these days|nowadays|now|lately|recently|since last \\w+),?\\s+)?'
const EN_NEGATED = "(?:(don't|doesn't|do not|does not|no longer|never)\\s+)?"
const EN_COMMUTE = new RegExp(
  `^${EN_LEAD}(.+?)\\s+${EN_ADVERB_RUN}${EN_NEGATED}(take|takes|taking|took|ride|rides|riding|drive|drives|driving|cycle|cycles|cycling|bike|bikes|biking|walk|walks|walking)\\s+(?:(?:the|a|an|my|his|her|their|our)\\s+)?(.*?)\\s*(?:to|into)\\s+(?:work|the office|office|school|campus)\\b`,
  'iu',
)
const EN_COMMUTE_BY = new RegExp(
  `^${EN_LEAD}(.+?)\\s+${EN_ADVERB_RUN}${EN_NEGATED}(?:commutes?|commuting|goes to work|go to work|gets to work|get to work|travels? to work)\\s+(?:by|on)\\s+(?:(?:the|a|an|my|his|her|their|our)\\s+)?(.+)$`,
  'iu',
)
/** A verb that is its own vehicle: "I drive to work", "我步行上班". */
const OWN_VEHICLE: Readonly<Record<string, string>> = { drive: 'car', cycle: 'bike', bike: 'bike', walk: 'walking', 步行: '步行', 走路: '步行' }
/** "drives", "driving" -> "drive". */
const verbBase = (v: string) => v.toLowerCase().replace(/(?:s|ing)$/u, '').replace(/^(driv|cycl|bik|rid|tak)$/u, '$1e')

/**
 * "我每天坐地铁上班", "我现在改骑自行车上班了", "I take the subway to work", "I commute by train":
 * how someone commutes, one attribute (`commute` / `通勤`) whose value is the vehicle.
 */
function commuteForm(c: string): Raw | null {
  const zh = ZH_COMMUTE.exec(c)
  if (zh !== null) {
    const vehicle = (zh[4] as string).trim() || OWN_VEHICLE[zh[3] as string]
    return vehicle === undefined ? null : { subject: zh[1] as string, value: vehicle, relation: 'commutes by', form: 'relation', negated: zh[2] !== undefined }
  }
  const en = EN_COMMUTE.exec(c)
  if (en !== null) {
    const vehicle = (en[4] as string).trim() || OWN_VEHICLE[verbBase(en[3] as string)]
    if (vehicle === undefined || words(vehicle).length > 3) return null
    return { subject: en[1] as string, value: vehicle, relation: 'commutes by', form: 'relation', negated: en[2] !== undefined }
  }
  const by = EN_COMMUTE_BY.exec(c)
  if (by !== null && words(by[3] as string).length <= 3) return { subject: by[1] as string, value: by[3] as string, relation: 'commutes by', form: 'relation', negated: by[2] !== undefined }
  return null
}

export function enRelationForm(c: string): Raw | null {
  const ws = words(c.replace(/(\w)'s\s+(?=(?:now|not|no|a|an|the|\d)\b)/giu, '$1 is '))
  for (let i = 1; i < ws.length; i++) {
    const lower = ws.map((w) => w.toLowerCase())
    for (const p of EN_PHRASES) {
      if (i + p.words.length > ws.length) continue
      if (!p.words.every((w, k) => lower[i + k] === w)) continue
      let end = i
      let negated = false
      // "does not use", "is no longer", "doesn't run on": negation sits before or inside the phrase.
      for (let back = 2; back >= 1; back--) {
        if (end - back < 1) continue
        const span = lower.slice(end - back, end).join(' ')
        if (EN_NEGATION.test(span)) {
          negated = true
          end -= back
          break
        }
      }
      let valueStart = i + p.words.length
      const after = lower.slice(valueStart, valueStart + 2).join(' ')
      if (/^(?:not|no longer|never)\b/u.test(after)) {
        negated = true
        valueStart += after.startsWith('no longer') ? 2 : 1
      }
      let relation = p.relation
      // "is written in", "are sent through", "are named": the participle is the relation.
      const part = lower[valueStart]
      // "is running version 1.29": the verb is the relation.
      const rest = stripValueEdges(ws.slice(valueStart + 1).join(' '))
      if (relation === 'copula' && part !== undefined && /^[a-z]{3,}ing$/u.test(part) && rest !== '' && !PREPOSITIONS.has(rest)) {
        relation = stem(part)
        valueStart += 1 + (PREPOSITIONS.has(lower[valueStart + 1] as string) ? 1 : 0)
      } else if (relation === 'copula' && part !== undefined && (PARTICIPLES.has(part) || /^[a-z]{3,}ed$/u.test(part)) && valueStart + 1 < ws.length) {
        const prep = lower[valueStart + 1] as string
        // "disabled" is "enabled", denied: one relation, two polarities.
        if (part === 'disabled') negated = !negated
        relation = part === 'disabled' ? 'enabled' : part
        valueStart += PREPOSITIONS.has(prep) ? 2 : 1
      }
      const subject = ws.slice(0, end).join(' ')
      const value = ws.slice(valueStart).join(' ')
      if (value === '' || subject === '') continue
      if (p.relation === 'has' && !/\d/.test(value)) continue
      return { subject, value, relation, form: 'relation', negated }
    }
  }
  return null
}

/** "入口 nginx 版本 1.22", "Terraform version 1.5.7": a noun phrase and a number, no verb. */
export function measuredForm(c: string): Raw | null {
  const m = /^([\p{Script=Han}A-Za-z][\p{Script=Han}A-Za-z0-9 _-]{1,24}?)\s*(v?\d[\d.:]*\s*(?:[A-Za-z%]{1,4}|毫秒|秒|分钟|小时|天|号|点|个|台)?)$/u.exec(c)
  if (m === null) return null
  const np = m[1] as string
  if (hasHan(np) ? /[做修写看开会是在为用把被]/u.test(np) : !/\b(?:version|limit|size|timeout|port|count|ttl|quota|max|min)\b/iu.test(np)) return null
  return { subject: np, value: m[2] as string, relation: 'copula', form: 'relation', negated: false }
}

/** "用户现在开始吃鸡胸肉了", "I eat meat now": a person and a personal category, no relation word. */
export function categoryForm(c: string): Raw | null {
  const zh = /^(我们|我|用户|本人|他|她)(.+)$/u.exec(c)
  const en = /^(i|we|the user|user|he|she)\s+(.+)$/iu.exec(c)
  const m = zh ?? en
  if (m === null) return null
  const rest = m[2] as string
  if (categoryFor(rest, PERSONAL) === null) return null
  const neg = /^(?:现在|已经|开始|也|还)*(不再|不|没有|没|don't|doesn't|do not|does not|no longer|never|has no|have no)\s*/iu.exec(rest)
  const value = rest.replace(/^(?:现在|已经|开始|也|还|now|also|still)+\s*/iu, '').replace(/^(?:has no|have no|没有|没)\s*/iu, '')
  return { subject: m[1] as string, value, relation: 'category', form: 'category', negated: neg !== null }
}


/** Verbs of a habit, a permission or a capability, which Chinese negates with 不 / 不再 / 没 ("老张不抽烟", "测试环境不对外开放"). */
const ZH_HABIT =
  /^(.{1,12}?)((?:现在|最近|已经|又|重新|开始|每天|每周|平时|一直|也|还|都|只|早上|晚上|从此|再|能|会|可以|对外)*)(不再|已经不|已不|不|没有|没)?((?:对外)?(?:支持|允许|开放|抽烟|喝酒|喝|吃|养|提供|接受|加班|运动|健身|跑步|戴|穿|收取|收费|包邮|营业))(.*)$/u

/**
 * "老张不抽烟" / "老张最近又开始抽烟了", "女儿不喝牛奶", "测试环境不对外开放": a habit, permission or
 * capability, stated or denied. The verb is part of the subject ("老张 抽烟"), so that another
 * verb of the same person is another subject; its object, or the verb itself, is the value.
 */
export function zhHabitForm(c: string): Raw | null {
  const m = ZH_HABIT.exec(c)
  if (m === null) return null
  const subject = (m[1] as string).trim()
  if (subject === '' || /[是在用为把被]$/u.test(subject)) return null
  const verb = (m[4] as string).replace(/^对外/u, '')
  const object = (m[5] as string).replace(/^(?:了|过)/u, '').trim()
  return { subject: `${subject} ${verb}`, value: object === '' || /^了?$/u.test(object) ? verb : object, relation: 'copula', form: 'relation', negated: m[3] !== undefined }
}

/** "站会每天早上九点半", "周会定在每周二下午三点": a noun and the time it happens, no verb. */
const ZH_AT_TIME =
  /^(.{1,12}?)(?:定在|定于|安排在|在)?((?:每天|每晚|每周[一二三四五六日天]?|每个?工作日|工作日|周[一二三四五六日天])?\s*(?:早上|上午|中午|下午|晚上|凌晨)?\s*(?:\d{1,2}[:：]\d{2}|[零一二两三四五六七八九十\d]+点(?:半|[零一二三四五六七八九十\d]+分?)?))$/u

export function zhAtTimeForm(c: string): Raw | null {
  const m = ZH_AT_TIME.exec(c)
  if (m === null || /[是在为用把被]$/u.test(m[1] as string)) return null
  return { subject: `${m[1]} 时间`, value: m[2] as string, relation: 'copula', form: 'relation', negated: false }
}
