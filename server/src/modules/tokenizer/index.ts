export { countTokens, decodeTokens, encodeText, libraryEncoder } from './encoder';
export { contentText, countLongPromptTokens, countPromptTokens, promptLength } from './messages';
export { countingThread, countTokensAside } from './thread';
