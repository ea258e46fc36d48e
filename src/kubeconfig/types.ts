// Placeholder; the kubeconfig module defines RestConfig.
export interface RestConfig { server: string; namespace: string }
