#include "output/OutputRun.h"

#include <QMetaObject>
#include <QPointer>
#include <QThreadPool>

OutputRun::OutputRun(QObject* parent) : QObject(parent) {}

OutputRun::~OutputRun()
{
    cancel();
}

void OutputRun::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void OutputRun::start(std::shared_ptr<const gguf::Model> reference, std::vector<OutputRunCandidate> candidates, std::vector<std::int32_t> tokens,
                      bool emulateLlamaCpp)
{
    cancel();
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    const int generation = ++m_generation;
    m_running = true;
    QPointer<OutputRun> self(this);
    auto cancelFlag = m_cancel;
    // The worker owns shared pointers to everything it reads; it reports through queued calls
    // that check the generation on the GUI thread.
    QThreadPool::globalInstance()->start([self, generation, cancelFlag, reference, emulateLlamaCpp, candidates = std::move(candidates),
                                          tokens = std::move(tokens)]() {
        std::vector<gguf::OutputCandidate> core;
        for (const auto& c : candidates)
            core.push_back({c.label.toStdString(), c.model.get(), c.simulatedType});
        gguf::OutputRunOptions options;
        options.cancel = cancelFlag.get();
        options.emulateLlamaCppActivations = emulateLlamaCpp;
        options.progress = [self, generation](std::int64_t done, std::int64_t total) {
            if (!self)
                return;
            QMetaObject::invokeMethod(
                self.data(),
                [self, generation, done, total]() {
                    if (self && self->m_generation == generation)
                        emit self->progress(static_cast<int>(done), static_cast<int>(total));
                },
                Qt::QueuedConnection);
        };
        auto result = gguf::compareModelOutputs(*reference, core, tokens, options);
        std::shared_ptr<const gguf::OutputRunResult> shared;
        std::shared_ptr<const gguf::Vocabulary> vocabulary;
        QString error;
        if (result) {
            shared = std::make_shared<const gguf::OutputRunResult>(std::move(result).value());
            if (gguf::Vocabulary::hasTokens(*reference))
                if (auto built = gguf::Vocabulary::build(reference, cancelFlag.get()))
                    vocabulary = std::make_shared<const gguf::Vocabulary>(std::move(built).value());
        }
        else
            error = QString::fromStdString(result.error().toString());
        const bool cancelled = cancelFlag->load();
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, shared, vocabulary, error, cancelled]() {
                if (!self || self->m_generation != generation)
                    return;
                self->m_running = false;
                if (shared && !cancelled)
                    emit self->finished(shared, vocabulary);
                else
                    emit self->failed(cancelled ? QObject::tr("cancelled") : error, cancelled);
            },
            Qt::QueuedConnection);
    });
}
