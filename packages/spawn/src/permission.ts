// Node's permission model (--permission; --experimental-permission on Node 20), through its public API.

/** Whether Node lets this process start children: process.permission.has('child') under the model, else true. */
export function childrenAllowed(): boolean {
  const p = (process as { permission?: { has(scope: string): boolean } }).permission;
  return p === undefined || p.has('child') === true;
}

/** Whether the permission model is on. */
export function permissionModel(): boolean {
  return (process as { permission?: unknown }).permission !== undefined;
}

/** Whether child_process's Pipe handles may be opened on a descriptor (what forklab does with a pipe's parent
 * end): from the Node that knows --allow-net (26) on, the permission model refuses Pipe.open without it. */
export function pipeOpenAllowed(): boolean {
  const p = (process as { permission?: { has(scope: string): boolean } }).permission;
  if (p === undefined || !process.allowedNodeEnvironmentFlags.has('--allow-net')) return true;
  return p.has('net') === true;
}
