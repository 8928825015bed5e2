#pragma once
// The sensitivity scan: how much the model's output moves when only one group of weights (one
// tensor: layer x role, or token_embd, or output) is quantized to one candidate type, measured
// as the mean KL divergence against the unquantized reference, top-1 agreement and the change in
// probability of the reference's top token, over calibration tokens.
//
// The reference runs once per chunk and keeps the residual stream entering every layer. A probe
// (one group, one type) in layer L reruns only layers L.. from that cached stream, with the
// group quantized by the project's quantizers (the importance matrix's weights when given), so
// its logits equal a whole pass's bit for bit at a fraction of the cost. Every probe is
// independent of the others: they run in any order, on any executor, in any process (--shard),
// and their figures do not depend on which.

#include "core/base/Result.h"
#include "core/forward/ForwardPass.h"
#include "core/gguf/Model.h"
#include "core/recipe/RecipeConversion.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

// One group the scan quantizes alone.
struct ScanGroup {
    std::string tensor;      // the tensor's name
    std::string role;        // attn_q, ffn_down_exps, token_embd, output, ...
    std::int64_t layer = -1; // its block, -1 for token_embd and output
    std::int64_t firstLayer = 0;  // the first layer a probe of it reruns (the layer count: the output only)
    std::uint64_t elements = 0;
    std::int64_t rowLength = 0;
    bool hasImportance = false;   // the importance matrix has weights for it
};

struct ScanOptions {
    std::vector<std::uint32_t> types;   // empty: defaultScanTypes(withImportance)
    std::int64_t chunkSize = 128;       // tokens per chunk (first replaced by BOS when >= 0, second half scored)
    std::int32_t bosToken = -1;
    std::int64_t maxTokens = 0;         // 0: all the tokens given (whole chunks)
    std::int64_t layerStride = 1;       // probe every stride-th block's groups (token_embd and output always)
    std::vector<std::int64_t> layers;   // when not empty: only these blocks (token_embd and output always)
    ImportanceLookup importance;        // empty: no imatrix (IQ types need one)
    std::string importanceLabel;        // the imatrix file named in the scan file
    bool accumulateInDouble = false;    // the forward pass's default sums, as `kld` uses them
    // The passes' activation arithmetic and KV cache (ForwardOptions::activations, ::kvCache),
    // as `kld` uses them.
    ActivationArithmetic activations = ActivationArithmetic::LlamaCpp;
    KvCacheSettings kvCache;
    // Where each pass's products and quantizations run (null: the calling thread); not a setting
    // of the scan (the figures do not depend on it), so not in its fingerprint.
    TaskExecutor* executor = nullptr;
    // Shown the inputs of the reference pass's products (an importance matrix collected in the
    // same pass, ImatrixCollector.h); null: none. With it the reference's last layer runs every
    // position, as llama-imatrix's does, where it would stop at the scored half (the logits still
    // do). Not a setting of the scan either: its figures are the same.
    MatmulInputObserver* referenceInputs = nullptr;
};

// q2_K ... q6_K and q8_0; with an importance matrix also iq2_xxs, iq2_xs, iq3_xxs, iq3_s, iq4_xs.
std::vector<std::uint32_t> defaultScanTypes(bool withImportance);

struct ProbeKey {
    std::size_t group = 0;
    std::uint32_t type = 0;
};

// The figures of one probe over every scored position.
struct ProbeFigures {
    double meanKld = 0.0;
    double kldStandardError = 0.0;
    double sameTopFraction = 0.0;
    double meanDeltaTopProbability = 0.0;  // p_quantized - p_reference of the reference's top token
    std::int64_t positions = 0;
    std::int64_t layersRerun = 0;  // per chunk: firstLayer.. plus the output counted as one
    // The KLD's trimmed mean (trimmedKldMean: the largest and smallest 5 % of positions left
    // out), robust to the few positions where a MoE router picked another expert; absent in files
    // written before it was recorded.
    std::optional<double> trimmedKld;
};

// The mean of the values without the floor(5 %) largest and as many smallest: per-position KLD
// is skewed, and on MoE models a probe's mean is often one or two positions whose routing flipped
// (median 0); the trimmed mean still ranks the bulk of positions where the median cannot.
double trimmedKldMean(std::vector<double> values);

struct ProbeResult {
    std::size_t index = 0;  // in SensitivityScan::probes()
    ProbeFigures figures;
};

// Runs `count` units: run(i) for each i in [0, count), in any order, one at a time (a probe's
// passes already use every core through the shared worker pool, which is not to be entered from
// two threads at once; probes run side by side as processes, --shard). run(i) returns false when
// the unit failed or was cancelled, after which the executor may stop.
using ProbeExecutor = std::function<void(std::size_t count, const std::function<bool(std::size_t)>& run)>;
// One after another on the calling thread (each pass uses every core by itself).
ProbeExecutor sequentialExecutor();

// The fingerprint's parts, each a SHA-256 in hex (ScanFingerprint.h), so that a comparison of
// two scans, or of a scan and a model, can say what differs. Empty in files written before they
// were recorded.
struct ScanFingerprintParts {
    std::string tensors;     // every tensor's name and shape
    std::string model;       // every tensor's name, type, shape and offset: the reference file's index
    std::string text;        // the tokens evaluated, and the BOS put first in each chunk
    std::string imatrix;     // per group whether the importance matrix has weights for it, and they
    std::string arithmetic;  // the activation arithmetic and the precision of the sums
};

struct ScanIdentity {
    std::string model;        // the reference file's path as given
    std::string fingerprint;  // SHA-256 over the settings, the tokens and the model's tensor index
    ScanFingerprintParts parts;
    std::int64_t chunkSize = 0;
    std::int64_t tokens = 0;  // tokens evaluated (whole chunks)
    std::int64_t scoredPerChunk = 0;
    std::vector<std::uint32_t> types;
    std::string importance;   // the imatrix label, empty when none
    // activationArithmeticName of the passes' arithmetic; "f32" in files written before the
    // default became q8 activations, which did not record it.
    std::string activations = activationArithmeticName(ActivationArithmetic::QuantizedAsLlamaCpp);
    // attentionArithmeticName of the passes; in files written before it was recorded, f32 K and
    // V with the attention their activations implied (llama.cpp's without flash attention, else
    // plain f32).
    std::string attention;
    std::int64_t layerStride = 1;
    std::vector<std::int64_t> layers;
};

class SensitivityScan {
public:
    // Runs the reference over the tokens (whole chunks) and keeps what the probes need.
    static Result<std::unique_ptr<SensitivityScan>> prepare(const Model& reference, std::span<const std::int32_t> tokens,
                                                            const ScanOptions& options, const std::atomic<bool>* cancel = nullptr);

    const std::vector<ScanGroup>& groups() const { return m_groups; }
    // Every probe, in a fixed order: groups in llama-quantize's tensor order, each with the
    // candidate types it can take (its rows fill the type's blocks; IQ types only with weights).
    const std::vector<ProbeKey>& probes() const { return m_probes; }
    const ScanIdentity& identity() const { return m_identity; }
    std::int64_t layerCount() const { return m_layerCount; }
    // The probes a shard runs: index % count == shard (0-based), a deterministic 1/count.
    std::vector<std::size_t> shardProbes(std::size_t shard, std::size_t count) const;
    // Mean layers a probe reruns per chunk (output counted as one), over all probes.
    double meanLayersRerun() const;

    // One probe (not from two threads at once: see ProbeExecutor).
    Result<ProbeFigures> runProbe(std::size_t index, const std::atomic<bool>* cancel = nullptr) const;

private:
    SensitivityScan() = default;

    struct Chunk {
        std::vector<std::int32_t> tokens;
        ForwardResult reference;  // logits and the residual after every layer
    };

    const Model* m_model = nullptr;
    ScanOptions m_options;
    ScanIdentity m_identity;
    std::vector<ScanGroup> m_groups;
    std::vector<ProbeKey> m_probes;
    std::vector<Chunk> m_chunks;
    std::int64_t m_layerCount = 0;
};

// A scan's figures, complete or partial (a shard, or a run stopped half way).
struct ScanRecord {
    ScanIdentity identity;
    std::vector<ScanGroup> groups;
    std::vector<ProbeKey> probes;                 // every probe of the whole scan
    std::vector<std::optional<ProbeFigures>> figures;  // per probe, when measured
    std::string shard;                            // "I/N" for a shard's file, empty otherwise
    std::size_t measured() const;
};

ScanRecord emptyRecord(const SensitivityScan& scan);

struct ScanRunOptions {
    ProbeExecutor executor;                      // empty: sequentialExecutor()
    std::size_t shard = 0, shardCount = 1;       // 0-based shard of shardCount
    const std::atomic<bool>* cancel = nullptr;
    // After each probe: probes done in this run, the probes this run has to do, and the seconds
    // it has taken so far (for an ETA).
    std::function<void(std::size_t done, std::size_t total, double seconds)> progress;
    // After each probe, with the record so far (e.g. to write the partial scan file). A failure
    // stops the scan.
    std::function<Status(const ScanRecord&)> checkpoint;
};

// Measures the probes of the shard that `record` does not hold yet (resume), in `record`.
// Fails "cancelled" (kForwardCancelled) when cancelled; the record keeps what was measured.
Status runScan(const SensitivityScan& scan, ScanRecord& record, const ScanRunOptions& options);

}  // namespace gguf
