export interface StaticServer {
  readonly origin: string;
  close(): Promise<void>;
}
export function serveStatic(mounts: Record<string, string>, requests?: string[]): Promise<StaticServer>;
