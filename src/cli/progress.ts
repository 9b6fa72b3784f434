/**
 * A one-line progress bar for long CLI commands (rebuild, import), drawn on a terminal only: on a
 * pipe or a file it draws nothing, and the command's own summary is all there is. It appears
 * only once the work has taken a moment (short runs never flicker), redraws at most ten times a
 * second, and erases itself at the end so the summary starts on a clean line.
 */

import stringWidth from 'string-width'

export interface ProgressStream {
  isTTY?: boolean
  columns?: number
  write(text: string): unknown
}

export interface ProgressOptions {
  /** Milliseconds before the bar first shows (default 300). */
  delayMs?: number
  /** Fewest milliseconds between redraws (default 100). */
  intervalMs?: number
  /** Clock in ms (tests). */
  now?: () => number
}

export interface Progress {
  /** Reports `done` of `total`; draws when it is time to. */
  update(done: number, total: number): void
  /** Erases the bar, if one was drawn. */
  finish(): void
}

const WIDTH = 30
const CLEAR = '\r\x1b[K'

const graphemes = new Intl.Segmenter()

/** The longest start of text that takes at most `columns` terminal columns (a CJK character takes two). */
function fitColumns(text: string, columns: number): string {
  if (stringWidth(text) <= columns) return text
  let out = ''
  let used = 0
  for (const { segment } of graphemes.segment(text)) {
    const w = stringWidth(segment)
    if (used + w > columns) break
    out += segment
    used += w
  }
  return out
}

/** The bar's text for a terminal this wide: label, bar, percent, counts. Pure. */
export function renderBar(label: string, done: number, total: number, columns = 80): string {
  const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0
  const counts = `${Math.round(fraction * 100)}% ${done}/${total}`
  // Never wrap: a wrapped line cannot be redrawn in place. Widths are terminal columns, so a
  // label naming a folder such as 笔记 is measured as it is drawn.
  const room = Math.max(0, columns - 1)
  const width = Math.max(10, Math.min(WIDTH, room - stringWidth(label) - counts.length - 4))
  const filled = Math.round(fraction * width)
  const bar = ` [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${counts}`
  return fitColumns(`${fitColumns(label, Math.max(0, room - bar.length))}${bar}`, room)
}

export function progressBar(stream: ProgressStream, label: string, options: ProgressOptions = {}): Progress {
  if (stream.isTTY !== true) return { update() {}, finish() {} }
  const now = options.now ?? Date.now
  const delayMs = options.delayMs ?? 300
  const intervalMs = options.intervalMs ?? 100
  const started = now()
  let drawnAt: number | null = null
  return {
    update(done, total) {
      const t = now()
      if (t - started < delayMs) return
      if (drawnAt !== null && t - drawnAt < intervalMs && done < total) return
      // A terminal that reports no width (some pseudo-terminals say 0) gets the usual 80.
      const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80
      stream.write(`${CLEAR}${renderBar(label, done, total, columns)}`)
      drawnAt = t
    },
    finish() {
      if (drawnAt !== null) stream.write(CLEAR)
      drawnAt = null
    },
  }
}
