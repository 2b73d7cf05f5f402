export { countTokens, encoder } from './encoder';
export { contentText, countLongPromptTokens, countPromptTokens, promptLength } from './messages';
