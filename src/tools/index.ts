/** Every tool, in the order hosts list them. Adapters walk this list; nothing else registers tools. */

import { forgetMemoriesBySessionTool } from './forget-memories-by-session.js'
import { memoryAssembleTool } from './memory-assemble.js'
import { memoryConfirmTool } from './memory-confirm.js'
import { memoryDigestTool } from './memory-digest.js'
import { memoryDuplicatesTool } from './memory-duplicates.js'
import { memoryForgetTool } from './memory-forget.js'
import { memoryHistoryTool } from './memory-history.js'
import { memoryLineageTool } from './memory-lineage.js'
import { memoryMergeTool } from './memory-merge.js'
import { memoryNavTool } from './memory-nav.js'
import { memoryPurgeTool } from './memory-purge.js'
import { memoryResolveTool } from './memory-resolve.js'
import { memorySearchHybridTool } from './memory-search-hybrid.js'
import { memorySweepTool } from './memory-sweep.js'
import { memoryVerifyTool } from './memory-verify.js'
import type { ToolDeclaration } from './declare/tool.js'
import { memoryUndemoteTool } from './memory-undemote.js'
import { memoryUndoJudgementTool } from './memory-undo-judgement.js'
import { memoryAssessTool } from './memory-assess.js'
import { memoryReportTool } from './memory-report.js'
import { memoryReviewQueueTool } from './memory-review-queue.js'
import { memoryReviewTool } from './memory-review.js'
import { writeMemoryTool } from './write-memory.js'
import { memoryTimelineTool } from './memory-timeline.js'
import { memoryNeighborsTool } from './memory-neighbors.js'
import { memoryRoomsTool } from './memory-rooms.js'
import { memoryDecayTool } from './memory-decay.js'
import { memoryConsolidateTool } from './memory-consolidate.js'
import { memoryRestoreTool } from './memory-restore.js'
import { memoryAuditForgottenTool } from './memory-audit-forgotten.js'
import { memoryEmbedTool } from './memory-embed.js'
import { memoryAnswerTool } from './memory-answer.js'
import { memoryStatsTool } from './memory-stats.js'
import { memoryWorkspacesTool } from './memory-workspaces.js'

export const TOOLS: readonly ToolDeclaration[] = [
  memoryNavTool,
  memorySearchHybridTool,
  memoryVerifyTool,
  memoryAssembleTool,
  writeMemoryTool,
  memoryConfirmTool,
  memoryResolveTool,
  forgetMemoriesBySessionTool,
  memorySweepTool,
  memoryDigestTool,
  memoryDuplicatesTool,
  memoryMergeTool,
  memoryUndemoteTool,
  memoryUndoJudgementTool,
  memoryHistoryTool,
  memoryLineageTool,
  memoryForgetTool,
  memoryPurgeTool,
  memoryTimelineTool,
  memoryNeighborsTool,
  memoryRoomsTool,
  memoryDecayTool,
  memoryConsolidateTool,
  memoryRestoreTool,
  memoryAuditForgottenTool,
  memoryAssessTool,
  memoryReviewQueueTool,
  memoryReviewTool,
  memoryReportTool,
  memoryEmbedTool,
  memoryAnswerTool,
  memoryStatsTool,
  memoryWorkspacesTool,
]

export function findTool(name: string): ToolDeclaration | undefined {
  return TOOLS.find((t) => t.name === name)
}
