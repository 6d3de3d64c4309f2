/**
 * The process helper of process-host.ts: runs each requested sandboxed process with runProcess and
 * its own tree accounting, replies with the result. When the judge's process goes away (the IPC
 * channel closes) it kills its running processes and exits.
 */
import type { HostReply, HostRequest } from './process-host.js';
import { detectTreeAccounting, type TreeAccounting, type TreeMechanism } from './process-tree.js';
import { notStarted, runProcessInTree } from './sandbox.js';

const accounting = new Map<TreeMechanism, TreeAccounting | undefined>();
const running = new Map<number, AbortController>();

function treeOf(mechanism: TreeMechanism): TreeAccounting | undefined {
  if (!accounting.has(mechanism)) accounting.set(mechanism, detectTreeAccounting({ mechanism }));
  return accounting.get(mechanism);
}

process.on('message', (m: HostRequest) => {
  if (m.type === 'abort') {
    running.get(m.id)?.abort();
    return;
  }
  const { id, run } = m;
  const controller = new AbortController();
  running.set(id, controller);
  const acc = run.tree === undefined ? undefined : treeOf(run.tree.mechanism);
  const tree = acc === undefined || run.tree === undefined ? undefined : { accounting: acc, limits: run.tree.limits };
  void runProcessInTree(run.config, { ...run.spec, signal: controller.signal }, tree)
    .then((result) => {
      running.delete(id);
      process.send?.({ id, result } satisfies HostReply);
    })
    .catch((e: unknown) => {
      running.delete(id);
      process.send?.({ id, result: notStarted(`coreb: the process helper failed: ${String(e)}\n`) } satisfies HostReply);
    });
});

process.on('disconnect', () => {
  for (const c of running.values()) c.abort();
  const finish = (): void => {
    for (const acc of accounting.values()) acc?.close();
    process.exit(0);
  };
  // runProcess kills each aborted run's process group at once; give their results a moment
  if (running.size === 0) finish();
  else setTimeout(finish, 200).unref();
  setInterval(() => {
    if (running.size === 0) finish();
  }, 20).unref();
});
