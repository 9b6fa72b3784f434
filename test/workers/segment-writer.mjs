// Child-process worker for test/search-crash.test.ts: random edits to a store (new memories in
// Chinese and English, some in sessions, revisions of a keyed fact, forgetting), each followed by
// a search and, every few edits, flushCaches, which saves the search index (seals its in-memory
// segment, merges segments, writes them aside and renames them, then the manifest). Reports each
// acknowledged edit on stdout as soon as it resolves ("ack <id> <token>" or "forgot <id>"),
// "saving" just before each save and "saved <ms>" after it, so the parent can kill it with
// SIGKILL in the middle of one.
// Imports the BUILT library (run `npm run build`).
//
// usage: node segment-writer.mjs <root> <seed>

import { writeSync } from 'node:fs'
import { createFileBackend, flushCaches, forgetValueHandler, searchHandler, signalsSettled, writeHandler } from '../../lib/api.js'

const [root, seedText] = process.argv.slice(2)
if (!root || !seedText) {
  process.stderr.write('usage: segment-writer.mjs <root> <seed>\n')
  process.exit(2)
}
let state = Number(seedText) >>> 0
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0
  let t = state
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = (items) => items[Math.floor(random() * items.length)]
const ZH = ['数据库', '迁移', '配置', '咖啡', '会议', '周末', '旅行', '发票', '账单', '部署', '日志', '北京']
const EN = ['database', 'migration', 'coffee', 'meeting', 'weekend', 'travel', 'invoice', 'billing', 'deploy', 'logs', 'server', 'backup']
const say = (line) => writeSync(1, `${line}\n`)

const backend = createFileBackend(root)
const written = []
for (let i = 0; ; i++) {
  const token = `tok${seedText}x${i}`
  const r = random()
  try {
    if (r < 0.1 && written.length > 0) {
      const id = written.splice(Math.floor(random() * written.length), 1)[0]
      await forgetValueHandler(backend, { id })
      say(`forgot ${id}`)
    } else {
      const zh = random() < 0.5
      const words = Array.from({ length: 2 + Math.floor(random() * 5) }, () => pick(zh ? ZH : EN))
      const summary = zh ? `${words.join('')}，记号 ${token}。` : `${words.join(' ')} marker ${token}.`
      const input = r < 0.25 ? { summary, key: `fact ${Math.floor(random() * 4)}` } : r < 0.55 ? { summary, type: 'episode', session_id: `s${Math.floor(random() * 3)}` } : { summary }
      const out = await writeHandler(backend, input)
      written.push(out.id)
      say(`ack ${out.id} ${token}`)
    }
    await searchHandler(backend, { query: pick([...ZH, ...EN]) })
    await signalsSettled(backend)
    if (i % 3 === 2) {
      say('saving')
      const started = performance.now()
      await flushCaches(backend)
      say(`saved ${(performance.now() - started).toFixed(2)}`)
    }
  } catch (err) {
    process.stderr.write(`segment-writer edit ${i} failed: ${err?.stack ?? err}\n`)
    process.exit(1)
  }
}
