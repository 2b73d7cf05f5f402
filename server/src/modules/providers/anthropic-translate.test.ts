import { describe, expect, it } from 'vitest';
import { finishOfStopReason } from './anthropic-translate';

describe("Anthropic's stop reasons as OpenAI's finish reasons", () => {
  it('maps every stop reason the Messages API documents', () => {
    expect(finishOfStopReason('end_turn')).toBe('stop');
    expect(finishOfStopReason('stop_sequence')).toBe('stop');
    expect(finishOfStopReason('pause_turn')).toBe('stop');
    expect(finishOfStopReason('max_tokens')).toBe('length');
    expect(finishOfStopReason('model_context_window_exceeded')).toBe('length');
    expect(finishOfStopReason('tool_use')).toBe('tool_calls');
    expect(finishOfStopReason('refusal')).toBe('content_filter');
    expect(finishOfStopReason(null)).toBe('stop');
    expect(finishOfStopReason('something_new')).toBe('stop');
  });
});
