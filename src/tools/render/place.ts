/**
 * What the model reads of the palace, navigation and decay tools (see text.ts). Pure; values
 * reach it only after they satisfy the tool's output schema.
 */

import { truncateUnits } from '../../text.js'
import type { AuditForgottenOutput, DecayOutput, NeighborsOutput, RestoreOutput, RoomsOutput, TimelineOutput } from '../declare/place-outputs.js'

const oneLine = (text: string, max: number) => truncateUnits(text.replace(/\s+/g, ' ').trim(), max)

type Placed = { id: string; type: string; status: string; title: string; summary: string; location?: string }
const line = (e: Placed) => `- ${e.location ?? '(no place)'} ${e.id} [${e.type}, ${e.status}] ${oneLine(e.title, 80)}: ${oneLine(e.summary, 160)}`

export function renderTimeline(v: TimelineOutput): string {
  const end = v.offset + v.entries.length
  return [
    `Timeline (${v.order === 'tour' ? 'tour order' : 'newest first'}): ${v.entries.length === 0 ? 0 : v.offset + 1}-${end} of ${v.total}${v.unplaced !== undefined && v.unplaced > 0 ? `, ${v.unplaced} without a place at the end` : ''}.`,
    ...v.entries.map(line),
    ...(v.has_more ? [`More: memory_timeline with offset ${end}.`] : []),
  ].join('\n')
}

export function renderRooms(v: RoomsOutput): string {
  if (v.members !== undefined) return [`${v.members.length} memory(ies) in this room, by slot:`, ...v.members.map(line)].join('\n')
  if (v.rooms.length === 0) return 'No rooms yet: every new memory gets a place (room#slot) when it is written.'
  return [
    `${v.rooms.length} room(s) in tour order, ${v.capacity} slots each${v.unplaced > 0 ? `; ${v.unplaced} memory(ies) without a place` : ''}:`,
    ...v.rooms.map((r) => `- ${r.room}: ${r.used}/${v.capacity} slots given, ${r.current} current${r.latest !== null ? `; latest ${r.latest.id} ${oneLine(r.latest.title, 60)}` : ''}`),
  ].join('\n')
}

export function renderNeighbors(v: NeighborsOutput): string {
  return [
    `${v.neighbors.length} neighbour(s) of ${v.id} within ${v.hops} hop(s)${v.truncated ? ' (cut: the nearest are listed)' : ''}.`,
    ...v.neighbors.map((n) => `${line(n)} (hop ${n.hop}, ${n.via} ${n.from})`),
    ...(v.missing.length > 0 ? [`Linked ids that name no memory: ${v.missing.join(', ')}.`] : []),
  ].join('\n')
}

export function renderDecay(v: DecayOutput): string {
  return [
    v.guidance,
    ...v.archived.map((a) => `- ${a.id} ${oneLine(a.title, 80)}: ${a.reason}`),
    ...(v.more > 0 ? [`${v.more} more candidate(s) beyond limit.`] : []),
  ].join('\n')
}

export function renderRestore(v: RestoreOutput): string {
  return [
    ...v.restored.map((r) => `Restored ${r.id} as ${r.status}${r.superseded_by !== undefined ? ` (a newer version, ${r.superseded_by}, is current)` : ''}.`),
    ...(v.unchanged.length > 0 ? [`Not archived, unchanged: ${v.unchanged.join(', ')}.`] : []),
    ...(v.missing.length > 0 ? [`No such memory: ${v.missing.join(', ')}.`] : []),
  ].join('\n') || 'Nothing to restore.'
}

export function renderAuditForgotten(v: AuditForgottenOutput): string {
  return [
    v.guidance,
    ...v.archivals.map((a) => `- ${a.at.slice(0, 10)} ${a.id}${a.title !== null ? ` ${oneLine(a.title, 80)}` : ''}: ${a.reason}; now ${a.status ?? 'gone'}${a.restored ? ' (restored)' : ''}`),
  ].join('\n')
}
