import { ASSERTION_RULES } from './assertions';
import { CLASS_USAGE_RULES } from './class-usage';
import { CRYPTO_STEP_RULES } from './crypto-steps';
import { FREED_MEMORY_RULES } from './freed-memory';
import { HARDCODED_KEY_NAME_RULES } from './hardcoded-key-names';
import { HTML_OUTPUT_RULES } from './html-output';
import { INFINITE_LOOP_RULES } from './infinite-loops';
import { LITERAL_CONDITION_RULES } from './literal-conditions';
import { LOG_EXPOSURE_RULES } from './log-exposure';
import { NATIVE_CODE_RULES } from './native-code';
import { OBJECT_CONTRACT_RULES } from './object-contracts';
import { OPERATOR_MISTAKE_RULES } from './operator-mistakes';
import { PYTHON_ERROR_EXPOSURE_RULES } from './python-error-exposure';
import { REDIRECT_RULES } from './redirects';
import { RESOURCE_LEAK_RULES } from './resource-leaks';
import { CSHARP_RESOURCE_LEAK_RULES } from './resource-leaks-csharp';
import { PYTHON_GO_RESOURCE_LEAK_RULES } from './resource-leaks-python-go';
import { RETURN_CHECK_RULES } from './return-checks';
import type { ScopedRule } from './scoped';
import { SENSITIVE_LOGGING_RULES } from './sensitive-logging';
import { SENSITIVE_MEMORY_RULES } from './sensitive-memory';
import { SOCKET_RULES } from './sockets';
import { TEMP_FILE_RULES } from './temp-files';
import { THREAD_RULES } from './threads';

/** The rules that look around the node they match (`scoped.ts`), run in one walk of the tree. */
export const SCOPED_RULES: ScopedRule[] = [
  ...THREAD_RULES,
  ...OBJECT_CONTRACT_RULES,
  ...OPERATOR_MISTAKE_RULES,
  ...RETURN_CHECK_RULES,
  ...HTML_OUTPUT_RULES,
  ...LOG_EXPOSURE_RULES,
  ...INFINITE_LOOP_RULES,
  ...REDIRECT_RULES,
  ...ASSERTION_RULES,
  ...SOCKET_RULES,
  ...CRYPTO_STEP_RULES,
  ...TEMP_FILE_RULES,
  ...NATIVE_CODE_RULES,
  ...SENSITIVE_MEMORY_RULES,
  ...RESOURCE_LEAK_RULES,
  ...PYTHON_GO_RESOURCE_LEAK_RULES,
  ...CSHARP_RESOURCE_LEAK_RULES,
  ...PYTHON_ERROR_EXPOSURE_RULES,
  ...CLASS_USAGE_RULES,
  ...LITERAL_CONDITION_RULES,
  ...FREED_MEMORY_RULES,
  ...HARDCODED_KEY_NAME_RULES,
  ...SENSITIVE_LOGGING_RULES,
];
