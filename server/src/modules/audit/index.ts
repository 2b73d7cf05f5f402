export {
  type AuditActor,
  type AuditContext,
  type AuditRequest,
  OPERATOR_ACTOR,
  OPERATOR_AUDIT,
  sessionActor,
} from './actor';
export { type AuditExport, CSV_COLUMNS, EXPORT_MAX_DAYS, EXPORT_MAX_ROWS, exportAuditEvents } from './export';
export { decodeCursor, listAuditEvents, toAuditView } from './list';
export { type AuditEventInput, recordAudit, scrubDetails, USER_AGENT_MAX } from './record';
