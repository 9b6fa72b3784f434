// The worker side of test/process-kit.ts: print "ready", wait for "go" on stdin; later lines
// (such as "stop") are remembered for stopRequested().

const heard = new Set()
let buffer = ''
let onLine = () => undefined

function listen() {
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (chunk) => {
    buffer += chunk
    const lines = buffer.split('\n')
    buffer = lines.pop() ?? ''
    for (const line of lines) {
      heard.add(line.trim())
      onLine()
    }
  })
}

/** Says "ready", then resolves when the test says "go". */
export async function waitForGo() {
  listen()
  process.stdout.write('ready\n')
  await new Promise((resolve) => {
    onLine = () => {
      if (heard.has('go')) resolve()
    }
    onLine()
  })
}

/** True once the test has said "stop". */
export function stopRequested() {
  return heard.has('stop')
}

/** Stops listening, so stdin keeps nothing alive. */
export function stopListening() {
  process.stdin.pause()
}
