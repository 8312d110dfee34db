import { PACKAGE_VERSION } from './package-root.js';

/** The package version, from package.json (the bundles have it written in: rolldown.config.ts). */
export const VERSION: string = PACKAGE_VERSION;
