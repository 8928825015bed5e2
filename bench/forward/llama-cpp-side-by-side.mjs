// llama.cpp's CPU speed on the forward bench's file, for the side-by-side in the README:
//   gguf-explorer-forward-bench --keep            # writes /tmp/ggufx-forward-bench-7b.gguf
//   mkdir /tmp/nlc && cd /tmp/nlc && npm i -E node-llama-cpp@3.21.1   # prebuilt llama.cpp for linux-x64
//   cp .../bench/forward/llama-cpp-side-by-side.mjs . && node llama-cpp-side-by-side.mjs /tmp/ggufx-forward-bench-7b.gguf 128 3
// Same token ids as the bench (minstd_rand, seed 7, modulo the vocabulary), 2 threads, batch 512.
import {getLlama} from "node-llama-cpp";
const [modelPath, nTokens, repeats] = [process.argv[2], Number(process.argv[3] ?? 64), Number(process.argv[4] ?? 2)];
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const model = await llama.loadModel({modelPath, gpuLayers: 0, useMmap: true});
let seed = 7;
const tokens = [];
for (let i = 0; i < nTokens; ++i) { seed = (seed * 48271) % 2147483647; tokens.push(seed % 32000); }
for (let r = 0; r < repeats; ++r) {
  const context = await model.createContext({contextSize: 512, batchSize: 512, threads: {ideal: 2, min: 2}, flashAttention: false});
  const seq = context.getSequence();
  const t0 = performance.now();
  await seq.evaluateWithoutGeneratingNewTokens(tokens);
  const s = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({run: r, tokens: nTokens, seconds: s, tokensPerSecond: nTokens / s}));
  await context.dispose();
}
console.log(JSON.stringify({peakRssGiB: process.resourceUsage().maxRSS / 1024 / 1024}));
await model.dispose();
