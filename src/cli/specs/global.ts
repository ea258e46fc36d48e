/** The flags every command takes (kubectl's global flags, and kdyn's cache flags). */
import type { FlagSpec } from '../command-types.js';

export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'kubeconfig', type: 'string', describe: 'Path to the kubeconfig file to use for CLI requests.' },
  { name: 'context', type: 'string', describe: 'The name of the kubeconfig context to use' },
  { name: 'cluster', type: 'string', describe: 'The name of the kubeconfig cluster to use' },
  { name: 'user', type: 'string', describe: 'The name of the kubeconfig user to use' },
  { name: 'namespace', short: 'n', type: 'string', describe: 'If present, the namespace scope for this CLI request' },
  { name: 'server', short: 's', type: 'string', describe: 'The address and port of the Kubernetes API server' },
  { name: 'token', type: 'string', describe: 'Bearer token for authentication to the API server' },
  { name: 'client-certificate', type: 'string', describe: 'Path to a client certificate file for TLS' },
  { name: 'client-key', type: 'string', describe: 'Path to a client key file for TLS' },
  { name: 'certificate-authority', type: 'string', describe: 'Path to a cert file for the certificate authority' },
  { name: 'as', type: 'string', describe: 'Username to impersonate for the operation. User could be a regular user or a service account in a namespace.' },
  { name: 'as-group', type: 'array', describe: 'Group to impersonate for the operation, this flag can be repeated to specify multiple groups.' },
  { name: 'as-uid', type: 'string', describe: 'UID to impersonate for the operation.' },
  { name: 'insecure-skip-tls-verify', type: 'boolean', describe: "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure" },
  { name: 'tls-server-name', type: 'string', describe: 'Server name to use for server certificate validation. If it is not provided, the hostname used to contact the server is used' },
  { name: 'request-timeout', type: 'string', default: '0', describe: 'The length of time to wait before giving up on a single server request. Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h). A value of zero means don\'t timeout requests.' },
  { name: 'cache-dir', type: 'string', describe: 'Default cache directory (default: $KUBECACHEDIR, else ~/.kube/cache)' },
  { name: 'cache-ttl', type: 'string', default: '10m', describe: 'How long cached discovery stays fresh (e.g. 10m, 30s; 0 bypasses the cache)' },
  { name: 'v', short: 'v', type: 'number', default: 0, describe: 'number for the log level verbosity (6: one line per HTTP request, 9: stack traces)' },
  { name: 'help', short: 'h', type: 'boolean', describe: 'help for kdyn' },
  { name: 'version', type: 'boolean', describe: 'Print the client version and exit' },
];
