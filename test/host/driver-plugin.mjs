// A driver plugin for the REAL booted DSH host (route 2 of ../shared/reference/dsh-host.md): the
// test loads it with `dsh --profile <p> --patch <file>`, whose row names this file by absolute path.
// It runs inside the host next to the plugin under test, with no LLM, and reports what it sees as
// JSON lines on stdout, each prefixed with `HOSTTEST ` (the host writes other things to stdout too):
//
//   {"kind":"tools","names":[...]}                          every tool in ctx.tools.schemas()
//   {"kind":"call","name":...,"arguments":...,"result":...}  one ctx.tools.execute() per config.calls
//   {"kind":"prompt","contexts":[{name,text}],"sections":n,"tools":n,"snapshot":...,"prompt":...}
//   {"kind":"error","message":...}                          then exit 1
//   {"kind":"done"}                                          then ctx.appExit(0), once the
//                                                            launcher has finished booting
//
// Config (from the patch row):
//   waitFor        tool names to wait for (bounded by waitMs) before anything runs; the plugin under
//                  test registers its tools asynchronously
//   calls          [{ name, arguments }] executed in order through the host's tool registry; a string
//                  argument "$<n>.<path>" is replaced by that field of the value of call n (1-based),
//                  e.g. "$5.id" is the id returned by the fifth call
//   promptModule   absolute path of the host's @deepseek-ai/dsh-system-prompt entry; with it the
//                  assembled prompt is also rendered (renderPrompt + renderContextSnapshot)
// Everything is bounded: the driver gives up after waitMs and exits 1 rather than hang the host.

export const name = 'dsh-memory-agent-test-driver'
export const inject = ['tools', 'systemPrompt', 'appExit']

const report = (line) => process.stdout.write(`HOSTTEST ${JSON.stringify(line)}\n`)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Replaces "$<n>.<path>" strings with fields of earlier results' values. */
function resolveRefs(value, results) {
  if (typeof value === 'string') {
    const m = /^\$(\d+)\.([\w.]+)$/.exec(value)
    if (!m) return value
    const result = results[Number(m[1]) - 1]
    if (!result || result.isError) throw new Error(`${value}: call ${m[1]} has no successful result`)
    return m[2].split('.').reduce((v, key) => v?.[key], result.value)
  }
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, results))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v, results)]))
  return value
}

export function apply(ctx, config) {
  const { waitFor = [], calls = [], promptModule, waitMs = 15_000 } = config ?? {}
  let stopped = false

  async function run() {
    const deadline = Date.now() + waitMs
    while (!stopped && waitFor.some((tool) => !ctx.tools.get(tool))) {
      if (Date.now() > deadline) {
        const missing = waitFor.filter((tool) => !ctx.tools.get(tool))
        throw new Error(`tools not registered within ${waitMs} ms: ${missing.join(', ')}`)
      }
      await sleep(50)
    }
    if (stopped) return
    report({ kind: 'tools', names: ctx.tools.schemas().map((s) => s.name) })

    const results = []
    for (const call of calls) {
      const args = resolveRefs(call.arguments, results)
      const signal = AbortSignal.timeout(waitMs)
      const result = await ctx.tools.execute({ callId: `driver-${results.length + 1}`, name: call.name, arguments: args, signal })
      results.push(result)
      report({ kind: 'call', name: call.name, arguments: args, result })
    }

    const asm = await ctx.systemPrompt.assemble({})
    const line = {
      kind: 'prompt',
      contexts: asm.contexts.map((c) => ({ name: c.name, text: typeof c.text === 'string' ? c.text : null })),
      sections: asm.sections.length,
      tools: asm.tools.length,
    }
    if (promptModule) {
      const sp = await import(promptModule)
      line.snapshot = sp.renderContextSnapshot(asm)
      line.prompt = sp.renderPrompt(asm)
    }
    report(line)
    report({ kind: 'done' })
    await bootSettled()
    ctx.appExit(0)
  }

  // rc.8 race (observed): after the tree is up, the launcher still creates the HMR service and
  // registers two chokidar watchers (the profile's and $DSH_HOME's cordis.patch.yml), awaiting each
  // watcher's "ready". An appExit before that finishes either leaves a watcher open after disposal
  // (the process never exits) or leaves the launcher's top-level await unsettled (exit 13). So the
  // driver exits only once both watchers are ready; with another HMR shape it waits a fixed second.
  async function bootSettled() {
    const deadline = Date.now() + waitMs
    while (!stopped && Date.now() < deadline) {
      const configs = ctx.get('hmr')?.configs
      if (configs !== undefined && !(configs instanceof Map)) return sleep(1000)
      const watchers = configs ? [...configs.values()].map((r) => r?.watcher) : []
      if (watchers.length >= 2 && watchers.every((w) => w?._readyEmitted === true)) return sleep(50)
      await sleep(25)
    }
  }

  // Start once this activation has settled (the Loader is still mounting the other rows).
  const timer = setTimeout(() => {
    run().catch((err) => {
      report({ kind: 'error', message: String(err?.stack ?? err) })
      void bootSettled().finally(() => ctx.appExit(1))
    })
  }, 100)
  ctx.effect(() => () => {
    stopped = true
    clearTimeout(timer)
  }, 'test driver')
}
