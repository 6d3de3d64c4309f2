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
 * MTEB's pinned dataset revisions of its CoREB tasks, per coreb split: MTEB's CoREB tasks are the
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

/** The coreb task of an MTEB CoREB task name (`CorebT2CRetrieval` or `CorebT2CReranking` -> `text2code`), else undefined. */
export function corebTaskOfMteb(taskName: string): string | undefined {
  const base = taskName.replace(/Reranking$/, 'Retrieval');
  return Object.entries(MTEB_TASK_NAMES).find(([, n]) => n === base)?.[0];
}
