/**
 * The few React APIs the DSH settings section uses. React itself is the host's: the web shell
 * seeds it into the module table and the bundle leaves `require("react")` to it, so the project
 * needs neither React nor its types as a dependency.
 */
declare module 'react' {
  export interface RefObject<T> {
    current: T | null
  }
  export type ReactNode = unknown
  export function createElement(type: string, props: Record<string, unknown> | null, ...children: ReactNode[]): ReactNode
  export function useRef<T>(initial: T | null): RefObject<T>
  export function useEffect(effect: () => void | (() => void), deps: readonly unknown[]): void
  export function useSyncExternalStore<T>(subscribe: (onChange: () => void) => () => void, getSnapshot: () => T): T
}
