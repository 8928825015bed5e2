#pragma once
// What Find Everywhere finds in an open model, grouped by kind: the model page's tab names,
// metadata keys and values, tensor names (here, at once: they are in memory) and tokens (a job:
// a vocabulary of 151,936 tokens is indexed first). Each group keeps its total and the first
// hits to show.

#include "core/gguf/Model.h"
#include "core/gguf/Vocabulary.h"

#include <QString>
#include <QStringList>
#include <atomic>
#include <string>
#include <vector>

enum class FindKind { Page, Metadata, Tensor, Token };

struct FindHit {
    QString text;   // as listed
    QString name;   // what choosing it goes to: a page, a key, a tensor or a token id
    int index = 0;  // a page's index, a tensor's in Model::tensors(), a token's id
};

struct FindGroup {
    FindKind kind = FindKind::Page;
    int total = 0;                // every match; `shown` holds the first ones
    std::vector<FindHit> shown;
};

constexpr int kFindShownPerKind = 50;

// The in-memory kinds whose text holds `needle` (case-insensitive), in the order Page,
// Metadata, Tensor; a kind without a match has no group. Arrays longer than 64 elements (the
// token list itself) are matched by key only: their text is the Token kind's.
std::vector<FindGroup> findInModel(const gguf::Model& model, const QStringList& pages, const QString& needle);

// The tokens whose display text holds `needle` (lower-case), as a Token group (total 0 when none).
FindGroup findTokens(const gguf::Vocabulary& vocabulary, const std::string& lowerNeedle, const std::atomic<bool>* cancel);
