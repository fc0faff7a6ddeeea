import type { ProjectStatus } from '../api-types.js';
import { h, replace } from '../dom.js';
import { formatTime } from '../format.js';

/** The reload state: the live generation, and the diagnostics of a broken save with `file:line:col`. */
export class ReloadView {
  readonly element = h('section', { class: 'view reload-view', 'data-view': 'reload' });

  /** Shows `status` (called at every `status` event). */
  render(status: ProjectStatus): void {
    replace(
      this.element,
      h('header', { class: 'view-head' }, h('h2', {}, 'Reload')),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'live generation'),
        h('dd', { class: 'generation' }, status.generation === null ? 'none' : String(status.generation)),
        h('dt', {}, 'watching files'),
        h('dd', {}, status.watching ? 'yes' : 'no (restart with agentctl dev --ui to follow saves)'),
        h('dt', {}, 'last change'),
        h('dd', {}, formatTime(status.updatedAt)),
        status.changes && [h('dt', {}, 'changed'), h('dd', {}, status.changes)],
      ),
      status.ok
        ? h('p', { class: 'ok-note' }, 'The last save loaded cleanly.')
        : [
            h(
              'p',
              { class: 'broken-note' },
              status.generation === null
                ? 'The project is broken: nothing runs until a save fixes it.'
                : `The last save is broken: generation ${status.generation} keeps running until it is fixed.`,
            ),
            h(
              'ul',
              { class: 'diagnostics' },
              status.diagnostics.map((d) =>
                h(
                  'li',
                  { class: `diagnostic severity-${d.severity}` },
                  h('code', { class: 'where' }, `${d.file}:${d.line}:${d.column}`),
                  h('span', { class: 'badge' }, d.severity),
                  h('span', { class: 'code' }, d.code),
                  h('span', { class: 'message' }, d.message),
                ),
              ),
            ),
          ],
    );
  }
}
