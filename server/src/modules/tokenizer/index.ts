export { countTokens, encoder } from './encoder';
export { contentText, countPromptTokens } from './messages';
