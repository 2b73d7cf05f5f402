import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';

/**
 * Where a webhook may be delivered. A customer chooses the URL, so without a check a webhook is a request the
 * server makes to any address it can reach: the cloud's metadata service (169.254.169.254), a database on the
 * private network, the server's own admin ports (SSRF). Outside the public internet nothing is reached unless the
 * operator allows it (WEBHOOK_ALLOW_PRIVATE_ADDRESSES; allowed by default outside production, for a receiver on
 * the developer's own machine). The address is checked where the connection is made, after the name is resolved,
 * so a name that resolves to a private address, now or on a later attempt (DNS rebinding), is refused too.
 */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** Whether an IP address (v4, v6, or v4 mapped into v6) is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class WebhookAddressError extends Error {
  constructor(host: string, address: string) {
    super(
      `${host} resolves to ${address}, which is not a public address; webhooks are delivered to the public internet only (WEBHOOK_ALLOW_PRIVATE_ADDRESSES allows others).`,
    );
    this.name = 'WebhookAddressError';
  }
}

/** Why a URL's host may not receive webhooks, when it is an address literal that is not public; else undefined. */
export function literalAddressRefusal(url: string): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0 || isPublicAddress(host)) return undefined;
  return new WebhookAddressError(host, host).message;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** dns.lookup that fails when the name resolves to any address that is not public. */
function publicLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(new WebhookAddressError(hostname, refused.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first)
      return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

/** The connection pool webhook deliveries use: with `allowPrivate` false, only public addresses are connected to. */
export function webhookAgent(allowPrivate: boolean): Agent {
  return new Agent({
    connections: 16,
    ...(allowPrivate ? {} : { connect: { lookup: publicLookup as never } }),
  });
}
