#pragma once
// How a background job ended: done, cancelled, or failed with a message. Views decide what to
// show from the kind, never by reading the message, so a core error that happens to mention
// cancellation is still shown as the failure it is.

#include <QMetaType>
#include <QString>

class JobOutcome {
public:
    enum class Kind { Done, Cancelled, Failed };

    static JobOutcome done() { return JobOutcome(Kind::Done, {}); }
    static JobOutcome cancelled() { return JobOutcome(Kind::Cancelled, {}); }
    static JobOutcome failed(QString message) { return JobOutcome(Kind::Failed, std::move(message)); }

    JobOutcome() = default;  // done; for the meta-type system
    Kind kind() const { return m_kind; }
    bool isDone() const { return m_kind == Kind::Done; }
    bool isCancelled() const { return m_kind == Kind::Cancelled; }
    bool isFailed() const { return m_kind == Kind::Failed; }

    // For signals that still report (succeeded, message): empty when done, "cancelled" when
    // cancelled, the failure's message otherwise.
    QString message() const { return m_kind == Kind::Cancelled ? QStringLiteral("cancelled") : m_message; }

private:
    JobOutcome(Kind kind, QString message) : m_kind(kind), m_message(std::move(message)) {}
    Kind m_kind = Kind::Done;
    QString m_message;
};

Q_DECLARE_METATYPE(JobOutcome)
