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
}: {
  catalogue: ModelCatalogue;
  ownership: ModelOwnership;
}): ModelList {
  return { object: 'list', data: catalogue.entries.map((m) => toModelObject(m, ownership.ownerOf(m))) };
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
