/**
 * The `coreb review` page: one self-contained HTML document (inline CSS and JS under a per-response
 * CSP nonce, no CDN, no external request). Its script (page-script.ts) fetches `/api/items` with
 * the session token and builds every node with `textContent`, so build content (statements, code,
 * model replies) is always shown as text, never parsed as HTML.
 */
import { reviewPageScript } from './page-script.js';

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

/**
 * The page's script: the compiled text of {@link reviewPageScript} (page-script.ts, type-checked
 * with the rest of coreb), called once in strict mode (the page's script is classic, not a module).
 */
const JS = `'use strict';\n(${reviewPageScript.toString()})();`;

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
