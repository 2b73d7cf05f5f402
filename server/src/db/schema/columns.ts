import { timestamp } from 'drizzle-orm/pg-core';

/** Timestamps every table carries; stored with time zone, read as Date. */
export const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
};
