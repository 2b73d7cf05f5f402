import type { ChatModelObject } from '@tessera/shared';

/** The chat's settings as typed: numbers stay text until sent, so that a field can be emptied and retyped. */
export interface ChatSettingsDraft {
  system: string;
  model: string;
  temperature: string;
  maxTokens: string;
}

export const EMPTY_SETTINGS: ChatSettingsDraft = { system: '', model: '', temperature: '', maxTokens: '' };

/** The settings a request carries; an empty field is left out (the model's default). */
export interface ChatSettingsValue {
  system: string;
  temperature?: number;
  max_tokens?: number;
}

export type ChatSettingsErrors = Partial<Record<'temperature' | 'maxTokens', string>>;

/** Checks the typed settings against what the API accepts, with the limits in the messages. */
export function checkSettings(
  draft: ChatSettingsDraft,
  model: ChatModelObject | undefined,
): { value: ChatSettingsValue; errors: ChatSettingsErrors } {
  const value: ChatSettingsValue = { system: draft.system.trim() };
  const errors: ChatSettingsErrors = {};
  const temperature = draft.temperature.trim();
  if (temperature !== '') {
    const t = Number(temperature);
    if (!Number.isFinite(t) || t < 0 || t > 2) errors.temperature = 'Temperature is a number from 0 to 2.';
    else value.temperature = t;
  }
  const maxTokens = draft.maxTokens.trim();
  if (maxTokens !== '') {
    const n = Number(maxTokens);
    const limit = model?.max_output_tokens;
    if (!Number.isInteger(n) || n < 1) errors.maxTokens = 'Max tokens is a whole number of at least 1.';
    else if (limit !== undefined && n > limit)
      errors.maxTokens = `${model?.id} writes at most ${limit.toLocaleString('en-US')} tokens.`;
    else value.max_tokens = n;
  }
  return { value, errors };
}

/** System prompt, model, temperature and max tokens of the playground chat. */
export function ChatSettings({
  draft,
  onChange,
  models,
  chosen,
  errors,
}: {
  draft: ChatSettingsDraft;
  onChange: (draft: ChatSettingsDraft) => void;
  models: ChatModelObject[] | undefined;
  chosen: ChatModelObject | undefined;
  errors: ChatSettingsErrors;
}) {
  const set = (patch: Partial<ChatSettingsDraft>) => onChange({ ...draft, ...patch });
  return (
    <fieldset className="chat-settings">
      <legend className="sr-only">Chat settings</legend>
      <div className="field chat-settings-system">
        <label htmlFor="pg-system">System prompt</label>
        <textarea
          id="pg-system"
          rows={2}
          value={draft.system}
          placeholder="Optional: how the model should answer (“You are terse.”)"
          onChange={(e) => set({ system: e.target.value })}
        />
      </div>
      <div className="field chat-settings-model">
        <label htmlFor="pg-model">Model</label>
        <select
          id="pg-model"
          value={chosen?.id ?? ''}
          onChange={(e) => set({ model: e.target.value })}
          disabled={!models}
          aria-describedby="pg-model-hint"
        >
          {models?.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
            </option>
          ))}
        </select>
        <p id="pg-model-hint" className="hint">
          {chosen
            ? `${chosen.context_window.toLocaleString('en-US')} tokens of context, up to ${chosen.max_output_tokens.toLocaleString('en-US')} out`
            : 'Loading models…'}
        </p>
      </div>
      <div className="field">
        <label htmlFor="pg-temperature">Temperature</label>
        <input
          id="pg-temperature"
          type="number"
          inputMode="decimal"
          min={0}
          max={2}
          step={0.1}
          value={draft.temperature}
          placeholder="Default"
          aria-invalid={errors.temperature ? true : undefined}
          aria-describedby="pg-temperature-hint"
          onChange={(e) => set({ temperature: e.target.value })}
        />
        <p id="pg-temperature-hint" className={errors.temperature ? 'field-error' : 'hint'}>
          {errors.temperature ?? '0 to 2; empty for the default'}
        </p>
      </div>
      <div className="field">
        <label htmlFor="pg-max-tokens">Max tokens</label>
        <input
          id="pg-max-tokens"
          type="number"
          inputMode="numeric"
          min={1}
          max={chosen?.max_output_tokens}
          step={1}
          value={draft.maxTokens}
          placeholder="Default"
          aria-invalid={errors.maxTokens ? true : undefined}
          aria-describedby="pg-max-tokens-hint"
          onChange={(e) => set({ maxTokens: e.target.value })}
        />
        <p id="pg-max-tokens-hint" className={errors.maxTokens ? 'field-error' : 'hint'}>
          {errors.maxTokens ?? 'Caps the answer; empty for the model’s maximum'}
        </p>
      </div>
    </fieldset>
  );
}
