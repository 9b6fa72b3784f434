/**
 * What a free-text memory asserts, without a model: a subject (the slot a person would name:
 * "API server port", "用户 饮食") and the value it gives that subject ("9090", "素食者"), in
 * Chinese and English. Plus what a reviser needs: whether the statement is negated, the words
 * that signal a change ("now", "no longer", "migrated", "现在", "不再", "改成"...), and values
 * the text says no longer hold ("no longer vegetarian", "不再是素食", the A of "from A to B").
 *
 * Forms recognised, first match wins, clause by clause:
 *   `X -> Y` (also => →)                           arrow
 *   `X changed/moved/migrated/switched (from A) to Y`, `X (从A)改成/换成/迁移到 Y`   change
 *   `X: Y`, `X：Y`, `X = Y` (X at most 6 words / 16 characters)                 colon
 *   `X is/are/uses/runs on/listens on/... Y`, `X 是/为/用/使用/采用/跑在/部署在/监听 Y` relation
 *   a person (I, the user, 用户, 我) and a word of a personal category (diet, home, job...) category
 * Subjects are cleaned (articles, possessives, "Y of X" -> "X Y", adverbs, 的) so that two
 * phrasings of one subject give one slot. A value of the form `port 9090` / `9090 端口` moves its
 * noun into the subject. A relation verb whose value names a known kind of thing (MySQL is a
 * database) becomes that kind ("uses MySQL" -> "... database"); a person's statement needs a
 * personal category, else it asserts nothing slot-like. Questions, chatter and narration
 * assert nothing: `deriveClaim` returns null for them. Pure and deterministic.
 */

import { simplifyHan } from '../../language/han-variants.js'
import { normalizeSlot } from '../../text.js'
import { stem } from '../../language/tokenizer.js'

export type ClaimForm = 'arrow' | 'change' | 'colon' | 'relation' | 'category'

export interface DerivedClaim {
  /** The subject, as a person reads it; its normalised form is the slot. */
  subject: string
  /** What the text says the subject is. */
  value: string
  form: ClaimForm
  /** The statement denies the value ("does not use TLS", "不是素食"). */
  negated: boolean
  /** Change cues found in the text, lower-case ("now", "migrated", "不再"). */
  cues: string[]
  /** Values the text says no longer hold: "no longer X", "不再是 X", the A of "from A to B". */
  retired: string[]
}

// ---------------------------------------------------------------------------------------------
// Lexicon

const SPEAKER = /^(?:user|assistant|human|ai|me)\s*[:：]\s*/i
/** Lead-ins that frame a statement; the `correcting` ones are change cues themselves. */
const LEAD_IN = /^(?:(please\s+)?remember(?:\s+that)?|note(?:\s+that)?|fyi|btw|by the way|reminder|heads[- ]up|important|(correction|corrected|update|updated|actually)|记住|请记住|记一下|记得|注意|备注|提醒|(更正|纠正|更新|订正)|补充|另外|顺便说一下|顺便)\s*(?:[:：,，\-–—]\s*|\s+|(?=\p{Script=Han}))/iu
const HEDGES = /^(?:i think|i believe|i guess|it seems(?: that)?|apparently|we decided(?: that)?|we agreed(?: that)?|i decided(?: that)?|我觉得|我认为|我想|好像|据说|听说|我们决定|决定)\s*[,，]?\s*/iu

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

/** Words that name a person; a person's statement needs a category to be a slot. */
const EN_PERSON: ReadonlyMap<string, string> = new Map([
  ['i', 'user'], ['me', 'user'], ['my', 'user'], ['the user', 'user'], ['user', 'user'], ['the user\'s', 'user'], ['user\'s', 'user'],
  ['we', 'team'], ['our', 'team'], ['us', 'team'], ['our team', 'team'], ['the team', 'team'],
  ['he', 'he'], ['she', 'she'], ['you', 'user'], ['your', 'user'],
])
const ZH_PERSON: ReadonlyMap<string, string> = new Map([
  ['我', '用户'], ['我的', '用户'], ['用户', '用户'], ['用户的', '用户'], ['本人', '用户'], ['你', '用户'], ['你的', '用户'],
  ['我们', '团队'], ['团队', '团队'], ['咱们', '团队'], ['他', '他'], ['她', '她'],
])

interface Category {
  en: string
  zh: string
  /** Words of a value or predicate that put a statement in this category. */
  cue: RegExp
  /** A person has several at once (pets): a new one is added beside the others, not instead. */
  several?: true
}

/** Kinds of thing a tool or service is: "uses MySQL" is about a database. */
const KINDS: readonly Category[] = [
  { en: 'database', zh: '数据库', cue: /\b(?:postgres(?:ql)?|mysql|mariadb|sqlite|mongo(?:db)?|dynamodb|cassandra|oracle db|mssql|sql server|cockroach(?:db)?|tidb|clickhouse|oceanbase|couchdb|neo4j)\b/iu },
  { en: 'cache', zh: '缓存', cue: /\b(?:redis|memcached?|valkey|varnish)\b/iu },
  { en: 'message queue', zh: '消息队列', cue: /\b(?:rabbitmq|kafka|sqs|nats|pulsar|activemq|zeromq|rocketmq|nsq)\b/iu },
  { en: 'search engine', zh: '搜索引擎', cue: /\b(?:elasticsearch|opensearch|solr|meilisearch|typesense|lucene)\b/iu },
  { en: 'editor', zh: '编辑器', cue: /\b(?:vim|neovim|nvim|emacs|vs ?code|visual studio code|intellij|webstorm|pycharm|sublime(?: text)?|helix|zed)\b/iu },
  { en: 'CI', zh: 'CI', cue: /\b(?:jenkins|github actions|gitlab ci|circleci|travis(?: ci)?|buildkite|drone|teamcity)\b/iu },
  { en: 'cloud', zh: '云', cue: /\b(?:aws|gcp|google cloud|azure|digitalocean|hetzner|linode|vercel|netlify|heroku|fly\.io)\b|阿里云|腾讯云|华为云/iu },
  { en: 'frontend framework', zh: '前端框架', cue: /\b(?:react|vue|angular|svelte|solid(?:js)?|preact|next\.?js|nuxt)\b/iu },
  { en: 'package manager', zh: '包管理器', cue: /\b(?:npm|yarn|pnpm|bun|pip|poetry|uv|cargo|maven|gradle)\b/iu },
  { en: 'email provider', zh: '邮件服务商', cue: /\b(?:postmark|sendgrid|mailgun|ses|mailchimp|mandrill|sparkpost)\b/iu },
  { en: 'operating system', zh: '操作系统', cue: /\b(?:linux|macos|mac os|windows|ubuntu|debian|fedora|arch linux|centos)\b/iu },
  { en: 'language', zh: '语言', cue: /\b(?:python|golang|go|rust|java|typescript|javascript|ruby|kotlin|swift|php|scala|elixir|haskell|c\+\+|c#)\b/iu },
]

/** A person's categories: the only way a statement about a person becomes a slot. */
const PERSONAL: readonly Category[] = [
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
const EN_VALUE_NOUN = /^(?:on\s+|at\s+|in\s+)?(port|version|release|tag|branch|region|zone|plan|tier|channel|namespace|bucket|cluster|node|database|db|schema|table|queue|topic|floor|room|level|stage|step)\s+(.+)$/iu
const ZH_VALUE_NOUN_AFTER = /^(.+?)\s*(端口|版本|分支|区域|机房|集群|数据库|队列)$/u
const ZH_VALUE_NOUN_BEFORE = /^(端口|版本|分支|区域|机房|集群)\s*(?:号|为|是)?\s*(.+)$/u

const ARTICLES = /^(?:the|a|an|this|that|these|those|its|their|his|her|our|my|your|current|currently)\s+/iu
const EN_ADVERBS = /\b(?:now|currently|still|also|actually|already|today|presently|nowadays|officially|finally|again)\b/giu
const ZH_ADVERBS = /当前|现行|统一|现在|如今|目前|眼下|已经|一直|仍然|依然|仍|还是|也|都|还|就|其实|开始|正式|终于|又|去年|今年|明年|上周|下周|本周|这周|上个月|下个月|这个月|最近|昨天|今天|明天|刚才|刚刚|以后|从此|后来|之后|早就|已|刚/gu

/** Blocked words: a relation marker inside one of these is part of a word, not a relation. */
const ZH_BLOCKED = new Set(
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
const QUESTION_WORDS = /^(?:what|which|who|whom|whose|when|where|why|how|is|are|do|does|did|can|could|should|would|will|shall)\b/iu
const ZH_QUESTION = /[吗呢么]$|什么|哪个|哪些|哪里|怎么|为什么|是否|多少|几[个点]?/u

// ---------------------------------------------------------------------------------------------
// Helpers

const hasHan = (s: string) => /\p{Script=Han}/u.test(s)
const hasContent = (s: string) => /[\p{L}\p{N}]/u.test(s)
const words = (s: string) => s.split(/\s+/).filter((w) => w !== '')

function unique<T>(items: T[]): T[] {
  return [...new Set(items)]
}

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

/** When-words at a value's end: they say when it changed, not what it is. */
const VALUE_TAIL =
  /(?:\s+(?:over the weekend|yesterday|today|tonight|last (?:week|month|year|night|sprint)|this (?:week|month|year|sprint|morning)|recently|again|for now|from now on|going forward|now|anymore|any more|as well|too)|\s*(?:了|啦|去年|今年|上周|上个月|昨天|今天|最近|以后|了呢))+$/iu

/** A second statement joined to the value ("vegetarian and doesn't eat meat"): not part of it. */
const JOINED_STATEMENT = /\s+(?:and|but|while|so|which)\s+(?:is|are|was|were|does|doesn't|do|don't|did|didn't|has|have|had|no longer|not|never|will|won't|can|can't|it|they|we|i)\b.*$/iu

function stripValueEdges(v: string): string {
  return v
    .replace(JOINED_STATEMENT, '')
    .replace(/[\s"'“”‘’「」『』《》.。,，;；!！?？…]+$/gu, '')
    .replace(VALUE_TAIL, '')
    .replace(/^[\s"'“”‘’「」『』《》]+|[\s"'“”‘’「」『』《》.。,，;；!！?？…]+$/gu, '')
    .replace(/[了啦啊呀哦嘛吧]+$/u, '')
    .replace(/^(?:now|currently|still|also|actually|already|just|现在|目前|如今|已经|开始|也|都|还|就|改成)\s*/iu, '')
    .trim()
}

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

function categoryFor(text: string, list: readonly Category[]): Category | null {
  for (const c of list) if (c.cue.test(text)) return c
  return null
}

function named(subject: string, c: Category): boolean {
  const s = subject.toLowerCase()
  return s.includes(c.en.toLowerCase()) || s.includes(c.zh)
}

function withCategory(subject: string, c: Category): string {
  return `${subject} ${hasHan(subject) ? c.zh : c.en}`
}

interface Raw {
  subject: string
  value: string
  relation: string
  form: ClaimForm
  negated: boolean
  from?: string
}

/** Moves a value's leading or trailing noun into the subject: "port 9090" -> subject "... port", value "9090". */
function promoteValueNoun(subject: string, value: string): { subject: string; value: string } | null {
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
function locatedIn(raw: Raw): Raw {
  // "I am in Berlin this week": where a person is today, not where they live.
  if (raw.relation !== 'copula' || raw.form !== 'relation' || /^(?:i|we|he|she|they|you)$/iu.test(raw.subject.trim())) return raw
  const m = /^in\s+(.+)$/u.exec(stripValueEdges(raw.value))
  return m !== null && PLACE.test(m[1] as string) && !CALENDAR.test(m[1] as string) ? { ...raw, relation: 'lives in', value: m[1] as string } : raw
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

/** The finished claim of a raw match, or null when the subject is not one. */
function finish(given: Raw, wholeText: string, speaker: string | null): Omit<DerivedClaim, 'cues' | 'retired'> | null {
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
    const label = RELATION_LABEL[raw.relation] ?? { en: raw.relation, zh: raw.relation }
    if (kind !== null) subject = named(subject, kind) ? subject : withCategory(subject, kind)
    else if (promoted === null && label !== undefined) subject = `${subject} ${hasHan(subject) ? label.zh : label.en}`
  } else if (raw.form === 'change') {
    const kind = categoryFor(value, KINDS)
    if (kind !== null && !named(subject, kind)) subject = withCategory(subject, kind)
  }
  if (Array.from(normalizeSlot(subject)).length < 2 && !hasHan(subject)) return null
  return { subject: subject.replace(/\s+/g, ' ').trim(), value: value.trim(), form: raw.form, negated: raw.negated }
}

// ---------------------------------------------------------------------------------------------
// Forms

function arrowForm(c: string): Raw | null {
  const m = /^(.+?)\s*(?:->|=>|→|⟶|➜|⇒)\s*(.+)$/u.exec(c)
  if (m === null) return null
  // "We tried: X -> Y": what stands before a colon frames the declaration.
  const subject = (m[1] as string).split(/[:：]/u).pop() as string
  return { subject, value: m[2] as string, relation: 'copula', form: 'arrow', negated: false }
}

const EN_CHANGE =
  /^(.+?)\s+(?:has\s+|have\s+|was\s+|were\s+|is\s+|are\s+|got\s+|just\s+|recently\s+|now\s+|finally\s+)*(?:been\s+)?(?:changed|moved|migrated|switched|upgraded|downgraded|bumped|updated|converted|went|changes|moves|switches|migrates|raised|lowered|increased|decreased|reduced|extended|shortened|tightened|relaxed|relocated|repointed|rescheduled|pushed|pulled|cut|capped|doubled|halved|rose|fell|jumped|dropped)\s+(?:up\s+|down\s+|back\s+|over\s+)?(?:from\s+(.+?)\s+)?(?:to|into|over to|onto)\s+(.+)$/iu
const ZH_CHANGE =
  /^(.+?)(?:已经|现在|已|刚刚|刚|如今|目前)?(?:从(.+?))?(跳槽到|跳槽去|改成|换成|改为|改用|换用|迁移到|迁移至|迁到|切换到|切换成|切到|换到|升级到|升级为|降级到|变成|变为|调整为|调整到|调整成|调成|调到|调为|改到|搬到|搬去|提高到|提升到|降低到|降到|升到|增加到|减少到|延长到|缩短到|扩容到|缩容到|扩到|缩到|收紧到|放宽到|挪到|移到|转到|交给|改由|更换为|更换成|更新为|换为|定为|升级成|调整成|设成|设为|改设为)了?(.+)$/u

/** "We raised the rate limit to 250", "I set the timeout to 30 s": the object is the subject. */
const EN_ACTOR_CHANGE =
  /^(?:we|i|they|ops|the team|our team|someone|he|she|[A-Z][a-z]+)\s+(?:have\s+|has\s+|just\s+|recently\s+|finally\s+)*(?:raised|lowered|increased|decreased|reduced|extended|shortened|tightened|relaxed|bumped|set|changed|moved|switched|upgraded|downgraded|updated|migrated|pinned|repointed|pointed|rotated|renamed|cut|capped|doubled|halved|limited)\s+(.+?)\s+(?:from\s+(.+?)\s+)?(?:to|into|at)\s+(.+)$/u
/** "把 X 改成 Y": the object of 把 is the subject. */
const ZH_BA_CHANGE =
  /^(.*?)把(.+?)(?:从(.+?))?(改成|换成|改为|改用|换用|迁移到|迁到|切换到|切换成|切到|换到|升级到|升级为|降级到|变成|变为|调整为|调整到|调成|调到|调为|改到|提高到|提升到|降低到|降到|升到|增加到|减少到|延长到|缩短到|扩容到|缩容到|扩到|缩到|设为|设成|设置为|设置成|定为|收紧到|放宽到)了?(.+)$/u

function changeForm(c: string): Raw | null {
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

/** Single words that name an attribute, not a speaker, before a colon ("Region: eu-west-1"). */
const ATTRIBUTE_WORDS = new Set(
  (
    'region zone owner status deadline version port host hostname branch env environment timezone language editor database db cache queue ' +
    'broker provider vendor plan tier price budget limit quota timeout ttl schedule cron endpoint url domain bucket cluster namespace ' +
    'runtime framework os shell theme font locale currency stack ci cd registry image tag release platform model manager lead oncall'
  ).split(' '),
)

/** A value that reads as a value (a number, an identifier, a known kind of thing), not as a line of talk. */
function valueLike(v: string): boolean {
  return /\d|[-_./@#]\S/u.test(v) || categoryFor(v, KINDS) !== null
}

function colonForm(c: string): Raw | null {
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

function zhRelationForm(c: string): Raw | null {
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
function shapedForm(c: string): Raw | null {
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
  const works = /^(.+?)(?:现在|目前|一直|已经)?在(.+?)(上班|工作|任职|就职|实习|读书|上学|念书|办公)$/u.exec(c)
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

function enRelationForm(c: string): Raw | null {
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
function measuredForm(c: string): Raw | null {
  const m = /^([\p{Script=Han}A-Za-z][\p{Script=Han}A-Za-z0-9 _-]{1,24}?)\s*(v?\d[\d.:]*\s*(?:[A-Za-z%]{1,4}|毫秒|秒|分钟|小时|天|号|点|个|台)?)$/u.exec(c)
  if (m === null) return null
  const np = m[1] as string
  if (hasHan(np) ? /[做修写看开会是在为用把被]/u.test(np) : !/\b(?:version|limit|size|timeout|port|count|ttl|quota|max|min)\b/iu.test(np)) return null
  return { subject: np, value: m[2] as string, relation: 'copula', form: 'relation', negated: false }
}

/** "用户现在开始吃鸡胸肉了", "I eat meat now": a person and a personal category, no relation word. */
function categoryForm(c: string): Raw | null {
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

// ---------------------------------------------------------------------------------------------

const CONDITION_EN = /^(?:in|on|for|during|under|within|inside|when|if|while|at)\s+([^,]{1,40}),\s*(.+)$/iu
const CONDITION_ZH = /^(?:在|当|如果|若|对于|对|于)(.{1,20}?)(?:时|下|中|里|上|的时候|环境下|环境中)?[，,]\s*(.+)$/u
const CONDITION_ZH_INLINE = /(?:在|于)([^，,。\s]{1,12}?(?:环境|集群|机房|服务器上|机器上))(?:下|中|里|上)?/u
const CONDITION_EN_TAIL = /\s+(?:in|on|for|during)\s+((?:the\s+)?(?:staging|production|prod|dev|development|test|testing|qa|ci|local|weekends?|weekdays?|holidays?|eu|us|china)(?:\s+(?:environment|env|cluster|region))?)$/iu

/** The sentences of a text (a decimal point or a domain's dot does not end one). */
function splitSentences(text: string): string[] {
  return text
    .split(/[。！？!?；;\n]+|\.(?=\s|$)/u)
    .map((c) => c.trim())
    .filter((c) => c !== '')
}

function splitClauses(sentence: string): string[] {
  return sentence
    .split(/[，,]\s*/u)
    .map((c) => c.trim())
    .filter((c) => c !== '')
}

/** Where a Chinese clause's subject stops: an adverb, a preposition or a verb of its predicate. */
const ZH_PREDICATE_START = /已经|现在|目前|如今|从|在|是|把|被|用|去年|上周|最近|刚|又|也|还|不|没|搬|改|换|迁|升|降|调|开始/u

/**
 * Chinese leaves a repeated subject out ("王芳已经离职，现在在蓝海数据工作"): a later clause that
 * starts with its predicate gets the first clause's subject.
 */
function carryTopic(clauses: string[]): string[] {
  const first = clauses[0]
  if (first === undefined || !hasHan(first)) return clauses
  const at = ZH_PREDICATE_START.exec(first)?.index ?? -1
  const topic = at > 0 ? first.slice(0, at) : null
  if (topic === null || Array.from(topic).length > 10) return clauses
  return clauses.map((c, i) => (i > 0 && /^(?:现在|目前|如今|后来|以后|已经|又|也|还|在|是|用|改|搬)/u.test(c) ? `${topic}${c}` : c))
}

function retiredIn(clause: string): string[] {
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

/** Removes a statement's frame: a speaker label, "remember:", "更正：", a hedge. Returns the cue a correcting lead-in is. */
/**
 * "Caroline: I live in Boston now": a speaker's line. The speaker is who "I" is; the label is no
 * subject of its own. Only for a line of talk (a sentence after the label), never "Region: eu-west-1".
 */
function unspeak(t: string): { text: string; speaker: string | null } {
  const en = /^(\p{Lu}[\p{L}'-]*(?: \p{Lu}[\p{L}'-]*)?)\s*:\s*(.+)$/u.exec(t)
  const label = (en?.[1] ?? '').toLowerCase().split(' ').pop() as string
  const said = en?.[2] ?? ''
  if (en !== null && !ATTRIBUTE_WORDS.has(label) && label !== 'db' && words(said).length >= 2 && (words(said).length >= 4 || !valueLike(said))) {
    const name = en[1] as string
    return { text: (en[2] as string).replace(/^(?:I am|I'm|I)\b/u, (m) => (m === 'I' ? name : `${name} is`)).replace(/^my\b/iu, `${name}'s`), speaker: name }
  }
  const zh = /^([\p{Script=Han}]{1,4})\s*[:：]\s*(.{4,})$/u.exec(t)
  if (zh !== null && /^[我你他她]|[。！？!?]$|[吗呢吧啊]/u.test(zh[2] as string)) return { text: (zh[2] as string).replace(/^我/u, zh[1] as string), speaker: zh[1] as string }
  return { text: t, speaker: null }
}

/** "I'm vegetarian now", "we're using Bun": the copula spelled out, as the relation forms read it. */
function uncontract(t: string): string {
  return t
    .replace(/\b(I)['’]m\b/gu, '$1 am')
    .replace(/\b(we|they|you)['’]re\b/giu, '$1 are')
    .replace(/\b(I|we|they|you)['’]ve\b/giu, '$1 have')
}

function unframe(text: string): { text: string; cue: string | null; speaker: string | null } {
  // Traditional Chinese is read as Simplified, so its cues and attribute words are the ones below.
  const spoken = unspeak(uncontract(simplifyHan(text.normalize('NFKC')).replace(/\s+/g, ' ').trim()))
  let t = spoken.text
  let cue: string | null = null
  for (let i = 0; i < 3; i++) {
    const before = t
    t = t.replace(SPEAKER, '')
    const lead = LEAD_IN.exec(t)
    if (lead !== null) {
      if (lead[2] !== undefined || lead[3] !== undefined) cue = (lead[2] ?? lead[3] ?? '').toLowerCase()
      t = t.slice(lead[0].length)
    }
    t = t.replace(HEDGES, '')
    // "Branch naming changed: ...", "From now on, ...", "变更：": a frame that announces a change.
    const framed = /^(?:[^:：]{1,40}?\s(?:changed|updated|moved|switched|update|change)\s*[:：]|(?:from now on|going forward|as of (?:today|now))\s*[,，]?|(?:变更|调整|新规则|新的约定)\s*[:：])\s*/iu.exec(t)
    if (framed !== null && framed[0].length < t.length) {
      cue = cue ?? 'changed'
      t = t.slice(framed[0].length)
    }
    if (t === before) break
  }
  return { text: t.trim(), cue, speaker: spoken.speaker }
}

/**
 * What a text asserts, or null when it asserts nothing slot-like (a question, narration,
 * chatter, a person's statement outside every personal category). Frozen, and shared by every
 * caller that reads the same text (a write reads its summary, then its new memory's).
 */
export function deriveClaim(input: string): DerivedClaim | null {
  const known = derivedBefore.get(input)
  if (known !== undefined) return known
  const claim = deriveClaimAnew(input)
  if (claim !== null) Object.freeze(Object.assign(claim, { cues: Object.freeze(claim.cues), retired: Object.freeze(claim.retired) }))
  if (derivedBefore.size >= DERIVED_CACHE_LIMIT) derivedBefore.clear()
  derivedBefore.set(input, claim)
  return claim
}

/** Claims by text, for the texts read last; emptied when it reaches its bound. */
const derivedBefore = new Map<string, DerivedClaim | null>()
const DERIVED_CACHE_LIMIT = 1024

function deriveClaimAnew(input: string): DerivedClaim | null {
  const { text, cue, speaker } = unframe(input)
  if (text === '' || /[?？]\s*$/u.test(text)) return null
  // A trailing parenthesis is a remark ("(we migrated last week)"): its cues count, its words are no value.
  const remark = /\s*[（(]([^()（）]*)[)）]\s*[.。]?$/u.exec(text)
  const body = remark === null ? text : text.slice(0, remark.index)
  const cues = unique([...(cue !== null ? [cue] : []), ...changeCues(text)])
  let condition: string | null = null
  let rest = body
  const lead = CONDITION_EN.exec(rest) ?? CONDITION_ZH.exec(rest)
  if (lead !== null) {
    condition = (lead[1] as string).trim()
    rest = lead[2] as string
  }
  // A memory states its fact first; later sentences of a message are talk around it ("I feel the
  // same way! Art is so cool...") and would make subjects of every remark.
  const sentences = splitSentences(rest)
  const clauses = carryTopic(splitClauses(sentences[0] ?? ''))
  const retired = unique([...clauses, ...splitClauses(sentences[1] ?? '')].flatMap(retiredIn))
  for (let ci = 0; ci < clauses.length; ci++) {
    let clause = (clauses[ci] as string).replace(HEDGES, '')
    if (QUESTION_WORDS.test(clause) && !/->|:|：/.test(clause)) continue
    if (hasHan(clause) && ZH_QUESTION.test(clause)) continue
    let cond = condition
    const inline = hasHan(clause) ? CONDITION_ZH_INLINE.exec(clause) : null
    if (inline !== null) {
      cond = cond ?? (inline[1] as string)
      clause = clause.replace(inline[0], '')
    }
    const tail = hasHan(clause) ? null : CONDITION_EN_TAIL.exec(clause)
    if (tail !== null) {
      cond = cond ?? (tail[1] as string).replace(/^the\s+/iu, '')
      clause = clause.slice(0, tail.index)
    }
    // Advice and possibility ("You can use coconut oil instead") state no fact.
    if (/^(?:you|we|i|they|one)\s+(?:can|could|should|might|may|must|need to|have to|ought to)\b|^(?:maybe|perhaps|try|consider|let's)\b/iu.test(clause)) continue
    // A clause that only retires a value ("不再是素食") asserts nothing of its own.
    if (/^(?:不再|no longer|not any ?more)/iu.test(clause)) continue
    const raw =
      arrowForm(clause) ??
      changeForm(clause) ??
      colonForm(clause) ??
      shapedForm(clause) ??
      (hasHan(clause) ? zhRelationForm(clause) ?? enRelationForm(clause) : enRelationForm(clause)) ??
      measuredForm(clause) ??
      categoryForm(clause)
    if (raw === null) continue
    const done = finish(raw, body, speaker)
    if (done === null) continue
    const from = raw.from === undefined ? [] : [stripValueEdges(raw.from)]
    const subject = cond === null ? done.subject : `${done.subject} [${cond}]`
    return {
      ...done,
      subject,
      cues: raw.form === 'change' && cues.length === 0 ? ['changed'] : cues,
      retired: unique([...from, ...retired]).filter((v) => v !== ''),
    }
  }
  return null
}

/** At most this many sentences and characters: a statement, not a conversation (frame revision reads only statements). */
export const STATEMENT_SENTENCES = 2
export const STATEMENT_CHARS = 240

/** A text short enough to be one statement: two sentences at most, 240 characters at most. */
export function isStatement(text: string): boolean {
  return text.length <= STATEMENT_CHARS && splitSentences(text).length <= STATEMENT_SENTENCES
}
