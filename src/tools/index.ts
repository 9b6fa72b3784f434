/** Every tool, in the order hosts list them. Adapters walk this list; nothing else registers tools. */

import { forgetMemoriesBySessionTool } from './forget-memories-by-session.js'
import { memoryAssembleTool } from './memory-assemble.js'
import { memoryConfirmTool } from './memory-confirm.js'
import { memoryDigestTool } from './memory-digest.js'
import { memoryNavTool } from './memory-nav.js'
import { memoryResolveTool } from './memory-resolve.js'
import { memorySearchHybridTool } from './memory-search-hybrid.js'
import { memorySweepTool } from './memory-sweep.js'
import type { ToolDeclaration } from './tool.js'
import { writeMemoryTool } from './write-memory.js'

export const TOOLS: readonly ToolDeclaration[] = [
  memoryNavTool,
  memorySearchHybridTool,
  memoryAssembleTool,
  writeMemoryTool,
  memoryConfirmTool,
  memoryResolveTool,
  forgetMemoriesBySessionTool,
  memorySweepTool,
  memoryDigestTool,
]

export function findTool(name: string): ToolDeclaration | undefined {
  return TOOLS.find((t) => t.name === name)
}
