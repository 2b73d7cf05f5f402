import type { ModelList, ModelObject } from '@tessera/shared';
import type { ModelCatalogue, ModelEntry } from './catalogue';
import { toModelObject } from './catalogue';

export interface ModelOwnership {
  /** Who answers a model: the provider's public name, or the simulator. */
  ownerOf(entry: ModelEntry): string;
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
  const entries = allowed ? catalogue.entries.filter((m) => allowed.has(m.id)) : catalogue.entries;
  return { object: 'list', data: entries.map((m) => toModelObject(m, ownership.ownerOf(m))) };
}

export function getModel({
  catalogue,
  ownership,
  id,
}: {
  catalogue: ModelCatalogue;
  ownership: ModelOwnership;
  id: string;
}): ModelObject {
  const entry = catalogue.require(id, 'model');
  return toModelObject(entry, ownership.ownerOf(entry));
}
