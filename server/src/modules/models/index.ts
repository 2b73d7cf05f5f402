export {
  DEFAULT_MODELS_FILE,
  EmbeddingModelEntry,
  ModelCatalogue,
  ModelEntry,
  toModelObject,
} from './catalogue';
export { getModel, listModels } from './list';
