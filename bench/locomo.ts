/** LoCoMo as the benches read it (bench/data/README.md): its types, its dates, its sessions and the text of a turn. */

export interface LocomoTurn {
  speaker: string
  dia_id: string
  text: string
  blip_caption?: string
}

export interface LocomoQa {
  question: string
  /** The gold answer (categories 1-4). */
  answer?: string | number
  evidence: string[]
  category: number
}

export interface LocomoConversation {
  sample_id: string
  conversation: Record<string, unknown>
  qa: LocomoQa[]
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']

/** "1:56 pm on 8 May, 2023" (+ seconds) to ISO-8601 UTC. */
export function parseLocomoDate(text: string, seconds = 0): string {
  const m = /^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})\s*$/i.exec(text)
  if (m === null) throw new Error(`unparsed LoCoMo date: ${JSON.stringify(text)}`)
  const [, hh, mm, ampm, day, monthName, year] = m
  const month = MONTHS.indexOf(monthName!.toLowerCase())
  if (month === -1) throw new Error(`unknown month in LoCoMo date: ${JSON.stringify(text)}`)
  let hour = Number(hh) % 12
  if (ampm!.toLowerCase() === 'p') hour += 12
  return new Date(Date.UTC(Number(year), month, Number(day), hour, Number(mm), seconds)).toISOString()
}

/** The numbers of a conversation's sessions, in order. */
export function sessionNumbers(c: Record<string, unknown>): number[] {
  return Object.keys(c)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(c[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b)
}
