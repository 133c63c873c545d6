// Drives the local Upstash server with the official clients, @upstash/redis and
// @upstash/ratelimit, and prints one JSON object holding every reply, for
// official_client_test.go to check.
//
// Environment: UPSTASH_URL, UPSTASH_TOKEN, KEY_PREFIX (unique per run), SCRIPT
// (a Lua script starting with the allow-key-locking shebang), NODE_MODULES (the
// folder holding the npm packages). ESM imports ignore NODE_PATH, so the
// packages are loaded by path with require.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const modules = process.env.NODE_MODULES;
const { Redis } = require(path.join(modules, "@upstash", "redis"));
const { Ratelimit } = require(path.join(modules, "@upstash", "ratelimit"));

const url = process.env.UPSTASH_URL;
const token = process.env.UPSTASH_TOKEN;
const p = process.env.KEY_PREFIX;
const script = process.env.SCRIPT;

// errorOf runs f and returns the message of the error it throws, or "no error".
async function errorOf(f) {
  try {
    await f();
    return "no error";
  } catch (e) {
    return String(e && e.message);
  }
}

// suite runs every operation with one client and returns the replies.
async function suite(redis, p) {
  const out = {};
  out.set = await redis.set(`${p}:s`, "hello");
  out.get = await redis.get(`${p}:s`);
  out.setUnicode = await redis.set(`${p}:u`, "héllo ✓ 日本");
  out.getUnicode = await redis.get(`${p}:u`);
  out.getMissing = await redis.get(`${p}:missing`);
  out.incr = await redis.incr(`${p}:n`);
  out.incrby = await redis.incrby(`${p}:n`, 41);
  out.eval = await redis.eval("return {KEYS[1], ARGV[1], 7}", [`${p}:k`], ["a"]);
  out.scriptLoad = await redis.scriptLoad(script);
  out.evalsha = await redis.evalsha(out.scriptLoad, [`${p}:k`], ["5"]);
  out.evalshaUnknown = await errorOf(() => redis.evalsha("0".repeat(40), [], []));
  out.wrongType = await errorOf(() => redis.hget(`${p}:s`, "f"));

  const pipe = redis.pipeline();
  pipe.set(`${p}:pv`, "v");
  pipe.incr(`${p}:pn`);
  pipe.get(`${p}:pv`);
  pipe.get(`${p}:missing`);
  out.pipeline = await pipe.exec();

  const tx = redis.multi();
  tx.incr(`${p}:tn`);
  tx.incr(`${p}:tn`);
  tx.get(`${p}:tn`);
  out.multi = await tx.exec();

  const badTx = redis.multi();
  badTx.set(`${p}:ts`, "x");
  badTx.hget(`${p}:ts`, "f");
  out.multiWrongType = await errorOf(() => badTx.exec());

  // @upstash/ratelimit sends its scripts with the allow-key-locking shebang, by
  // EVALSHA of precomputed hashes, falling back to EVAL on NOSCRIPT.
  const limiter = new Ratelimit({
    redis,
    limiter: Ratelimit.fixedWindow(2, "60 s"),
    prefix: `${p}:rl`,
    analytics: false,
    ephemeralCache: false,
  });
  out.ratelimit = [];
  for (let i = 0; i < 3; i++) {
    const r = await limiter.limit("user");
    out.ratelimit.push({ success: r.success, remaining: r.remaining, limit: r.limit });
  }
  return out;
}

// The client's default batches every command through /pipeline (auto-pipelining);
// with it off, each command is a POST to the base URL.
const out = {
  autoPipelining: await suite(new Redis({ url, token }), `${p}:auto`),
  direct: await suite(new Redis({ url, token, enableAutoPipelining: false }), `${p}:direct`),
};
const wrong = new Redis({ url, token: "wrong-token", retry: false, enableAutoPipelining: false });
out.wrongToken = await errorOf(() => wrong.get(`${p}:s`));

console.log(JSON.stringify(out));
