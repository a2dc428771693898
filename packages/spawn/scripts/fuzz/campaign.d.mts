// Types of campaign.mjs for the tests that call it (the campaign itself runs from fuzz-spawn.mjs).
export declare const PROCESS_LIMIT_MS: number;
export declare function floodLines<T>(o: T): T;
export declare const WRITTEN_BEFORE_THE_KILL: string;
export declare function killedAtStart<T>(o: T): T;
