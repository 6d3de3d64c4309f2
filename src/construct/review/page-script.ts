/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The script of the `coreb review` page, in TypeScript: compiled and type-checked with the rest of
 * coreb against the DOM and the API's own shapes (`ReviewItem`, the counts), then inlined into the
 * page as the compiled function's text (page.ts). It must stay self-contained: no value from outside
 * this function is reachable in the browser (type imports are erased). Every node is built with
 * `textContent`, so build content (statements, code, model replies) is always shown as text.
 */
import type { ReviewDecision, ReviewStatus } from './decisions.js';
import type { ReviewItem, ShownTest } from './items.js';

/** What `/api/items` and `/api/decisions` answer with: problem status counts. */
type Counts = Record<ReviewStatus, number> & { problems: number; decisions: number };

/** Which problems the list shows. */
type Filter = 'all' | 'unreviewed' | 'rejected' | 'failing';

/** The page's program: loads the build's items, draws them and sends the reviewer's decisions. */
export function reviewPageScript(): void {
  const params = new URLSearchParams(location.search);
  const token = params.get('token') || sessionStorage.getItem('coreb-review-token') || '';
  if (params.get('token')) {
    sessionStorage.setItem('coreb-review-token', token);
    history.replaceState(null, '', '/');
  }
  const S: {
    items: ReviewItem[];
    counts: Counts | null;
    filter: Filter;
    cur: string | null;
    editing: { item: string; before: string } | null;
    build: string;
  } = {
    items: [],
    counts: null,
    filter: 'all',
    cur: null,
    editing: null,
    build: '',
  };
  const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
  const el = (tag: string, cls?: string | null, text?: unknown): HTMLElement => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };
  const add = (parent: HTMLElement, ...children: Array<Node | null | undefined | false>): HTMLElement => {
    for (const c of children) if (c) parent.appendChild(c);
    return parent;
  };
  let toastTimer: ReturnType<typeof setTimeout> | undefined;
  const toast = (msg: string, err?: boolean): void => {
    const t = $('toast');
    t.textContent = msg;
    t.className = `show${err ? ' err' : ''}`;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(
      () => {
        t.className = '';
      },
      err ? 5000 : 1600,
    );
  };
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { 'X-Coreb-Token': token };
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const r = await fetch(path, init);
    const j = (await r.json()) as T & { error?: string };
    if (!r.ok) throw new Error(j.error || `HTTP ${r.status}`);
    return j;
  };
  const failing = (it: ReviewItem): boolean => it.checks.some((c) => !c.ok);
  const visible = (): ReviewItem[] =>
    S.items.filter((it) => {
      if (S.filter === 'unreviewed') return it.status === 'unreviewed';
      if (S.filter === 'rejected') return it.status === 'rejected';
      if (S.filter === 'failing') return failing(it);
      return true;
    });
  const current = (): { list: ReviewItem[]; index: number; item: ReviewItem | null } => {
    const v = visible();
    let i = v.findIndex((it) => it.id === S.cur);
    if (i < 0 && v.length > 0) {
      S.cur = v[0].id;
      i = 0;
    }
    return { list: v, index: i, item: i >= 0 ? v[i] : null };
  };
  const renderHeader = (): void => {
    const c = S.counts;
    if (c === null) return;
    const p = $('progress');
    p.textContent = '';
    const reviewed = c.approved + c.rejected + c.edited;
    add(
      p,
      el('b', null, `${reviewed} / ${c.problems}`),
      document.createTextNode(
        ` reviewed \u00b7 ${c.approved} approved \u00b7 ${c.rejected} rejected \u00b7 ${c.edited} edited \u00b7 ${c.unreviewed} unreviewed`,
      ),
    );
    const f = $('filters');
    f.textContent = '';
    const filters: Array<[Filter, string, number]> = [
      ['all', 'All', S.items.length],
      ['unreviewed', 'Unreviewed', c.unreviewed],
      ['rejected', 'Rejected', c.rejected],
      ['failing', 'Failing checks', S.items.filter(failing).length],
    ];
    filters.forEach(([name, label, n], k) => {
      const b = el('button', S.filter === name ? 'on' : '', `${k + 1} ${label} (${n})`);
      b.dataset.filter = name;
      b.addEventListener('click', () => setFilter(name));
      f.appendChild(b);
    });
  };
  const renderNav = (): void => {
    const n = $('nav');
    n.textContent = '';
    for (const it of current().list) {
      const r = el('div', `row${it.id === S.cur ? ' cur' : ''}`);
      r.dataset.id = it.id;
      add(r, el('span', 'pid', it.id), el('span', `badge ${it.status}`, it.status));
      const bad = it.checks.filter((c) => !c.ok).length;
      if (bad > 0) r.appendChild(el('span', 'badge fail', `${bad} \u2717`));
      r.addEventListener('click', () => {
        S.cur = it.id;
        render();
      });
      n.appendChild(r);
    }
    n.querySelector('.row.cur')?.scrollIntoView({ block: 'nearest' });
  };
  const diffPane = (title: string, segs: ReviewItem['diff'], keep: 'del' | 'ins', statement: string): HTMLElement => {
    const pane = el('div', 'pane');
    pane.appendChild(el('h3', null, title));
    const t = el('div', 'text');
    if (!segs) t.textContent = statement;
    else
      for (const s of segs) {
        if (s.op === 'eq') t.appendChild(document.createTextNode(s.text));
        else if (s.op === keep) t.appendChild(el('span', keep, s.text));
      }
    pane.appendChild(t);
    return pane;
  };
  const editButton = (item: string, label: string, text: string): HTMLElement => {
    const b = el('button', 'small', 'edit');
    b.title = `edit ${label}`;
    b.addEventListener('click', () => openEditor(item, label, text));
    return b;
  };
  const block = (title: string): HTMLElement => add(el('div', 'block'), el('h3', null, title));
  const testsTable = (rows: ShownTest[], label: string, total: number): HTMLElement => {
    const wrap = el('div');
    wrap.appendChild(el('div', 'meta', `${label}: ${total}${rows.length < total ? ` (first ${rows.length} shown)` : ''}`));
    if (rows.length === 0) return wrap;
    const t = el('table');
    add(t, add(el('tr'), el('th', null, 'input'), el('th', null, 'expected output')));
    for (const r of rows) add(t, add(el('tr'), add(el('td'), el('pre', null, r.input)), add(el('td'), el('pre', null, r.output))));
    wrap.appendChild(t);
    return wrap;
  };
  const renderItem = (): void => {
    const root = $('item');
    root.textContent = '';
    const it = current().item;
    if (!it) {
      root.appendChild(el('div', 'empty', S.items.length === 0 ? 'This build has no problems yet.' : 'No problem matches this filter.'));
      return;
    }
    const h = el('h2');
    const badge = el('span', `badge ${it.status}`, it.status);
    badge.style.marginLeft = '10px';
    add(h, el('span', 'pid', it.id), document.createTextNode(it.rewrite ? it.rewrite.title : it.original.title), badge);
    root.appendChild(h);
    root.appendChild(
      el('div', 'meta', `original title: ${it.original.title}${it.rewrite?.ioChanged ? ' \u00b7 the rewrite changed the I/O wording' : ''}`),
    );
    if (it.failed) root.appendChild(el('div', 'check bad', `${it.failed} (left out of the release)`));
    const checks = el('div', 'checks');
    for (const c of it.checks) {
      const e = el('span', `check ${c.ok ? 'ok' : 'bad'}`, `${c.name.replace('_', ' ')}: ${c.message}`);
      e.dataset.check = c.name;
      checks.appendChild(e);
    }
    root.appendChild(checks);
    const sides = el('div', 'sides');
    sides.appendChild(diffPane('Original', it.diff, 'del', it.original.statement));
    const right = diffPane(
      it.rewrite ? `Rewrite${it.edited.includes(it.id) ? ' (edited)' : ''}` : 'Rewrite (none)',
      it.diff,
      'ins',
      it.rewrite ? it.rewrite.statement : '',
    );
    right.id = 'rewrite';
    if (it.rewrite) right.firstChild?.appendChild(editButton(it.id, 'statement', it.rewrite.statement));
    sides.appendChild(right);
    root.appendChild(sides);
    if (it.tests) {
      const tb = block(it.tests.rewritten > 0 ? `Tests (${it.tests.rewritten} rewritten by the tests stage)` : 'Tests (kept as they are)');
      add(tb, testsTable(it.tests.public, 'public', it.tests.publicTotal), testsTable(it.tests.private, 'private', it.tests.privateTotal));
      root.appendChild(tb);
    }
    if (it.abbreviation) {
      const a = it.abbreviation;
      const ab = block(
        `Abbreviation \u00b7 ${a.words} words${a.fallback ? ' \u00b7 fallback heuristic' : ''}${it.edited.includes(`${it.id}/abbreviation`) ? ' \u00b7 edited' : ''}`,
      );
      ab.id = 'abbreviation';
      ab.firstChild?.appendChild(editButton(`${it.id}/abbreviation`, 'abbreviation', a.text));
      ab.appendChild(el('div', 'text', a.text));
      root.appendChild(ab);
    }
    if (it.solutions.length > 0) {
      const sb = block(`Solutions \u00b7 ${it.solutions.filter((s) => s.passed).length} of ${it.solutions.length} pass`);
      const t = el('table');
      add(
        t,
        add(
          el('tr'),
          el('th', null, 'model'),
          el('th', null, 'language'),
          el('th', null, 'verdict'),
          el('th', null, 'tests'),
          el('th', null, 'program'),
        ),
      );
      for (const s of it.solutions) {
        const v = s.failed ? 'no program' : s.verdict || 'not judged';
        const code = el('td');
        if (s.code) code.appendChild(add(el('details'), el('summary', null, `${s.code.split('\n').length} lines`), el('pre', null, s.code)));
        else code.appendChild(el('span', 'meta', s.failed || ''));
        add(
          t,
          add(
            el('tr'),
            el('td', null, s.model),
            el('td', null, s.language),
            el('td', s.passed ? 'pass' : 'failv', v),
            el('td', null, s.testsTotal !== undefined ? `${s.testsPassed} / ${s.testsTotal}` : ''),
            code,
          ),
        );
      }
      sb.appendChild(t);
      root.appendChild(sb);
    }
    if (it.queries) {
      const qb = block('Search queries');
      qb.id = 'queries';
      if (it.queries.failed) qb.appendChild(el('div', 'check bad', `queries stage failed: ${it.queries.failed}`));
      const ol = el('ol');
      it.queries.texts.forEach((q, i) => {
        const li = el('li');
        const item = `${it.id}/queries/${i + 1}`;
        add(li, el('span', q.rejected ? 'rejected-q' : '', q.text));
        if (q.kind) li.appendChild(el('span', 'badge', q.kind));
        if (it.edited.includes(item)) li.appendChild(el('span', 'badge edited', 'edited'));
        li.appendChild(editButton(item, `query ${i + 1}`, q.text));
        const drop = el('button', 'small', q.rejected ? 'keep' : 'drop');
        drop.addEventListener('click', () => {
          decide(item, q.rejected ? 'approve' : 'reject').catch(() => undefined);
        });
        li.appendChild(drop);
        ol.appendChild(li);
      });
      qb.appendChild(ol);
      root.appendChild(qb);
    }
    if (it.negatives.length > 0) {
      const nb = block('Near-miss texts (hard negatives) \u00b7 cosine similarity to the rewrite');
      nb.id = 'negatives';
      const g = el('div', 'neg');
      for (const n of it.negatives) {
        const c = el('div', `card ${n.verdict || ''}`);
        const head = el(
          'div',
          'meta',
          n.strategy.replace(/_/g, ' ') +
            (n.similarity !== undefined ? ` \u00b7 similarity ${n.similarity.toFixed(2)}` : '') +
            (n.verdict && n.verdict !== 'ok' ? ` \u00b7 ${n.verdict.replace('_', ' ')}` : '') +
            (n.temperature !== undefined ? ` \u00b7 T=${n.temperature}` : ''),
        );
        if (n.text !== undefined)
          head.appendChild(editButton(`${it.id}/negatives/${n.strategy}`, `${n.strategy.replace(/_/g, ' ')} near-miss`, n.text));
        add(c, head, el('div', 'text', n.text !== undefined ? n.text : `failed: ${n.failed}`));
        g.appendChild(c);
      }
      nb.appendChild(g);
      root.appendChild(nb);
    }
  };
  const render = (): void => {
    renderHeader();
    renderNav();
    renderItem();
  };
  const setFilter = (f: Filter): void => {
    S.filter = f;
    current();
    render();
  };
  const move = (d: number): void => {
    const c = current();
    if (c.list.length === 0) return;
    S.cur = c.list[Math.max(0, Math.min(c.list.length - 1, c.index + d))].id;
    render();
    window.scrollTo(0, 0);
  };
  const decide = async (item: string, decision: ReviewDecision, text?: string): Promise<void> => {
    const body: { item: string; decision: ReviewDecision; text?: string } = { item, decision };
    if (text !== undefined) body.text = text;
    try {
      const r = await api<{ item: ReviewItem; counts: Counts }>('POST', '/api/decisions', body);
      S.items = S.items.map((x) => (x.id === r.item.id ? r.item : x));
      S.counts = r.counts;
      toast(`${decision}: ${item}`);
      render();
    } catch (e) {
      toast(`not saved: ${(e as Error).message}`, true);
      throw e;
    }
  };
  const decideCurrent = (decision: ReviewDecision): void => {
    const c = current();
    if (!c.item) return;
    const next = c.list[c.index + 1];
    decide(c.item.id, decision).then(
      () => {
        if (next) S.cur = next.id;
        else {
          const v = visible();
          if (v.length > 0 && !v.some((x) => x.id === S.cur)) S.cur = v[v.length - 1].id;
        }
        render();
      },
      () => undefined,
    );
  };
  const openEditor = (item: string, label: string, text: string): void => {
    S.editing = { item, before: text };
    const problem = item.split('/')[0];
    $('editor-title').textContent = `Edit ${label} of ${problem}`;
    const it = S.items.find((x) => x.id === problem);
    const ref = $('editor-ref');
    ref.textContent = '';
    const showRef = it !== undefined && (label === 'statement' || item.indexOf('/negatives/') > 0 || item.indexOf('/abbreviation') > 0);
    if (showRef)
      add(
        ref,
        el('div', 'meta', label === 'statement' ? 'original statement' : 'rewritten statement (for reference)'),
        el('div', 'text', label === 'statement' ? it.original.statement : it.rewrite ? it.rewrite.statement : ''),
      );
    ref.classList.toggle('hidden', !showRef);
    $('editor-panes').classList.toggle('with-ref', showRef);
    const ta = $<HTMLTextAreaElement>('editor-text');
    ta.value = text;
    $('editor').classList.remove('hidden');
    ta.focus();
  };
  const closeEditor = (): void => {
    S.editing = null;
    $('editor').classList.add('hidden');
  };
  const saveEditor = (): void => {
    const e = S.editing;
    if (!e) return;
    const text = $<HTMLTextAreaElement>('editor-text').value;
    if (text.trim() === '') {
      toast('the text is empty; Esc to cancel', true);
      return;
    }
    decide(e.item, 'edit', text).then(closeEditor, () => undefined);
  };
  document.addEventListener('keydown', (ev) => {
    if (S.editing) {
      if (ev.key === 'Escape') {
        ev.preventDefault();
        closeEditor();
      } else if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        saveEditor();
      }
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const it = current().item;
    switch (ev.key) {
      case 'j':
        move(1);
        break;
      case 'k':
        move(-1);
        break;
      case 'a':
        decideCurrent('approve');
        break;
      case 'r':
        decideCurrent('reject');
        break;
      case 'e':
        if (it?.rewrite) {
          ev.preventDefault();
          openEditor(it.id, 'statement', it.rewrite.statement);
        }
        break;
      case '1':
        setFilter('all');
        break;
      case '2':
        setFilter('unreviewed');
        break;
      case '3':
        setFilter('rejected');
        break;
      case '4':
        setFilter('failing');
        break;
      default:
        return;
    }
  });
  $('editor-save').addEventListener('click', saveEditor);
  $('editor-cancel').addEventListener('click', closeEditor);
  api<{ items: ReviewItem[]; counts: Counts; build: string; reviewer: string }>('GET', '/api/items').then(
    (r) => {
      S.items = r.items;
      S.counts = r.counts;
      S.build = r.build;
      $('build').textContent = `${r.build} \u00b7 reviewer ${r.reviewer}`;
      document.title = `coreb review \u00b7 ${r.build}`;
      render();
      document.body.dataset.ready = '1';
    },
    (e: Error) => {
      $('item').appendChild(el('div', 'empty', `Cannot load the build: ${e.message}`));
    },
  );
}
