/**
 * The pages' one inline script, allowed by its SHA-256 in the policy
 * (docs/report-pages.md). It only enhances what the HTML already shows:
 * opens the pair a `#pair-…` link points at, drives both videos of a pair
 * from one control (play, seek, frame step, wipe, flicker, keys) and lets a
 * click on the per-frame chart seek both videos. It never builds a URL, loads
 * nothing and reads its UI strings from the page's JSON data block; with
 * scripts off every part of the page is still there (native video controls,
 * side by side).
 *
 * The text is a constant: its hash is computed once from it, so editing it
 * changes the policy with it.
 */
import { createHash } from 'node:crypto';

/** The id of the `<script type="application/json">` block the script reads. */
export const PAGE_DATA_ID = 'fidelity-data';

export const PAGE_SCRIPT = String.raw`(function(){
'use strict';
var data={};
try{data=JSON.parse(document.getElementById('${PAGE_DATA_ID}').textContent||'{}');}catch(e){data={};}
var msg=data.m||{};
function fill(t,v){return String(t||'').replace(/\{(\w+)\}/g,function(_,k){return k in v?String(v[k]):'{'+k+'}';});}
document.documentElement.classList.add('js');

function openTarget(){
  var id='';
  try{id=decodeURIComponent(location.hash.slice(1));}catch(e){return;}
  if(!id)return;
  var el=document.getElementById(id);
  if(!el)return;
  for(var d=el;d;d=d.parentElement){if(d.tagName==='DETAILS')d.open=true;}
  el.scrollIntoView();
}
window.addEventListener('hashchange',openTarget);
document.addEventListener('click',function(ev){
  var a=ev.target&&ev.target.closest?ev.target.closest('a[href^="#"]'):null;
  if(a&&a.getAttribute('href')===location.hash)setTimeout(openTarget,0);
});

var players=[];var current=null;
function Player(root){
  var vs=root.querySelectorAll('video');
  var a=vs[0],b=vs[1],p=this;
  var frames=Number(root.getAttribute('data-frames'))||1;
  var seek=root.querySelector('.ab-seek'),pos=root.querySelector('.ab-pos'),wipe=root.querySelector('.ab-wipe');
  var playBtn=root.querySelector('[data-act="play"]'),showBtn=root.querySelector('[data-act="show"]');
  var details=root.closest('details');
  var cursor=details?details.querySelector('.chart .cursor'):null;
  var svg=cursor?cursor.ownerSVGElement:null;
  p.root=root;
  // Before anything is loaded both videos show their poster, the worst frame: the control is at that frame
  // until the media arrive, and playing starts there (a seek, or a step, before that moves it).
  var pending=root.hasAttribute('data-start')?Number(root.getAttribute('data-start'))||0:null,startPending=false;
  function here(){return pending!==null?pending:frameAt(a.currentTime);}
  // The frame becomes a time only once the duration is known (the frame rate is frames over duration).
  function goPending(){var t=(pending+0.5)/fps();pending=null;startPending=false;a.currentTime=t;b.currentTime=t;}
  function loaded(){if(pending!==null&&startPending)goPending();show();}
  function fps(){var d=a.duration;return d&&isFinite(d)&&d>0?frames/d:Number(root.getAttribute('data-fps'))||24;}
  function frameAt(t){return Math.max(0,Math.min(frames-1,Math.floor(t*fps()+1e-6)));}
  function show(){
    var f=here();
    if(seek&&document.activeElement!==seek)seek.value=String(f);
    if(pos)pos.textContent=fill(msg.frame_pos,{frame:f,last:frames-1});
    if(cursor&&svg){
      var x0=Number(svg.getAttribute('data-x0')),x1=Number(svg.getAttribute('data-x1'));
      var x=frames>1?x0+(f/(frames-1))*(x1-x0):(x0+x1)/2;
      cursor.setAttribute('x1',x.toFixed(1));cursor.setAttribute('x2',x.toFixed(1));cursor.removeAttribute('visibility');
    }
    if(playBtn){playBtn.textContent=a.paused?msg.play:msg.pause;playBtn.setAttribute('aria-pressed',a.paused?'false':'true');}
  }
  function align(){if(Math.abs(b.currentTime-a.currentTime)>0.25/fps())b.currentTime=a.currentTime;}
  function tick(){align();show();if(!a.paused)requestAnimationFrame(tick);}
  p.play=function(){
    if(a.ended)a.currentTime=0;
    // Play starts at the frame the control shows: at once when the duration is known, else when it is (loaded).
    if(pending!==null){if(a.readyState>=1)goPending();else startPending=true;}
    b.currentTime=a.currentTime;
    var r1=a.play(),r2=b.play();
    if(r1&&r1.catch)r1.catch(function(){});
    if(r2&&r2.catch)r2.catch(function(){});
    requestAnimationFrame(tick);
  };
  p.pause=function(){a.pause();b.pause();b.currentTime=a.currentTime;show();};
  p.toggle=function(){if(a.paused)p.play();else p.pause();};
  p.toFrame=function(f){
    f=Math.max(0,Math.min(frames-1,f));
    a.pause();b.pause();
    if(a.readyState<1){pending=f;show();return;}
    var t=(f+0.5)/fps();
    a.currentTime=t;b.currentTime=t;show();
  };
  p.step=function(n){p.toFrame(here()+n);};
  p.mode=function(mode){
    root.setAttribute('data-mode',mode);
    root.querySelectorAll('[data-mode-btn]').forEach(function(x){x.setAttribute('aria-pressed',x.getAttribute('data-mode-btn')===mode?'true':'false');});
    sound();
  };
  p.flick=function(){
    if(root.getAttribute('data-mode')!=='flicker'){p.mode('flicker');return;}
    root.setAttribute('data-show',root.getAttribute('data-show')==='b'?'a':'b');
    if(showBtn)showBtn.textContent=root.getAttribute('data-show')==='b'?msg.showing_b:msg.showing_a;
    sound();
  };
  function sound(){
    var hearB=root.getAttribute('data-mode')==='flicker'&&root.getAttribute('data-show')==='b';
    a.muted=hearB;b.muted=!hearB;
  }
  [a,b].forEach(function(v){v.removeAttribute('controls');v.addEventListener('seeked',show);});
  a.addEventListener('loadedmetadata',loaded);b.addEventListener('loadedmetadata',show);
  a.addEventListener('pause',show);a.addEventListener('ended',function(){b.pause();show();});
  root.querySelector('.ab-bar').hidden=false;
  root.addEventListener('click',function(ev){
    current=p;
    var t=ev.target.closest?ev.target.closest('button'):null;
    if(!t)return;
    var act=t.getAttribute('data-act');
    if(act==='play')p.toggle();
    else if(act==='back')p.step(-1);
    else if(act==='fwd')p.step(1);
    else if(act==='show')p.flick();
    else if(act==='fit')root.classList.toggle('fit');
    else if(t.hasAttribute('data-mode-btn'))p.mode(t.getAttribute('data-mode-btn'));
  });
  root.addEventListener('focusin',function(){current=p;});
  if(seek)seek.addEventListener('input',function(){p.toFrame(Number(seek.value));});
  if(wipe){
    var setWipe=function(){root.style.setProperty('--wipe',Number(wipe.value)+'%');};
    wipe.addEventListener('input',setWipe);setWipe();
  }
  if(svg){
    svg.addEventListener('click',function(ev){
      var r=svg.getBoundingClientRect(),vb=svg.viewBox.baseVal;
      var x=(ev.clientX-r.left)/r.width*vb.width;
      var x0=Number(svg.getAttribute('data-x0')),x1=Number(svg.getAttribute('data-x1'));
      current=p;
      p.toFrame(Math.round((x-x0)/(x1-x0)*(frames-1)));
    });
  }
  if(details)details.addEventListener('toggle',function(){if(details.open)current=p;});
  sound();show();
}
// A video with no poster (an invalid pair has no stills) shows its first frame once its pair is opened,
// and a file the browser cannot decode is replaced by a sentence that says so, never an endless spinner.
function firstFrames(d){
  d.querySelectorAll('video').forEach(function(v){
    if(v.hasAttribute('poster')||v.hasAttribute('data-first'))return;
    v.setAttribute('data-first','');
    v.addEventListener('loadedmetadata',function(){if(v.currentTime===0)v.currentTime=0.001;},{once:true});
    v.preload='metadata';
    v.load();
  });
}
document.addEventListener('error',function(ev){
  var v=ev.target;
  if(!v||v.tagName!=='VIDEO'||!v.parentNode)return;
  var div=document.createElement('div');div.className='empty no-decode';div.textContent=msg.no_decode||'';
  v.parentNode.replaceChild(div,v);
},true);
document.querySelectorAll('details.pair').forEach(function(d){
  d.addEventListener('toggle',function(){if(d.open)firstFrames(d);});
  if(d.open)firstFrames(d);
});
document.querySelectorAll('.ab').forEach(function(el){if(el.querySelectorAll('video').length===2)players.push(new Player(el));});

document.addEventListener('keydown',function(ev){
  if(ev.ctrlKey||ev.metaKey||ev.altKey)return;
  var t=ev.target,tag=t&&t.tagName;
  if(tag==='TEXTAREA'||tag==='SELECT'||(tag==='INPUT'&&t.type!=='range')||(tag==='BUTTON'&&(ev.key===' '||ev.key==='Enter')))return;
  var p=current&&current.root.closest('details')&&current.root.closest('details').open?current:null;
  if(!p){var open=players.filter(function(x){var d=x.root.closest('details');return d&&d.open;});p=open.length===1?open[0]:null;}
  if(!p)return;
  var k=ev.key,done=true;
  if(tag==='INPUT'&&(k==='ArrowLeft'||k==='ArrowRight'))return;
  if(k===' '||k==='k')p.toggle();
  else if(k==='ArrowLeft'||k===',')p.step(-1);
  else if(k==='ArrowRight'||k==='.')p.step(1);
  else if(k==='f')p.flick();
  else if(k==='w')p.mode('wipe');
  else if(k==='s')p.mode('side');
  else done=false;
  if(done)ev.preventDefault();
});
openTarget();
})();`;

/** The `'sha256-…'` source for the policy, over the script's UTF-8 text as the browser hashes it. */
export const PAGE_SCRIPT_HASH = `'sha256-${createHash('sha256').update(PAGE_SCRIPT, 'utf8').digest('base64')}'`;

/** The JSON data block's text: `<`, `>` and `&` escaped, so no markup can end or open anything inside it. */
export function pageDataJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
