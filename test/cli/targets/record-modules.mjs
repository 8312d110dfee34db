// Preloaded with `node --import` by target-main.test.ts: writes the URL of every module the
// process loads, one per line, to the file named by WIRECHECK_TEST_MODULES_OUT at exit.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.WIRECHECK_TEST_MODULES_OUT;
if (out === undefined) throw new Error('record-modules.mjs needs WIRECHECK_TEST_MODULES_OUT');
const loaded = [];
registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => writeFileSync(out, `${loaded.join('\n')}\n`));
