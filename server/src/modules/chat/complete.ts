import type { ChatCompletion } from '@tessera/shared';
import { withRetries } from './attempts';
import { CallDeadline } from './deadline';
import { attemptOptions, type ChatCall, type ChatDeps, providerCall, unixSeconds } from './deps';
import { completionId } from './envelope';
import { asFunctionFinish, asFunctionMessage } from './legacy-functions';
import { type ChatOutcome, withAllowance } from './meter';

/** A non-streamed completion: one answer, with retries and the fallback while nothing has been sent. */
export async function completeChat(deps: ChatDeps, call: ChatCall): Promise<ChatOutcome<ChatCompletion>> {
  return withAllowance(deps, call, async (meter) => {
    const deadline = new CallDeadline(deps.timeoutMs, call.abort);
    try {
      const { value, target } = await withRetries(attemptOptions(deps, call, deadline.signal), (t) => {
        call.onProvider(t.provider.name);
        return t.provider.complete(providerCall(call.prepared, t, deadline.signal));
      });
      meter.model = target.entry.id;
      meter.report(value.usage);
      const functions = call.prepared.functions;
      const completion: ChatCompletion = {
        id: completionId(),
        object: 'chat.completion',
        created: unixSeconds(deps.clock),
        model: target.entry.id,
        choices: value.choices.map((c) => ({
          index: c.index,
          message: functions ? asFunctionMessage(c.message) : c.message,
          logprobs: c.logprobs ?? null,
          finish_reason: functions ? asFunctionFinish(c.finish_reason) : c.finish_reason,
        })),
        usage: value.usage,
      };
      if (value.system_fingerprint !== undefined) completion.system_fingerprint = value.system_fingerprint;
      return completion;
    } catch (err) {
      // A call cut by the timeout or the client had the prompt processed upstream: it is still metered.
      if (deadline.timedOut || deadline.clientGone || deadline.shutDown) meter.charged = true;
      throw deadline.explain(err);
    } finally {
      deadline.clear();
    }
  });
}
