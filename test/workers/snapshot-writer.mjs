// Child-process worker for test/snapshot-crash.test.ts: a seeded stream of keyless writes
// (Chinese and English) with hand edits and hand removals of memory files in between, on a store
// that saves its index snapshot every few lines. Reports each acknowledged step on its own stdout
// line as soon as it is done (synchronous write to fd 1): `w <id>` a write, `e <id>` a hand edit,
// `d <id>` a hand removal, `p` a pause begun. Now and then it pauses for twice the snapshot's idle time, so that
// snapshots are saved both in the background after a pause and by writes that ran on past four
// bounds. The parent kills it with SIGKILL while a snapshot is being written.
// Imports the BUILT library (run `npm run build`).
//
// usage: node snapshot-writer.mjs <root> <seed> <snapshot tail lines> <snapshot idle ms>

import { createHash } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { createFileBackend, writeHandler } from '../../lib/api.js'

const [root, seedArg, tailArg, idleArg] = process.argv.slice(2)
if (!root || !seedArg || !tailArg || !idleArg) {
  process.stderr.write('usage: snapshot-writer.mjs <root> <seed> <snapshot tail lines> <snapshot idle ms>\n')
  process.exit(2)
}

/** A seeded stream of numbers in [0, 1): sha1 of the seed and a counter, so a failing seed replays. */
let drawn = 0
const random = () => createHash('sha1').update(`${seedArg}:${drawn++}`).digest().readUInt32LE(0) / 4294967296
const pick = (items) => items[Math.floor(random() * items.length)]
const ZH = ['数据库', '迁移', '周末', '咖啡', '杭州', '会议', '预算', '跑步', '生产环境', '慢查询', '妈妈', '生日', '签证', '机票']
const EN = ['database', 'migration', 'weekend', 'coffee', 'Berlin', 'meeting', 'budget', 'running', 'staging', 'query', 'Alice', 'birthday', 'visa', 'flight']
const sentence = (i) =>
  i % 2 === 0
    ? `${pick(ZH)}和${pick(ZH)}的事：${pick(ZH)}要在${pick(ZH)}之前处理完（第${i}条）`
    : `The ${pick(EN)} and the ${pick(EN)} need a ${pick(EN)} before ${pick(EN)} (note ${i})`

const idleMs = Number(idleArg)
const backend = createFileBackend(root, { snapshotTailLines: Number(tailArg), snapshotIdleMs: idleMs })
/** Memories this process wrote and whose files are still there: id -> path. */
const live = new Map()
for (let i = 0; ; i++) {
  const u = random()
  if (random() < 0.1) {
    writeSync(1, 'p\n')
    await new Promise((resolve) => setTimeout(resolve, 2 * idleMs))
  }
  try {
    if (u < 0.15 && live.size > 3) {
      const [id, path] = pick([...live])
      const file = join(root, path)
      writeFileSync(file, readFileSync(file, 'utf8').replace(/\(note \d+\)|（第\d+条）/gu, `(edited by hand ${i})`))
      writeSync(1, `e ${id}\n`)
    } else if (u < 0.22 && live.size > 3) {
      const [id, path] = pick([...live])
      rmSync(join(root, path))
      live.delete(id)
      writeSync(1, `d ${id}\n`)
    } else {
      const out = await writeHandler(backend, { summary: sentence(i) })
      if (out.dedupe === undefined) live.set(out.id, out.path)
      writeSync(1, `w ${out.id}\n`)
    }
  } catch (err) {
    process.stderr.write(`snapshot-writer step ${i} failed: ${err?.stack ?? err}\n`)
    process.exit(1)
  }
}
