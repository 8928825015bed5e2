#pragma once
// The Overview's memory estimate (core/estimate): weights, KV cache and compute buffer for a
// context length picked on a slider (powers of two from 512 to the training context) and a KV
// cache type. Computed on the GUI thread: it reads only the parsed header (no I/O, even for a
// remote model) and takes microseconds.

#include "gguf/Model.h"

#include <QGroupBox>
#include <memory>

class QComboBox;
class QLabel;
class QSlider;

class MemoryEstimateBox : public QGroupBox {
    Q_OBJECT
public:
    explicit MemoryEstimateBox(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    QSlider* contextSlider() const { return m_slider; }
    QComboBox* cacheTypeBox() const { return m_cacheType; }
    std::uint64_t contextLength() const;  // what the slider shows

private:
    void refresh();

    std::shared_ptr<const gguf::Model> m_model;
    QSlider* m_slider = nullptr;
    QComboBox* m_cacheType = nullptr;
    QLabel* m_contextLabel = nullptr;
    QLabel* m_result = nullptr;
};
