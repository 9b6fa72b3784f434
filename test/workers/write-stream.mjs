// Child-process worker for test/concurrency.test.ts: makes `count` writeHandler calls on one
// store root, concurrently with its siblings. Imports the BUILT library (run `npm run build`).
//
// usage: node write-stream.mjs <root> <worker-tag> <count> <topic|episode|revise>
// (revise: free-text statements about four shared subjects with this worker's values, half with a
// change cue, as racing agents write them; a repeat of another worker's statement may dedupe.)
// Prints "ready" once loaded, waits for "go" on stdin (so all workers start together), then
// writes and finally prints one JSON line: { "worker": tag, "ids": [...], "rawRefs": [...] }.
// Any failure goes to stderr with exit code 1.

import { createFileBackend, writeHandler } from '../../lib/api.js'
import { stopListening, waitForGo } from './protocol.mjs'

const [root, tag, countArg, mode = 'topic'] = process.argv.slice(2)
const count = Number(countArg)
if (!root || !tag || !Number.isInteger(count) || count <= 0) {
  process.stderr.write('usage: write-stream.mjs <root> <tag> <count> <topic|episode>\n')
  process.exit(2)
}

const TECH = ['PostgreSQL', 'Redis', 'SQLite', 'Kafka', 'Nginx', 'Deno', 'Rust', 'Vue']
const CN = ['数据库', '缓存', '消息队列', '前端框架', '部署脚本', '日志系统', '权限模型', '测试策略']

function summaryFor(i) {
  const tech = TECH[i % TECH.length]
  const cn = CN[(i * 3 + tag.length) % CN.length]
  return i % 2 === 0
    ? `进程${tag}的第${i}条记忆：团队决定在${cn}里使用 ${tech}，理由是 latency budget ${i * 7 + 3} ms。`
    : `Worker ${tag} note ${i}: the team chose ${tech} for the ${cn} (${CN[(i + 1) % CN.length]}); 复查编号 ${tag}-${i}.`
}

const SUBJECTS = [
  (v, cue) => `The API server ${cue ? 'now listens' : 'listens'} on port ${8000 + v}.`,
  (v, cue) => `deploy target -> ${['staging', 'production', 'canary', 'preview'][v % 4]}${cue ? ' (we moved it)' : ''}`,
  (v, cue) => `缓存服务${cue ? '现在改用' : '用的是'} redis ${5 + (v % 4)}。`,
  (v, cue) => `部署窗口${cue ? '改成' : '是'}每天 ${v % 12} 点。`,
]

function revisionFor(i) {
  return SUBJECTS[i % SUBJECTS.length](i * 7 + tag.charCodeAt(0), i % 2 === 1)
}

const backend = createFileBackend(root)
await waitForGo()
stopListening()
const ids = []
const rawRefs = []
try {
  for (let i = 0; i < count; i++) {
    if (mode === 'revise') {
      ids.push((await writeHandler(backend, { summary: revisionFor(i) })).id)
      continue
    }
    const input =
      mode === 'episode'
        ? {
            summary: summaryFor(i),
            raw: `原始对话 ${tag}/${i}\n\nuser: 我们的${CN[i % CN.length]}用什么？\nassistant: Use ${TECH[i % TECH.length]} (turn ${i}).\n`,
            session_id: `sess-${tag}`,
          }
        : { summary: summaryFor(i) }
    const out = await writeHandler(backend, input)
    if (out.dedupe !== undefined) throw new Error(`write ${i} was deduplicated against ${out.id}`)
    ids.push(out.id)
    if (out.raw_ref !== null) rawRefs.push(out.raw_ref)
  }
} catch (err) {
  process.stderr.write(`worker ${tag} failed after ${ids.length} writes: ${err?.stack ?? err}\n`)
  process.exit(1)
}
process.stdout.write(`${JSON.stringify({ worker: tag, ids, rawRefs })}\n`)
