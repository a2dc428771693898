// Node's permission model (--permission; --experimental-permission on Node 20), through its public API.
// process.permission is fixed at start-up (not configurable), but its `has` is an ordinary property that any code
// can replace: the one there when this module loads is kept and asked (bound to its object). That is a first
// look only: Node stays the authority, since its own Process handle runs its own check before every child forklab
// starts (internals.ts, releaseReal), and a refusal there is thrown as child_process throws it.

type Permission = { has(scope: string, reference?: string): boolean };
const model = (process as { permission?: Permission }).permission;
const has: ((scope: string) => boolean) | undefined = model && typeof model.has === 'function' ? model.has.bind(model) : undefined;

/** Whether Node lets this process start children: process.permission.has('child') (as it was when this module
 * loaded) under the model, else true. */
export function childrenAllowed(): boolean {
  if (model === undefined) return true;
  return has?.('child') === true;
}

/** Whether the permission model is on. */
export function permissionModel(): boolean {
  return model !== undefined;
}

/** Whether child_process's Pipe handles may be opened on a descriptor (what forklab does with a pipe's parent
 * end): from the Node that knows --allow-net (26) on, the permission model refuses Pipe.open without it. */
export function pipeOpenAllowed(): boolean {
  if (model === undefined || !process.allowedNodeEnvironmentFlags.has('--allow-net')) return true;
  return has?.('net') === true;
}

/** Why forklab leaves a call to Node's handle under the model when children may not be started. */
export const REFUSED = 'permission: Node’s permission model does not allow child processes (Node’s handle refuses, as child_process)';
