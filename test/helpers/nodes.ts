import { symbolPathOf } from '../../src/core/tools/shared';

/** The qualified name a listed node's id spells (null for a file): answers list nodes by id and path. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read as loose JSON in tests
export const sp = (n: any): string | null => symbolPathOf(n as { id: string; path: string });
