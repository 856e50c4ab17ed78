/**
 * The pages' only stylesheet, inlined: no fonts, images or scripts are
 * fetched. Under 700 px the side-by-side pieces stack and wide tables scroll
 * inside their own box, so the page itself never scrolls sideways on a phone.
 */
import { rampCss } from './assets-geometry.js';

export function pageCss(): string {
  return `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;--grey:#6e7781;--warn-bg:#fff8c5;--warn-line:#bf8700;--accent:#0969da}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;color:var(--fg);background:var(--bg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,"PingFang SC","Hiragino Sans GB","Microsoft YaHei","Noto Sans CJK SC",sans-serif}
main{max-width:1200px;margin:0 auto;padding:16px 20px 32px}
a{color:var(--accent)}
h1{font-size:1.6rem;line-height:1.25;margin:.2em 0 .3em}
h2{font-size:1.3rem;margin:1.6em 0 .5em;padding-bottom:.2em;border-bottom:1px solid var(--line)}
h3{font-size:1.08rem;margin:1.2em 0 .4em}
h4{font-size:1rem;margin:1em 0 .3em}
p{margin:.4em 0}
.top{display:flex;flex-wrap:wrap;gap:4px 16px;align-items:baseline;justify-content:space-between}
.meta{color:var(--muted);font-size:.9rem}
.lang{font-weight:600}
.disclaimer{border:2px solid var(--warn-line);background:var(--warn-bg);border-radius:8px;padding:10px 14px;margin:12px 0 16px}
.disclaimer strong{display:block;font-size:1.05rem;margin-bottom:.2em}
.disclaimer .quote{margin-top:.4em;font-size:.92rem}
nav.toc ul{margin:.2em 0;padding-left:1.2em}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%;margin:.3em 0 1em}
table{border-collapse:collapse;font-size:.92rem}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
thead th,tbody th{background:var(--soft);font-weight:600}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.88em;overflow-wrap:anywhere}
.muted{color:var(--muted)}
.nowrap{white-space:nowrap}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:.82rem;font-weight:600;line-height:1.6;color:#fff;background:var(--grey);white-space:nowrap}
.badge.passed,.badge.pass{background:var(--pass)}
.badge.failed,.badge.fail{background:var(--fail)}
dl.kv{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 14px;margin:.4em 0 .8em}
dl.kv dt{color:var(--muted)}
dl.kv dd{margin:0;overflow-wrap:anywhere}
.prompt{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);border-radius:4px;padding:4px 8px}
details.pair{border:1px solid var(--line);border-radius:8px;margin:8px 0}
details.pair>summary{cursor:pointer;padding:8px 12px;overflow-wrap:anywhere}
details.pair>summary .sep{color:var(--muted);margin:0 .3em}
details.pair[open]>summary{background:var(--soft);border-bottom:1px solid var(--line);border-radius:8px 8px 0 0}
.pair-body{padding:4px 14px 14px}
.sides{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:12px}
.triple{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:12px}
figure{margin:0}
figcaption{font-size:.88rem;color:var(--muted);margin-bottom:4px;overflow-wrap:anywhere}
video,img.still,img.heat{display:block;width:100%;height:auto;background:#000;border-radius:4px}
img.heat{image-rendering:pixelated}
video:not([width]){aspect-ratio:16/9}
.legend{display:inline-block;width:120px;height:10px;vertical-align:middle;border-radius:2px;background:${rampCss()}}
.empty{display:flex;align-items:center;justify-content:center;min-height:120px;background:var(--soft);border:1px dashed var(--line);border-radius:4px;color:var(--muted);padding:8px;text-align:center}
.chart svg{display:block;width:100%;height:auto;max-width:760px}
.chart .axis{stroke:#8c959f;stroke-width:1}
.chart .grid{stroke:#d1d9e0;stroke-width:1}
.chart .band{fill:var(--accent);fill-opacity:.12;stroke:none}
.chart .series{fill:none;stroke:var(--accent);stroke-width:1.5}
.chart .limit{stroke:var(--fail);stroke-width:1;stroke-dasharray:5 4}
.chart .worst{fill:var(--fail)}
.chart text{font-size:11px;fill:var(--muted)}
audio{width:100%;max-width:480px}
ul.links{margin:.2em 0;padding-left:1.2em}
footer{margin-top:2em;padding-top:.6em;border-top:1px solid var(--line);color:var(--muted);font-size:.88rem}
@media (max-width:700px){
  main{padding:10px 12px 24px}
  body{font-size:14px}
  h1{font-size:1.35rem}
  .sides,.triple{grid-template-columns:minmax(0,1fr)}
  dl.kv{grid-template-columns:minmax(0,1fr)}
  dl.kv dd{margin-bottom:6px}
  .pair-body{padding:4px 10px 10px}
}
`.trim();
}
