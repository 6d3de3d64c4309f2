/**
 * The trec_eval 9.0.8 reference of the metrics benches: a given binary, one built with `make` (the
 * Makefile's own flags) from a given source tree, or from the v9.0.8 tarball fetched from GitHub;
 * a check of a binary against the te9.0.8 outputs in `../shared/fixtures/trec`; and the `/usr/bin/time`
 * timing both sides of a comparison use.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** CPU seconds (user + system), wall seconds and peak RSS of one timed command. */
export interface Timing {
  cpu: number;
  wall: number;
  rssMb: number;
}

/** Runs `sh -c cmd` under /usr/bin/time; stdout to `out` (unless `cmd` writes it itself). */
export function timed(cmd: string, out: string, dir: string, writesOut = false): Timing {
  const tf = join(dir, 'time.txt');
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', '-o', tf, 'sh', '-c', writesOut ? cmd : `${cmd} > "${out}"`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`failed (${r.status}): ${cmd}\n${r.stderr}`);
  const [e, u, s, m] = readFileSync(tf, 'utf8').trim().split('\n').pop()!.split(/\s+/).map(Number);
  return { cpu: u + s, wall: e, rssMb: m / 1024 };
}

/** The v9.0.8 tag's source tarball. */
export const TREC_EVAL_TARBALL = 'https://github.com/usnistgov/trec_eval/archive/refs/tags/v9.0.8.tar.gz';

/** Where the reference comes from: `bin`, else built from `src`, else (unless `none`) fetched. */
export interface TrecEvalSource {
  bin?: string;
  src?: string;
  /** No reference wanted (`--coreb-only`): resolves to undefined. */
  none?: boolean;
  /** The bench's name, for the offline message. */
  script: string;
}

/** Builds trec_eval from the source tree `src` in a copy under `dir`; prints the VERSIONID built. */
export function buildTrecEval(src: string, dir: string): string {
  const makefile = join(src, 'Makefile');
  if (!existsSync(makefile)) throw new Error(`${src}: no Makefile, not a trec_eval source tree`);
  const tree = join(dir, 'trec_eval-src');
  rmSync(tree, { recursive: true, force: true });
  const cp = spawnSync('cp', ['-r', src, tree], { encoding: 'utf8' });
  if (cp.status !== 0) throw new Error(`copying ${src} to ${tree} failed:\n${cp.stderr}`);
  spawnSync('make', ['-C', tree, 'clean'], { encoding: 'utf8' });
  const r = spawnSync('make', ['-C', tree, 'trec_eval'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building trec_eval in ${tree} failed:\n${r.stderr}`);
  const bin = join(tree, 'trec_eval');
  const versionId = /^VERSIONID\s*=\s*(\S+)/m.exec(readFileSync(makefile, 'utf8'))?.[1] ?? 'unknown';
  const v = spawnSync(bin, ['-v'], { encoding: 'utf8' });
  const says = `${v.stdout}${v.stderr}`.trim();
  process.stdout.write(`built trec_eval from ${src}: Makefile VERSIONID ${versionId}; \`trec_eval -v\` says "${says}"\n`);
  return bin;
}

/** One te9.0.8 output file and the trec_eval arguments that made it. */
interface FixtureFile {
  expected: string;
  args: string[];
}

/** The te9.0.8 outputs under `root` (cases/ and trec_eval_testdata/v9.0.8/) with their commands. */
function fixtureFiles(root: string): FixtureFile[] {
  const files: FixtureFile[] = [];
  const variants: [string, string[]][] = [
    ['all_trec.q.txt', ['-q', '-m', 'all_trec']],
    ['all_trec.q.l2.txt', ['-q', '-m', 'all_trec', '-l', '2']],
    ['all_trec.q.c.txt', ['-q', '-c', '-m', 'all_trec']],
    ['all_trec.q.c.l2.txt', ['-q', '-c', '-l', '2', '-m', 'all_trec']],
  ];
  const cases = join(root, 'cases');
  for (const name of readdirSync(cases).sort()) {
    const d = join(cases, name);
    for (const [file, flags] of variants) {
      const expected = join(d, 'te9.0.8', file);
      if (existsSync(expected)) files.push({ expected, args: [...flags, join(d, 'qrels.txt'), join(d, 'run.txt')] });
    }
  }
  const t = join(root, 'trec_eval_testdata', 'v9.0.8');
  if (existsSync(t)) {
    const f = (name: string): string => join(t, name);
    const tests: [string, string[]][] = [
      ['out.test', [f('qrels.test'), f('results.test')]],
      ['out.test.a', ['-m', 'all_trec', f('qrels.test'), f('results.test')]],
      ['out.test.aq', ['-m', 'all_trec', '-q', f('qrels.test'), f('results.test')]],
      ['out.test.aqc', ['-m', 'all_trec', '-q', '-c', f('qrels.test'), f('results.trunc')]],
      ['out.test.aqcM', ['-m', 'all_trec', '-q', '-c', '-M100', f('qrels.test'), f('results.trunc')]],
      ['out.test.aql', ['-m', 'all_trec', '-mrelstring.20', '-q', '-l2', f('qrels.rel_level'), f('results.test')]],
      ['out.test.prefs', ['-m', 'all_prefs', '-q', '-R', 'prefs', f('prefs.test'), f('prefs.results.test')]],
      ['out.test.qrels_prefs', ['-m', 'all_prefs', '-q', '-R', 'qrels_prefs', f('qrels.test'), f('results.test')]],
      ['out.test.qrels_jg', ['-m', 'qrels_jg', '-q', '-R', 'qrels_jg', f('qrels.123'), f('results.test')]],
      [
        'out.test.meas_params',
        [
          '-q',
          '-miprec_at_recall..10,.20,.25,.75,.50',
          '-m',
          'P.5,7,3',
          '-m',
          'recall.20,2000',
          '-m',
          'Rprec_mult.5.0,0.2,0.35',
          '-mutility.2,-1,0,0',
          '-m',
          '11pt_avg..25,.5,.75',
          '-mndcg.1=3,2=9,4=4.5',
          '-mndcg_cut.10,20,23.4',
          '-msuccess.2,5,20',
          f('qrels.test'),
          f('results.test'),
        ],
      ],
      ['out.test.aqZ', ['-q', '-m', 'all_trec', '-Z', f('zscores_file'), f('qrels.test'), f('results.test')]],
    ];
    for (const [name, args] of tests) if (existsSync(f(name))) files.push({ expected: f(name), args });
  }
  return files;
}

/** Runs `bin` on every te9.0.8 fixture; prints the count identical and the files that differ. */
export function checkTrecEvalFixtures(bin: string): boolean {
  const root = fileURLToPath(new URL('../../../../shared/fixtures/trec', import.meta.url));
  if (!existsSync(join(root, 'cases')))
    throw new Error(`--check-fixtures: no trec_eval fixtures at ${root} (expected ../shared beside the checkout)`);
  const files = fixtureFiles(root);
  const differ: string[] = [];
  for (const { expected, args } of files) {
    const r = spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.stdout !== readFileSync(expected, 'utf8'))
      differ.push(`${expected} (exit ${r.status}${r.stderr ? `: ${r.stderr.trim().split('\n')[0]}` : ''})`);
  }
  process.stdout.write(`trec_eval output identical to the te9.0.8 fixtures on ${files.length - differ.length}/${files.length} files\n`);
  for (const d of differ) process.stdout.write(`  differs: ${d}\n`);
  return differ.length === 0;
}

/** The trec_eval binary: given, built from a given tree, or built from the fetched 9.0.8 tarball (exit 2 offline). */
export async function trecEvalBinary(source: TrecEvalSource, dir: string): Promise<string | undefined> {
  if (source.bin !== undefined) return source.bin;
  if (source.src !== undefined) return buildTrecEval(source.src, dir);
  if (source.none === true) return undefined;
  let body: ArrayBuffer;
  try {
    const res = await fetch(TREC_EVAL_TARBALL, { signal: AbortSignal.timeout(60_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = await res.arrayBuffer();
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
    process.stderr.write(
      `${source.script}: cannot download trec_eval 9.0.8 (${TREC_EVAL_TARBALL}): ${cause}. Offline? Give its source tree (--trec-eval-src DIR, e.g. a checkout of usnistgov/trec_eval at v9.0.8) or a binary (--trec-eval BIN), or time coreb alone with --coreb-only.\n`,
    );
    process.exit(2);
  }
  const tgz = join(dir, 'trec_eval-9.0.8.tar.gz');
  writeFileSync(tgz, Buffer.from(body));
  const r = spawnSync('tar', ['-xzf', tgz, '-C', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`unpacking ${tgz} failed:\n${r.stderr}`);
  return buildTrecEval(join(dir, 'trec_eval-9.0.8'), dir);
}
