import type { RuleDefinition } from './types';

/**
 * Libraries whose maintainers stopped fixing them (CWE-1104), as Bandit's B413 reports PyCrypto: its last release is
 * from 2013 and its AES has a known heap overflow (CVE-2013-7459). An audit (low): pycryptodome installs under the same
 * `Crypto` name as a drop-in, and on today's Pythons, where PyCrypto no longer builds, `Crypto` is nearly always it;
 * only the project's requirements can tell. `Cryptodome` (pycryptodomex) is the unambiguous name.
 */
export const UNMAINTAINED_LIBRARY_RULES: RuleDefinition[] = [
  {
    id: 'security/unmaintained-crypto-library',
    needles: ['Crypto'],
    category: 'security',
    severity: 'high',
    confidence: 'low',
    cwe: 'CWE-1104',
    message:
      '`{finding}` is the package name of PyCrypto, unmaintained since 2013 (CVE-2013-7459) unless pycryptodome provides it; import pycryptodomex (`Cryptodome`) or use `cryptography`.',
    languages: {
      python: `((import_statement name: (dotted_name) @finding) (#match? @finding "^Crypto(\\\\.|$)"))
               ((import_statement name: (aliased_import name: (dotted_name) @finding)) (#match? @finding "^Crypto(\\\\.|$)"))
               ((import_from_statement module_name: (dotted_name) @finding) (#match? @finding "^Crypto(\\\\.|$)"))`,
    },
  },
];
