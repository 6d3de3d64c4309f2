/**
 * The `audit` namespace of coreb's public API (`import { audit } from 'coreb'`): Dataset audits
 * (`coreb audit`): qrels cardinality, lexical triviality, label proxies, near-duplicates.
 * @packageDocumentation
 */
export type { AuditReport, CorpusAudit, LabelProxy, TaskAudit } from '../core/audit-report.js';
export { findNearDuplicates, runAudit, type AuditOptions, type NearDuplicateOptions, type NearDuplicatePair } from '../eval/index.js';
