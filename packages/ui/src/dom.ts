import { visibleText } from './format.js';

/** A child of {@link h}: text, an element, nothing, or a list of those. */
export type Child = Node | string | number | false | null | undefined | Child[];

/** Attributes of {@link h}: `on*` functions become listeners, `false`/`undefined` are left out. */
export type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/**
 * Creates an element with attributes and children; text is always a text node, never HTML, so what
 * a model or a tool wrote cannot inject markup, and its control characters and bidi overrides are
 * written out ({@link visibleText}), so it cannot hide or reorder what is shown either.
 * @example h('button', { class: 'primary', onclick: () => send() }, 'Send')
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== undefined) element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/** Appends children (as {@link h} takes them) to `parent`. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else if (child !== false && child !== null && child !== undefined)
      parent.appendChild(document.createTextNode(visibleText(String(child))));
  }
}

/** Replaces everything inside `parent` with `children`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}
