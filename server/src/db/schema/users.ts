import { pgTable, text } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';

/**
 * A person who signs in. Organisations (`accounts`) are reached through `memberships`; a user belongs to any
 * number of them (none, between a removal and the next invitation). The migration of single-owner accounts
 * gave each account's user the account's id.
 */
export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  name: text('name'),
  /** scrypt (modules/accounts/password.ts); sign-in reads only this. */
  passwordHash: text('password_hash').notNull(),
  ...timestamps,
});

export type UserRow = typeof users.$inferSelect;
