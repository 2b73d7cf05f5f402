import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from './common-passwords';

/** Why a new password is refused: OpenAI-style `code` and the message shown beside the form's field. */
export interface PasswordRefusal {
  code:
    | 'blank_password'
    | 'repeated_password'
    | 'password_contains_email'
    | 'common_password'
    | 'weak_password';
  message: string;
}

/**
 * zxcvbn's scores run 0 to 4; 3 is "safely unguessable" (about 10^8 guesses and up), its authors' advice for an
 * offline attack on a slow hash such as our scrypt.
 */
const MIN_SCORE = 3;

/**
 * A local part shorter than this is not looked for inside the password: `al@…` would refuse every password
 * holding "al". Equality is still refused (a 10-character password can only equal a local part that long).
 */
const MIN_LOCAL_PART = 4;

let estimator: ZxcvbnFactory | undefined;

/**
 * Built on first use: ranking the dictionaries takes about 50 ms, paid by the first sign-up rather than every
 * start. The estimator runs on the event loop, so its work is capped: at zxcvbn's defaults (256 characters, 100
 * l33t substitutions) a 200-character password of l33t-able symbols took 90–290 ms; the first 64 characters and 8
 * substitutions take at most ~10 ms of CPU and still see `P@ssw0rd2024` for what it is. A password whose first
 * 64 characters are hard to guess is hard to guess.
 */
function strengthOf(password: string, userInputs: string[]): number {
  estimator ??= new ZxcvbnFactory({
    dictionary,
    graphs: adjacencyGraphs,
    maxLength: 64,
    l33tMaxSubstitutions: 8,
  });
  return estimator.check(password, userInputs).score;
}

/**
 * Whether a new password (sign-up, sign-up by invitation, the CLI) is refused, and why, checked in the order a
 * person can act on: blank, one character repeated, built on their own email, a known common password, then
 * anything else the estimator finds guessable (keyboard rows, sequences, dates, common words, their name).
 * Null when it is acceptable. The length rules are the shared `Password` schema's.
 */
export function passwordRefusal(
  password: string,
  person: { email: string; name?: string | null | undefined },
): PasswordRefusal | null {
  if (password.trim() === '') {
    return {
      code: 'blank_password',
      message: 'This password is only spaces; choose one with letters, digits or symbols.',
    };
  }
  const folded = password.normalize('NFKC').toLowerCase();
  if (new Set(folded).size === 1) {
    return {
      code: 'repeated_password',
      message: 'This password repeats one character; choose one that is harder to guess.',
    };
  }
  const email = person.email.normalize('NFKC').toLowerCase();
  const localPart = email.slice(0, Math.max(0, email.lastIndexOf('@')));
  if (
    folded.includes(email) ||
    folded === localPart ||
    (localPart.length >= MIN_LOCAL_PART && folded.includes(localPart))
  ) {
    return {
      code: 'password_contains_email',
      message:
        'This password contains your email address or its name before the @; choose one that does not.',
    };
  }
  if (isCommonPassword(password)) return { code: 'common_password', message: COMMON_PASSWORD_MESSAGE };
  // zxcvbn matches each input as one word: `marguerite1987` is found from "Marguerite Delacroix" only in parts.
  const userInputs = [email, ...`${localPart} ${person.name ?? ''}`.split(/[\s._+-]+/)].filter(
    (w) => w.length > 2,
  );
  if (strengthOf(password, userInputs) < MIN_SCORE) {
    return {
      code: 'weak_password',
      message:
        'This password is too easy to guess (a keyboard row, a sequence, a date, common words or your name); make it longer or less predictable.',
    };
  }
  return null;
}
