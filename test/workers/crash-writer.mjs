// Child-process worker for test/crash.test.ts: writes memories in an endless loop and reports
// each returned id on its own stdout line as soon as writeHandler resolves (synchronous write to
// fd 1, so a reported id is never lost in a buffer). The parent kills it with SIGKILL.
// Imports the BUILT library (run `npm run build`).
//
// usage: node crash-writer.mjs <root> <tag>

import { writeSync } from 'node:fs'
import { createFileBackend, writeHandler } from '../../lib/api.js'

const [root, tag = 'c'] = process.argv.slice(2)
if (!root) {
  process.stderr.write('usage: crash-writer.mjs <root> [tag]\n')
  process.exit(2)
}

const backend = createFileBackend(root)
for (let i = 0; ; i++) {
  const input =
    i % 5 === 4
      ? {
          summary: `崩溃测试 ${tag} 第${i}段会话：discussed retry policy number ${i}.`,
          raw: `raw transcript ${tag} ${i}\n用户：重试几次？\n助手：${i % 7} times.\n`,
          session_id: `crash-${tag}-${i % 3}`,
        }
      : { summary: `Crash test ${tag} memory ${i}: 记住第${i}个事实, value ${i * 13}.` }
  let out
  try {
    out = await writeHandler(backend, input)
  } catch (err) {
    process.stderr.write(`crash-writer ${tag} write ${i} failed: ${err?.stack ?? err}\n`)
    process.exit(1)
  }
  writeSync(1, `${out.id}\n`)
}
