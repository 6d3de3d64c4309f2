/**
 * The `coreb review` page: one self-contained HTML document (inline CSS and JS under a per-response
 * CSP nonce, no CDN, no external request). It fetches `/api/items` with the session token and
 * builds every node with `textContent`, so build content (statements, code, model replies) is
 * always shown as text, never parsed as HTML.
 */

const CSS = `
:root { --bg:#fafafa; --fg:#1d1d1f; --muted:#6b6b70; --line:#dcdce0; --ok:#1a7f37; --bad:#c62828; --warn:#9a6700; --acc:#0b57d0; --del:#ffd7d5; --ins:#ccf2d4; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header { position:sticky; top:0; z-index:2; display:flex; gap:16px; align-items:center; flex-wrap:wrap; padding:8px 16px; background:#fff; border-bottom:1px solid var(--line); }
header h1 { font-size:16px; margin:0; }
.progress { color:var(--muted); }
.progress b { color:var(--fg); }
.filters button { font:inherit; border:1px solid var(--line); background:#fff; padding:2px 10px; border-radius:12px; cursor:pointer; }
.filters button.on { background:var(--acc); color:#fff; border-color:var(--acc); }
.keys { color:var(--muted); font-size:12px; margin-left:auto; }
kbd { border:1px solid var(--line); border-bottom-width:2px; border-radius:3px; padding:0 4px; font:12px ui-monospace, monospace; background:#fff; }
main { display:grid; grid-template-columns:260px 1fr; min-height:calc(100vh - 50px); }
nav { border-right:1px solid var(--line); overflow:auto; max-height:calc(100vh - 50px); position:sticky; top:50px; background:#fff; }
nav .row { display:flex; gap:6px; align-items:center; padding:4px 10px; cursor:pointer; border-left:3px solid transparent; font-size:13px; }
nav .row.cur { background:#e8f0fe; border-left-color:var(--acc); }
nav .row .pid { font-family:ui-monospace, monospace; flex:1; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
.badge { font-size:11px; padding:0 6px; border-radius:8px; background:#eee; color:var(--muted); white-space:nowrap; }
.badge.approved { background:#dafbe1; color:var(--ok); } .badge.rejected { background:#ffebe9; color:var(--bad); } .badge.edited { background:#fff8c5; color:var(--warn); }
.badge.fail { background:#ffebe9; color:var(--bad); }
section.item { padding:12px 20px 60px; max-width:1500px; }
.item h2 { margin:0 0 4px; font-size:18px; }
.item h2 .pid { font-family:ui-monospace, monospace; color:var(--muted); font-weight:normal; margin-right:8px; }
.checks { display:flex; flex-wrap:wrap; gap:6px; margin:8px 0 12px; }
.check { border:1px solid var(--line); border-radius:6px; padding:2px 8px; font-size:12px; background:#fff; }
.check.ok::before { content:"\\2713 "; color:var(--ok); } .check.bad { border-color:#f5b5b0; background:#fff5f4; } .check.bad::before { content:"\\2717 "; color:var(--bad); }
.sides { display:grid; grid-template-columns:1fr 1fr; gap:12px; }
.pane { background:#fff; border:1px solid var(--line); border-radius:8px; padding:10px 12px; min-width:0; }
.pane h3, .block h3 { margin:0 0 6px; font-size:13px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); }
.text { white-space:pre-wrap; word-wrap:break-word; font-size:13.5px; }
.del { background:var(--del); text-decoration:line-through; text-decoration-color:#c62828aa; }
.ins { background:var(--ins); }
.block { margin-top:14px; background:#fff; border:1px solid var(--line); border-radius:8px; padding:10px 12px; }
table { border-collapse:collapse; width:100%; font-size:13px; }
td, th { border-bottom:1px solid var(--line); padding:3px 6px; text-align:left; vertical-align:top; }
pre { margin:0; white-space:pre-wrap; word-break:break-all; font:12px/1.4 ui-monospace, monospace; max-height:260px; overflow:auto; background:#f6f8fa; padding:4px 6px; border-radius:4px; }
.pass { color:var(--ok); font-weight:600; } .failv { color:var(--bad); font-weight:600; }
.neg { display:grid; grid-template-columns:1fr 1fr; gap:10px; }
.neg .card { border:1px solid var(--line); border-radius:6px; padding:6px 8px; }
.neg .card .text { max-height:320px; overflow:auto; }
.neg .card.too_close, .neg .card.too_far { border-color:#f5b5b0; background:#fff5f4; }
.meta { color:var(--muted); font-size:12px; }
.small { font:12px inherit; border:1px solid var(--line); background:#fff; border-radius:4px; cursor:pointer; padding:0 6px; margin-left:6px; }
.rejected-q { text-decoration:line-through; color:var(--muted); }
.editor { position:fixed; inset:10% 10%; z-index:5; background:#fff; border:2px solid var(--acc); border-radius:10px; padding:12px; display:flex; flex-direction:column; gap:8px; box-shadow:0 10px 40px #0004; }
.editor .panes { flex:1; display:grid; grid-template-columns:1fr; gap:10px; min-height:0; }
.editor .panes.with-ref { grid-template-columns:1fr 1fr; }
.editor .ref { overflow:auto; border:1px solid var(--line); border-radius:6px; padding:8px; background:#f6f8fa; font-size:13px; }
.editor textarea { font:13.5px/1.45 ui-monospace, monospace; padding:8px; border:1px solid var(--line); border-radius:6px; resize:none; min-height:0; }
.hidden { display:none !important; }
#toast { position:fixed; bottom:14px; left:50%; transform:translateX(-50%); background:#1d1d1f; color:#fff; padding:6px 14px; border-radius:6px; font-size:13px; opacity:0; transition:opacity .2s; z-index:9; }
#toast.show { opacity:.95; } #toast.err { background:var(--bad); }
.empty { padding:40px; color:var(--muted); }
`;

const JS = String.raw`
'use strict';
(function () {
  var params = new URLSearchParams(location.search);
  var token = params.get('token') || sessionStorage.getItem('coreb-review-token') || '';
  if (params.get('token')) { sessionStorage.setItem('coreb-review-token', token); history.replaceState(null, '', '/'); }
  var S = { items: [], counts: null, filter: 'all', cur: null, editing: null, build: '' };
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) { for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]); return parent; }
  function toast(msg, err) {
    var t = $('toast'); t.textContent = msg; t.className = 'show' + (err ? ' err' : '');
    clearTimeout(toast.h); toast.h = setTimeout(function () { t.className = ''; }, err ? 5000 : 1600);
  }
  function api(method, path, body) {
    var init = { method: method, headers: { 'X-Coreb-Token': token } };
    if (body !== undefined) { init.headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch(path, init).then(function (r) {
      return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status)); return j; });
    });
  }
  function failing(it) { return it.checks.some(function (c) { return !c.ok; }); }
  function visible() {
    return S.items.filter(function (it) {
      if (S.filter === 'unreviewed') return it.status === 'unreviewed';
      if (S.filter === 'rejected') return it.status === 'rejected';
      if (S.filter === 'failing') return failing(it);
      return true;
    });
  }
  function current() {
    var v = visible();
    var i = v.findIndex(function (it) { return it.id === S.cur; });
    if (i < 0 && v.length > 0) { S.cur = v[0].id; i = 0; }
    return { list: v, index: i, item: i >= 0 ? v[i] : null };
  }
  function renderHeader() {
    var c = S.counts;
    var p = $('progress'); p.textContent = '';
    var reviewed = c.approved + c.rejected + c.edited;
    add(p, el('b', null, reviewed + ' / ' + c.problems), document.createTextNode(' reviewed \u00b7 ' + c.approved + ' approved \u00b7 ' + c.rejected + ' rejected \u00b7 ' + c.edited + ' edited \u00b7 ' + c.unreviewed + ' unreviewed'));
    var f = $('filters'); f.textContent = '';
    [['all', 'All', S.items.length], ['unreviewed', 'Unreviewed', c.unreviewed], ['rejected', 'Rejected', c.rejected], ['failing', 'Failing checks', S.items.filter(failing).length]].forEach(function (x, k) {
      var b = el('button', S.filter === x[0] ? 'on' : '', (k + 1) + ' ' + x[1] + ' (' + x[2] + ')');
      b.dataset.filter = x[0];
      b.addEventListener('click', function () { setFilter(x[0]); });
      f.appendChild(b);
    });
  }
  function renderNav() {
    var n = $('nav'); n.textContent = '';
    var cur = current();
    cur.list.forEach(function (it) {
      var r = el('div', 'row' + (it.id === S.cur ? ' cur' : ''));
      r.dataset.id = it.id;
      add(r, el('span', 'pid', it.id), el('span', 'badge ' + it.status, it.status));
      var bad = it.checks.filter(function (c) { return !c.ok; }).length;
      if (bad > 0) r.appendChild(el('span', 'badge fail', bad + ' \u2717'));
      r.addEventListener('click', function () { S.cur = it.id; render(); });
      n.appendChild(r);
    });
    var curRow = n.querySelector('.row.cur');
    if (curRow) curRow.scrollIntoView({ block: 'nearest' });
  }
  function diffPane(title, segs, keep, statement) {
    var pane = el('div', 'pane');
    pane.appendChild(el('h3', null, title));
    var t = el('div', 'text');
    if (!segs) t.textContent = statement;
    else segs.forEach(function (s) {
      if (s.op === 'eq') t.appendChild(document.createTextNode(s.text));
      else if (s.op === keep) t.appendChild(el('span', keep, s.text));
    });
    pane.appendChild(t);
    return pane;
  }
  function editButton(item, label, text) {
    var b = el('button', 'small', 'edit');
    b.title = 'edit ' + label;
    b.addEventListener('click', function () { openEditor(item, label, text); });
    return b;
  }
  function block(title) { var b = el('div', 'block'); b.appendChild(el('h3', null, title)); return b; }
  function testsTable(rows, label, total) {
    var wrap = el('div');
    wrap.appendChild(el('div', 'meta', label + ': ' + total + (rows.length < total ? ' (first ' + rows.length + ' shown)' : '')));
    if (rows.length === 0) return wrap;
    var t = el('table');
    add(t, add(el('tr'), el('th', null, 'input'), el('th', null, 'expected output')));
    rows.forEach(function (r) { add(t, add(el('tr'), add(el('td'), el('pre', null, r.input)), add(el('td'), el('pre', null, r.output)))); });
    wrap.appendChild(t);
    return wrap;
  }
  function renderItem() {
    var root = $('item'); root.textContent = '';
    var it = current().item;
    if (!it) { root.appendChild(el('div', 'empty', S.items.length === 0 ? 'This build has no problems yet.' : 'No problem matches this filter.')); return; }
    var h = el('h2');
    add(h, el('span', 'pid', it.id), document.createTextNode(it.rewrite ? it.rewrite.title : it.original.title), el('span', 'badge ' + it.status, it.status));
    h.lastChild.style.marginLeft = '10px';
    root.appendChild(h);
    root.appendChild(el('div', 'meta', 'original title: ' + it.original.title + (it.rewrite && it.rewrite.ioChanged ? ' \u00b7 the rewrite changed the I/O wording' : '')));
    if (it.failed) root.appendChild(el('div', 'check bad', it.failed + ' (left out of the release)'));
    var checks = el('div', 'checks');
    it.checks.forEach(function (c) { var e = el('span', 'check ' + (c.ok ? 'ok' : 'bad'), c.name.replace('_', ' ') + ': ' + c.message); e.dataset.check = c.name; checks.appendChild(e); });
    root.appendChild(checks);
    var sides = el('div', 'sides');
    sides.appendChild(diffPane('Original', it.diff, 'del', it.original.statement));
    var right = diffPane(it.rewrite ? 'Rewrite' + (it.edited.indexOf(it.id) >= 0 ? ' (edited)' : '') : 'Rewrite (none)', it.diff, 'ins', it.rewrite ? it.rewrite.statement : '');
    right.id = 'rewrite';
    if (it.rewrite) right.firstChild.appendChild(editButton(it.id, 'statement', it.rewrite.statement));
    sides.appendChild(right);
    root.appendChild(sides);
    if (it.tests) {
      var tb = block(it.tests.rewritten > 0 ? 'Tests (' + it.tests.rewritten + ' rewritten by the tests stage)' : 'Tests (kept as they are)');
      add(tb, testsTable(it.tests.public, 'public', it.tests.publicTotal), testsTable(it.tests.private, 'private', it.tests.privateTotal));
      root.appendChild(tb);
    }
    if (it.abbreviation) {
      var ab = block('Abbreviation \u00b7 ' + it.abbreviation.words + ' words' + (it.abbreviation.fallback ? ' \u00b7 fallback heuristic' : '') + (it.edited.indexOf(it.id + '/abbreviation') >= 0 ? ' \u00b7 edited' : ''));
      ab.id = 'abbreviation';
      ab.firstChild.appendChild(editButton(it.id + '/abbreviation', 'abbreviation', it.abbreviation.text));
      ab.appendChild(el('div', 'text', it.abbreviation.text));
      root.appendChild(ab);
    }
    if (it.solutions.length > 0) {
      var sb = block('Solutions \u00b7 ' + it.solutions.filter(function (s) { return s.passed; }).length + ' of ' + it.solutions.length + ' pass');
      var t = el('table');
      add(t, add(el('tr'), el('th', null, 'model'), el('th', null, 'language'), el('th', null, 'verdict'), el('th', null, 'tests'), el('th', null, 'program')));
      it.solutions.forEach(function (s) {
        var v = s.failed ? 'no program' : (s.verdict || 'not judged');
        var code = el('td');
        if (s.code) { var d = el('details'); add(d, el('summary', null, s.code.split('\n').length + ' lines'), el('pre', null, s.code)); code.appendChild(d); }
        else code.appendChild(el('span', 'meta', s.failed || ''));
        add(t, add(el('tr'), el('td', null, s.model), el('td', null, s.language), el('td', s.passed ? 'pass' : 'failv', v), el('td', null, s.testsTotal !== undefined ? s.testsPassed + ' / ' + s.testsTotal : ''), code));
      });
      sb.appendChild(t);
      root.appendChild(sb);
    }
    if (it.queries) {
      var qb = block('Search queries');
      qb.id = 'queries';
      if (it.queries.failed) qb.appendChild(el('div', 'check bad', 'queries stage failed: ' + it.queries.failed));
      var ol = el('ol');
      it.queries.texts.forEach(function (q, i) {
        var li = el('li');
        var item = it.id + '/queries/' + (i + 1);
        add(li, el('span', q.rejected ? 'rejected-q' : '', q.text));
        if (q.kind) li.appendChild(el('span', 'badge', q.kind));
        if (it.edited.indexOf(item) >= 0) li.appendChild(el('span', 'badge edited', 'edited'));
        li.appendChild(editButton(item, 'query ' + (i + 1), q.text));
        var drop = el('button', 'small', q.rejected ? 'keep' : 'drop');
        drop.addEventListener('click', function () { decide(item, q.rejected ? 'approve' : 'reject'); });
        li.appendChild(drop);
        ol.appendChild(li);
      });
      qb.appendChild(ol);
      root.appendChild(qb);
    }
    if (it.negatives.length > 0) {
      var nb = block('Near-miss texts (hard negatives) \u00b7 cosine similarity to the rewrite');
      nb.id = 'negatives';
      var g = el('div', 'neg');
      it.negatives.forEach(function (n) {
        var c = el('div', 'card ' + (n.verdict || ''));
        var head = el('div', 'meta', n.strategy.replace(/_/g, ' ') + (n.similarity !== undefined ? ' \u00b7 similarity ' + n.similarity.toFixed(2) : '') + (n.verdict && n.verdict !== 'ok' ? ' \u00b7 ' + n.verdict.replace('_', ' ') : '') + (n.temperature !== undefined ? ' \u00b7 T=' + n.temperature : ''));
        if (n.text !== undefined) head.appendChild(editButton(it.id + '/negatives/' + n.strategy, n.strategy.replace(/_/g, ' ') + ' near-miss', n.text));
        add(c, head, el('div', 'text', n.text !== undefined ? n.text : 'failed: ' + n.failed));
        g.appendChild(c);
      });
      nb.appendChild(g);
      root.appendChild(nb);
    }
  }
  function render() { renderHeader(); renderNav(); renderItem(); }
  function setFilter(f) { S.filter = f; current(); render(); }
  function move(d) {
    var c = current();
    if (c.list.length === 0) return;
    var i = Math.max(0, Math.min(c.list.length - 1, c.index + d));
    S.cur = c.list[i].id; render();
    window.scrollTo(0, 0);
  }
  function replace(item, counts) {
    S.items = S.items.map(function (x) { return x.id === item.id ? item : x; });
    S.counts = counts;
  }
  function decide(item, decision, text) {
    var body = { item: item, decision: decision };
    if (text !== undefined) body.text = text;
    return api('POST', '/api/decisions', body).then(function (r) {
      replace(r.item, r.counts);
      toast(decision + ': ' + item);
      render();
      return r;
    }, function (e) { toast('not saved: ' + e.message, true); throw e; });
  }
  function decideCurrent(decision) {
    var c = current();
    if (!c.item) return;
    var next = c.list[c.index + 1];
    decide(c.item.id, decision).then(function () {
      if (next) S.cur = next.id;
      else { var v = visible(); if (v.length > 0 && !v.some(function (x) { return x.id === S.cur; })) S.cur = v[v.length - 1].id; }
      render();
    }, function () {});
  }
  function openEditor(item, label, text) {
    S.editing = { item: item, before: text };
    $('editor-title').textContent = 'Edit ' + label + ' of ' + item.split('/')[0];
    var it = S.items.find(function (x) { return x.id === item.split('/')[0]; });
    var ref = $('editor-ref'); ref.textContent = '';
    var showRef = !!it && (label === 'statement' || item.indexOf('/negatives/') > 0 || item.indexOf('/abbreviation') > 0);
    if (showRef) add(ref, el('div', 'meta', label === 'statement' ? 'original statement' : 'rewritten statement (for reference)'), el('div', 'text', label === 'statement' ? it.original.statement : (it.rewrite ? it.rewrite.statement : '')));
    ref.classList.toggle('hidden', !showRef);
    $('editor-panes').classList.toggle('with-ref', showRef);
    var ta = $('editor-text'); ta.value = text;
    $('editor').classList.remove('hidden');
    ta.focus();
  }
  function closeEditor() { S.editing = null; $('editor').classList.add('hidden'); }
  function saveEditor() {
    var e = S.editing; if (!e) return;
    var text = $('editor-text').value;
    if (text.trim() === '') { toast('the text is empty; Esc to cancel', true); return; }
    decide(e.item, 'edit', text).then(closeEditor, function () {});
  }
  document.addEventListener('keydown', function (ev) {
    if (S.editing) {
      if (ev.key === 'Escape') { ev.preventDefault(); closeEditor(); }
      else if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); saveEditor(); }
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var it = current().item;
    switch (ev.key) {
      case 'j': move(1); break;
      case 'k': move(-1); break;
      case 'a': decideCurrent('approve'); break;
      case 'r': decideCurrent('reject'); break;
      case 'e': if (it && it.rewrite) { ev.preventDefault(); openEditor(it.id, 'statement', it.rewrite.statement); } break;
      case '1': setFilter('all'); break;
      case '2': setFilter('unreviewed'); break;
      case '3': setFilter('rejected'); break;
      case '4': setFilter('failing'); break;
      default: return;
    }
  });
  $('editor-save').addEventListener('click', saveEditor);
  $('editor-cancel').addEventListener('click', closeEditor);
  api('GET', '/api/items').then(function (r) {
    S.items = r.items; S.counts = r.counts; S.build = r.build;
    $('build').textContent = r.build + ' \u00b7 reviewer ' + r.reviewer;
    document.title = 'coreb review \u00b7 ' + r.build;
    render();
    document.body.dataset.ready = '1';
  }, function (e) {
    $('item').appendChild(el('div', 'empty', 'Cannot load the build: ' + e.message));
  });
})();
`;

/** The review page; `nonce` must match the response's CSP `script-src`/`style-src` nonce. */
export function renderReviewPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>coreb review</title>
<style nonce="${nonce}">${CSS}</style>
</head>
<body>
<header>
  <h1>coreb review</h1>
  <span class="meta" id="build"></span>
  <span class="progress" id="progress"></span>
  <span class="filters" id="filters"></span>
  <span class="keys"><kbd>j</kbd>/<kbd>k</kbd> move · <kbd>a</kbd> approve · <kbd>r</kbd> reject · <kbd>e</kbd> edit · <kbd>1</kbd>–<kbd>4</kbd> filter</span>
</header>
<main>
  <nav id="nav"></nav>
  <section class="item" id="item"></section>
</main>
<div class="editor hidden" id="editor">
  <strong id="editor-title"></strong>
  <div class="panes" id="editor-panes"><div class="ref hidden" id="editor-ref"></div><textarea id="editor-text" spellcheck="true"></textarea></div>
  <div><button id="editor-save">Save (Ctrl-Enter)</button> <button id="editor-cancel">Cancel (Esc)</button></div>
</div>
<div id="toast" role="status"></div>
<script nonce="${nonce}">${JS}</script>
</body>
</html>
`;
}
