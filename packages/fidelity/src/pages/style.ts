/**
 * The pages' only stylesheet, inlined: no fonts, images or scripts are
 * fetched. Under 700 px the side-by-side pieces stack and wide tables scroll
 * inside their own box, so the page itself never scrolls sideways on a phone.
 */
import { rampCss } from '../bundle/assets-geometry.js';

/**
 * The Latin families first, then the common Simplified Chinese ones of each system (macOS, Windows,
 * then Linux: Noto / Source Han, WenQuanYi), so Chinese text, the 中文 link of the English page
 * included, is drawn with a CJK font wherever one is installed instead of as empty boxes. Nothing
 * is downloaded: a machine with no CJK font needs one (docs/report-pages.md, "Fonts").
 */
export const CJK_FAMILIES = ['PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'WenQuanYi Micro Hei', 'WenQuanYi Zen Hei'] as const;
const quoted = (families: readonly string[]): string => families.map((f) => `"${f}"`).join(',');
/** The body text's font stack. */
export const SANS = `system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,${quoted(CJK_FAMILIES)},sans-serif`;
/** Code and figures: a monospace font, then the CJK monospace and sans families for Chinese run data (prompts, errors). */
export const MONO = `ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono","Noto Sans Mono CJK SC","WenQuanYi Micro Hei Mono",${quoted(CJK_FAMILIES)},monospace`;

/** The stylesheet of both pages. */
export function pageCss(): string {
  return `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;--grey:#6e7781;--warn-bg:#fff8c5;--warn-line:#bf8700;--accent:#0969da}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;color:var(--fg);background:var(--bg);font:15px/1.5 ${SANS}}
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
code,.mono{font-family:${MONO};font-size:.88em;overflow-wrap:anywhere}
.muted{color:var(--muted)}
.nowrap{white-space:nowrap}
td code.nowrap{overflow-wrap:normal;word-break:keep-all}
code.word{overflow-wrap:normal;word-break:keep-all}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:.82rem;font-weight:600;line-height:1.6;color:#fff;background:var(--grey);white-space:nowrap}
.badge.passed,.badge.pass{background:var(--pass)}
.badge.failed,.badge.fail{background:var(--fail)}
.badge.differs{background:var(--warn-line)}
mark{background:var(--warn-bg);color:inherit;outline:1px solid var(--warn-line)}
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
.stills{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,220px),1fr));gap:12px}
.overlay{position:relative}
.overlay img.heat{position:absolute;left:0;top:0;opacity:.6;border-radius:0}
figure{margin:0}
figcaption{font-size:.88rem;color:var(--muted);margin-bottom:4px;overflow-wrap:anywhere}
img.still,img.heat{display:block;width:100%;height:auto;background:#000;border-radius:4px}
video{display:block;width:var(--vw,auto);max-width:100%;height:auto;background:#000;border-radius:4px}
video.crisp{image-rendering:pixelated}
img.heat{image-rendering:pixelated}
img.wave{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
video:not([width]){width:100%;aspect-ratio:16/9}
.legend{display:inline-block;width:120px;height:10px;vertical-align:middle;border-radius:2px;background:${rampCss()}}
.empty{display:flex;align-items:center;justify-content:center;min-height:120px;background:var(--soft);border:1px dashed var(--line);border-radius:4px;color:var(--muted);padding:8px;text-align:center}
.chart svg{display:block;width:100%;height:auto;max-width:760px}
.chart .axis{stroke:#8c959f;stroke-width:1}
.chart .grid{stroke:#d1d9e0;stroke-width:1}
.chart .band{fill:var(--accent);fill-opacity:.12;stroke:none}
.chart .series{fill:none;stroke:var(--accent);stroke-width:1.5}
.chart .series2{fill:none;stroke:#8250df;stroke-width:1.2;stroke-dasharray:1 0;opacity:.75}
.chart .worst-line{stroke:var(--fail);stroke-width:1;stroke-opacity:.4}
.chart .cursor{stroke:var(--fg);stroke-width:1.5}
.chart text.title{font-size:12px;fill:var(--fg)}
.chart text.psnr-t{fill:#8250df}
.js .chart svg{cursor:crosshair}
.legend-row{display:flex;flex-wrap:wrap;gap:2px 14px;margin-bottom:2px}
.key{display:inline-flex;align-items:center;gap:5px;min-width:0}
.key i{flex:none}
.key i{display:inline-block;width:16px;height:0;border-top:2px solid var(--accent)}
.key i.k-psnr{border-color:#8250df}
.key i.k-limit{border-top:2px dashed var(--fail)}
.key i.k-worst{width:8px;height:8px;border:0;border-radius:50%;background:var(--fail)}
.key i.k-band{height:8px;border:0;background:var(--accent);opacity:.2}
.chart .limit{stroke:var(--fail);stroke-width:1;stroke-dasharray:5 4}
.chart .worst{fill:var(--fail)}
.chart text{font-size:11px;fill:var(--muted)}
audio{width:100%;max-width:480px}
ul.links{margin:.2em 0;padding-left:1.2em}
.small{font-size:.86rem}
.h-small{font-size:1.05rem;margin:.8em 0 .3em;border:0;padding:0}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:.4em 0}
.card{flex:1 1 300px;min-width:0;border:1px solid var(--line);border-radius:8px;padding:8px 12px;background:var(--soft)}
.card-title{margin:0 0 4px;overflow-wrap:anywhere}
.counts{display:flex;flex-wrap:wrap;gap:6px 10px;align-items:baseline;margin:0}
.count{white-space:nowrap;border-radius:6px;padding:1px 8px;background:#fff;border:1px solid var(--line)}
.count b{font-size:1.25rem}
.count.failed{background:#ffebe9;border-color:var(--fail);color:#a40e26}
.count.invalid{background:#eaeef2;border-color:var(--grey)}
.count.passed{background:#dafbe1;border-color:var(--pass);color:#116329}
.count.zero{color:var(--muted)}
ul.problems{list-style:none;margin:.2em 0;padding:0}
ul.problems li{padding:3px 0;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
ul.problems .case{font-weight:600}
details.case-line>summary{cursor:pointer}
ul.reps{list-style:none;margin:.2em 0 .4em 1.4em;padding:0}
ul.reps li{padding:2px 0}
details.cause-group{border:1px solid var(--line);border-radius:8px;padding:2px 10px;margin:6px 0}
details.cause-group>summary{cursor:pointer;font-weight:600;padding:4px 0}
.why{overflow-wrap:anywhere}
table.fits .note{display:block;font-weight:400;font-size:.86rem;color:var(--muted)}
.allgood{font-weight:600;color:var(--pass)}
.identical-note{font-weight:600;color:var(--pass)}
.filters{display:flex;flex-wrap:wrap;gap:6px;margin:.3em 0}
.filters input{position:absolute;opacity:0;width:1px;height:1px}
.filters label{border:1px solid var(--line);border-radius:14px;padding:2px 10px;cursor:pointer;white-space:nowrap}
.filters input:checked+label{background:var(--fg);color:#fff;border-color:var(--fg)}
.filters input:checked+label .muted{color:#d0d7de}
.filters input:focus-visible+label{outline:2px solid var(--accent);outline-offset:2px}
#overview td code{white-space:nowrap;overflow-wrap:normal}
#overview:has(#flt-failed:checked) tbody tr:not(.st-failed),#overview:has(#flt-invalid:checked) tbody tr:not(.st-invalid),#overview:has(#flt-passed:checked) tbody tr:not(.st-passed){display:none}
details.pair:target{outline:2px solid var(--accent)}
details.pair:target::details-content{content-visibility:visible;display:block}
details.pair-group{border:1px solid var(--line);border-radius:8px;padding:0 10px;margin:8px 0}
details.pair-group>summary{cursor:pointer;padding:8px 2px}
details.pair-group:has(:target)::details-content{content-visibility:visible;display:block}
.no-decode{min-height:0}
details.quote>summary{cursor:pointer;font-size:.9rem;color:var(--muted)}
details.noise-box{border:1px solid var(--line);border-radius:8px;padding:4px 12px;margin:6px 0 10px}
details.noise-box>summary{cursor:pointer;font-weight:600}
.ab-stage{display:grid;grid-template-columns:repeat(2,minmax(0,max-content));gap:12px}
.ab-stage figure{min-width:0}
.ab.fit .ab-stage{grid-template-columns:repeat(2,minmax(0,1fr))}
.ab.fit video{width:100%}
.ab[data-mode=wipe] .ab-stage,.ab[data-mode=flicker] .ab-stage{grid-template-columns:minmax(0,max-content)}
.ab.fit[data-mode=wipe] .ab-stage,.ab.fit[data-mode=flicker] .ab-stage{grid-template-columns:minmax(0,1fr)}
.ab[data-mode=wipe] .ab-stage>figure,.ab[data-mode=flicker] .ab-stage>figure{grid-area:1/1}
.ab[data-mode=wipe] .ab-b figcaption,.ab[data-mode=flicker] .ab-b figcaption{visibility:hidden}
.ab[data-mode=wipe] .ab-b video{clip-path:inset(0 0 0 var(--wipe,50%))}
.ab[data-mode=flicker][data-show=a] .ab-b,.ab[data-mode=flicker][data-show=b] .ab-a{visibility:hidden}
.ab:not([data-mode=wipe]) .ab-wipe-l,.ab:not([data-mode=flicker]) [data-act=show]{display:none}
.ab-bar{margin:6px 0;display:flex;flex-direction:column;gap:4px}
.ab-bar[hidden]{display:none}
.ab-row{display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.ab-bar button{font:inherit;font-size:.9rem;padding:3px 10px;border:1px solid var(--line);border-radius:6px;background:var(--soft);color:var(--fg);cursor:pointer}
.ab-bar button[aria-pressed=true]{background:var(--fg);color:#fff;border-color:var(--fg)}
.ab-seek{flex:1 1 160px;min-width:120px}
.ab-pos{font-variant-numeric:tabular-nums;white-space:nowrap;font-size:.9rem}
.ab-modes{display:inline-flex;gap:4px;flex-wrap:wrap}
footer{margin-top:2em;padding-top:.6em;border-top:1px solid var(--line);color:var(--muted);font-size:.88rem}
@media (max-width:700px){
  main{padding:10px 12px 24px}
  body{font-size:14px}
  h1{font-size:1.35rem}
  .sides,.triple{grid-template-columns:minmax(0,1fr)}
  /* The two synced videos stack too; wipe and flicker already lay them on one cell. */
  .ab .ab-stage,.ab.fit .ab-stage{grid-template-columns:minmax(0,1fr)}
  .count b{font-size:1.1rem}
  .chart text{font-size:17px}
  /* A narrow column would break a Chinese label every two or three characters: tables scroll in their box instead. */
  .scroll th[scope=row]{min-width:8em}
  .scroll td{min-width:4.5em}
  #overview td{min-width:0}
  /* The checks table fits a phone whole: its cells wrap instead of scrolling the outcome out of sight. */
  .scroll table.fits th,.scroll table.fits td{min-width:0;padding:3px 5px}
  /* A figure with words ("as planned", "identical (+∞)") may wrap there; a bare number has no space to wrap at. */
  .scroll table.fits td.n{white-space:normal}
  #overview td.why{min-width:10em}
  #overview .why .nowrap{white-space:normal}
  #overview thead th{min-width:5em}
  .chart text.title{font-size:17px}
  dl.kv{grid-template-columns:minmax(0,1fr)}
  dl.kv dd{margin-bottom:6px}
  .pair-body{padding:4px 10px 10px}
}
`.trim();
}
