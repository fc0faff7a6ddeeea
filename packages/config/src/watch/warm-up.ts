/** Imported by each module worker as it starts, so tsx and esbuild are loaded before a real module is. */
export const warm = true;
