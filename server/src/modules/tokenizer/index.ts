export { countTokens, decodeTokens, encodeText, fewestTokens, libraryEncoder } from './encoder';
export { contentText, countLongPromptTokens, countPromptTokens, promptLength } from './messages';
export { countingThread, countTokensAside } from './thread';
