import type { Plugin } from "vite";

export function subresourceIntegrity(pages: string[]): Plugin;
