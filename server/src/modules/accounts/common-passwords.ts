import { Password } from '@tessera/shared';
import { dictionary } from '@zxcvbn-ts/language-common';

let common: Set<string> | undefined;

/**
 * Whether `password` is on a list of commonly used passwords (NIST SP 800-63B 3.1.1.2: refuse passwords found
 * in breach corpuses and common-password lists). The list is the ranked common-password dictionary of
 * @zxcvbn-ts/language-common (MIT, about 49,000 passwords gathered from public breach lists); only the entries
 * the password rules would accept are kept (about 1,600), built on first use. Compared without regard to case:
 * `Password12` is as guessable as `password12`.
 */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(
    dictionary['passwords-common']
      .filter((p) => Password.safeParse(p).success)
      .map((p) => p.normalize('NFKC').toLowerCase()),
  );
  return common.has(password.normalize('NFKC').toLowerCase());
}

export const COMMON_PASSWORD_MESSAGE =
  'This password is on a list of commonly used passwords that attackers try first; choose another.';
