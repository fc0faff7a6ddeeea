// Imported by each module worker as it starts, to load tsx's CommonJS path too: a .ts file
// outside a "type": "module" package is compiled to CommonJS.
export = { warm: true };
