// Manual check that files this app writes load and run in the real llama.cpp (node-llama-cpp
// 3.21.1 ships a prebuilt one for linux-x64; nothing in the build or tests depends on it):
//   mkdir /tmp/nlc && cd /tmp/nlc && npm i -E node-llama-cpp@3.21.1
//   gguf-explorer-cli meta ORIG.gguf --set general.name=x -o EDITED.gguf
//   node tools/llama-cpp-load-check.mjs ORIG.gguf EDITED.gguf [ORIG2 EDITED2 ...]
// Prints per pair: loaded, same tokenization, the edited keys llama.cpp sees, tokens evaluated.
import {getLlama} from "node-llama-cpp";
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const files = process.argv.slice(2);
for (let i = 0; i + 1 < files.length; i += 2) {
  const [orig, edited] = [files[i], files[i + 1]];
  const a = await llama.loadModel({modelPath: orig, gpuLayers: 0});
  const b = await llama.loadModel({modelPath: edited, gpuLayers: 0});
  const ta = a.tokenize("The quick brown fox"), tb = b.tokenize("The quick brown fox");
  const md = b.fileInfo.metadata;
  console.log(JSON.stringify({edited, loaded: true, sameTokens: JSON.stringify(ta) === JSON.stringify(tb),
    name: md.general?.name ?? null, addBos: md.tokenizer?.ggml?.add_bos_token, freqBase: md.llama?.rope?.freq_base,
    tensors: b.fileInfo.tensorInfo?.length}));
  const ctx = await b.createContext({contextSize: 128});
  const seq = ctx.getSequence();
  await seq.evaluateWithoutGeneratingNewTokens(tb);
  console.log(JSON.stringify({evaluated: tb.length}));
  await ctx.dispose(); await a.dispose(); await b.dispose();
}
