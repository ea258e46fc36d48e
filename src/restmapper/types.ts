// Placeholder; the RESTMapper module defines its interface.
export interface RESTMapper {}
