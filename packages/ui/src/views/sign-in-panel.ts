import { h } from '../dom.js';

/** What the page says when the server asks for a token: how to get in. */
export function signInPanel(): HTMLElement {
  return h(
    'section',
    { class: 'view sign-in' },
    h('h2', {}, 'This agentctl server needs a token'),
    h(
      'p',
      {},
      'Open the address ',
      h('code', {}, 'agentctl dev --ui'),
      ' or ',
      h('code', {}, 'agentctl serve --ui'),
      ' printed when it started: it ends in ',
      h('code', {}, '/ui/?token=…'),
      ' and signs this browser in (the token then lives in a cookie, not in the address).',
    ),
    h(
      'p',
      {},
      'The token is the value of ',
      h('code', {}, 'AGENTCTL_SERVE_TOKEN'),
      ' (or of the variable named by ',
      h('code', {}, '--token-env'),
      ').',
    ),
  );
}
