/**
 * Whether a process id names a live process: what stale-file cleanup (temporary files, cache
 * segments, cgroups, lock files named after their writer's pid) asks before removing anything.
 */

/** True when a process with this pid exists (EPERM: it exists, owned by someone else). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
