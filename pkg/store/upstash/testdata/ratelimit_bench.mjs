// The peer of BenchmarkStoreDecide: @upstash/ratelimit deciding a token bucket of 1000
// a second, burst 100 (the benchmark's rule) on the local Upstash server, CALLERS
// concurrent callers each on its own identifier, N decisions in all. @upstash/redis
// keeps its defaults (automatic pipelining on) but for retries, which are off as in
// our client; the ephemeral cache, which answers blocked identifiers without a
// request, is off, so that every decision is a script call as ours is. It prints
// {"n", "callers", "ns"}: the decisions' elapsed nanoseconds, after a warm-up that
// loads the script.
//
// Environment: UPSTASH_URL, UPSTASH_TOKEN, KEY_PREFIX, N, CALLERS, NODE_MODULES.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const modules = process.env.NODE_MODULES;
const { Redis } = require(path.join(modules, "@upstash", "redis"));
const { Ratelimit } = require(path.join(modules, "@upstash", "ratelimit"));

const redis = new Redis({ url: process.env.UPSTASH_URL, token: process.env.UPSTASH_TOKEN, retry: { retries: 0 } });
const limiter = new Ratelimit({
  redis,
  limiter: Ratelimit.tokenBucket(1000, "1 s", 100),
  prefix: process.env.KEY_PREFIX,
  ephemeralCache: false,
  analytics: false,
});
const n = Number(process.env.N);
const callers = Number(process.env.CALLERS);

for (let i = 0; i < 3; i++) {
  await limiter.limit("warm-up");
}
const start = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: callers }, async (_, c) => {
    const m = Math.floor(n / callers) + (c < n % callers ? 1 : 0);
    for (let i = 0; i < m; i++) {
      await limiter.limit(`caller${c}`);
    }
  }),
);
const ns = Number(process.hrtime.bigint() - start);
console.log(JSON.stringify({ n, callers, ns }));
