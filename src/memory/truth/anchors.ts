/**
 * Evaluating anchors against the host's probes. Two rules from the design: a probe that cannot
 * tell makes an anchor "unchecked", never "stale"; and a stale anchor only withdraws the memory
 * from resident injection, search is unchanged. Pure given the probes.
 */

import type { AnchorProbes } from '../../store/backend.js'
import type { Anchor, IndexEntry } from '../../types.js'

export type AnchorState = 'holds' | 'stale' | 'unchecked'

export interface AnchorVerdict {
  anchor: Anchor
  state: AnchorState
  reason: string
}

export function checkAnchor(anchor: Anchor, probes: AnchorProbes | undefined): AnchorVerdict {
  const verdict = (state: AnchorState, reason: string): AnchorVerdict => ({ anchor, state, reason })
  switch (anchor.kind) {
    case 'env': {
      const actual = anchor.name === null ? undefined : probes?.env?.(anchor.name)
      if (actual === undefined) return verdict('unchecked', 'the host cannot read environment variables')
      if (actual === null) return verdict('stale', `${anchor.name} is not set`)
      if (anchor.value !== '' && actual !== anchor.value) return verdict('stale', `${anchor.name} is "${actual.slice(0, 60)}", not "${anchor.value}"`)
      return verdict('holds', `${anchor.name} is set${anchor.value !== '' ? ' as expected' : ''}`)
    }
    case 'tool-list': {
      const tools = probes?.toolNames?.()
      if (tools === undefined) return verdict('unchecked', 'the host does not list its tools')
      return tools.includes(anchor.value) ? verdict('holds', `tool ${anchor.value} is offered`) : verdict('stale', `tool ${anchor.value} is no longer offered`)
    }
    case 'self-version': {
      const version = probes?.selfVersion?.()
      if (version === undefined) return verdict('unchecked', 'the host does not report the plugin version')
      return version === anchor.value ? verdict('holds', `version is ${version}`) : verdict('stale', `version is ${version}, not ${anchor.value}`)
    }
    case 'path-exists': {
      const exists = probes?.pathExists?.(anchor.value)
      if (exists === undefined) return verdict('unchecked', 'the host cannot check paths')
      return exists ? verdict('holds', `${anchor.value} exists`) : verdict('stale', `${anchor.value} does not exist`)
    }
  }
}

/** The first anchor of the entry that no longer holds, if any. */
export function staleAnchor(entry: IndexEntry, probes: AnchorProbes | undefined): AnchorVerdict | null {
  for (const anchor of entry.anchors) {
    const v = checkAnchor(anchor, probes)
    if (v.state === 'stale') return v
  }
  return null
}
