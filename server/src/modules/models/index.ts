export {
  DEFAULT_MODELS_FILE,
  EmbeddingModelEntry,
  ModelCatalogue,
  ModelEntry,
  toModelObject,
} from './catalogue';
export { getModel, listModels } from './list';
export { MICROS_PER_UNIT, PriceTable } from './pricing';
