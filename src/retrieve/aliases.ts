/**
 * Synonym groups that bridge the vocabulary gap keyword search cannot: "数据库连的哪个" has no
 * word in common with "sqlite / postgres". A query term in a group brings the group's other
 * terms in at a low weight, and a hit found only through them says so (`reason: "alias"`).
 *
 * 17 built-in groups of project and personal words, the colloquial Chinese groups of
 * language/zh-synonyms.ts, plus `<root>/aliases.json` (`{ "group": ["term", ...] }`) merged in; a
 * broken file is ignored with a warning. Terms are matched after tokenisation, so a group entry
 * may be a phrase in either language.
 */

import type { MemoryBackend } from '../store/backend.js'
import { tokenize } from '../language/tokenizer.js'
import { ZH_SYNONYM_GROUPS } from '../language/zh-synonyms.js'

export const BUILTIN_ALIAS_GROUPS: Readonly<Record<string, readonly string[]>> = {
  database: ['数据库', 'database', 'db', 'sql', 'sqlite', 'postgres', 'postgresql', 'mysql', 'mongodb', '库表'],
  check: ['检查', '校验', '测试', 'test', 'verify', 'lint', 'check', 'ci', '自检', '验证'],
  deploy: ['部署', '上线', '发布', 'deploy', 'release', 'ship', 'rollout', '发版'],
  packageManager: ['包管理', '包管理器', 'npm', 'pnpm', 'yarn', 'package manager', '依赖管理'],
  config: ['配置', '设置', 'config', 'configuration', 'settings', 'env', '环境变量'],
  error: ['错误', '报错', '异常', 'error', 'exception', 'bug', 'crash', '崩溃', '故障'],
  auth: ['认证', '鉴权', '登录', 'auth', 'login', 'token', 'oauth', 'sso', '权限'],
  cache: ['缓存', 'cache', 'redis', 'memcached', 'cdn'],
  log: ['日志', 'log', 'logging', 'trace', '追踪', '监控', 'monitor'],
  performance: ['性能', '速度', '延迟', '卡顿', 'performance', 'latency', 'slow', 'speed', 'fast'],
  docs: ['文档', '说明', 'docs', 'documentation', 'readme', 'wiki', 'manual'],
  storage: ['存储', '对象存储', '文件存储', 'storage', 's3', 'oss', 'bucket', 'upload', '上传'],
  image: ['图片', '图像', '照片', 'image', 'picture', 'photo', 'screenshot', '截图'],
  preference: ['偏好', '喜欢', '习惯', 'preference', 'prefer', 'like', 'habit', '倾向', '爱好', '兴趣', 'hobby', 'hobbies'],
  // A person's attributes, as questions name them and as statements leave them unnamed ("我叫李明").
  name: ['姓名', '名字', '全名', '称呼', 'name', 'full name'],
  home: ['住址', '居住', '居住地', '住在', '家住', '住哪'],
  pet: ['宠物', '猫', '狗', '猫咪', '小狗', 'pet', 'pets', 'cat', 'dog'],
  ...ZH_SYNONYM_GROUPS,
}

export interface AliasTable {
  /**
   * Alias terms a query brings in: for every group one of whose members is fully present in the
   * query's tokens, the tokens of its other members that the query does not already have.
   */
  expand(queryTokens: readonly string[]): string[]
  readonly groups: number
}

export function buildAliasTable(groups: Record<string, readonly string[]>): AliasTable {
  const compiled = Object.values(groups).map((members) =>
    members.map((m) => tokenize(m, { cjkUnigrams: 'isolated' })).filter((tokens) => tokens.length > 0),
  )
  return {
    groups: compiled.length,
    expand(queryTokens) {
      const present = new Set(queryTokens)
      const out = new Set<string>()
      for (const members of compiled) {
        if (!members.some((tokens) => tokens.every((t) => present.has(t)))) continue
        for (const tokens of members) for (const t of tokens) if (!present.has(t)) out.add(t)
      }
      return [...out]
    },
  }
}

/** Reads `<root>/aliases.json`; a missing file is no groups, a broken one is ignored with a warning. */
export async function loadUserAliases(backend: MemoryBackend): Promise<Record<string, string[]>> {
  const text = await backend.readFile('aliases.json').catch(() => null)
  if (text === null) return {}
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object of groups')
    const out: Record<string, string[]> = {}
    for (const [name, members] of Object.entries(parsed as Record<string, unknown>)) {
      if (!Array.isArray(members)) continue
      const strings = members.filter((m): m is string => typeof m === 'string' && m.trim() !== '')
      // One term is enough when it extends a built-in group of the same name.
      if (strings.length > 0) out[name] = strings
    }
    return out
  } catch (err) {
    console.warn(`dsh-memory-agent: ignoring ${backend.root}/aliases.json (${err instanceof Error ? err.message : String(err)})`)
    return {}
  }
}

/** Built-in groups merged with the user's: a user group with a built-in name extends it. */
export function mergeAliasGroups(user: Record<string, string[]>): Record<string, readonly string[]> {
  const merged: Record<string, readonly string[]> = { ...BUILTIN_ALIAS_GROUPS }
  for (const [name, members] of Object.entries(user)) merged[name] = [...(merged[name] ?? []), ...members]
  return merged
}
