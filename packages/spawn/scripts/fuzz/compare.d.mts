// Types of compare.mjs for the tests that call it.
export declare const NORMALISATIONS: readonly string[];
export declare const IPC_NOT_JSON: { readonly name: string; readonly message: string };
export declare const WRITTEN_BEFORE_THE_KILL: string;
export declare const ENDED_AT_START: string;
export declare const PAST_MAX_BUFFER: string;
export declare const CHATTY_BYTES: string;
export declare const READ_BEFORE_MAX_BUFFER: string;
export declare const ENDED_OR_KILLED_FOR_MAX_BUFFER: string;
export declare const FIELDS: readonly string[];
export declare function floodLines<T>(o: T): T;
export declare function killedAtStart<T>(o: T, stdio?: unknown): T;
export declare function outsideWrites(stdio: unknown): Set<'stdout' | 'stderr' | 'fd-file' | 'stream-file' | 'socket'>;
export declare function normalise(obs: Record<string, unknown>, dir: string, register?: string | null, kase?: object): Record<string, unknown>;
export declare function differences(refs: readonly object[], subs: readonly object[]): { field: string; reference: string[]; subject: string[] }[];
export declare function runnerNote(field: string): string | null;
