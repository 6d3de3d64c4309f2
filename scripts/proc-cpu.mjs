// CPU seconds of this process from /proc/self/stat (Linux): its own (utime + stime) and/or its
// waited-for children's (cutime + cstime), in clock ticks of 100 per second. Shared by the test
// runner (its children: the whole test run) and the per-file probe (a test file with what it starts).
import { readFileSync } from 'node:fs';

/** CPU seconds of this process: `own` and/or `children` parts; NaN where /proc is not there. */
export function procCpuSeconds({ own = false, children = false } = {}) {
  try {
    // The fields after the command name (which may hold spaces) start at field 3.
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    const at = (field) => Number(f[field - 3]);
    return ((own ? at(14) + at(15) : 0) + (children ? at(16) + at(17) : 0)) / 100;
  } catch {
    return Number.NaN;
  }
}
