import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Webhook secrets must be read back to sign each delivery, so unlike API keys they cannot be stored as hashes.
 * With SECRETS_ENCRYPTION_KEY (32 bytes, hex or base64) they are stored AES-256-GCM encrypted
 * (`v1:<iv>:<tag>:<ciphertext>`, base64url), so a copy of the database alone does not reveal them; without it
 * they are stored as `plain:<secret>` and docs/webhooks.md says to set the key in production. A row written
 * either way is read either way, so setting the key later only needs the secret re-generated.
 */
export class SecretBox {
  constructor(private readonly key: Buffer | undefined) {}

  seal(secret: string): string {
    if (!this.key) return `plain:${secret}`;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ct]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join(':');
  }

  open(stored: string): string {
    if (stored.startsWith('plain:')) return stored.slice('plain:'.length);
    const [v, iv, tag, ct] = stored.split(':');
    if (v !== 'v1' || !iv || !tag || !ct) throw new Error('unknown secret format');
    if (!this.key) throw new Error('the webhook secret is encrypted but SECRETS_ENCRYPTION_KEY is not set');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}
