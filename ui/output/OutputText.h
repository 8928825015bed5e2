#pragma once
// The Output tab's words: the summary line of one compared model (the figures llama-perplexity
// --kl-divergence and the CLI's kld command print, the means with their standard errors), the
// tokens coloured by KLD with top-token flips marked, and what an input is called on screen.

#include "core/forward/OutputMetrics.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <functional>
#include <span>

// "<b>Q4_K_M</b>: mean KLD 0.0123 ± 0.0004 (median …), same top token 97.4 %, Δp … ± …, PPL …".
QString outputSummaryLine(const QString& name, const gguf::OutputComparison& comparison);
// The same figures as cells (for the model report's table), and their column titles.
QStringList outputSummaryFigures(const gguf::OutputComparison& comparison);
QStringList outputSummaryColumns();
// Each scored position's input token with its KLD as background (white 0 to red at the run's
// largest); a top-token flip bold and underlined; links "position:<index>" for the hover tooltip.
// A first line names the model the colours are of.
QString outputTokenHtml(const QString& name, const gguf::OutputComparison& comparison, std::span<const std::int32_t> tokens,
                        const std::function<QString(std::int32_t)>& tokenText);
// "the text “The old lighthouse…” (52 tokens)" or "40 token ids (3, 56, 109, …)".
QString outputInputDescription(bool isText, const QString& text, std::size_t tokenCount);
// "the text file corpus.txt (1,203 tokens in chunks of 512, the first token BOS, the second half
// scored, as kld --text-file)", or "… (300 tokens, one sequence)" when `chunk` is 0.
QString outputTextFileDescription(const QString& path, std::size_t tokenCount, std::int64_t chunk);
