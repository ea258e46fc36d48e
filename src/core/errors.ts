/**
 * kdyn's error classes. The CLI's single error boundary (src/cli/main.ts) maps them to exit codes:
 * UsageError -> 2, every other error -> 1. `message` is always one line, fit for stderr as is.
 */
export class KdynError extends Error {
  readonly exitCode: number = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Wrong command line, detected before any request is made. Exit code 2. */
export class UsageError extends KdynError {
  override readonly exitCode: number = 2;
}

/** kubeconfig missing, unreadable, malformed, or naming things that do not exist. */
export class ConfigError extends KdynError {}

/** The server could not be reached or the connection failed (refused, TLS, timeout, reset). */
export class ConnectionError extends KdynError {
  /**
   * The request never left the client (the connection failed before it could be written): a write
   * that failed so was certainly not applied. Unset: it may have been sent.
   */
  notSent?: boolean;
  constructor(message: string, readonly code?: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A Kubernetes `Status` object as returned by the API server. */
export interface Status {
  kind?: 'Status';
  apiVersion?: string;
  metadata?: Record<string, unknown>;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: Array<{ reason?: string; message?: string; field?: string }>;
    retryAfterSeconds?: number;
  };
  code?: number;
}

/**
 * An error answer from the API server. `message` reads as kubectl prints it:
 * `Error from server (NotFound): pods "x" not found`.
 */
export class StatusError extends KdynError {
  constructor(
    readonly status: Status,
    readonly httpStatus: number,
    message?: string,
  ) {
    super(message ?? formatStatusMessage(status, httpStatus));
  }
  get reason(): string {
    return this.status.reason ?? reasonForCode(this.httpStatus);
  }
  get code(): number {
    return this.status.code ?? this.httpStatus;
  }
}

/**
 * kubectl's `Error from server (Reason): message` line (k8s.io/kubectl/pkg/cmd/util/helpers.go), or
 * `Error from server: message` when the Status has no reason (as a 500 from strict field validation:
 * the reason is never made up from the HTTP code).
 */
export function formatStatusMessage(status: Status, httpStatus: number): string {
  const msg = oneLine(status.message || `an error on the server ("${reasonForCode(httpStatus)}") has prevented the request from succeeding`);
  return `${errorFromServer(status)}: ${msg}`;
}

/** `Error from server (Reason)`, or `Error from server` for a Status without a reason. */
export function errorFromServer(status: Status): string {
  return status.reason ? `Error from server (${status.reason})` : 'Error from server';
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The `metav1.StatusReason` kube-apiserver uses for this HTTP status, if it has a specific one. */
export function knownReason(code: number): string | undefined {
  return REASONS[code];
}

export function reasonForCode(code: number): string {
  return knownReason(code) ?? (code >= 500 ? 'InternalError' : '');
}

/** Collapses a possibly multi-line message to one line. */
export function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

