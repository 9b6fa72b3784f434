/** The output types of the palace, navigation and decay tools, for their renderings. */

import type { memoryAuditForgottenTool } from '../memory-audit-forgotten.js'
import type { memoryDecayTool } from '../memory-decay.js'
import type { memoryNeighborsTool } from '../memory-neighbors.js'
import type { memoryRestoreTool } from '../memory-restore.js'
import type { memoryRoomsTool } from '../memory-rooms.js'
import type { memoryTimelineTool } from '../memory-timeline.js'
import type { Infer } from './schema.js'

type Output<T extends { output: unknown }> = Infer<T['output']>

export type TimelineOutput = Output<typeof memoryTimelineTool>
export type RoomsOutput = Output<typeof memoryRoomsTool>
export type NeighborsOutput = Output<typeof memoryNeighborsTool>
export type DecayOutput = Output<typeof memoryDecayTool>
export type RestoreOutput = Output<typeof memoryRestoreTool>
export type AuditForgottenOutput = Output<typeof memoryAuditForgottenTool>
