import { once } from 'node:events';
import type { Express, RequestHandler } from 'express';
import { ServiceError } from '../errors';
import { SESSION_COOKIE } from '../http/session';
import { readCookie } from '../lib/cookies';
import { resolveSession } from '../modules/accounts';
import { exportAuditEvents } from '../modules/audit';
import { assertCanReadAudit } from '../modules/teams';
import type { Services } from '../services';

export const AUDIT_EXPORT_PATH = '/api/audit/export';

/**
 * `GET /api/audit/export?format=csv|jsonl&from&to`: the dashboard's download of the audit log, authenticated by
 * the session cookie (a plain link, so no CSRF header: it changes nothing, and no other origin can read it, as
 * CORS is never granted here). Checked and bounded before the first byte (400 naming the bound), then streamed
 * batch by batch, waiting for the client to drain each, so memory stays one batch whatever the export's size.
 */
function exportHandler(services: Services): RequestHandler {
  return async (req, res) => {
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    const caller = token ? await resolveSession({ ctx: services.ctx, token }) : null;
    const member = caller?.member;
    if (!member)
      throw new ServiceError('authentication', 'Sign in to the dashboard to export the audit log.', {
        code: 'session_required',
      });
    assertCanReadAudit(member);
    const file = await exportAuditEvents({
      ctx: services.ctx,
      accountId: member.account.id,
      query: req.query,
    });
    const stamp = (d: Date) => d.toISOString().slice(0, 19).replaceAll(':', '');
    res.status(200);
    res.setHeader(
      'content-type',
      file.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    );
    res.setHeader(
      'content-disposition',
      `attachment; filename="tessera-audit-${stamp(file.from)}-${stamp(file.to)}.${file.format}"`,
    );
    res.setHeader('cache-control', 'no-store');
    try {
      for await (const chunk of file.chunks) {
        if (res.destroyed) break;
        if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      }
    } catch (err) {
      // Headers are out: the download ends short (sendError ends the response), and the error is logged there.
      if (!res.headersSent) {
        res.removeHeader('content-disposition');
        res.removeHeader('content-type');
        throw err;
      }
      services.ctx.logger.error({ err }, 'audit export failed while streaming');
      res.destroy();
      return;
    } finally {
      await file.chunks.return(undefined);
    }
    res.end();
  };
}

export function mountAuditExport(app: Express, services: Services): void {
  app.get(AUDIT_EXPORT_PATH, exportHandler(services));
}
