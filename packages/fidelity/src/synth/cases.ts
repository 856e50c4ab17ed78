/**
 * The synthetic workload: five prompts x seeds, and for each case its own
 * deterministic ffmpeg lavfi picture and sound. Every case has a distinct
 * source so that a pairing bug (slot A measured against slot B) shows up as a
 * failed comparison instead of hiding behind identical content.
 */
import type { PlanCase } from '../schemas/run-archive.js';
import type { SizeProfile } from './options.js';

export interface Prompt {
  slug: string;
  /** Some prompts carry non-ASCII text and HTML specials on purpose: the report must escape and render them. */
  text: string;
}

export const PROMPTS: readonly Prompt[] = [
  { slug: 'spoken-greeting', text: 'A woman looks into the camera and says "Hello, nice to meet you!" in a sunlit kitchen' },
  { slug: 'night-market', text: '夜市的摊主一边翻炒一边吆喝：“热腾腾的炒面，快来尝尝！” A night-market vendor calls out while stir-frying noodles' },
  { slug: 'cafe-duet', text: 'Deux musiciens jouent une mélodie douce au café : piano et violoncelle, façade en néon 🎻☕' },
  { slug: 'caption-markup', text: `A news anchor reads the caption <b>Breaking</b> & "live" from O'Hare <script>alert("x")</script>` },
  { slug: 'ocean-waves', text: 'Waves crash on a rocky shore at dusk while gulls cry overhead; wind noise, no music' },
];

export interface SynthCase extends PlanCase {
  index: number;
  promptIndex: number;
  seedIndex: number;
}

/** Prompt-major order, as the formal plan lists them: each prompt with every seed, then the next prompt. */
export function planCases(profile: SizeProfile, limit?: number): SynthCase[] {
  const out: SynthCase[] = [];
  PROMPTS.forEach((prompt, promptIndex) => {
    profile.seeds.forEach((seed, seedIndex) => {
      out.push({ index: out.length, promptIndex, seedIndex, case_id: `${prompt.slug}-s${seed}`, prompt: prompt.text, seed });
    });
  });
  return limit === undefined ? out : out.slice(0, limit);
}

export interface LavfiSource {
  /** A lavfi graph producing the picture at the profile's size and rate (unbounded; trimmed by the encoder). */
  video: string;
  /** An aevalsrc graph producing stereo PCM with different content per channel. */
  audio: string;
}

// Per seed index, so that the four seeds of one prompt still look and sound different.
const HUES = [0, 90, 180, 270] as const;
const MANDELBROT_STARTS = [
  [-0.743644, -0.131826],
  [-0.7453, 0.1127],
  [-1.25066, 0.02012],
  [-0.16, 1.0405],
] as const;
const BARS = ['smptehdbars', 'smptebars', 'pal75bars', 'rgbtestsrc'] as const;
const CELL_RULES = [30, 90, 110, 150] as const;
const TINTS = ['rr=0.25:gg=0.55:bb=0.95', 'rr=0.15:gg=0.7:bb=0.8', 'rr=0.4:gg=0.5:bb=0.9', 'rr=0.2:gg=0.45:bb=0.7'] as const;
const LIFE_COLORS = [
  ['#f0c040', '#102040', '#603020'],
  ['#e05070', '#0a1a10', '#305030'],
  ['#80e0f0', '#200818', '#502040'],
  ['#f0f0a0', '#101010', '#404080'],
] as const;

function pick<T>(list: readonly T[], i: number): T {
  return list[i % list.length] as T;
}

/** Quoted for a filtergraph: commas inside expressions must not split the filter chain. */
function q(expr: string): string {
  return `'${expr}'`;
}

function audioSource(c: SynthCase, sampleRate: number): string {
  // Frequencies move with both the prompt and the seed; left and right always differ.
  const f = 180 + 55 * c.promptIndex + 23 * c.seedIndex;
  const g = Math.round(f * 1.5);
  const m = 2 + c.seedIndex;
  let left: string;
  let right: string;
  switch (c.promptIndex) {
    case 0: // syllable-like amplitude modulation
      left = `0.30*sin(2*PI*${f}*t)*(0.55+0.45*sin(2*PI*${m}*t))`;
      right = `0.22*sin(2*PI*${g}*t)*(0.55+0.45*cos(2*PI*${m + 1}*t))`;
      break;
    case 1: // frequency modulated calls
      left = `0.30*sin(2*PI*${f * 2}*t+6*sin(2*PI*${m / 4}*t))`;
      right = `0.20*sin(2*PI*${g}*t)+0.08*sin(2*PI*${g * 3}*t)`;
      break;
    case 2: // two instruments, one per side, with harmonics
      left = `0.25*sin(2*PI*${f * 2}*t)+0.10*sin(2*PI*${f * 4}*t)+0.05*sin(2*PI*${f * 6}*t)`;
      right = `0.25*sin(2*PI*${Math.round(f * 2.5)}*t)+0.12*sin(2*PI*${Math.round(f * 5)}*t)`;
      break;
    case 3: // gated beeps, alternating sides
      left = `0.30*sin(2*PI*${f * 4}*t)*gt(mod(t*${m},1),0.5)`;
      right = `0.30*sin(2*PI*${g * 2}*t)*lt(mod(t*${m},1),0.5)`;
      break;
    default: // slow swells
      left = `0.20*sin(2*PI*${f}*t)*(0.5+0.5*sin(2*PI*0.${3 + c.seedIndex}*t))+0.08*sin(2*PI*${Math.round(f * 3.1)}*t)`;
      right = `0.20*sin(2*PI*${g}*t)*(0.5+0.5*cos(2*PI*0.${2 + c.seedIndex}*t))+0.06*sin(2*PI*${Math.round(g * 2.7)}*t)`;
  }
  return `aevalsrc=exprs=${q(`${left}|${right}`)}:s=${sampleRate}:c=stereo`;
}

function videoSource(c: SynthCase, p: SizeProfile): string {
  const size = `${p.width}x${p.height}`;
  const coarse = `${p.width / p.cell}x${p.height / p.cell}`;
  const frames = p.fps * p.seconds;
  // The detailed sources are drawn at half size and scaled up: pixel-level detail would otherwise cost most of the fixture budget.
  const half = `${p.width / 2}x${p.height / 2}`;
  const i = c.seedIndex;
  switch (c.promptIndex) {
    case 0:
      return `testsrc2=s=${half}:r=${p.fps},scale=${size}:flags=bicubic,hue=h=${pick(HUES, i)}`;
    case 1: {
      const [x, y] = pick(MANDELBROT_STARTS, i);
      // end_pts = the clip's last frame: the zoom spans the whole clip whatever its length.
      return `mandelbrot=s=${half}:r=${p.fps}:maxiter=${p.mandelbrotIterations}:start_x=${x}:start_y=${y}:start_scale=3:end_scale=0.1:end_pts=${frames},scale=${size}:flags=bicubic`;
    }
    case 2: {
      const [life, death, mold] = pick(LIFE_COLORS, i);
      return `life=s=${coarse}:r=${p.fps}:seed=${c.seed}:ratio=0.3:mold=8:life_color=${life}:death_color=${death}:mold_color=${mold},scale=${size}:flags=neighbor`;
    }
    case 3:
      // Bars are still pictures; a crop that slides across a double-width pattern gives them motion.
      return `${pick(BARS, i)}=s=${p.width * 2}x${p.height}:r=${p.fps},crop=${p.width}:${p.height}:x=${q(`mod(n*${p.width / 16},${p.width})`)}:y=0`;
    default:
      return `cellauto=s=${coarse}:r=${p.fps}:rule=${pick(CELL_RULES, i)}:seed=${c.seed}:ratio=0.5,scale=${size}:flags=neighbor,format=rgb24,colorchannelmixer=${pick(TINTS, i)}`;
  }
}

export function caseSource(c: SynthCase, profile: SizeProfile): LavfiSource {
  return { video: videoSource(c, profile), audio: audioSource(c, profile.sampleRate) };
}
