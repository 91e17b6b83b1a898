/**
 * The WebDriver client against the real WebKitWebDriver: sessions, scripts, errors as W3C codes, every call under
 * a time limit (a driver that never answers fails the caller), and `close()` leaving no process or X server behind.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebDriverError, WebKitDriver, WebKitSession } from '../../src/node/webkit-driver.ts';

/** Pids in process group `pgid` (ps), to prove close() ended them all. */
function groupPids(pgid: number): number[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,pgid='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, group]) => group === pgid)
    .map(([pid]) => pid);
}

/** The Xvfb in process group `pgid`: its pid and display number (its `:<n>` argument), or null. */
function xvfbServer(pgid: number): { pid: number; display: string } | null {
  for (const pid of groupPids(pgid)) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (!args[0].endsWith('Xvfb')) continue;
      const display = args.find((arg) => /^:\d+$/.test(arg));
      if (display !== undefined) return { pid, display: display.slice(1) };
    } catch {
      // Gone meanwhile.
    }
  }
  return null;
}

/** The processes of group `pgid` still there after up to 2 s (processes can take a moment to be reaped after SIGKILL). */
async function groupAfterReaping(pgid: number): Promise<number[]> {
  for (let i = 0; i < 20 && groupPids(pgid).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return groupPids(pgid);
}

/** The environment of each WebKit web process in process group `pgid`, as /proc shows it. */
function webProcessEnvironments(pgid: number): Array<Map<string, string>> {
  return groupPids(pgid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('WebKitWebProces');
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(
      (pid) =>
        new Map(
          readFileSync(`/proc/${pid}/environ`, 'utf8')
            .split('\0')
            .filter(Boolean)
            .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
        ),
    );
}

const xvfbTempFolders = () =>
  readdirSync(tmpdir())
    .filter((name) => name.startsWith('xvfb-run.'))
    .sort();

async function expectWebDriverError(promise: Promise<unknown>, code: string, message: RegExp) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebDriverError);
  expect((error as WebDriverError).code).toBe(code);
  expect((error as WebDriverError).message).toMatch(message);
}

describe('WebKitDriver', () => {
  let driver: WebKitDriver;
  let session: WebKitSession;
  let foldersBefore: string[];
  beforeAll(async () => {
    foldersBefore = xvfbTempFolders();
    driver = await WebKitDriver.start();
    session = await driver.newSession({ scriptMs: 1_000, pageLoadMs: 10_000 });
  });
  afterAll(async () => {
    await driver?.close();
  });

  it('opens a MiniBrowser session and runs scripts (promises awaited; async scripts call back)', async () => {
    expect(session.browserVersion).toMatch(/^2\.\d+\.\d+$/);
    await session.navigate('about:blank');
    expect(await session.currentUrl()).toBe('about:blank');
    expect(await session.execute('return arguments[0] + arguments[1];', [40, 2])).toBe(42);
    expect(await session.execute('return new Promise((resolve) => setTimeout(() => resolve("later"), 20));')).toBe(
      'later',
    );
    expect(
      await session.executeAsync(
        'const done = arguments[arguments.length - 1]; setTimeout(() => done(arguments[0] * 2), 20);',
        [21],
      ),
    ).toBe(42);
    // JSC_useSharedArrayBuffer=1 is the default.
    expect(await session.execute('return typeof SharedArrayBuffer;')).toBe('function');
  });

  it('turns W3C errors into WebDriverError with the protocol code', async () => {
    await expectWebDriverError(session.execute('throw new TypeError("bad thing");'), 'javascript error', /bad thing/);
    await expectWebDriverError(session.findElement('#nothing-here'), 'no such element', /no such element/);
    // An async script that never calls back runs into the session's script timeout (1 s here).
    await expectWebDriverError(session.executeAsync('/* never calls back */'), 'script timeout', /script timeout/);
  });

  it('a driver that never answers fails the call after its time limit', async () => {
    const hung: Server = createServer(() => {
      // Accepts the request and never answers.
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const port = (hung.address() as { port: number }).port;
    const stuck = new WebKitSession(`http://127.0.0.1:${port}`, 'no-session', null, {
      callMs: 300,
      scriptMs: 300,
      pageLoadMs: 300,
    });
    const started = Date.now();
    await expectWebDriverError(stuck.currentUrl(), 'timeout', /took longer than 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
    hung.closeAllConnections();
    hung.close();
  });

  it('close() ends the driver, the browser and Xvfb, and leaves no xvfb-run folder, X lock file or X socket behind', async () => {
    const pgid = (driver as unknown as { child: { pid: number } }).child.pid;
    expect(groupPids(pgid).length).toBeGreaterThan(2);
    const display = xvfbServer(pgid)?.display;
    expect(display).toMatch(/^\d+$/);
    expect(existsSync(`/tmp/.X${display}-lock`)).toBe(true);
    await driver.close();
    expect(existsSync(`/tmp/.X${display}-lock`)).toBe(false);
    expect(existsSync(`/tmp/.X11-unix/X${display}`)).toBe(false);
    expect(await groupAfterReaping(pgid)).toEqual([]);
    expect(xvfbTempFolders()).toEqual(foldersBefore);
  });

  it('close() removes the X lock file and socket of an Xvfb it had to kill (one that did not stop in time on a loaded machine)', async () => {
    const own = await WebKitDriver.start();
    const pgid = own.processGroup!;
    const xvfb = xvfbServer(pgid);
    expect(xvfb?.display).toMatch(/^\d+$/);
    const display = xvfb!.display;
    // Stopped, it cannot end of its own accord when xvfb-run's trap asks it to, as on a machine too busy to let it.
    process.kill(xvfb!.pid, 'SIGSTOP');
    await own.close();
    expect(await groupAfterReaping(pgid)).toEqual([]);
    expect(existsSync(`/tmp/.X${display}-lock`)).toBe(false);
    expect(existsSync(`/tmp/.X11-unix/X${display}`)).toBe(false);
  });

  it("keeps WebKit's accelerated compositing unless told not to; `compositing: false` reaches the web process", async () => {
    for (const compositing of [undefined, false]) {
      const own = await WebKitDriver.start(compositing === undefined ? {} : { compositing });
      try {
        const page = await own.newSession({});
        await page.navigate('about:blank');
        expect(await page.execute('return 6 * 7;')).toBe(42);
        const envs = webProcessEnvironments(own.processGroup!);
        expect(envs.length).toBeGreaterThan(0);
        for (const env of envs)
          expect(env.get('WEBKIT_DISABLE_COMPOSITING_MODE')).toBe(compositing === false ? '1' : undefined);
      } finally {
        await own.close();
      }
    }
  });

  it("a process interrupted with Ctrl+C (SIGINT) while its driver runs takes the driver, the browser, xvfb-run's folder and the X lock file with it", async () => {
    const foldersBefore = xvfbTempFolders();
    // A Node process that opens a MiniBrowser session, says its group, and then waits, as a benchmark does mid-soak.
    const script = `
      import { WebKitDriver } from ${JSON.stringify(new URL('../../src/node/webkit-driver.ts', import.meta.url).pathname)};
      const driver = await WebKitDriver.start();
      await driver.newSession({});
      console.log('group ' + driver.processGroup);
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const group = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const found = /group (\d+)/.exec(out);
        if (found) resolve(Number(found[1]));
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before its session opened: ${out}`)));
    });
    expect(groupPids(group).length).toBeGreaterThan(2);
    const display = xvfbServer(group)?.display;
    expect(display).toMatch(/^\d+$/);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    child.kill('SIGINT');
    // The default meaning of the signal still holds: the process ends by it.
    expect(await exited).toBe('SIGINT');
    expect(await groupAfterReaping(group)).toEqual([]);
    expect(xvfbTempFolders()).toEqual(foldersBefore);
    expect(existsSync(`/tmp/.X${display}-lock`)).toBe(false);
    expect(existsSync(`/tmp/.X11-unix/X${display}`)).toBe(false);
  });
});
