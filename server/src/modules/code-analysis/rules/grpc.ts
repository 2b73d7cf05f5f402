import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/** A target on this machine (loopback, a Unix socket, an in-process buffer): nothing travels over a network. */
const NOT_LOCAL = String.raw`^(?![\s\S]*(localhost|127\.0\.0\.1|\[::1\]|unix:|bufnet|passthrough:))`;
/** `ManagedChannelBuilder.forAddress(host, port).usePlaintext()` (grpc-java, also from Kotlin and Scala). */
const PLAINTEXT = String.raw`${NOT_LOCAL}[\s\S]*\.usePlaintext\(\s*(true)?\s*\)$`;

/**
 * gRPC channels opened without TLS (CWE-319), as Semgrep's grpc-client-insecure-connection (Go),
 * grpc-nodejs-insecure-connection and gosec read them: Go's `grpc.Dial(addr, grpc.WithInsecure())` or
 * `insecure.NewCredentials()`, Python's `grpc.insecure_channel(addr)`, Node's `credentials.createInsecure()`,
 * grpc-java's `usePlaintext()`, .NET's `ChannelCredentials.Insecure`, Ruby's `:this_channel_is_insecure`, PHP's
 * `ChannelCredentials::createInsecure()`. Calls and credentials on the request travel in clear. A target on this
 * machine (`localhost:50051`, `unix:…`) is not reported where the call names it.
 */
export const GRPC_RULES: RuleDefinition[] = [
  {
    id: 'security/grpc-insecure-channel',
    needles: ['Insecure', 'insecure', 'usePlaintext'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-319',
    message:
      '`{finding}` opens a gRPC channel without TLS: calls, answers and the credentials they carry travel in clear; use TLS credentials (`credentials.NewTLS`, `ssl_channel_credentials`, `useTransportSecurity`).',
    languages: {
      go: callText(
        'call_expression',
        String.raw`${NOT_LOCAL}grpc\.(Dial|DialContext|NewClient)\([\s\S]*(grpc\.WithInsecure\(\)|insecure\.NewCredentials\(\))`,
      ),
      python: callText('call', String.raw`${NOT_LOCAL}(grpc\.)?(aio\.)?insecure_channel\(`),
      ...forJs(callText('call_expression', String.raw`^(grpc\.)?credentials\.createInsecure\(\s*\)$`)),
      java: callText('method_invocation', PLAINTEXT),
      kotlin: callText('call_expression', PLAINTEXT),
      scala: callText('call_expression', PLAINTEXT),
      csharp: callText('member_access_expression', String.raw`^(Grpc\.Core\.)?ChannelCredentials\.Insecure$`),
      ruby: callText('simple_symbol', '^:this_channel_is_insecure$'),
      php: callText('scoped_call_expression', String.raw`ChannelCredentials::createInsecure\(`),
    },
  },
];
