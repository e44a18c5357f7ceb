import type { Plugin } from "vite";

export function lucideIcons(): Plugin;
