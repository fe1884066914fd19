/** How the language table and the text-format table find an entry for a path: by base name, then extension. */

export const baseNameOf = (relPath: string): string => relPath.slice(relPath.lastIndexOf('/') + 1);

/** A base name's extension, lower case with its dot (`.md`); '' when it has none (`Makefile`, `.env`). */
export function extensionOf(base: string): string {
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/** A lookup of entries that own extensions and exact file names: the exact name wins over the extension. */
interface OwnsPaths { readonly extensions: readonly string[]; readonly fileNames?: readonly string[] }

export function pathLookup<Id extends string>(entries: Iterable<readonly [Id, OwnsPaths]>) {
  const byExtension = new Map<string, Id>();
  const byName = new Map<string, Id>();
  for (const [id, spec] of entries) {
    for (const ext of spec.extensions) byExtension.set(ext, id);
    for (const name of spec.fileNames ?? []) byName.set(name, id);
  }
  return (base: string): Id | undefined => byName.get(base) ?? byExtension.get(extensionOf(base));
}
