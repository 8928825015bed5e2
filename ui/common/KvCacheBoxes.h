#pragma once
// llama.cpp's KV cache choices as combo boxes, for every place that offers them (the memory
// estimate, the Output tab): the cache type for K and V (-ctk / -ctv, f16 first, each item's
// data its ggml type id) and flash attention (auto, on, off; each item's data a
// gguf::FlashAttention).

class QComboBox;
class QWidget;

QComboBox* newCacheTypeBox(QWidget* parent);
QComboBox* newFlashAttentionBox(QWidget* parent);
