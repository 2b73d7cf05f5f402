import { z } from 'zod';
import { Plan, PlanLimits } from './plans';

export const Email = z
  .string({ error: 'Email is required' })
  .trim()
  .toLowerCase()
  .max(254, { error: 'Email must be at most 254 characters' })
  .pipe(z.email({ error: 'Enter a valid email address' }));

export const Password = z
  .string({ error: 'Password is required' })
  .min(10, { error: 'Password must be at least 10 characters' })
  .max(200, { error: 'Password must be at most 200 characters' });

export const SignUpInput = z.object({
  email: Email,
  password: Password,
  name: z.string().trim().max(100, { error: 'Name must be at most 100 characters' }).optional(),
  /** The token of an invitation link: the sign-up then creates the user and that membership only. */
  invitation: z.string().min(20).max(100).optional(),
});
export type SignUpInput = z.infer<typeof SignUpInput>;

export const SignInInput = z.object({
  email: Email,
  password: z.string({ error: 'Password is required' }).min(1, { error: 'Password is required' }).max(200),
});
export type SignInInput = z.infer<typeof SignInInput>;

export const AccountView = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  plan: Plan,
  limits: PlanLimits,
  createdAt: z.string(),
});
export type AccountView = z.infer<typeof AccountView>;
