/**
 * MTEB's names for CoREB: its task names, languages, cut-offs and pinned dataset revisions, shared
 * by the MTEB export (report) and the import of MTEB results files (dataset).
 */

/** The cut-offs MTEB reports for retrieval tasks. */
export const MTEB_K = [1, 3, 5, 10, 20, 100, 1000] as const;

/** MTEB task name of each CoREB task (retrieval) and of the reranking variants (issue 10: `Coreb*Reranking`). */
export const MTEB_TASK_NAMES: Readonly<Record<string, string>> = {
  text2code: 'CorebT2CRetrieval',
  code2text: 'CorebC2TRetrieval',
  code2code: 'CorebC2CRetrieval',
};

/** Languages MTEB lists for the CoREB tasks (ISO 639-3 + script, `-Code` for programming languages). */
export const MTEB_LANGUAGES: readonly string[] = ['eng-Latn', 'python-Code', 'ruby-Code', 'java-Code', 'go-Code', 'c++-Code'];

/**
 * MTEB's current dataset revisions of its CoREB tasks (what an export writes), per coreb split: MTEB's CoREB tasks are the
 * official test release v202603 (their corpora hold its 1,744 code documents and 1,123 text-to-code
 * queries). Source: `mteb/tasks/retrieval/code/coreb_retrieval.py` and
 * `mteb/tasks/reranking/code/coreb_reranking.py`, mteb commit 16cc38696 (2026-05-21, "Add CoREB
 * benchmark"), unchanged at a905523d0 (2026-08-22).
 */
export const MTEB_DATASET_REVISIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  release_v2603: {
    CorebT2CRetrieval: '4c171f120c2a63216df5499e573af234b8c30376',
    CorebC2TRetrieval: 'ed660dab63182a8290c5a8d4bc7b3e6e2306d36b',
    CorebC2CRetrieval: 'ee25caf9aa8a6334da7c40e5b45ba579faf66a5e',
    CorebT2CReranking: '11aaa91e8c4915be01ba73fa89fadd0cebbf4972',
    CorebC2TReranking: '79beb7ee1b271cfd03966a3f5c553aa2c1cd8a95',
    CorebC2CReranking: '92c6923fc428dd176d4a7379f3dac7564313ae37',
  },
};

/** One dataset revision MTEB's task metadata has pinned for a CoREB task. */
export interface MtebPinnedRevision {
  /** MTEB task name (`CorebT2CRetrieval`, `CorebT2CReranking`). */
  task: string;
  /** The Hugging Face dataset the revision is a commit of. */
  dataset: string;
  /** The dataset commit. */
  revision: string;
  /** The coreb split the revision holds. */
  split: string;
  /** The day MTEB's task file first pinned it (its commit's date). */
  pinned: string;
  /** The mteb commit that pinned it. */
  mtebCommit: string;
  /** The day a later mteb commit pinned another revision of the task instead; absent for the current pin. */
  replaced?: string;
}

const pin = (task: string, dataset: string, revision: string, pinned: string, mtebCommit: string, replaced?: string): MtebPinnedRevision => ({
  task,
  dataset,
  revision,
  split: 'release_v2603',
  pinned,
  mtebCommit,
  ...(replaced !== undefined ? { replaced } : {}),
});

/**
 * Every dataset revision MTEB's task metadata has pinned for its CoREB tasks, read from the history
 * of `mteb/tasks/retrieval/code/coreb_retrieval.py` and `mteb/tasks/reranking/code/coreb_reranking.py`
 * (embeddings-benchmark/mteb, commits 4162227a8 of 2026-05-12 to a905523d0 of 2026-08-22). All hold
 * the official test release v202603. Published results carry the revision they were computed on:
 * the results of MTEB's pull request for CoREB (results#541) the `hq-bench/*` ones of 2026-05-13,
 * later runs the `mteb/*` copies.
 */
export const MTEB_PINNED_REVISIONS: readonly MtebPinnedRevision[] = [
  pin('CorebC2TRetrieval', 'hq-bench/coreb-c2t-retrieval', 'a5bb69191efd5b777675a23fb8c7266e144208c7', '2026-05-12', '4162227a8', '2026-05-13'),
  pin('CorebC2CRetrieval', 'hq-bench/coreb-c2c-retrieval', '7747a297b965e9a0153434630ca03810a8feb2dc', '2026-05-12', '4162227a8', '2026-05-13'),
  pin('CorebT2CRetrieval', 'hq-bench/coreb-t2c-retrieval', '3ee0421a5a1b45dfb67b50f99d11e57222ed8f21', '2026-05-12', '4162227a8', '2026-05-13'),
  pin('CorebC2TReranking', 'hq-bench/coreb-c2t-reranking', '7b389786924b7f5a7586297aa9f94be15a58dea1', '2026-05-12', '957e08cf3', '2026-05-20'),
  pin('CorebC2CReranking', 'hq-bench/coreb-c2c-reranking', '320667716b6b9c45768ff05f5ebb356e900741ce', '2026-05-12', '957e08cf3', '2026-05-20'),
  pin('CorebT2CReranking', 'hq-bench/coreb-t2c-reranking', 'c9f6a726da9e288a6f0c89dc4b960a52c704360e', '2026-05-12', '957e08cf3', '2026-05-20'),
  pin('CorebC2TRetrieval', 'hq-bench/coreb-c2t-retrieval', 'dc306b20b36df58d87171763f7db5bb7ce0f418b', '2026-05-13', '4cba33a99', '2026-05-20'),
  pin('CorebC2CRetrieval', 'hq-bench/coreb-c2c-retrieval', '7fc3acd92e887f8ea4a2eaf724f22cdafe45ec3d', '2026-05-13', '4cba33a99', '2026-05-20'),
  pin('CorebT2CRetrieval', 'hq-bench/coreb-t2c-retrieval', '227a84ee19db93beeccfff0188299ed95c808742', '2026-05-13', '4cba33a99', '2026-05-20'),
  pin('CorebC2TReranking', 'mteb/coreb-c2t-reranking', '79beb7ee1b271cfd03966a3f5c553aa2c1cd8a95', '2026-05-20', 'c6dd7e674'),
  pin('CorebC2CReranking', 'mteb/coreb-c2c-reranking', '92c6923fc428dd176d4a7379f3dac7564313ae37', '2026-05-20', 'c6dd7e674'),
  pin('CorebT2CReranking', 'mteb/coreb-t2c-reranking', '11aaa91e8c4915be01ba73fa89fadd0cebbf4972', '2026-05-20', 'c6dd7e674'),
  pin('CorebC2TRetrieval', 'mteb/coreb-c2t-retrieval', 'ed660dab63182a8290c5a8d4bc7b3e6e2306d36b', '2026-05-20', 'c6dd7e674'),
  pin('CorebC2CRetrieval', 'mteb/coreb-c2c-retrieval', 'ee25caf9aa8a6334da7c40e5b45ba579faf66a5e', '2026-05-20', 'c6dd7e674'),
  pin('CorebT2CRetrieval', 'mteb/coreb-t2c-retrieval', '4c171f120c2a63216df5499e573af234b8c30376', '2026-05-20', 'c6dd7e674'),
];

/** The pin of `revision` for MTEB task `task` (any revision MTEB has pinned for it), else undefined. */
export function mtebPinnedRevision(task: string, revision: string): MtebPinnedRevision | undefined {
  return MTEB_PINNED_REVISIONS.find((p) => p.task === task && p.revision === revision);
}

/** The coreb task of an MTEB CoREB task name (`CorebT2CRetrieval` or `CorebT2CReranking` -> `text2code`), else undefined. */
export function corebTaskOfMteb(taskName: string): string | undefined {
  const base = taskName.replace(/Reranking$/, 'Retrieval');
  return Object.entries(MTEB_TASK_NAMES).find(([, n]) => n === base)?.[0];
}
