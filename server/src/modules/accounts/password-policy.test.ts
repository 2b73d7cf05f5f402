import { describe, expect, it } from 'vitest';
import { passwordRefusal } from './password-policy';

const codeOf = (password: string, person: { email: string; name?: string }) =>
  passwordRefusal(password, person)?.code ?? null;

describe('passwordRefusal', () => {
  it('names the first reason a person can act on', () => {
    // Ten spaces are also one repeated character and guessable: the message says "only spaces".
    expect(codeOf(' '.repeat(10), { email: 'a@example.com' })).toBe('blank_password');
    expect(codeOf('ÅÅÅÅÅÅÅÅÅÅ', { email: 'a@example.com' })).toBe('repeated_password');
    // Compared after NFKC and case folding: full-width letters are the email too.
    expect(codeOf('ＲＩＶＥＲ@example.com', { email: 'river@example.com' })).toBe('password_contains_email');
    expect(codeOf('password12', { email: 'a@example.com' })).toBe('common_password');
  });

  it('looks for a short local part only as the whole password', () => {
    expect(codeOf('copper kettle always whistles', { email: 'al@example.com' })).toBeNull();
    expect(codeOf('copper kettle always whistles', { email: 'always@example.com' })).toBe(
      'password_contains_email',
    );
  });

  it("finds the person's name and the parts of their email guessable", () => {
    expect(codeOf('marguerite1987', { email: 'md@example.com' })).toBeNull();
    expect(codeOf('marguerite1987', { email: 'md@example.com', name: 'Marguerite Delacroix' })).toBe(
      'weak_password',
    );
    expect(codeOf('delacroix.m!99', { email: 'marguerite.delacroix@example.com' })).toBe('weak_password');
  });

  it('judges a long password by its first 64 characters, so that the estimator stays cheap', () => {
    const strong = 'copper kettle whistles at dawn over the quiet harbour of Skagen 7';
    expect(strong.length).toBeGreaterThanOrEqual(64);
    expect(codeOf(`${strong}${'1234'.repeat(30)}`, { email: 'a@example.com' })).toBeNull();
    expect(codeOf(`${'1234'.repeat(16)}${strong}`, { email: 'a@example.com' })).toBe('weak_password');
  });
});
