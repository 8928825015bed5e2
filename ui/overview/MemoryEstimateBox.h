#pragma once
// The Overview's memory estimate (core/estimate): weights, KV cache, recurrent state and compute
// buffer for a context length (any count of tokens, typed, or picked on a slider that steps by
// powers of two from 512 to the training context) and the options of llama.cpp's command-line
// tools, with their defaults: KV cache type (f16; every type llama.cpp accepts for
// --cache-type-k/-v), flash attention (auto), batch (2048), ubatch (512), full-size SWA cache
// (off) and GPU layers (-ngl, 0). The figures read in binary units; hovering them gives each in
// exact bytes. Computed on the GUI thread: it reads only the parsed header (no I/O, even for a
// remote model) and takes microseconds.

#include "core/gguf/Model.h"

#include <QGroupBox>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;

class MemoryEstimateBox : public QGroupBox {
    Q_OBJECT
public:
    explicit MemoryEstimateBox(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    QSlider* contextSlider() const { return m_slider; }
    QSpinBox* contextBox() const { return m_context; }
    QLabel* resultLabel() const { return m_result; }
    QComboBox* cacheTypeBox() const { return m_cacheType; }
    QComboBox* flashAttentionBox() const { return m_flashAttention; }
    QSpinBox* batchBox() const { return m_batch; }
    QSpinBox* ubatchBox() const { return m_ubatch; }
    QCheckBox* fullSlidingWindowBox() const { return m_fullSlidingWindow; }
    QSpinBox* gpuLayersBox() const { return m_gpuLayers; }
    std::uint64_t contextLength() const;  // what the context box shows

private:
    void refresh();

    std::shared_ptr<const gguf::Model> m_model;
    QSlider* m_slider = nullptr;
    QSpinBox* m_context = nullptr;
    QComboBox* m_cacheType = nullptr;
    QComboBox* m_flashAttention = nullptr;
    QSpinBox* m_batch = nullptr;
    QSpinBox* m_ubatch = nullptr;
    QCheckBox* m_fullSlidingWindow = nullptr;
    QSpinBox* m_gpuLayers = nullptr;
    QLabel* m_result = nullptr;
};
