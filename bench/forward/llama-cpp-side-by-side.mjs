// llama.cpp's CPU speed on the forward bench's file, run by gguf-explorer-forward-bench
// --llama-cpp DIR as a process of its own (or by hand):
//   mkdir DIR && cd DIR && npm i -E node-llama-cpp@3.21.1   # prebuilt llama.cpp for linux-x64
//   node llama-cpp-side-by-side.mjs DIR MODEL.gguf TOKENS REPEATS THREADS VOCABULARY [all|last]
// The bench's token ids (minstd_rand, seed 7, modulo the vocabulary), batch 512, no GPU. `all`
// (the default) asks for the logits of every position, as our pass and llama-perplexity compute
// them; `last` only for the last one (a plain prompt evaluation).
import path from "node:path";
import {pathToFileURL} from "node:url";

const [dir, modelPath] = [process.argv[2], process.argv[3]];
const nTokens = Number(process.argv[4] ?? 128);
const repeats = Number(process.argv[5] ?? 1);
const threads = Number(process.argv[6] ?? 2);
const vocabulary = Number(process.argv[7] ?? 32000);
const allLogits = (process.argv[8] ?? "all") === "all";
const {getLlama} = await import(pathToFileURL(path.join(dir, "node_modules", "node-llama-cpp", "dist", "index.js")).href);
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const model = await llama.loadModel({modelPath, gpuLayers: 0, useMmap: true});
let seed = 7;
const tokens = [];
for (let i = 0; i < nTokens; ++i) { seed = (seed * 48271) % 2147483647; tokens.push(seed % vocabulary); }
for (let r = 0; r < repeats; ++r) {
  const context = await model.createContext({contextSize: 512, batchSize: 512, threads: {ideal: threads, min: threads}, flashAttention: false});
  const seq = context.getSequence();
  const t0 = performance.now();
  if (allLogits)
    await seq.controlledEvaluate(tokens.map((token) => [token, {generateNext: {token: true}}]));
  else
    await seq.evaluateWithoutGeneratingNewTokens(tokens);
  const s = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({run: r, tokens: nTokens, logits: allLogits ? "all" : "last", seconds: s, tokensPerSecond: nTokens / s}));
  await context.dispose();
}
console.log(JSON.stringify({peakRssGiB: process.resourceUsage().maxRSS / 1024 / 1024}));
await model.dispose();
