// What both Node clients share: their command line, read one way ((--url URL | --stdio --
// CMD [ARGS...]) [--mode M] [--tool NAME] [--args JSON] [--elicit JSON] [--timeout S]; bad
// usage prints the usage line and exits 2), and how a run is bounded and reported.

function usage(script, modes, message) {
  process.stderr.write(
    `${message ? `error: ${message}\n` : ''}usage: node ${script} [--mode ${modes.join('|')}] ` +
      '(--url URL | --stdio -- CMD [ARGS...]) [--tool NAME] [--args JSON] [--elicit JSON] [--timeout S]\n'
  );
  process.exit(2);
}

// Reads argv for `script`, whose modes are `modes` (the first is the default).
export function parseArgs(argv, script, modes) {
  const fail = (message) => usage(script, modes, message);
  const jsonObject = (text, flag) => {
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      // reported below with the flag's name
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) fail(`${flag} takes a JSON object`);
    return value;
  };
  const opts = { mode: modes[0], tool: 'test_simple_text', args: '{}', timeoutS: 15, command: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : fail(`${arg} needs a value`));
    if (arg === '--') {
      opts.command = argv.slice(i + 1);
      break;
    } else if (arg === '--url') opts.url = value();
    else if (arg === '--stdio') opts.stdio = true;
    else if (arg === '--mode') opts.mode = value();
    else if (arg === '--tool') opts.tool = value();
    else if (arg === '--args') opts.args = value();
    else if (arg === '--elicit') opts.elicit = value();
    else if (arg === '--timeout') opts.timeoutS = Number(value());
    else fail(`unknown argument ${arg}`);
  }
  if (!!opts.url === !!opts.stdio) fail('give exactly one of --url and --stdio');
  if (!!opts.stdio !== opts.command.length > 0) fail('--stdio takes a server command after --, and only --stdio does');
  if (!(opts.timeoutS > 0)) fail('--timeout must be a positive number');
  if (!modes.includes(opts.mode)) fail(`--mode must be one of ${modes.join(', ')}`);
  opts.args = jsonObject(opts.args, '--args');
  if (opts.elicit !== undefined) opts.elicit = jsonObject(opts.elicit, '--elicit');
  return opts;
}

// An error and its causes, on one line.
function describe(err) {
  const parts = [];
  for (let e = err, depth = 0; e && depth < 4; depth++, e = e.cause) {
    parts.push(`${e.name ?? 'Error'}${e.code !== undefined ? `[${e.code}]` : ''}: ${e.message ?? String(e)}`);
  }
  return parts.join(' <- ') || String(err);
}

// Runs `run(opts, out)` within four times the per-request timeout, prints `out` as one JSON
// document and exits 0 if the run set `out.ok`, 1 otherwise.
export async function report(opts, out, run) {
  let timer;
  try {
    await Promise.race([
      run(opts, out),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out at stage ${out.stage}`)), opts.timeoutS * 4000);
      })
    ]);
  } catch (err) {
    out.error = describe(err);
    if (err?.data !== undefined) out.errorData = err.data;
  } finally {
    clearTimeout(timer);
  }
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  // A half-open stdio child or socket must not keep the process alive.
  process.exit(out.ok ? 0 : 1);
}
