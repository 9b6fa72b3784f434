/** Command-line flags for the bench scripts: `--name value` pairs, read in order. */

export interface Flag {
  name: string
  /** The value after the flag; throws when there is none. */
  value(): string
}

export function* flags(argv: readonly string[]): Generator<Flag> {
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i] as string
    yield {
      name,
      value: () => {
        const v = argv[++i]
        if (v === undefined) throw new Error(`${name} needs a value`)
        return v
      },
    }
  }
}
