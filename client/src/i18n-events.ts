/**
 * The operation log's words for the ledger's event kinds, in Chinese and English (the ledger keeps
 * the English name; the log shows it in the panel's language, the name itself in its title). A
 * kind not listed here, from a newer store, is shown as it is logged.
 */

import type { Locale } from './i18n.js'

const zh = {
  write: '写入',
  supersede: '取代旧版本',
  dedupe: '重复，未再存',
  conflict: '冲突',
  confirm: '确认',
  resolve: '裁决冲突',
  'soft-delete': '软删',
  restore: '恢复',
  forget: '遗忘',
  purge: '清除文件',
  archive: '归档',
  review: '复习',
  consolidate: '巩固',
  'consolidate-degraded': '巩固（未用模型）',
  promote: '提升为主题',
  reflect: '归纳',
  merge: '合并',
  undemote: '撤销降级',
  retract: '撤回',
  'claim-update': '更新断言',
  alias: '别名',
  move: '移位',
  rebuild: '重建索引',
  import: '导入',
  config: '修改设置',
  'store-route': '写进个人库',
  'external-change': '文件被外部修改',
  'sync-kept': '同步保留',
  'sync-kept-both': '同步两边都保留',
  assess: '证据评估',
  'model-judge': '模型裁决',
  'model-judge-undo': '撤销模型裁决',
  'lifecycle/attach': '会话开始',
  'lifecycle/detach': '会话结束',
  'lifecycle/auto-settle': '自动沉淀',
} as const

type EventKind = keyof typeof zh

const en: Record<EventKind, string> = {
  write: 'Written',
  supersede: 'Replaced an old version',
  dedupe: 'Repeat, not stored again',
  conflict: 'Conflict',
  confirm: 'Confirmed',
  resolve: 'Conflict settled',
  'soft-delete': 'Soft-deleted',
  restore: 'Restored',
  forget: 'Forgotten',
  purge: 'Files purged',
  archive: 'Archived',
  review: 'Reviewed',
  consolidate: 'Consolidated',
  'consolidate-degraded': 'Consolidated without a model',
  promote: 'Promoted to a topic',
  reflect: 'Reflected',
  merge: 'Merged',
  undemote: 'Demotion undone',
  retract: 'Retracted',
  'claim-update': 'Claim updated',
  alias: 'Alias',
  move: 'Moved',
  rebuild: 'Index rebuilt',
  import: 'Imported',
  config: 'Settings changed',
  'store-route': 'Written to the personal store',
  'external-change': 'File changed outside',
  'sync-kept': 'Kept by sync',
  'sync-kept-both': 'Both kept by sync',
  assess: 'Evidence assessed',
  'model-judge': 'Model judgement',
  'model-judge-undo': 'Model judgement undone',
  'lifecycle/attach': 'Session started',
  'lifecycle/detach': 'Session ended',
  'lifecycle/auto-settle': 'Auto-settled',
}

const WORDS: Readonly<Record<Locale, Readonly<Record<EventKind, string>>>> = { zh, en }

/** The event kind in the panel's language; a kind this panel does not know, as logged. */
export function eventLabel(locale: Locale, kind: string): string {
  return Object.hasOwn(zh, kind) ? WORDS[locale][kind as EventKind] : kind
}
