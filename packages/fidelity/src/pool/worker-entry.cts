/**
 * The file piscina's threads load: a CommonJS module that loads the pool's
 * task (worker.js, an ES module) with `import()`.
 *
 * Why not worker.js itself: piscina loads its task file with `require()`
 * first, and on Node 20.19 and later `require()` of an ES module works, on a
 * synchronous path that aborts the whole process ("FATAL ERROR:
 * v8::Module::IsGraphAsync ... must be used on an instantiated module") when
 * the thread is terminated while the module graph loads. The pool's threads
 * start while the runs are verified and are terminated when the command
 * ends, so a refusal or a Ctrl-C early in a command hit it, on a slow machine
 * most. `require()` of this file loads no ES module; `import()` can be
 * interrupted safely.
 *
 * The import starts when piscina first requires this file (at the thread's
 * start), so the worker's rooms load while the runs are verified, as before.
 */
type Task = typeof import('./worker.js');

const loaded: Promise<Task> = import('./worker.js');
// A failure to load is the first task's to report (below), not an unhandled rejection of a thread that got none.
loaded.catch(() => {});

/** The pool's task (worker.js's default export), once it has loaded. */
async function measureTask(task: Parameters<Task['default']>[0]): Promise<unknown> {
  return (await loaded).default(task);
}

export = measureTask;
