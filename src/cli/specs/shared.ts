/** Flags several commands share, so their help texts cannot drift apart. */
import type { FlagSpec } from '../command-types.js';

/** Flags `get` and `watch` share (the same text in both helps). */
export const TEMPLATE_FLAGS: FlagSpec[] = [
  { name: 'template', type: 'string', describe: 'Template string or path to template file to use when -o=go-template, -o=go-template-file. The template format is golang templates [http://golang.org/pkg/text/template/#pkg-overview].' },
  { name: 'allow-missing-template-keys', type: 'boolean', default: true, describe: 'If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats.' },
];
export const SELECTOR_FLAGS: FlagSpec[] = [
  { name: 'selector', short: 'l', type: 'string', describe: 'Selector (label query) to filter on, supports \'=\', \'==\', \'!=\', \'in\', \'notin\'.' },
  { name: 'field-selector', type: 'string', describe: 'Selector (field query) to filter on, supports \'=\', \'==\', and \'!=\'.' },
];
export const CHUNK_SIZE_FLAG: FlagSpec = { name: 'chunk-size', type: 'number', default: 500, describe: 'Return large lists in chunks rather than all at once. Pass 0 to disable.' };
export const RETRY_FOR_FLAG: FlagSpec = {
  name: 'retry-for',
  type: 'string',
  default: '2m',
  describe: 'How long a watch coming back after a lost connection or a server error retries 401, 403 and 404 (a restarting API server answers so for a moment) before it ends with the error, as kubectl would at once. 0: at once. Errors on the first request always end it at once.',
};

/** Fleets (issue 24, docs/fleet.md): `--context a,b` or `--context 'prod-*'` select several contexts too. */
export const FLEET_FLAGS: FlagSpec[] = [
  { name: 'all-contexts', type: 'boolean', describe: 'Run against every context of the kubeconfig (as --context, which also takes a comma list and globs: --context \'prod-*,staging\'). The output names each object\'s context.' },
  { name: 'context-concurrency', type: 'number', default: 16, describe: 'With several contexts: how many clusters are worked on at once.' },
];
