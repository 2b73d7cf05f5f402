import type { ModelList, ModelObject } from '@tessera/shared';
import type { Principal } from '../../principal';
import { requireModel } from '../keys/access';
import type { EmbeddingModelEntry, ModelCatalogue, ModelEntry } from './catalogue';
import { toModelObject } from './catalogue';

export interface ModelOwnership {
  /** Who answers a model: the provider's public name, or the simulator. */
  ownerOf(entry: ModelEntry | EmbeddingModelEntry): string;
}

export function listModels({
  catalogue,
  ownership,
  allowed,
}: {
  catalogue: ModelCatalogue;
  ownership: ModelOwnership;
  /** Only the models a key limited to some may use; absent: every model. */
  allowed?: ReadonlySet<string> | null;
}): ModelList {
  const all = [...catalogue.entries, ...catalogue.embeddingEntries];
  const entries = allowed ? all.filter((m) => allowed.has(m.id)) : all;
  return { object: 'list', data: entries.map((m) => toModelObject(m, ownership.ownerOf(m))) };
}

/** One model as the presenting key may see it: unknown ids are a 404, a model the key may not use a 403. */
export function getModel({
  catalogue,
  ownership,
  principal,
  id,
}: {
  catalogue: ModelCatalogue;
  ownership: ModelOwnership;
  principal: Principal;
  id: string;
}): ModelObject {
  const entry = catalogue.findAny(id) ?? catalogue.require(id, 'model');
  requireModel(principal, entry.id, null);
  return toModelObject(entry, ownership.ownerOf(entry));
}
