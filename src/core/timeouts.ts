/**
 * kubectl's discovery time limit when there is no --request-timeout: client-go's discovery client
 * (discovery_client.go defaultTimeout) gives `/api`, `/apis`, every group-version and `/version`
 * 32 s, and says so to the server as `?timeout=32s`.
 */
export const DISCOVERY_TIMEOUT_MS = 32_000;
