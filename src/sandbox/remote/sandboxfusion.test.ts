/**
 * What coreb sends SandboxFusion as `memory_limit_MB`, per language: its memory limit is an
 * address-space limit of the compiler and the program, which Go, the JVM and Ruby cannot start under
 * (docs/exec.md "What a service's memory limit means"), and what each result then says it could not honour.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_LIMITS } from '../languages/index.js';
import { resolveRunLimits } from '../languages/tools.js';
import { createSandboxFusionService, sandboxFusionMemoryMb } from './sandboxfusion.js';
import type { RemoteSubmission } from './service.js';

function sub(language: RemoteSubmission['language'], memoryLimitMb = 256): RemoteSubmission {
  return {
    language,
    fileName: 'x',
    text: '',
    stdin: '',
    extraFiles: [],
    limits: resolveRunLimits(DEFAULT_LIMITS[language as keyof typeof DEFAULT_LIMITS], language, { memoryLimitMb }),
    compileTimeoutMs: 60000,
    cxxFlags: ['-O2'],
  };
}

test('Python and C++ get the address space coreb gives their runs; Go, Java and Ruby get no limit, and say why', () => {
  // a 256 MiB memory limit moves the 1 GiB address space down by 256 MiB, as in the local judge
  assert.equal(sandboxFusionMemoryMb(sub('python')), 768);
  assert.equal(sandboxFusionMemoryMb(sub('cpp')), 768);
  for (const l of ['java', 'go', 'ruby'] as const) assert.equal(sandboxFusionMemoryMb(sub(l)), -1, l);
  const service = createSandboxFusionService('http://127.0.0.1:1');
  assert.ok(service.unhonoured(sub('java')).some((u) => /memory limit 256 MiB not sent: .*address-space limit.*JVM/.test(u)));
  assert.ok(service.unhonoured(sub('go')).some((u) => /go build/.test(u)));
  assert.ok(service.unhonoured(sub('cpp')).some((u) => /sent as an address-space limit of 768 MiB/.test(u)));
});
