#pragma once
// Measures the KLD of whole mixes against the reference on a text, as `kld` measures a written
// file: the model run over the text in chunks (llama-perplexity --kl-divergence's), once as it is
// and once per mix with every tensor quantized to the mix's type in memory (the values the
// converted file holds, bit for bit). One background job with progress and Cancel; a newer
// start() makes an older run stale.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "ui/session/JobRunner.h"

#include <QObject>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

struct MixToMeasure {
    QString label;
    std::unordered_map<std::string, std::uint32_t> types;  // tensor name -> type
};

struct MeasuredKld {
    QString label;
    double meanKld = 0.0;
    double standardError = 0.0;
};

class MixKldMeasurement : public QObject {
    Q_OBJECT
public:
    explicit MixKldMeasurement(QObject* parent = nullptr);

    // `maxTokens` 0: the whole text (whole chunks).
    void start(std::shared_ptr<const gguf::Model> model, std::vector<MixToMeasure> mixes, const QString& textFile, qint64 chunk, qint64 maxTokens,
               std::shared_ptr<const gguf::ImportanceMatrix> importance);
    void cancel() { m_jobs.cancel(); }
    bool isRunning() const { return m_jobs.isRunning(); }
    // Drops a run under way: its figures belong to a plan no longer shown.
    void drop() { m_jobs.renew(); }

signals:
    void progress(int done, int total);
    // The figures in the order of the mixes, and the positions scored.
    void finished(const std::vector<MeasuredKld>& figures, qint64 positions);
    void failed(const QString& message, bool cancelled);

private:
    JobRunner m_jobs{this};
};
