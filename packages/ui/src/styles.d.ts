// esbuild bundles the stylesheet main.ts imports into app-[hash].css; TypeScript only needs to know it exists.
declare module '*.css';
