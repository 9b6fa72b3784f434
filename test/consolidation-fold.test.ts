/**
 * Consolidation's fold (src/memory/consolidation/fold.ts): in a finished, idle session, adjacent
 * keyless free-text episodes that belong together (a question and its answer, follow-ups on one
 * subject, chit-chat) become one topic holding their words in order, and the episodes are archived,
 * never deleted. English and Chinese; nothing lost (every archived episode's text is in a topic
 * that names it); lineage and history still show an archived episode; memory_restore undoes it.
 */

import { describe, expect, it } from 'vitest'
import { consolidate, historyHandler, lineageHandler, restoreHandler, searchHandler, writeHandler, type IndexEntry, type MemoryBackend } from '../src/api.js'
import { asks, EXCHANGE_TAG, exchanges, FOLD_FULL_EPISODES, FOLD_FULL_TERMS, FOLD_JOINER, FOLD_MAX_EPISODES } from '../src/memory/consolidation/fold.js'
import { isStrongTerm, tokenize, wordCount } from '../src/language/tokenizer.js'
import { perSource } from '../src/retrieve/search.js'
import { RANKING } from '../src/retrieve/search-index.js'
import { allWithContext } from '../src/retrieve/session-context.js'
import { renderValue } from '../src/tools/render/text.js'
import { tempStores } from './store-kit.js'

const store = tempStores('consolidation-fold-')
const NOW = '2026-06-01T00:00:00Z'

async function session(b: MemoryBackend, id: string, start: string, turns: readonly string[]): Promise<string[]> {
  const out: string[] = []
  for (const [i, summary] of turns.entries()) {
    out.push((await writeHandler(b, { summary, type: 'episode', session_id: id, time: new Date(Date.parse(start) + i * 60_000).toISOString() })).id)
  }
  return out
}

const EN = [
  'Caroline asked Melanie which pottery class she joined in Portland?',
  'Melanie said she joined the Thursday pottery class at the Portland community studio.',
  'Melanie added that the Portland studio lends its kilns on weekends.',
  'Thanks, that sounds lovely!',
  'Caroline is reading a book about adoption agencies for her research.',
  'The gym on Fifth Street closes at nine on Sundays.',
]
const ZH = [
  '小林问周末的登山活动定在哪座山？',
  '小王说登山活动定在香山，周六早上八点集合。',
  '小王补充说香山的东门停车比较方便。',
  '谢谢，听起来不错！',
  '小林最近在准备驾照科目二考试。',
  '楼下的健身房周日晚上九点关门。',
]

async function all(b: MemoryBackend): Promise<IndexEntry[]> {
  return [...(await b.indexView()).values()]
}

/** Every archived episode's words are in a live topic whose `derived_from` names it. */
async function nothingLost(b: MemoryBackend): Promise<number> {
  const entries = await all(b)
  const archived = entries.filter((e) => e.type === 'episode' && e.status === 'archived')
  for (const e of archived) {
    const holders = entries.filter((t) => t.type === 'topic' && t.status === 'active' && t.derived_from?.includes(e.id) && t.summary.includes(e.summary))
    expect(holders.map((t) => t.id), `archived episode ${e.id} "${e.summary}"`).not.toEqual([])
    // The file is still there, word for word.
    expect(await b.readFile(e.path)).toContain(e.summary)
  }
  return archived.length
}

describe('fold', () => {
  for (const [lang, turns, query] of [
    ['English', EN, 'Portland pottery class'],
    ['Chinese', ZH, '香山 登山'],
  ] as const) {
    it(`${lang}: an idle session's question, answer, follow-up and thanks become one topic naming them in order; the episodes are archived; a one-off stays`, async () => {
      const { backend: b } = await store(NOW)
      const ids = await session(b, 'talk', '2026-02-01T10:00:00Z', turns)
      const report = await consolidate(b, { dryRun: false })
      // Question, answer, follow-up; the thanks with the statement after it; the last one shares nothing and stays.
      expect(report.exchanges.map((x) => x.derived_from)).toEqual([ids.slice(0, 3), ids.slice(3, 5)])
      const [first] = report.exchanges
      const topic = (await b.indexView()).get(first?.id as string) as IndexEntry
      expect(topic.type).toBe('topic')
      expect(topic.tags).toContain(EXCHANGE_TAG)
      expect(topic.session_id).toBe('talk')
      expect(topic.summary).toBe(turns.slice(0, 3).join(FOLD_JOINER))
      expect(await b.readFile(topic.path)).toContain('derived_from:')
      expect(report.archived.sort()).toEqual(ids.slice(0, 5).sort())
      const view = await b.indexView()
      expect(ids.map((id) => view.get(id)?.status)).toEqual(['archived', 'archived', 'archived', 'archived', 'archived', 'active'])
      // Search finds the topic, not the archived episodes.
      const hits = (await searchHandler(b, { query })).hits.map((h) => h.id)
      expect(hits).toContain(topic.id)
      for (const id of ids.slice(0, 5)) expect(hits).not.toContain(id)
      expect(await nothingLost(b)).toBe(5)
      // Lineage and history still show an archived episode, and lineage the fold that covers it.
      const lineage = await lineageHandler(b, { id: ids[1] as string })
      expect(lineage.status).toBe('archived')
      expect(lineage.events.map((e) => e.event)).toEqual(expect.arrayContaining(['write', 'fold', 'archive']))
      expect((await historyHandler(b, { id: ids[1] as string })).versions.map((v) => v.id)).toContain(ids[1])
      // A rerun folds nothing again.
      const again = await consolidate(b, { dryRun: false })
      expect([again.exchanges.length, again.archived.length]).toEqual([0, 0])
    })
  }

  for (const [lang, turns, query] of [
    ['English', EN, 'Which studio lends kilns on weekends?'],
    ['Chinese', ZH, '香山东门停车方便吗'],
  ] as const) {
    it(`${lang}: a hit on a folded exchange lists its sources, the turn that matches the query first; a plain episode's hit lists none`, async () => {
      const { backend: b } = await store(NOW)
      const ids = await session(b, 'talk', '2026-02-01T10:00:00Z', turns)
      const [first] = (await consolidate(b, { dryRun: false })).exchanges
      const hits = (await searchHandler(b, { query })).hits
      const topic = hits.find((h) => h.id === first?.id)
      // The follow-up (kilns, weekends / 东门停车) first; then the answer, which shares the studio / 香山; the question last.
      expect(topic?.sources).toEqual([ids[2], ids[1], ids[0]])
      expect(renderValue('memory_search_hybrid', await searchHandler(b, { query }))).toContain(`sources (best match first): ${[ids[2], ids[1], ids[0]].join(' ')}`)
      // Sources that match the query alike keep their order, oldest first.
      const other = (await searchHandler(b, { query: lang === 'English' ? 'Portland pottery class' : '登山活动' })).hits.find((h) => h.id === first?.id)
      expect(other?.sources).toEqual(ids.slice(0, 3))
      const plain = (await searchHandler(b, { query: lang === 'English' ? 'gym Fifth Street' : '健身房' })).hits
      expect(plain.map((h) => h.id)).toContain(ids[5])
      expect(plain.find((h) => h.id === ids[5])?.sources).toBeUndefined()
    })
  }

  it('a memory made of n others scores its match times n to the power of minus RANKING.sourcePower; one made of none or one, as it is', () => {
    expect(perSource({ derived_from: undefined })).toBe(1)
    expect(perSource({ derived_from: ['a'] })).toBe(1)
    expect(perSource({ derived_from: ['a', 'b', 'c', 'd'] })).toBeCloseTo(4 ** -RANKING.sourcePower, 12)
    expect(RANKING.sourcePower).toBe(0.35)
  })

  for (const [lang, turns, single, query] of [
    ['English', EN, 'Melanie goes to the Thursday pottery class at the Portland community studio.', 'Thursday pottery class at the Portland studio'],
    ['Chinese', ZH, '小王说登山活动在香山，周六八点集合。', '香山登山活动几点集合'],
  ] as const) {
    it(`${lang}: an exchange's match is spread over its turns, so a single statement saying as much ranks above the exchange whose words repeat it`, async () => {
      const { backend: b } = await store(NOW)
      await session(b, 'talk', '2026-02-01T10:00:00Z', turns)
      const [first] = (await consolidate(b, { dryRun: false })).exchanges
      expect(first?.derived_from).toHaveLength(3)
      // Said today, in a session not idle: it stays an episode.
      const { id } = await writeHandler(b, { summary: single, type: 'episode', session_id: 'today', time: NOW })
      const hits = (await searchHandler(b, { query })).hits.map((h) => h.id)
      expect(hits.indexOf(id)).toBeGreaterThanOrEqual(0)
      expect(hits.indexOf(first?.id as string)).toBeGreaterThan(hits.indexOf(id))
    })
  }

  for (const [lang, turns] of [
    ['English', EN],
    ['Chinese', ZH],
  ] as const) {
    it(`${lang}: folding changes no turn's neighbour context: an exchange lends only its turns nearest a neighbour, and takes the turns around its own`, async () => {
      const { backend: b } = await store(NOW)
      const ids = await session(b, 'talk', '2026-02-01T10:00:00Z', turns)
      const contextOf = async () => new Map(allWithContext(await b.indexView()).map((c) => [c.entry.id, c.context]))
      const before = await contextOf()
      expect(before.get(ids[5] as string)).toBe([turns[3], turns[4]].join('\n'))
      const [first, second] = (await consolidate(b, { dryRun: false })).exchanges
      expect([first?.derived_from, second?.derived_from]).toEqual([ids.slice(0, 3), ids.slice(3, 5)])
      const after = await contextOf()
      // The one-off keeps its two turns before, now held by the second exchange (the session's
      // summary, written after the last turn, follows it as one more neighbour, as before the fold).
      expect(after.get(ids[5] as string)?.startsWith(`${before.get(ids[5] as string) as string}\n`)).toBe(true)
      // The first exchange: the two turns after its last; the second: two before its first, then the one after its last.
      expect(after.get(first?.id as string)).toBe([turns[3], turns[4]].join('\n'))
      expect(after.get(second?.id as string)?.startsWith([turns[1], turns[2], turns[5]].join('\n'))).toBe(true)
    })
  }

  it('a session written within the idle window is not folded; a dry run says what a run would fold and archive', async () => {
    const { backend: b } = await store(NOW)
    await session(b, 'recent', '2026-05-20T10:00:00Z', EN)
    const old = await session(b, 'old', '2026-01-10T10:00:00Z', ZH)
    const dry = await consolidate(b, { dryRun: true })
    expect(dry.exchanges.map((x) => [x.id, x.derived_from[0]])).toEqual(dry.exchanges.map(() => [null, expect.any(String)]))
    expect(dry.exchanges.every((x) => x.derived_from.every((id) => old.includes(id)))).toBe(true)
    expect(dry.archived.sort()).toEqual(dry.exchanges.flatMap((x) => x.derived_from).sort())
    expect((await all(b)).filter((e) => e.type === 'topic')).toEqual([])
    const run = await consolidate(b, { dryRun: false })
    expect(run.exchanges.map((x) => x.derived_from)).toEqual(dry.exchanges.map((x) => x.derived_from))
    expect((await all(b)).filter((e) => e.session_id === 'recent' && e.status === 'archived')).toEqual([])
  })

  it('memory_restore brings folded episodes back, and no later run archives or folds them again', async () => {
    const { backend: b } = await store(NOW)
    const ids = await session(b, 'talk', '2026-02-01T10:00:00Z', EN)
    const { exchanges: folded } = await consolidate(b, { dryRun: false })
    const back = folded[0]?.derived_from ?? []
    expect(back.length).toBeGreaterThanOrEqual(2)
    expect((await restoreHandler(b, { ids: back })).restored.map((r) => r.status)).toEqual(back.map(() => 'active'))
    const rerun = await consolidate(b, { dryRun: false })
    expect(rerun.archived.filter((id) => back.includes(id))).toEqual([])
    expect(rerun.exchanges).toEqual([])
    const view = await b.indexView()
    for (const id of back) expect(view.get(id)?.status).toBe('active')
    expect((await searchHandler(b, { query: 'Portland pottery class' })).hits.map((h) => h.id)).toEqual(expect.arrayContaining([ids[1]]))
  })
})

describe('exchanges (the pure rule)', () => {
  const at = (i: number) => new Date(Date.parse('2026-01-01T10:00:00Z') + i * 60_000).toISOString()
  const ep = (id: string, session: string, i: number, summary: string) => ({ id, session_id: session, time: at(i), summary }) as IndexEntry
  const ready = () => true

  it('a question links to its answer; episodes that share nothing and carry something stay apart', () => {
    expect(asks('Where do you live?')).toBe(true)
    expect(asks('你周末去哪儿了吗')).toBe(true)
    expect(asks('我住在北京。')).toBe(false)
    expect(asks('What did you paint? [shares a photo of a lake]')).toBe(true)
    const out = exchanges(
      [
        ep('a', 's', 0, 'Which framework does the billing service use?'),
        ep('b', 's', 1, 'It runs on Django with Celery workers.'),
        ep('c', 's', 2, 'The marketing site moved to Astro last spring.'),
        ep('d', 's', 3, 'Grandma turns ninety in October.'),
      ],
      ready,
    )
    expect(out.map((x) => x.members.map((m) => m.id))).toEqual([['a', 'b']])
  })

  it('runs never exceed the size cap, and the cut falls where the link is weakest', () => {
    const turns = ['Kayak trip plans for Lake Tahoe?', 'Lake Tahoe kayak rental opens in May.', 'Tahoe kayak tours start early.', 'Tahoe rentals need a deposit.', 'Deposit for Tahoe is fifty dollars.', 'Fifty dollars covers the Tahoe kayak.']
    const out = exchanges(
      turns.map((t, i) => ep(`k${i}`, 's', i, t)),
      ready,
    )
    expect(out.every((x) => x.members.length <= FOLD_MAX_EPISODES)).toBe(true)
    expect(out.flatMap((x) => x.members.map((m) => m.id))).toEqual(turns.map((_, i) => `k${i}`))
  })

  for (const [lang, short, full] of [
    ['English', ['Kayak at Tahoe this weekend?', 'Yes, Tahoe kayak on Saturday!', 'Thanks!'], 'Yes, we rented two Tahoe kayaks from Sierra Outfitters near Emerald Bay for Saturday morning at eight, ninety dollars each.'],
    ['Chinese', ['周末去香山划船吗？', '去，周六香山划船！', '好的，谢谢！'], '去，我们在香山东门的户外店租了两条船，周六早上八点出发，每人九十块，还包午饭和救生衣。'],
  ] as const) {
    it(`${lang}: short replies fold in threes; a turn with content of its own joins at most one other`, () => {
      const run = (turns: readonly string[]) => exchanges(turns.map((t, i) => ep(`t${i}`, 's', i, t)), ready).map((x) => x.members.map((m) => m.id))
      expect(run(short)).toEqual([['t0', 't1', 't2']])
      const turns = [short[0], full, short[2]]
      expect(wordCount(tokenize(full).filter(isStrongTerm))).toBeGreaterThanOrEqual(FOLD_FULL_TERMS)
      expect(short.every((t) => wordCount(tokenize(t).filter(isStrongTerm)) < FOLD_FULL_TERMS)).toBe(true)
      // The question stays with its answer; the thanks, the loosest link, is cut off.
      expect(run(turns)).toEqual([['t0', 't1']])
      expect(FOLD_FULL_EPISODES).toBeLessThan(FOLD_MAX_EPISODES)
    })
  }

  it('a session not ready is left alone', () => {
    expect(exchanges([ep('a', 's', 0, 'Where do you live?'), ep('b', 's', 1, 'In Porto, near the river.')], () => false)).toEqual([])
  })
})
